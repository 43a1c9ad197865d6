/*-------------------------------------------------------------------------
 *
 * matcher.c
 *		The GW2 PvP roster matcher: the Guild Wars 2 wiki's PvP matchmaking page ("PvP Matchmaking Algorithm",
 *		Guild Wars 2 wiki), its pseudo-code createMatches, withdrawRosters,
 *		gatherPotentials, populateMatch, shouldPopulateRed, pickRoster and
 *		scoreRoster, over an in-memory array of rosters in queue order.
 *
 * Readings of the pseudo-code's slips (docs/architecture.md, "How mm reads its sources" and README):
 *	- a roster's rating range is [rating - k deviation - pad, rating +
 *	  k deviation + pad] (k: filter.deviations, the GW2 wiki's 1), pad
 *	  growing by "padding" per second waited after
 *	  padding_start, up to padding_end; its effective rating (ratingLow in
 *	  scoring) is rating - deviation;
 *	- populateMatch adds the chosen roster to the team it was picked for and
 *	  takes it out of the potentials;
 *	- targets are tried in queue order (oldest first); a target already
 *	  matched as another target's potential is skipped; a failed target is
 *	  out of the queue for the rest of the run and goes to the back
 *	  afterwards, the other rosters of a failed attempt keep their places;
 *	- potentials_min holds only until the target has waited padding_end:
 *	  after that any potentials that fill both teams make a match, so a
 *	  small queue never starves (the GW2 value of 20 is a threshold for busy
 *	  queues, not a reason to wait forever);
 *	- team averages (effective rating, rank) are over the team's players;
 *	  an empty team uses the averages of all selected rosters; team
 *	  dishonor is the team's total stacks; when blue is empty it is
 *	  populated first (red holds the target);
 *	- any number of teams ("teams"): shouldPopulateRed becomes the team to
 *	  populate next, the first empty team in team order, else the team of
 *	  lowest average effective rating, a tie to the later team (at two
 *	  teams exactly GW2's rule; team_to_populate).
 *
 * The GW2 wiki page scans the whole queue for every target. Here the live queue
 * (rosters not yet matched or tried) is a linked list in queue order, so
 * the scan never walks over rosters already taken out; and the rosters are
 * also sorted by the low end of their range: every roster whose range
 * overlaps the target's has lo in [target.lo - widest range, target.hi]
 * (two binary searches). When that band is narrow compared with the queue,
 * only the band is looked at and its overlapping rosters are put back in
 * queue order and cut at potentials_max. Either way the potentials are
 * exactly the list the GW2 wiki's scan gives (naive_search keeps the scan; the
 * tests compare all three with a literal PL/pgSQL port of the GW2 wiki page).
 *
 * mm_matcher_backfill, at the end, fills the open seats of one team of a
 * running match with the same gatherPotentials / pickRoster / scoreRoster
 * against that team's figures (a backfill; the GW2 wiki page has none),
 * keeping only rosters that leave an exact fill possible and that keep
 * the running match within the queue's rules (the rules' backfill phase,
 * rules.h).
 *
 *-------------------------------------------------------------------------
 */
#include "matcher.h"
#include "rating_model.h"

#include <math.h>
#include <time.h>

#include "miscadmin.h"

/* Names of MmFailReason, as the tick log and mm._match_rosters show them. */
const char *const mm_fail_reason_names[MM_FAIL_REASONS] = {
	"none", "too_large", "no_potentials", "potentials_min", "incomplete", "rule"
};

/* Rating padding after waiting "age" seconds (Filter/Rating). */
double
mm_matcher_padding(const MmMatcherConfig *cfg, double age)
{
	double		t = Min(age, cfg->filter.padding_end) - cfg->filter.padding_start;

	return t > 0 ? t * cfg->filter.padding : 0.0;
}

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

/* State of one run (MmMatcherRun, matcher.h). */
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
	int		   *part_start;		/* per bucket: its range of by_lo */
	int		   *part_end;
	int		   *by_lo;			/* indexes sorted by bucket, then lo */
	double		widest;			/* largest hi - lo */
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
	uint64	   *tbits;			/* per rule: the target's bits at its level */
	MmRuleState *rstate;		/* per rule: the match being populated */
	int		   *rejected;		/* per rule: rosters it kept from the potentials */
	int		   *blocked;		/* per rule: picks it refused while populating */
	int			nsoft;			/* soft rules (scored) */
	bool		backfill;		/* filling a running match: no buckets */
} Run;

static int
cmp_int(const void *a, const void *b)
{
	int			x = *(const int *) a;
	int			y = *(const int *) b;

	return (x > y) - (x < y);
}

static const MmRoster *sort_rosters;

static int
cmp_lo(const void *a, const void *b)
{
	double		x = sort_rosters[*(const int *) a].lo;
	double		y = sort_rosters[*(const int *) b].lo;
	int			px = sort_rosters[*(const int *) a].part;
	int			py = sort_rosters[*(const int *) b].part;

	if (px != py)
		return px < py ? -1 : 1;
	if (x != y)
		return x < y ? -1 : 1;
	return cmp_int(a, b);
}

/* Take roster i out of the live queue list. */
static void
queue_remove(Run *run, int i)
{
	if (!run->in_queue[i])
		return;
	run->in_queue[i] = false;
	if (run->prev[i] >= 0)
		run->next[run->prev[i]] = run->next[i];
	else
		run->head[run->r[i].part] = run->next[i];
	if (run->next[i] < run->n)
		run->prev[run->next[i]] = run->prev[i];
	run->live--;
	run->part_live[run->r[i].part]--;
}

/* First position in by_lo, within bucket "part", whose lo is >= value. */
static int
lower_bound(const Run *run, int part, double value)
{
	int			a = run->part_start[part],
				b = run->part_end[part];

	while (a < b)
	{
		int			m = a + (b - a) / 2;

		if (run->r[run->by_lo[m]].lo < value)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/*
 * gatherPotentials: the first potentials_max rosters, in queue order, of
 * the queue whose ranges overlap the target's.
 *
 * The GW2 wiki page scans the queue (naive_search). Here the live queue is a linked
 * list, so rosters already matched or tried cost nothing; and when the
 * rosters whose lo could overlap (lo in [target.lo - widest, target.hi],
 * found by binary search over by_lo) are few compared with the queue, only
 * those are looked at and put back in queue order. All three ways give the
 * same list.
 */
/*
 * The filter phase of the rules: may p be a potential of target? The
 * bucketing rules (equal) hold for p when it is in the target's bucket (a
 * roster missing one of their values is alone in its bucket), so only the
 * naive scan looks at them, as the bucket; then each other rule, counting
 * against the first that refuses.
 */
static inline bool
rules_admit(Run *run, const MmRoster *target, const MmRoster *p)
{
	if (p->part != target->part)
		return false;
	for (int k = 0; k < run->nrules; k++)
	{
		const MmRule *rule = &run->rules[k];
		bool		ok;

		if (rule->ops->partitions || rule->soft)
			continue;
		if (run->bits[k] != NULL)
			ok = (run->tbits[k] &
				  run->bits[k][(p - run->r) * (rule->nsteps + 1) + run->levels[k]]) != 0;
		else
			ok = rule->ops->admit(rule, run->limits[k], target, p, run->cfg->nregions);
		if (!ok)
		{
			run->rejected[k]++;
			return false;
		}
	}
	return true;
}

/*
 * Each rule that filters as bits: every roster's bits at each level, once
 * per run (a rule whose bits cannot be had filters by admit).
 */
static void
rules_bits(Run *run)
{
	for (int k = 0; k < run->nrules; k++)
	{
		const MmRule *rule = &run->rules[k];
		int			levels = rule->nsteps + 1;
		uint64	   *bits;

		run->bits[k] = NULL;
		if (rule->ops->bits == NULL || rule->ops->partitions || rule->soft ||
			levels > MM_FILTER_LEVELS)
			continue;
		bits = palloc(sizeof(uint64) * levels * Max(run->n, 1));
		for (int i = 0; i < run->n; i++)
			if (!rule->ops->bits(rule, &run->r[i], run->cfg->nregions, &bits[i * levels]))
			{
				pfree(bits);
				bits = NULL;
				break;
			}
		run->bits[k] = bits;
	}
}

static void
gather_potentials(Run *run, const MmRoster *target)
{
	int			max = run->cfg->filter.potentials_max;
	int			part = target->part;
	int			a,
				b;

	run->npotentials = 0;
	if (run->cfg->naive_search)
	{
		for (int i = 0; i < run->n && run->npotentials < max; i++)
		{
			const MmRoster *p = &run->r[i];

			if (!run->in_queue[i] || p->lo > target->hi || p->hi < target->lo)
				continue;
			if (run->nrules > 0 && !rules_admit(run, target, p))
				continue;
			run->potentials[run->npotentials++] = i;
		}
		return;
	}

	a = lower_bound(run, part, target->lo - run->widest);
	b = a;
	/* first position with lo > target->hi */
	{
		int			lo = a,
					hi = run->part_end[part];

		while (lo < hi)
		{
			int			m = lo + (hi - lo) / 2;

			if (run->r[run->by_lo[m]].lo <= target->hi)
				lo = m + 1;
			else
				hi = m;
		}
		b = lo;
	}

	if ((int64) (b - a) * 4 < run->part_live[part])
	{
		/* a narrow band: look at it only, then restore queue order */
		for (int j = a; j < b; j++)
		{
			int			i = run->by_lo[j];

			if (run->in_queue[i] && run->r[i].hi >= target->lo &&
				(run->nrules == 0 || rules_admit(run, target, &run->r[i])))
				run->potentials[run->npotentials++] = i;
		}
		qsort(run->potentials, run->npotentials, sizeof(int), cmp_int);
		if (run->npotentials > max)
			run->npotentials = max;
		return;
	}

	/* a wide band: walk the bucket's live queue until enough overlap */
	for (int i = run->head[part]; i < run->n && run->npotentials < max; i = run->next[i])
	{
		const MmRoster *p = &run->r[i];

		if (p->lo > target->hi || p->hi < target->lo)
			continue;
		if (run->nrules > 0 && !rules_admit(run, target, p))
			continue;
		run->potentials[run->npotentials++] = i;
	}
}

static void
team_reset(Team *t)
{
	t->players = 0;
	t->sum_rating_low = 0;
	t->sum_rank = 0;
	t->dishonor = 0;
	t->nrosters = 0;
}

/* Roster r joins the match, on team "side": the rules' state follows. */
static void
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

static void
team_add(Run *run, int side, int i)
{
	Team	   *t = &run->team[side];
	const MmRoster *r = &run->r[i];

	t->players += r->players;
	t->sum_rating_low += r->rating_low * r->players;
	t->sum_rank += r->rank * r->players;
	t->dishonor += r->dishonor;
	t->rosters[t->nrosters++] = i;
	for (int k = 0; k < r->nprof; k++)
		run->prof_count[side][r->prof[k]] += r->prof_count[k];
	run->chosen[i] = true;
	rules_join(run, r, side);
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

		if (rule->soft || (rule->ops->partitions && !run->backfill))
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

/*
 * The score phase of the soft rules: each one's measure of the match were
 * roster i to join it, times its weight, taken off the score.
 */
static double
rules_score(const Run *run, int i)
{
	double		score = 0;

	for (int k = 0; k < run->nrules; k++)
		if (run->rules[k].soft)
			score -= run->rules[k].weight *
				run->rules[k].ops->measure(&run->rstate[k], &run->rules[k], &run->r[i], run->cfg->nregions);
	return score;
}

/*
 * A team's average effective rating (or rank) over its players; an empty
 * team uses the average over all selected rosters (every team's).
 */
static double
team_average(const Run *run, int side, bool rank)
{
	const Team *t = &run->team[side];
	double		sum = 0;
	int			players = 0;

	if (t->players > 0)
		return (rank ? t->sum_rank : t->sum_rating_low) / t->players;
	for (int s = 0; s < run->nteams; s++)
	{
		sum += rank ? run->team[s].sum_rank : run->team[s].sum_rating_low;
		players += run->team[s].players;
	}
	return sum / players;
}

static double
team_dishonor(const Run *run, int side)
{
	const Team *t = &run->team[side];
	double		sum = 0;

	if (t->players > 0)
		return t->dishonor;
	for (int s = 0; s < run->nteams; s++)
		sum += run->team[s].dishonor;
	return sum;
}

/*
 * shouldPopulateRed over any number of teams: the team to populate next.
 * Of the teams not full, the first empty one in team order (the target is
 * on team 0, so teams 1, 2, ... get their first roster in turn); when none
 * is empty, the one with the lowest average effective rating, a tie going
 * to the later team. At two teams this is GW2's rule: red full, blue; blue
 * full, red; blue empty, blue; else red only when its average is below
 * blue's (a tie goes to blue).
 */
static int
team_to_populate(const Run *run)
{
	int			size = run->cfg->team_size;
	int			best = -1;
	double		best_avg = 0;

	for (int s = 0; s < run->nteams; s++)
	{
		const Team *t = &run->team[s];
		double		avg;

		if (t->players >= size)
			continue;
		if (t->players == 0)
			return s;
		avg = t->sum_rating_low / t->players;
		if (best < 0 || avg <= best_avg)
		{
			best = s;
			best_avg = avg;
		}
	}
	return best;
}

/* The team's figures scoreRoster compares a roster with. */
typedef struct MmTeamFigures
{
	double		rating_low;
	double		rank;
	double		dishonor;
} TeamFigures;

/* scoreRoster: how well roster i fits team "side". */
static double
score_roster(const Run *run, int i, int side, const TeamFigures *team,
			 double max_ladder, int max_roster_size)
{
	const MmMatcherConfig *c = run->cfg;
	const MmRoster *r = &run->r[i];
	double		score = 0;
	int			pmax = c->scoring.profession_max;

	score += r->age * c->scoring.age;
	score += fabs(team->rating_low - r->rating_low) * c->scoring.rating_distance;
	score += fabs(team->rank - r->rank) * c->scoring.rank_distance;
	score += fabs(max_ladder - r->ladder) * c->scoring.ladder_distance;
	score += abs(max_roster_size - r->players) * c->scoring.roster_size_distance;
	if (r->players == max_roster_size)
		score += c->scoring.perfect_fit;
	score += fabs(team->dishonor - r->dishonor) * c->scoring.dishonor_distance;
	score += r->dishonor * c->scoring.dishonor_stack;
	for (int k = 0; k < r->nprof; k++)
	{
		int			count = r->prof_count[k] + run->prof_count[side][r->prof[k]];

		if (c->scoring.per_match)
			for (int s = 0; s < run->nteams; s++)
				if (s != side)
					count += run->prof_count[s][r->prof[k]];
		if (count >= pmax)
			score += (count - (pmax - 1)) * c->scoring.profession_common;
		else
			score += (pmax - count) * c->scoring.profession_unique;
	}
	return score;
}

/* pickRoster: the best-scoring potential that fits; -1 if none. */
static int
pick_roster(Run *run, int side, double max_ladder, int max_roster_size)
{
	int			needed = run->cfg->team_size - run->team[side].players;
	int			best = -1;
	double		best_score = 0;
	TeamFigures team;

	team.rating_low = team_average(run, side, false);
	team.rank = team_average(run, side, true);
	team.dishonor = team_dishonor(run, side);
	for (int k = 0; k < run->npotentials; k++)
	{
		int			i = run->potentials[k];
		double		score;

		if (run->chosen[i] || run->r[i].players > needed)
			continue;
		score = run->model->score(run, i, side, &team, max_ladder, max_roster_size);
		/* the rules only for a roster that would be the best so far */
		if ((best < 0 || best_score < score) &&
			(run->nrules == 0 || rules_fit(run, i, side)))
		{
			best = i;
			best_score = score;
		}
	}
	return best;
}

/* populateMatch: fill team 0 (red, holding the target) and the others. */
static bool
populate_match(Run *run, int target)
{
	int			max_roster_size = run->r[target].players;
	double		max_ladder = run->r[target].ladder;
	int			side;

	for (int s = 0; s < run->nteams; s++)
	{
		team_reset(&run->team[s]);
		memset(run->prof_count[s], 0, sizeof(int) * Max(run->nprofessions, 1));
	}
	for (int k = 0; k < run->nrules; k++)
		run->rules[k].ops->start(&run->rstate[k], &run->rules[k], &run->r[target], run->cfg->nregions);
	team_add(run, 0, target);
	while ((side = team_to_populate(run)) >= 0)
	{
		int			chosen = pick_roster(run, side, max_ladder, max_roster_size);

		if (chosen < 0)
			return false;
		team_add(run, side, chosen);
		max_ladder = Max(max_ladder, run->r[chosen].ladder);
		max_roster_size = Max(max_roster_size, run->r[chosen].players);
	}
	return true;
}

/* GW2's scoreRoster, and the soft rules' terms (none without soft rules). */
static double
gw2_score(const Run *run, int i, int side, const TeamFigures *team, double max_ladder,
		  int max_roster_size)
{
	double		score = score_roster(run, i, side, team, max_ladder, max_roster_size);

	if (run->nsoft > 0)
		score += rules_score(run, i);
	return score;
}

/* The Guild Wars 2 wiki's matcher, its phases behind the interface. */
const MmMatcherModel mm_matcher_gw2 = {
	.name = "gw2",
	.filter = gather_potentials,
	.populate = populate_match,
	.score = gw2_score
};

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

/* Record a match made from the current teams. */
static void
record_match(Run *run, MmMatcherResult *res)
{
	MmMatch    *m = &res->matches[res->nmatches];
	double		lo = 0,
				hi = 0;

	m->nmembers = 0;
	for (int side = 0; side < run->nteams; side++)
		m->nmembers += run->team[side].nrosters;
	m->members = palloc(sizeof(int) * m->nmembers);
	m->avg_rank = palloc(sizeof(double) * run->nteams);
	m->avg_rating_low = palloc(sizeof(double) * run->nteams);
	m->max_roster_size = palloc(sizeof(int) * run->nteams);
	m->nmembers = 0;
	for (int side = 0; side < run->nteams; side++)
	{
		Team	   *t = &run->team[side];

		m->avg_rank[side] = t->sum_rank / t->players;
		m->avg_rating_low[side] = t->sum_rating_low / t->players;
		m->max_roster_size[side] = 0;
		for (int k = 0; k < t->nrosters; k++)
		{
			MmRoster   *r = &run->r[t->rosters[k]];

			r->state = MM_ROSTER_MATCHED;
			r->match = res->nmatches;
			r->team = side;
			queue_remove(run, t->rosters[k]);
			m->max_roster_size[side] = Max(m->max_roster_size[side], r->players);
			if (m->nmembers == 0 || r->rating_low < lo)
				lo = r->rating_low;
			if (m->nmembers == 0 || r->rating_low > hi)
				hi = r->rating_low;
			m->members[m->nmembers++] = t->rosters[k];
		}
	}
	m->rating_spread = hi - lo;
	m->region = -1;
	m->worst_latency = 0;
	if (run->cfg->latency_rule >= 0)
	{
		int			k = run->cfg->latency_rule;

		m->region = mm_rule_region(&run->rstate[k], run->limits[k], run->cfg->nregions);
		if (m->region >= 0)
			m->worst_latency = run->rstate[k].worst[m->region];
	}
	res->nmatches++;
}

/*
 * Bucket the rosters by their values of the equal rules: part is the
 * bucket (numbered in sort order, or for one string attribute in order of
 * first appearance). A roster missing one of the values is a
 * bucket of its own (it matches no one). Without equal rules, one bucket.
 */
static const MmMatcherConfig *part_cfg;

static int
cmp_part(const void *a, const void *b)
{
	int			i = *(const int *) a;
	int			j = *(const int *) b;
	const MmRoster *x = &sort_rosters[i];
	const MmRoster *y = &sort_rosters[j];

	for (int k = 0; k < part_cfg->nrules; k++)
	{
		const MmRule *rule = &part_cfg->rules[k];
		const MmAttrValue *u,
				   *v;

		if (!rule->ops->partitions)
			continue;
		u = &x->attr[rule->attr];
		v = &y->attr[rule->attr];
		if (!u->present || !v->present)
		{
			if (u->present != v->present)
				return u->present ? -1 : 1;
			return (i > j) - (i < j);
		}
		if (u->id != v->id)
			return u->id < v->id ? -1 : 1;
		if (u->num != v->num)
			return u->num < v->num ? -1 : 1;
	}
	return 0;
}

static int
assign_parts(MmRoster *rosters, int n, const MmMatcherConfig *cfg)
{
	int			any = 0;
	const MmRule *rule = NULL;
	int		   *order;
	int			nparts = 0;

	for (int k = 0; k < cfg->nrules; k++)
		if (cfg->rules[k].ops->partitions)
		{
			any++;
			rule = &cfg->rules[k];
		}
	if (!any)
	{
		for (int i = 0; i < n; i++)
			rosters[i].part = 0;
		return 1;
	}
	/*
	 * One equal rule of a string attribute: the buckets are the values'
	 * ids, in the order they first appear (no sort; the order of the
	 * buckets changes nothing but where they lie).
	 */
	if (any == 1 && cfg->attrs[rule->attr].type == MM_ATTR_STRING)
	{
		int			maxid = -1;
		int		   *part;

		for (int i = 0; i < n; i++)
			if (mm_rule_attr_present(&rosters[i], rule))
				maxid = Max(maxid, rosters[i].attr[rule->attr].id);
		part = palloc(sizeof(int) * (maxid + 1));
		for (int v = 0; v <= maxid; v++)
			part[v] = -1;
		for (int i = 0; i < n; i++)
		{
			int			id;

			if (!mm_rule_attr_present(&rosters[i], rule))
			{
				rosters[i].part = nparts++;
				continue;
			}
			id = rosters[i].attr[rule->attr].id;
			if (part[id] < 0)
				part[id] = nparts++;
			rosters[i].part = part[id];
		}
		pfree(part);
		return nparts;
	}
	order = palloc(sizeof(int) * n);
	for (int i = 0; i < n; i++)
		order[i] = i;
	sort_rosters = rosters;
	part_cfg = cfg;
	qsort(order, n, sizeof(int), cmp_part);
	for (int j = 0; j < n; j++)
	{
		if (j > 0 && cmp_part(&order[j - 1], &order[j]) != 0)
			nparts++;
		rosters[order[j]].part = nparts;
	}
	pfree(order);
	return nparts + 1;
}

/*
 * A copy of the rosters with each bucket's side by side, in queue order
 * within it (a stable counting sort by bucket), their professions too: a
 * target only ever looks at its own bucket, and its potentials, whose
 * scores are read for every pick, are then near each other in memory
 * rather than spread over the whole queue. Nothing else changes: the
 * matcher compares rosters' places only within a bucket. *perm gets the
 * given roster of each place, *inv the place of each given roster.
 */
static MmRoster *
bucket_major(const MmRoster *given, int n, int nparts, int **perm, int **inv)
{
	MmRoster   *w = palloc(sizeof(MmRoster) * n);
	int		   *first = palloc0(sizeof(int) * (nparts + 1));
	int			nprof = 0;
	int		   *prof;

	*perm = palloc(sizeof(int) * n);
	*inv = palloc(sizeof(int) * n);
	for (int i = 0; i < n; i++)
	{
		first[given[i].part + 1]++;
		nprof += given[i].nprof;
	}
	for (int p = 0; p < nparts; p++)
		first[p + 1] += first[p];
	prof = palloc(sizeof(int) * 2 * Max(nprof, 1));
	for (int i = 0; i < n; i++)
	{
		int			j = first[given[i].part]++;

		(*perm)[j] = i;
		(*inv)[i] = j;
	}
	for (int j = 0; j < n; j++)
	{
		const MmRoster *g = &given[(*perm)[j]];

		w[j] = *g;
		w[j].prof = prof;
		w[j].prof_count = prof + g->nprof;
		if (g->nprof > 0)
		{
			memcpy(w[j].prof, g->prof, sizeof(int) * g->nprof);
			memcpy(w[j].prof_count, g->prof_count, sizeof(int) * g->nprof);
		}
		prof += 2 * g->nprof;
	}
	pfree(first);
	return w;
}

/* The rule to blame for a failed target: the one that refused the most; -1: none. */
static int
blame(const int *counts, int nrules)
{
	int			best = -1;

	for (int k = 0; k < nrules; k++)
		if (counts[k] > 0 && (best < 0 || counts[k] > counts[best]))
			best = k;
	return best;
}

/*
 * createMatches: try to make a match for each of the first "rosters"
 * rosters of the queue. Fills the rosters' results and "res".
 */
void
mm_matcher_run(MmRoster *given, int n, int nprofessions,
			   const MmMatcherConfig *cfg, MmMatcherResult *res)
{
	Run			run;
	int			ntargets = cfg->prefix ? cfg->filter.rosters : Min(n, cfg->filter.rosters);
	double		start = now_ms();
	int			size = cfg->team_size;
	MmRoster   *rosters = given;
	int		   *perm = NULL;	/* bucket-major order: the given roster of each */
	int		   *inv = NULL;		/* and the place of each given roster */

	memset(res, 0, sizeof(*res));
	memset(&run, 0, sizeof(run));
	if (n == 0)
	{
		/* an empty prefix (its rosters had no players) tells nothing */
		res->undecided = cfg->prefix;
		return;
	}
	/* the buckets, and their rosters side by side (bucket_major) */
	run.nparts = assign_parts(given, n, cfg);
	/* worth its copy when the targets are many (a whole queue's, say) */
	if (run.nparts > 1 && (int64) Min(ntargets, n) * 8 >= n)
		rosters = bucket_major(given, n, run.nparts, &perm, &inv);
	run.model = &mm_matcher_gw2;
	run.r = rosters;
	run.n = n;
	run.cfg = cfg;
	run.nprofessions = nprofessions;
	run.in_queue = palloc(sizeof(bool) * n);
	run.next = palloc(sizeof(int) * n);
	run.prev = palloc(sizeof(int) * n);
	run.live = n;
	run.nrules = cfg->nrules;
	run.rules = cfg->rules;
	for (int k = 0; k < cfg->nrules; k++)
		run.nsoft += cfg->rules[k].soft;
	run.limits = palloc0(sizeof(double) * Max(cfg->nrules, 1));
	run.levels = palloc0(sizeof(int) * Max(cfg->nrules, 1));
	run.bits = palloc0(sizeof(uint64 *) * Max(cfg->nrules, 1));
	run.tbits = palloc0(sizeof(uint64) * Max(cfg->nrules, 1));
	run.rstate = palloc0(sizeof(MmRuleState) * Max(cfg->nrules, 1));
	run.rejected = palloc0(sizeof(int) * Max(cfg->nrules, 1));
	run.blocked = palloc0(sizeof(int) * Max(cfg->nrules, 1));
	res->failed_by_rule = palloc0(sizeof(int) * Max(cfg->nrules, 1));
	run.chosen = palloc0(sizeof(bool) * n);
	run.by_lo = palloc(sizeof(int) * n);
	run.potentials = palloc(sizeof(int) * n);
	run.nteams = cfg->nteams;
	for (int s = 0; s < run.nteams; s++)
	{
		run.prof_count[s] = palloc0(sizeof(int) * Max(nprofessions, 1));
		run.team[s].rosters = palloc(sizeof(int) * (size + 1));
	}
	res->matches = palloc(sizeof(MmMatch) * (n / 2 + 1));

	for (int i = 0; i < n; i++)
	{
		MmRoster   *r = &rosters[i];
		double		pad = mm_matcher_padding(cfg, r->age);

		r->rating_low = r->rating - r->deviation;
		r->lo = r->rating - cfg->filter.deviations * r->deviation - pad;
		r->hi = r->rating + cfg->filter.deviations * r->deviation + pad;
		r->state = MM_ROSTER_WAITING;
		r->match = -1;
		r->team = -1;
		r->fail_order = -1;
		r->fail_reason = MM_FAIL_NONE;
		r->fail_rule = -1;
		r->npotentials = -1;
		run.in_queue[i] = true;
		run.by_lo[i] = i;
		run.widest = Max(run.widest, r->hi - r->lo);
	}
	rules_bits(&run);
	/* the buckets: a live list and a range of by_lo each */
	run.head = palloc(sizeof(int) * run.nparts);
	run.part_live = palloc0(sizeof(int) * run.nparts);
	run.part_start = palloc0(sizeof(int) * run.nparts);
	run.part_end = palloc0(sizeof(int) * run.nparts);
	{
		int		   *last = palloc(sizeof(int) * run.nparts);

		for (int p = 0; p < run.nparts; p++)
		{
			run.head[p] = n;
			last[p] = -1;
		}
		for (int i = 0; i < n; i++)
		{
			int			p = rosters[i].part;

			run.prev[i] = last[p];
			run.next[i] = n;
			if (last[p] >= 0)
				run.next[last[p]] = i;
			else
				run.head[p] = i;
			last[p] = i;
			run.part_live[p]++;
		}
		pfree(last);
	}
	sort_rosters = rosters;
	qsort(run.by_lo, n, sizeof(int), cmp_lo);
	for (int j = n - 1; j >= 0; j--)
		run.part_start[rosters[run.by_lo[j]].part] = j;
	for (int j = 0; j < n; j++)
		run.part_end[rosters[run.by_lo[j]].part] = j + 1;

	/* the targets in queue order */
	for (int t = 0; t < ntargets; t++)
	{
		MmFailReason reason;
		int			target;

		CHECK_FOR_INTERRUPTS();
		if (res->targets_tried > 0 && now_ms() - start > cfg->filter.limit_ms)
		{
			res->stopped_by_limit = true;
			break;
		}
		if (t >= n)
		{
			/* a prefix shorter than the targets: the queue may hold more */
			res->undecided = true;
			break;
		}
		target = inv ? inv[t] : t;
		if (!run.in_queue[target])
			continue;			/* matched as an earlier target's potential */
		res->targets_tried++;
		queue_remove(&run, target);
		for (int k = 0; k < run.nrules; k++)
		{
			const MmRule *rule = &run.rules[k];

			run.levels[k] = mm_rule_level(rule, rosters[target].age);
			run.limits[k] = mm_rule_level_limit(rule, run.levels[k]);
			if (run.bits[k] != NULL)
				run.tbits[k] = run.bits[k][target * (rule->nsteps + 1) + run.levels[k]];
			run.rejected[k] = run.blocked[k] = 0;
		}
		run.model->filter(&run, &rosters[target]);
		rosters[target].npotentials = run.npotentials;

		/*
		 * Over a prefix of the queue, the potentials are those of the whole
		 * queue when the search found potentials_max of them (it stops
		 * there either way); with fewer, rosters past the prefix could be
		 * potentials too, and change the outcome. A roster too large for a
		 * team fails whatever its potentials. Earlier targets were decided
		 * (else the run stopped at them), so the rosters they took are the
		 * same as over the whole queue.
		 */
		if (cfg->prefix && run.npotentials < cfg->filter.potentials_max &&
			rosters[target].players <= size)
		{
			res->undecided = true;
			break;
		}
		if (rosters[target].players > size)
			reason = MM_FAIL_TOO_LARGE;
		else if (run.npotentials == 0)
		{
			reason = MM_FAIL_NO_POTENTIALS;
			if (run.nrules > 0)
			{
				rosters[target].fail_rule = blame(run.rejected, run.nrules);
				/* nobody in its bucket, rosters waiting in others: the equal rules */
				if (rosters[target].fail_rule < 0 && run.part_live[rosters[target].part] == 0 &&
					run.live > 0)
					for (int k = 0; k < run.nrules && rosters[target].fail_rule < 0; k++)
						if (run.rules[k].ops->partitions)
							rosters[target].fail_rule = k;
			}
		}
		else if (run.npotentials < cfg->filter.potentials_min &&
				 rosters[target].age < cfg->filter.padding_end)
			reason = MM_FAIL_POTENTIALS;
		else if (!run.model->populate(&run, target))
		{
			reason = MM_FAIL_INCOMPLETE;
			if (run.nrules > 0)
				rosters[target].fail_rule = blame(run.blocked, run.nrules);
		}
		else
			reason = MM_FAIL_NONE;
		if (rosters[target].fail_rule >= 0)
			reason = MM_FAIL_RULE;
		if (reason == MM_FAIL_NONE)
			record_match(&run, res);
		else
		{
			/* the other picked rosters stay where they are in the queue */
			rosters[target].state = MM_ROSTER_FAILED;
			rosters[target].fail_order = res->nfailed++;
			rosters[target].fail_reason = reason;
			res->failed_by_reason[reason]++;
			if (reason == MM_FAIL_RULE)
				res->failed_by_rule[rosters[target].fail_rule]++;
		}
		for (int side = 0; side < run.nteams; side++)
		{
			for (int k = 0; k < run.team[side].nrosters; k++)
				run.chosen[run.team[side].rosters[k]] = false;
			run.team[side].nrosters = 0;
		}
	}
	/* the results, in the given order */
	if (perm != NULL)
	{
		for (int j = 0; j < n; j++)
			given[perm[j]] = rosters[j];
		for (int m = 0; m < res->nmatches; m++)
			for (int k = 0; k < res->matches[m].nmembers; k++)
				res->matches[m].members[k] = perm[res->matches[m].members[k]];
	}
}

/* Backfill: open seats of a running match's team */

/*
 * Whether "target" players can be made exactly from rosters of the given
 * sizes, cnt[s] rosters of size s (1 <= s <= target): a bounded subset sum,
 * O(target) per distinct size. reach and used hold target + 1 ints.
 */
static bool
fill_possible(const int *cnt, int target, int *reach, int *used)
{
	if (target == 0)
		return true;
	memset(reach, 0, sizeof(int) * (target + 1));
	reach[0] = 1;
	for (int s = 1; s <= target; s++)
	{
		if (cnt[s] == 0)
			continue;
		memset(used, 0, sizeof(int) * (target + 1));
		for (int x = s; x <= target; x++)
		{
			if (!reach[x] && reach[x - s] && used[x - s] < cnt[s])
			{
				reach[x] = 1;
				used[x] = used[x - s] + 1;
			}
		}
		if (reach[target])
			return true;
	}
	return reach[target] != 0;
}

/*
 * pickRoster for a backfill: the best-scoring potential that fits the
 * seats still open and leaves a remainder the other potentials can fill
 * exactly; -1 if none. Ties go to the earlier roster in queue order.
 */
static int
pick_backfill(Run *run, const int *potentials, int npotentials, const bool *chosen,
			  int needed, const TeamFigures *team, double max_ladder, int max_roster_size,
			  int side, int *cnt, int *reach, int *used)
{
	int			best = -1;
	double		best_score = 0;
	signed char *fits = palloc0(needed + 1);	/* per size: 0 unknown, 1 yes, -1 no */

	memset(cnt, 0, sizeof(int) * (needed + 1));
	for (int k = 0; k < npotentials; k++)
		if (!chosen[potentials[k]] && run->r[potentials[k]].players <= needed)
			cnt[run->r[potentials[k]].players]++;
	for (int k = 0; k < npotentials; k++)
	{
		int			i = potentials[k];
		int			s = run->r[i].players;
		double		score;

		if (chosen[i] || s > needed)
			continue;
		if (fits[s] == 0)
		{
			cnt[s]--;
			fits[s] = fill_possible(cnt, needed - s, reach, used) ? 1 : -1;
			cnt[s]++;
		}
		if (fits[s] < 0)
			continue;
		score = run->model->score(run, i, 0, team, max_ladder, max_roster_size);
		/* the rules only for a roster that would be the best so far */
		if ((best < 0 || best_score < score) && (run->nrules == 0 || rules_fit(run, i, side)))
		{
			best = i;
			best_score = score;
		}
	}
	pfree(fits);
	return best;
}

/*
 * The queue's rules against a running match: their state over every roster
 * of the match, then their backfill phase (rules.h), which gives each rule
 * the parameter a roster joining team->side is held to (the request's at
 * its wait, loosened to what the match already has). False when no roster
 * can join: the match holds no rosters to check them against.
 */
static bool
backfill_rules(Run *run, const MmBackfillTeam *team)
{
	MmBackfillSeats seats;
	const MmMatcherConfig *cfg = run->cfg;

	run->nrules = cfg->nrules;
	run->rules = cfg->rules;
	run->limits = palloc0(sizeof(double) * Max(cfg->nrules, 1));
	run->rstate = palloc0(sizeof(MmRuleState) * Max(cfg->nrules, 1));
	run->rejected = palloc0(sizeof(int) * Max(cfg->nrules, 1));
	run->blocked = palloc0(sizeof(int) * Max(cfg->nrules, 1));
	for (int k = 0; k < cfg->nrules; k++)
		run->nsoft += cfg->rules[k].soft;
	if (cfg->nrules == 0)
		return true;
	if (team->nmatch == 0)
		return false;
	for (int k = 0; k < cfg->nrules; k++)
		cfg->rules[k].ops->start(&run->rstate[k], &cfg->rules[k], &team->match[0], cfg->nregions);
	for (int j = 0; j < team->nmatch; j++)
		rules_join(run, &team->match[j], team->match[j].team);
	seats.side = team->side;
	seats.present = team->present;
	seats.left = team->left;
	seats.region = team->region;
	for (int k = 0; k < cfg->nrules; k++)
	{
		const MmRule *rule = &cfg->rules[k];
		double		limit = mm_rule_limit(rule, team->age);

		run->limits[k] = rule->ops->backfill
			? rule->ops->backfill(&run->rstate[k], rule, limit, &seats, cfg->nregions)
			: limit;
	}
	return true;
}

/*
 * Fill the open seats of one team of a running match from the waiting
 * rosters, with the matcher's own rules: the potentials are the rosters
 * not taken whose rating range overlaps the team's ([rating - deviation -
 * pad, rating + deviation + pad] with the team's mean rating and deviation,
 * padded by how long the request has waited, as a roster's would be), up
 * to potentials_max in queue order; potentials_min does not apply (a
 * backfill needs only enough players for its seats). Then pickRoster and
 * scoreRoster as when populating a team, the team's figures being its
 * players' plus those picked so far, and only rosters that keep an exact
 * fill possible (the sizes add up to the open seats). "taken" marks rosters
 * that may not be picked (matched, excluded or picked before); those picked
 * here are marked too. Fills team->picked, or team->fail_reason.
 */
void
mm_matcher_backfill(MmRoster *rosters, int n, int nprofessions,
					const MmMatcherConfig *cfg, MmBackfillTeam *team, bool *taken)
{
	Run			run;
	double		pad = mm_matcher_padding(cfg, team->age);
	double		lo = team->rating - cfg->filter.deviations * team->deviation - pad;
	double		hi = team->rating + cfg->filter.deviations * team->deviation + pad;
	int		   *potentials = palloc(sizeof(int) * Max(n, 1));
	bool	   *chosen = palloc0(sizeof(bool) * Max(n, 1));
	int			npotentials = 0;
	int			needed = team->open;
	int			weight = Max(team->present, 1);
	double		sum_rating_low = (team->rating - team->deviation) * weight;
	double		sum_rank = team->rank * weight;
	double		dishonor = team->dishonor;
	double		max_ladder = team->max_ladder;
	int			max_roster_size = team->max_roster_size;
	int		   *cnt = palloc(sizeof(int) * (needed + 1));
	int		   *reach = palloc(sizeof(int) * (needed + 1));
	int		   *used = palloc(sizeof(int) * (needed + 1));

	memset(&run, 0, sizeof(run));
	run.model = &mm_matcher_gw2;
	run.r = rosters;
	run.n = n;
	run.cfg = cfg;
	run.nprofessions = nprofessions;
	run.backfill = true;
	/* the team, and the others' professions as one (scoring.type match) */
	run.nteams = 2;
	run.prof_count[0] = team->prof_count[0];
	run.prof_count[1] = team->prof_count[1];
	team->npicked = 0;
	team->picked = palloc(sizeof(int) * Max(needed, 1));
	team->fail_reason = MM_FAIL_NONE;
	team->fail_rule = -1;
	team->undecided = false;
	if (!backfill_rules(&run, team))
	{
		team->fail_reason = MM_FAIL_RULE;
		return;
	}

	/*
	 * gatherPotentials against the team's range; the hard rules filter
	 * against the match (they have no target to be held to pairwise)
	 */
	for (int i = 0; i < n && npotentials < cfg->filter.potentials_max; i++)
	{
		MmRoster   *r = &rosters[i];
		double		rpad = mm_matcher_padding(cfg, r->age);

		r->rating_low = r->rating - r->deviation;
		r->lo = r->rating - cfg->filter.deviations * r->deviation - rpad;
		r->hi = r->rating + cfg->filter.deviations * r->deviation + rpad;
		if (taken[i] || r->players > needed || r->lo > hi || r->hi < lo)
			continue;
		if (run.nrules > 0 && !rules_fit(&run, i, team->side))
			continue;
		potentials[npotentials++] = i;
	}
	/* as for a target: fewer than potentials_max over a prefix may grow */
	team->undecided = cfg->prefix && npotentials < cfg->filter.potentials_max;
	if (npotentials == 0)
	{
		team->fail_reason = MM_FAIL_NO_POTENTIALS;
		team->fail_rule = blame(run.blocked, run.nrules);
		if (team->fail_rule >= 0)
			team->fail_reason = MM_FAIL_RULE;
		return;
	}

	while (needed > 0)
	{
		TeamFigures figures;
		int			best;
		int			players = weight + (team->open - needed);
		const MmRoster *r;

		CHECK_FOR_INTERRUPTS();
		figures.rating_low = sum_rating_low / players;
		figures.rank = sum_rank / players;
		figures.dishonor = dishonor;
		best = pick_backfill(&run, potentials, npotentials, chosen, needed, &figures,
							 max_ladder, max_roster_size, team->side, cnt, reach, used);
		if (best < 0)
			break;
		r = &rosters[best];
		chosen[best] = true;
		rules_join(&run, r, team->side);
		team->picked[team->npicked++] = best;
		needed -= r->players;
		sum_rating_low += r->rating_low * r->players;
		sum_rank += r->rank * r->players;
		dishonor += r->dishonor;
		for (int k = 0; k < r->nprof; k++)
			team->prof_count[0][r->prof[k]] += r->prof_count[k];
		max_ladder = Max(max_ladder, r->ladder);
		max_roster_size = Max(max_roster_size, r->players);
	}
	if (needed > 0)
	{
		/* no exact fill: nothing is taken */
		team->fail_reason = MM_FAIL_INCOMPLETE;
		team->fail_rule = blame(run.blocked, run.nrules);
		if (team->fail_rule >= 0)
			team->fail_reason = MM_FAIL_RULE;
		team->npicked = 0;
		return;
	}
	for (int k = 0; k < team->npicked; k++)
		taken[team->picked[k]] = true;
}
