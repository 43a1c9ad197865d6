/*-------------------------------------------------------------------------
 *
 * rules.h
 *		The rules' phases inside the matcher (private to src/matcher/): the
 *		interface through which a rule type plugs into the matcher's phases
 *		(MmMatcherModel, matcher_run.h), and the state a match being
 *		populated holds per rule. The types a config reader sees (MmRule,
 *		MmRuleType, MmAttrDecl, MmAttrValue) are in matcher.h.
 *
 * A hard rule filters the potentials of a target (admit, pairwise against
 * the target) and keeps a match being populated consistent (start, fits,
 * add, over every roster of the match; team_fits, team_add over the team a
 * roster joins). A soft rule (distance, latency) filters nothing: its
 * measure, times its weight, comes off a potential's score. Each rule has
 * at most one parameter (a distance's "max", an intersection's "min", a
 * latency's "max", a roles rule's "flex", a party rule's "min"), which an
 * "expand" schedule relaxes step by step with the target's wait. The GW2
 * rating filter and scoring stay the matcher's own; a queue without rules
 * matches exactly as before.
 *
 * The rules plug into the matcher's phases: filter (admit), populate
 * (start, fits, add over the match; team_fits, team_add over its teams),
 * score (measure, for a soft rule, weighed by its "weight"), complete (a
 * match whose teams are filled and split, by its odds: balance), backfill
 * (the same state over a running match, a roster joining one of its teams)
 * and explain (its type, parameter and unit, which mm.explain names). A new
 * rule is one file src/matcher/rule_<type>.c defining its MmRuleType and
 * MmRuleOps, a line in mm_rule_types[] (rules.c), its config keys
 * (rule_keys, src/queue/rules_config.c) and its documentation.
 *
 *-------------------------------------------------------------------------
 */
#ifndef MM_RULES_H
#define MM_RULES_H

#include "matcher.h"

/* What a match being populated holds, per rule. */
typedef struct MmRuleState
{
	MmAttrValue eq;				/* equal: the match's value */
	bool		eq_mixed;		/* equal: its rosters do not share one value */
	double		lo;				/* distance: smallest and largest value */
	double		hi;
	int			nids;			/* intersect: values shared by every roster */
	int		   *ids;
	/* latency: the match's regions (ids ascending), the worst latency in each */
	int			nlat;
	int		   *lat_region;
	double	   *worst;
	bool		lat_open;		/* latency: any region (a soft rule's target without latencies) */
	bool		capped;			/* latency: a roster has its own limit */
	/* the rules over teams, per side (MM_TEAMS) */
	int			players[MM_TEAMS];	/* players on the team */
	int			party[MM_TEAMS];	/* of them in parties (rosters of 2 or more) */
	int		   *have[MM_TEAMS]; /* roles: players per role id */
	bool		premade;		/* party: the match holds a party of "premade" players */
} MmRuleState;

struct MmRoster;

/*
 * A backfill (mm_matcher_backfill): the team of a running match whose open
 * seats are filled, for the rules' backfill phase.
 */
typedef struct MmBackfillSeats
{
	int			side;			/* the team's index in the match */
	int			present;		/* its players still there (team_size - open seats) */
	const int  *left;			/* per role id: the roles of the players who left; NULL: not given */
	int			region;			/* the match's region id; -1: none recorded; MM_REGION_ABSENT */
} MmBackfillSeats;


/* A rule type's phases (its MmRuleType in matcher.h names it). */
typedef struct MmRuleOps
{
	/* filter: may p be a potential of target? */
	bool		(*admit) (const MmRule *rule, double limit, const struct MmRoster *target,
						  const struct MmRoster *p, int nregions);

	/*
	 * filter as bits (NULL: admit only): a roster's bits at each level of
	 * the rule's parameter (level 0 its value, level s + 1 the expansion
	 * step s: rule->nsteps + 1 levels, at most MM_FILTER_LEVELS), such that
	 * admit holds at a level exactly when the target's and the potential's
	 * bits there share one. The matcher computes them once per run and
	 * filters with one AND, without a call per potential. False: the rule
	 * cannot (too many regions, levels): admit is called.
	 */
	bool		(*bits) (const MmRule *rule, const struct MmRoster *r, int nregions, uint64 *bits);
	/* populate: a match holding only the target */
	void		(*start) (MmRuleState *st, const MmRule *rule, const struct MmRoster *target,
						  int nregions);
	/* may r join the match? */
	bool		(*fits) (const MmRuleState *st, const MmRule *rule, double limit,
						 const struct MmRoster *r, int nregions);
	/* r joins the match */
	void		(*add) (MmRuleState *st, const MmRule *rule, const struct MmRoster *r, int nregions);
	/*
	 * populate, for rules over teams (NULL: none): may r join team "side"
	 * (the match can still be completed with it there)? r joins it (called
	 * for the target too, after start).
	 */
	bool		(*team_fits) (const MmRuleState *st, const MmRule *rule, double limit,
							  const struct MmRoster *r, int side);
	void		(*team_add) (MmRuleState *st, const MmRule *rule, const struct MmRoster *r, int side);
	/*
	 * score, for a soft rule (NULL: the rule cannot be soft): the measure
	 * of the match were r to join it, which the matcher weighs (lower is
	 * better: score - weight x measure)
	 */
	double		(*measure) (const MmRuleState *st, const MmRule *rule, const struct MmRoster *r,
							int nregions);

	/*
	 * backfill (NULL: nothing to do): the state holds every roster of a
	 * running match (start with one, then add and team_add with each, on
	 * its team); the rosters that join it fill open seats of team
	 * seats->side. Make the state that of the match they join (the players
	 * still on the team, the region it is played in), and return the
	 * parameter they are held to: "limit" (the request's, at its wait),
	 * loosened to what the match already has where it breaks the rule at
	 * "limit", so that a request never waits on what no roster can change.
	 * fits, team_fits and measure then run as while populating.
	 */
	double		(*backfill) (MmRuleState *st, const MmRule *rule, double limit,
							 const MmBackfillSeats *seats, int nregions);

	/*
	 * complete (NULL: nothing to check), for a rule whose type reads odds
	 * (MmRuleType.odds): may a match whose teams are complete and split
	 * be made with these odds (odds[t] team t's probability of winning,
	 * the queue's calibrated odds, as stored with the match)?
	 */
	bool		(*complete) (const MmRule *rule, double limit, const double *odds, int nteams);
} MmRuleOps;

/* The rule types, one file each (rule_*.c); rules.c lists them. */
extern const MmRuleType mm_rule_equal;
extern const MmRuleType mm_rule_distance;
extern const MmRuleType mm_rule_intersect;
extern const MmRuleType mm_rule_latency;
extern const MmRuleType mm_rule_roles;
extern const MmRuleType mm_rule_party;
extern const MmRuleType mm_rule_balance;

/* Phase functions shared by rule types that have nothing to do there. */
extern void mm_rule_no_start(MmRuleState *st, const MmRule *rule, const struct MmRoster *t, int nregions);
extern bool mm_rule_always_fits(const MmRuleState *st, const MmRule *rule, double limit,
								const struct MmRoster *r, int nregions);
extern void mm_rule_no_add(MmRuleState *st, const MmRule *rule, const struct MmRoster *r, int nregions);
/* Whether the roster has a value of the rule's attribute (inline: run over every roster at every tick). */
static inline bool
mm_rule_attr_present(const struct MmRoster *r, const MmRule *rule)
{
	return r->attr != NULL && r->attr[rule->attr].present;
}

/* A soft latency rule's measure for a roster sharing no region with the match, in ms. */
#define MM_SOFT_LATENCY_NONE 10000.0

/*
 * A rule with at most this many levels of its parameter (its value and
 * its expansion steps) may filter as bits (MmRuleOps.bits).
 */
#define MM_FILTER_LEVELS 4

/*
 * The region of the lowest worst latency of a match's latency state within
 * "limit" (ties to the lower id: region ids are in name order), its worst
 * latency in *worst; -1: none.
 */
extern int	mm_rule_region(const MmRuleState *st, double limit, int nregions, double *worst);

#endif							/* MM_RULES_H */
