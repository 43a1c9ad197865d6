/*-------------------------------------------------------------------------
 *
 * openskill_replay.c
 *		Replay a whole match history through a Weng-Lin model in one call,
 *		on the team-match replay (rating_replay.c):
 *
 *		mm.openskill_replay(games, initial, model, options...)
 *			-> TABLE(player_id, mu, sigma, games): final ratings;
 *		mm.openskill_history(games, initial, model, options...)
 *			-> one row per player per match: the team's pre-match win
 *			probability, the rating before and after;
 *		mm.openskill_calibration(games, initial, model, options...,
 *			bins) -> jsonb: how well the pre-match predictions foretold
 *			the results (analytics.h).
 *
 * The games query yields (match key, player_id, team, rank[, weight]) in
 * play order; the rows of a match are consecutive. The optional initial
 * query yields (player_id, mu, sigma); players missing from it start at
 * the mu and sigma arguments. Each match is rated exactly as
 * mm.openskill_rate rates it (openskill.c), so replaying equals rating the
 * matches one by one; its prediction is mm.openskill_predict_win's.
 *
 * The replay itself is any family's (rating_replay.c); this file reads
 * OpenSkill's arguments into its options.
 *
 *-------------------------------------------------------------------------
 */
#include "openskill.h"
#include "analytics.h"
#include "rating_replay.h"

#include "utils/builtins.h"

/* An OpenSkill replay: the family's replay and its options. */
typedef struct OsReplay
{
	MmRatingReplay rr;
	MmOsOptions o;
} OsReplay;

/* A replay of OpenSkill in the given mode, options at their defaults. */
static void
os_init(OsReplay *rp, MmRatingReplayMode mode)
{
	memset(rp, 0, sizeof(*rp));
	rp->rr.model = &mm_openskill_model;
	rp->rr.mode = mode;
	mm_os_default_options(&rp->o);
}

/* Run the replay with the options of rp (which may be a copy). */
static void
os_run(OsReplay *rp, const char *history, const char *initial)
{
	rp->rr.params = &rp->o;
	mm_rating_replay_run(&rp->rr, history, initial);
}

/*
 * The arguments shared by the three functions: (games, initial, model,
 * beta, kappa, tau, limit_sigma, mu, sigma, z, alpha, target, balance,
 * epsilon); only initial may be NULL.
 */
static void
os_args(FunctionCallInfo fcinfo, OsReplay *rp)
{
	/* only initial (argument 2) may be NULL: none given */
	mm_args_not_null(fcinfo, UINT64CONST(1) << 1);
	rp->o.model = mm_os_parse_model(text_to_cstring(PG_GETARG_TEXT_PP(2)));
	rp->o.beta = PG_GETARG_FLOAT8(3);
	rp->o.kappa = PG_GETARG_FLOAT8(4);
	rp->o.tau = PG_GETARG_FLOAT8(5);
	rp->o.limit_sigma = PG_GETARG_BOOL(6);
	rp->rr.initial[0] = PG_GETARG_FLOAT8(7);
	rp->rr.initial[1] = PG_GETARG_FLOAT8(8);
	rp->o.z = PG_GETARG_FLOAT8(9);
	rp->o.alpha = PG_GETARG_FLOAT8(10);
	rp->o.target = PG_GETARG_FLOAT8(11);
	rp->o.balance = PG_GETARG_BOOL(12);
	rp->o.epsilon = PG_GETARG_FLOAT8(13);
	mm_os_check_options(&rp->o);
	mm_rating_replay_check_initial(&rp->rr);
}

PG_FUNCTION_INFO_V1(mm_replay_openskill);

/*
 * mm.openskill_replay(games, initial, model, beta, kappa, tau, limit_sigma, mu, sigma, z, alpha, target, balance, epsilon);
 * the symbol keeps 0.1.0's name, which its install script names.
 */
Datum
mm_replay_openskill(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	OsReplay	rp;

	os_init(&rp, MM_RATING_REPLAY_FINAL);
	os_args(fcinfo, &rp);
	InitMaterializedSRF(fcinfo, 0);
	os_run(&rp, text_to_cstring(PG_GETARG_TEXT_PP(0)),
		   PG_ARGISNULL(1) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(1)));

	mm_rating_replay_final(&rp.rr, rsinfo);
	mm_rating_replay_free(&rp.rr);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(mm_replay_openskill_deprecated);

/*
 * mm.replay_openskill(history, initial, ...): 0.1.0's name, argument names
 * and columns (matches int) for mm.openskill_replay, deprecated. A C
 * function, so the caller's query runs with the caller's search_path, and
 * a NULL argument is named as this function names it.
 */
Datum
mm_replay_openskill_deprecated(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	OsReplay	rp;

	os_init(&rp, MM_RATING_REPLAY_FINAL);
	rp.rr.games_int4 = true;
	os_args(fcinfo, &rp);
	InitMaterializedSRF(fcinfo, 0);
	os_run(&rp, text_to_cstring(PG_GETARG_TEXT_PP(0)),
		   PG_ARGISNULL(1) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(1)));
	mm_rating_replay_final(&rp.rr, rsinfo);
	mm_rating_replay_free(&rp.rr);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(mm_openskill_history);

/* mm.openskill_history(same arguments as openskill_replay) */
Datum
mm_openskill_history(PG_FUNCTION_ARGS)
{
	OsReplay	rp;

	os_init(&rp, MM_RATING_REPLAY_HISTORY);
	os_args(fcinfo, &rp);
	InitMaterializedSRF(fcinfo, 0);
	rp.rr.rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	os_run(&rp, text_to_cstring(PG_GETARG_TEXT_PP(0)),
		   PG_ARGISNULL(1) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(1)));
	mm_rating_replay_free(&rp.rr);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(mm_openskill_calibration);

/* mm.openskill_calibration(same arguments as openskill_replay, bins) */
Datum
mm_openskill_calibration(PG_FUNCTION_ARGS)
{
	OsReplay	rp;

	os_init(&rp, MM_RATING_REPLAY_CALIBRATION);
	os_args(fcinfo, &rp);
	if (PG_ARGISNULL(14))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("bins must not be NULL")));
	mm_calibration_init(&rp.rr.cal, PG_GETARG_INT32(14));
	os_run(&rp, text_to_cstring(PG_GETARG_TEXT_PP(0)),
		   PG_ARGISNULL(1) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(1)));
	mm_rating_replay_free(&rp.rr);
	PG_RETURN_JSONB_P(mm_calibration_jsonb(&rp.rr.cal));
}

/* What openskill_fit varies, and the replay it runs. */
typedef struct OsFit
{
	OsReplay	base;			/* options at their defaults */
	const char *history;
	const char *initial;
	char		parameter;		/* 'b'eta, 't'au, 'k'appa */
} OsFit;

static void
os_fit_eval(void *arg, double value, MmCalibration *out)
{
	OsFit	   *f = arg;
	OsReplay	rp = f->base;

	if (f->parameter == 'b')
		rp.o.beta = value;
	else if (f->parameter == 't')
		rp.o.tau = value;
	else
		rp.o.kappa = value;
	mm_os_check_options(&rp.o);
	mm_calibration_init(&rp.rr.cal, 10);
	os_run(&rp, f->history, f->initial);
	mm_rating_replay_free(&rp.rr);
	*out = rp.rr.cal;
}

PG_FUNCTION_INFO_V1(mm_openskill_fit);

/*
 * mm.openskill_fit(games text, parameter text, grid float8[], lo float8,
 *					hi float8, iterations int, initial text, model text)
 */
Datum
mm_openskill_fit(PG_FUNCTION_ARGS)
{
	OsFit		f;
	char	   *parameter;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(7))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("games, parameter and model must not be NULL")));
	parameter = text_to_cstring(PG_GETARG_TEXT_PP(1));
	if (strcmp(parameter, "beta") != 0 && strcmp(parameter, "tau") != 0 &&
		strcmp(parameter, "kappa") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown parameter \"%s\"", parameter),
				 errhint("Fit one of beta, tau, kappa.")));
	memset(&f, 0, sizeof(f));
	os_init(&f.base, MM_RATING_REPLAY_CALIBRATION);
	f.base.o.model = mm_os_parse_model(text_to_cstring(PG_GETARG_TEXT_PP(7)));
	f.base.rr.initial[0] = 25.0;
	f.base.rr.initial[1] = 25.0 / 3.0;
	f.history = text_to_cstring(PG_GETARG_TEXT_PP(0));
	f.initial = PG_ARGISNULL(6) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(6));
	f.parameter = parameter[0];
	mm_fit_search(fcinfo, 2, 3, 4, 5, os_fit_eval, &f);
	return (Datum) 0;
}
