/*-------------------------------------------------------------------------
 *
 * rule_latency.c
 *		The latency rule: a match is played in one region where every
 *		roster's latency is at most "max" ms (hard), or, soft, in the
 *		region of the lowest worst latency, the lower the better; the
 *		match records that region. r->lat[k] is a roster's latency to
 *		region k, or Inf.
 *
 * A roster may carry its players' own limit (r->max_latency, the ticket's
 * max_latency): a region farther than that is one it cannot play in, as
 * if it had no server there (its latency counts as Inf), whatever the
 * rule's "max" and its expansion. So the hard rule holds a roster to the
 * lower of the two, the region of the match is one within every roster's
 * own limit, and a soft rule, which otherwise filters nothing, still
 * filters by the own limits (MmRuleType.soft_filters): a roster with one
 * joins a match only where a region within it is left to every roster of
 * the match that has latencies.
 *
 *-------------------------------------------------------------------------
 */
#include "rules.h"

#include <math.h>

/* A roster's latency to region k as the rule counts it: Inf beyond its own limit. */
static inline double
eff_lat(const MmRoster *r, int k)
{
	double		l = r->lat[k];

	return r->max_latency > 0 && l > r->max_latency ? INFINITY : l;
}

/* Whether a roster carries its own limit. */
static inline bool
capped(const MmRoster *r)
{
	return r->max_latency > 0 && r->lat != NULL;
}

/*
 * As bits: the regions within each level's "max" (at most 64 regions);
 * a roster without latencies has none, and is no one's potential.
 */
static bool
latency_bits(const MmRule *rule, const MmRoster *r, int nregions, uint64 *bits)
{
	if (nregions > 64 || rule->soft)
		return false;
	for (int l = 0; l <= rule->nsteps; l++)
	{
		double		limit = mm_rule_level_limit(rule, l);

		bits[l] = 0;
		if (r->lat != NULL)
			for (int k = 0; k < nregions; k++)
				if (eff_lat(r, k) <= limit)
					bits[l] |= UINT64CONST(1) << k;
	}
	return true;
}

static bool
latency_admit(const MmRule *rule, double limit, const MmRoster *t, const MmRoster *p, int nregions)
{
	/* soft: only the own limits filter, between rosters that have latencies */
	if (rule->soft)
	{
		if (t->lat == NULL || p->lat == NULL || (!capped(t) && !capped(p)))
			return true;
		limit = INFINITY;
	}
	else if (t->lat == NULL || p->lat == NULL)
		return false;
	for (int k = 0; k < nregions; k++)
		if (eff_lat(t, k) <= limit && eff_lat(p, k) <= limit && !isinf(Max(eff_lat(t, k), eff_lat(p, k))))
			return true;
	return false;
}

static void
latency_start(MmRuleState *st, const MmRule *rule, const MmRoster *t, int nregions)
{
	st->worst = palloc(sizeof(double) * Max(nregions, 1));
	st->capped = capped(t);
	/* a soft rule's target without latencies leaves the regions open */
	for (int k = 0; k < nregions; k++)
		st->worst[k] = t->lat ? eff_lat(t, k) : rule->soft ? -INFINITY : INFINITY;
}

static bool
latency_fits(const MmRuleState *st, const MmRule *rule, double limit, const MmRoster *r, int nregions)
{
	/* soft: only the own limits filter (a roster without latencies is ignored) */
	if (rule->soft)
	{
		if (r->lat == NULL || (!st->capped && !capped(r)))
			return true;
		limit = INFINITY;
	}
	else if (r->lat == NULL)
		return false;
	for (int k = 0; k < nregions; k++)
		if (st->worst[k] <= limit && eff_lat(r, k) <= limit && !isinf(Max(st->worst[k], eff_lat(r, k))))
			return true;
	return false;
}

/*
 * A soft rule ignores a roster without latencies (it neither joins nor
 * spoils the match's regions); a hard one never admits one.
 */
static void
latency_add(MmRuleState *st, const MmRule *rule, const MmRoster *r, int nregions)
{
	(void) rule;
	if (r->lat == NULL && rule->soft)
		return;
	st->capped |= capped(r);
	for (int k = 0; k < nregions; k++)
		st->worst[k] = Max(st->worst[k], r->lat ? eff_lat(r, k) : INFINITY);
}

/*
 * soft: the lowest worst latency of the match were r to join it;
 * MM_SOFT_LATENCY_NONE when they share no region, 0 for a roster without
 * latencies
 */
static double
latency_measure(const MmRuleState *st, const MmRule *rule, const MmRoster *r, int nregions)
{
	double		best = INFINITY;

	(void) rule;
	if (r->lat == NULL)
		return 0;
	for (int k = 0; k < nregions; k++)
		best = Min(best, Max(st->worst[k], eff_lat(r, k)));
	return isinf(best) ? MM_SOFT_LATENCY_NONE : best;
}

/*
 * backfill: a match records its region, and is played there: a roster
 * joins it when its own latency to that region is within "max" (or within
 * the worst latency of the match's rosters there, if that is larger), and
 * a soft rule scores that latency. A match without a region (the rule came
 * after it was made) is held to its best region as it stands.
 */
static double
latency_backfill(MmRuleState *st, const MmRule *rule, double limit, const MmBackfillSeats *seats,
				 int nregions)
{
	double		worst = INFINITY;

	if (seats->region != -1)
	{
		if (seats->region >= 0 && seats->region < nregions)
			worst = st->worst[seats->region];
		/* only the region counts, and only the joining roster's latency there */
		for (int k = 0; k < nregions; k++)
			st->worst[k] = k == seats->region ? -INFINITY : INFINITY;
		st->capped = false;
	}
	else
		for (int k = 0; k < nregions; k++)
			worst = Min(worst, st->worst[k]);
	if (rule->soft || isinf(worst))
		return limit;
	return Max(limit, worst);
}

int
mm_rule_region(const MmRuleState *st, double limit, int nregions)
{
	int			best = -1;

	for (int k = 0; k < nregions; k++)
	{
		if (st->worst[k] > limit || isinf(st->worst[k]))
			continue;
		if (best < 0 || st->worst[k] < st->worst[best])
			best = k;
	}
	return best;
}

static const MmRuleOps latency_ops = {
	.admit = latency_admit, .bits = latency_bits, .start = latency_start, .fits = latency_fits,
	.add = latency_add, .measure = latency_measure, .backfill = latency_backfill
};

const MmRuleType mm_rule_latency = {
	.type = "latency", .param = "max", .param_min = 0, .param_max = 3600000,
	.param_required = true, .relax_up = true, .unit = " ms", .soft = true, .soft_filters = true,
	.ops = &latency_ops
};
