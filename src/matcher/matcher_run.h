/*-------------------------------------------------------------------------
 *
 * matcher_run.h
 *		The state of one run of the matcher (MmMatcherRun), shared by the
 *		files of the matcher and internal to them: matcher.c (createMatches:
 *		the run over the targets, the buckets), matcher_gw2.c (the Guild
 *		Wars 2 wiki's phases behind MmMatcherModel: gatherPotentials,
 *		populateMatch, pickRoster, scoreRoster) and matcher_backfill.c (a
 *		running match's open seats). The rules' phases (rules.h) that more
 *		than one of them calls are inline here.
 *
 *-------------------------------------------------------------------------
 */
#ifndef MM_MATCHER_RUN_H
#define MM_MATCHER_RUN_H

#include "matcher.h"
#include "rules.h"

#include <math.h>

typedef struct MmMatcherRun MmMatcherRun;

/*
 * The matcher's phases as one interface, as MmRatingModel is for rating
 * families: filter (a target's potentials: gatherPotentials), populate
 * (fill its teams: populateMatch, shouldPopulateRed, pickRoster) and score
 * (a potential for a team: scoreRoster). GW2's, in matcher_gw2.c, is the
 * one mm_matcher_run (matcher.c) and mm_matcher_backfill
 * (matcher_backfill.c) run; its state (MmMatcherRun, matcher_run.h) is
 * private to those files. The rules (rules.h) plug into these phases: hard
 * rules' admit into filter, their fits into populate, soft rules' measure
 * into score; mm.explain names the rule that blocked a target.
 */
struct MmTeamFigures;

typedef struct MmMatcherModel
{
	const char *name;
	/* the target's potentials, in queue order, into the run */
	void		(*filter) (MmMatcherRun *run, const MmRoster *target);
	/* fill every team around the target; false: they could not be filled */
	bool		(*populate) (MmMatcherRun *run, int target);
	/* how well roster i fits team "side" (higher is better) */
	double		(*score) (const MmMatcherRun *run, int i, int side, const struct MmTeamFigures *team,
						  double max_ladder, int max_roster_size);
} MmMatcherModel;

extern const MmMatcherModel mm_matcher_gw2;

/* A team being populated: its rosters and running sums. */
typedef struct Team
{
	int			players;
	double		sum_rating_low; /* over players */
	double		sum_rank;		/* over players */
	double		dishonor;		/* total stacks */
	int			nrosters;
	int		   *rosters;
} Team;

/* State of one run. */
typedef struct MmMatcherRun
{
	const MmMatcherModel *model;	/* its phases */
	MmRoster   *r;
	int			n;
	const MmMatcherConfig *cfg;
	bool	   *in_queue;		/* in the queue now (not target, matched or failed) */
	int		   *next;			/* live queue of each bucket as a list in queue order; n ends it */
	int		   *prev;			/* -1 starts it */
	int			live;			/* rosters in the live queue */
	int			nparts;			/* buckets: rosters equal on every equal rule (one without) */
	int		   *head;			/* per bucket: first of its live list */
	int		   *part_live;		/* per bucket: rosters in its live list */
	/*
	 * Once sorted (mm_matcher_sort): by_lo, the rosters' indexes by
	 * bucket, then bin of lo (nbins bins of equal width over [lo_min,
	 * lo_min + lo_span]), then queue order; bin_start[part * nbins + b]
	 * the first of bucket part's bin b (nparts * nbins + 1 entries)
	 */
	int		   *by_lo;
	int		   *bin_start;
	int			nbins;
	bool		sorted;
	double		widest;			/* largest hi - lo */
	/*
	 * Before by_lo is made, a band's rosters are counted roughly: per
	 * bucket, rosters by lo in MM_LO_BINS bins over [lo_min, lo_min +
	 * lo_span]; NULL when the buckets are too many for it
	 */
	int		   *lo_bins;
	double		lo_min;
	double		lo_span;
	int		   *potentials;		/* of the current target, in queue order */
	int			npotentials;
	bool	   *chosen;			/* picked for the current match */
	int			nteams;			/* teams of a match */
	int		   *prof_count[MM_TEAMS];	/* professions on each team */
	int			nprofessions;
	Team		team[MM_TEAMS];
	/* the rules (rules.h) */
	int			nrules;
	const MmRule *rules;
	double	   *limits;			/* per rule: its parameter at the target's wait */
	int		   *levels;			/* per rule: the level of it (see rules.h, bits) */
	uint64	  **bits;			/* per rule filtering as bits: each roster's, per level; else NULL */
	bool		bits_kept;		/* they are the rosters' own (MmRoster.rule_bits) */
	int		   *bits_off;		/* per rule: its first word in rule_bits */
	uint64	   *tbits;			/* per rule: the target's bits at its level */
	MmRuleState *rstate;		/* per rule: the match being populated */
	int		   *rejected;		/* per rule: rosters it kept from the potentials */
	int		   *blocked;		/* per rule: picks it refused while populating */
	int			nsoft;			/* soft rules (scored) */
	bool		backfill;		/* filling a running match: no buckets */
	/* the players' blocks (mm.block) */
	bool		any_blocks;		/* some roster has blocks */
	int			blocks_rejected;	/* potentials they kept from the target */
	int			blocks_refused; /* picks they refused while populating */
	/* a match's odds (match_split.c): the split and the complete phase */
	const MmRatingModel *odds_model;	/* the queue's family; NULL until needed */
	const void *odds_params;
	bool		odds_rules;		/* some rule reads a complete match's odds */
	int			complete_failed;	/* the rule whose complete phase refused
									 * the match; -1: none */
	double		complete_favourite; /* the favourite's odds of that match */
	MmRuleState *split_state;	/* per rule: scratch for checking a split */
} Run;

/* The team's figures scoreRoster compares a roster with. */
typedef struct MmTeamFigures
{
	double		rating_low;
	double		rank;
	double		dishonor;
} TeamFigures;

static inline int
cmp_int(const void *a, const void *b)
{
	int			x = *(const int *) a;
	int			y = *(const int *) b;

	return (x > y) - (x < y);
}

/* Roster r joins the match, on team "side": the rules' state follows. */
static inline void
rules_join(Run *run, const MmRoster *r, int side)
{
	for (int k = 0; k < run->nrules; k++)
	{
		const MmRule *rule = &run->rules[k];

		rule->ops->add(&run->rstate[k], rule, r, run->cfg->nregions);
		/* (a running match's team the queue no longer has: no team state) */
		if (rule->ops->team_add && side < rule->nteams)
			rule->ops->team_add(&run->rstate[k], rule, r, side);
	}
}

/*
 * The populate phase of the hard rules: may roster i join the match, on
 * team "side"? While a tick populates, the bucketing rules hold by the
 * bucket; a backfill checks them too.
 */
static inline bool
rules_fit(Run *run, int i, int side)
{
	for (int k = 0; k < run->nrules; k++)
	{
		const MmRule *rule = &run->rules[k];

		if ((rule->soft && !rule->kind->soft_filters) || rule->kind->odds ||
			(rule->kind->partitions && !run->backfill))
			continue;
		if (!rule->ops->fits(&run->rstate[k], rule, run->limits[k], &run->r[i], run->cfg->nregions) ||
			(rule->ops->team_fits && side < rule->nteams &&
			 !rule->ops->team_fits(&run->rstate[k], rule, run->limits[k], &run->r[i], side)))
		{
			run->blocked[k]++;
			return false;
		}
	}
	return true;
}

/* Roster i's bits of rule k at its levels (run->bits[k] not NULL). */
static inline const uint64 *
rule_bits_of(const Run *run, int k, int i)
{
	if (run->bits_kept)
		return run->r[i].rule_bits + run->bits_off[k];
	return run->bits[k] + (size_t) i * (run->rules[k].nsteps + 1);
}

/* The rule to blame for a failed target: the one that refused the most; -1: none. */
static inline int
blame(const int *counts, int nrules)
{
	int			best = -1;

	for (int k = 0; k < nrules; k++)
		if (counts[k] > 0 && (best < 0 || counts[k] > counts[best]))
			best = k;
	return best;
}

/* May roster i join the match being populated, by the players' blocks? */
static inline bool
blocks_fit(Run *run, int i)
{
	for (int s = 0; s < run->nteams; s++)
		for (int k = 0; k < run->team[s].nrosters; k++)
			if (mm_rosters_blocked(&run->r[i], &run->r[run->team[s].rosters[k]]))
			{
				run->blocks_refused++;
				return false;
			}
	return true;
}

/* matcher.c: take roster i out of the live queue list */
extern void mm_matcher_queue_remove(MmMatcherRun *run, int i);
/* matcher.c: make by_lo and bin_start (once per run) */
extern void mm_matcher_sort(MmMatcherRun *run);

#define MM_LO_BINS 64

/*
 * Which of nbins bins of equal width over [lo_min, lo_min + lo_span] a lo
 * value falls in, those out of it in the first or the last (by_lo's bins,
 * and lo_bins' MM_LO_BINS): non-decreasing in lo, so the rosters with lo in
 * [from, to] are among those of the bins from mm_lo_bin(from) to
 * mm_lo_bin(to).
 */
static inline int
mm_lo_bin(const MmMatcherRun *run, double lo, int nbins)
{
	double		x;

	if (run->lo_span <= 0)
		return 0;
	x = floor((lo - run->lo_min) / run->lo_span * nbins);
	if (!(x > 0))
		return 0;
	if (x >= nbins)
		return nbins - 1;
	return (int) x;
}

/*
 * At most how many rosters of bucket "part" have lo in [from, to]: the
 * rosters of the bins that range touches.
 */
static inline int
band_at_most(const MmMatcherRun *run, int part, double from, double to)
{
	const int  *bins = run->lo_bins + (size_t) part * MM_LO_BINS;
	int			n = 0;

	for (int k = mm_lo_bin(run, from, MM_LO_BINS); k <= mm_lo_bin(run, to, MM_LO_BINS); k++)
		n += bins[k];
	return n;
}

/*
 * match_split.c: the fairest split of the rosters of the run's complete
 * teams (cfg->split MM_SPLIT_FAIREST): into team_of[x] the team of
 * run->team's x-th roster in team order (team 0's, then team 1's, ...);
 * false when the teams as they are are the fairest (or every split is
 * the same, teams of one roster each).
 */
extern bool mm_match_split(Run *run, int *team_of);

/*
 * match_split.c: the complete phase of the rules that read odds (balance)
 * over the run's complete teams, each at its limit (run->limits); false
 * when one refuses the match (run->complete_failed names it).
 */
extern bool mm_match_complete(Run *run);

/* The odds of rosters r[0..n-1] on teams team_of under the queue's model (match_split.c). */
extern double mm_run_odds(Run *run, int n, const MmRoster *const *r, const int *team_of,
						  double *odds);

#endif							/* MM_MATCHER_RUN_H */
