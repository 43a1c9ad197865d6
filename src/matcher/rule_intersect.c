/*-------------------------------------------------------------------------
 *
 * rule_intersect.c
 *		The intersect rule: the rosters of a match share at least "min"
 *		values of a string_set attribute (default 1: a common language).
 *		Sets are sorted, so intersections are merges.
 *
 *-------------------------------------------------------------------------
 */
#include "rules.h"

static int
shared(const int *a, int na, const int *b, int nb, int *out)
{
	int			i = 0,
				j = 0,
				n = 0;

	while (i < na && j < nb)
	{
		if (a[i] < b[j])
			i++;
		else if (a[i] > b[j])
			j++;
		else
		{
			if (out)
				out[n] = a[i];
			n++;
			i++;
			j++;
		}
	}
	return n;
}

static bool
intersect_admit(const MmRule *rule, double limit, const MmRoster *t, const MmRoster *p, int nregions)
{
	const MmAttrValue *a,
			   *b;

	(void) nregions;

	if (!mm_rule_attr_present(t, rule) || !mm_rule_attr_present(p, rule))
		return false;
	a = &t->attr[rule->attr];
	b = &p->attr[rule->attr];
	return shared(a->set, a->nset, b->set, b->nset, NULL) >= limit;
}

static void
intersect_start(MmRuleState *st, const MmRule *rule, const MmRoster *t, int nregions)
{
	const MmAttrValue *a = &t->attr[rule->attr];

	(void) nregions;

	st->ids = palloc(sizeof(int) * Max(a->nset, 1));
	if (a->nset > 0)
		memcpy(st->ids, a->set, sizeof(int) * a->nset);
	st->nids = a->nset;
}

static bool
intersect_fits(const MmRuleState *st, const MmRule *rule, double limit, const MmRoster *r, int nregions)
{
	const MmAttrValue *a;

	(void) nregions;

	/* the filter refuses it while populating; a backfill has no filter */
	if (!mm_rule_attr_present(r, rule))
		return false;
	a = &r->attr[rule->attr];
	return shared(st->ids, st->nids, a->set, a->nset, NULL) >= limit;
}

static void
intersect_add(MmRuleState *st, const MmRule *rule, const MmRoster *r, int nregions)
{
	const MmAttrValue *a = &r->attr[rule->attr];

	(void) nregions;

	st->nids = shared(st->ids, st->nids, a->set, a->nset, st->ids);
}

/* backfill: the values the match still shares, where fewer than "min" */
static double
intersect_backfill(MmRuleState *st, const MmRule *rule, double limit, const MmBackfillSeats *seats,
				   int nregions)
{
	(void) rule;
	(void) seats;
	(void) nregions;
	return Min(limit, st->nids);
}

static const MmRuleOps intersect_ops = {
	.admit = intersect_admit, .start = intersect_start, .fits = intersect_fits,
	.add = intersect_add, .backfill = intersect_backfill
};

const MmRuleType mm_rule_intersect = {
	.type = "intersect", .param = "min", .param_min = 0, .param_max = 1000, .param_default = 1,
	.relax_up = false, .attr_types = MM_ATTR_BIT(MM_ATTR_SET), .unit = " shared values",
	.ops = &intersect_ops
};
