/*-------------------------------------------------------------------------
 *
 * rule_equal.c
 *		The equal rule: every roster of a match has the same value of a
 *		number or string attribute (game mode, platform). The matcher
 *		buckets the queue on it, so a target only ever looks at its own
 *		bucket; no parameter, no expansion. A backfill takes rosters of the
 *		running match's value.
 *
 *-------------------------------------------------------------------------
 */
#include "rules.h"

void
mm_rule_no_start(MmRuleState *st, const MmRule *rule, const MmRoster *t, int nregions)
{
	(void) st;
	(void) rule;
	(void) t;
	(void) nregions;
}

bool
mm_rule_always_fits(const MmRuleState *st, const MmRule *rule, double limit, const MmRoster *r,
					int nregions)
{
	(void) st;
	(void) rule;
	(void) limit;
	(void) r;
	(void) nregions;
	return true;
}

void
mm_rule_no_add(MmRuleState *st, const MmRule *rule, const MmRoster *r, int nregions)
{
	(void) st;
	(void) rule;
	(void) r;
	(void) nregions;
}

/* Whether r has the value v (both present and equal). */
static bool
same_value(const MmAttrValue *v, const MmRoster *r, const MmRule *rule)
{
	const MmAttrValue *b;

	if (!v->present || !mm_rule_attr_present(r, rule))
		return false;
	b = &r->attr[rule->attr];
	return v->num == b->num && v->id == b->id;
}

static bool
equal_admit(const MmRule *rule, double limit, const MmRoster *t, const MmRoster *p, int nregions)
{
	(void) limit;
	(void) nregions;

	return mm_rule_attr_present(t, rule) && same_value(&t->attr[rule->attr], p, rule);
}

/*
 * The match's value. The matcher buckets the queue on the rule, so while a
 * tick populates a match every roster has it; a running match (a backfill)
 * may not, when the rule came after it was made.
 */
static void
equal_start(MmRuleState *st, const MmRule *rule, const MmRoster *t, int nregions)
{
	(void) nregions;
	st->eq_mixed = false;
	st->eq.present = mm_rule_attr_present(t, rule);
	if (st->eq.present)
		st->eq = t->attr[rule->attr];
}

static bool
equal_fits(const MmRuleState *st, const MmRule *rule, double limit, const MmRoster *r, int nregions)
{
	(void) limit;
	(void) nregions;
	return st->eq_mixed || same_value(&st->eq, r, rule);
}

static void
equal_add(MmRuleState *st, const MmRule *rule, const MmRoster *r, int nregions)
{
	(void) nregions;
	if (!same_value(&st->eq, r, rule))
		st->eq_mixed = true;
}

/*
 * A running match whose rosters do not share one value (the rule came
 * after it) cannot be made to keep it: its backfills take any value.
 */
static double
equal_backfill(MmRuleState *st, const MmRule *rule, double limit, const MmBackfillSeats *seats,
			   int nregions)
{
	(void) rule;
	(void) seats;
	(void) nregions;
	if (!st->eq.present)
		st->eq_mixed = true;
	return limit;
}

static const MmRuleOps equal_ops = {
	.admit = equal_admit, .start = equal_start, .fits = equal_fits, .add = equal_add,
	.backfill = equal_backfill
};

const MmRuleType mm_rule_equal = {
	.type = "equal", .attr_types = MM_ATTR_BIT(MM_ATTR_NUMBER) | MM_ATTR_BIT(MM_ATTR_STRING),
	.partitions = true,
	.ops = &equal_ops
};
