/*-------------------------------------------------------------------------
 *
 * openskill_replay.c
 *		Replay a whole match history through a Weng-Lin model in one call:
 *		mm.replay_openskill(history text, initial text, model, options...)
 *		-> TABLE(player_id, mu, sigma, matches).
 *
 * The history query yields (match key, player_id, team, rank[, weight]) in
 * play order; the rows of a match are consecutive (a new match starts when
 * the key changes). The optional initial query yields (player_id, mu,
 * sigma); players missing from it start at the mu and sigma arguments.
 * Each match is rated exactly as mm.openskill_rate rates it (openskill.c),
 * so replaying equals rating the matches one by one. Rows are read through
 * a cursor in batches, ratings live in a hash table keyed by player id.
 *
 *-------------------------------------------------------------------------
 */
#include "openskill.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#define REPLAY_BATCH 10000

typedef struct ReplayPlayer
{
	int64		id;				/* hash key */
	double		mu;
	double		sigma;
	int32		matches;
} ReplayPlayer;

/* The rows of the match being collected. */
typedef struct ReplayMatch
{
	int			n;
	int			cap;
	int64	   *player;
	int64	   *team;
	double	   *rank;
	double	   *weight;
	double	   *mu;
	double	   *sigma;
} ReplayMatch;

/* A numeric column value as double (integer, float or numeric types). */
static double
replay_double(Datum d, Oid type, const char *what)
{
	switch (type)
	{
		case INT2OID:
			return DatumGetInt16(d);
		case INT4OID:
			return DatumGetInt32(d);
		case INT8OID:
			return (double) DatumGetInt64(d);
		case FLOAT4OID:
			return DatumGetFloat4(d);
		case FLOAT8OID:
			return DatumGetFloat8(d);
		case NUMERICOID:
			return DatumGetFloat8(DirectFunctionCall1(numeric_float8, d));
	}
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("column %s must be of a numeric type", what),
			 errdetail("It is of type %s.", format_type_be(type)),
			 errhint("Cast it, e.g. %s::float8.", what)));
	return 0.0;					/* not reached */
}

/* An integer column value as int64 (smallint, integer or bigint). */
static int64
replay_int(Datum d, Oid type, const char *what)
{
	if (type != INT2OID && type != INT4OID && type != INT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column %s must be of an integer type", what),
				 errdetail("It is of type %s.", format_type_be(type)),
				 errhint("Cast it, e.g. %s::bigint.", what)));
	return type == INT8OID ? DatumGetInt64(d) : (int64) replay_double(d, type, what);
}

/* Get a non-NULL column of an SPI row. */
static Datum
replay_col(HeapTuple tup, TupleDesc desc, int col, const char *what)
{
	bool		isnull;
	Datum		d = SPI_getbinval(tup, desc, col, &isnull);

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("column %s of the history must not be NULL", what),
				 errhint("Filter such rows out of the history query.")));
	return d;
}

/* Find or create a player's rating. */
static ReplayPlayer *
replay_player(HTAB *players, int64 id, double mu0, double sigma0)
{
	bool		found;
	ReplayPlayer *pl = hash_search(players, &id, HASH_ENTER, &found);

	if (!found)
	{
		pl->mu = mu0;
		pl->sigma = sigma0;
		pl->matches = 0;
	}
	return pl;
}

/* Rate the collected match and store the new ratings. */
static void
replay_flush(ReplayMatch *m, HTAB *players, const MmOsOptions *o, bool weighted,
			 double mu0, double sigma0, MemoryContext tmp)
{
	MemoryContext old;
	MmOsGame	g;
	double	   *mu_out,
			   *sigma_out;

	if (m->n == 0)
		return;
	old = MemoryContextSwitchTo(tmp);
	for (int i = 0; i < m->n; i++)
	{
		ReplayPlayer *pl = replay_player(players, m->player[i], mu0, sigma0);

		for (int j = 0; j < i; j++)
			if (m->player[j] == m->player[i])
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("player " INT64_FORMAT " appears twice in one match", m->player[i]),
						 errhint("Give each match a distinct key, and order the history by it.")));
		m->mu[i] = pl->mu;
		m->sigma[i] = pl->sigma;
	}
	mm_os_build_game(&g, m->n, m->team, m->rank, NULL, m->mu, m->sigma,
					 weighted ? m->weight : NULL);
	mu_out = palloc(sizeof(double) * m->n);
	sigma_out = palloc(sizeof(double) * m->n);
	mm_os_rate(&g, o, mu_out, sigma_out);
	for (int i = 0; i < m->n; i++)
	{
		ReplayPlayer *pl = hash_search(players, &m->player[i], HASH_FIND, NULL);

		pl->mu = mu_out[i];
		pl->sigma = sigma_out[i];
		pl->matches++;
	}
	MemoryContextSwitchTo(old);
	MemoryContextReset(tmp);
	m->n = 0;
}

/* Load the initial ratings query into the hash table. */
static void
replay_initial(const char *query, HTAB *players)
{
	int			rc = SPI_execute(query, true, 0);
	TupleDesc	desc;

	if (rc != SPI_OK_SELECT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("initial must be a query returning rows"),
				 errhint("Pass e.g. 'SELECT player_id, mu, sigma FROM ratings'.")));
	desc = SPI_tuptable->tupdesc;
	if (desc->natts != 3)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("initial query must return 3 columns (player_id, mu, sigma)"),
				 errdetail("It returns %d.", desc->natts)));
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		HeapTuple	tup = SPI_tuptable->vals[r];
		int64		id = replay_int(replay_col(tup, desc, 1, "player_id"),
									SPI_gettypeid(desc, 1), "player_id");
		double		mu = replay_double(replay_col(tup, desc, 2, "mu"),
									   SPI_gettypeid(desc, 2), "mu");
		double		sigma = replay_double(replay_col(tup, desc, 3, "sigma"),
										  SPI_gettypeid(desc, 3), "sigma");
		bool		found;
		ReplayPlayer *pl;

		mm_check_finite(mu, "mu");
		mm_check_positive(sigma, "sigma");
		pl = hash_search(players, &id, HASH_ENTER, &found);
		if (found)
			ereport(ERROR,
					(errcode(ERRCODE_UNIQUE_VIOLATION),
					 errmsg("player " INT64_FORMAT " appears twice in the initial ratings", id)));
		pl->mu = mu;
		pl->sigma = sigma;
		pl->matches = 0;
	}
	SPI_freetuptable(SPI_tuptable);
}

static int
replay_cmp(const void *a, const void *b)
{
	int64		x = (*(ReplayPlayer *const *) a)->id;
	int64		y = (*(ReplayPlayer *const *) b)->id;

	return x < y ? -1 : (x > y ? 1 : 0);
}

PG_FUNCTION_INFO_V1(mm_replay_openskill);

/* mm.replay_openskill(history, initial, model, beta, kappa, tau, limit_sigma, mu, sigma, z, alpha, target, balance, epsilon) */
Datum
mm_replay_openskill(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MemoryContext caller = CurrentMemoryContext;
	MemoryContext tmp;
	MemoryContext rowcxt;
	MmOsOptions o;
	double		mu0,
				sigma0;
	HASHCTL		ctl;
	HTAB	   *players;
	ReplayMatch m;
	SPIPlanPtr	plan;
	Portal		portal;
	bool		weighted = false;
	bool		have_key = false;
	bool		key_byval = false;
	Oid			key_type = InvalidOid;
	Datum		key_val = 0;
	char	   *key_str = NULL;
	Oid			key_out;
	bool		key_varlena;
	HASH_SEQ_STATUS seq;
	ReplayPlayer **all;
	ReplayPlayer *pl;
	long		count;

	for (int i = 0; i < PG_NARGS(); i++)
		if (i != 1 && PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("argument %d of replay_openskill must not be NULL", i + 1),
					 errhint("Only initial may be NULL.")));
	mm_os_default_options(&o);
	o.model = mm_os_parse_model(text_to_cstring(PG_GETARG_TEXT_PP(2)));
	o.beta = PG_GETARG_FLOAT8(3);
	o.kappa = PG_GETARG_FLOAT8(4);
	o.tau = PG_GETARG_FLOAT8(5);
	o.limit_sigma = PG_GETARG_BOOL(6);
	mu0 = PG_GETARG_FLOAT8(7);
	sigma0 = PG_GETARG_FLOAT8(8);
	o.z = PG_GETARG_FLOAT8(9);
	o.alpha = PG_GETARG_FLOAT8(10);
	o.target = PG_GETARG_FLOAT8(11);
	o.balance = PG_GETARG_BOOL(12);
	o.epsilon = PG_GETARG_FLOAT8(13);
	mm_os_check_options(&o);
	mm_check_finite(mu0, "mu");
	mm_check_positive(sigma0, "sigma");

	InitMaterializedSRF(fcinfo, 0);

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(int64);
	ctl.entrysize = sizeof(ReplayPlayer);
	ctl.hcxt = caller;
	players = hash_create("mm replay_openskill players", 1024, &ctl,
						  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	tmp = AllocSetContextCreate(caller, "mm replay_openskill match",
								ALLOCSET_DEFAULT_SIZES);
	rowcxt = AllocSetContextCreate(caller, "mm replay_openskill rows",
								   ALLOCSET_DEFAULT_SIZES);
	m.n = 0;
	m.cap = 16;
	m.player = palloc(sizeof(int64) * m.cap);
	m.team = palloc(sizeof(int64) * m.cap);
	m.rank = palloc(sizeof(double) * m.cap);
	m.weight = palloc(sizeof(double) * m.cap);
	m.mu = palloc(sizeof(double) * m.cap);
	m.sigma = palloc(sizeof(double) * m.cap);

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (!PG_ARGISNULL(1))
		replay_initial(text_to_cstring(PG_GETARG_TEXT_PP(1)), players);

	plan = mm_prepare_rows_query(text_to_cstring(PG_GETARG_TEXT_PP(0)), "history",
								 "Pass e.g. 'SELECT match_id, player_id, team, rank FROM results ORDER BY match_id'.");
	portal = SPI_cursor_open(NULL, plan, NULL, NULL, true);
	for (;;)
	{
		TupleDesc	desc;
		MemoryContext spicxt;

		SPI_cursor_fetch(portal, true, REPLAY_BATCH);
		if (SPI_processed == 0)
			break;
		desc = SPI_tuptable->tupdesc;
		if (!have_key)
		{
			if (desc->natts != 4 && desc->natts != 5)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("history query must return 4 or 5 columns (match key, player_id, team, rank[, weight])"),
						 errdetail("It returns %d.", desc->natts)));
			weighted = desc->natts == 5;
			key_type = SPI_gettypeid(desc, 1);
			key_byval = (key_type == INT2OID || key_type == INT4OID || key_type == INT8OID);
			getTypeOutputInfo(key_type, &key_out, &key_varlena);
		}
		/* what converting a batch's values allocates is freed with it */
		spicxt = MemoryContextSwitchTo(rowcxt);
		for (uint64 r = 0; r < SPI_processed; r++)
		{
			HeapTuple	tup = SPI_tuptable->vals[r];
			Datum		k = replay_col(tup, desc, 1, "match key");
			bool		same;

			if (key_byval)
			{
				int64		kv = replay_int(k, key_type, "match key");

				same = have_key && DatumGetInt64(key_val) == kv;
				key_val = Int64GetDatum(kv);
			}
			else
			{
				char	   *s = OidOutputFunctionCall(key_out, k);

				same = have_key && strcmp(s, key_str) == 0;
				if (same)
					pfree(s);
				else
				{
					MemoryContext old = MemoryContextSwitchTo(caller);

					if (key_str)
						pfree(key_str);
					key_str = pstrdup(s);
					MemoryContextSwitchTo(old);
					pfree(s);
				}
			}
			if (have_key && !same)
			{
				CHECK_FOR_INTERRUPTS();
				replay_flush(&m, players, &o, weighted, mu0, sigma0, tmp);
			}
			have_key = true;
			if (m.n == m.cap)
			{
				m.cap *= 2;
				m.player = repalloc(m.player, sizeof(int64) * m.cap);
				m.team = repalloc(m.team, sizeof(int64) * m.cap);
				m.rank = repalloc(m.rank, sizeof(double) * m.cap);
				m.weight = repalloc(m.weight, sizeof(double) * m.cap);
				m.mu = repalloc(m.mu, sizeof(double) * m.cap);
				m.sigma = repalloc(m.sigma, sizeof(double) * m.cap);
			}
			m.player[m.n] = replay_int(replay_col(tup, desc, 2, "player_id"),
									   SPI_gettypeid(desc, 2), "player_id");
			m.team[m.n] = replay_int(replay_col(tup, desc, 3, "team"),
									 SPI_gettypeid(desc, 3), "team");
			m.rank[m.n] = replay_double(replay_col(tup, desc, 4, "rank"),
										SPI_gettypeid(desc, 4), "rank");
			if (weighted)
				m.weight[m.n] = replay_double(replay_col(tup, desc, 5, "weight"),
											  SPI_gettypeid(desc, 5), "weight");
			m.n++;
		}
		MemoryContextSwitchTo(spicxt);
		MemoryContextReset(rowcxt);
		SPI_freetuptable(SPI_tuptable);
	}
	replay_flush(&m, players, &o, weighted, mu0, sigma0, tmp);
	SPI_cursor_close(portal);
	SPI_finish();

	/* the players, by id */
	count = hash_get_num_entries(players);
	all = palloc(sizeof(ReplayPlayer *) * Max(count, 1));
	count = 0;
	hash_seq_init(&seq, players);
	while ((pl = hash_seq_search(&seq)) != NULL)
		all[count++] = pl;
	qsort(all, count, sizeof(ReplayPlayer *), replay_cmp);
	for (long i = 0; i < count; i++)
	{
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};

		values[0] = Int64GetDatum(all[i]->id);
		values[1] = Float8GetDatum(all[i]->mu);
		values[2] = Float8GetDatum(all[i]->sigma);
		values[3] = Int32GetDatum(all[i]->matches);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	hash_destroy(players);
	MemoryContextDelete(tmp);
	MemoryContextDelete(rowcxt);
	return (Datum) 0;
}
