/*-------------------------------------------------------------------------
 *
 * rules.h
 *		Roster attributes, players' roles and the declarative rules of a
 *		queue: the config keys "attributes", "roles" and "rules", the values
 *		a roster carries, and the interface through which a rule plugs into
 *		the matcher's phases (MmMatcherModel, matcher.h).
 *
 * A queue declares its attributes (name -> type number, string or
 * string_set; a default; whether required). A roster carries their values
 * (mm.roster.attributes) and its latency per region (mm.roster.latencies).
 * Its players may carry roles (mm.queued_player.role), counted per roster
 * (MmRoster.role_count). A hard rule filters the potentials of a target
 * (admit, pairwise against the target) and keeps a match being populated
 * consistent (start, fits, add, over every roster of the match; team_fits,
 * team_add over the team a roster joins). A soft rule (distance, latency)
 * filters nothing: its measure, times its weight, comes off a potential's
 * score. Each rule has at most one parameter (a distance's "max", an
 * intersection's "min", a latency's "max", a roles rule's "flex", a party
 * rule's "min"), which an "expand" schedule relaxes step by step with the
 * target's wait. The GW2 rating filter and scoring stay the matcher's own;
 * a queue without rules matches exactly as before.
 *
 * The rules plug into the matcher's phases: filter (admit), populate
 * (start, fits, add over the match; team_fits, team_add over its teams),
 * score (measure, for a soft rule, weighed by its "weight"), backfill (the
 * same state over a running match, a roster joining one of its teams) and
 * explain (its type, parameter and unit, which mm.explain names). A new rule is
 * one file src/rule_<type>.c defining its MmRuleOps, a line in rules.c's
 * list, its config keys (rule_keys) and its documentation.
 *
 *-------------------------------------------------------------------------
 */
#ifndef MM_RULES_H
#define MM_RULES_H

#include "config.h"

typedef enum MmAttrType
{
	MM_ATTR_NUMBER,
	MM_ATTR_STRING,
	MM_ATTR_SET					/* a set of strings */
} MmAttrType;

/* One declared attribute (config key "attributes"). */
typedef struct MmAttrDecl
{
	char	   *name;
	MmAttrType	type;
	char	   *type_name;		/* as given */
	bool		required;
	JsonbValue *def;			/* the default; NULL: none */
} MmAttrDecl;

/* A roster's value of one attribute, strings interned to ids. */
typedef struct MmAttrValue
{
	bool		present;		/* false: missing (declared after it was queued) */
	double		num;			/* number */
	int			id;				/* string */
	int			nset;			/* string_set: sorted distinct ids */
	int		   *set;
} MmAttrValue;

/* One step of an expansion: from "after" seconds of the target's wait. */
typedef struct MmExpandStep
{
	MmDuration	after;
	double		value;
} MmExpandStep;

struct MmRuleOps;

#define MM_ATTR_BIT(t) (1 << (t))

/* One rule of a queue (config key "rules"). */
typedef struct MmRule
{
	const struct MmRuleOps *ops;
	char	   *name;			/* unique in the queue; default: its type and attribute */
	char	   *type;
	char	   *attribute;		/* NULL: none (latency) */
	int			attr;			/* index of the attribute; -1: none */
	double		value;			/* its parameter before any expansion */
	int			nsteps;
	MmExpandStep *steps;		/* by "after", ascending */
	bool		soft;			/* scored, not filtered (distance, latency) */
	double		weight;			/* soft: score points per unit of its measure */
	int			team_size;		/* the queue's (set by mm_rules_check) */
	int			nteams;			/* the queue's teams (set by mm_rules_check) */
	/* roles: players needed per role, by name as given and per role id */
	int			ncounts;
	char	  **count_names;
	int		   *count_values;
	int			nroles;			/* the queue's declared roles */
	int		   *need;			/* per role id */
	int			premade;		/* party: the party size that brings the rule in */
} MmRule;

/*
 * Teams of a match: the queue's "teams", at most MM_TEAMS. The rules that
 * look at teams (roles, party) keep their state per team, indexed by side,
 * and loop over the queue's teams (MmRule.nteams).
 */
#define MM_TEAMS 64

/* What a match being populated holds, per rule. */
typedef struct MmRuleState
{
	MmAttrValue eq;				/* equal: the match's value */
	bool		eq_mixed;		/* equal: its rosters do not share one value */
	double		lo;				/* distance: smallest and largest value */
	double		hi;
	int			nids;			/* intersect: values shared by every roster */
	int		   *ids;
	double	   *worst;			/* latency: per region, the worst latency */
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

/* The match records a region that no roster read has a latency to. */
#define MM_REGION_ABSENT (-2)

typedef struct MmRuleOps
{
	const char *type;
	const char *param;			/* its parameter's key; NULL: none */
	double		param_min;		/* its range */
	double		param_max;
	bool		param_required;
	double		param_default;
	bool		relax_up;		/* a larger parameter is looser */
	int			attr_types;		/* bit per MmAttrType allowed; 0: no attribute */
	bool		partitions;		/* the queue is bucketed on it (equal) */
	const char *unit;			/* of the parameter, in messages */
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
	bool		teams;			/* the rule reads the queue's roles (roles) */
} MmRuleOps;

/* The rule types, one file each (rule_*.c); rules.c lists them. */
extern const MmRuleOps mm_rule_equal;
extern const MmRuleOps mm_rule_distance;
extern const MmRuleOps mm_rule_intersect;
extern const MmRuleOps mm_rule_latency;
extern const MmRuleOps mm_rule_roles;
extern const MmRuleOps mm_rule_party;

/* Phase functions shared by rule types that have nothing to do there. */
extern void mm_rule_no_start(MmRuleState *st, const MmRule *rule, const struct MmRoster *t, int nregions);
extern bool mm_rule_always_fits(const MmRuleState *st, const MmRule *rule, double limit,
								const struct MmRoster *r, int nregions);
extern void mm_rule_no_add(MmRuleState *st, const MmRule *rule, const struct MmRoster *r, int nregions);
extern bool mm_rule_attr_present(const struct MmRoster *r, const MmRule *rule);

/* A soft latency rule's measure for a roster sharing no region with the match, in ms. */
#define MM_SOFT_LATENCY_NONE 10000.0

/*
 * A rule with at most this many levels of its parameter (its value and
 * its expansion steps) may filter as bits (MmRuleOps.bits).
 */
#define MM_FILTER_LEVELS 4

/* The parameter of a rule after the target has waited "age" seconds. */
extern double mm_rule_limit(const MmRule *rule, double age);

/* Its level: 0 for the rule's value, s + 1 from expansion step s on. */
extern int	mm_rule_level(const MmRule *rule, double age);

/* The parameter of a rule at a level. */
extern double mm_rule_level_limit(const MmRule *rule, int level);

/* The wait (seconds) of the rule's next expansion step after "age"; -1: none. */
extern double mm_rule_next_step(const MmRule *rule, double age, double *value);

/* Config keys "attributes" and "rules" (MM_CONFIG_CUSTOM callbacks). */
extern void mm_attributes_parse(JsonbValue *v, void *base, const char *what, const char *path);
extern void mm_attributes_render(StringInfo buf, const void *base);
extern void mm_rules_parse(JsonbValue *v, void *base, const char *what, const char *path);
extern void mm_rules_render(StringInfo buf, const void *base);

/*
 * The region of the lowest worst latency of a match's latency state within
 * "limit" (ties to the lower id: region ids are in name order); -1: none.
 */
extern int	mm_rule_region(const MmRuleState *st, double limit, int nregions);

#endif							/* MM_RULES_H */
