/*-------------------------------------------------------------------------
 *
 * signals.c
 *		Roblox server-scoring signals as SQL functions and aggregates.
 *
 * Source: seed 000 (the scoring formula: attributes, signals, weights,
 * ServerScore = sum_i Weight_i * SignalScore_i, weights >= 0, a weight of 0
 * drops the signal, numerical signals normalised by a positive factor and
 * clamped to [0, 1]) and seed 001 (the existing signals and their
 * constants: age 25, latency 250 ms, play history 4.6; the categorical
 * ratio signals; the eight kinds of custom signals).
 *
 * Readings (DESIGN.md section 5): play history is 1 - min(1, diff / 4.6);
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

/* Normalizing factors of the built-in numerical signals (seed 001). */
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
 * Check a float8[] aggregate state of the expected length; states come from
 * our own transition functions but can be fed to the final function by hand.
 */
static float8 *
check_state(ArrayType *state, int n, const char *what)
{
	if (ARR_NDIM(state) != 1 || ARR_DIMS(state)[0] != n ||
		ARR_HASNULL(state) || ARR_ELEMTYPE(state) != FLOAT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s state must be a float8[] of %d elements", what, n)));
	return (float8 *) ARR_DATA_PTR(state);
}

/* Make a writable copy of a state unless we run as an aggregate. */
static ArrayType *
writable_state(FunctionCallInfo fcinfo, int argno)
{
	/* only a direct call can pass a NULL state: the aggregates start from '{0,0}' */
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("aggregate state must not be NULL"),
				 errhint("Call the aggregate rather than its support function.")));
	if (AggCheckCallContext(fcinfo, NULL))
		return PG_GETARG_ARRAYTYPE_P(argno);
	return PG_GETARG_ARRAYTYPE_P_COPY(argno);
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
	ArrayType  *state = writable_state(fcinfo, 0);
	float8	   *s = check_state(state, 2, "mm.share");

	s[1] += 1.0;
	if (!PG_ARGISNULL(1) && !PG_ARGISNULL(2) &&
		share_equal(fcinfo, PG_GETARG_DATUM(1), PG_GETARG_DATUM(2)))
		s[0] += 1.0;
	PG_RETURN_ARRAYTYPE_P(state);
}

/* Add two float8[] states of n elements. */
static Datum
combine_states(FunctionCallInfo fcinfo, int n, const char *what)
{
	ArrayType  *a = writable_state(fcinfo, 0);
	float8	   *x = check_state(a, n, what);
	float8	   *y = check_state(PG_GETARG_ARRAYTYPE_P(1), n, what);

	for (int i = 0; i < n; i++)
		x[i] += y[i];
	PG_RETURN_ARRAYTYPE_P(a);
}

Datum
mm_share_combine(PG_FUNCTION_ARGS)
{
	return combine_states(fcinfo, 2, "mm.share");
}

/* mm.share final: same / total, 0 over no rows. */
Datum
mm_share_final(PG_FUNCTION_ARGS)
{
	float8	   *s = check_state(PG_GETARG_ARRAYTYPE_P(0), 2, "mm.share");

	if (s[0] < 0.0 || s[1] < s[0])
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("mm.share state is inconsistent"),
				 errdetail("The state is {%g,%g}.", s[0], s[1])));
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
	ArrayType  *state = writable_state(fcinfo, 0);
	float8	   *s = check_state(state, 2, "mm.weighted_score");
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
	return combine_states(fcinfo, 2, "mm.weighted_score");
}

/* mm.weighted_score final: the server score (0 when every weight is 0). */
Datum
mm_weighted_score_final(PG_FUNCTION_ARGS)
{
	float8	   *s = check_state(PG_GETARG_ARRAYTYPE_P(0), 2, "mm.weighted_score");

	PG_RETURN_FLOAT8(mm_check_result(s[0], "server score"));
}
