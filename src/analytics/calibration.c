/*-------------------------------------------------------------------------
 *
 * calibration.c
 *		How well predictions of wins match what happened:
 *		mm.calibration(probability, outcome [, bins]) aggregate -> jsonb
 *		{n, brier, log_loss, accuracy, bins: [{bin, lo, hi, n, predicted,
 *		observed}]}; and the IMS beta tuning line,
 *		mm.ims_beta(delta, favoured_won) aggregate -> jsonb {n, slope,
 *		intercept, beta}.
 *
 * Brier score: mean (p - y)^2. Log loss: mean -(y log p + (1 - y)
 * log(1 - p)) with p clipped to [1e-15, 1 - 1e-15]. Accuracy: the share
 * of predictions whose likelier side happened (p > 0.5 and y = 1, or
 * p < 0.5 and y = 0; p = 0.5 or a draw counts one half). Reliability: per
 * bin of predicted probability, the count, the mean prediction and the
 * observed frequency.
 *
 * The IMS matchmaker documentation's beta tuning: for each match, the
 * rating delta between the teams and 1 if the favoured (higher rated) team
 * won, else 0; the least-squares line of that scatter; beta is the delta
 * at which the line reaches 0.8.
 *
 * Both aggregates keep a float8[] state that their final and combine
 * functions check before use.
 *
 *-------------------------------------------------------------------------
 */
#include "analytics.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "common/shortest_dec.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "lib/stringinfo.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

/* State layout: [bins, n, sq, ll, acc, then per bin: n, sum p, sum y]. */
#define CAL_HEAD 5
#define CAL_LEN(bins) (CAL_HEAD + 3 * (bins))

void
mm_calibration_check_bins(int bins)
{
	if (bins < 1 || bins > MM_CALIBRATION_MAX_BINS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bins must be between 1 and %d", MM_CALIBRATION_MAX_BINS),
				 errdetail("The value is %d.", bins)));
}

void
mm_calibration_init(MmCalibration *c, int bins)
{
	mm_calibration_check_bins(bins);
	c->bins = bins;
	c->n = c->sq = c->ll = c->acc = 0.0;
	c->bin_n = palloc0(sizeof(double) * bins);
	c->bin_p = palloc0(sizeof(double) * bins);
	c->bin_y = palloc0(sizeof(double) * bins);
}

static void
calibration_check_pair(double p, double y)
{
	if (isnan(p) || p < 0.0 || p > 1.0)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("probability must be between 0 and 1"),
				 errdetail("The value is %g.", p)));
	if (isnan(y) || y < 0.0 || y > 1.0)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("outcome must be between 0 and 1"),
				 errdetail("The value is %g.", y),
				 errhint("Give 1 when the event happened, 0 when not, 0.5 for a draw.")));
}

void
mm_calibration_add(MmCalibration *c, double p, double y)
{
	double		q = Min(Max(p, MM_CALIBRATION_EPS), 1.0 - MM_CALIBRATION_EPS);
	int			b = (int) floor(p * c->bins);

	calibration_check_pair(p, y);
	if (b >= c->bins)
		b = c->bins - 1;
	c->n += 1.0;
	c->sq += (p - y) * (p - y);
	/* for y 0 or 1 the other term is exactly -0, so it is not computed */
	if (y == 1.0)
		c->ll -= log(q);
	else if (y == 0.0)
		c->ll -= log(1.0 - q);
	else
		c->ll -= y * log(q) + (1.0 - y) * log(1.0 - q);
	c->acc += p > 0.5 ? y : (p < 0.5 ? 1.0 - y : 0.5);
	c->bin_n[b] += 1.0;
	c->bin_p[b] += p;
	c->bin_y[b] += y;
}

/* A float8 in the shortest text that reads back the same. */
static void
append_double(StringInfo buf, double x)
{
	char		s[DOUBLE_SHORTEST_DECIMAL_LEN];

	double_to_shortest_decimal_buf(x, s);
	appendStringInfoString(buf, s);
}

Jsonb *
mm_calibration_jsonb(const MmCalibration *c)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfo(&buf, "{\"n\": %.0f", c->n);
	if (c->n > 0)
	{
		appendStringInfoString(&buf, ", \"brier\": ");
		append_double(&buf, c->sq / c->n);
		appendStringInfoString(&buf, ", \"log_loss\": ");
		append_double(&buf, c->ll / c->n);
		appendStringInfoString(&buf, ", \"accuracy\": ");
		append_double(&buf, c->acc / c->n);
	}
	else
		appendStringInfoString(&buf, ", \"brier\": null, \"log_loss\": null, \"accuracy\": null");
	appendStringInfoString(&buf, ", \"bins\": [");
	for (int b = 0; b < c->bins; b++)
	{
		appendStringInfo(&buf, "%s{\"bin\": %d, \"lo\": ", b ? ", " : "", b + 1);
		append_double(&buf, (double) b / c->bins);
		appendStringInfoString(&buf, ", \"hi\": ");
		append_double(&buf, (double) (b + 1) / c->bins);
		appendStringInfo(&buf, ", \"n\": %.0f, \"predicted\": ", c->bin_n[b]);
		if (c->bin_n[b] > 0)
		{
			append_double(&buf, c->bin_p[b] / c->bin_n[b]);
			appendStringInfoString(&buf, ", \"observed\": ");
			append_double(&buf, c->bin_y[b] / c->bin_n[b]);
		}
		else
			appendStringInfoString(&buf, "null, \"observed\": null");
		appendStringInfoChar(&buf, '}');
	}
	appendStringInfoString(&buf, "]}");
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(buf.data)));
}

/* Aggregate states */

/* The values of a state array of len elements, checked for shape. */
static double *
state_values(ArrayType *a, const char *what, int *len)
{
	if (ARR_NDIM(a) != 1 || ARR_HASNULL(a) || ARR_ELEMTYPE(a) != FLOAT8OID ||
		ARR_LBOUND(a)[0] != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid %s state", what),
				 errdetail("A state is a one-dimensional float8[] without NULLs.")));
	*len = ARR_DIMS(a)[0];
	return (double *) ARR_DATA_PTR(a);
}

static ArrayType *
state_make(int len)
{
	double	   *zero = palloc0(sizeof(double) * Max(len, 1));

	return DatumGetArrayTypeP(mm_float8_array_datum(len, zero, NULL));
}

static void
state_invalid(const char *what, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid %s state", what),
			 errdetail("%s", detail)));
}

/* Check a calibration state and view it as an MmCalibration. */
static void
calibration_view(ArrayType *a, MmCalibration *c)
{
	int			len;
	double	   *s = state_values(a, "calibration", &len);
	double		total = 0.0;

	if (len < CAL_HEAD || s[0] != floor(s[0]) || s[0] < 1 ||
		s[0] > MM_CALIBRATION_MAX_BINS || len != CAL_LEN((int) s[0]))
		state_invalid("calibration", "The state's length does not match its number of bins.");
	c->bins = (int) s[0];
	c->n = s[1];
	c->sq = s[2];
	c->ll = s[3];
	c->acc = s[4];
	c->bin_n = s + CAL_HEAD;
	c->bin_p = s + CAL_HEAD + c->bins;
	c->bin_y = s + CAL_HEAD + 2 * c->bins;
	for (int i = 1; i < len; i++)
		if (!isfinite(s[i]) || s[i] < 0)
			state_invalid("calibration", "Every sum is finite and not negative.");
	for (int b = 0; b < c->bins; b++)
	{
		if (c->bin_n[b] != floor(c->bin_n[b]) || c->bin_p[b] > c->bin_n[b] ||
			c->bin_y[b] > c->bin_n[b])
			state_invalid("calibration", "A bin's sums exceed its count.");
		total += c->bin_n[b];
	}
	if (total != c->n || c->sq > c->n || c->acc > c->n)
		state_invalid("calibration", "The bins' counts do not add up to the total.");
}

PG_FUNCTION_INFO_V1(mm_calibration_step);

/* Transition: (state, probability, outcome [, bins]); NULL pairs are skipped. */
Datum
mm_calibration_step(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext;
	ArrayType  *state;
	MmCalibration c;
	int			bins = 10;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("calibration_step must be called as an aggregate transition")));
	if (PG_NARGS() > 3)
	{
		if (PG_ARGISNULL(3))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("bins must not be NULL")));
		bins = PG_GETARG_INT32(3);
		mm_calibration_check_bins(bins);
	}
	if (PG_ARGISNULL(0))
	{
		MemoryContext old = MemoryContextSwitchTo(aggcontext);

		state = state_make(CAL_LEN(bins));
		((double *) ARR_DATA_PTR(state))[0] = bins;
		MemoryContextSwitchTo(old);
	}
	else
		state = PG_GETARG_ARRAYTYPE_P(0);
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
		PG_RETURN_ARRAYTYPE_P(state);
	calibration_view(state, &c);
	if (c.bins != bins)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bins must be the same in every row"),
				 errdetail("The group has %d bins and also %d.", c.bins, bins)));
	/* the state lives in the aggregate's context: update it in place */
	mm_calibration_add(&c, PG_GETARG_FLOAT8(1), PG_GETARG_FLOAT8(2));
	((double *) ARR_DATA_PTR(state))[1] = c.n;
	((double *) ARR_DATA_PTR(state))[2] = c.sq;
	((double *) ARR_DATA_PTR(state))[3] = c.ll;
	((double *) ARR_DATA_PTR(state))[4] = c.acc;
	PG_RETURN_ARRAYTYPE_P(state);
}

PG_FUNCTION_INFO_V1(mm_calibration_combine);

Datum
mm_calibration_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext;
	MmCalibration a,
				b;
	ArrayType  *r;
	double	   *s;
	int			len;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("calibration_combine must be called as an aggregate combine function")));
	if (PG_ARGISNULL(0))
		PG_RETURN_DATUM(PG_ARGISNULL(1) ? (Datum) 0 : PG_GETARG_DATUM(1));
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	calibration_view(PG_GETARG_ARRAYTYPE_P(0), &a);
	calibration_view(PG_GETARG_ARRAYTYPE_P(1), &b);
	if (a.bins != b.bins)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bins must be the same in every row"),
				 errdetail("The group has %d bins and also %d.", a.bins, b.bins)));
	r = DatumGetArrayTypePCopy(PG_GETARG_DATUM(0));
	s = state_values(r, "calibration", &len);
	s[1] = a.n + b.n;
	s[2] = a.sq + b.sq;
	s[3] = a.ll + b.ll;
	s[4] = a.acc + b.acc;
	for (int i = 0; i < a.bins; i++)
	{
		s[CAL_HEAD + i] += b.bin_n[i];
		s[CAL_HEAD + a.bins + i] += b.bin_p[i];
		s[CAL_HEAD + 2 * a.bins + i] += b.bin_y[i];
	}
	PG_RETURN_ARRAYTYPE_P(r);
}

PG_FUNCTION_INFO_V1(mm_calibration_final);

Datum
mm_calibration_final(PG_FUNCTION_ARGS)
{
	MmCalibration c;

	if (PG_ARGISNULL(0))
	{
		mm_calibration_init(&c, 10);
		PG_RETURN_JSONB_P(mm_calibration_jsonb(&c));
	}
	calibration_view(PG_GETARG_ARRAYTYPE_P(0), &c);
	PG_RETURN_JSONB_P(mm_calibration_jsonb(&c));
}

/*
 * IMS beta tuning. State [n, mean x, mean y, Sxx, Sxy] (Welford's running
 * means and co-moments; Chan's rule to combine).
 */
#define IMS_LEN 5

static double *
ims_view(ArrayType *a)
{
	int			len;
	double	   *s = state_values(a, "ims_beta", &len);

	if (len != IMS_LEN)
		state_invalid("ims_beta", "A state has 5 elements.");
	for (int i = 0; i < IMS_LEN; i++)
		if (!isfinite(s[i]))
			state_invalid("ims_beta", "Every element is finite.");
	if (s[0] < 0 || s[0] != floor(s[0]) || s[3] < 0 || (s[0] == 0 && (s[1] != 0 || s[2] != 0 || s[3] != 0 || s[4] != 0)))
		state_invalid("ims_beta", "The count is a whole number, Sxx is not negative, an empty state is all zeros.");
	return s;
}

PG_FUNCTION_INFO_V1(mm_ims_beta_step);

/*
 * Transition: (state, delta, favoured_won). A negative delta is the other
 * team's view: it counts as delta -delta with the outcome reversed.
 */
Datum
mm_ims_beta_step(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext;
	ArrayType  *state;
	double	   *s;
	double		x,
				y,
				dx;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ims_beta_step must be called as an aggregate transition")));
	if (PG_ARGISNULL(0))
	{
		MemoryContext old = MemoryContextSwitchTo(aggcontext);

		state = state_make(IMS_LEN);
		MemoryContextSwitchTo(old);
	}
	else
		state = PG_GETARG_ARRAYTYPE_P(0);
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
		PG_RETURN_ARRAYTYPE_P(state);
	s = ims_view(state);
	x = PG_GETARG_FLOAT8(1);
	y = PG_GETARG_BOOL(2) ? 1.0 : 0.0;
	mm_check_finite(x, "delta");
	if (x < 0)
	{
		x = -x;
		y = 1.0 - y;
	}
	s[0] += 1.0;
	dx = x - s[1];
	s[1] += dx / s[0];
	s[2] += (y - s[2]) / s[0];
	s[3] += dx * (x - s[1]);
	s[4] += dx * (y - s[2]);
	PG_RETURN_ARRAYTYPE_P(state);
}

PG_FUNCTION_INFO_V1(mm_ims_beta_combine);

Datum
mm_ims_beta_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext;
	double	   *a,
			   *b;
	double		r[IMS_LEN];
	double		n,
				dx,
				dy;
	ArrayType  *out;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ims_beta_combine must be called as an aggregate combine function")));
	if (PG_ARGISNULL(0))
		PG_RETURN_DATUM(PG_ARGISNULL(1) ? (Datum) 0 : PG_GETARG_DATUM(1));
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	a = ims_view(PG_GETARG_ARRAYTYPE_P(0));
	b = ims_view(PG_GETARG_ARRAYTYPE_P(1));
	n = a[0] + b[0];
	if (n == 0)
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	dx = b[1] - a[1];
	dy = b[2] - a[2];
	r[0] = n;
	r[1] = a[1] + dx * b[0] / n;
	r[2] = a[2] + dy * b[0] / n;
	r[3] = a[3] + b[3] + dx * dx * a[0] * b[0] / n;
	r[4] = a[4] + b[4] + dx * dy * a[0] * b[0] / n;
	out = state_make(IMS_LEN);
	memcpy(ARR_DATA_PTR(out), r, sizeof(r));
	PG_RETURN_ARRAYTYPE_P(out);
}

PG_FUNCTION_INFO_V1(mm_ims_beta_final);

/* {n, slope, intercept, beta}: beta is the delta where the line reaches 0.8. */
Datum
mm_ims_beta_final(PG_FUNCTION_ARGS)
{
	StringInfoData buf;
	double		empty[IMS_LEN] = {0, 0, 0, 0, 0};
	double	   *s = PG_ARGISNULL(0) ? empty : ims_view(PG_GETARG_ARRAYTYPE_P(0));

	initStringInfo(&buf);
	if (s[0] < 2 || s[3] == 0)
		appendStringInfo(&buf, "{\"n\": %.0f, \"slope\": null, \"intercept\": null, \"beta\": null}",
						 s[0]);
	else
	{
		double		slope = s[4] / s[3];
		double		intercept = s[2] - slope * s[1];

		appendStringInfo(&buf, "{\"n\": %.0f, \"slope\": ", s[0]);
		append_double(&buf, slope);
		appendStringInfoString(&buf, ", \"intercept\": ");
		append_double(&buf, intercept);
		appendStringInfoString(&buf, ", \"beta\": ");
		if (slope > 0)
			append_double(&buf, (0.8 - intercept) / slope);
		else
			appendStringInfoString(&buf, "null");
		appendStringInfoChar(&buf, '}');
	}
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(buf.data)));
}

/* Fitting */

#define FIT_MAX_ITERATIONS 200

/* The values tried so far and their figures. */
typedef struct FitTrials
{
	int			n;
	int			max;
	double	   *value;
	MmCalibration *cal;			/* figures only: no bins kept */
} FitTrials;

/* Evaluate one value and keep its figures; returns its log loss (NaN: no games). */
static double
fit_try(FitTrials *t, double value, MmFitEval eval, void *arg, MemoryContext evalcxt)
{
	MemoryContext old;
	MmCalibration c;

	CHECK_FOR_INTERRUPTS();
	old = MemoryContextSwitchTo(evalcxt);
	eval(arg, value, &c);
	MemoryContextSwitchTo(old);
	MemoryContextReset(evalcxt);
	if (t->n == t->max)
	{
		t->max *= 2;
		t->value = repalloc(t->value, sizeof(double) * t->max);
		t->cal = repalloc(t->cal, sizeof(MmCalibration) * t->max);
	}
	t->value[t->n] = value;
	c.bins = 0;
	c.bin_n = c.bin_p = c.bin_y = NULL;
	t->cal[t->n] = c;
	t->n++;
	return c.n > 0 ? c.ll / c.n : get_float8_nan();
}

/* Golden-section comparison: NaN (no games) counts as worst. */
static inline bool
fit_less(double a, double b)
{
	return !isnan(a) && (isnan(b) || a < b);
}

void
mm_fit_search(FunctionCallInfo fcinfo, int grid_arg, int lo_arg, int hi_arg,
			  int iter_arg, MmFitEval eval, void *arg)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MemoryContext evalcxt = AllocSetContextCreate(CurrentMemoryContext, "mm fit evaluation",
												  ALLOCSET_DEFAULT_SIZES);
	FitTrials	t;
	int			best = -1;

	t.n = 0;
	t.max = 16;
	t.value = palloc(sizeof(double) * t.max);
	t.cal = palloc(sizeof(MmCalibration) * t.max);
	if (PG_ARGISNULL(iter_arg))
		mm_null_arg("iterations");
	if (!PG_ARGISNULL(grid_arg))
	{
		double	   *grid;
		int			n = mm_float8_array(PG_GETARG_ARRAYTYPE_P(grid_arg), "grid", &grid);

		if (!PG_ARGISNULL(lo_arg) || !PG_ARGISNULL(hi_arg))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("give either a grid or lo and hi"),
					 errhint("A grid is searched value by value; lo and hi by golden-section search.")));
		if (n == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("grid must hold at least one value")));
		for (int i = 0; i < n; i++)
			fit_try(&t, grid[i], eval, arg, evalcxt);
	}
	else
	{
		const double phi = (1.0 + sqrt(5.0)) / 2.0;
		double		a,
					b,
					c,
					d,
					fc,
					fd;
		int			iterations;

		if (PG_ARGISNULL(lo_arg) || PG_ARGISNULL(hi_arg))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("give a grid, or lo and hi for a golden-section search")));
		a = PG_GETARG_FLOAT8(lo_arg);
		b = PG_GETARG_FLOAT8(hi_arg);
		mm_check_finite(a, "lo");
		mm_check_finite(b, "hi");
		if (!(a < b))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("golden-section search needs lo < hi"),
					 errdetail("lo is %g, hi is %g.", a, b),
					 errhint("Or give a grid of values to try.")));
		iterations = PG_GETARG_INT32(iter_arg);
		if (iterations < 0 || iterations > FIT_MAX_ITERATIONS)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("iterations must be between 0 and %d", FIT_MAX_ITERATIONS),
					 errdetail("The value is %d.", iterations)));
		c = b - (b - a) / phi;
		d = a + (b - a) / phi;
		fc = fit_try(&t, c, eval, arg, evalcxt);
		fd = fit_try(&t, d, eval, arg, evalcxt);
		for (int i = 0; i < iterations; i++)
		{
			if (fit_less(fc, fd))
			{
				b = d;
				d = c;
				fd = fc;
				c = b - (b - a) / phi;
				fc = fit_try(&t, c, eval, arg, evalcxt);
			}
			else
			{
				a = c;
				c = d;
				fc = fd;
				d = a + (b - a) / phi;
				fd = fit_try(&t, d, eval, arg, evalcxt);
			}
		}
	}
	MemoryContextDelete(evalcxt);

	for (int i = 0; i < t.n; i++)
		if (t.cal[i].n > 0 &&
			(best < 0 || t.cal[i].ll / t.cal[i].n < t.cal[best].ll / t.cal[best].n))
			best = i;
	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < t.n; i++)
	{
		const MmCalibration *c = &t.cal[i];
		Datum		values[7];
		bool		nulls[7] = {false};

		values[0] = Int32GetDatum(i + 1);
		values[1] = Float8GetDatum(t.value[i]);
		values[2] = Float8GetDatum(c->n > 0 ? c->ll / c->n : 0);
		values[3] = Float8GetDatum(c->n > 0 ? c->sq / c->n : 0);
		values[4] = Float8GetDatum(c->n > 0 ? c->acc / c->n : 0);
		nulls[2] = nulls[3] = nulls[4] = !(c->n > 0);
		values[5] = Int64GetDatum((int64) c->n);
		values[6] = BoolGetDatum(i == best);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}
