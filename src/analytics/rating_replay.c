/*-------------------------------------------------------------------------
 *
 * rating_replay.c
 *		The replay of a team-match history with any rating family
 *		(rating_replay.h): the players' states, one game per match rated
 *		and predicted through the family's functions, the history rows,
 *		the calibration and the final ratings.
 *
 *-------------------------------------------------------------------------
 */
#include "rating_replay.h"
#include "replay.h"
#include "config.h"

#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

/*
 * The players' slots, which a lookup touches once: while the ids seen are
 * whole numbers from 0 to a bound not much above their count (a serial
 * id), the slot of id is players[id]; from the first id that is not, an
 * open-addressing table (linear probing, at most half full). A slot is 16
 * bytes and the state: with OpenSkill's two columns a history of 10,000
 * players keeps its ratings in 320 kB (in the processor's nearest caches).
 */

/* Direct slots are kept while there are at most this many... */
#define RR_DIRECT_FLOOR 65536
/* ...or this many per player. */
#define RR_DIRECT_RATIO 4

/* Columns after the match key. */
static const MmReplayColumn rr_columns[] = {
	{"player_id", MM_REPLAY_WHOLE},
	{"team", MM_REPLAY_WHOLE},
	{"rank", MM_REPLAY_NUMBER},
	{"weight", MM_REPLAY_NUMBER},
};

#define RR_PLAYER	0
#define RR_TEAM		1
#define RR_RANK		2
#define RR_WEIGHT	3

static inline MmRatingReplayPlayer *
rr_slot(const char *slots, Size stride, uint64 i)
{
	return (MmRatingReplayPlayer *) (slots + i * stride);
}

/* Move the players into a table of size slots, direct or hashed. */
static void
rr_rehash(MmRatingReplay *rp, uint64 size, bool direct)
{
	char	   *old = rp->players;
	uint64		nold = rp->nslots;

	rp->players = MemoryContextAllocExtended(GetMemoryChunkContext(old), rp->stride * size,
											 MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	rp->nslots = size;
	rp->direct = direct;
	for (uint64 j = 0; j < nold; j++)
	{
		MmRatingReplayPlayer *o = rr_slot(old, rp->stride, j);
		uint64		i;

		if (!o->used)
			continue;
		if (direct)
			i = (uint64) o->id;
		else
			for (i = mm_replay_hash_id(o->id) & (size - 1); rr_slot(rp->players, rp->stride, i)->used;
				 i = (i + 1) & (size - 1))
				;
		memcpy(rr_slot(rp->players, rp->stride, i), o, rp->stride);
	}
	pfree(old);
}

/*
 * Make room for the n players of ids (new or not), so that no slot moves
 * while a match is rated.
 */
static void
rr_reserve(MmRatingReplay *rp, const int64 *ids, int n)
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
		if (top >= 0 && (size <= RR_DIRECT_FLOOR || size <= RR_DIRECT_RATIO * need))
		{
			rr_rehash(rp, size, true);
			return;
		}
		/* the ids are not (or no longer) dense: hash them */
		size = rp->nslots;
		while (need * 2 > size)
			size *= 2;
		rr_rehash(rp, size, false);
		return;
	}
	if (need * 2 <= size)
		return;
	while (need * 2 > size)
		size *= 2;
	rr_rehash(rp, size, false);
}

/*
 * A player's slot, created at the initial state if new (room reserved);
 * *found says whether it existed.
 */
static inline MmRatingReplayPlayer *
rr_player(MmRatingReplay *rp, int64 id, bool *found)
{
	uint64		mask = rp->nslots - 1;
	uint64		i = rp->direct ? (uint64) id : mm_replay_hash_id(id) & mask;

	for (;; i = (i + 1) & mask)
	{
		MmRatingReplayPlayer *pl = rr_slot(rp->players, rp->stride, i);

		if (!pl->used)
		{
			pl->used = true;
			pl->id = id;
			for (int c = 0; c < rp->model->nstate; c++)
				pl->state[c] = rp->initial[c];
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

/* Free the per-match arrays. */
static void
rr_free_match_arrays(MmRatingReplay *rp)
{
	pfree(rp->player);
	pfree(rp->id);
	pfree(rp->team);
	pfree(rp->rank);
	pfree(rp->weight);
	for (int c = 0; c < rp->model->nstate; c++)
	{
		pfree(rp->in[c]);
		pfree(rp->out[c]);
	}
	pfree(rp->prob);
}

/* The per-match arrays, for matches of up to n rows (in their context). */
static void
rr_match_arrays(MmRatingReplay *rp, int n)
{
	MemoryContext old = MemoryContextSwitchTo(GetMemoryChunkContext(rp->players));

	if (rp->maxrows > 0)
		rr_free_match_arrays(rp);
	rp->maxrows = Max(n, 2 * rp->maxrows);
	rp->player = palloc(sizeof(MmRatingReplayPlayer *) * rp->maxrows);
	rp->id = palloc(sizeof(int64) * rp->maxrows);
	rp->team = palloc(sizeof(int64) * rp->maxrows);
	rp->rank = palloc(sizeof(double) * rp->maxrows);
	rp->weight = palloc(sizeof(double) * rp->maxrows);
	for (int c = 0; c < rp->model->nstate; c++)
	{
		rp->in[c] = palloc(sizeof(double) * rp->maxrows);
		rp->out[c] = palloc(sizeof(double) * rp->maxrows);
	}
	rp->prob = palloc(sizeof(double) * rp->maxrows);
	MemoryContextSwitchTo(old);
}

/*
 * The outcome for the favoured team f: 1 if it alone ranked best, 0 if
 * another team ranked better, 1/k if k teams tied for best with it.
 */
static double
rr_outcome(const MmRatingGame *g, int f)
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

/*
 * Emit the history rows of one rated match: match number, key, player,
 * team, rank, the team's win probability, the state before and after.
 */
static void
rr_emit(MmRatingReplay *rp, const MmReplayMatch *m, const MmRatingGame *g)
{
	int			nstate = rp->model->nstate;

	for (int i = 0; i < m->nrows; i++)
	{
		const MmReplayRow *row = &m->rows[i];
		Datum		values[6 + 2 * MM_RATING_MAX_STATE];
		bool		nulls[6 + 2 * MM_RATING_MAX_STATE] = {false};

		values[0] = Int64GetDatum(m->number);
		values[1] = m->int_key ?
			DirectFunctionCall1(textin, CStringGetDatum(psprintf(INT64_FORMAT, m->key_int))) :
			CStringGetTextDatum(m->key_text);
		values[2] = Int64GetDatum(row->ival[RR_PLAYER]);
		values[3] = Int64GetDatum(row->ival[RR_TEAM]);
		values[4] = Float8GetDatum(row->fval[RR_RANK]);
		values[5] = Float8GetDatum(rp->prob[g->team_of[i]]);
		if (rp->packed)
		{
			double		before[MM_RATING_MAX_STATE],
						after[MM_RATING_MAX_STATE];

			for (int c = 0; c < nstate; c++)
			{
				before[c] = g->state[c][i];
				after[c] = rp->out[c][i];
			}
			values[6] = mm_rating_state_datum(rp->model, before);
			values[7] = mm_rating_state_datum(rp->model, after);
		}
		else
			for (int c = 0; c < nstate; c++)
			{
				values[6 + c] = Float8GetDatum(g->state[c][i]);
				values[6 + nstate + c] = Float8GetDatum(rp->out[c][i]);
			}
		tuplestore_putvalues(rp->rsinfo->setResult, rp->rsinfo->setDesc, values, nulls);
	}
}

/* Rate one match (called by the driver in a per-match memory context). */
static void
rr_match(void *arg, const MmReplayMatch *m)
{
	MmRatingReplay *rp = arg;
	const MmRatingModel *model = rp->model;
	int			n = m->nrows;
	MmRatingGame g;

	if (n > rp->maxrows)
		rr_match_arrays(rp, n);
	for (int i = 0; i < n; i++)
		rp->id[i] = m->rows[i].ival[RR_PLAYER];
	rr_reserve(rp, rp->id, n);
	for (int i = 0; i < n; i++)
	{
		const MmReplayRow *row = &m->rows[i];
		bool		found;
		MmRatingReplayPlayer *pl = rr_player(rp, rp->id[i], &found);

		for (int j = 0; found && j < i; j++)
			if (rp->player[j] == pl)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("player " INT64_FORMAT " appears twice in one match", pl->id),
						 errdetail("Row " INT64_FORMAT " repeats the player.", row->row),
						 errhint("Give each match a distinct key, and order the history by it.")));
		rp->player[i] = pl;
		rp->team[i] = row->ival[RR_TEAM];
		rp->rank[i] = row->fval[RR_RANK];
		rp->weight[i] = row->fval[RR_WEIGHT];
		for (int c = 0; c < model->nstate; c++)
			rp->in[c][i] = pl->state[c];
	}
	mm_rating_build_game(&g, model, n, rp->team, rp->rank, NULL,
						 (const double *const *) rp->in,
						 m->ncolumns == 4 ? rp->weight : NULL);
	if (rp->mode != MM_RATING_REPLAY_FINAL)
		model->predict(rp->params, &g, rp->prob);
	if (rp->mode == MM_RATING_REPLAY_CALIBRATION)
	{
		int			f = 0;

		for (int t = 1; t < g.nteams; t++)
			if (rp->prob[t] > rp->prob[f])
				f = t;
		mm_calibration_add(&rp->cal, rp->prob[f], rr_outcome(&g, f));
	}
	model->rate(rp->params, &g, rp->out);
	for (int i = 0; i < n; i++)
	{
		MmRatingReplayPlayer *pl = rp->player[i];

		for (int c = 0; c < model->nstate; c++)
			pl->state[c] = rp->out[c][i];
		pl->matches++;
	}
	if (rp->mode == MM_RATING_REPLAY_HISTORY)
		rr_emit(rp, m, &g);
}

/* A value of a state column, checked as the family declares it. */
static void
rr_check_column(const MmRatingColumn *col, double x)
{
	if (col->positive)
		mm_check_positive(x, col->name);
	else
		mm_check_finite(x, col->name);
}

void
mm_rating_replay_check_initial(const MmRatingReplay *rp)
{
	for (int c = 0; c < rp->model->nstate; c++)
		rr_check_column(&rp->model->columns[c], rp->initial[c]);
}

/* Load the initial ratings query into the players' slots. */
static void
rr_initial(MmRatingReplay *rp, const char *query)
{
	const MmRatingModel *model = rp->model;
	int			ncols = 1 + model->nstate;
	StringInfoData names;
	SPIPlanPtr	plan;
	TupleDesc	desc;

	initStringInfo(&names);
	appendStringInfoString(&names, "player_id");
	for (int c = 0; c < model->nstate; c++)
		appendStringInfo(&names, ", %s", model->columns[c].name);
	plan = mm_prepare_rows_query(query, "initial",
								 psprintf("Pass e.g. 'SELECT %s FROM ratings'.", names.data));
	mm_run_rows_query(plan, NULL);
	desc = SPI_tuptable->tupdesc;
	if (desc->natts != ncols)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("initial query must return %d columns (%s)", ncols, names.data),
				 errdetail("It returns %d.", desc->natts)));
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		HeapTuple	tup = SPI_tuptable->vals[r];
		bool		isnull[1 + MM_RATING_MAX_STATE];
		Datum		d[1 + MM_RATING_MAX_STATE];
		double		state[MM_RATING_MAX_STATE];
		int64		id;
		bool		found;
		MmRatingReplayPlayer *pl;

		for (int c = 0; c < ncols; c++)
		{
			d[c] = SPI_getbinval(tup, desc, c + 1, &isnull[c]);
			if (isnull[c])
				ereport(ERROR,
						(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						 errmsg("column %s of the initial ratings must not be NULL",
								c == 0 ? "player_id" : model->columns[c - 1].name),
						 errdetail("Row " UINT64_FORMAT " has a NULL %s.", r + 1,
								   c == 0 ? "player_id" : model->columns[c - 1].name)));
		}
		id = mm_replay_whole(d[0], SPI_gettypeid(desc, 1), "player_id", r + 1);
		for (int c = 0; c < model->nstate; c++)
			state[c] = mm_replay_number(d[c + 1], SPI_gettypeid(desc, c + 2),
										model->columns[c].name);
		for (int c = 0; c < model->nstate; c++)
			rr_check_column(&model->columns[c], state[c]);
		rr_reserve(rp, &id, 1);
		pl = rr_player(rp, id, &found);
		if (found)
			ereport(ERROR,
					(errcode(ERRCODE_UNIQUE_VIOLATION),
					 errmsg("player " INT64_FORMAT " appears twice in the initial ratings", id)));
		for (int c = 0; c < model->nstate; c++)
			pl->state[c] = state[c];
	}
	SPI_freetuptable(SPI_tuptable);
}

void
mm_rating_replay_run(MmRatingReplay *rp, const char *history, const char *initial)
{
	MmReplaySpec spec;
	SPIPlanPtr	plan;
	int			ncolumns;

	/* in the caller's context: the ratings outlive SPI's */
	rp->stride = MAXALIGN(offsetof(MmRatingReplayPlayer, state) +
						  sizeof(double) * rp->model->nstate);
	rp->nslots = 1024;
	rp->direct = true;
	rp->nplayers = 0;
	rp->players = palloc0(rp->stride * rp->nslots);
	rp->maxrows = 0;
	rr_match_arrays(rp, 16);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (initial != NULL)
		rr_initial(rp, initial);
	plan = mm_prepare_rows_query(history, "games",
								 "Pass e.g. 'SELECT match_id, player_id, team, rank FROM results ORDER BY match_id'.");
	spec.what = "games";
	spec.shape = "4 or 5 columns (match key, player_id, team, rank[, weight])";
	spec.keyed = true;
	spec.columns = rr_columns;
	spec.ncolumns = 4;
	spec.nrequired = 3;
	spec.row_column = -1;
	spec.match = rr_match;
	spec.arg = rp;
	spec.stop = NULL;
	mm_replay_run(&spec, plan, &ncolumns);
	SPI_finish();
}

void
mm_rating_replay_free(MmRatingReplay *rp)
{
	pfree(rp->players);
	rr_free_match_arrays(rp);
}

static int
rr_id_cmp(const void *a, const void *b)
{
	int64		x = ((const MmRatingReplayPlayer *) a)->id;
	int64		y = ((const MmRatingReplayPlayer *) b)->id;

	return x < y ? -1 : (x > y ? 1 : 0);
}

void
mm_rating_replay_final(MmRatingReplay *rp, ReturnSetInfo *rsinfo)
{
	int			nstate = rp->model->nstate;

	/* the lookups are over: gather the ratings and order them by id */
	for (uint64 i = 0, j = 0; i < rp->nslots; i++)
		if (rr_slot(rp->players, rp->stride, i)->used)
			memmove(rr_slot(rp->players, rp->stride, j++),
					rr_slot(rp->players, rp->stride, i), rp->stride);
	if (!rp->direct)
		qsort(rp->players, rp->nplayers, rp->stride, rr_id_cmp);
	for (int64 i = 0; i < rp->nplayers; i++)
	{
		const MmRatingReplayPlayer *pl = rr_slot(rp->players, rp->stride, i);
		Datum		values[2 + MM_RATING_MAX_STATE];
		bool		nulls[2 + MM_RATING_MAX_STATE] = {false};

		values[0] = Int64GetDatum(pl->id);
		if (rp->packed)
		{
			values[1] = mm_rating_state_datum(rp->model, pl->state);
			values[2] = Int64GetDatum(pl->matches);
		}
		else
		{
			for (int c = 0; c < nstate; c++)
				values[1 + c] = Float8GetDatum(pl->state[c]);
			values[1 + nstate] = rp->games_int4 ? Int32GetDatum(pl->matches) : Int64GetDatum(pl->matches);
		}
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

/* ---- the family-neutral replays: mm.rating_replay, _history, _calibration ---- */

/*
 * The arguments shared by the three: (model text, games text, initial text,
 * options jsonb), only initial may be NULL. options are the family's
 * options, as a queue config's "rating.options": the family's parameters
 * and a new player's state come from them as a queue's do.
 */
static void
rr_generic_args(FunctionCallInfo fcinfo, MmRatingReplay *rp, MmRatingReplayMode mode)
{
	char	   *name;
	Jsonb	   *options;
	void	   *opts;

	mm_args_not_null(fcinfo, UINT64CONST(1) << 2);
	name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	options = PG_GETARG_JSONB_P(3);
	memset(rp, 0, sizeof(*rp));
	rp->model = mm_rating_model_find(name);
	if (rp->model == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("rating model \"%s\" is unknown", name),
				 errhint("Use %s.", mm_rating_model_names())));
	opts = mm_rating_options_read(rp->model, options, "options", NULL);
	rp->params = rp->model->queue_params(opts);
	rp->model->defaults(opts, rp->initial);
	rp->mode = mode;
	rp->packed = true;
	mm_rating_replay_check_initial(rp);
}

static void
rr_generic_run(FunctionCallInfo fcinfo, MmRatingReplay *rp)
{
	mm_rating_replay_run(rp, text_to_cstring(PG_GETARG_TEXT_PP(1)),
						 PG_ARGISNULL(2) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(2)));
}

PG_FUNCTION_INFO_V1(mm_rating_replay);

/*
 * mm.rating_replay(model text, games text, initial text DEFAULT NULL,
 *					options jsonb DEFAULT '{}')
 *		-> TABLE(player_id bigint, state float8[], games bigint)
 */
Datum
mm_rating_replay(PG_FUNCTION_ARGS)
{
	MmRatingReplay rp;

	rr_generic_args(fcinfo, &rp, MM_RATING_REPLAY_FINAL);
	InitMaterializedSRF(fcinfo, 0);
	rr_generic_run(fcinfo, &rp);
	mm_rating_replay_final(&rp, (ReturnSetInfo *) fcinfo->resultinfo);
	mm_rating_replay_free(&rp);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(mm_rating_history);

/*
 * mm.rating_history(same arguments as rating_replay)
 *		-> TABLE(game, game_key, player_id, team, rank, win_probability,
 *				 state_before float8[], state_after float8[])
 */
Datum
mm_rating_history(PG_FUNCTION_ARGS)
{
	MmRatingReplay rp;

	rr_generic_args(fcinfo, &rp, MM_RATING_REPLAY_HISTORY);
	InitMaterializedSRF(fcinfo, 0);
	rp.rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	rr_generic_run(fcinfo, &rp);
	mm_rating_replay_free(&rp);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(mm_rating_calibration);

/* mm.rating_calibration(same arguments as rating_replay, bins int DEFAULT 10) -> jsonb */
Datum
mm_rating_calibration(PG_FUNCTION_ARGS)
{
	MmRatingReplay rp;

	rr_generic_args(fcinfo, &rp, MM_RATING_REPLAY_CALIBRATION);
	if (PG_ARGISNULL(4))
		mm_null_arg("bins");
	mm_calibration_init(&rp.cal, PG_GETARG_INT32(4));
	rr_generic_run(fcinfo, &rp);
	mm_rating_replay_free(&rp);
	PG_RETURN_JSONB_P(mm_calibration_jsonb(&rp.cal));
}
