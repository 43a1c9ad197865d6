/*-------------------------------------------------------------------------
 *
 * matcher_gw2.c
 *		The Guild Wars 2 wiki's matcher behind MmMatcherModel (matcher.h):
 *		its phases gatherPotentials (the filter), populateMatch with
 *		shouldPopulateRed and pickRoster (the populate phase) and scoreRoster
 *		(the score), over the run's rosters (matcher_run.h), with the rules'
 *		phases plugged in (rules.h). matcher.c runs them over the targets.
 *
 * The GW2 wiki page scans the whole queue for every target. Here the live queue
 * (rosters not yet matched or tried) is a linked list in queue order, so
 * the scan never walks over rosters already taken out; and the rosters are
 * also binned by the low end of their range: every roster whose range
 * overlaps the target's has lo in [target.lo - widest range, target.hi],
 * so is in the bins that band touches. When those bins hold few rosters
 * compared with the queue, only they are looked at and their overlapping
 * rosters are put back in queue order and cut at potentials_max. Either way the potentials are
 * exactly the list the GW2 wiki's scan gives (naive_search keeps the scan; the
 * tests compare all three with a literal PL/pgSQL port of the GW2 wiki page).
 *
 *-------------------------------------------------------------------------
 */
#include "matcher_run.h"

#include <math.h>

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

		if (rule->kind->partitions || (rule->soft && !rule->kind->soft_filters) || rule->kind->odds)
			continue;
		if (run->bits[k] != NULL)
			ok = (run->tbits[k] & rule_bits_of(run, k, (int) (p - run->r))[run->levels[k]]) != 0;
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

/* The filter phase of the players' blocks: may p be a potential of target? */
static inline bool
blocks_admit(Run *run, const MmRoster *target, const MmRoster *p)
{
	if (mm_rosters_blocked(target, p))
	{
		run->blocks_rejected++;
		return false;
	}
	return true;
}

/*
 * gatherPotentials: the first potentials_max rosters, in queue order, of
 * the queue whose ranges overlap the target's.
 *
 * The GW2 wiki page scans the queue (naive_search). Here the live queue is a linked
 * list, so rosters already matched or tried cost nothing; and when the
 * rosters whose lo could overlap (lo in [target.lo - widest, target.hi],
 * in the bins of by_lo that band touches) are few compared with the
 * queue, only those are looked at and put back in queue order. All three ways give the
 * same list.
 */
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
			if (run->any_blocks && !blocks_admit(run, target, p))
				continue;
			run->potentials[run->npotentials++] = i;
		}
		return;
	}

	/*
	 * Before the rosters are binned by lo: if the band holds many of the
	 * bucket's rosters even counted roughly, walk the live queue (no bins
	 * needed); else bin them once for this run. Either way gives the same
	 * list; this only picks the cheaper.
	 */
	if (!run->sorted)
	{
		if (run->lo_bins != NULL &&
			(int64) band_at_most(run, part, target->lo - run->widest, target->hi) * 4 >= run->part_live[part])
			goto walk;
		mm_matcher_sort(run);
	}
	/* the rosters of the bins the band touches */
	a = run->bin_start[(int64) part * run->nbins + mm_lo_bin(run, target->lo - run->widest, run->nbins)];
	b = run->bin_start[(int64) part * run->nbins + mm_lo_bin(run, target->hi, run->nbins) + 1];

	if ((int64) (b - a) * 4 < run->part_live[part])
	{
		/* a narrow band: look at it only, then restore queue order */
		for (int j = a; j < b; j++)
		{
			int			i = run->by_lo[j];

			if (run->in_queue[i] && run->r[i].lo <= target->hi && run->r[i].hi >= target->lo &&
				(run->nrules == 0 || rules_admit(run, target, &run->r[i])) &&
				(!run->any_blocks || blocks_admit(run, target, &run->r[i])))
				run->potentials[run->npotentials++] = i;
		}
		qsort(run->potentials, run->npotentials, sizeof(int), cmp_int);
		if (run->npotentials > max)
			run->npotentials = max;
		return;
	}

	/* a wide band: walk the bucket's live queue until enough overlap */
walk:
	for (int i = run->head[part]; i < run->n && run->npotentials < max; i = run->next[i])
	{
		const MmRoster *p = &run->r[i];

		if (p->lo > target->hi || p->hi < target->lo)
			continue;
		if (run->nrules > 0 && !rules_admit(run, target, p))
			continue;
		if (run->any_blocks && !blocks_admit(run, target, p))
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
			(run->nrules == 0 || rules_fit(run, i, side)) &&
			(!run->any_blocks || blocks_fit(run, i)))
		{
			best = i;
			best_score = score;
		}
	}
	return best;
}

/*
 * Put the match's rosters on the teams of a split (mm_match_split): the
 * teams and the rules' states built again from the target, as populateMatch
 * builds them.
 */
static void
apply_split(Run *run, int target, const int *team_of)
{
	int			m = 0;
	int		   *members;

	for (int s = 0; s < run->nteams; s++)
		m += run->team[s].nrosters;
	members = palloc(sizeof(int) * m);
	m = 0;
	for (int s = 0; s < run->nteams; s++)
		for (int k = 0; k < run->team[s].nrosters; k++)
			members[m++] = run->team[s].rosters[k];
	for (int s = 0; s < run->nteams; s++)
	{
		team_reset(&run->team[s]);
		memset(run->prof_count[s], 0, sizeof(int) * Max(run->nprofessions, 1));
	}
	for (int k = 0; k < run->nrules; k++)
		run->rules[k].ops->start(&run->rstate[k], &run->rules[k], &run->r[target], run->cfg->nregions);
	for (int x = 0; x < m; x++)
		team_add(run, team_of[x], members[x]);
	pfree(members);
}

/*
 * populateMatch: fill team 0 (red, holding the target) and the others;
 * then split the chosen rosters into the teams (the fairest split, unless
 * the queue keeps GW2's teams) and check the rules that read the odds of
 * the complete match (balance).
 */
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
	if (run->cfg->split == MM_SPLIT_FAIREST)
	{
		int			m = 0;
		int		   *team_of;

		for (int s = 0; s < run->nteams; s++)
			m += run->team[s].nrosters;
		team_of = palloc(sizeof(int) * m);
		if (mm_match_split(run, team_of))
			apply_split(run, target, team_of);
		pfree(team_of);
	}
	return mm_match_complete(run);
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
