/*-------------------------------------------------------------------------
 *
 * rule_roles.c
 *		The roles rule: each team needs given numbers of players per role
 *		(the queue's declared "roles"; a player's role is given when it
 *		enqueues), such as {"tank": 1, "damage": 2, "support": 2}. The
 *		seats the counts leave (team_size less their sum) take any role.
 *		A party brings its roles with it, onto one team.
 *
 * Its parameter "flex" is how many of the counted seats of a team any
 * role may take: 0 (the default) holds the counts exactly; an expansion
 * raises it ({"after": "60s", "flex": 5}: any role after a minute).
 *
 * A team is completable when the players its counts still lack, less
 * flex, fit its free seats: sum over roles of max(0, need - have) - flex
 * <= team_size - players. The filter admits a roster when it could be
 * alone on a team (a party of three tanks where one is needed and two
 * seats are free is not), the populate step lets a roster join a team only
 * if the team stays completable with it; a backfill, if the team with open
 * seats does, with the roles of the players who left given back. Counts and state are per team
 * (the queue's teams), so the check does not depend on how many teams a match has.
 *
 *-------------------------------------------------------------------------
 */
#include "rules.h"

/* Players the counts still lack on a team holding "have", with r added (r NULL: not). */
static int
lacking(const MmRule *rule, const int *have, const MmRoster *r)
{
	int			n = 0;

	for (int k = 0; k < rule->nroles; k++)
	{
		int			h = (have ? have[k] : 0) + (r && r->role_count ? r->role_count[k] : 0);

		if (rule->need[k] > h)
			n += rule->need[k] - h;
	}
	return n;
}

static bool
completable(const MmRule *rule, double limit, const int *have, int players, const MmRoster *r)
{
	int			free_seats = rule->team_size - players - r->players;

	return lacking(rule, have, r) - limit <= free_seats;
}

/* The least flex at which r can be alone on a team: what it lacks beyond the seats it leaves. */
static int
alone_flex(const MmRule *rule, const MmRoster *r)
{
	return lacking(rule, NULL, r) - (rule->team_size - r->players);
}

static bool
roles_admit(const MmRule *rule, double limit, const MmRoster *t, const MmRoster *p, int nregions)
{
	(void) nregions;
	return alone_flex(rule, t) <= limit && alone_flex(rule, p) <= limit;
}

/* As bits: 1 at the levels where the roster can be alone on a team. */
static bool
roles_bits(const MmRule *rule, const MmRoster *r, int nregions, uint64 *bits)
{
	int			flex = alone_flex(rule, r);

	(void) nregions;
	for (int l = 0; l <= rule->nsteps; l++)
		bits[l] = flex <= mm_rule_level_limit(rule, l) ? 1 : 0;
	return true;
}

static void
roles_start(MmRuleState *st, const MmRule *rule, const MmRoster *t, int nregions)
{
	(void) t;
	(void) nregions;
	for (int side = 0; side < rule->nteams; side++)
	{
		st->players[side] = 0;
		if (st->have[side] == NULL)
			st->have[side] = palloc0(sizeof(int) * Max(rule->nroles, 1));
		else
			memset(st->have[side], 0, sizeof(int) * Max(rule->nroles, 1));
	}
}

static bool
roles_team_fits(const MmRuleState *st, const MmRule *rule, double limit, const MmRoster *r, int side)
{
	return completable(rule, limit, st->have[side], st->players[side], r);
}

static void
roles_team_add(MmRuleState *st, const MmRule *rule, const MmRoster *r, int side)
{
	st->players[side] += r->players;
	if (r->role_count)
		for (int k = 0; k < rule->nroles; k++)
			st->have[side][k] += r->role_count[k];
}

/*
 * backfill: the team keeps its present players, and the roles of those who
 * left (the request's roles) are taken off what it has; when they are not
 * given, the team counts the roles of all its rosters' players. The flex a
 * team already needs to be completed (its lacking roles beyond its open
 * seats) is the least it is held to.
 */
static double
roles_backfill(MmRuleState *st, const MmRule *rule, double limit, const MmBackfillSeats *seats,
			   int nregions)
{
	int		   *have;
	int			need;

	(void) nregions;
	/* a team the queue no longer has (its teams changed): no counts */
	if (seats->side >= rule->nteams)
		return limit;
	have = st->have[seats->side];
	st->players[seats->side] = seats->present;
	if (seats->left)
		for (int k = 0; k < rule->nroles; k++)
			have[k] = Max(0, have[k] - seats->left[k]);
	need = lacking(rule, have, NULL) - (rule->team_size - seats->present);
	return Max(limit, need);
}

static const MmRuleOps roles_ops = {
	.admit = roles_admit, .bits = roles_bits, .start = roles_start, .fits = mm_rule_always_fits,
	.add = mm_rule_no_add, .team_fits = roles_team_fits, .team_add = roles_team_add,
	.backfill = roles_backfill
};

const MmRuleType mm_rule_roles = {
	.type = "roles", .param = "flex", .param_min = 0, .param_max = 1000, .param_default = 0,
	.relax_up = true, .unit = " any-role seats", .teams = true,
	.ops = &roles_ops
};
