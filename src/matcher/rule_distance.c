/*-------------------------------------------------------------------------
 *
 * rule_distance.c
 *		The distance rule: the largest difference of a number attribute
 *		within a match is at most "max" (hard), or, soft, the smaller the
 *		better: its measure is that difference were the roster to join.
 *
 *-------------------------------------------------------------------------
 */
#include "rules.h"

#include <math.h>

static bool
distance_admit(const MmRule *rule, double limit, const MmRoster *t, const MmRoster *p, int nregions)
{
	(void) nregions;
	if (!mm_rule_attr_present(t, rule) || !mm_rule_attr_present(p, rule))
		return false;
	return fabs(t->attr[rule->attr].num - p->attr[rule->attr].num) <= limit;
}

/* lo > hi: no roster of the match has the value yet (a soft rule's) */
static void
distance_start(MmRuleState *st, const MmRule *rule, const MmRoster *t, int nregions)
{
	(void) nregions;
	if (mm_rule_attr_present(t, rule))
		st->lo = st->hi = t->attr[rule->attr].num;
	else
	{
		st->lo = INFINITY;
		st->hi = -INFINITY;
	}
}

static bool
distance_fits(const MmRuleState *st, const MmRule *rule, double limit, const MmRoster *r, int nregions)
{
	double		v;

	(void) nregions;

	/* the filter refuses it while populating; a backfill has no filter */
	if (!mm_rule_attr_present(r, rule))
		return false;
	v = r->attr[rule->attr].num;
	return Max(st->hi, v) - Min(st->lo, v) <= limit;
}

static void
distance_add(MmRuleState *st, const MmRule *rule, const MmRoster *r, int nregions)
{
	double		v;

	(void) nregions;

	if (!mm_rule_attr_present(r, rule))
		return;
	v = r->attr[rule->attr].num;
	st->lo = Min(st->lo, v);
	st->hi = Max(st->hi, v);
}

/* soft: the match's difference with r; 0 while the value is missing on either side */
static double
distance_measure(const MmRuleState *st, const MmRule *rule, const MmRoster *r, int nregions)
{
	double		v;

	(void) nregions;

	if (!mm_rule_attr_present(r, rule) || st->lo > st->hi)
		return 0;
	v = r->attr[rule->attr].num;
	return Max(st->hi, v) - Min(st->lo, v);
}

/* backfill: the match's own difference, where it is larger than "max" */
static double
distance_backfill(MmRuleState *st, const MmRule *rule, double limit, const MmBackfillSeats *seats,
				  int nregions)
{
	(void) rule;
	(void) seats;
	(void) nregions;
	return st->lo <= st->hi ? Max(limit, st->hi - st->lo) : limit;
}

static const MmRuleOps distance_ops = {
	.admit = distance_admit, .start = distance_start, .fits = distance_fits, .add = distance_add,
	.measure = distance_measure, .backfill = distance_backfill
};

const MmRuleType mm_rule_distance = {
	.type = "distance", .param = "max", .param_min = 0, .param_max = 1e15, .param_required = true,
	.relax_up = true, .attr_types = MM_ATTR_BIT(MM_ATTR_NUMBER), .unit = "", .soft = true,
	.ops = &distance_ops
};
