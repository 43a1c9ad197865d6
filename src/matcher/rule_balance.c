/*-------------------------------------------------------------------------
 *
 * rule_balance.c
 *		The balance rule: a match whose favourite's odds (the largest of its
 *		teams' odds of winning, under the queue's rating model and
 *		calibration, as the match stores them) exceed "max_favourite" is not
 *		made. {"type": "balance", "max_favourite": 0.65, "expand": [{"after":
 *		60, "max_favourite": 0.75}]} never proposes a match whose favourite
 *		is above 65% until the target has waited a minute, then 75%.
 *
 * The rule has nothing to say about a potential or a roster on its own:
 * odds belong to a complete match. It acts in the complete phase, once
 * the teams are filled and split (match_split.c; under the default split
 * the fairest split of the chosen rosters, so no other split of them
 * passes where that one fails), and a target whose match it refuses fails
 * with the rule's name. A backfill holds the filled match to the rule at
 * the request's wait, loosened to the favourite's odds the match had when
 * it was made (a fill need not make a running match fairer than it was):
 * a roster that would complete the fill is picked only if the match with
 * it passes, so a fair fill is found when one roster can make it.
 *
 *-------------------------------------------------------------------------
 */
#include "rules.h"

/* The match's favourite's odds within the limit? */
static bool
balance_complete(const MmRule *rule, double limit, const double *odds, int nteams)
{
	double		favourite = 0;

	(void) rule;
	for (int t = 0; t < nteams; t++)
		favourite = Max(favourite, odds[t]);
	return favourite <= limit;
}

static bool
balance_admit(const MmRule *rule, double limit, const MmRoster *t, const MmRoster *p, int nregions)
{
	(void) rule;
	(void) limit;
	(void) t;
	(void) p;
	(void) nregions;
	return true;
}

static const MmRuleOps balance_ops = {
	.admit = balance_admit, .start = mm_rule_no_start, .fits = mm_rule_always_fits,
	.add = mm_rule_no_add, .complete = balance_complete
};

const MmRuleType mm_rule_balance = {
	.type = "balance", .param = "max_favourite", .param_min = 0, .param_max = 1,
	.param_required = true, .relax_up = true, .unit = "", .odds = true,
	.ops = &balance_ops
};
