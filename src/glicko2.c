/*-------------------------------------------------------------------------
 *
 * glicko2.c
 *		Glicko-2 ratings: one rating period per Glickman, the rating-period
 *		aggregate, idle deviation growth, expected scores, the GW2 rating
 *		policy and the replay of a game history.
 *
 * Source: Mark E. Glickman, "Example of the Glicko-2 system" (glicko2.pdf,
 * the 2013/2022 version): steps 1-8, the volatility found by the Illinois
 * (regula falsi) method of step 5 with the "f(C) f(B) <= 0" update. The
 * Glicko scale maps to the Glicko-2 scale by mu = (r - 1500) / 173.7178 and
 * phi = RD / 173.7178 (step 2).
 *
 * The GW2 rating policy follows seed 003 ("Ratings"): the Ratings,
 * Rating, Deviation and Volatility elements become a jsonb object whose
 * keys are their attributes in snake_case, with the seed's values as
 * defaults. Clamps and the maximum change apply after an update; idle
 * growth with max_periods takes a deviation from its minimum to its
 * maximum in max_periods periods:
 *
 *		RD' = min(RD_max, sqrt(RD^2 + t * (RD_max^2 - RD_min^2) / max_periods))
 *
 * (the constant c^2 of Glicko-1's idle growth solved for that condition).
 *
 *-------------------------------------------------------------------------
 */
#include "mm.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "common/shortest_dec.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/float.h"
#include "utils/hsearch.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

/* Glickman's step 2: the Glicko-2 scale. */
#define GLICKO2_SCALE		173.7178
#define GLICKO2_CENTRE		1500.0

/* Step 5: convergence tolerance and an iteration cap. */
#define GLICKO2_EPSILON		1e-7
#define GLICKO2_MAX_ITER	200

/* Glickman's recommended defaults, also seed 003's. */
#define GLICKO2_TAU			0.5

/* A rating on the Glicko scale. */
typedef struct Glicko2Player
{
	double		rating;
	double		rd;
	double		vol;
} Glicko2Player;

/*
 * The sums of steps 3 and 4 over a period's games: v^-1 = sum g^2 E (1-E)
 * and sum g (s - E). They depend only on the player's own (constant)
 * rating and each game, so partial sums add.
 */
typedef struct Glicko2Sums
{
	double		v_inv;
	double		delta_sum;
	double		n;
} Glicko2Sums;

/* The GW2 rating policy (seed 003, "Ratings"). */
typedef struct Glicko2Policy
{
	double		rating_default;
	double		rating_min;
	double		rating_max;
	double		rating_max_change;
	bool		rating_max_change_null;
	double		profession_ratio;
	double		deviation_default;
	double		deviation_min;
	double		deviation_max;
	double		volatility_default;
	double		volatility_min;
	double		volatility_max;
	double		system_constant;	/* NaN when the policy does not set it */
	char	   *period;
	bool		period_set;		/* the policy gives period */
	double		period_seconds;
	int			max_periods;
	bool		max_periods_null;
	char	   *reset;
	bool		reset_null;
} Glicko2Policy;

/* Seed 003's values. */
#define GW2_PERIOD			"3d"
#define GW2_RESET			"2014-02-01 00:00:00+00"

/* Step 3's g(phi). */
static inline double
glicko2_g(double phi)
{
	return 1.0 / sqrt(1.0 + 3.0 * phi * phi / (M_PI * M_PI));
}

/* Step 3's E(mu, mu_j, phi_j). */
static inline double
glicko2_e(double mu, double mu_j, double g_j)
{
	return 1.0 / (1.0 + exp(-g_j * (mu - mu_j)));
}

/* Add one game's terms of steps 3 and 4 to a period's sums. */
static inline void
glicko2_accumulate(Glicko2Sums *sums, double rating, double opp_rating,
				   double opp_rd, double score)
{
	double		mu = (rating - GLICKO2_CENTRE) / GLICKO2_SCALE;
	double		mu_j = (opp_rating - GLICKO2_CENTRE) / GLICKO2_SCALE;
	double		g_j = glicko2_g(opp_rd / GLICKO2_SCALE);
	double		e = glicko2_e(mu, mu_j, g_j);

	sums->v_inv += g_j * g_j * e * (1.0 - e);
	sums->delta_sum += g_j * (score - e);
	sums->n += 1.0;
}

/* Step 5's f(x). */
static inline double
glicko2_f(double x, double delta2, double phi2, double v, double a,
		  double tau2)
{
	double		ex = exp(x);
	double		d = phi2 + v + ex;

	return ex * (delta2 - phi2 - v - ex) / (2.0 * d * d) - (x - a) / tau2;
}

/* Find the new volatility sigma' by the Illinois method (step 5). */
static double
glicko2_volatility(double phi, double sigma, double v, double delta,
				   double tau)
{
	double		phi2 = phi * phi;
	double		delta2 = delta * delta;
	double		tau2 = tau * tau;
	double		a = log(sigma * sigma);
	double		A = a;
	double		B;
	double		fA;
	double		fB;
	int			iter;

	/* Step 5.2: bracket the root. */
	if (delta2 > phi2 + v)
		B = log(delta2 - phi2 - v);
	else
	{
		int			k = 1;

		/* f(a - k tau) grows by at least 1/tau per step: this ends. */
		while (glicko2_f(a - k * tau, delta2, phi2, v, a, tau2) < 0.0)
		{
			k++;
			if (k > 1000000)
				ereport(ERROR,
						(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
						 errmsg("volatility is out of range"),
						 errdetail("The volatility iteration found no bracket.")));
		}
		B = a - k * tau;
	}

	/* Steps 5.3 and 5.4: Illinois iteration until |B - A| <= epsilon. */
	fA = glicko2_f(A, delta2, phi2, v, a, tau2);
	fB = glicko2_f(B, delta2, phi2, v, a, tau2);
	for (iter = 0; fabs(B - A) > GLICKO2_EPSILON && iter < GLICKO2_MAX_ITER; iter++)
	{
		double		C = A + (A - B) * fA / (fB - fA);
		double		fC = glicko2_f(C, delta2, phi2, v, a, tau2);

		if (fC * fB <= 0.0)
		{
			A = B;
			fA = fB;
		}
		else
			fA = fA / 2.0;
		B = C;
		fB = fC;
	}

	/* Step 5.5 */
	return exp(A / 2.0);
}

/*
 * Finish a rating period from its sums: steps 3-8, or only step 6 when the
 * player had no games.
 */
static Glicko2Player
glicko2_finish(Glicko2Player p, const Glicko2Sums *sums, double tau)
{
	double		mu = (p.rating - GLICKO2_CENTRE) / GLICKO2_SCALE;
	double		phi = p.rd / GLICKO2_SCALE;
	double		v;
	double		delta;
	double		sigma_new;
	double		phi_star;
	double		phi_new;
	Glicko2Player r;

	if (sums->n == 0)
	{
		/* A period without games: only the deviation grows (step 6). */
		r.rating = p.rating;
		r.rd = sqrt(phi * phi + p.vol * p.vol) * GLICKO2_SCALE;
		r.vol = p.vol;
		return r;
	}

	/* Steps 3 and 4 */
	v = 1.0 / sums->v_inv;
	delta = v * sums->delta_sum;
	if (!isfinite(v) || !isfinite(delta))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("rating difference is too large for glicko-2"),
				 errdetail("The estimated variance of the rating is infinite (v^-1 = %g).",
						   sums->v_inv),
				 errhint("Ratings far apart (tens of thousands of points) make every outcome certain; check the ratings.")));

	/* Step 5 */
	sigma_new = glicko2_volatility(phi, p.vol, v, delta, tau);

	/* Steps 6 and 7 */
	phi_star = sqrt(phi * phi + sigma_new * sigma_new);
	phi_new = 1.0 / sqrt(1.0 / (phi_star * phi_star) + 1.0 / v);
	mu = mu + phi_new * phi_new * sums->delta_sum;

	/* Step 8 */
	r.rating = mm_check_result(GLICKO2_SCALE * mu + GLICKO2_CENTRE, "rating");
	r.rd = mm_check_result(GLICKO2_SCALE * phi_new, "rd");
	r.vol = mm_check_result(sigma_new, "vol");
	return r;
}

/* Expected score of a player against an opponent (step 3's E, with RDs combined). */
static double
glicko2_expect(double rating, double rd, double opp_rating, double opp_rd)
{
	double		phi = rd / GLICKO2_SCALE;
	double		phi_j = opp_rd / GLICKO2_SCALE;

	return glicko2_e((rating - GLICKO2_CENTRE) / GLICKO2_SCALE,
					 (opp_rating - GLICKO2_CENTRE) / GLICKO2_SCALE,
					 glicko2_g(sqrt(phi * phi + phi_j * phi_j)));
}

static inline double
clamp(double x, double lo, double hi)
{
	return x < lo ? lo : (x > hi ? hi : x);
}

/*
 * Grow a deviation over t idle periods: Glickman's step 6 applied t times
 * (phi^2 + t sigma^2), or with a policy that sets max_periods the GW2 rule
 * of this file's header; with a policy the result is clamped to its range.
 */
static Glicko2Player
glicko2_idle(Glicko2Player p, double t, const Glicko2Policy *pol)
{
	Glicko2Player r = p;

	if (t <= 0)
		return r;
	if (pol != NULL && !pol->max_periods_null)
	{
		double		c2 = (pol->deviation_max * pol->deviation_max -
						  pol->deviation_min * pol->deviation_min) / pol->max_periods;

		r.rd = fmin(pol->deviation_max, sqrt(p.rd * p.rd + t * c2));
	}
	else
		r.rd = sqrt(p.rd * p.rd + t * p.vol * p.vol * GLICKO2_SCALE * GLICKO2_SCALE);
	if (pol != NULL)
		r.rd = clamp(r.rd, pol->deviation_min, pol->deviation_max);
	r.rd = mm_check_result(r.rd, "rd");
	return r;
}

/*
 * Apply a policy after an update from "before" to "after" over n games:
 * the change is limited to max_change per game, then rating, deviation and
 * volatility are clamped to their ranges.
 */
static Glicko2Player
glicko2_policy_apply(Glicko2Player before, Glicko2Player after, double n,
					 const Glicko2Policy *pol)
{
	Glicko2Player r = after;

	if (!pol->rating_max_change_null && n > 0)
	{
		double		limit = pol->rating_max_change * n;

		r.rating = clamp(r.rating, before.rating - limit, before.rating + limit);
	}
	r.rating = clamp(r.rating, pol->rating_min, pol->rating_max);
	r.rd = clamp(r.rd, pol->deviation_min, pol->deviation_max);
	r.vol = clamp(r.vol, pol->volatility_min, pol->volatility_max);
	return r;
}

/* Rate one period with a policy (or none): idle rule, finish, clamps. */
static Glicko2Player
glicko2_rate_period(Glicko2Player p, const Glicko2Sums *sums, double tau,
					const Glicko2Policy *pol)
{
	if (pol == NULL)
		return glicko2_finish(p, sums, tau);
	if (sums->n == 0)
		return glicko2_policy_apply(p, glicko2_idle(p, 1, pol), 0, pol);
	return glicko2_policy_apply(p, glicko2_finish(p, sums, tau), sums->n, pol);
}

/* Policy parsing */

/* Name the policy key whose text a type input function is reading. */
static void
policy_key_context(void *arg)
{
	errcontext("policy key \"%s\"", (const char *) arg);
}

/* Parse an interval text into seconds (months count 30 days, as PostgreSQL does). */
static double
interval_seconds(const char *text)
{
	Interval   *iv = DatumGetIntervalP(DirectFunctionCall3(interval_in,
														   CStringGetDatum(text),
														   ObjectIdGetDatum(InvalidOid),
														   Int32GetDatum(-1)));

	return iv->time / (double) USECS_PER_SEC +
		iv->day * (double) SECS_PER_DAY +
		iv->month * (double) DAYS_PER_MONTH * SECS_PER_DAY;
}

/* Read exactly n ASCII digits at *s into *out; advance *s. */
static bool
read_digits(const char **s, int n, int *out)
{
	*out = 0;
	for (int i = 0; i < n; i++)
	{
		if ((*s)[i] < '0' || (*s)[i] > '9')
			return false;
		*out = *out * 10 + ((*s)[i] - '0');
	}
	*s += n;
	return true;
}

/* Read "+HH", "+HH:MM", "+HHMM" (or '-') or "Z" at s: seconds west of UTC. */
static bool
read_utc_offset(const char *s, int *tz)
{
	int			sign,
				hh,
				mm = 0;

	if (*s == 'Z' || *s == 'z')
	{
		*tz = 0;
		return s[1] == '\0';
	}
	if (*s != '+' && *s != '-')
		return false;
	sign = *s++ == '+' ? 1 : -1;
	if (!read_digits(&s, 2, &hh) || hh > 15)
		return false;
	if (*s == ':' && s[1] == '\0')
		return false;			/* "+05:" */
	if (*s == ':')
		s++;
	if (*s != '\0' && (!read_digits(&s, 2, &mm) || mm > 59))
		return false;
	/* PostgreSQL counts time zone offsets in seconds west of Greenwich */
	*tz = -sign * (hh * SECS_PER_HOUR + mm * SECS_PER_MINUTE);
	return *s == '\0';
}

/*
 * Parse a timestamp with an explicit UTC offset in ISO 8601 form,
 * "YYYY-MM-DD{T| }HH:MM[:SS[.ffffff]]{Z|+HH[:MM]|-HH[:MM]}", or return false.
 */
static bool
parse_iso_timestamptz(const char *s, TimestampTz *result)
{
	struct pg_tm tm;
	fsec_t		fsec = 0;
	int			tz;

	memset(&tm, 0, sizeof(tm));
	if (!read_digits(&s, 4, &tm.tm_year) || *s++ != '-' ||
		!read_digits(&s, 2, &tm.tm_mon) || *s++ != '-' ||
		!read_digits(&s, 2, &tm.tm_mday) || (*s != 'T' && *s != 't' && *s != ' '))
		return false;
	s++;
	if (!read_digits(&s, 2, &tm.tm_hour) || *s++ != ':' ||
		!read_digits(&s, 2, &tm.tm_min))
		return false;
	if (*s == ':')
	{
		s++;
		if (!read_digits(&s, 2, &tm.tm_sec))
			return false;
		if (*s == '.')
		{
			int			scale = USECS_PER_SEC;

			s++;
			if (*s < '0' || *s > '9')
				return false;
			for (; *s >= '0' && *s <= '9'; s++)
			{
				if (scale == 1)
					return false;	/* more than microseconds */
				scale /= 10;
				fsec += (*s - '0') * scale;
			}
		}
	}
	if (!read_utc_offset(s, &tz))
		return false;
	if (tm.tm_year < 1 || tm.tm_mon < 1 || tm.tm_mon > MONTHS_PER_YEAR ||
		tm.tm_mday < 1 || tm.tm_mday > day_tab[isleap(tm.tm_year)][tm.tm_mon - 1] ||
		tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 59)
		return false;
	return tm2timestamp(&tm, fsec, &tz, result) == 0;
}

/*
 * Parse the policy's "reset". Only ISO 8601 with an explicit UTC offset is
 * taken: timestamptz_in's other forms read differently under another
 * DateStyle ("01/02/2014") or TimeZone (no offset), or depend on the clock
 * ("now"), and the functions that read a policy are IMMUTABLE.
 */
static TimestampTz
parse_timestamptz(const char *text)
{
	TimestampTz result;

	if (!parse_iso_timestamptz(text, &result))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_DATETIME_FORMAT),
				 errmsg("policy key \"reset\" must be an ISO 8601 timestamp with a UTC offset"),
				 errdetail("The value is \"%s\".", text),
				 errhint("Write it as \"2014-02-01 00:00:00+00\" or \"2014-02-01T00:00:00Z\"; null means no reset.")));
	return result;
}

/* Check that a policy block has min <= default <= max. */
static void
policy_check_range(const char *block, double min, double def, double max)
{
	if (min > max || def < min || def > max)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("policy keys \"%s.min\", \"%s.default\" and \"%s.max\" are inconsistent",
						block, block, block),
				 errdetail("min is %g, default %g, max %g.", min, def, max),
				 errhint("Each range needs min <= default <= max.")));
}

/* Fill a policy from jsonb (NULL gives seed 003's defaults) and check it. */
static void
glicko2_policy_parse(Jsonb *json, Glicko2Policy *pol)
{
#define FKEY(n, t, lo, hi, excl, isn) \
	{.name = (n), .type = MM_CONFIG_FLOAT, .target = (t), .min = (lo), \
	 .max = (hi), .min_exclusive = (excl), .isnull = (isn)}
	MmConfigKey rating_keys[] = {
		FKEY("default", &pol->rating_default, -1e9, 1e9, false, NULL),
		FKEY("min", &pol->rating_min, -1e9, 1e9, false, NULL),
		FKEY("max", &pol->rating_max, -1e9, 1e9, false, NULL),
		FKEY("max_change", &pol->rating_max_change, 0, 1e9, true,
			 &pol->rating_max_change_null),
		FKEY("profession_ratio", &pol->profession_ratio, 0, 1, false, NULL),
		{.name = NULL}
	};
	MmConfigKey deviation_keys[] = {
		FKEY("default", &pol->deviation_default, 0, 1e9, true, NULL),
		FKEY("min", &pol->deviation_min, 0, 1e9, true, NULL),
		FKEY("max", &pol->deviation_max, 0, 1e9, true, NULL),
		{.name = NULL}
	};
	MmConfigKey volatility_keys[] = {
		FKEY("default", &pol->volatility_default, 0, 100, true, NULL),
		FKEY("min", &pol->volatility_min, 0, 100, true, NULL),
		FKEY("max", &pol->volatility_max, 0, 100, true, NULL),
		FKEY("system_constant", &pol->system_constant, 0, 100, true, NULL),
		{.name = NULL}
	};
#undef FKEY
	MmConfigKey keys[] = {
		{.name = "period", .type = MM_CONFIG_TEXT, .target = &pol->period},
		{.name = "max_periods", .type = MM_CONFIG_INT, .target = &pol->max_periods,
		.min = 1, .max = 1e9, .isnull = &pol->max_periods_null},
		{.name = "reset", .type = MM_CONFIG_TEXT, .target = &pol->reset,
		.isnull = &pol->reset_null},
		{.name = "rating", .type = MM_CONFIG_OBJECT, .keys = rating_keys},
		{.name = "deviation", .type = MM_CONFIG_OBJECT, .keys = deviation_keys},
		{.name = "volatility", .type = MM_CONFIG_OBJECT, .keys = volatility_keys},
		{.name = NULL}
	};

	pol->rating_default = 1500;
	pol->rating_min = 100;
	pol->rating_max = 5000;
	pol->rating_max_change = 300;
	pol->rating_max_change_null = false;
	pol->profession_ratio = 0;
	pol->deviation_default = 350;
	pol->deviation_min = 30;
	pol->deviation_max = 350;
	pol->volatility_default = 0.06;
	pol->volatility_min = 0.04;
	pol->volatility_max = 0.08;
	pol->system_constant = get_float8_nan();
	pol->period = NULL;
	pol->max_periods = 20;
	pol->max_periods_null = false;
	pol->reset = pstrdup(GW2_RESET);
	pol->reset_null = false;

	mm_config_parse(json, "policy", keys);
	pol->period_set = pol->period != NULL;
	if (!pol->period_set)
		pol->period = pstrdup(GW2_PERIOD);

	policy_check_range("rating", pol->rating_min, pol->rating_default, pol->rating_max);
	policy_check_range("deviation", pol->deviation_min, pol->deviation_default, pol->deviation_max);
	policy_check_range("volatility", pol->volatility_min, pol->volatility_default, pol->volatility_max);

	{
		ErrorContextCallback cb;

		cb.callback = policy_key_context;
		cb.arg = (void *) "period";
		cb.previous = error_context_stack;
		error_context_stack = &cb;
		pol->period_seconds = interval_seconds(pol->period);
		if (!pol->reset_null)
		{
			cb.arg = (void *) "reset";
			(void) parse_timestamptz(pol->reset);
		}
		error_context_stack = cb.previous;
	}
	/*
	 * A minus sign reads differently under IntervalStyle sql_standard ("-1
	 * 30:00" is -54 hours there, +6 hours otherwise): refused, so that a
	 * policy means the same in every session.
	 */
	if (!(pol->period_seconds > 0) || strchr(pol->period, '-') != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("policy key \"period\" must be a positive interval"),
				 errdetail("The value is \"%s\".", pol->period),
				 errhint("Give an interval such as \"3d\" or \"12 hours\".")));
}

/*
 * The tau to use: the argument, which must agree with the policy's
 * volatility.system_constant when the policy sets one. A NaN argument
 * means "not given" (replay's NULL): the policy's, else 0.5.
 */
static double
glicko2_resolve_tau(double tau, const Glicko2Policy *pol)
{
	bool		given = !isnan(tau);

	if (given)
		mm_check_positive(tau, "tau");
	if (pol != NULL && !isnan(pol->system_constant))
	{
		if (given && tau != pol->system_constant)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("tau conflicts with the policy's volatility.system_constant"),
					 errdetail("tau is %g, volatility.system_constant is %g.",
							   tau, pol->system_constant),
					 errhint("Pass tau => %g, or leave system_constant out of the policy.",
							 pol->system_constant)));
		return pol->system_constant;
	}
	return given ? tau : GLICKO2_TAU;
}

/* Argument helpers */

/* Read an mm.glicko argument; NULL fields take the defaults. */
static Glicko2Player
glicko2_player_arg(HeapTupleHeader tup, const Glicko2Policy *pol, const char *what)
{
	Glicko2Player p;
	bool		isnull;
	Datum		d;
	char		name[64];

	d = GetAttributeByNum(tup, 1, &isnull);
	p.rating = isnull ? (pol ? pol->rating_default : GLICKO2_CENTRE) : DatumGetFloat8(d);
	d = GetAttributeByNum(tup, 2, &isnull);
	p.rd = isnull ? (pol ? pol->deviation_default : 350.0) : DatumGetFloat8(d);
	d = GetAttributeByNum(tup, 3, &isnull);
	p.vol = isnull ? (pol ? pol->volatility_default : 0.06) : DatumGetFloat8(d);

	snprintf(name, sizeof(name), "%s rating", what);
	mm_check_finite(p.rating, name);
	snprintf(name, sizeof(name), "%s rd", what);
	mm_check_positive(p.rd, name);
	snprintf(name, sizeof(name), "%s vol", what);
	mm_check_positive(p.vol, name);
	return p;
}

/* Build an mm.glicko datum. */
static Datum
glicko2_player_datum(FunctionCallInfo fcinfo, Glicko2Player p)
{
	TupleDesc	tupdesc;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("function returning mm.glicko called in a context that cannot accept it")));
	tupdesc = BlessTupleDesc(tupdesc);
	values[0] = Float8GetDatum(p.rating);
	values[1] = Float8GetDatum(p.rd);
	values[2] = Float8GetDatum(p.vol);
	return HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls));
}

/* Check one game's values. */
static inline void
glicko2_check_game(double opp_rating, double opp_rd, double score)
{
	mm_check_finite(opp_rating, "opp_rating");
	mm_check_positive(opp_rd, "opp_rd");
	mm_check_finite(score, "score");
	if (score < 0.0 || score > 1.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("score must be between 0 and 1"),
				 errdetail("The value is %g.", score),
				 errhint("Use 1 for a win, 0.5 for a draw and 0 for a loss.")));
}

/* SQL wrappers */

PG_FUNCTION_INFO_V1(mm_glicko2_rate);

/*
 * mm.glicko2_rate(player mm.glicko, opp_rating float8[], opp_rd float8[],
 *				   score float8[], tau float8 DEFAULT NULL, policy jsonb DEFAULT NULL)
 * Not strict in tau and policy: a NULL tau is the policy's
 * volatility.system_constant (0.5 without one), a NULL policy means none.
 */
Datum
mm_glicko2_rate(PG_FUNCTION_ARGS)
{
	Glicko2Policy polbuf;
	Glicko2Policy *pol = NULL;
	Glicko2Player p;
	Glicko2Sums sums = {0, 0, 0};
	double	   *opp_rating;
	double	   *opp_rd;
	double	   *score;
	int			n1,
				n2,
				n3;
	double		tau;

	for (int i = 0; i < 4; i++)
		if (PG_ARGISNULL(i))
			PG_RETURN_NULL();
	if (!PG_ARGISNULL(5))
	{
		glicko2_policy_parse(PG_GETARG_JSONB_P(5), &polbuf);
		pol = &polbuf;
	}
	tau = get_float8_nan();		/* not given */
	if (!PG_ARGISNULL(4))
	{
		tau = PG_GETARG_FLOAT8(4);
		mm_check_positive(tau, "tau");
	}
	tau = glicko2_resolve_tau(tau, pol);
	p = glicko2_player_arg(PG_GETARG_HEAPTUPLEHEADER(0), pol, "player");

	n1 = mm_float8_array(PG_GETARG_ARRAYTYPE_P(1), "opp_rating", &opp_rating);
	n2 = mm_float8_array(PG_GETARG_ARRAYTYPE_P(2), "opp_rd", &opp_rd);
	n3 = mm_float8_array(PG_GETARG_ARRAYTYPE_P(3), "score", &score);
	if (n1 != n2 || n1 != n3)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("opp_rating, opp_rd and score must have the same length"),
				 errdetail("The lengths are %d, %d and %d.", n1, n2, n3),
				 errhint("Give one element per game in each array.")));
	for (int i = 0; i < n1; i++)
	{
		glicko2_check_game(opp_rating[i], opp_rd[i], score[i]);
		glicko2_accumulate(&sums, p.rating, opp_rating[i], opp_rd[i], score[i]);
	}
	PG_RETURN_DATUM(glicko2_player_datum(fcinfo, glicko2_rate_period(p, &sums, tau, pol)));
}

PG_FUNCTION_INFO_V1(mm_glicko2_idle);

/* mm.glicko2_idle(player mm.glicko, periods float8, policy jsonb DEFAULT NULL) */
Datum
mm_glicko2_idle(PG_FUNCTION_ARGS)
{
	Glicko2Policy polbuf;
	Glicko2Policy *pol = NULL;
	Glicko2Player p;
	double		periods;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	if (!PG_ARGISNULL(2))
	{
		glicko2_policy_parse(PG_GETARG_JSONB_P(2), &polbuf);
		pol = &polbuf;
	}
	p = glicko2_player_arg(PG_GETARG_HEAPTUPLEHEADER(0), pol, "player");
	periods = PG_GETARG_FLOAT8(1);
	mm_check_nonnegative(periods, "periods");
	PG_RETURN_DATUM(glicko2_player_datum(fcinfo, glicko2_idle(p, periods, pol)));
}

PG_FUNCTION_INFO_V1(mm_glicko2_expect);

/* mm.glicko2_expect(rating, rd, opp_rating, opp_rd) */
Datum
mm_glicko2_expect(PG_FUNCTION_ARGS)
{
	double		rating = PG_GETARG_FLOAT8(0);
	double		rd = PG_GETARG_FLOAT8(1);
	double		opp_rating = PG_GETARG_FLOAT8(2);
	double		opp_rd = PG_GETARG_FLOAT8(3);

	mm_check_finite(rating, "rating");
	mm_check_positive(rd, "rd");
	mm_check_finite(opp_rating, "opp_rating");
	mm_check_positive(opp_rd, "opp_rd");
	PG_RETURN_FLOAT8(glicko2_expect(rating, rd, opp_rating, opp_rd));
}

PG_FUNCTION_INFO_V1(mm_glicko2_effective);

/* mm.glicko2_effective(player mm.glicko): rating - rd, as GW2 uses it (seed 003) */
Datum
mm_glicko2_effective(PG_FUNCTION_ARGS)
{
	Glicko2Player p = glicko2_player_arg(PG_GETARG_HEAPTUPLEHEADER(0), NULL, "player");

	PG_RETURN_FLOAT8(mm_check_result(p.rating - p.rd, "effective rating"));
}

/* Append a float8 as a JSON number, shortest exact form. */
static void
append_number(StringInfo buf, double x)
{
	char		tmp[DOUBLE_SHORTEST_DECIMAL_LEN];

	double_to_shortest_decimal_buf(x, tmp);
	appendStringInfoString(buf, tmp);
}

PG_FUNCTION_INFO_V1(mm_glicko2_policy);

/* mm.glicko2_policy(policy jsonb DEFAULT NULL): the policy with every default filled in */
Datum
mm_glicko2_policy(PG_FUNCTION_ARGS)
{
	Glicko2Policy pol;
	StringInfoData buf;

	glicko2_policy_parse(PG_ARGISNULL(0) ? NULL : PG_GETARG_JSONB_P(0), &pol);
	initStringInfo(&buf);
	appendStringInfoString(&buf, "{\"period\": ");
	escape_json(&buf, pol.period);
	if (pol.max_periods_null)
		appendStringInfoString(&buf, ", \"max_periods\": null");
	else
		appendStringInfo(&buf, ", \"max_periods\": %d", pol.max_periods);
	appendStringInfoString(&buf, ", \"reset\": ");
	if (pol.reset_null)
		appendStringInfoString(&buf, "null");
	else
		escape_json(&buf, pol.reset);
	appendStringInfoString(&buf, ", \"rating\": {\"default\": ");
	append_number(&buf, pol.rating_default);
	appendStringInfoString(&buf, ", \"min\": ");
	append_number(&buf, pol.rating_min);
	appendStringInfoString(&buf, ", \"max\": ");
	append_number(&buf, pol.rating_max);
	appendStringInfoString(&buf, ", \"max_change\": ");
	if (pol.rating_max_change_null)
		appendStringInfoString(&buf, "null");
	else
		append_number(&buf, pol.rating_max_change);
	appendStringInfoString(&buf, ", \"profession_ratio\": ");
	append_number(&buf, pol.profession_ratio);
	appendStringInfoString(&buf, "}, \"deviation\": {\"default\": ");
	append_number(&buf, pol.deviation_default);
	appendStringInfoString(&buf, ", \"min\": ");
	append_number(&buf, pol.deviation_min);
	appendStringInfoString(&buf, ", \"max\": ");
	append_number(&buf, pol.deviation_max);
	appendStringInfoString(&buf, "}, \"volatility\": {\"default\": ");
	append_number(&buf, pol.volatility_default);
	appendStringInfoString(&buf, ", \"min\": ");
	append_number(&buf, pol.volatility_min);
	appendStringInfoString(&buf, ", \"max\": ");
	append_number(&buf, pol.volatility_max);
	appendStringInfoString(&buf, ", \"system_constant\": ");
	append_number(&buf, isnan(pol.system_constant) ? GLICKO2_TAU : pol.system_constant);
	appendStringInfoString(&buf, "}}");
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(buf.data)));
}

PG_FUNCTION_INFO_V1(mm_glicko2_rating_at);

/*
 * mm.glicko2_rating_at(player mm.glicko, updated_at timestamptz,
 *						at timestamptz, policy jsonb DEFAULT NULL)
 * A rating last updated before the policy's reset (and read after it) is
 * the default; otherwise the deviation grows over the whole periods elapsed.
 */
Datum
mm_glicko2_rating_at(PG_FUNCTION_ARGS)
{
	Glicko2Policy pol;
	Glicko2Player p;
	TimestampTz updated_at;
	TimestampTz at;
	double		periods;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		PG_RETURN_NULL();
	glicko2_policy_parse(PG_ARGISNULL(3) ? NULL : PG_GETARG_JSONB_P(3), &pol);
	updated_at = PG_GETARG_TIMESTAMPTZ(1);
	at = PG_GETARG_TIMESTAMPTZ(2);
	if (TIMESTAMP_NOT_FINITE(updated_at) || TIMESTAMP_NOT_FINITE(at))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("updated_at and at must be finite timestamps")));
	if (at < updated_at)
	{
		char	   *from = pstrdup(timestamptz_to_str(updated_at));

		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("at must not be before updated_at"),
				 errdetail("updated_at is %s, at is %s.",
						   from, timestamptz_to_str(at)),
				 errhint("Ask for the rating at or after its last update.")));
	}
	if (!pol.reset_null)
	{
		TimestampTz reset = parse_timestamptz(pol.reset);

		if (updated_at < reset && at >= reset)
		{
			p.rating = pol.rating_default;
			p.rd = pol.deviation_default;
			p.vol = pol.volatility_default;
			PG_RETURN_DATUM(glicko2_player_datum(fcinfo, p));
		}
	}
	p = glicko2_player_arg(PG_GETARG_HEAPTUPLEHEADER(0), &pol, "player");
	periods = floor((at - updated_at) / (double) USECS_PER_SEC / pol.period_seconds);
	PG_RETURN_DATUM(glicko2_player_datum(fcinfo, glicko2_idle(p, periods, &pol)));
}

PG_FUNCTION_INFO_V1(mm_glicko2_blend);

/*
 * mm.glicko2_blend(core mm.glicko, profession mm.glicko, policy jsonb DEFAULT NULL)
 * (1 - ratio) * core + ratio * profession, field by field, with the
 * policy's rating.profession_ratio.
 */
Datum
mm_glicko2_blend(PG_FUNCTION_ARGS)
{
	Glicko2Policy pol;
	Glicko2Player core;
	Glicko2Player prof;
	Glicko2Player r;
	double		w;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	glicko2_policy_parse(PG_ARGISNULL(2) ? NULL : PG_GETARG_JSONB_P(2), &pol);
	core = glicko2_player_arg(PG_GETARG_HEAPTUPLEHEADER(0), &pol, "core");
	prof = glicko2_player_arg(PG_GETARG_HEAPTUPLEHEADER(1), &pol, "profession");
	w = pol.profession_ratio;
	/* exact at the ends: 0 is the core rating, 1 the profession rating */
	if (w == 0.0)
		r = core;
	else if (w == 1.0)
		r = prof;
	else
	{
		r.rating = (1.0 - w) * core.rating + w * prof.rating;
		r.rd = (1.0 - w) * core.rd + w * prof.rd;
		r.vol = (1.0 - w) * core.vol + w * prof.vol;
	}
	PG_RETURN_DATUM(glicko2_player_datum(fcinfo, r));
}

/* The aggregate mm.glicko2_period */

/* State: [rating, rd, vol, tau, sum g^2 E (1-E), sum g (s - E), n] */
#define G2S_LEN 7

static double *
glicko2_state_values(ArrayType *a, const char *what)
{
	if (ARR_NDIM(a) == 0 && ARR_ELEMTYPE(a) == FLOAT8OID)
		return NULL;
	if (ARR_NDIM(a) != 1 || ARR_HASNULL(a) || ARR_ELEMTYPE(a) != FLOAT8OID ||
		ARR_DIMS(a)[0] != G2S_LEN)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s is not a glicko2_period state", what),
				 errdetail("A state is a float8[] of %d elements without NULLs, or empty.", G2S_LEN)));
	return (double *) ARR_DATA_PTR(a);
}

static inline bool
glicko2_state_empty(ArrayType *a)
{
	return ARR_NDIM(a) == 0;
}

static ArrayType *
glicko2_state_make(const double *v)
{
	Datum		d[G2S_LEN];

	for (int i = 0; i < G2S_LEN; i++)
		d[i] = Float8GetDatum(v[i]);
	return construct_array(d, G2S_LEN, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL,
						   TYPALIGN_DOUBLE);
}

static void
glicko2_state_check_player(const double *s, double rating, double rd,
						   double vol, double tau)
{
	if (s[0] != rating || s[1] != rd || s[2] != vol || s[3] != tau)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("glicko2_period needs one player rating per group"),
				 errdetail("The group has rating %g, rd %g, vol %g, tau %g and also %g, %g, %g, %g.",
						   s[0], s[1], s[2], s[3], rating, rd, vol, tau),
				 errhint("Group by player: each player's rating, rd, vol and tau are constant over a rating period.")));
}

PG_FUNCTION_INFO_V1(mm_glicko2_period_step);

/*
 * Transition: (state, rating, rd, vol, opp_rating, opp_rd, score [, tau]).
 * A row whose game columns are all NULL (a LEFT JOIN without games) counts
 * as no game: the player is still rated, for an idle period.
 */
Datum
mm_glicko2_period_step(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext;
	ArrayType  *state;
	double	   *s;
	double		rating,
				rd,
				vol,
				tau;
	bool		game_null;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("glicko2_period_step can only be called as the transition function of mm.glicko2_period")));
	for (int i = 1; i <= 3; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("rating, rd and vol must not be NULL"),
					 errhint("Use the policy's defaults for a new player, e.g. COALESCE(rd, 350).")));
	if (PG_NARGS() > 7 && PG_ARGISNULL(7))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("tau must not be NULL")));
	game_null = PG_ARGISNULL(4) && PG_ARGISNULL(5) && PG_ARGISNULL(6);
	if (!game_null && (PG_ARGISNULL(4) || PG_ARGISNULL(5) || PG_ARGISNULL(6)))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("opp_rating, opp_rd and score must be all NULL or all set"),
				 errhint("A row with all three NULL counts as no game.")));

	rating = PG_GETARG_FLOAT8(1);
	rd = PG_GETARG_FLOAT8(2);
	vol = PG_GETARG_FLOAT8(3);
	tau = PG_NARGS() > 7 ? PG_GETARG_FLOAT8(7) : GLICKO2_TAU;

	state = PG_GETARG_ARRAYTYPE_P(0);
	if (glicko2_state_empty(state))
	{
		double		init[G2S_LEN] = {rating, rd, vol, tau, 0, 0, 0};
		MemoryContext old;

		mm_check_finite(rating, "rating");
		mm_check_positive(rd, "rd");
		mm_check_positive(vol, "vol");
		mm_check_positive(tau, "tau");
		old = MemoryContextSwitchTo(aggcontext);
		state = glicko2_state_make(init);
		MemoryContextSwitchTo(old);
	}
	s = glicko2_state_values(state, "state");
	glicko2_state_check_player(s, rating, rd, vol, tau);
	if (!game_null)
	{
		Glicko2Sums sums = {s[4], s[5], s[6]};
		double		opp_rating = PG_GETARG_FLOAT8(4);
		double		opp_rd = PG_GETARG_FLOAT8(5);
		double		score = PG_GETARG_FLOAT8(6);

		glicko2_check_game(opp_rating, opp_rd, score);
		glicko2_accumulate(&sums, rating, opp_rating, opp_rd, score);
		/* the state was made in aggcontext (by us): update it in place */
		s[4] = sums.v_inv;
		s[5] = sums.delta_sum;
		s[6] = sums.n;
	}
	PG_RETURN_ARRAYTYPE_P(state);
}

PG_FUNCTION_INFO_V1(mm_glicko2_period_combine);

/* Combine two partial states: the same player, sums added. */
Datum
mm_glicko2_period_combine(PG_FUNCTION_ARGS)
{
	ArrayType  *a = PG_GETARG_ARRAYTYPE_P(0);
	ArrayType  *b = PG_GETARG_ARRAYTYPE_P(1);
	double	   *sa;
	double	   *sb;
	double		r[G2S_LEN];

	sa = glicko2_state_values(a, "state");
	sb = glicko2_state_values(b, "state");
	if (glicko2_state_empty(b))
		PG_RETURN_ARRAYTYPE_P(a);
	if (glicko2_state_empty(a))
		PG_RETURN_ARRAYTYPE_P(b);
	glicko2_state_check_player(sa, sb[0], sb[1], sb[2], sb[3]);
	memcpy(r, sa, sizeof(r));
	r[4] += sb[4];
	r[5] += sb[5];
	r[6] += sb[6];
	PG_RETURN_ARRAYTYPE_P(glicko2_state_make(r));
}

PG_FUNCTION_INFO_V1(mm_glicko2_period_final);

/* Final: steps 3-8 from the sums; NULL for no rows. */
Datum
mm_glicko2_period_final(PG_FUNCTION_ARGS)
{
	ArrayType  *state = PG_GETARG_ARRAYTYPE_P(0);
	double	   *s = glicko2_state_values(state, "state");
	Glicko2Player p;
	Glicko2Sums sums;

	if (s == NULL)
		PG_RETURN_NULL();
	p.rating = s[0];
	p.rd = s[1];
	p.vol = s[2];
	mm_check_finite(p.rating, "state rating");
	mm_check_positive(p.rd, "state rd");
	mm_check_positive(p.vol, "state vol");
	mm_check_positive(s[3], "state tau");
	if (!isfinite(s[4]) || !isfinite(s[5]) || s[4] < 0 || s[6] < 0 || s[6] != floor(s[6]))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("state is not a glicko2_period state"),
				 errdetail("Its sums are %g, %g over %g games.", s[4], s[5], s[6])));
	sums.v_inv = s[4];
	sums.delta_sum = s[5];
	sums.n = s[6];
	PG_RETURN_DATUM(glicko2_player_datum(fcinfo, glicko2_finish(p, &sums, s[3])));
}

/* Replay of a game history */

/* One game: player a against player b, a's score. */
typedef struct ReplayGame
{
	TimestampTz at;
	int64		a;
	int64		b;
	double		score;
	int64		seq;			/* input order, to break ties in time */
} ReplayGame;

/* A player's running state (a dynahash entry; the key comes first). */
typedef struct ReplayPlayer
{
	int64		id;
	Glicko2Player r;
	Glicko2Sums sums;
	int64		last_period;	/* period of the last rating (period mode) */
	TimestampTz last_at;		/* time of the last game */
	int64		games;
	bool		touched;		/* has games in the current period */
} ReplayPlayer;

typedef struct Replay
{
	HTAB	   *players;
	const Glicko2Policy *pol;	/* NULL: plain Glicko-2 */
	Glicko2Player initial;
	double		tau;
	double		period_usec;
	bool		has_reset;
	TimestampTz reset;
	ReplayPlayer **touched;
	int			ntouched;
	int			maxtouched;
} Replay;

static int
replay_game_cmp(const void *x, const void *y)
{
	const ReplayGame *a = x;
	const ReplayGame *b = y;

	if (a->at != b->at)
		return a->at < b->at ? -1 : 1;
	return a->seq < b->seq ? -1 : (a->seq > b->seq ? 1 : 0);
}

/* Look a player up, creating it with the initial rating. */
static ReplayPlayer *
replay_player(Replay *rp, int64 id, TimestampTz at)
{
	bool		found;
	ReplayPlayer *p = hash_search(rp->players, &id, HASH_ENTER, &found);

	if (!found)
	{
		p->r = rp->initial;
		p->sums.v_inv = p->sums.delta_sum = p->sums.n = 0;
		p->last_period = -1;
		p->last_at = at;
		p->games = 0;
		p->touched = false;
	}
	else if (rp->has_reset && !p->touched &&
			 p->last_at < rp->reset && at >= rp->reset)
	{
		/* rated before the reset, playing after it: back to the default */
		p->r = rp->initial;
		p->last_period = -1;
	}
	return p;
}

/* Bring a player into the current period k: idle growth for missed periods. */
static void
replay_touch(Replay *rp, ReplayPlayer *p, int64 k)
{
	if (p->touched)
		return;
	if (p->last_period >= 0 && k - p->last_period > 1)
		p->r = glicko2_idle(p->r, (double) (k - p->last_period - 1), rp->pol);
	p->touched = true;
	if (rp->ntouched == rp->maxtouched)
	{
		rp->maxtouched *= 2;
		rp->touched = repalloc(rp->touched, sizeof(ReplayPlayer *) * rp->maxtouched);
	}
	rp->touched[rp->ntouched++] = p;
}

/* Close period k: rate every player who played in it. */
static void
replay_close_period(Replay *rp, int64 k)
{
	for (int i = 0; i < rp->ntouched; i++)
	{
		ReplayPlayer *p = rp->touched[i];

		p->r = glicko2_rate_period(p->r, &p->sums, rp->tau, rp->pol);
		p->sums.v_inv = p->sums.delta_sum = p->sums.n = 0;
		p->last_period = k;
		p->touched = false;
	}
	rp->ntouched = 0;
}

/* Rate one game on its own (per-game mode). */
static void
replay_game_now(Replay *rp, ReplayPlayer *a, ReplayPlayer *b, double score)
{
	Glicko2Sums sa = {0, 0, 0};
	Glicko2Sums sb = {0, 0, 0};

	glicko2_accumulate(&sa, a->r.rating, b->r.rating, b->r.rd, score);
	glicko2_accumulate(&sb, b->r.rating, a->r.rating, a->r.rd, 1.0 - score);
	a->r = glicko2_rate_period(a->r, &sa, rp->tau, rp->pol);
	b->r = glicko2_rate_period(b->r, &sb, rp->tau, rp->pol);
}

/* Idle periods between two times (whole periods elapsed). */
static inline double
replay_idle_periods(Replay *rp, TimestampTz from, TimestampTz to)
{
	return floor((double) (to - from) / rp->period_usec);
}

/*
 * The rating period of a time: periods are windows of the period length
 * counted from the Unix epoch, 1970-01-01 00:00 UTC, as
 * date_bin(period, played_at, '1970-01-01 00:00+00') numbers them.
 */
static inline int64
replay_period_of(Replay *rp, TimestampTz at)
{
	double		since_epoch = (double) at +
	(double) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY;

	return (int64) floor(since_epoch / rp->period_usec);
}

/* Read the games query through a cursor into a growing array. */
static ReplayGame *
replay_read_games(const char *query, int64 *ngames)
{
	SPIPlanPtr	plan;
	Portal		portal;
	ReplayGame *games;
	int64		n = 0;
	int64		max = 1024;
	MemoryContext outer = CurrentMemoryContext;
	int			rc;

	games = MemoryContextAllocHuge(outer, sizeof(ReplayGame) * max);
	if ((rc = SPI_connect()) != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed: %s", SPI_result_code_string(rc));
	plan = mm_prepare_rows_query(query, "games",
								 "Give a SELECT returning player_id bigint, opponent_id bigint, score float8, played_at timestamptz.");
	portal = SPI_cursor_open(NULL, plan, NULL, NULL, true);
	for (;;)
	{
		TupleDesc	desc;

		SPI_cursor_fetch(portal, true, 10000);
		if (SPI_processed == 0)
			break;
		desc = SPI_tuptable->tupdesc;
		if (desc->natts != 4 ||
			SPI_gettypeid(desc, 1) != INT8OID || SPI_gettypeid(desc, 2) != INT8OID ||
			SPI_gettypeid(desc, 3) != FLOAT8OID || SPI_gettypeid(desc, 4) != TIMESTAMPTZOID)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("games query must return player_id bigint, opponent_id bigint, score float8, played_at timestamptz"),
					 errhint("Cast the columns, e.g. SELECT a::bigint, b::bigint, s::float8, t::timestamptz FROM ...")));
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			HeapTuple	tup = SPI_tuptable->vals[i];
			bool		nulls[4];
			Datum		d[4];
			ReplayGame *g;

			for (int c = 0; c < 4; c++)
			{
				d[c] = SPI_getbinval(tup, desc, c + 1, &nulls[c]);
				if (nulls[c])
					ereport(ERROR,
							(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
							 errmsg("games must not contain NULL values"),
							 errdetail("Game %lld has a NULL in column %d.", (long long) (n + 1), c + 1)));
			}
			if (n == max)
			{
				max *= 2;
				games = repalloc_huge(games, sizeof(ReplayGame) * max);
			}
			g = &games[n];
			g->a = DatumGetInt64(d[0]);
			g->b = DatumGetInt64(d[1]);
			g->score = DatumGetFloat8(d[2]);
			g->at = DatumGetTimestampTz(d[3]);
			g->seq = n;
			if (g->a == g->b)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("a player cannot play against itself"),
						 errdetail("Game %lld has player %lld on both sides.",
								   (long long) (n + 1), (long long) g->a)));
			if (TIMESTAMP_NOT_FINITE(g->at))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("played_at must be finite"),
						 errdetail("Game %lld is played at infinity.", (long long) (n + 1))));
			glicko2_check_game(0, 1, g->score);
			n++;
		}
		SPI_freetuptable(SPI_tuptable);
		CHECK_FOR_INTERRUPTS();
	}
	SPI_cursor_close(portal);
	SPI_finish();
	*ngames = n;
	return games;
}

PG_FUNCTION_INFO_V1(mm_glicko2_replay);

/*
 * mm.glicko2_replay(games text, period interval DEFAULT NULL,
 *					 tau float8 DEFAULT NULL, policy jsonb DEFAULT NULL,
 *					 per_game boolean DEFAULT false)
 * RETURNS TABLE(player_id bigint, rating float8, rd float8, vol float8,
 *				 games bigint, last_played timestamptz)
 */
Datum
mm_glicko2_replay(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Glicko2Policy pol;
	Replay		rp;
	HASHCTL		ctl;
	ReplayGame *games;
	int64		ngames;
	bool		per_game;
	HASH_SEQ_STATUS seq;
	ReplayPlayer *p;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("games must not be NULL")));
	per_game = PG_ARGISNULL(4) ? false : PG_GETARG_BOOL(4);

	glicko2_policy_parse(PG_ARGISNULL(3) ? NULL : PG_GETARG_JSONB_P(3), &pol);
	rp.pol = PG_ARGISNULL(3) ? NULL : &pol;
	rp.tau = glicko2_resolve_tau(PG_ARGISNULL(2) ? get_float8_nan() : PG_GETARG_FLOAT8(2),
								 rp.pol);
	rp.period_usec = pol.period_seconds * USECS_PER_SEC;
	if (!PG_ARGISNULL(1))
	{
		Interval   *iv = PG_GETARG_INTERVAL_P(1);

		rp.period_usec = iv->time + iv->day * (double) USECS_PER_DAY +
			iv->month * (double) DAYS_PER_MONTH * USECS_PER_DAY;
		if (!(rp.period_usec > 0))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("period must be a positive interval"),
					 errhint("Give an interval such as '3 days'.")));
		if (rp.pol != NULL && pol.period_set &&
			rp.period_usec != pol.period_seconds * USECS_PER_SEC)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("period conflicts with the policy's period"),
					 errdetail("The policy's period is \"%s\".", pol.period),
					 errhint("Pass the same period, or leave period out of the policy.")));
	}
	rp.initial.rating = rp.pol ? pol.rating_default : GLICKO2_CENTRE;
	rp.initial.rd = rp.pol ? pol.deviation_default : 350.0;
	rp.initial.vol = rp.pol ? pol.volatility_default : 0.06;
	rp.has_reset = rp.pol != NULL && !pol.reset_null;
	if (rp.has_reset)
		rp.reset = parse_timestamptz(pol.reset);

	games = replay_read_games(text_to_cstring(PG_GETARG_TEXT_PP(0)), &ngames);
	if (ngames > 1)
		qsort(games, ngames, sizeof(ReplayGame), replay_game_cmp);

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(int64);
	ctl.entrysize = sizeof(ReplayPlayer);
	ctl.hcxt = CurrentMemoryContext;
	rp.players = hash_create("mm glicko2 replay", 1024, &ctl,
							 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	rp.maxtouched = 1024;
	rp.ntouched = 0;
	rp.touched = palloc(sizeof(ReplayPlayer *) * rp.maxtouched);

	if (per_game)
	{
		for (int64 i = 0; i < ngames; i++)
		{
			ReplayGame *g = &games[i];
			ReplayPlayer *a = replay_player(&rp, g->a, g->at);
			ReplayPlayer *b = replay_player(&rp, g->b, g->at);

			if (a->games > 0)
				a->r = glicko2_idle(a->r, replay_idle_periods(&rp, a->last_at, g->at), rp.pol);
			if (b->games > 0)
				b->r = glicko2_idle(b->r, replay_idle_periods(&rp, b->last_at, g->at), rp.pol);
			replay_game_now(&rp, a, b, g->score);
			a->last_at = b->last_at = g->at;
			a->games++;
			b->games++;
			if ((i & 0xFFF) == 0)
				CHECK_FOR_INTERRUPTS();
		}
		/* as of the last game: idle growth for the whole periods since */
		if (ngames > 0)
		{
			TimestampTz end = games[ngames - 1].at;

			hash_seq_init(&seq, rp.players);
			while ((p = hash_seq_search(&seq)) != NULL)
				p->r = glicko2_idle(p->r, replay_idle_periods(&rp, p->last_at, end), rp.pol);
		}
	}
	else if (ngames > 0)
	{
		int64		k = 0;
		int64		i = 0;

		while (i < ngames)
		{
			k = replay_period_of(&rp, games[i].at);
			for (; i < ngames && replay_period_of(&rp, games[i].at) == k; i++)
			{
				ReplayGame *g = &games[i];
				ReplayPlayer *a = replay_player(&rp, g->a, g->at);
				ReplayPlayer *b = replay_player(&rp, g->b, g->at);

				replay_touch(&rp, a, k);
				replay_touch(&rp, b, k);
				glicko2_accumulate(&a->sums, a->r.rating, b->r.rating, b->r.rd, g->score);
				glicko2_accumulate(&b->sums, b->r.rating, a->r.rating, a->r.rd, 1.0 - g->score);
				a->last_at = b->last_at = g->at;
				a->games++;
				b->games++;
				if ((i & 0xFFF) == 0)
					CHECK_FOR_INTERRUPTS();
			}
			replay_close_period(&rp, k);
		}
		/* as of the end of the last period: idle growth for those who missed it */
		hash_seq_init(&seq, rp.players);
		while ((p = hash_seq_search(&seq)) != NULL)
			if (k > p->last_period)
				p->r = glicko2_idle(p->r, (double) (k - p->last_period), rp.pol);
	}

	InitMaterializedSRF(fcinfo, 0);
	hash_seq_init(&seq, rp.players);
	while ((p = hash_seq_search(&seq)) != NULL)
	{
		Datum		values[6];
		bool		nulls[6] = {false, false, false, false, false, false};

		values[0] = Int64GetDatum(p->id);
		values[1] = Float8GetDatum(p->r.rating);
		values[2] = Float8GetDatum(p->r.rd);
		values[3] = Float8GetDatum(p->r.vol);
		values[4] = Int64GetDatum(p->games);
		values[5] = TimestampTzGetDatum(p->last_at);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	PG_RETURN_NULL();
}
