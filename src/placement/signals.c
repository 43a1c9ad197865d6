/*-------------------------------------------------------------------------
 *
 * signals.c
 *		Roblox server-scoring signals as SQL functions and aggregates.
 *
 * Source: Roblox's matchmaking documentation (the scoring formula: attributes, signals, weights,
 * ServerScore = sum_i Weight_i * SignalScore_i, weights >= 0, a weight of 0
 * drops the signal, numerical signals normalised by a positive factor and
 * clamped to [0, 1]) and Roblox's matchmaking documentation (the existing signals and their
 * constants: age 25, latency 250 ms, play history 4.6; the categorical
 * ratio signals; the eight kinds of custom signals).
 *
 * Readings (docs/architecture.md, "How mm reads its sources"): play history is 1 - min(1, diff / 4.6);
 * a ratio over an empty server (whole = 0) scores 0.
 *
 *-------------------------------------------------------------------------
 */
#include "mm.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

/* Normalizing factors of the built-in numerical signals (Roblox's matchmaking documentation). */
#define MM_AGE_MAX_DIFFERENCE 25.0
#define MM_LATENCY_MAX_MS 250.0
#define MM_PLAY_HISTORY_MAX_DIFFERENCE 4.6

/* Numerical signal: 1 - min(|a - b| / max_relevant_difference, 1). */
static double
numeric_signal(double a, double b, double max_relevant_difference)
{
	double		diff = fabs(a - b) / max_relevant_difference;

	return 1.0 - (diff < 1.0 ? diff : 1.0);
}

/* Ratio signal: part / whole clamped to [0, 1]; an empty whole scores 0. */
static double
ratio_signal(double part, double whole)
{
	double		r;

	if (whole == 0.0)
		return 0.0;
	r = part / whole;
	return r < 0.0 ? 0.0 : (r > 1.0 ? 1.0 : r);
}

/* SQL wrappers */

PG_FUNCTION_INFO_V1(mm_numeric_signal);
PG_FUNCTION_INFO_V1(mm_ratio_signal);
PG_FUNCTION_INFO_V1(mm_age_signal);
PG_FUNCTION_INFO_V1(mm_latency_signal);
PG_FUNCTION_INFO_V1(mm_occupancy_signal);
PG_FUNCTION_INFO_V1(mm_play_history_signal);
PG_FUNCTION_INFO_V1(mm_friends_signal);
PG_FUNCTION_INFO_V1(mm_share_accum);
PG_FUNCTION_INFO_V1(mm_share_combine);
PG_FUNCTION_INFO_V1(mm_share_final);
PG_FUNCTION_INFO_V1(mm_weighted_score_accum);
PG_FUNCTION_INFO_V1(mm_weighted_score_combine);
PG_FUNCTION_INFO_V1(mm_weighted_score_final);

/* Check and compute a numerical signal from SQL arguments. */
static double
numeric_signal_args(double a, double b, double max, const char *what_a,
					const char *what_b)
{
	mm_check_finite(a, what_a);
	mm_check_finite(b, what_b);
	mm_check_positive(max, "max_relevant_difference");
	return numeric_signal(a, b, max);
}

/* mm.numeric_signal(a, b, max_relevant_difference) */
Datum
mm_numeric_signal(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(numeric_signal_args(PG_GETARG_FLOAT8(0),
										 PG_GETARG_FLOAT8(1),
										 PG_GETARG_FLOAT8(2), "a", "b"));
}

/* mm.ratio_signal(part, whole) */
Datum
mm_ratio_signal(PG_FUNCTION_ARGS)
{
	double		part = PG_GETARG_FLOAT8(0);
	double		whole = PG_GETARG_FLOAT8(1);

	mm_check_nonnegative(part, "part");
	mm_check_nonnegative(whole, "whole");
	PG_RETURN_FLOAT8(ratio_signal(part, whole));
}

/*
 * A built-in numerical signal: arguments (server average, joining player,
 * max_relevant_difference DEFAULT default_max).
 */
static Datum
builtin_numeric_signal(FunctionCallInfo fcinfo, double default_max,
					   const char *what_a, const char *what_b)
{
	double		max = PG_NARGS() > 2 ? PG_GETARG_FLOAT8(2) : default_max;

	PG_RETURN_FLOAT8(numeric_signal_args(PG_GETARG_FLOAT8(0), PG_GETARG_FLOAT8(1),
										 max, what_a, what_b));
}

/* mm.age_signal(server_average_age, joining_player_age, max DEFAULT 25) */
Datum
mm_age_signal(PG_FUNCTION_ARGS)
{
	return builtin_numeric_signal(fcinfo, MM_AGE_MAX_DIFFERENCE,
								  "server_average_age", "joining_player_age");
}

/* mm.latency_signal(estimated_ping_ms, max DEFAULT 250) */
Datum
mm_latency_signal(PG_FUNCTION_ARGS)
{
	double		ping = PG_GETARG_FLOAT8(0);
	double		max = PG_NARGS() > 1 ? PG_GETARG_FLOAT8(1) : MM_LATENCY_MAX_MS;

	mm_check_nonnegative(ping, "estimated_ping_ms");
	mm_check_positive(max, "max_relevant_difference");
	PG_RETURN_FLOAT8(numeric_signal(ping, 0.0, max));
}

/* mm.occupancy_signal(players, capacity) */
Datum
mm_occupancy_signal(PG_FUNCTION_ARGS)
{
	int32		players = PG_GETARG_INT32(0);
	int32		capacity = PG_GETARG_INT32(1);

	if (players < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("players must not be negative"),
				 errdetail("The value is %d.", players)));
	if (capacity <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("capacity must be positive"),
				 errdetail("The value is %d.", capacity),
				 errhint("A server holds at least one player.")));
	PG_RETURN_FLOAT8(ratio_signal(players, capacity));
}

/* mm.play_history_signal(server_average, joining_player, max DEFAULT 4.6) */
Datum
mm_play_history_signal(PG_FUNCTION_ARGS)
{
	return builtin_numeric_signal(fcinfo, MM_PLAY_HISTORY_MAX_DIFFERENCE,
								  "server_average_play_history",
								  "joining_player_play_history");
}

/* mm.friends_signal(preferred_players_in_server): min(n, 1) / 1 */
Datum
mm_friends_signal(PG_FUNCTION_ARGS)
{
	int64		n = PG_GETARG_INT64(0);

	if (n < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("preferred player count must not be negative"),
				 errdetail("The value is " INT64_FORMAT ".", n)));
	PG_RETURN_FLOAT8(n > 0 ? 1.0 : 0.0);
}

/*
 * The float8[] states of mm.share and mm.weighted_score are two counters
 * {part, count}. Their functions are callable from SQL, so every state is
 * checked in full before it is used: its shape, and that count is a whole
 * number >= 0 and part is finite with 0 <= part (<= count for mm.share, and
 * 0 when count is 0 for mm.weighted_score). A forged state is refused, never
 * passed on or turned into NaN.
 */
typedef enum CountingState
{
	SHARE_STATE,
	WEIGHTED_SCORE_STATE
} CountingState;

/* The largest count a float8 holds exactly. */
#define MM_MAX_EXACT_COUNT 9007199254740992.0

static const char *
state_name(CountingState kind)
{
	return kind == SHARE_STATE ? "mm.share" : "mm.weighted_score";
}

/* Refuse a state that breaks one of the invariants above. */
static void
bad_state(CountingState kind, const char *why, const float8 *s)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s state is invalid", state_name(kind)),
			 s ? errdetail("The state is {%g,%g}: %s.", s[0], s[1], why) :
			 errdetail("%s.", why),
			 errhint("Pass only states made by the aggregate's own functions.")));
}

/* Check a state in full; returns its two values. */
static float8 *
check_state(ArrayType *state, CountingState kind)
{
	float8	   *s;

	if (ARR_NDIM(state) != 1 || ARR_DIMS(state)[0] != 2 ||
		ARR_LBOUND(state)[0] != 1 || ARR_HASNULL(state) ||
		ARR_ELEMTYPE(state) != FLOAT8OID)
		bad_state(kind, "A state is a float8[] of 2 elements without NULLs", NULL);
	s = (float8 *) ARR_DATA_PTR(state);
	if (!isfinite(s[0]) || !isfinite(s[1]))
		bad_state(kind, "its values must be finite", s);
	if (s[1] < 0.0 || s[1] != floor(s[1]) || s[1] > MM_MAX_EXACT_COUNT)
		bad_state(kind, "the count must be a whole number of rows", s);
	if (s[0] < 0.0)
		bad_state(kind, "the first value must not be negative", s);
	if (kind == SHARE_STATE && (s[0] > s[1] || s[0] != floor(s[0])))
		bad_state(kind, "the matching rows must be a whole number no larger than the count", s);
	if (kind == WEIGHTED_SCORE_STATE && s[1] == 0.0 && s[0] != 0.0)
		bad_state(kind, "a state without signals must have a sum of 0", s);
	return s;
}

/*
 * The state argument of a transition or combine function, checked, and
 * writable: updated in place when we run as an aggregate (the state is then
 * ours), copied otherwise. A NULL state is refused: the aggregates start
 * from {0,0}, so only a direct call can pass one.
 */
static ArrayType *
writable_state(FunctionCallInfo fcinfo, int argno, CountingState kind)
{
	ArrayType  *state;

	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s state must not be NULL", state_name(kind)),
				 errhint("Use the aggregate %s, or start from the state {0,0}.",
						 state_name(kind))));
	if (AggCheckCallContext(fcinfo, NULL))
		state = PG_GETARG_ARRAYTYPE_P(argno);
	else
		state = PG_GETARG_ARRAYTYPE_P_COPY(argno);
	check_state(state, kind);
	return state;
}

/* Equality of the aggregated type, looked up once per call site. */
static bool
share_equal(FunctionCallInfo fcinfo, Datum a, Datum b)
{
	FmgrInfo   *eq = (FmgrInfo *) fcinfo->flinfo->fn_extra;

	if (eq == NULL)
	{
		Oid			type = get_fn_expr_argtype(fcinfo->flinfo, 1);
		TypeCacheEntry *tc;

		if (!OidIsValid(type))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("could not determine the type of share's value")));
		tc = lookup_type_cache(type, TYPECACHE_EQ_OPR_FINFO);
		if (!OidIsValid(tc->eq_opr_finfo.fn_oid))
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_FUNCTION),
					 errmsg("could not identify an equality operator for type %s",
							format_type_be(type)),
					 errhint("mm.share compares values with the type's default equality operator.")));
		eq = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, sizeof(FmgrInfo));
		fmgr_info_copy(eq, &tc->eq_opr_finfo, fcinfo->flinfo->fn_mcxt);
		fcinfo->flinfo->fn_extra = eq;
	}
	return DatumGetBool(FunctionCall2Coll(eq, PG_GET_COLLATION(), a, b));
}

/*
 * mm.share transition: state {same, total}. A NULL value is a player
 * without the attribute: counted, never equal. A NULL target matches no one.
 */
Datum
mm_share_accum(PG_FUNCTION_ARGS)
{
	ArrayType  *state = writable_state(fcinfo, 0, SHARE_STATE);
	float8	   *s = (float8 *) ARR_DATA_PTR(state);

	if (s[1] >= MM_MAX_EXACT_COUNT)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("mm.share counts at most %.0f rows", MM_MAX_EXACT_COUNT)));
	s[1] += 1.0;
	if (!PG_ARGISNULL(1) && !PG_ARGISNULL(2) &&
		share_equal(fcinfo, PG_GETARG_DATUM(1), PG_GETARG_DATUM(2)))
		s[0] += 1.0;
	PG_RETURN_ARRAYTYPE_P(state);
}

/*
 * Add two checked states; the sum is checked again (two valid states can
 * add up to a count past what a float8 holds exactly, or to an infinite
 * weighted sum).
 */
static Datum
combine_states(FunctionCallInfo fcinfo, CountingState kind)
{
	ArrayType  *a = writable_state(fcinfo, 0, kind);
	float8	   *x = (float8 *) ARR_DATA_PTR(a);
	float8	   *y = check_state(PG_GETARG_ARRAYTYPE_P(1), kind);

	x[0] = mm_check_result(x[0] + y[0], kind == SHARE_STATE ? "mm.share count" : "server score");
	x[1] += y[1];
	check_state(a, kind);
	PG_RETURN_ARRAYTYPE_P(a);
}

Datum
mm_share_combine(PG_FUNCTION_ARGS)
{
	return combine_states(fcinfo, SHARE_STATE);
}

/* mm.share final: same / total, 0 over no rows. */
Datum
mm_share_final(PG_FUNCTION_ARGS)
{
	float8	   *s = check_state(PG_GETARG_ARRAYTYPE_P(0), SHARE_STATE);

	PG_RETURN_FLOAT8(ratio_signal(s[0], s[1]));
}

/*
 * mm.weighted_score transition: state {sum of weight * score, signals}.
 * Weights must be >= 0; a weight of 0 drops the signal (its score is not
 * looked at); counted scores must lie in [0, 1].
 */
Datum
mm_weighted_score_accum(PG_FUNCTION_ARGS)
{
	ArrayType  *state = writable_state(fcinfo, 0, WEIGHTED_SCORE_STATE);
	float8	   *s = (float8 *) ARR_DATA_PTR(state);
	double		weight;
	double		score;

	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("signal weight must not be NULL"),
				 errhint("Use a weight of 0 to leave a signal out.")));
	weight = PG_GETARG_FLOAT8(2);
	mm_check_nonnegative(weight, "signal weight");
	if (weight == 0.0)
		PG_RETURN_ARRAYTYPE_P(state);
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("signal score must not be NULL"),
				 errdetail("The signal's weight is %g.", weight),
				 errhint("Give the signal a score in [0, 1], or a weight of 0.")));
	score = PG_GETARG_FLOAT8(1);
	mm_check_finite(score, "signal score");
	if (score < 0.0 || score > 1.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("signal score must be between 0 and 1"),
				 errdetail("The score is %g.", score),
				 errhint("Signals normalise attributes to [0, 1]; clamp the value or use a signal function.")));
	s[0] = mm_check_result(s[0] + weight * score, "server score");
	s[1] += 1.0;
	PG_RETURN_ARRAYTYPE_P(state);
}

Datum
mm_weighted_score_combine(PG_FUNCTION_ARGS)
{
	return combine_states(fcinfo, WEIGHTED_SCORE_STATE);
}

/* mm.weighted_score final: the server score (0 when every weight is 0). */
Datum
mm_weighted_score_final(PG_FUNCTION_ARGS)
{
	float8	   *s = check_state(PG_GETARG_ARRAYTYPE_P(0), WEIGHTED_SCORE_STATE);

	PG_RETURN_FLOAT8(s[0]);
}
