/*-------------------------------------------------------------------------
 *
 * musigma.c
 *		musigma ratings and the IMS matchmaker's helpers over them (the IMS
 *		matchmaker documentation): the ordinal, party rating (a function and
 *		an aggregate), the beta widening schedule and the musigma data-point
 *		score. The OpenSkill update itself is openskill.c.
 *
 * A musigma rating is a normal belief N(mu, sigma^2) about a player's skill.
 * Its ordinal is mu - z * sigma, the skill the player has with probability
 * Phi(z); z = 3 is openskill's and the IMS matchmaker's default.
 *
 * Party rating (the IMS matchmaker documentation, "Match Finding"; docs/architecture.md, "How mm reads its sources"):
 *	(max_w * max(mu) + med_w * median(mu)) / (max_w + med_w)
 *		- ordinal_deviations * avg(sigma),
 * the median of an even count being the mean of the middle two.
 *
 * Beta widening (the IMS matchmaker documentation, "Buckets"; docs/architecture.md, "How mm reads its sources"): with bucket
 * duration d and n buckets, bucket i (1-based) starts at d * (i - 1)^2
 * seconds and uses beta = max_beta * i / n.
 *
 * Data-point score (mm's definition; the IMS documentation only says that entrants whose
 * rating delta is under beta match, and that a -beta / +beta pair around a
 * pivot gets a low score): for the ratings of the entrants of a candidate
 * match (players or parties, each a party rating), score = max(0, 1 -
 * (max - min) / beta), in [0, 1]; 1 when all are equal, 0 from a spread of
 * beta up. The data point accepts the match when score >= floor, and
 * contributes weight * score to the weighted sum of data points.
 *
 *-------------------------------------------------------------------------
 */
#include "mm.h"
#include "config.h"
#include "openskill.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "datatype/timestamp.h"
#include "fmgr.h"
#include "funcapi.h"
#include "libpq/pqformat.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

/* Default number of deviations subtracted by the ordinal. */
#define MM_ORDINAL_Z 3.0

/* Return the ordinal mu - z * sigma. */
static double
ordinal(double mu, double sigma, double z)
{
	return mu - z * sigma;
}

PG_FUNCTION_INFO_V1(mm_ordinal);

/* mm.ordinal(mu float8, sigma float8, z float8 DEFAULT 3) */
Datum
mm_ordinal(PG_FUNCTION_ARGS)
{
	double		mu = PG_GETARG_FLOAT8(0);
	double		sigma = PG_GETARG_FLOAT8(1);
	double		z = PG_NARGS() > 2 ? PG_GETARG_FLOAT8(2) : MM_ORDINAL_Z;

	mm_check_finite(mu, "mu");
	mm_check_positive(sigma, "sigma");
	mm_check_finite(z, "z");
	PG_RETURN_FLOAT8(mm_check_result(ordinal(mu, sigma, z), "ordinal"));
}

/* Party-rating settings, checked. */
static void
party_check(double max_w, double med_w, double dev)
{
	mm_check_nonnegative(max_w, "max_mu_weight");
	mm_check_nonnegative(med_w, "med_mu_weight");
	mm_check_finite(dev, "ordinal_deviations");
	if (max_w + med_w <= 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_mu_weight and med_mu_weight must not both be zero"),
				 errhint("Give the best player, the median player or both a positive weight.")));
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return x < y ? -1 : (x > y ? 1 : 0);
}

/*
 * Rate a party of n players (mu is sorted in place). The sigmas are summed
 * in sorted order, so that the result does not depend on the order of the
 * members: the aggregate gives the same bits in a parallel plan as in a
 * serial one, and as the function over array_agg.
 */
double
mm_os_party_rating(int n, double *mu, const double *sigma, double max_w,
				   double med_w, double dev)
{
	double		med,
				sig = 0.0;
	double	   *sorted = palloc(sizeof(double) * n);

	qsort(mu, n, sizeof(double), cmp_double);
	med = (n % 2) ? mu[n / 2] : (mu[n / 2 - 1] + mu[n / 2]) / 2.0;
	memcpy(sorted, sigma, sizeof(double) * n);
	qsort(sorted, n, sizeof(double), cmp_double);
	for (int i = 0; i < n; i++)
		sig += sorted[i];
	pfree(sorted);
	return (max_w * mu[n - 1] + med_w * med) / (max_w + med_w) - dev * (sig / n);
}

PG_FUNCTION_INFO_V1(mm_party_rating);

/* mm.party_rating(mu float8[], sigma float8[], max_mu_weight, med_mu_weight, ordinal_deviations) */
Datum
mm_party_rating(PG_FUNCTION_ARGS)
{
	double	   *mu,
			   *sigma;
	int			n = mm_float8_array(PG_GETARG_ARRAYTYPE_P(0), "mu", &mu);
	int			m = mm_float8_array(PG_GETARG_ARRAYTYPE_P(1), "sigma", &sigma);
	double		max_w = PG_GETARG_FLOAT8(2),
				med_w = PG_GETARG_FLOAT8(3),
				dev = PG_GETARG_FLOAT8(4);

	party_check(max_w, med_w, dev);
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a party needs at least one player"),
				 errhint("Pass each party member's mu and sigma.")));
	if (n != m)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("mu and sigma must have the same length"),
				 errdetail("mu has %d elements, sigma has %d.", n, m),
				 errhint("Pass one mu and one sigma per party member.")));
	for (int i = 0; i < n; i++)
	{
		mm_check_finite(mu[i], "mu");
		mm_check_positive(sigma[i], "sigma");
	}
	PG_RETURN_FLOAT8(mm_check_result(mm_os_party_rating(n, mu, sigma, max_w, med_w, dev),
									 "party rating"));
}

/*
 * The aggregate mm.party_rating_agg keeps its members in an internal state
 * that grows by doubling, so that n rows cost O(n) (plus the final sort),
 * not O(n^2). Its support functions take internal, so no state can be
 * forged from SQL; the serialized form (bytea, for parallel and partial
 * aggregation) is checked in full when read back.
 */
typedef struct PartyState
{
	double		max_w;			/* the settings, the same on every row */
	double		med_w;
	double		dev;
	int			n;				/* members so far */
	int			cap;			/* room in mu and sigma */
	double	   *mu;
	double	   *sigma;
} PartyState;

/* Members in one party: far past any game, and a bytea stays below 1 GB. */
#define PARTY_MAX_MEMBERS (16 * 1024 * 1024)

/* The memory context of the aggregate, or an error outside one. */
static MemoryContext
party_agg_context(FunctionCallInfo fcinfo, const char *fn)
{
	MemoryContext aggcontext;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s can only be called by the aggregate mm.party_rating_agg", fn)));
	return aggcontext;
}

/* A new, empty state in the aggregate's context. */
static PartyState *
party_state_new(MemoryContext cxt, double max_w, double med_w, double dev,
				int cap)
{
	PartyState *st = MemoryContextAlloc(cxt, sizeof(PartyState));

	st->max_w = max_w;
	st->med_w = med_w;
	st->dev = dev;
	st->n = 0;
	st->cap = Max(cap, 8);
	st->mu = MemoryContextAlloc(cxt, sizeof(double) * st->cap);
	st->sigma = MemoryContextAlloc(cxt, sizeof(double) * st->cap);
	return st;
}

/* Refuse rows or states whose settings differ. */
static void
party_same_settings(const PartyState *st, double max_w, double med_w, double dev)
{
	if (st->max_w != max_w || st->med_w != med_w || st->dev != dev)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("party_rating_agg settings must be the same for every row of a party"),
				 errdetail("The party has settings (%g, %g, %g) and also (%g, %g, %g).",
						   st->max_w, st->med_w, st->dev, max_w, med_w, dev),
				 errhint("Pass constants for max_mu_weight, med_mu_weight and ordinal_deviations.")));
}

/* Make room for "more" members (the arrays live in the state's context). */
static void
party_reserve(PartyState *st, int more)
{
	int			cap = st->cap;

	if (more > PARTY_MAX_MEMBERS - st->n)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a party can have at most %d members", PARTY_MAX_MEMBERS)));
	while (cap < st->n + more)
		cap *= 2;
	if (cap != st->cap)
	{
		st->mu = repalloc(st->mu, sizeof(double) * cap);
		st->sigma = repalloc(st->sigma, sizeof(double) * cap);
		st->cap = cap;
	}
}

PG_FUNCTION_INFO_V1(mm_party_rating_accum);

/* Transition: add one member's (mu, sigma); the settings must not vary. */
Datum
mm_party_rating_accum(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = party_agg_context(fcinfo, "party_rating_accum");
	PartyState *st = PG_ARGISNULL(0) ? NULL : (PartyState *) PG_GETARG_POINTER(0);
	double		mu,
				sigma,
				max_w,
				med_w,
				dev;

	static const char *const names[] = {"mu", "sigma", "max_mu_weight", "med_mu_weight", "ordinal_deviations"};

	for (int i = 1; i < PG_NARGS() && i <= 5; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s must not be null", names[i - 1]),
					 errdetail("An argument of mm.party_rating_agg is NULL."),
					 errhint("Filter out members without a rating, or COALESCE them to the defaults.")));
	mu = PG_GETARG_FLOAT8(1);
	sigma = PG_GETARG_FLOAT8(2);
	/* the two-argument aggregate takes the IMS documentation's settings */
	max_w = PG_NARGS() > 3 ? PG_GETARG_FLOAT8(3) : 2.0;
	med_w = PG_NARGS() > 3 ? PG_GETARG_FLOAT8(4) : 1.0;
	dev = PG_NARGS() > 3 ? PG_GETARG_FLOAT8(5) : 3.0;
	mm_check_finite(mu, "mu");
	mm_check_positive(sigma, "sigma");
	if (st == NULL)
	{
		party_check(max_w, med_w, dev);
		st = party_state_new(cxt, max_w, med_w, dev, 8);
	}
	else
		party_same_settings(st, max_w, med_w, dev);
	party_reserve(st, 1);
	st->mu[st->n] = mu;
	st->sigma[st->n] = sigma;
	st->n++;
	PG_RETURN_POINTER(st);
}

PG_FUNCTION_INFO_V1(mm_party_rating_combine);

/* Combine two partial states (parallel aggregation) into the first. */
Datum
mm_party_rating_combine(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = party_agg_context(fcinfo, "party_rating_combine");
	PartyState *a = PG_ARGISNULL(0) ? NULL : (PartyState *) PG_GETARG_POINTER(0);
	PartyState *b = PG_ARGISNULL(1) ? NULL : (PartyState *) PG_GETARG_POINTER(1);

	if (b == NULL)
	{
		if (a == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(a);
	}
	if (a == NULL)
		a = party_state_new(cxt, b->max_w, b->med_w, b->dev, b->n);
	party_same_settings(a, b->max_w, b->med_w, b->dev);
	party_reserve(a, b->n);
	memcpy(a->mu + a->n, b->mu, sizeof(double) * b->n);
	memcpy(a->sigma + a->n, b->sigma, sizeof(double) * b->n);
	a->n += b->n;
	PG_RETURN_POINTER(a);
}

/* Serialized state: max_w, med_w, dev, n, then n (mu, sigma) pairs. */
PG_FUNCTION_INFO_V1(mm_party_rating_serialize);

Datum
mm_party_rating_serialize(PG_FUNCTION_ARGS)
{
	PartyState *st;
	StringInfoData buf;

	party_agg_context(fcinfo, "party_rating_serialize");
	st = (PartyState *) PG_GETARG_POINTER(0);
	pq_begintypsend(&buf);
	pq_sendfloat8(&buf, st->max_w);
	pq_sendfloat8(&buf, st->med_w);
	pq_sendfloat8(&buf, st->dev);
	pq_sendint32(&buf, st->n);
	for (int i = 0; i < st->n; i++)
	{
		pq_sendfloat8(&buf, st->mu[i]);
		pq_sendfloat8(&buf, st->sigma[i]);
	}
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

PG_FUNCTION_INFO_V1(mm_party_rating_deserialize);

/* Read a serialized state back, checking every value as the transition does. */
Datum
mm_party_rating_deserialize(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = party_agg_context(fcinfo, "party_rating_deserialize");
	bytea	   *b = PG_GETARG_BYTEA_PP(0);
	StringInfoData buf;
	PartyState *st;
	double		max_w,
				med_w,
				dev;
	int			n;

	buf.data = VARDATA_ANY(b);
	buf.len = VARSIZE_ANY_EXHDR(b);
	buf.maxlen = buf.len;
	buf.cursor = 0;
	if (buf.len < 3 * 8 + 4)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid party_rating_agg state")));
	max_w = pq_getmsgfloat8(&buf);
	med_w = pq_getmsgfloat8(&buf);
	dev = pq_getmsgfloat8(&buf);
	n = pq_getmsgint(&buf, 4);
	if (n < 0 || n > PARTY_MAX_MEMBERS || buf.len - buf.cursor != n * 16)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid party_rating_agg state"),
				 errdetail("It claims %d members in %d bytes.", n, buf.len)));
	party_check(max_w, med_w, dev);
	st = party_state_new(cxt, max_w, med_w, dev, n);
	for (int i = 0; i < n; i++)
	{
		st->mu[i] = pq_getmsgfloat8(&buf);
		st->sigma[i] = pq_getmsgfloat8(&buf);
		mm_check_finite(st->mu[i], "mu");
		mm_check_positive(st->sigma[i], "sigma");
	}
	st->n = n;
	PG_RETURN_POINTER(st);
}

PG_FUNCTION_INFO_V1(mm_party_rating_final);

/* Final: the party rating of the accumulated members; NULL over no rows. */
Datum
mm_party_rating_final(PG_FUNCTION_ARGS)
{
	PartyState *st;
	double	   *mu;

	party_agg_context(fcinfo, "party_rating_final");
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	st = (PartyState *) PG_GETARG_POINTER(0);
	if (st->n == 0)
		PG_RETURN_NULL();
	/* party_rating sorts mu: work on a copy, a final function may run again */
	mu = palloc(sizeof(double) * st->n);
	memcpy(mu, st->mu, sizeof(double) * st->n);
	PG_RETURN_FLOAT8(mm_check_result(mm_os_party_rating(st->n, mu, st->sigma,
												  st->max_w, st->med_w, st->dev),
									 "party rating"));
}

/*
 * Beta after waiting "waited" seconds: the bucket i is the largest in
 * [1, buckets] whose start d * (i - 1)^2 is at most waited, computed
 * directly (i - 1 = floor(sqrt(waited / d)), corrected for rounding) rather
 * than by counting up to it.
 */
static double
musigma_beta(double waited, double max_beta, int32 buckets, double d)
{
	double		root = sqrt(waited / d);
	double		j = (root < (double) buckets) ? floor(root) : (double) (buckets - 1);
	double		beta;

	if (j > buckets - 1)
		j = buckets - 1;
	/* sqrt and the division round: move j to the exact boundary */
	while (j > 0 && d * j * j > waited)
		j--;
	while (j < buckets - 1 && d * (j + 1) * (j + 1) <= waited)
		j++;
	/* max_beta * i / buckets, without overflowing when max_beta is huge */
	beta = max_beta * (j + 1) / buckets;
	if (!isfinite(beta))
		beta = max_beta / buckets * (j + 1);
	return mm_check_result(beta, "beta");
}

PG_FUNCTION_INFO_V1(mm_musigma_beta);

/* mm.musigma_beta(waited interval, max_beta float8, buckets int, bucket_duration interval) */
Datum
mm_musigma_beta(PG_FUNCTION_ARGS)
{
	double		waited = mm_interval_seconds(PG_GETARG_INTERVAL_P(0));
	double		max_beta = PG_GETARG_FLOAT8(1);
	int32		buckets = PG_GETARG_INT32(2);
	double		d = mm_interval_seconds(PG_GETARG_INTERVAL_P(3));

	mm_check_positive(max_beta, "max_beta");
	if (buckets < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("buckets must be at least 1"),
				 errdetail("The value is %d.", buckets),
				 errhint("Use 1 for a constant beta.")));
	if (d <= 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bucket_duration must be positive"),
				 errdetail("The value is %g seconds.", d),
				 errhint("Give the first bucket's length, e.g. '10 seconds'.")));
	if (waited < 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("waited must not be negative"),
				 errdetail("The value is %g seconds.", waited),
				 errhint("Pass the time spent in the queue so far.")));
	PG_RETURN_FLOAT8(musigma_beta(waited, max_beta, buckets, d));
}

PG_FUNCTION_INFO_V1(mm_musigma_data_point);

/*
 * mm.musigma_data_point(rating float8[], beta, floor DEFAULT 0.5,
 *   weight DEFAULT 1, OUT score, OUT accepted, OUT weighted_score)
 */
Datum
mm_musigma_data_point(PG_FUNCTION_ARGS)
{
	double	   *r;
	int			n = mm_float8_array(PG_GETARG_ARRAYTYPE_P(0), "rating", &r);
	double		beta = PG_GETARG_FLOAT8(1);
	double		floor_ = PG_GETARG_FLOAT8(2);
	double		weight = PG_GETARG_FLOAT8(3);
	double		lo,
				hi,
				score;
	TupleDesc	desc;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	mm_check_positive(beta, "beta");
	mm_check_finite(floor_, "floor");
	mm_check_nonnegative(weight, "weight");
	if (floor_ < 0.0 || floor_ > 1.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("floor must be between 0 and 1"),
				 errdetail("The value is %g.", floor_),
				 errhint("Scores are in [0, 1]; 0.5 is the IMS documentation's starting value.")));
	if (n < 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a data point needs at least two ratings"),
				 errdetail("%d given.", n),
				 errhint("Pass the rating of every player or party of the candidate match.")));
	lo = hi = r[0];
	for (int i = 0; i < n; i++)
	{
		mm_check_finite(r[i], "rating");
		lo = Min(lo, r[i]);
		hi = Max(hi, r[i]);
	}
	score = 1.0 - (hi - lo) / beta;
	if (!(score > 0.0))
		score = 0.0;
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	values[0] = Float8GetDatum(score);
	values[1] = BoolGetDatum(score >= floor_);
	values[2] = Float8GetDatum(weight * score);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}
