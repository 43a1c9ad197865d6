/*-------------------------------------------------------------------------
 *
 * rule_equal.c
 *		The equal rule: every roster of a match has the same value of a
 *		number or string attribute (game mode, platform). The matcher
 *		buckets the queue on it, so a target only ever looks at its own
 *		bucket; no parameter, no expansion.
 *
 *-------------------------------------------------------------------------
 */
#include "matcher.h"
#include "rules.h"

bool
mm_rule_attr_present(const MmRoster *r, const MmRule *rule)
{
	return r->attr != NULL && r->attr[rule->attr].present;
}

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

static bool
equal_admit(const MmRule *rule, double limit, const MmRoster *t, const MmRoster *p, int nregions)
{
	const MmAttrValue *a,
			   *b;

	(void) limit;
	(void) nregions;

	if (!mm_rule_attr_present(t, rule) || !mm_rule_attr_present(p, rule))
		return false;
	a = &t->attr[rule->attr];
	b = &p->attr[rule->attr];
	return a->num == b->num && a->id == b->id;
}

const MmRuleOps mm_rule_equal = {
	.type = "equal", .attr_types = MM_ATTR_BIT(MM_ATTR_NUMBER) | MM_ATTR_BIT(MM_ATTR_STRING),
	.partitions = true,
	.admit = equal_admit, .start = mm_rule_no_start, .fits = mm_rule_always_fits, .add = mm_rule_no_add
};
