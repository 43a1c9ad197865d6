/*-------------------------------------------------------------------------
 *
 * openskill_replay.c
 *		Replay a whole match history through a Weng-Lin model in one call,
 *		on the streaming replay driver (replay.c):
 *
 *		mm.replay_openskill(history, initial, model, options...)
 *			-> TABLE(player_id, mu, sigma, matches): final ratings;
 *		mm.openskill_history(history, initial, model, options...)
 *			-> one row per player per match: the team's pre-match win
 *			probability, the rating before and after;
 *		mm.openskill_calibration(history, initial, model, options...,
 *			bins) -> jsonb: how well the pre-match predictions foretold
 *			the results (analytics.h).
 *
 * The history query yields (match key, player_id, team, rank[, weight]) in
 * play order; the rows of a match are consecutive. The optional initial
 * query yields (player_id, mu, sigma); players missing from it start at
 * the mu and sigma arguments. Each match is rated exactly as
 * mm.openskill_rate rates it (openskill.c), so replaying equals rating the
 * matches one by one; its prediction is mm.openskill_predict_win's.
 *
 *-------------------------------------------------------------------------
 */
#include "openskill.h"
#include "analytics.h"
#include "replay.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

/*
 * A player's rating, in a table of 32-byte slots that a lookup touches
 * once: while the ids seen are whole numbers from 0 to a bound not much
 * above their count (a serial id), the slot of id is players[id]; from the
 * first id that is not, an open-addressing table (linear probing, at most
 * half full). A history of 10,000 players then keeps its ratings in 320 kB
 * (in the processor's nearest caches), not 640 kB.
 */
typedef struct OsPlayer
{
	int64		id;
	double		mu;
	double		sigma;
	int32		matches;
	bool		used;			/* the slot holds a player */
} OsPlayer;

/* Direct slots are kept while there are at most this many... */
#define OS_DIRECT_FLOOR 65536
/* ...or this many per player. */
#define OS_DIRECT_RATIO 4

typedef enum OsMode
{
	OS_FINAL,					/* final ratings */
	OS_HISTORY,					/* rows per player per match */
	OS_CALIBRATION				/* calibration of the predictions */
} OsMode;

typedef struct OsReplay
{
	OsMode		mode;
	MmOsOptions o;
	double		mu0;
	double		sigma0;
	bool		weighted;
	OsPlayer   *players;		/* the table's slots */
	uint64		nslots;			/* a power of two */
	bool		direct;			/* the slot of id is players[id] */
	int64		nplayers;		/* slots used */
	ReturnSetInfo *rsinfo;		/* OS_HISTORY: where rows go */
	MmCalibration cal;			/* OS_CALIBRATION */

	/* per match, by row: grown to the largest match, reused */
	int			maxrows;
	OsPlayer  **player;
	int64	   *id;
	int64	   *team;
	double	   *rank;
	double	   *weight;
	double	   *mu;
	double	   *sigma;
	double	   *mu_out;
	double	   *sigma_out;
	double	   *prob;			/* per team */
} OsReplay;

/* Columns after the match key. */
static const MmReplayColumn os_columns[] = {
	{"player_id", MM_REPLAY_WHOLE},
	{"team", MM_REPLAY_WHOLE},
	{"rank", MM_REPLAY_NUMBER},
	{"weight", MM_REPLAY_NUMBER},
};

#define OS_PLAYER	0
#define OS_TEAM		1
#define OS_RANK		2
#define OS_WEIGHT	3

/* Move the players into a table of size slots, direct or hashed. */
static void
os_rehash(OsReplay *rp, uint64 size, bool direct)
{
	OsPlayer   *old = rp->players;
	uint64		nold = rp->nslots;

	rp->players = MemoryContextAllocExtended(GetMemoryChunkContext(old), sizeof(OsPlayer) * size,
											 MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	rp->nslots = size;
	rp->direct = direct;
	for (uint64 j = 0; j < nold; j++)
	{
		uint64		i;

		if (!old[j].used)
			continue;
		if (direct)
			i = (uint64) old[j].id;
		else
			for (i = mm_replay_hash_id(old[j].id) & (size - 1); rp->players[i].used;
				 i = (i + 1) & (size - 1))
				;
		rp->players[i] = old[j];
	}
	pfree(old);
}

/*
 * Make room for the n players of ids (new or not), so that no slot moves
 * while a match is rated.
 */
static void
os_reserve(OsReplay *rp, const int64 *ids, int n)
{
	uint64		need = (uint64) rp->nplayers + n;
	uint64		size = rp->nslots;

	if (rp->direct)
	{
		int64		top = 0;

		for (int i = 0; i < n; i++)
			top = (ids[i] < 0 || top < 0) ? -1 : Max(top, ids[i]);
		if (top >= 0 && (uint64) top < size)
			return;
		while (top >= 0 && (uint64) top >= size)
			size *= 2;
		if (top >= 0 && (size <= OS_DIRECT_FLOOR || size <= OS_DIRECT_RATIO * need))
		{
			os_rehash(rp, size, true);
			return;
		}
		/* the ids are not (or no longer) dense: hash them */
		size = rp->nslots;
		while (need * 2 > size)
			size *= 2;
		os_rehash(rp, size, false);
		return;
	}
	if (need * 2 <= size)
		return;
	while (need * 2 > size)
		size *= 2;
	os_rehash(rp, size, false);
}

/*
 * A player's rating, created at the initial mu and sigma if new (room
 * reserved); *found says whether it existed.
 */
static inline OsPlayer *
os_player(OsReplay *rp, int64 id, bool *found)
{
	uint64		mask = rp->nslots - 1;
	uint64		i = rp->direct ? (uint64) id : mm_replay_hash_id(id) & mask;

	for (;; i = (i + 1) & mask)
	{
		OsPlayer   *pl = &rp->players[i];

		if (!pl->used)
		{
			pl->used = true;
			pl->id = id;
			pl->mu = rp->mu0;
			pl->sigma = rp->sigma0;
			pl->matches = 0;
			rp->nplayers++;
			*found = false;
			return pl;
		}
		if (pl->id == id)
		{
			*found = true;
			return pl;
		}
	}
}

/* The per-match arrays, for matches of up to n rows (in their context). */
static void
os_match_arrays(OsReplay *rp, int n)
{
	MemoryContext old = MemoryContextSwitchTo(GetMemoryChunkContext(rp->players));

	if (rp->maxrows > 0)
	{
		pfree(rp->player);
		pfree(rp->id);
		pfree(rp->team);
		pfree(rp->rank);
		pfree(rp->weight);
		pfree(rp->mu);
		pfree(rp->sigma);
		pfree(rp->mu_out);
		pfree(rp->sigma_out);
		pfree(rp->prob);
	}
	rp->maxrows = Max(n, 2 * rp->maxrows);
	rp->player = palloc(sizeof(OsPlayer *) * rp->maxrows);
	rp->id = palloc(sizeof(int64) * rp->maxrows);
	rp->team = palloc(sizeof(int64) * rp->maxrows);
	rp->rank = palloc(sizeof(double) * rp->maxrows);
	rp->weight = palloc(sizeof(double) * rp->maxrows);
	rp->mu = palloc(sizeof(double) * rp->maxrows);
	rp->sigma = palloc(sizeof(double) * rp->maxrows);
	rp->mu_out = palloc(sizeof(double) * rp->maxrows);
	rp->sigma_out = palloc(sizeof(double) * rp->maxrows);
	rp->prob = palloc(sizeof(double) * rp->maxrows);
	MemoryContextSwitchTo(old);
}

/*
 * The outcome for the favoured team f: 1 if it alone ranked best, 0 if
 * another team ranked better, 1/k if k teams tied for best with it.
 */
static double
os_outcome(const MmOsGame *g, int f)
{
	int			tied = 0;

	for (int t = 0; t < g->nteams; t++)
	{
		if (g->rank[t] < g->rank[f])
			return 0.0;
		if (g->rank[t] == g->rank[f])
			tied++;
	}
	return 1.0 / tied;
}

/* Emit the history rows of one rated match. */
static void
os_emit(OsReplay *rp, const MmReplayMatch *m, const MmOsGame *g,
		const double *prob, const double *mu_out, const double *sigma_out)
{
	for (int i = 0; i < m->nrows; i++)
	{
		const MmReplayRow *row = &m->rows[i];
		Datum		values[10];
		bool		nulls[10] = {false};

		values[0] = Int64GetDatum(m->number);
		values[1] = m->int_key ?
			DirectFunctionCall1(textin, CStringGetDatum(psprintf(INT64_FORMAT, m->key_int))) :
			CStringGetTextDatum(m->key_text);
		values[2] = Int64GetDatum(row->ival[OS_PLAYER]);
		values[3] = Int64GetDatum(row->ival[OS_TEAM]);
		values[4] = Float8GetDatum(row->fval[OS_RANK]);
		values[5] = Float8GetDatum(prob[g->team_of[i]]);
		values[6] = Float8GetDatum(g->mu[i]);
		values[7] = Float8GetDatum(g->sigma[i]);
		values[8] = Float8GetDatum(mu_out[i]);
		values[9] = Float8GetDatum(sigma_out[i]);
		tuplestore_putvalues(rp->rsinfo->setResult, rp->rsinfo->setDesc, values, nulls);
	}
}

/* Rate one match (called by the driver in a per-match memory context). */
static void
os_match(void *arg, const MmReplayMatch *m)
{
	OsReplay   *rp = arg;
	int			n = m->nrows;
	MmOsGame	g;

	if (n > rp->maxrows)
		os_match_arrays(rp, n);
	for (int i = 0; i < n; i++)
		rp->id[i] = m->rows[i].ival[OS_PLAYER];
	os_reserve(rp, rp->id, n);
	rp->weighted = m->ncolumns == 4;
	for (int i = 0; i < n; i++)
	{
		const MmReplayRow *row = &m->rows[i];
		bool		found;
		OsPlayer   *pl = os_player(rp, rp->id[i], &found);

		for (int j = 0; found && j < i; j++)
			if (rp->player[j] == pl)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("player " INT64_FORMAT " appears twice in one match", pl->id),
						 errdetail("Row " INT64_FORMAT " repeats the player.", row->row),
						 errhint("Give each match a distinct key, and order the history by it.")));
		rp->player[i] = pl;
		rp->team[i] = row->ival[OS_TEAM];
		rp->rank[i] = row->fval[OS_RANK];
		rp->weight[i] = row->fval[OS_WEIGHT];
		rp->mu[i] = pl->mu;
		rp->sigma[i] = pl->sigma;
	}
	mm_os_build_game(&g, n, rp->team, rp->rank, NULL, rp->mu, rp->sigma,
					 rp->weighted ? rp->weight : NULL);
	if (rp->mode != OS_FINAL)
		mm_os_predict_win(&g, rp->o.beta, rp->prob);
	if (rp->mode == OS_CALIBRATION)
	{
		int			f = 0;

		for (int t = 1; t < g.nteams; t++)
			if (rp->prob[t] > rp->prob[f])
				f = t;
		mm_calibration_add(&rp->cal, rp->prob[f], os_outcome(&g, f));
	}
	mm_os_rate(&g, &rp->o, rp->mu_out, rp->sigma_out);
	for (int i = 0; i < n; i++)
	{
		OsPlayer   *pl = rp->player[i];

		pl->mu = rp->mu_out[i];
		pl->sigma = rp->sigma_out[i];
		pl->matches++;
	}
	if (rp->mode == OS_HISTORY)
		os_emit(rp, m, &g, rp->prob, rp->mu_out, rp->sigma_out);
}

/* Load the initial ratings query into the ratings table. */
static void
os_initial(OsReplay *rp, const char *query)
{
	static const MmReplayColumn cols[] = {
		{"player_id", MM_REPLAY_WHOLE},
		{"mu", MM_REPLAY_NUMBER},
		{"sigma", MM_REPLAY_NUMBER},
	};
	SPIPlanPtr	plan = mm_prepare_rows_query(query, "initial",
											 "Pass e.g. 'SELECT player_id, mu, sigma FROM ratings'.");
	int			rc = SPI_execute_plan(plan, NULL, NULL, true, 0);
	TupleDesc	desc;

	if (rc != SPI_OK_SELECT)
		elog(ERROR, "SPI_execute_plan failed: %s", SPI_result_code_string(rc));
	desc = SPI_tuptable->tupdesc;
	if (desc->natts != 3)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("initial query must return 3 columns (player_id, mu, sigma)"),
				 errdetail("It returns %d.", desc->natts)));
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		HeapTuple	tup = SPI_tuptable->vals[r];
		bool		isnull[3];
		Datum		d[3];
		int64		id;
		double		mu,
					sigma;
		bool		found;
		OsPlayer   *pl;

		for (int c = 0; c < 3; c++)
		{
			d[c] = SPI_getbinval(tup, desc, c + 1, &isnull[c]);
			if (isnull[c])
				ereport(ERROR,
						(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						 errmsg("column %s of the initial ratings must not be NULL", cols[c].name),
						 errdetail("Row " UINT64_FORMAT " has a NULL %s.", r + 1, cols[c].name)));
		}
		id = mm_replay_whole(d[0], SPI_gettypeid(desc, 1), "player_id", r + 1);
		mu = mm_replay_number(d[1], SPI_gettypeid(desc, 2), "mu");
		sigma = mm_replay_number(d[2], SPI_gettypeid(desc, 3), "sigma");
		mm_check_finite(mu, "mu");
		mm_check_positive(sigma, "sigma");
		os_reserve(rp, &id, 1);
		pl = os_player(rp, id, &found);
		if (found)
			ereport(ERROR,
					(errcode(ERRCODE_UNIQUE_VIOLATION),
					 errmsg("player " INT64_FORMAT " appears twice in the initial ratings", id)));
		pl->mu = mu;
		pl->sigma = sigma;
	}
	SPI_freetuptable(SPI_tuptable);
}

/*
 * The arguments shared by the three functions: (history, initial, model,
 * beta, kappa, tau, limit_sigma, mu, sigma, z, alpha, target, balance,
 * epsilon); only initial may be NULL.
 */
static void
os_args(FunctionCallInfo fcinfo, OsReplay *rp, const char *fn)
{
	for (int i = 0; i < 14; i++)
		if (i != 1 && PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("argument %d of %s must not be NULL", i + 1, fn),
					 errhint("Only initial may be NULL.")));
	mm_os_default_options(&rp->o);
	rp->o.model = mm_os_parse_model(text_to_cstring(PG_GETARG_TEXT_PP(2)));
	rp->o.beta = PG_GETARG_FLOAT8(3);
	rp->o.kappa = PG_GETARG_FLOAT8(4);
	rp->o.tau = PG_GETARG_FLOAT8(5);
	rp->o.limit_sigma = PG_GETARG_BOOL(6);
	rp->mu0 = PG_GETARG_FLOAT8(7);
	rp->sigma0 = PG_GETARG_FLOAT8(8);
	rp->o.z = PG_GETARG_FLOAT8(9);
	rp->o.alpha = PG_GETARG_FLOAT8(10);
	rp->o.target = PG_GETARG_FLOAT8(11);
	rp->o.balance = PG_GETARG_BOOL(12);
	rp->o.epsilon = PG_GETARG_FLOAT8(13);
	mm_os_check_options(&rp->o);
	mm_check_finite(rp->mu0, "mu");
	mm_check_positive(rp->sigma0, "sigma");
}

/* Run the replay of a history query; initial may be NULL. */
static void
os_run(OsReplay *rp, const char *history, const char *initial)
{
	MmReplaySpec spec;
	SPIPlanPtr	plan;
	int			ncolumns;

	/* in the caller's context: the ratings outlive SPI's */
	rp->nslots = 1024;
	rp->direct = true;
	rp->nplayers = 0;
	rp->players = palloc0(sizeof(OsPlayer) * rp->nslots);
	rp->maxrows = 0;
	os_match_arrays(rp, 16);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (initial != NULL)
		os_initial(rp, initial);
	plan = mm_prepare_rows_query(history, "history",
								 "Pass e.g. 'SELECT match_id, player_id, team, rank FROM results ORDER BY match_id'.");
	spec.what = "history";
	spec.shape = "4 or 5 columns (match key, player_id, team, rank[, weight])";
	spec.keyed = true;
	spec.columns = os_columns;
	spec.ncolumns = 4;
	spec.nrequired = 3;
	spec.row_column = -1;
	spec.match = os_match;
	spec.arg = rp;
	spec.stop = NULL;
	mm_replay_run(&spec, plan, &ncolumns);
	SPI_finish();
}

/* Free what os_run allocated. */
static void
os_free(OsReplay *rp)
{
	pfree(rp->players);
	pfree(rp->player);
	pfree(rp->id);
	pfree(rp->team);
	pfree(rp->rank);
	pfree(rp->weight);
	pfree(rp->mu);
	pfree(rp->sigma);
	pfree(rp->mu_out);
	pfree(rp->sigma_out);
	pfree(rp->prob);
}

static int
os_id_cmp(const void *a, const void *b)
{
	int64		x = ((const OsPlayer *) a)->id;
	int64		y = ((const OsPlayer *) b)->id;

	return x < y ? -1 : (x > y ? 1 : 0);
}

PG_FUNCTION_INFO_V1(mm_replay_openskill);

/* mm.replay_openskill(history, initial, model, beta, kappa, tau, limit_sigma, mu, sigma, z, alpha, target, balance, epsilon) */
Datum
mm_replay_openskill(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	OsReplay	rp;

	memset(&rp, 0, sizeof(rp));
	rp.mode = OS_FINAL;
	os_args(fcinfo, &rp, "replay_openskill");
	InitMaterializedSRF(fcinfo, 0);
	os_run(&rp, text_to_cstring(PG_GETARG_TEXT_PP(0)),
		   PG_ARGISNULL(1) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(1)));

	/* the lookups are over: gather the ratings and order them by id */
	for (uint64 i = 0, j = 0; i < rp.nslots; i++)
		if (rp.players[i].used)
			rp.players[j++] = rp.players[i];
	if (!rp.direct)
		qsort(rp.players, rp.nplayers, sizeof(OsPlayer), os_id_cmp);
	for (int64 i = 0; i < rp.nplayers; i++)
	{
		const OsPlayer *pl = &rp.players[i];
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};

		values[0] = Int64GetDatum(pl->id);
		values[1] = Float8GetDatum(pl->mu);
		values[2] = Float8GetDatum(pl->sigma);
		values[3] = Int32GetDatum(pl->matches);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	os_free(&rp);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(mm_openskill_history);

/* mm.openskill_history(same arguments as replay_openskill) */
Datum
mm_openskill_history(PG_FUNCTION_ARGS)
{
	OsReplay	rp;

	memset(&rp, 0, sizeof(rp));
	rp.mode = OS_HISTORY;
	os_args(fcinfo, &rp, "openskill_history");
	InitMaterializedSRF(fcinfo, 0);
	rp.rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	os_run(&rp, text_to_cstring(PG_GETARG_TEXT_PP(0)),
		   PG_ARGISNULL(1) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(1)));
	os_free(&rp);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(mm_openskill_calibration);

/* mm.openskill_calibration(same arguments as replay_openskill, bins) */
Datum
mm_openskill_calibration(PG_FUNCTION_ARGS)
{
	OsReplay	rp;

	memset(&rp, 0, sizeof(rp));
	rp.mode = OS_CALIBRATION;
	os_args(fcinfo, &rp, "openskill_calibration");
	if (PG_ARGISNULL(14))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("bins must not be NULL")));
	mm_calibration_init(&rp.cal, PG_GETARG_INT32(14));
	os_run(&rp, text_to_cstring(PG_GETARG_TEXT_PP(0)),
		   PG_ARGISNULL(1) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(1)));
	os_free(&rp);
	PG_RETURN_JSONB_P(mm_calibration_jsonb(&rp.cal));
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
	mm_calibration_init(&rp.cal, 10);
	os_run(&rp, f->history, f->initial);
	*out = rp.cal;
}

PG_FUNCTION_INFO_V1(mm_openskill_fit);

/*
 * mm.openskill_fit(history text, parameter text, grid float8[], lo float8,
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
				 errmsg("history, parameter and model must not be NULL")));
	parameter = text_to_cstring(PG_GETARG_TEXT_PP(1));
	if (strcmp(parameter, "beta") != 0 && strcmp(parameter, "tau") != 0 &&
		strcmp(parameter, "kappa") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown parameter \"%s\"", parameter),
				 errhint("Fit one of beta, tau, kappa.")));
	memset(&f, 0, sizeof(f));
	f.base.mode = OS_CALIBRATION;
	mm_os_default_options(&f.base.o);
	f.base.o.model = mm_os_parse_model(text_to_cstring(PG_GETARG_TEXT_PP(7)));
	f.base.mu0 = 25.0;
	f.base.sigma0 = 25.0 / 3.0;
	f.history = text_to_cstring(PG_GETARG_TEXT_PP(0));
	f.initial = PG_ARGISNULL(6) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(6));
	f.parameter = parameter[0];
	mm_fit_search(fcinfo, 2, 3, 4, 5, os_fit_eval, &f);
	return (Datum) 0;
}
