/*-------------------------------------------------------------------------
 *
 * rule_party.c
 *		The party rule: a match that holds a party of at least "premade"
 *		players (default team_size: a full premade) has at least "min"
 *		players in parties (rosters of two or more) on each team, so that
 *		a premade meets teams of parties rather than of solos. An
 *		expansion lowers "min" with the target's wait.
 *
 * A team is completable when its players in parties plus its free seats
 * reach min. The filter refuses a solo beside a premade when min is the
 * whole team; the populate step lets a roster join a team only if, with
 * it, every team of a match holding a premade stays completable.
 *
 *-------------------------------------------------------------------------
 */
#include "rules.h"

static bool
is_premade(const MmRule *rule, const MmRoster *r)
{
	return r->players >= rule->premade;
}

static bool
party_admit(const MmRule *rule, double limit, const MmRoster *t, const MmRoster *p, int nregions)
{
	(void) nregions;
	/* a solo's team has at most team_size - 1 players in parties */
	if ((is_premade(rule, t) && p->players == 1) || (is_premade(rule, p) && t->players == 1))
		return limit <= rule->team_size - 1;
	return true;
}

/*
 * As bits: where a solo may not meet a premade (min above team_size - 1),
 * a solo has bit 0, a premade bit 1, any other roster both; elsewhere every
 * roster has both.
 */
static bool
party_bits(const MmRule *rule, const MmRoster *r, int nregions, uint64 *bits)
{
	(void) nregions;
	/* a solo that is a premade refuses another solo: no bits say so */
	if (rule->premade < 2)
		return false;
	for (int l = 0; l <= rule->nsteps; l++)
	{
		bits[l] = 3;
		if (mm_rule_level_limit(rule, l) > rule->team_size - 1)
		{
			if (r->players == 1 && !is_premade(rule, r))
				bits[l] = 1;
			else if (is_premade(rule, r) && r->players != 1)
				bits[l] = 2;
		}
	}
	return true;
}

static void
party_start(MmRuleState *st, const MmRule *rule, const MmRoster *t, int nregions)
{
	(void) rule;
	(void) t;
	(void) nregions;
	st->premade = false;
	for (int side = 0; side < rule->nteams; side++)
		st->players[side] = st->party[side] = 0;
}

static bool
party_team_fits(const MmRuleState *st, const MmRule *rule, double limit, const MmRoster *r, int side)
{
	if (!st->premade && !is_premade(rule, r))
		return true;
	for (int s = 0; s < rule->nteams; s++)
	{
		int			players = st->players[s] + (s == side ? r->players : 0);
		int			party = st->party[s] + (s == side && r->players >= 2 ? r->players : 0);

		if (party + (rule->team_size - players) < limit)
			return false;
	}
	return true;
}

static void
party_team_add(MmRuleState *st, const MmRule *rule, const MmRoster *r, int side)
{
	st->players[side] += r->players;
	if (r->players >= 2)
		st->party[side] += r->players;
	st->premade |= is_premade(rule, r);
}

/*
 * backfill: the team keeps its present players (of whom at most that many
 * in parties: mm does not know who left), the other teams at most
 * team_size. In a match that holds a premade, "min" is loosened to the
 * fewest that a team can still reach; a match without one is held to
 * "min" in full once a premade would join it.
 */
static double
party_backfill(MmRuleState *st, const MmRule *rule, double limit, const MmBackfillSeats *seats,
			   int nregions)
{
	double		reach = limit;

	(void) nregions;
	for (int s = 0; s < rule->nteams; s++)
	{
		st->players[s] = Min(s == seats->side ? seats->present : st->players[s], rule->team_size);
		st->party[s] = Min(st->party[s], st->players[s]);
		if (st->premade)
			reach = Min(reach, st->party[s] + (rule->team_size - st->players[s]));
	}
	return reach;
}

static const MmRuleOps party_ops = {
	.admit = party_admit, .bits = party_bits, .start = party_start, .fits = mm_rule_always_fits,
	.add = mm_rule_no_add, .team_fits = party_team_fits, .team_add = party_team_add,
	.backfill = party_backfill
};

const MmRuleType mm_rule_party = {
	.type = "party", .param = "min", .param_min = 0, .param_max = 1000, .param_required = true,
	.relax_up = false, .unit = " players in parties",
	.ops = &party_ops
};
