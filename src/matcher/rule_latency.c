/*-------------------------------------------------------------------------
 *
 * rule_latency.c
 *		The latency rule: a match is played in one region where every
 *		roster's latency is at most "max" ms (hard), or, soft, in the
 *		region of the lowest worst latency, the lower the better; the
 *		match records that region.
 *
 *		A roster's latencies are a sparse list (MmRoster.lat_region, .lat,
 *		.nlat: region ids ascending, at most MM_ROSTER_REGIONS_MAX of them),
 *		never one entry per region of the queue: the rosters a tick reads
 *		hold as many latencies as they gave, however many distinct regions
 *		the queue's rosters name between them. A match's state is likewise
 *		the list of its candidate regions (those of the first roster with
 *		latencies) with the worst latency of its rosters in each; a region
 *		a roster has no latency to is out.
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

/* A latency of roster r as the rule counts it: Inf beyond its own limit. */
static inline double
eff(const MmRoster *r, double l)
{
	return r->max_latency > 0 && l > r->max_latency ? INFINITY : l;
}

/* Whether a roster carries its own limit. */
static inline bool
capped(const MmRoster *r)
{
	return r->max_latency > 0 && r->lat != NULL;
}

/* A roster's latency to region k as the rule counts it; Inf when it gave none. */
static double
latency_to(const MmRoster *r, int k)
{
	int			a = 0,
				b = r->nlat;

	while (a < b)
	{
		int			m = a + (b - a) / 2;

		if (r->lat_region[m] < k)
			a = m + 1;
		else
			b = m;
	}
	return a < r->nlat && r->lat_region[a] == k ? eff(r, r->lat[a]) : INFINITY;
}

/*
 * As bits: the regions within each level's "max" (at most 64 regions in
 * the rosters read); a roster without latencies has none, and is no one's
 * potential.
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
			for (int j = 0; j < r->nlat; j++)
				if (eff(r, r->lat[j]) <= limit)
					bits[l] |= UINT64CONST(1) << r->lat_region[j];
	}
	return true;
}

/* Some region where both are within the limit (a walk of both lists). */
static bool
latency_admit(const MmRule *rule, double limit, const MmRoster *t, const MmRoster *p, int nregions)
{
	int			i = 0,
				j = 0;

	(void) nregions;
	/* soft: only the own limits filter, between rosters that have latencies */
	if (rule->soft)
	{
		if (t->lat == NULL || p->lat == NULL || (!capped(t) && !capped(p)))
			return true;
		limit = INFINITY;
	}
	else if (t->lat == NULL || p->lat == NULL)
		return false;
	while (i < t->nlat && j < p->nlat)
	{
		if (t->lat_region[i] < p->lat_region[j])
			i++;
		else if (t->lat_region[i] > p->lat_region[j])
			j++;
		else
		{
			double		a = eff(t, t->lat[i]),
						b = eff(p, p->lat[j]);

			if (a <= limit && b <= limit && !isinf(Max(a, b)))
				return true;
			i++;
			j++;
		}
	}
	return false;
}

/*
 * The match holding the target: its regions, each with the target's
 * latency. A soft rule's target without latencies leaves the regions open
 * (any region, its worst latency -Inf) until a roster with latencies
 * joins; a hard rule's has none.
 */
static void
latency_start(MmRuleState *st, const MmRule *rule, const MmRoster *t, int nregions)
{
	(void) nregions;
	st->lat_open = t->lat == NULL && rule->soft;
	st->capped = capped(t);
	st->nlat = t->lat ? t->nlat : 0;
	st->lat_region = palloc(sizeof(int) * Max(st->nlat, 1));
	st->worst = palloc(sizeof(double) * Max(st->nlat, 1));
	for (int j = 0; j < st->nlat; j++)
	{
		st->lat_region[j] = t->lat_region[j];
		st->worst[j] = eff(t, t->lat[j]);
	}
}

static bool
latency_fits(const MmRuleState *st, const MmRule *rule, double limit, const MmRoster *r, int nregions)
{
	(void) nregions;
	/* soft: only the own limits filter (a roster without latencies is ignored) */
	if (rule->soft)
	{
		if (r->lat == NULL || (!st->capped && !capped(r)))
			return true;
		limit = INFINITY;
	}
	else if (r->lat == NULL)
		return false;
	if (st->lat_open)
	{
		for (int j = 0; j < r->nlat; j++)
			if (eff(r, r->lat[j]) <= limit && !isinf(eff(r, r->lat[j])))
				return true;
		return false;
	}
	for (int j = 0; j < st->nlat; j++)
	{
		double		l = latency_to(r, st->lat_region[j]);

		if (st->worst[j] <= limit && l <= limit && !isinf(Max(st->worst[j], l)))
			return true;
	}
	return false;
}

/*
 * A soft rule ignores a roster without latencies (it neither joins nor
 * spoils the match's regions); a hard one never admits one.
 */
static void
latency_add(MmRuleState *st, const MmRule *rule, const MmRoster *r, int nregions)
{
	(void) nregions;
	if (r->lat == NULL && rule->soft)
		return;
	st->capped |= capped(r);
	if (st->lat_open)
	{
		/* the first roster with latencies: its regions are the match's */
		st->lat_open = false;
		pfree(st->lat_region);
		pfree(st->worst);
		st->nlat = r->nlat;
		st->lat_region = palloc(sizeof(int) * Max(st->nlat, 1));
		st->worst = palloc(sizeof(double) * Max(st->nlat, 1));
		for (int j = 0; j < st->nlat; j++)
		{
			st->lat_region[j] = r->lat_region[j];
			st->worst[j] = eff(r, r->lat[j]);
		}
		return;
	}
	for (int j = 0; j < st->nlat; j++)
		st->worst[j] = Max(st->worst[j], r->lat ? latency_to(r, st->lat_region[j]) : INFINITY);
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
	(void) nregions;
	if (r->lat == NULL)
		return 0;
	if (st->lat_open)
		for (int j = 0; j < r->nlat; j++)
			best = Min(best, eff(r, r->lat[j]));
	else
		for (int j = 0; j < st->nlat; j++)
			best = Min(best, Max(st->worst[j], latency_to(r, st->lat_region[j])));
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
		bool		known = seats->region >= 0 && seats->region < nregions;

		if (known && st->lat_open)
			worst = -INFINITY;
		for (int j = 0; known && j < st->nlat; j++)
			if (st->lat_region[j] == seats->region)
				worst = st->worst[j];
		/* only the region counts, and only the joining roster's latency there */
		st->lat_open = false;
		st->capped = false;
		st->nlat = known ? 1 : 0;
		st->lat_region[0] = seats->region;
		st->worst[0] = -INFINITY;
	}
	else if (st->lat_open)
		worst = -INFINITY;
	else
		for (int j = 0; j < st->nlat; j++)
			worst = Min(worst, st->worst[j]);
	if (rule->soft || isinf(worst))
		return limit;
	return Max(limit, worst);
}

int
mm_rule_region(const MmRuleState *st, double limit, int nregions, double *worst)
{
	int			best = -1;

	(void) nregions;
	*worst = 0;
	if (st->lat_open)
		return -1;
	/* the lists are in region id order: a tie goes to the lower id */
	for (int j = 0; j < st->nlat; j++)
	{
		if (st->worst[j] > limit || isinf(st->worst[j]))
			continue;
		if (best < 0 || st->worst[j] < st->worst[best])
			best = j;
	}
	if (best < 0)
		return -1;
	*worst = st->worst[best];
	return st->lat_region[best];
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
