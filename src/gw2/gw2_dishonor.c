/*-------------------------------------------------------------------------
 *
 * gw2_dishonor.c
 *		GW2 dishonor (the Guild Wars 2 wiki's PvP matchmaking page, "Dishonor"): penalties by reason, stacks that
 *		decay over time, and timeouts that grow with the stacks.
 *
 * applyDishonor (the Guild Wars 2 wiki's PvP matchmaking page):
 *		stacks += penalty.stacks
 *		timeout += roundInterval(stacks ^ timeout_exponent * timeout_duration,
 *								 timeout_rounding)
 *		roundInterval(v, i) = max(i, round(v / i) * i)
 *
 * Readings where the GW2 wiki page is silent (README, section gw2):
 *	- Stacks decay one at a time: a player loses one stack for every full
 *	  stack_duration that passes while they have any, so n stacks are gone
 *	  n * stack_duration after the last penalty at the latest. A new penalty
 *	  keeps the clock of the stack currently expiring (the clock starts at
 *	  the penalty when the player had no stacks).
 *	- The timeout is added to max(at, current timeout end): time already
 *	  served is not credited to a new penalty.
 *	- round() rounds halves up; stacks saturate at 2147483647; a timeout
 *	  that would end past the last representable timestamp ends at
 *	  'infinity' (a permanent ban).
 *
 *-------------------------------------------------------------------------
 */
#include "gw2.h"

#include <limits.h>
#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "datatype/timestamp.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"
#include "utils/timestamp.h"

/* The <Dishonor> configuration, durations in seconds. */
typedef struct MmDishonorConfig
{
	MmDuration	stack_duration; /* > 0: how long one stack lasts */
	MmDuration	timeout_duration;	/* > 0: timeout per stack^exponent */
	double		timeout_exponent;	/* >= 0 */
	MmDuration	timeout_rounding;	/* > 0: rounding and minimum timeout */
	int			npenalties;
	char	  **reasons;		/* <Penalty reason=...> in snake_case */
	int		   *stacks;			/* <Penalty stacks=...> */
} MmDishonorConfig;

/* Largest exponent accepted. */
#define MM_DISHONOR_MAX_EXPONENT 10.0

/* The default penalties: <Penalty reason="Abandon" stacks="10"/> and so on. */
static void
penalties_defaults(MmDishonorConfig *cfg)
{
	cfg->npenalties = 3;
	cfg->reasons = palloc(sizeof(char *) * 3);
	cfg->stacks = palloc(sizeof(int) * 3);
	cfg->reasons[0] = "abandon";
	cfg->stacks[0] = 10;
	cfg->reasons[1] = "queue_dodge";
	cfg->stacks[1] = 4;
	cfg->reasons[2] = "banned";
	cfg->stacks[2] = 1000000;
}

/* Add one penalty (jsonb keeps one value per key). */
static void
penalty_add(MmDishonorConfig *cfg, const char *reason, int stacks)
{
	cfg->reasons = repalloc(cfg->reasons, sizeof(char *) * (cfg->npenalties + 1));
	cfg->stacks = repalloc(cfg->stacks, sizeof(int) * (cfg->npenalties + 1));
	cfg->reasons[cfg->npenalties] = pstrdup(reason);
	cfg->stacks[cfg->npenalties] = stacks;
	cfg->npenalties++;
}

/*
 * Read the "penalties" object: reason -> stacks (a non-negative integer).
 * When given, it is the complete list of reasons (it replaces the default
 * list, as "matrix" does in the ladder config), so that a resolved config
 * reads back the same.
 */
static void
penalties_parse(JsonbValue *pv, void *base, const char *what, const char *path)
{
	MmDishonorConfig *cfg = base;
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	char	   *reason = NULL;

	(void) what;
	(void) path;
	if (pv == NULL)
	{
		penalties_defaults(cfg);
		return;
	}
	if (pv->type != jbvBinary || !JsonContainerIsObject(pv->val.binary.data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dishonor config key \"penalties\" must be an object"),
				 errhint("Map each reason to its stacks, e.g. {\"abandon\": 10}.")));
	cfg->npenalties = 0;
	it = JsonbIteratorInit(pv->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY)
		{
			reason = pnstrdup(v.val.string.val, v.val.string.len);
			if (reason[0] == '\0')
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("dishonor config key \"penalties\" has an empty reason"),
						 errhint("Name each reason, e.g. \"abandon\".")));
		}
		else if (tok == WJB_VALUE)
		{
			double		d;

			if (v.type != jbvNumeric)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("dishonor config key \"penalties.%s\" must be an integer", reason),
						 errhint("Give the stacks the reason adds.")));
			d = DatumGetFloat8(DirectFunctionCall1(numeric_float8,
												   NumericGetDatum(v.val.numeric)));
			if (d != floor(d) || d < 0 || d > INT_MAX)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("dishonor config key \"penalties.%s\" is out of range", reason),
						 errdetail("The value is %g.", d),
						 errhint("Stacks must be an integer from 0 to %d.", INT_MAX)));
			penalty_add(cfg, reason, (int) d);
		}
	}
}

/* Append the penalties object. */
static void
penalties_render(StringInfo buf, const void *base)
{
	const MmDishonorConfig *cfg = base;

	appendStringInfoChar(buf, '{');
	for (int i = 0; i < cfg->npenalties; i++)
	{
		if (i > 0)
			appendStringInfoString(buf, ", ");
		escape_json(buf, cfg->reasons[i]);
		appendStringInfo(buf, ": %d", cfg->stacks[i]);
	}
	appendStringInfoChar(buf, '}');
}

#define DK(field) offsetof(MmDishonorConfig, field)

/* The dishonor config's keys: the GW2 wiki's <Dishonor> attributes. */
static const MmConfigKey dishonor_keys[] = {
	{.name = "stack_duration", .type = MM_CONFIG_DURATION,
		.flags = MM_CONFIG_MIN_EXCLUSIVE, .offset = DK(stack_duration),
		.min = 0, .max = 1e10, .def = 15 * 60, .def_text = "15m", .unit = "s",
	.doc = "how long one stack lasts"},
	{.name = "timeout_duration", .type = MM_CONFIG_DURATION,
		.flags = MM_CONFIG_MIN_EXCLUSIVE, .offset = DK(timeout_duration),
		.min = 0, .max = 1e10, .def = 30, .def_text = "30s", .unit = "s",
	.doc = "timeout per stack^timeout_exponent"},
	{.name = "timeout_exponent", .type = MM_CONFIG_FLOAT,
		.offset = DK(timeout_exponent), .min = 0, .max = MM_DISHONOR_MAX_EXPONENT,
		.def = 1.5,
	.doc = "exponent of the stacks in the timeout"},
	{.name = "timeout_rounding", .type = MM_CONFIG_DURATION,
		.flags = MM_CONFIG_MIN_EXCLUSIVE, .offset = DK(timeout_rounding),
		.min = 0, .max = 1e10, .def = 60, .def_text = "1m", .unit = "s",
	.doc = "a timeout is rounded to a multiple of it, and is at least it"},
	{.name = "penalties", .type = MM_CONFIG_CUSTOM,
		.parse = penalties_parse, .render = penalties_render,
	.doc = "reason -> stacks it adds; when given, the complete list of reasons"},
	{.name = NULL}
};

#undef DK

const MmConfigKind mm_dishonor_config_kind = {
	.kind = "dishonor", .what = "dishonor config", .keys = dishonor_keys,
	.size = sizeof(MmDishonorConfig)
};

/* Parse a dishonor config (overrides of the defaults; NULL: defaults). */
static void
dishonor_config(Jsonb *config, MmDishonorConfig *cfg)
{
	mm_config_read(&mm_dishonor_config_kind, config, cfg);
}

/* roundInterval: max(interval, round(value / interval) * interval). */
static double
round_interval(double value, double interval)
{
	double		r = floor(value / interval + 0.5) * interval;

	return r > interval ? r : interval;
}

/* Timeout in seconds earned by a player who now has "stacks" stacks. */
static double
dishonor_timeout(int stacks, const MmDishonorConfig *cfg)
{
	return round_interval(pow((double) stacks, cfg->timeout_exponent) *
						  cfg->timeout_duration.seconds, cfg->timeout_rounding.seconds);
}

/* Stacks left of "stacks" after "elapsed" seconds (no decay if negative). */
static int
dishonor_decay(int stacks, double elapsed, const MmDishonorConfig *cfg)
{
	double		gone;

	if (elapsed <= 0.0)
		return stacks;
	gone = floor(elapsed / cfg->stack_duration.seconds);
	return gone >= stacks ? 0 : stacks - (int) gone;
}

/* Stacks a reason adds; unknown reasons are an error. */
static int
dishonor_penalty(const char *reason, const MmDishonorConfig *cfg)
{
	StringInfoData buf;

	for (int i = 0; i < cfg->npenalties; i++)
		if (strcmp(cfg->reasons[i], reason) == 0)
			return cfg->stacks[i];
	if (cfg->npenalties == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown dishonor reason \"%s\"", reason),
				 errhint("The dishonor config has no reasons: add them under \"penalties\".")));
	initStringInfo(&buf);
	for (int i = 0; i < cfg->npenalties; i++)
		appendStringInfo(&buf, "%s%s", i ? ", " : "", cfg->reasons[i]);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown dishonor reason \"%s\"", reason),
			 errhint("Known reasons are: %s (add others under \"penalties\" in the dishonor config).",
					 buf.data)));
	return 0;					/* not reached */
}

/* A player's dishonor: stacks counted from stacks_at, and timeout end. */
typedef struct MmDishonorState
{
	int			stacks;
	bool		has_stacks_at;
	TimestampTz stacks_at;
	bool		has_timeout;
	TimestampTz timeout_until;
} MmDishonorState;

/* Seconds from a to b (both finite). */
static double
seconds_between(TimestampTz a, TimestampTz b)
{
	return ((double) b - (double) a) / USECS_PER_SEC;
}

/* applyDishonor: add a penalty's stacks and timeout at time "at". */
static void
dishonor_apply(MmDishonorState *s, int penalty, TimestampTz at,
			   const MmDishonorConfig *cfg)
{
	int			current;
	double		timeout;
	TimestampTz base;

	/* stacks counted at no time, or at +infinity, have not decayed yet */
	if (!s->has_stacks_at || TIMESTAMP_IS_NOEND(s->stacks_at))
	{
		current = s->stacks;
		s->has_stacks_at = false;
	}
	else if (TIMESTAMP_IS_NOBEGIN(s->stacks_at))
		current = 0;
	else
		current = dishonor_decay(s->stacks,
								 seconds_between(s->stacks_at, at), cfg);
	if (current > 0 && s->has_stacks_at)
	{
		double		gone = s->stacks - current;

		/* keep the clock of the stack that is expiring now */
		s->stacks_at += (TimestampTz) (gone * cfg->stack_duration.seconds * USECS_PER_SEC);
	}
	else
		s->stacks_at = at;
	s->has_stacks_at = true;
	s->stacks = current > INT_MAX - penalty ? INT_MAX : current + penalty;

	timeout = dishonor_timeout(s->stacks, cfg);
	base = (s->has_timeout && s->timeout_until > at) ? s->timeout_until : at;
	if (TIMESTAMP_NOT_FINITE(base) ||
		(double) base + timeout * USECS_PER_SEC >= (double) END_TIMESTAMP)
		TIMESTAMP_NOEND(s->timeout_until);
	else
		s->timeout_until = base + (TimestampTz) (timeout * USECS_PER_SEC);
	s->has_timeout = true;
}

/* Build the normalized, complete config as jsonb. */
static Jsonb *
dishonor_config_jsonb(const MmDishonorConfig *cfg)
{
	return mm_config_jsonb(dishonor_keys, cfg);
}

/* Refuse a non-finite "at". */
static void
check_at(TimestampTz at)
{
	if (TIMESTAMP_NOT_FINITE(at))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("at must be a finite timestamp"),
				 errhint("Pass the time the dishonor is given or looked up.")));
}

/* Refuse negative stacks. */
static void
check_stacks(int stacks)
{
	if (stacks < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("stacks must not be negative"),
				 errdetail("The value is %d.", stacks),
				 errhint("Pass the player's dishonor stacks (0 or more).")));
}

/* SQL wrappers */

PG_FUNCTION_INFO_V1(mm_dishonor_config_resolve);

/* mm.dishonor_config_resolve(config jsonb) -> jsonb: complete, checked */
Datum
mm_dishonor_config_resolve(PG_FUNCTION_ARGS)
{
	MmDishonorConfig cfg;

	dishonor_config(PG_GETARG_JSONB_P(0), &cfg);
	PG_RETURN_JSONB_P(dishonor_config_jsonb(&cfg));
}

PG_FUNCTION_INFO_V1(mm_dishonor_timeout);

/* mm.dishonor_timeout(stacks int, config jsonb) -> interval */
Datum
mm_dishonor_timeout(PG_FUNCTION_ARGS)
{
	int			stacks = PG_GETARG_INT32(0);
	MmDishonorConfig cfg;
	double		seconds;
	Interval   *result;

	check_stacks(stacks);
	dishonor_config(PG_GETARG_JSONB_P(1), &cfg);
	seconds = dishonor_timeout(stacks, &cfg);
	if (!(seconds * USECS_PER_SEC < (double) PG_INT64_MAX))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("dishonor timeout is out of range for an interval"),
				 errdetail("The timeout is %g seconds.", seconds),
				 errhint("Lower the stacks, timeout_duration or timeout_exponent.")));
	result = palloc0(sizeof(Interval));
	result->time = (TimeOffset) (seconds * USECS_PER_SEC);
	PG_RETURN_INTERVAL_P(result);
}

PG_FUNCTION_INFO_V1(mm_dishonor_decay);

/* mm.dishonor_decay(stacks int, elapsed interval, config jsonb) -> int */
Datum
mm_dishonor_decay(PG_FUNCTION_ARGS)
{
	int			stacks = PG_GETARG_INT32(0);
	Interval   *elapsed = PG_GETARG_INTERVAL_P(1);
	MmDishonorConfig cfg;
	double		seconds;

	check_stacks(stacks);
	dishonor_config(PG_GETARG_JSONB_P(2), &cfg);
	seconds = mm_interval_seconds(elapsed);
	if (seconds < 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("elapsed must not be negative"),
				 errhint("Pass the time since the stacks were counted.")));
	PG_RETURN_INT32(dishonor_decay(stacks, seconds, &cfg));
}

PG_FUNCTION_INFO_V1(mm_dishonor_penalty);

/* mm.dishonor_penalty(reason text, config jsonb) -> int */
Datum
mm_dishonor_penalty(PG_FUNCTION_ARGS)
{
	MmDishonorConfig cfg;

	dishonor_config(PG_GETARG_JSONB_P(1), &cfg);
	PG_RETURN_INT32(dishonor_penalty(text_to_cstring(PG_GETARG_TEXT_PP(0)), &cfg));
}

PG_FUNCTION_INFO_V1(mm_dishonor_apply);

/*
 * mm.dishonor_apply(stacks int, stacks_at timestamptz,
 *		timeout_until timestamptz, reason text, at timestamptz, config jsonb)
 *		-> (stacks int, stacks_at timestamptz, timeout_until timestamptz)
 *
 * Not strict: stacks_at and timeout_until are NULL for a player without
 * dishonor; every other argument is required.
 */
Datum
mm_dishonor_apply(PG_FUNCTION_ARGS)
{
	MmDishonorState s;
	MmDishonorConfig cfg;
	TimestampTz at;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	if (PG_ARGISNULL(0) || PG_ARGISNULL(3) || PG_ARGISNULL(4) || PG_ARGISNULL(5))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("stacks, reason, at and config must not be NULL"),
				 errhint("Only stacks_at and timeout_until may be NULL (no dishonor yet).")));
	s.stacks = PG_GETARG_INT32(0);
	check_stacks(s.stacks);
	s.has_stacks_at = !PG_ARGISNULL(1);
	s.stacks_at = s.has_stacks_at ? PG_GETARG_TIMESTAMPTZ(1) : 0;
	s.has_timeout = !PG_ARGISNULL(2);
	s.timeout_until = s.has_timeout ? PG_GETARG_TIMESTAMPTZ(2) : 0;
	at = PG_GETARG_TIMESTAMPTZ(4);
	check_at(at);
	dishonor_config(PG_GETARG_JSONB_P(5), &cfg);
	dishonor_apply(&s, dishonor_penalty(text_to_cstring(PG_GETARG_TEXT_PP(3)), &cfg),
				   at, &cfg);

	values[0] = Int32GetDatum(s.stacks);
	values[1] = TimestampTzGetDatum(s.stacks_at);
	values[2] = TimestampTzGetDatum(s.timeout_until);
	PG_RETURN_DATUM(mm_result_row(fcinfo, values, nulls));
}

PG_FUNCTION_INFO_V1(mm_dishonor_current);

/*
 * mm.dishonor_current(stacks int, stacks_at timestamptz, at timestamptz,
 *		config jsonb) -> int: stacks left at "at"
 */
Datum
mm_dishonor_current(PG_FUNCTION_ARGS)
{
	int			stacks = PG_GETARG_INT32(0);
	TimestampTz stacks_at = PG_GETARG_TIMESTAMPTZ(1);
	TimestampTz at = PG_GETARG_TIMESTAMPTZ(2);
	MmDishonorConfig cfg;

	check_stacks(stacks);
	check_at(at);
	dishonor_config(PG_GETARG_JSONB_P(3), &cfg);
	if (TIMESTAMP_NOT_FINITE(stacks_at))
		PG_RETURN_INT32(TIMESTAMP_IS_NOBEGIN(stacks_at) ? 0 : stacks);
	PG_RETURN_INT32(dishonor_decay(stacks, seconds_between(stacks_at, at), &cfg));
}
