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
 * The GW2 rating policy follows the Guild Wars 2 wiki's PvP matchmaking page ("Ratings"): the Ratings,
 * Rating, Deviation and Volatility elements become a jsonb object whose
 * keys are their attributes in snake_case, with the GW2 wiki's values as
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
#include "analytics.h"
#include "replay.h"

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

/* Glickman's recommended defaults, also the Guild Wars 2 wiki's. */
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

/* The GW2 rating policy (the Guild Wars 2 wiki's PvP matchmaking page, "Ratings"). */
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

/* The Guild Wars 2 wiki's values. */
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
	double		dd = 2.0 * d * d;

	/* Deviations and tau so small that their squares underflow. */
	if (dd == 0.0 || tau2 == 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("volatility is out of range"),
				 errdetail("The volatility iteration divides by zero (phi^2 + v + e^x = %g, tau^2 = %g).",
						   d, tau2),
				 errhint("Deviations, volatilities and tau this small are not meaningful.")));
	return ex * (delta2 - phi2 - v - ex) / dd - (x - a) / tau2;
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
	if (!(sums->v_inv > 0.0))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("rating difference is too large for glicko-2"),
				 errdetail("The estimated variance of the rating is infinite (v^-1 = %g).",
						   sums->v_inv),
				 errhint("Ratings far apart (tens of thousands of points) make every outcome certain; check the ratings.")));
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

/* Fill a policy from jsonb (NULL gives the Guild Wars 2 wiki's defaults) and check it. */
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

/* mm.glicko2_effective(player mm.glicko): rating - rd, as GW2 uses it (the Guild Wars 2 wiki's PvP matchmaking page) */
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
 *						at timestamptz, policy jsonb DEFAULT '{}')
 * A rating last updated before the policy's reset (and read after it) is
 * the default; otherwise the deviation grows over the whole periods elapsed.
 * A NULL policy is none, as everywhere: plain Glicko-2 idle growth (no
 * reset, no max_periods rule) over periods of the default length, the
 * period mm.glicko2_replay uses without a policy.
 */
Datum
mm_glicko2_rating_at(PG_FUNCTION_ARGS)
{
	Glicko2Policy pol;
	Glicko2Player p;
	TimestampTz updated_at;
	TimestampTz at;
	double		periods;
	bool		has_policy = !PG_ARGISNULL(3);

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		PG_RETURN_NULL();
	glicko2_policy_parse(has_policy ? PG_GETARG_JSONB_P(3) : NULL, &pol);
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
	if (has_policy && !pol.reset_null)
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
	p = glicko2_player_arg(PG_GETARG_HEAPTUPLEHEADER(0), has_policy ? &pol : NULL, "player");
	periods = floor((at - updated_at) / (double) USECS_PER_SEC / pol.period_seconds);
	PG_RETURN_DATUM(glicko2_player_datum(fcinfo,
										 glicko2_idle(p, periods, has_policy ? &pol : NULL)));
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
	/* a NULL policy is none, and without one there is no ratio */
	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("glicko2_blend needs a policy"),
				 errdetail("The blend is the policy's rating.profession_ratio; a NULL policy is no policy."),
				 errhint("Pass '{}' for the Guild Wars 2 wiki's defaults.")));
	glicko2_policy_parse(PG_GETARG_JSONB_P(2), &pol);
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

/* The largest game count a float8 holds exactly. */
#define G2S_MAX_GAMES 9007199254740992.0
/* Rounding slack of the bounds below. */
#define G2S_SLACK	(1.0 + 1e-9)

static void
glicko2_bad_state(const char *what, const char *why)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s is not a glicko2_period state", what),
			 errdetail("%s.", why),
			 errhint("Pass only states made by mm.glicko2_period's own functions.")));
}

/*
 * Check a state in full and return its values (NULL for the empty state).
 * The functions are callable from SQL, so every invariant is checked: the
 * player's rating is finite, rd, vol and tau are positive, the game count n
 * is a whole number, and the sums are what n games can give: each game adds
 * g^2 E (1 - E) in [0, 1/4] to v^-1 and g (s - E) in [-1, 1] to the other.
 */
static double *
glicko2_state_values(ArrayType *a, const char *what)
{
	double	   *s;

	if (ARR_NDIM(a) == 0 && ARR_ELEMTYPE(a) == FLOAT8OID)
		return NULL;
	if (ARR_NDIM(a) != 1 || ARR_HASNULL(a) || ARR_ELEMTYPE(a) != FLOAT8OID ||
		ARR_DIMS(a)[0] != G2S_LEN || ARR_LBOUND(a)[0] != 1)
		glicko2_bad_state(what, psprintf("A state is a float8[] of %d elements without NULLs, or empty",
										 G2S_LEN));
	s = (double *) ARR_DATA_PTR(a);
	for (int i = 0; i < G2S_LEN; i++)
		if (!isfinite(s[i]))
			glicko2_bad_state(what, "Its values must be finite");
	if (s[1] <= 0.0 || s[2] <= 0.0 || s[3] <= 0.0)
		glicko2_bad_state(what, psprintf("Its rd, vol and tau must be positive (they are %g, %g, %g)",
										 s[1], s[2], s[3]));
	if (s[6] < 0.0 || s[6] != floor(s[6]) || s[6] > G2S_MAX_GAMES)
		glicko2_bad_state(what, psprintf("Its game count must be a whole number (it is %g)", s[6]));
	if (s[4] < 0.0 || s[4] > 0.25 * s[6] * G2S_SLACK ||
		fabs(s[5]) > s[6] * G2S_SLACK)
		glicko2_bad_state(what, psprintf("Its sums %g and %g cannot come from %g games",
										 s[4], s[5], s[6]));
	return s;
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
	a = glicko2_state_make(r);
	glicko2_state_values(a, "the combined state");
	PG_RETURN_ARRAYTYPE_P(a);
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
	sums.v_inv = s[4];
	sums.delta_sum = s[5];
	sums.n = s[6];
	PG_RETURN_DATUM(glicko2_player_datum(fcinfo, glicko2_finish(p, &sums, s[3])));
}

/* Replay of a game history */

/*
 * The replay runs on the streaming replay driver (replay.c) over the games
 * query sorted by played_at, ties in the query's order: the server sorts
 * (spilling to disk past work_mem), the replay keeps only the players.
 */

/* A player's running state (a dynahash entry; the key comes first). */
typedef struct ReplayPlayer
{
	int64		id;
	Glicko2Player r;
	Glicko2Player last;			/* after the player's last game or period */
	Glicko2Player before;		/* period mode: last, when the period began */
	Glicko2Sums sums;
	int64		last_period;	/* period of the last rating (period mode) */
	TimestampTz last_at;		/* time of the last game */
	int64		games;
	bool		touched;		/* has games in the current period */
} ReplayPlayer;

/* A game of the current period kept for the history rows. */
typedef struct ReplayGame
{
	int64		number;
	ReplayPlayer *a;
	ReplayPlayer *b;
	double		score;
	double		expected;
	TimestampTz at;
} ReplayGame;

typedef enum ReplayMode
{
	REPLAY_FINAL,
	REPLAY_HISTORY,
	REPLAY_CALIBRATION
} ReplayMode;

typedef struct Replay
{
	ReplayMode	mode;
	bool		per_game;
	bool		teams;			/* a team history (match key, player, team, rank, time) */
	bool		each;			/* teams: against each opponent, not the composite */
	bool		direct;			/* reading the query as given, not sorted */
	bool		unsorted;		/* direct: a game came before the previous one */
	HTAB	   *players;
	const Glicko2Policy *pol;	/* NULL: plain Glicko-2 */
	Glicko2Policy policy;
	Glicko2Player initial;
	double		tau;
	double		period_usec;
	bool		has_reset;
	TimestampTz reset;
	ReplayPlayer **touched;
	int			ntouched;
	int			maxtouched;
	int64		period;			/* period mode: the current period */
	int64		ngames;
	TimestampTz end;			/* time of the last game */
	ReplayGame *pending;		/* history, period mode: the period's games */
	int			npending;
	int			maxpending;
	ReturnSetInfo *rsinfo;		/* history: where rows go */
	MmCalibration cal;			/* calibration */
} Replay;

static const MmReplayColumn replay_columns[] = {
	{"player_id", MM_REPLAY_WHOLE},
	{"opponent_id", MM_REPLAY_WHOLE},
	{"score", MM_REPLAY_NUMBER},
	{"played_at", MM_REPLAY_TIME},
	{"input order", MM_REPLAY_WHOLE},
};

static const MmReplayColumn replay_team_columns[] = {
	{"player_id", MM_REPLAY_WHOLE},
	{"team", MM_REPLAY_WHOLE},
	{"rank", MM_REPLAY_NUMBER},
	{"played_at", MM_REPLAY_TIME},
	{"input order", MM_REPLAY_WHOLE},
};

/* Look a player up, creating it with the initial rating. */
static ReplayPlayer *
replay_player(Replay *rp, int64 id, TimestampTz at)
{
	bool		found;
	ReplayPlayer *p = hash_search(rp->players, &id, HASH_ENTER, &found);

	if (!found)
	{
		p->r = rp->initial;
		p->last = rp->initial;
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
	p->before = p->last;
	p->touched = true;
	if (rp->ntouched == rp->maxtouched)
	{
		rp->maxtouched *= 2;
		rp->touched = repalloc(rp->touched, sizeof(ReplayPlayer *) * rp->maxtouched);
	}
	rp->touched[rp->ntouched++] = p;
}

/* One history row: a player's view of a game. */
static void
replay_emit(Replay *rp, const ReplayGame *g, bool as_b, Glicko2Player before)
{
	ReplayPlayer *p = as_b ? g->b : g->a;
	ReplayPlayer *o = as_b ? g->a : g->b;
	Datum		values[12];
	bool		nulls[12] = {false};

	values[0] = Int64GetDatum(g->number);
	values[1] = Int64GetDatum(p->id);
	values[2] = Int64GetDatum(o->id);
	values[3] = TimestampTzGetDatum(g->at);
	values[4] = Float8GetDatum(as_b ? 1.0 - g->score : g->score);
	values[5] = Float8GetDatum(as_b ? 1.0 - g->expected : g->expected);
	values[6] = Float8GetDatum(before.rating);
	values[7] = Float8GetDatum(before.rd);
	values[8] = Float8GetDatum(before.vol);
	values[9] = Float8GetDatum(p->r.rating);
	values[10] = Float8GetDatum(p->r.rd);
	values[11] = Float8GetDatum(p->r.vol);
	tuplestore_putvalues(rp->rsinfo->setResult, rp->rsinfo->setDesc, values, nulls);
}

/* Close the current period: rate every player who played in it. */
static void
replay_close_period(Replay *rp)
{
	for (int i = 0; i < rp->ntouched; i++)
	{
		ReplayPlayer *p = rp->touched[i];

		p->r = glicko2_rate_period(p->r, &p->sums, rp->tau, rp->pol);
		p->last = p->r;
		p->sums.v_inv = p->sums.delta_sum = p->sums.n = 0;
		p->last_period = rp->period;
	}
	for (int i = 0; i < rp->npending; i++)
	{
		replay_emit(rp, &rp->pending[i], false, rp->pending[i].a->before);
		replay_emit(rp, &rp->pending[i], true, rp->pending[i].b->before);
	}
	rp->npending = 0;
	for (int i = 0; i < rp->ntouched; i++)
		rp->touched[i]->touched = false;
	rp->ntouched = 0;
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

/* Rate one game on its own (per-game mode). */
static void
replay_game_now(Replay *rp, ReplayGame *g)
{
	ReplayPlayer *a = g->a;
	ReplayPlayer *b = g->b;
	Glicko2Sums sa = {0, 0, 0};
	Glicko2Sums sb = {0, 0, 0};

	if (a->games > 0)
		a->r = glicko2_idle(a->r, replay_idle_periods(rp, a->last_at, g->at), rp->pol);
	if (b->games > 0)
		b->r = glicko2_idle(b->r, replay_idle_periods(rp, b->last_at, g->at), rp->pol);
	g->expected = glicko2_expect(a->r.rating, a->r.rd, b->r.rating, b->r.rd);
	glicko2_accumulate(&sa, a->r.rating, b->r.rating, b->r.rd, g->score);
	glicko2_accumulate(&sb, b->r.rating, a->r.rating, a->r.rd, 1.0 - g->score);
	a->r = glicko2_rate_period(a->r, &sa, rp->tau, rp->pol);
	b->r = glicko2_rate_period(b->r, &sb, rp->tau, rp->pol);
	if (rp->mode == REPLAY_HISTORY)
	{
		replay_emit(rp, g, false, a->last);
		replay_emit(rp, g, true, b->last);
	}
	a->last = a->r;
	b->last = b->r;
}

/* Add one game to the current period (period mode). */
static void
replay_game_in_period(Replay *rp, ReplayGame *g)
{
	ReplayPlayer *a = g->a;
	ReplayPlayer *b = g->b;
	int64		k = replay_period_of(rp, g->at);

	if (rp->ngames > 1 && k != rp->period)
		replay_close_period(rp);
	rp->period = k;
	replay_touch(rp, a, k);
	replay_touch(rp, b, k);
	g->expected = glicko2_expect(a->r.rating, a->r.rd, b->r.rating, b->r.rd);
	glicko2_accumulate(&a->sums, a->r.rating, b->r.rating, b->r.rd, g->score);
	glicko2_accumulate(&b->sums, b->r.rating, a->r.rating, a->r.rd, 1.0 - g->score);
	if (rp->mode == REPLAY_HISTORY)
	{
		if (rp->npending == rp->maxpending)
		{
			rp->maxpending *= 2;
			rp->pending = repalloc_huge(rp->pending, sizeof(ReplayGame) * rp->maxpending);
		}
		rp->pending[rp->npending++] = *g;
	}
}

/* One game from the driver (a match of one row). */
static void
replay_game(void *arg, const MmReplayMatch *m)
{
	Replay	   *rp = arg;
	const MmReplayRow *row = &m->rows[0];
	ReplayGame	g;

	g.number = m->number;
	g.score = row->fval[2];
	g.at = row->ival[3];
	if (rp->ngames > 0 && g.at < rp->end)
	{
		Assert(rp->direct);
		rp->unsorted = true;
		return;
	}
	if (row->ival[0] == row->ival[1])
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a player cannot play against itself"),
				 errdetail("Game " INT64_FORMAT " has player " INT64_FORMAT " on both sides.",
						   row->row, row->ival[0])));
	glicko2_check_game(0, 1, g.score);
	g.a = replay_player(rp, row->ival[0], g.at);
	g.b = replay_player(rp, row->ival[1], g.at);
	rp->ngames = m->number;
	rp->end = g.at;
	if (rp->per_game)
		replay_game_now(rp, &g);
	else
		replay_game_in_period(rp, &g);
	if (rp->mode == REPLAY_CALIBRATION)
	{
		if (g.expected >= 0.5)
			mm_calibration_add(&rp->cal, g.expected, g.score);
		else
			mm_calibration_add(&rp->cal, 1.0 - g.expected, 1.0 - g.score);
	}
	g.a->last_at = g.b->last_at = g.at;
	g.a->games++;
	g.b->games++;
}

/*
 * The teams of a match: team index of each row, and each team's rank and
 * composite opponent (mean rating, root mean square deviation).
 */
typedef struct ReplayTeams
{
	int			n;
	int		   *of;				/* team index of each row */
	int64	   *label;
	double	   *rank;
	double	   *rating;			/* composite rating */
	double	   *rd;				/* composite deviation */
	int		   *size;
} ReplayTeams;

static void
replay_teams_read(const MmReplayMatch *m, ReplayTeams *t)
{
	int			n = m->nrows;

	t->n = 0;
	t->of = palloc(sizeof(int) * n);
	t->label = palloc(sizeof(int64) * n);
	t->rank = palloc(sizeof(double) * n);
	t->rating = palloc0(sizeof(double) * n);
	t->rd = palloc0(sizeof(double) * n);
	t->size = palloc0(sizeof(int) * n);
	for (int i = 0; i < n; i++)
	{
		const MmReplayRow *row = &m->rows[i];
		int			k;

		if (row->ival[3] != m->rows[0].ival[3])
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the rows of a match must have the same played_at"),
					 errdetail("Row " INT64_FORMAT " is played at another time than the first row of its match.",
							   row->row)));
		mm_check_finite(row->fval[2], "rank");
		for (int j = 0; j < i; j++)
			if (m->rows[j].ival[0] == row->ival[0])
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("player " INT64_FORMAT " appears twice in one match", row->ival[0]),
						 errdetail("Row " INT64_FORMAT " repeats the player.", row->row)));
		for (k = 0; k < t->n; k++)
			if (t->label[k] == row->ival[1])
				break;
		if (k == t->n)
		{
			t->label[k] = row->ival[1];
			t->rank[k] = row->fval[2];
			t->n++;
		}
		else if (t->rank[k] != row->fval[2])
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("ranks differ inside team " INT64_FORMAT, row->ival[1]),
					 errdetail("Row " INT64_FORMAT " has rank %g, an earlier row of the team has %g.",
							   row->row, row->fval[2], t->rank[k]),
					 errhint("A rank belongs to a team: give every player of a team the same rank.")));
		t->of[i] = k;
	}
	if (t->n < 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a match needs at least two teams"),
				 errdetail("The match of row " INT64_FORMAT " has one team.", m->rows[0].row)));
}

/*
 * One team match from the driver. Every pair of teams is a game: 1 for the
 * better (lower) rank, 0.5 for a tie. Each player is rated against the
 * composite of each opposing team (its mean rating, root mean square
 * deviation) or against each opposing player, from the ratings before the
 * match (game by game) or before the period.
 */
static void
replay_team_match(void *arg, const MmReplayMatch *m)
{
	Replay	   *rp = arg;
	int			n = m->nrows;
	TimestampTz at = m->rows[0].ival[3];
	ReplayPlayer **p = palloc(sizeof(ReplayPlayer *) * n);
	Glicko2Player *r0 = palloc(sizeof(Glicko2Player) * n);
	Glicko2Sums *sums = palloc0(sizeof(Glicko2Sums) * n);
	ReplayTeams t;

	if (rp->ngames > 0 && at < rp->end)
	{
		Assert(rp->direct);
		rp->unsorted = true;
		return;
	}
	replay_teams_read(m, &t);
	for (int i = 0; i < n; i++)
		p[i] = replay_player(rp, m->rows[i].ival[0], at);
	if (rp->per_game)
	{
		for (int i = 0; i < n; i++)
			if (p[i]->games > 0)
				p[i]->r = glicko2_idle(p[i]->r, replay_idle_periods(rp, p[i]->last_at, at), rp->pol);
	}
	else
	{
		int64		k = replay_period_of(rp, at);

		if (rp->ngames > 0 && k != rp->period)
			replay_close_period(rp);
		rp->period = k;
		for (int i = 0; i < n; i++)
			replay_touch(rp, p[i], k);
	}
	for (int i = 0; i < n; i++)
	{
		r0[i] = p[i]->r;
		t.rating[t.of[i]] += r0[i].rating;
		t.rd[t.of[i]] += r0[i].rd * r0[i].rd;
		t.size[t.of[i]]++;
	}
	for (int k = 0; k < t.n; k++)
	{
		t.rating[k] /= t.size[k];
		t.rd[k] = sqrt(t.rd[k] / t.size[k]);
	}
	for (int i = 0; i < n; i++)
	{
		Glicko2Sums *target = rp->per_game ? &sums[i] : &p[i]->sums;

		for (int k = 0; k < t.n; k++)
		{
			double		score;

			if (k == t.of[i])
				continue;
			score = t.rank[t.of[i]] < t.rank[k] ? 1.0 :
				(t.rank[t.of[i]] == t.rank[k] ? 0.5 : 0.0);
			if (!rp->each)
				glicko2_accumulate(target, r0[i].rating, t.rating[k], t.rd[k], score);
			else
				for (int j = 0; j < n; j++)
					if (t.of[j] == k)
						glicko2_accumulate(target, r0[i].rating, r0[j].rating, r0[j].rd, score);
		}
	}
	for (int i = 0; i < n; i++)
	{
		if (rp->per_game)
		{
			p[i]->r = glicko2_rate_period(r0[i], &sums[i], rp->tau, rp->pol);
			p[i]->last = p[i]->r;
		}
		p[i]->last_at = at;
		p[i]->games++;
	}
	rp->ngames = m->number;
	rp->end = at;
}

/*
 * Read the arguments of a replay function: games text at 0, and period
 * interval, tau float8, policy jsonb, per_game boolean at the positions
 * given (-1: absent, as NULL).
 */
static void
replay_args_at(FunctionCallInfo fcinfo, Replay *rp, int period_arg, int tau_arg,
			   int policy_arg, int per_game_arg)
{
	Glicko2Policy *pol = &rp->policy;
	bool		has_policy = policy_arg >= 0 && !PG_ARGISNULL(policy_arg);

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("games must not be NULL")));
	rp->per_game = per_game_arg >= 0 && !PG_ARGISNULL(per_game_arg) && PG_GETARG_BOOL(per_game_arg);
	glicko2_policy_parse(has_policy ? PG_GETARG_JSONB_P(policy_arg) : NULL, pol);
	rp->pol = has_policy ? pol : NULL;
	rp->tau = glicko2_resolve_tau(tau_arg < 0 || PG_ARGISNULL(tau_arg) ?
								  get_float8_nan() : PG_GETARG_FLOAT8(tau_arg),
								  rp->pol);
	rp->period_usec = pol->period_seconds * USECS_PER_SEC;
	if (period_arg >= 0 && !PG_ARGISNULL(period_arg))
	{
		Interval   *iv = PG_GETARG_INTERVAL_P(period_arg);

		rp->period_usec = iv->time + iv->day * (double) USECS_PER_DAY +
			iv->month * (double) DAYS_PER_MONTH * USECS_PER_DAY;
		if (!(rp->period_usec > 0))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("period must be a positive interval"),
					 errhint("Give an interval such as '3 days'.")));
		if (rp->pol != NULL && pol->period_set &&
			rp->period_usec != pol->period_seconds * USECS_PER_SEC)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("period conflicts with the policy's period"),
					 errdetail("The policy's period is \"%s\".", pol->period),
					 errhint("Pass the same period, or leave period out of the policy.")));
	}
	rp->initial.rating = rp->pol ? pol->rating_default : GLICKO2_CENTRE;
	rp->initial.rd = rp->pol ? pol->deviation_default : 350.0;
	rp->initial.vol = rp->pol ? pol->volatility_default : 0.06;
	rp->has_reset = rp->pol != NULL && !pol->reset_null;
	if (rp->has_reset)
		rp->reset = parse_timestamptz(pol->reset);
}

/* The replay functions' arguments: (games, period, tau, policy, per_game). */
static void
replay_args(FunctionCallInfo fcinfo, Replay *rp)
{
	replay_args_at(fcinfo, rp, 1, 2, 3, 4);
}

/* Run the replay over the games query; the ratings are as of the end. */
static void
replay_run(FunctionCallInfo fcinfo, Replay *rp)
{
	const char *hint = rp->teams ?
		"Give a SELECT returning match key, player_id, team, rank, played_at." :
		"Give a SELECT returning player_id, opponent_id, score, played_at.";
	const char *shape = rp->teams ?
		"5 columns (match key, player_id, team, rank, played_at)" :
		"4 columns (player_id, opponent_id, score, played_at)";
	char	   *query = text_to_cstring(PG_GETARG_TEXT_PP(0));
	MmReplaySpec spec;
	SPIPlanPtr	plan;
	int			ncolumns;
	int			rc;
	HASH_SEQ_STATUS seq;
	ReplayPlayer *p;

	MemoryContext caller = CurrentMemoryContext;

	rp->maxtouched = 1024;
	rp->touched = palloc(sizeof(ReplayPlayer *) * rp->maxtouched);
	rp->maxpending = 1024;
	rp->pending = palloc(sizeof(ReplayGame) * rp->maxpending);

	if ((rc = SPI_connect()) != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed: %s", SPI_result_code_string(rc));
	plan = mm_prepare_rows_query(query, "games", hint);
	if ((ncolumns = mm_replay_query_columns(plan)) != (rp->teams ? 5 : 4))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("games query must return %s", shape),
				 errdetail("It returns %d.", ncolumns)));

	/*
	 * Games are rated in played_at order, ties in the query's order (team
	 * matches: in match key order, then the query's). A games query already
	 * in that order is read as it is; at the first game earlier than the one
	 * before, the replay starts again from a copy of the query that the
	 * server sorts (spilling to disk past work_mem) with the row numbers of
	 * the query's order as the tie-break. Team queries are always sorted:
	 * sorting is what makes the rows of a match consecutive.
	 */
	spec.what = "games";
	spec.shape = shape;
	spec.keyed = rp->teams;
	spec.columns = rp->teams ? replay_team_columns : replay_columns;
	spec.match = rp->teams ? replay_team_match : replay_game;
	spec.arg = rp;
	spec.stop = &rp->unsorted;
	for (rp->direct = !rp->teams;; rp->direct = false)
	{
		/* what outlives the run goes in the caller's context, not SPI's */
		MemoryContext spi = MemoryContextSwitchTo(caller);

		rp->players = mm_replay_players("mm glicko2 replay", sizeof(ReplayPlayer));
		if (rp->mode == REPLAY_CALIBRATION)
			mm_calibration_init(&rp->cal, rp->cal.bins);
		MemoryContextSwitchTo(spi);
		rp->ntouched = rp->npending = 0;
		rp->ngames = rp->period = 0;
		rp->end = 0;
		rp->unsorted = false;
		if (rp->mode == REPLAY_HISTORY)
			tuplestore_clear(rp->rsinfo->setResult);
		if (!rp->direct)
		{
			SPI_freeplan(plan);
			plan = mm_prepare_rows_query(psprintf("SELECT * FROM (SELECT mm_q.*, row_number() OVER () AS mm_input_order "
												  "FROM (%s) mm_q) mm_s ORDER BY %s",
												  query, rp->teams ? "5, 1, 6" : "4, 5"),
										 "games", hint);
		}
		spec.ncolumns = spec.nrequired = rp->direct ? 4 : 5;
		spec.row_column = rp->direct ? -1 : 4;	/* errors name the caller's row */
		mm_replay_run(&spec, plan, &ncolumns);
		if (!rp->unsorted)
			break;
		hash_destroy(rp->players);
	}
	SPI_finish();

	if (rp->ngames == 0)
		return;
	if (rp->per_game)
	{
		/* as of the last game: idle growth for the whole periods since */
		hash_seq_init(&seq, rp->players);
		while ((p = hash_seq_search(&seq)) != NULL)
			p->r = glicko2_idle(p->r, replay_idle_periods(rp, p->last_at, rp->end), rp->pol);
	}
	else
	{
		replay_close_period(rp);
		/* as of the end of the last period: idle growth for those who missed it */
		hash_seq_init(&seq, rp->players);
		while ((p = hash_seq_search(&seq)) != NULL)
			if (rp->period > p->last_period)
				p->r = glicko2_idle(p->r, (double) (rp->period - p->last_period), rp->pol);
	}
}

PG_FUNCTION_INFO_V1(mm_glicko2_replay);

/*
 * mm.glicko2_replay(games text, period interval DEFAULT NULL,
 *					 tau float8 DEFAULT NULL, policy jsonb DEFAULT NULL,
 *					 per_game boolean DEFAULT false)
 * RETURNS TABLE(player_id bigint, rating float8, rd float8, vol float8,
 *				 games bigint, last_played timestamptz), by player_id
 */
Datum
mm_glicko2_replay(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Replay		rp;
	ReplayPlayer **all;
	long		count;

	memset(&rp, 0, sizeof(rp));
	rp.mode = REPLAY_FINAL;
	replay_args(fcinfo, &rp);
	if (PG_NARGS() > 5)
	{
		char	   *opp;

		if (PG_ARGISNULL(5))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("opponents must not be NULL")));
		opp = text_to_cstring(PG_GETARG_TEXT_PP(5));
		if (strcmp(opp, "composite") != 0 && strcmp(opp, "each") != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown opponents \"%s\"", opp),
					 errhint("Use 'composite' (each opposing team as one player) or 'each' (every opposing player).")));
		rp.teams = true;
		rp.each = strcmp(opp, "each") == 0;
	}
	replay_run(fcinfo, &rp);

	InitMaterializedSRF(fcinfo, 0);
	all = (ReplayPlayer **) mm_replay_sorted(rp.players, &count);
	for (long i = 0; i < count; i++)
	{
		ReplayPlayer *p = all[i];
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

PG_FUNCTION_INFO_V1(mm_glicko2_team_replay);

/*
 * mm.glicko2_team_replay(history text, period, tau, policy, per_game,
 *						  opponents text DEFAULT 'composite'): the same
 * result as glicko2_replay, from team matches.
 */
Datum
mm_glicko2_team_replay(PG_FUNCTION_ARGS)
{
	return mm_glicko2_replay(fcinfo);
}

PG_FUNCTION_INFO_V1(mm_glicko2_history);

/*
 * mm.glicko2_history(same arguments as glicko2_replay)
 * RETURNS TABLE(game bigint, player_id bigint, opponent_id bigint,
 *				 played_at timestamptz, score float8, expected float8,
 *				 rating_before, rd_before, vol_before,
 *				 rating_after, rd_after, vol_after float8)
 */
Datum
mm_glicko2_history(PG_FUNCTION_ARGS)
{
	Replay		rp;

	memset(&rp, 0, sizeof(rp));
	rp.mode = REPLAY_HISTORY;
	replay_args(fcinfo, &rp);
	InitMaterializedSRF(fcinfo, 0);
	rp.rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	replay_run(fcinfo, &rp);
	PG_RETURN_NULL();
}

PG_FUNCTION_INFO_V1(mm_glicko2_calibration);

/*
 * mm.glicko2_calibration(same arguments as glicko2_replay, bins int,
 *						  initial_rd float8) -> jsonb; a non-NULL initial_rd
 * replaces the deviation new players start with (the policy's default).
 */
Datum
mm_glicko2_calibration(PG_FUNCTION_ARGS)
{
	Replay		rp;

	memset(&rp, 0, sizeof(rp));
	rp.mode = REPLAY_CALIBRATION;
	replay_args(fcinfo, &rp);
	if (PG_ARGISNULL(5))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("bins must not be NULL")));
	if (!PG_ARGISNULL(6))
	{
		double		rd = PG_GETARG_FLOAT8(6);

		mm_check_positive(rd, "initial_rd");
		if (rp.pol != NULL && (rd < rp.pol->deviation_min || rd > rp.pol->deviation_max))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("initial_rd is outside the policy's deviation range"),
					 errdetail("The value is %g; the policy allows %g to %g.",
							   rd, rp.pol->deviation_min, rp.pol->deviation_max)));
		rp.initial.rd = rd;
	}
	mm_calibration_init(&rp.cal, PG_GETARG_INT32(5));
	replay_run(fcinfo, &rp);
	PG_RETURN_JSONB_P(mm_calibration_jsonb(&rp.cal));
}

/* What glicko2_fit varies, and the replay it runs. */
typedef struct G2Fit
{
	Replay		base;
	FunctionCallInfo fcinfo;	/* for the games query (argument 0) */
	bool		rd;				/* fit the initial rd, not tau */
} G2Fit;

static void
glicko2_fit_eval(void *arg, double value, MmCalibration *out)
{
	G2Fit	   *f = arg;
	Replay		rp = f->base;

	mm_check_positive(value, f->rd ? "rd" : "tau");
	if (f->rd)
		rp.initial.rd = value;
	else
		rp.tau = value;
	mm_calibration_init(&rp.cal, 10);
	replay_run(f->fcinfo, &rp);
	*out = rp.cal;
}

PG_FUNCTION_INFO_V1(mm_glicko2_fit);

/*
 * mm.glicko2_fit(games text, parameter text, grid float8[], lo float8,
 *				  hi float8, iterations int, period interval, per_game boolean)
 */
Datum
mm_glicko2_fit(PG_FUNCTION_ARGS)
{
	G2Fit		f;
	char	   *parameter;

	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("parameter must not be NULL")));
	parameter = text_to_cstring(PG_GETARG_TEXT_PP(1));
	if (strcmp(parameter, "tau") != 0 && strcmp(parameter, "rd") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown parameter \"%s\"", parameter),
				 errhint("Fit tau or rd (the deviation new players start with).")));
	memset(&f, 0, sizeof(f));
	f.base.mode = REPLAY_CALIBRATION;
	replay_args_at(fcinfo, &f.base, 6, -1, -1, 7);
	f.base.pol = NULL;
	f.fcinfo = fcinfo;
	f.rd = strcmp(parameter, "rd") == 0;
	mm_fit_search(fcinfo, 2, 3, 4, 5, glicko2_fit_eval, &f);
	return (Datum) 0;
}
