/*-------------------------------------------------------------------------
 *
 * openskill_sql.c
 *		The SQL-callable OpenSkill functions: mm.openskill_rate, the win,
 *		rank and draw predictions and mm.normal_quantile, over the core of
 *		openskill.c and the game builder of the OpenSkill family
 *		(openskill_model.c).
 *
 *-------------------------------------------------------------------------
 */
#include "openskill.h"

#include <math.h>

#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"

/* Read the (team, [rank,] mu, sigma) arrays of a call into a game. */
static void
os_game_from_args(MmOsGame *g, ArrayType *team_a, ArrayType *rank_a,
				  ArrayType *score_a, ArrayType *mu_a, ArrayType *sigma_a,
				  ArrayType *weight_a)
{
	int32	   *team;
	double	   *rank = NULL,
			   *score = NULL,
			   *mu,
			   *sigma,
			   *weight = NULL;
	int64	   *label;
	int			n = mm_int4_array(team_a, "team", &team);

#define OS_SAME_LENGTH(arr, name, var) \
	do { \
		int m_ = mm_float8_array(arr, name, &var); \
		if (m_ != n) \
			ereport(ERROR, \
					(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR), \
					 errmsg("%s and team must have the same length", name), \
					 errdetail("team has %d elements, %s has %d.", n, name, m_), \
					 errhint("Pass one element per player in every array."))); \
	} while (0)

	if (rank_a)
		OS_SAME_LENGTH(rank_a, "rank", rank);
	if (score_a)
		OS_SAME_LENGTH(score_a, "score", score);
	OS_SAME_LENGTH(mu_a, "mu", mu);
	OS_SAME_LENGTH(sigma_a, "sigma", sigma);
	if (weight_a)
		OS_SAME_LENGTH(weight_a, "weight", weight);
	label = palloc(sizeof(int64) * Max(n, 1));
	for (int i = 0; i < n; i++)
		label[i] = team[i];
	mm_os_build_game(g, n, label, rank, score, mu, sigma, weight);
}

/* Refuse a NULL argument of a non-strict function. */
static void
os_not_null(FunctionCallInfo fcinfo, int arg, const char *name)
{
	if (PG_ARGISNULL(arg))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be NULL", name)));
}

PG_FUNCTION_INFO_V1(mm_openskill_rate);

/*
 * mm.openskill_rate(team int[], rank float8[], mu float8[], sigma float8[],
 *   model, beta, kappa, tau, limit_sigma, weight float8[],
 *   z, alpha, target, balance, epsilon, score float8[], margin)
 *   -> TABLE(idx int, mu float8, sigma float8)
 */
Datum
mm_openskill_rate(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MmOsOptions o;
	MmOsGame	g;
	double	   *mu_out,
			   *sigma_out;

	static const char *const names[] = {"team", "rank", "mu", "sigma", "model",
		"beta", "kappa", "tau", "limit_sigma", "weight", "z", "alpha", "target",
	"balance", "epsilon", "score", "margin"};

	for (int i = 0; i < 17; i++)
		if (i != 1 && i != 9 && i != 15)
			os_not_null(fcinfo, i, names[i]);
	if (PG_ARGISNULL(1) && PG_ARGISNULL(15))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("rank must not be NULL unless score is given"),
				 errhint("Pass each player's team rank (lower is better), or score (higher is better).")));

	mm_os_default_options(&o);
	o.model = mm_os_parse_model(text_to_cstring(PG_GETARG_TEXT_PP(4)));
	o.beta = PG_GETARG_FLOAT8(5);
	o.kappa = PG_GETARG_FLOAT8(6);
	o.tau = PG_GETARG_FLOAT8(7);
	o.limit_sigma = PG_GETARG_BOOL(8);
	o.z = PG_GETARG_FLOAT8(10);
	o.alpha = PG_GETARG_FLOAT8(11);
	o.target = PG_GETARG_FLOAT8(12);
	o.balance = PG_GETARG_BOOL(13);
	o.epsilon = PG_GETARG_FLOAT8(14);
	o.margin = PG_GETARG_FLOAT8(16);
	mm_os_check_options(&o);

	os_game_from_args(&g, PG_GETARG_ARRAYTYPE_P(0),
					  PG_ARGISNULL(1) ? NULL : PG_GETARG_ARRAYTYPE_P(1),
					  PG_ARGISNULL(15) ? NULL : PG_GETARG_ARRAYTYPE_P(15),
					  PG_GETARG_ARRAYTYPE_P(2), PG_GETARG_ARRAYTYPE_P(3),
					  PG_ARGISNULL(9) ? NULL : PG_GETARG_ARRAYTYPE_P(9));
	mu_out = palloc(sizeof(double) * g.nplayers);
	sigma_out = palloc(sizeof(double) * g.nplayers);
	mm_os_rate(&g, &o, mu_out, sigma_out);

	InitMaterializedSRF(fcinfo, 0);
	for (int p = 0; p < g.nplayers; p++)
	{
		Datum		values[3];
		bool		nulls[3] = {false, false, false};

		values[0] = Int32GetDatum(p + 1);
		values[1] = Float8GetDatum(mu_out[p]);
		values[2] = Float8GetDatum(sigma_out[p]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/* Read and check the arguments shared by the predictions. */
static double
os_predict_args(FunctionCallInfo fcinfo, MmOsGame *g)
{
	double		beta = PG_GETARG_FLOAT8(3);

	mm_check_positive(beta, "beta");
	os_game_from_args(g, PG_GETARG_ARRAYTYPE_P(0), NULL, NULL,
					  PG_GETARG_ARRAYTYPE_P(1), PG_GETARG_ARRAYTYPE_P(2), NULL);
	return beta;
}

/* The team labels in order of first appearance. */
static int32 *
os_team_labels(FunctionCallInfo fcinfo, const MmOsGame *g)
{
	int32	   *team;
	int32	   *label = palloc(sizeof(int32) * g->nteams);

	mm_int4_array(PG_GETARG_ARRAYTYPE_P(0), "team", &team);
	for (int p = 0; p < g->nplayers; p++)
		label[g->team_of[p]] = team[p];
	return label;
}

/*
 * Return one row per team: (team, probability), or with_rank (team, rank,
 * probability), rank being 1 + the number of teams with a higher win
 * probability (openskill.js predictRank).
 */
static Datum
os_predict_rows(FunctionCallInfo fcinfo, bool with_rank)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MmOsGame	g;
	double		beta = os_predict_args(fcinfo, &g);
	double	   *prob = palloc(sizeof(double) * g.nteams);
	int32	   *label = os_team_labels(fcinfo, &g);

	mm_os_predict_win(&g, beta, prob);
	InitMaterializedSRF(fcinfo, 0);
	for (int t = 0; t < g.nteams; t++)
	{
		Datum		values[3];
		bool		nulls[3] = {false, false, false};
		int			rank = 1;
		int			col = 0;

		CHECK_FOR_INTERRUPTS();
		for (int u = 0; u < g.nteams; u++)
			if (prob[u] > prob[t])
				rank++;
		values[col++] = Int32GetDatum(label[t]);
		if (with_rank)
			values[col++] = Int32GetDatum(rank);
		values[col] = Float8GetDatum(mm_check_result(prob[t], "win probability"));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(mm_openskill_predict_win);

/* mm.openskill_predict_win(team, mu, sigma, beta) -> TABLE(team, probability) */
Datum
mm_openskill_predict_win(PG_FUNCTION_ARGS)
{
	return os_predict_rows(fcinfo, false);
}

PG_FUNCTION_INFO_V1(mm_openskill_predict_rank);

/* mm.openskill_predict_rank(team, mu, sigma, beta) -> TABLE(team, rank, probability) */
Datum
mm_openskill_predict_rank(PG_FUNCTION_ARGS)
{
	return os_predict_rows(fcinfo, true);
}

PG_FUNCTION_INFO_V1(mm_openskill_predict_draw);

/* mm.openskill_predict_draw(team, mu, sigma, beta) -> float8 */
Datum
mm_openskill_predict_draw(PG_FUNCTION_ARGS)
{
	MmOsGame	g;
	double		beta = os_predict_args(fcinfo, &g);

	PG_RETURN_FLOAT8(mm_check_result(mm_os_predict_draw(&g, beta), "draw probability"));
}

PG_FUNCTION_INFO_V1(mm_normal_quantile);

/* mm.normal_quantile(p float8) -> float8: the inverse standard normal CDF */
Datum
mm_normal_quantile(PG_FUNCTION_ARGS)
{
	double		p = PG_GETARG_FLOAT8(0);

	mm_check_finite(p, "p");
	if (p <= 0.0 || p >= 1.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("p must be between 0 and 1 exclusive"),
				 errdetail("The value is %g.", p),
				 errhint("The quantile of 0 or 1 is infinite.")));
	PG_RETURN_FLOAT8(mm_os_phi_inverse(p));
}
