/*-------------------------------------------------------------------------
 *
 * openskill_musigma.c
 *		musigma matchmaking helpers of the IMS matchmaker (seed 002): party
 *		rating (a function and an aggregate), the beta widening schedule and
 *		the musigma data-point score.
 *
 * Party rating (seed 002, "Match Finding"; DESIGN.md section 5):
 *	(max_w * max(mu) + med_w * median(mu)) / (max_w + med_w)
 *		- ordinal_deviations * avg(sigma),
 * the median of an even count being the mean of the middle two.
 *
 * Beta widening (seed 002, "Buckets"; DESIGN.md section 5): with bucket
 * duration d and n buckets, bucket i (1-based) starts at d * (i - 1)^2
 * seconds and uses beta = max_beta * i / n.
 *
 * Data-point score (mm's definition; the seed only says that entrants whose
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

#include <math.h>

#include "catalog/pg_type.h"
#include "datatype/timestamp.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

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

/* Rate a party of n players (mu is sorted in place). */
static double
party_rating(int n, double *mu, const double *sigma, double max_w,
			 double med_w, double dev)
{
	double		med,
				sig = 0.0;

	qsort(mu, n, sizeof(double), cmp_double);
	med = (n % 2) ? mu[n / 2] : (mu[n / 2 - 1] + mu[n / 2]) / 2.0;
	for (int i = 0; i < n; i++)
		sig += sigma[i];
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
	PG_RETURN_FLOAT8(mm_check_result(party_rating(n, mu, sigma, max_w, med_w, dev),
									 "party rating"));
}

/*
 * Aggregate state: float8[] {max_w, med_w, dev, mu1, sigma1, mu2, ...}.
 */
#define PARTY_HEAD 3

static ArrayType *
party_state(int n, const double *v)
{
	Datum	   *d = palloc(sizeof(Datum) * n);

	for (int i = 0; i < n; i++)
		d[i] = Float8GetDatum(v[i]);
	return construct_array(d, n, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE);
}

/* Read a state array, checking its shape. */
static int
party_read(ArrayType *a, double **v)
{
	int			n = mm_float8_array(a, "party_rating_agg state", v);

	if (n < PARTY_HEAD || (n - PARTY_HEAD) % 2 != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid party_rating_agg aggregate state"),
				 errdetail("The state has %d elements.", n)));
	return n;
}

PG_FUNCTION_INFO_V1(mm_party_rating_accum);

/* Transition: append one member's (mu, sigma); the settings must not vary. */
Datum
mm_party_rating_accum(PG_FUNCTION_ARGS)
{
	double	   *old = NULL,
			   *v;
	int			n = 0;
	double		mu,
				sigma,
				max_w,
				med_w,
				dev;

	for (int i = 1; i < PG_NARGS(); i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("party_rating_agg arguments must not be NULL"),
					 errdetail("Argument %d is NULL.", i),
					 errhint("Filter out members without a rating, or COALESCE them to the defaults.")));
	mu = PG_GETARG_FLOAT8(1);
	sigma = PG_GETARG_FLOAT8(2);
	/* the two-argument aggregate takes the seed's settings */
	max_w = PG_NARGS() > 3 ? PG_GETARG_FLOAT8(3) : 2.0;
	med_w = PG_NARGS() > 3 ? PG_GETARG_FLOAT8(4) : 1.0;
	dev = PG_NARGS() > 3 ? PG_GETARG_FLOAT8(5) : 3.0;
	mm_check_finite(mu, "mu");
	mm_check_positive(sigma, "sigma");
	party_check(max_w, med_w, dev);
	if (!PG_ARGISNULL(0))
	{
		n = party_read(PG_GETARG_ARRAYTYPE_P(0), &old);
		if (old[0] != max_w || old[1] != med_w || old[2] != dev)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("party_rating_agg settings must be the same for every row of a party"),
					 errhint("Pass constants for max_mu_weight, med_mu_weight and ordinal_deviations.")));
	}
	v = palloc(sizeof(double) * (Max(n, PARTY_HEAD) + 2));
	if (n == 0)
	{
		v[0] = max_w;
		v[1] = med_w;
		v[2] = dev;
		n = PARTY_HEAD;
	}
	else
		memcpy(v, old, sizeof(double) * n);
	v[n] = mu;
	v[n + 1] = sigma;
	PG_RETURN_ARRAYTYPE_P(party_state(n + 2, v));
}

PG_FUNCTION_INFO_V1(mm_party_rating_combine);

/* Combine two partial states (parallel aggregation). */
Datum
mm_party_rating_combine(PG_FUNCTION_ARGS)
{
	double	   *a,
			   *b,
			   *v;
	int			na,
				nb;

	if (PG_ARGISNULL(0))
	{
		if (PG_ARGISNULL(1))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(1));
	}
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	na = party_read(PG_GETARG_ARRAYTYPE_P(0), &a);
	nb = party_read(PG_GETARG_ARRAYTYPE_P(1), &b);
	if (a[0] != b[0] || a[1] != b[1] || a[2] != b[2])
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("party_rating_agg settings must be the same for every row of a party")));
	v = palloc(sizeof(double) * (na + nb - PARTY_HEAD));
	memcpy(v, a, sizeof(double) * na);
	memcpy(v + na, b + PARTY_HEAD, sizeof(double) * (nb - PARTY_HEAD));
	PG_RETURN_ARRAYTYPE_P(party_state(na + nb - PARTY_HEAD, v));
}

PG_FUNCTION_INFO_V1(mm_party_rating_final);

/* Final: the party rating of the accumulated members. */
Datum
mm_party_rating_final(PG_FUNCTION_ARGS)
{
	double	   *v,
			   *mu,
			   *sigma;
	int			n,
				k;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	n = party_read(PG_GETARG_ARRAYTYPE_P(0), &v);
	k = (n - PARTY_HEAD) / 2;
	if (k == 0)
		PG_RETURN_NULL();
	mu = palloc(sizeof(double) * k);
	sigma = palloc(sizeof(double) * k);
	for (int i = 0; i < k; i++)
	{
		mu[i] = v[PARTY_HEAD + 2 * i];
		sigma[i] = v[PARTY_HEAD + 2 * i + 1];
		mm_check_finite(mu[i], "mu");
		mm_check_positive(sigma[i], "sigma");
	}
	party_check(v[0], v[1], v[2]);
	PG_RETURN_FLOAT8(mm_check_result(party_rating(k, mu, sigma, v[0], v[1], v[2]),
									 "party rating"));
}

/* Seconds in an interval, as EXTRACT(EPOCH FROM interval) counts them. */
static double
interval_seconds(const Interval *iv)
{
	return iv->time / 1e6 + (double) iv->day * SECS_PER_DAY +
		(double) (iv->month / MONTHS_PER_YEAR) * DAYS_PER_YEAR * SECS_PER_DAY +
		(double) (iv->month % MONTHS_PER_YEAR) * DAYS_PER_MONTH * SECS_PER_DAY;
}

PG_FUNCTION_INFO_V1(mm_musigma_beta);

/* mm.musigma_beta(waited interval, max_beta float8, buckets int, bucket_duration interval) */
Datum
mm_musigma_beta(PG_FUNCTION_ARGS)
{
	double		waited = interval_seconds(PG_GETARG_INTERVAL_P(0));
	double		max_beta = PG_GETARG_FLOAT8(1);
	int32		buckets = PG_GETARG_INT32(2);
	double		d = interval_seconds(PG_GETARG_INTERVAL_P(3));
	int32		i = 1;

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
	/* bucket i + 1 starts at d * i^2 */
	while (i < buckets && d * (double) i * (double) i <= waited)
		i++;
	PG_RETURN_FLOAT8(max_beta * i / buckets);
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
				 errhint("Scores are in [0, 1]; 0.5 is the seed's starting value.")));
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
