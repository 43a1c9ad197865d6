/*-------------------------------------------------------------------------
 *
 * match_split.c
 *		The fairest split of a match's chosen rosters into its teams, and
 *		the rules that read a complete match's odds (balance).
 *
 * The GW2 wiki's populateMatch fills red and blue by score, one pick at a
 * time, the team of lower average rating picking next. Once the rosters
 * are chosen, the split of those same rosters whose odds are closest to
 * even may differ: FlexMatch's team balancing and OpenSkill's own examples
 * look for it. With "split": "fairest" (the default) the matcher takes
 * the chosen rosters and assigns them to the match's teams so that the
 * favourite's odds (the largest of the teams' odds of winning, under the
 * queue's rating family and calibration scale: the odds the match is
 * stored with, mm_split_odds) are least; among splits whose favourite is
 * as low, the one whose teams' odds lie closest to 1/k (least sum of
 * squares), then the teams as populateMatch filled them, then the first
 * found. At two teams this is the split whose red odds lie closest to
 * one half. Rosters are never broken up (a party plays on one team),
 * every team gets exactly team_size players, and the rules over teams
 * (roles, party) hold for every split considered, through their team
 * phases (team_fits, team_add: whether a team with these rosters can be
 * completed, which a complete team must pass).
 *
 * Exact up to MM_SPLIT_EXACT (10) rosters: every assignment of the
 * rosters to teams is enumerated, the target's team being team 0 and the
 * teams being interchangeable otherwise (a roster goes to a team already
 * holding rosters, or to the first empty one: each split is seen once,
 * whatever the teams' labels). That is at most 945 splits (ten solos in
 * five teams of two; 126 for a 5v5 of solos), each costing one odds
 * computation. With more rosters, a heuristic: from the teams as
 * populateMatch filled them, the exchange between two teams that lowers
 * the objective most is made, again and again, until none lowers it (at
 * most 100 rounds): one or two rosters of one team for one or two of the
 * other with as many players (a solo for a solo, a duo for two solos, a
 * pair for a pair), O(m^4) candidates a round for m rosters. On twenty
 * matches of twelve solos rated at random (test/sql/match_split.sql) it
 * found the best split in 18 and came within 2 rating points (of the
 * teams' sums) of it in the other two; single swaps alone found 10. A match whose every team is one roster (a
 * free-for-all of solos) has one split up to the teams' labels, and is
 * left as it is.
 *
 * The calibration scale matters only with more than two teams: at two,
 * scaling a logit keeps the order of the splits (the calibration learns
 * from two-team matches only, so a queue of more teams has scale 1).
 *
 *-------------------------------------------------------------------------
 */
#include "matcher_run.h"

#include <math.h>

#include "miscadmin.h"

/* Two objectives this close are the same (rounding). */
#define SPLIT_EPS 1e-12

/* The heuristic's most rounds of swaps. */
#define SPLIT_ROUNDS 100

static int
cmp_id(const void *a, const void *b)
{
	int64		x = *(const int64 *) a;
	int64		y = *(const int64 *) b;

	return (x > y) - (x < y);
}

/* Whether rosters a and b may not share a match: either lists the other's id. */
bool
mm_rosters_blocked(const MmRoster *a, const MmRoster *b)
{
	if (a->nblocks > 0 &&
		bsearch(&b->id, a->blocks, a->nblocks, sizeof(int64), cmp_id) != NULL)
		return true;
	return b->nblocks > 0 &&
		bsearch(&a->id, b->blocks, b->nblocks, sizeof(int64), cmp_id) != NULL;
}

/* The queue's family and its parameters, read once per run. */
static void
odds_context(Run *run)
{
	if (run->odds_model != NULL)
		return;
	run->odds_model = mm_rating_model_find(run->cfg->rating.model);
	Assert(run->odds_model != NULL);
	run->odds_params = run->odds_model->queue_params(run->cfg->rating.options);
}

double
mm_run_odds(Run *run, int n, const MmRoster *const *r, const int *team_of, double *odds)
{
	int		   *iws = palloc(sizeof(int) * 2 * Max(n, 1));
	double	   *dws = palloc(sizeof(double) * 2 * Max(n, 1));
	double		favourite;

	odds_context(run);
	favourite = mm_split_odds(run->odds_model, run->odds_params, run->cfg->nteams, n, r, team_of,
							  run->cfg->odds_scale, odds, iws, dws);
	pfree(iws);
	pfree(dws);
	return favourite;
}

/* One search for the fairest split of m rosters. */
typedef struct Split
{
	Run		   *run;
	int			m;
	int			k;				/* teams */
	int			size;			/* players per team */
	const MmRoster **r;			/* the rosters, in team order as populated */
	int		   *team_of;		/* the split being built or tried */
	int		   *best;			/* the best split found */
	double		best_fav;
	double		best_ss;
	bool		found;
	int		   *order;			/* enumeration: the order rosters are placed in */
	int		   *load;			/* enumeration: players per team */
	bool		team_rules;		/* some rule has team phases */
	double	   *odds;
	int		   *iws;
	double	   *dws;
} Split;

/*
 * Whether every team of a split passes the rules over teams, each at its
 * limit: their team phases from a match holding nothing, the rosters
 * added team by team (a complete team that can be completed is valid).
 */
static bool
split_rules_ok(Split *sp, const int *team_of)
{
	Run		   *run = sp->run;

	if (!sp->team_rules)
		return true;
	for (int k = 0; k < run->nrules; k++)
	{
		const MmRule *rule = &run->rules[k];

		if (rule->ops->team_fits == NULL || rule->soft)
			continue;
		rule->ops->start(&run->split_state[k], rule, sp->r[0], run->cfg->nregions);
		for (int t = 0; t < sp->k && t < rule->nteams; t++)
			for (int x = 0; x < sp->m; x++)
			{
				if (team_of[x] != t)
					continue;
				if (!rule->ops->team_fits(&run->split_state[k], rule, run->limits[k], sp->r[x], t))
					return false;
				rule->ops->team_add(&run->split_state[k], rule, sp->r[x], t);
			}
	}
	return true;
}

/* Try a complete split: keep it if it is valid and fairer than the best. */
static void
split_try(Split *sp, const int *team_of)
{
	double		fav;
	double		ss = 0;

	if (!split_rules_ok(sp, team_of))
		return;
	fav = mm_split_odds(sp->run->odds_model, sp->run->odds_params, sp->k, sp->m, sp->r, team_of,
						sp->run->cfg->odds_scale, sp->odds, sp->iws, sp->dws);
	for (int t = 0; t < sp->k; t++)
		ss += (sp->odds[t] - 1.0 / sp->k) * (sp->odds[t] - 1.0 / sp->k);
	if (sp->found && (fav > sp->best_fav + SPLIT_EPS ||
					  (fav >= sp->best_fav - SPLIT_EPS && ss >= sp->best_ss - SPLIT_EPS)))
		return;
	sp->found = true;
	sp->best_fav = fav;
	sp->best_ss = ss;
	memcpy(sp->best, team_of, sizeof(int) * sp->m);
}

/*
 * Place sp->order[p], and every roster after it, in every way that keeps
 * the teams' sizes: on a team that holds rosters and has room, or on the
 * first empty team (the empty teams are interchangeable).
 */
static void
split_enumerate(Split *sp, int p)
{
	int			x;
	int			players;
	bool		empty_tried = false;

	if (p == sp->m)
	{
		split_try(sp, sp->team_of);
		return;
	}
	CHECK_FOR_INTERRUPTS();
	x = sp->order[p];
	players = sp->r[x]->players;
	for (int t = 0; t < sp->k; t++)
	{
		if (sp->load[t] + players > sp->size)
			continue;
		if (sp->load[t] == 0)
		{
			if (empty_tried)
				continue;
			empty_tried = true;
		}
		sp->load[t] += players;
		sp->team_of[x] = t;
		split_enumerate(sp, p + 1);
		sp->load[t] -= players;
	}
}

/* The rosters to place: the target first, then larger rosters before smaller ones. */
static const Split *order_sp;

static int
cmp_order(const void *a, const void *b)
{
	int			x = *(const int *) a;
	int			y = *(const int *) b;

	if (x == 0 || y == 0)
		return x == 0 ? (y == 0 ? 0 : -1) : 1;
	if (order_sp->r[x]->players != order_sp->r[y]->players)
		return order_sp->r[x]->players > order_sp->r[y]->players ? -1 : 1;
	return (x > y) - (x < y);
}

/*
 * Exchanges between two teams, the best first, while they help: a set of
 * one or two rosters of one team for a set of one or two of another with
 * as many players (so the teams keep their sizes: two solos for a duo, a
 * pair for a pair).
 */
static void
split_swaps(Split *sp)
{
	int		   *cur = palloc(sizeof(int) * sp->m);

	for (int round = 0; round < SPLIT_ROUNDS; round++)
	{
		double		fav = sp->best_fav;
		double		ss = sp->best_ss;

		memcpy(cur, sp->best, sizeof(int) * sp->m);
		/* a set {a, b} (b = -1: {a} alone) against {c, d} (d = -1: {c}) */
		for (int a = 0; a < sp->m; a++)
			for (int b = -1; b < sp->m; b++)
			{
				int			pa;

				if (b >= 0 && (b <= a || cur[b] != cur[a]))
					continue;
				pa = sp->r[a]->players + (b >= 0 ? sp->r[b]->players : 0);
				CHECK_FOR_INTERRUPTS();
				for (int c = 0; c < sp->m; c++)
				{
					if (cur[c] == cur[a])
						continue;
					for (int d = -1; d < sp->m; d++)
					{
						if (d >= 0 && (d <= c || cur[d] != cur[c]))
							continue;
						if (pa != sp->r[c]->players + (d >= 0 ? sp->r[d]->players : 0))
							continue;
						memcpy(sp->team_of, cur, sizeof(int) * sp->m);
						sp->team_of[a] = cur[c];
						if (b >= 0)
							sp->team_of[b] = cur[c];
						sp->team_of[c] = cur[a];
						if (d >= 0)
							sp->team_of[d] = cur[a];
						split_try(sp, sp->team_of);
					}
				}
			}
		if (sp->best_fav == fav && sp->best_ss == ss)
			break;
	}
	pfree(cur);
}

bool
mm_match_split(Run *run, int *team_of)
{
	Split		sp;
	int			x = 0;
	bool		changed = false;
	bool		one_each = true;

	memset(&sp, 0, sizeof(sp));
	sp.run = run;
	sp.k = run->nteams;
	sp.size = run->cfg->team_size;
	for (int t = 0; t < sp.k; t++)
	{
		sp.m += run->team[t].nrosters;
		one_each &= run->team[t].nrosters == 1;
	}
	/* one roster per team: every split is the same up to the teams' labels */
	if (one_each || sp.m <= 1)
		return false;
	odds_context(run);
	if (run->split_state == NULL)
		run->split_state = palloc0(sizeof(MmRuleState) * Max(run->nrules, 1));
	for (int k = 0; k < run->nrules; k++)
		sp.team_rules |= run->rules[k].ops->team_fits != NULL && !run->rules[k].soft;
	sp.r = palloc(sizeof(MmRoster *) * sp.m);
	sp.team_of = palloc(sizeof(int) * sp.m);
	sp.best = palloc(sizeof(int) * sp.m);
	sp.odds = palloc(sizeof(double) * sp.k);
	sp.iws = palloc(sizeof(int) * 2 * sp.m);
	sp.dws = palloc(sizeof(double) * 2 * sp.m);
	for (int t = 0; t < sp.k; t++)
		for (int j = 0; j < run->team[t].nrosters; j++)
		{
			sp.r[x] = &run->r[run->team[t].rosters[j]];
			team_of[x] = t;
			x++;
		}
	/* the teams as populated first: a split only replaces them if fairer */
	split_try(&sp, team_of);
	if (sp.m <= MM_SPLIT_EXACT)
	{
		sp.order = palloc(sizeof(int) * sp.m);
		sp.load = palloc0(sizeof(int) * sp.k);
		for (int i = 0; i < sp.m; i++)
			sp.order[i] = i;
		order_sp = &sp;
		qsort(sp.order, sp.m, sizeof(int), cmp_order);
		split_enumerate(&sp, 0);
	}
	else if (sp.found)
		split_swaps(&sp);
	if (sp.found)
		for (x = 0; x < sp.m; x++)
		{
			changed |= sp.best[x] != team_of[x];
			team_of[x] = sp.best[x];
		}
	return changed;
}

bool
mm_match_complete(Run *run)
{
	const MmRoster **r;
	int		   *team_of;
	double	   *odds;
	int			m = 0;
	int			x = 0;

	run->complete_failed = -1;
	if (!run->odds_rules)
		return true;
	for (int t = 0; t < run->nteams; t++)
		m += run->team[t].nrosters;
	r = palloc(sizeof(MmRoster *) * Max(m, 1));
	team_of = palloc(sizeof(int) * Max(m, 1));
	odds = palloc(sizeof(double) * run->nteams);
	for (int t = 0; t < run->nteams; t++)
		for (int j = 0; j < run->team[t].nrosters; j++)
		{
			r[x] = &run->r[run->team[t].rosters[j]];
			team_of[x++] = t;
		}
	run->complete_favourite = mm_run_odds(run, m, r, team_of, odds);
	for (int k = 0; k < run->nrules; k++)
	{
		const MmRule *rule = &run->rules[k];

		if (rule->ops->complete == NULL)
			continue;
		if (!rule->ops->complete(rule, run->limits[k], odds, run->nteams))
		{
			run->blocked[k]++;
			run->complete_failed = k;
			break;
		}
	}
	pfree(r);
	pfree(team_of);
	pfree(odds);
	return run->complete_failed < 0;
}
