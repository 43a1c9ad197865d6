/*-------------------------------------------------------------------------
 *
 * glicko2_policy.c
 *		The GW2 rating policy (the Guild Wars 2 wiki's PvP matchmaking page,
 *		"Ratings"): the Ratings, Rating, Deviation and Volatility elements
 *		become a jsonb object whose keys are their attributes in snake_case,
 *		with the GW2 wiki's values as defaults; its key table, checks, and
 *		the reset instant read as ISO 8601.
 *
 *-------------------------------------------------------------------------
 */
#include "glicko2.h"

#include <math.h>

#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/float.h"
#include "utils/timestamp.h"

/* Policy parsing */

/* Name the policy key whose text a type input function is reading. */
static void
policy_key_context(void *arg)
{
	errcontext("policy key \"%s\"", (const char *) arg);
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
TimestampTz
mm_g2_parse_timestamptz(const char *text)
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

#define PK(field) offsetof(Glicko2Policy, field)
#define RANGE_KEY(key, field, lo, hi, d, u, text) \
	{.name = (key), .type = MM_CONFIG_FLOAT, .offset = PK(field), \
	 .min = (lo), .max = (hi), .def = (d), .unit = (u), .doc = (text)}
#define POSITIVE_KEY(key, field, hi, d, u, text) \
	{.name = (key), .type = MM_CONFIG_FLOAT, .flags = MM_CONFIG_MIN_EXCLUSIVE, \
	 .offset = PK(field), .min = 0, .max = (hi), .def = (d), .unit = (u), \
	 .doc = (text)}

/* The policy's keys: the Guild Wars 2 wiki's rating configuration. */
static const MmConfigKey policy_rating_keys[] = {
	RANGE_KEY("default", rating_default, -1e9, 1e9, 1500, "rating",
			  "a new player's rating"),
	RANGE_KEY("min", rating_min, -1e9, 1e9, 100, "rating",
			  "smallest rating a game or idle growth can give"),
	RANGE_KEY("max", rating_max, -1e9, 1e9, 5000, "rating",
			  "largest rating a game can give"),
	{.name = "max_change", .type = MM_CONFIG_FLOAT,
		.flags = MM_CONFIG_NULLABLE | MM_CONFIG_MIN_EXCLUSIVE,
		.offset = PK(rating_max_change), .null_offset = PK(rating_max_change_null),
		.min = 0, .max = 1e9, .def = 300, .unit = "rating",
	.doc = "largest change of rating in one period (null: no limit)"},
	RANGE_KEY("profession_ratio", profession_ratio, 0, 1, 0, NULL,
			  "weight of the profession rating in mm.glicko2_blend"),
	{.name = NULL}
};

static const MmConfigKey policy_deviation_keys[] = {
	POSITIVE_KEY("default", deviation_default, 1e9, 350, "rating",
				 "a new player's rating deviation"),
	POSITIVE_KEY("min", deviation_min, 1e9, 30, "rating",
				 "smallest deviation"),
	POSITIVE_KEY("max", deviation_max, 1e9, 350, "rating",
				 "largest deviation, reached by idle growth"),
	{.name = NULL}
};

static const MmConfigKey policy_volatility_keys[] = {
	POSITIVE_KEY("default", volatility_default, 100, 0.06, NULL,
				 "a new player's volatility"),
	POSITIVE_KEY("min", volatility_min, 100, 0.04, NULL, "smallest volatility"),
	POSITIVE_KEY("max", volatility_max, 100, 0.08, NULL, "largest volatility"),
	{.name = "system_constant", .type = MM_CONFIG_FLOAT,
		.flags = MM_CONFIG_MIN_EXCLUSIVE | MM_CONFIG_GIVEN,
		.offset = PK(system_constant), .given_offset = PK(system_constant_set),
		.min = 0, .max = 100, .def = GLICKO2_TAU,
	.doc = "Glickman's tau; when given, a tau argument must agree with it"},
	{.name = NULL}
};

static const MmConfigKey policy_keys[] = {
	{.name = "period", .type = MM_CONFIG_DURATION,
		.flags = MM_CONFIG_MIN_EXCLUSIVE | MM_CONFIG_GIVEN, .offset = PK(period),
		.given_offset = PK(period_set),
		.min = 0, .max = 1e10, .def = 3 * SECS_PER_DAY, .def_text = "3d",
		.unit = "s",
	.doc = "length of a rating period (seconds, or an interval without months)"},
	{.name = "max_periods", .type = MM_CONFIG_INT, .flags = MM_CONFIG_NULLABLE,
		.offset = PK(max_periods), .null_offset = PK(max_periods_null),
		.min = 1, .max = 1e9, .def = 20, .unit = "periods",
	.doc = "idle periods for the deviation to go from min to max (null: Glickman's growth)"},
	{.name = "reset", .type = MM_CONFIG_TEXT, .flags = MM_CONFIG_NULLABLE,
		.offset = PK(reset), .null_offset = PK(reset_null), .def_text = GW2_RESET,
	.doc = "instant (ISO 8601 with its UTC offset) before which ratings count as never played (null: none)"},
	{.name = "rating", .type = MM_CONFIG_OBJECT, .keys = policy_rating_keys},
	{.name = "deviation", .type = MM_CONFIG_OBJECT, .keys = policy_deviation_keys},
	{.name = "volatility", .type = MM_CONFIG_OBJECT, .keys = policy_volatility_keys},
	{.name = NULL}
};

#undef POSITIVE_KEY
#undef RANGE_KEY
#undef PK

static void glicko2_policy_check(void *base, const char *what);

const MmConfigKind mm_policy_config_kind = {
	.kind = "policy", .what = "policy", .keys = policy_keys,
	.size = sizeof(Glicko2Policy), .check = glicko2_policy_check
};

/* Fill a policy from jsonb (NULL gives the Guild Wars 2 wiki's defaults) and check it. */
void
mm_g2_policy_parse(Jsonb *json, Glicko2Policy *pol)
{
	mm_config_read(&mm_policy_config_kind, json, pol);
}

/* The checks between keys, and the reset instant. */
static void
glicko2_policy_check(void *base, const char *what)
{
	Glicko2Policy *pol = base;

	(void) what;
	policy_check_range("rating", pol->rating_min, pol->rating_default, pol->rating_max);
	policy_check_range("deviation", pol->deviation_min, pol->deviation_default, pol->deviation_max);
	policy_check_range("volatility", pol->volatility_min, pol->volatility_default, pol->volatility_max);
	if (!pol->reset_null)
	{
		ErrorContextCallback cb;

		cb.callback = policy_key_context;
		cb.arg = (void *) "reset";
		cb.previous = error_context_stack;
		error_context_stack = &cb;
		(void) mm_g2_parse_timestamptz(pol->reset);
		error_context_stack = cb.previous;
	}
}

/*
 * The tau to use: the argument, which must agree with the policy's
 * volatility.system_constant when the policy sets one. A NaN argument
 * means "not given" (replay's NULL): the policy's, else 0.5.
 */
double
mm_g2_resolve_tau(double tau, const Glicko2Policy *pol)
{
	bool		given = !isnan(tau);

	if (given)
		mm_check_positive(tau, "tau");
	if (pol != NULL && pol->system_constant_set)
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
