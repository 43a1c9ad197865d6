/*-------------------------------------------------------------------------
 *
 * matcher_backfill.c
 *		A backfill (the GW2 wiki page has none): the open seats of one team
 *		of a running match filled from the waiting rosters with the GW2
 *		model's gatherPotentials, pickRoster and scoreRoster against that
 *		team's figures, keeping only rosters that leave an exact fill
 *		possible and that keep the running match within the queue's rules
 *		(the rules' backfill phase, rules.h). The SQL side is backfill.c.
 *
 *-------------------------------------------------------------------------
 */
#include "matcher_run.h"

#include "miscadmin.h"

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

/* May roster i join the rosters picked so far, by the players' blocks? */
static bool
backfill_blocks_fit(Run *run, int i, const int *picked, int npicked)
{
	for (int k = 0; k < npicked; k++)
		if (mm_rosters_blocked(&run->r[i], &run->r[picked[k]]))
		{
			run->blocks_refused++;
			return false;
		}
	return true;
}

/*
 * The complete phase of the rules that read odds (balance) over the
 * running match with its seats filled: the match's rosters on their teams
 * and the rosters picked on team->side, with roster "extra" too (-1:
 * none), each rule at its limit loosened to the favourite's odds the match
 * had when it was made. False when one refuses (*rule names it).
 */
static bool
backfill_complete(Run *run, const MmBackfillTeam *team, int extra, int *rule)
{
	int			n = team->nmatch + team->npicked + 1;
	const MmRoster **r = palloc(sizeof(MmRoster *) * n);
	int		   *team_of = palloc(sizeof(int) * n);
	double	   *odds = palloc(sizeof(double) * MM_TEAMS);
	int			m = 0;
	bool		ok = true;

	*rule = -1;
	for (int j = 0; j < team->nmatch; j++)
		if (team->match[j].team < run->cfg->nteams)
		{
			r[m] = &team->match[j];
			team_of[m++] = team->match[j].team;
		}
	for (int k = 0; k < team->npicked; k++)
	{
		r[m] = &run->r[team->picked[k]];
		team_of[m++] = team->side;
	}
	if (extra >= 0)
	{
		r[m] = &run->r[extra];
		team_of[m++] = team->side;
	}
	(void) mm_run_odds(run, m, r, team_of, odds);
	for (int k = 0; k < run->nrules && ok; k++)
	{
		const MmRule *rl = &run->rules[k];

		if (rl->ops->complete != NULL &&
			!rl->ops->complete(rl, Max(run->limits[k], team->made_favourite), odds, run->cfg->nteams))
		{
			ok = false;
			*rule = k;
			run->blocked[k]++;
		}
	}
	pfree(r);
	pfree(team_of);
	pfree(odds);
	return ok;
}

/*
 * pickRoster for a backfill: the best-scoring potential that fits the
 * seats still open and leaves a remainder the other potentials can fill
 * exactly; -1 if none. Ties go to the earlier roster in queue order.
 */
static int
pick_backfill(Run *run, const int *potentials, int npotentials, const bool *chosen,
			  int needed, const TeamFigures *team, double max_ladder, int max_roster_size,
			  const MmBackfillTeam *request, int *cnt, int *reach, int *used)
{
	int			side = request->side;
	int			rule;

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
		if ((best < 0 || best_score < score) && (run->nrules == 0 || rules_fit(run, i, side)) &&
			(!run->any_blocks || backfill_blocks_fit(run, i, request->picked, request->npicked)) &&
			(!run->odds_rules || s < needed || backfill_complete(run, request, i, &rule)))
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
	{
		run->nsoft += cfg->rules[k].soft;
		run->odds_rules |= cfg->rules[k].kind->odds;
	}
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
	for (int i = 0; i < n; i++)
		run.any_blocks |= rosters[i].nblocks > 0;
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
							 max_ladder, max_roster_size, team, cnt, reach, used);
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
		if (run.blocks_refused > (team->fail_rule >= 0 ? run.blocked[team->fail_rule] : 0))
		{
			team->fail_reason = MM_FAIL_BLOCKS;
			team->fail_rule = -1;
		}
		team->npicked = 0;
		return;
	}

	for (int k = 0; k < team->npicked; k++)
		taken[team->picked[k]] = true;
}
