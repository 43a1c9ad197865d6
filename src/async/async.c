/*-------------------------------------------------------------------------
 *
 * async.c
 *		Async opponents: the pool configuration, MMR bucketing and the search
 *		order of the Metaplay asynchronous matchmaker (Metaplay's async matchmaker documentation).
 *
 * Metaplay's async matchmaker documentation divides offline players into Buckets by MMR: the range
 * [min_mmr, max_mmr] is cut into mmr_bucket_count equal slices, a player at
 * or near the minimum gets label 0 and one at or near the maximum gets
 * mmr_bucket_count - 1 (values outside the range are clamped to the edge
 * buckets). A query searches its own bucket and alternates with the
 * adjacent bucket on the side of the query's MMR, so that a query near a
 * bucket edge sees opponents on both sides of the edge; every retry widens
 * the search by buckets_per_retry buckets on each side ("find players
 * outside the normal MMR range if the matchmaker doesn't see any").
 *
 * That arithmetic and the pool configuration (its keys mirror Metaplay's
 * options in snake_case) are async_config.c; the direct reads and row
 * locks of the pool tables, and why they bypass the executor, are
 * async_store.c. This file holds the statements that write, the search of
 * mm.find_opponent and mm.offer_entry (which search and claim entries),
 * and the SQL functions. The pool tables and the SQL functions that put
 * and rebalance entries are in sql/parts/50_async.sql.
 *
 *-------------------------------------------------------------------------
 */
#include "async.h"
#include "mm_limits.h"
#include "statement.h"

#include <math.h>

#include "access/genam.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "common/pg_prng.h"
#include "executor/tuptable.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"

/* The retries of an offer or a search: 0 for a first attempt. */
static void
check_retries(int retries)
{
	if (retries < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("retries must not be negative"),
				 errdetail("The value is %d.", retries),
				 errhint("Pass 0 for a first attempt and count up on each retry.")));
}

/* Check an MMR argument. */
static void
check_mmr(double mmr)
{
	mm_check_finite(mmr, "mmr");
}

/* Compare two text Datums bytewise (the C collation), for sorting labels. */
static int
label_cmp(const void *a, const void *b)
{
	text	   *ta = DatumGetTextPP(*(const Datum *) a);
	text	   *tb = DatumGetTextPP(*(const Datum *) b);
	int			la = VARSIZE_ANY_EXHDR(ta);
	int			lb = VARSIZE_ANY_EXHDR(tb);
	int			r = memcmp(VARDATA_ANY(ta), VARDATA_ANY(tb), Min(la, lb));

	if (r != 0)
		return r;
	return (la > lb) - (la < lb);
}

/*
 * Hard labels as a set: refuse NULL and empty labels, sort bytewise, drop
 * duplicates.
 */
static ArrayType *
async_label_set(ArrayType *array)
{
	Datum	   *elems;
	int			n,
				kept = 0;

	n = mm_text_array(array, "labels", &elems);
	mm_check_list_length("labels", n, MM_LABELS_MAX);
	for (int i = 0; i < n; i++)
	{
		if (VARSIZE_ANY_EXHDR(DatumGetTextPP(elems[i])) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("labels must not be empty strings"),
					 errdetail("Element %d is an empty string.", i + 1),
					 errhint("Leave a label out instead of passing an empty string.")));
	}
	if (n > 1)
		qsort(elems, n, sizeof(Datum), label_cmp);
	for (int i = 0; i < n; i++)
	{
		if (kept > 0 && label_cmp(&elems[kept - 1], &elems[i]) == 0)
			continue;
		elems[kept++] = elems[i];
	}
	return DatumGetArrayTypeP(mm_text_datums_array(kept, elems));
}

/* Return a row of the function's OUT parameters; no value is NULL. */
static Datum
return_row(FunctionCallInfo fcinfo, Datum *values, bool *nulls)
{
	TupleDesc	tupdesc;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	Assert(tupdesc->natts <= 4);
	return HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc),
											 values, nulls));
}

/*
 * An interval bound for SQL: the edge buckets are unbounded, which SQL sees
 * as NULL rather than as an infinite number.
 */
static Datum
bound_datum(double bound, bool *isnull)
{
	*isnull = isinf(bound);
	return *isnull ? (Datum) 0 : Float8GetDatum(bound);
}

/*
 * Pool access: mm.find_opponent and mm.offer_entry.
 *
 * find_opponent reads the pool's row and the nearest entries through their
 * indexes directly (windowed scans of each side of the (pool, labels, mmr)
 * index), so a search plans and starts no statement. It locks the entry it
 * found directly too, by the tuple id of the version it saw, without waiting
 * (async_lock). What writes (removing an entry, counting a bucket, claiming
 * an entry changed since the search's snapshot with SKIP LOCKED) is a
 * statement run over SPI, through the executor's triggers and constraints. Every
 * statement is prepared once per backend and kept; tables are
 * schema-qualified and operators spelled OPERATOR(pg_catalog.x), so the
 * caller's search_path cannot change what they mean.
 *
 * No row counts a bucket's fill: it is counted when a decision needs it,
 * from the (pool, labels, mmr) index, and only up to the level the decision
 * is about, unless mm._async_fill_bound (a count mm.put_entry remembered,
 * plus every entry id handed out since) shows the bucket below that level. Lock order, the same wherever a pool is written: a player's
 * advisory lock (mm.put_entry), then entry rows, then a bucket's advisory
 * lock (mm.put_entry, taken last; while holding it, rows are only locked
 * with SKIP LOCKED). An offer locks the offered entry with SKIP LOCKED and
 * nothing else, so it never waits and never holds a lock a put waits for
 * while waiting itself.
 */
typedef enum AsyncPlan
{
	PLAN_ENTRY,					/* an entry's pool config, pool, labels */
	PLAN_LOCK,					/* claim an entry still in the searched range */
	PLAN_TAKE,					/* claim and remove an entry in one statement */
	PLAN_LOCK_ID,				/* claim an entry by id */
	PLAN_CAPACITY,				/* a bucket's rebalanced capacity */
	PLAN_FILL,					/* a bucket's fill, counted up to a limit */
	PLAN_FILL_BOUND,			/* at most this many entries in a bucket */
	PLAN_DELETE,				/* remove an entry */
	PLAN_DELETE_TID,			/* remove an entry this transaction holds locked */
	N_PLANS
} AsyncPlan;

#define EQ " OPERATOR(pg_catalog.=) "
#define MATCH_ENTRY " FROM mm.async_entries e WHERE e.pool" EQ "$pool AND e.labels" EQ "$labels"

static MmStatement plan_defs[N_PLANS] = {
	[PLAN_ENTRY] = {
		"SELECT p.config, e.pool, e.labels FROM mm.async_entries e"
		" JOIN mm.async_pools p ON p.pool" EQ "e.pool WHERE e.entry_id" EQ "$entry_id",
		{{"entry_id", INT8OID}}
	},
	[PLAN_LOCK] = {
		"SELECT e.player_id, e.mmr, e.model" MATCH_ENTRY
		" AND e.entry_id" EQ "$entry_id"
		" AND e.mmr OPERATOR(pg_catalog.>=) $lower AND e.mmr OPERATOR(pg_catalog.<) $upper"
		" FOR UPDATE OF e SKIP LOCKED",
		{{"pool", TEXTOID}, {"labels", TEXTARRAYOID}, {"entry_id", INT8OID},
		 {"lower", FLOAT8OID}, {"upper", FLOAT8OID}}
	},
	[PLAN_TAKE] = {
		"DELETE FROM mm.async_entries e WHERE e.entry_id" EQ
		"(SELECT x.entry_id FROM mm.async_entries x WHERE x.entry_id" EQ "$entry_id"
		" AND x.pool" EQ "$pool AND x.labels" EQ "$labels"
		" AND x.mmr OPERATOR(pg_catalog.>=) $lower AND x.mmr OPERATOR(pg_catalog.<) $upper"
		" FOR UPDATE OF x SKIP LOCKED)"
		" RETURNING e.player_id, e.mmr, e.model",
		{{"pool", TEXTOID}, {"labels", TEXTARRAYOID}, {"entry_id", INT8OID},
		 {"lower", FLOAT8OID}, {"upper", FLOAT8OID}}
	},
	[PLAN_LOCK_ID] = {
		"SELECT e.mmr FROM mm.async_entries e WHERE e.entry_id" EQ "$entry_id"
		" FOR UPDATE OF e SKIP LOCKED",
		{{"entry_id", INT8OID}}
	},
	[PLAN_CAPACITY] = {
		"SELECT s.capacity FROM mm.async_bucket_sizes s WHERE s.pool" EQ "$pool"
		" AND s.labels" EQ "$labels AND s.bucket" EQ "$bucket",
		{{"pool", TEXTOID}, {"labels", TEXTARRAYOID}, {"bucket", INT4OID}}
	},
	[PLAN_FILL] = {
		"SELECT pg_catalog.count(*) FROM (SELECT e.mmr" MATCH_ENTRY
		" AND e.mmr OPERATOR(pg_catalog.>=) $lower AND e.mmr OPERATOR(pg_catalog.<) $upper"
		" ORDER BY e.mmr LIMIT $limit) f",
		{{"pool", TEXTOID}, {"labels", TEXTARRAYOID}, {"lower", FLOAT8OID},
		 {"upper", FLOAT8OID}, {"limit", INT8OID}}
	},
	[PLAN_FILL_BOUND] = {
		"SELECT mm._async_fill_bound($pool, $labels, $bucket, $lower, $upper)",
		{{"pool", TEXTOID}, {"labels", TEXTARRAYOID}, {"bucket", INT4OID}, {"lower", FLOAT8OID},
		 {"upper", FLOAT8OID}}
	},
	[PLAN_DELETE] = {
		"DELETE FROM mm.async_entries e WHERE e.entry_id" EQ "$entry_id",
		{{"entry_id", INT8OID}}
	},
	[PLAN_DELETE_TID] = {
		"DELETE FROM mm.async_entries e WHERE e.ctid" EQ "$tid",
		{{"tid", TIDOID}}
	},
};

/* Start the arguments of one of the pool statements. */
static void
async_args(MmArgs *a, AsyncPlan which)
{
	mm_args_begin(a, &plan_defs[which]);
}

/* Arguments $pool and $labels, of the statements that search a pool. */
static void
async_args_pool(MmArgs *a, AsyncPlan which, Datum pool, Datum labels)
{
	mm_args_begin(a, &plan_defs[which]);
	mm_arg(a, "pool", pool);
	mm_arg(a, "labels", labels);
}

/* Run one of the pool statements (inside SPI); returns the rows it gave. */
static uint64
async_exec(MmArgs *a)
{
	int			rc = mm_execute(a, false, 0);

	if (rc != SPI_OK_SELECT && rc != SPI_OK_DELETE && rc != SPI_OK_DELETE_RETURNING)
		elog(ERROR, "SPI_execute_plan failed: %s", SPI_result_code_string(rc));
	return SPI_processed;
}

/* Column col (1-based) of row row of the last statement's result. */
static Datum
async_value(uint64 row, int col, bool *isnull)
{
	return SPI_getbinval(SPI_tuptable->vals[row], SPI_tuptable->tupdesc, col, isnull);
}

/* Capacity of a bucket: its rebalanced size, else bucket_initial_size. */
static int
async_capacity(const AsyncConfig *c, Datum pool, Datum labels, int bucket)
{
	MmArgs		a;
	bool		isnull;

	async_args_pool(&a, PLAN_CAPACITY, pool, labels);
	mm_arg(&a, "bucket", Int32GetDatum(bucket));
	if (async_exec(&a) == 0)
		return c->bucket_initial_size;
	return DatumGetInt32(async_value(0, 1, &isnull));
}

/*
 * Whether an offered entry at mmr is removed: its bucket holds at least
 * threshold * capacity entries. The fill is counted only up to that level.
 */
static bool
async_remove_after_offer(const AsyncConfig *c, Datum pool, Datum labels, double mmr)
{
	int			b;
	double		need;
	MmArgs		a;
	Datum		bound;
	bool		isnull;

	if (c->remove_threshold_null)
		return false;
	if (c->remove_threshold <= 0)
		return true;
	b = async_bucket(c, mmr);
	/* fill >= t * capacity, for an integer fill */
	need = ceil(c->remove_threshold * async_capacity(c, pool, labels, b));
	/* a bucket known to hold fewer is not counted */
	async_args_pool(&a, PLAN_FILL_BOUND, pool, labels);
	mm_arg(&a, "bucket", Int32GetDatum(b));
	mm_arg(&a, "lower", Float8GetDatum(async_bound(c, b)));
	mm_arg(&a, "upper", Float8GetDatum(async_bound(c, b + 1)));
	async_exec(&a);
	bound = async_value(0, 1, &isnull);
	if (!isnull && (double) DatumGetInt64(bound) < need)
		return false;
	async_args_pool(&a, PLAN_FILL, pool, labels);
	mm_arg(&a, "lower", Float8GetDatum(async_bound(c, b)));
	mm_arg(&a, "upper", Float8GetDatum(async_bound(c, b + 1)));
	mm_arg(&a, "limit", Int64GetDatum((int64) need));
	async_exec(&a);
	return DatumGetInt64(async_value(0, 1, &isnull)) >= need;
}

/* Remove an entry this transaction holds locked. */
static void
async_delete(int64 entry_id)
{
	MmArgs		a;

	async_args(&a, PLAN_DELETE);
	mm_arg(&a, "entry_id", Int64GetDatum(entry_id));
	async_exec(&a);
}

/* The last pool config find_opponent and offer_entry parsed, for the backend. */
static AsyncConfigCache find_config;

typedef enum AsyncFindResult
{
	FIND_NONE,					/* nobody eligible */
	FIND_FOUND					/* *found claimed */
} AsyncFindResult;

/*
 * Find the best opponent: the nearest MMR in the searched interval, above
 * or below (a tie either way at random: Metaplay's matchmaker iterates
 * candidates in random order), that no concurrent query holds; claim it and remove it per
 * the pool's threshold. An entry held by a concurrent query is skipped,
 * never waited for.
 */
static AsyncFindResult
async_find(AsyncRels *rels, const AsyncConfig *c, const AsyncQuery *q, AsyncCandidate *found)
{
	int64	   *skipped = palloc(sizeof(int64) * 8);
	int			nskipped = 0,
				maxskipped = 8;

	for (;;)
	{
		AsyncCandidate up,
					down;
		bool		claimed = true;
		bool		isnull;

		CHECK_FOR_INTERRUPTS();
		/* the caller's snapshot for the first round, a new one after a claim failed */
		if (nskipped > 0)
		{
			PopActiveSnapshot();
			async_push_snapshot();
		}
		/* below, only as far as the entry found above: a farther one loses */
		async_nearest(rels, q, true, INFINITY, skipped, nskipped, &up);
		async_nearest(rels, q, false, up.found ? up.mmr - q->mmr : INFINITY,
					  skipped, nskipped, &down);
		if (!up.found && !down.found)
			return FIND_NONE;
		if (!down.found ||
			(up.found && (up.mmr - q->mmr < q->mmr - down.mmr ||
						  (up.mmr - q->mmr == q->mmr - down.mmr &&
						   pg_prng_double(&pg_global_prng_state) < 0.5))))
			*found = up;
		else
			*found = down;

		if (!c->remove_threshold_null)
		{
			/*
			 * Claim it; it may have moved inside the range meanwhile. Removed
			 * whatever the fill (threshold 0) and no minimum quality to check
			 * on its latest MMR: claim and remove it in one statement.
			 */
			MmArgs		a;
			bool		take = c->remove_threshold <= 0 && c->min_quality_null;
			AsyncLock	locked = async_lock(rels, found, take);

			if (!rels->spi)
			{
				if (SPI_connect() != SPI_OK_CONNECT)
					elog(ERROR, "SPI_connect failed");
				rels->spi = true;
			}
			if (locked == LOCK_OK)
			{
				claimed = true;
				if (take)
				{
					async_args(&a, PLAN_DELETE_TID);
					mm_arg(&a, "tid", PointerGetDatum(&found->tid));
					if (async_exec(&a) != 1)
						elog(ERROR, "entry " INT64_FORMAT " locked but not removed",
							 found->entry_id);
					return FIND_FOUND;
				}
			}
			else if (locked == LOCK_HELD)
				claimed = false;
			else
			{
				async_args_pool(&a, take ? PLAN_TAKE : PLAN_LOCK, q->pool, q->labels);
				mm_arg(&a, "entry_id", Int64GetDatum(found->entry_id));
				mm_arg(&a, "lower", Float8GetDatum(q->lower));
				mm_arg(&a, "upper", Float8GetDatum(q->upper));
				claimed = async_exec(&a) == 1;
				if (claimed)
				{
					found->player_id = DatumGetInt64(async_value(0, 1, &isnull));
					found->mmr = DatumGetFloat8(async_value(0, 2, &isnull));
					found->model = async_value(0, 3, &found->model_null);
					if (take)
						return FIND_FOUND;
				}
			}
		}
		if (claimed)
		{
			/* the nearest has the best quality: if it is not good enough, nobody is */
			if (!c->min_quality_null &&
				c->max_difference - fabs(found->mmr - q->mmr) < c->min_quality)
				return FIND_NONE;
			if (async_remove_after_offer(c, q->pool, q->labels, found->mmr))
				async_delete(found->entry_id);
			return FIND_FOUND;
		}
		/* held by a concurrent query (or moved out): try the next nearest */
		if (nskipped == maxskipped)
		{
			maxskipped *= 2;
			skipped = repalloc(skipped, sizeof(int64) * maxskipped);
		}
		skipped[nskipped++] = found->entry_id;
	}
}

/* SQL wrappers */

PG_FUNCTION_INFO_V1(mm_async_config);
PG_FUNCTION_INFO_V1(mm_async_bucket);
PG_FUNCTION_INFO_V1(mm_async_bucket_bounds);
PG_FUNCTION_INFO_V1(mm_async_search);
PG_FUNCTION_INFO_V1(mm_async_labels);
PG_FUNCTION_INFO_V1(mm_find_opponent);
PG_FUNCTION_INFO_V1(mm_offer_entry);

/* mm.async_config(config jsonb) → jsonb: checked, with every default */
Datum
mm_async_config(PG_FUNCTION_ARGS)
{
	AsyncConfig c;

	async_config_parse(PG_GETARG_JSONB_P(0), &c);
	PG_RETURN_JSONB_P(mm_config_jsonb(async_config_keys, &c));
}

/* mm.async_bucket(config jsonb, mmr float8) → int */
Datum
mm_async_bucket(PG_FUNCTION_ARGS)
{
	const AsyncConfig *c = async_config_arg(fcinfo, 0);
	double		mmr = PG_GETARG_FLOAT8(1);

	check_mmr(mmr);
	PG_RETURN_INT32(async_bucket(c, mmr));
}

/*
 * mm.async_bucket_bounds(config jsonb, first int, last int,
 *                        OUT lower_mmr float8, OUT upper_mmr float8)
 * The MMR interval [lower, upper) covered by buckets first..last.
 */
Datum
mm_async_bucket_bounds(PG_FUNCTION_ARGS)
{
	const AsyncConfig *c = async_config_arg(fcinfo, 0);
	int32		first = PG_GETARG_INT32(1);
	int32		last = PG_GETARG_INT32(2);
	Datum		values[2];
	bool		nulls[2] = {false, false};

	if (first < 0 || last >= c->mmr_bucket_count || first > last)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bucket range is out of range"),
				 errdetail("The range is %d to %d.", first, last),
				 errhint("Buckets are numbered 0 to %d, first <= last.",
						 c->mmr_bucket_count - 1)));
	values[0] = bound_datum(async_bound(c, first), &nulls[0]);
	values[1] = bound_datum(async_bound(c, last + 1), &nulls[1]);
	PG_RETURN_DATUM(return_row(fcinfo, values, nulls));
}

/*
 * mm.async_search(config jsonb, mmr float8, retries int,
 *                 OUT bucket int, OUT buckets int[],
 *                 OUT lower_mmr float8, OUT upper_mmr float8)
 * The query's bucket, the buckets searched in visiting order and the MMR
 * interval [lower, upper) they cover.
 */
Datum
mm_async_search(PG_FUNCTION_ARGS)
{
	const AsyncConfig *c = async_config_arg(fcinfo, 0);
	double		mmr = PG_GETARG_FLOAT8(1);
	int32		retries = PG_GETARG_INT32(2);
	int		   *order;
	int			count,
				lo,
				hi;
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};

	check_mmr(mmr);
	check_retries(retries);
	order = palloc(sizeof(int) * c->mmr_bucket_count);
	count = async_search_order(c, mmr, retries, order);
	lo = hi = order[0];
	for (int i = 0; i < count; i++)
	{
		lo = Min(lo, order[i]);
		hi = Max(hi, order[i]);
	}
	values[0] = Int32GetDatum(order[0]);
	values[1] = mm_int4_array_datum(count, order, NULL);
	values[2] = bound_datum(async_bound(c, lo), &nulls[2]);
	values[3] = bound_datum(async_bound(c, hi + 1), &nulls[3]);
	PG_RETURN_DATUM(return_row(fcinfo, values, nulls));
}

/*
 * mm.async_labels(labels text[]) → text[]: hard labels as a set, sorted
 * bytewise and without duplicates, so that equal sets compare equal.
 */
Datum
mm_async_labels(PG_FUNCTION_ARGS)
{
	PG_RETURN_ARRAYTYPE_P(async_label_set(PG_GETARG_ARRAYTYPE_P(0)));
}

/* Refuse a NULL argument of a find query. */
static void
check_not_null(FunctionCallInfo fcinfo, int argno, const char *name, const char *hint)
{
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be NULL", name),
				 errhint("%s", hint)));
}

/* The ids never offered: exclude, plus the searcher when given. */
static int
excluded_ids(ArrayType *exclude, bool has_searcher, int64 searcher, int64 **ids)
{
	int64	   *given;
	int			n = mm_int8_array(exclude, "exclude", &given);

	mm_check_list_length("exclude", n, MM_CALL_IDS_MAX);
	*ids = palloc(sizeof(int64) * (n + 1));
	for (int i = 0; i < n; i++)
		(*ids)[i] = given[i];
	if (has_searcher)
		(*ids)[n++] = searcher;
	return n;
}

/*
 * mm.find_opponent(pool text, mmr float8, labels text[], retries int,
 *                  exclude bigint[], searcher bigint)
 *	 RETURNS TABLE(result text, player_id bigint, mmr float8, quality float8,
 *				   model jsonb)
 * Exactly one row: success, none_found or fake_opponent.
 */
Datum
mm_find_opponent(PG_FUNCTION_ARGS)
{
	const char *null_hint = "Pass a value (labels: '{}' for none, retries: 0 for a first attempt).";
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const AsyncConfig *c;
	AsyncConfig config;
	AsyncQuery	q;
	AsyncCandidate found;
	const AsyncFindCache *cache;
	AsyncRels	rels;
	AsyncFindResult result;
	int32		retries;
	int		   *order;
	int			count,
				lo,
				hi;
	Datum		values[5];
	bool		nulls[5] = {false, false, false, false, false};

	mm_require_primary("mm.find_opponent");
	check_not_null(fcinfo, 0, "pool", "Pass the name of a pool made with mm.create_pool.");
	check_not_null(fcinfo, 1, "mmr", null_hint);
	check_not_null(fcinfo, 2, "labels", null_hint);
	check_not_null(fcinfo, 3, "retries", null_hint);
	check_not_null(fcinfo, 4, "exclude", "Pass an empty array to exclude nobody.");
	q.mmr = PG_GETARG_FLOAT8(1);
	retries = PG_GETARG_INT32(3);
	check_mmr(q.mmr);
	check_retries(retries);
	q.pool = PG_GETARG_DATUM(0);
	q.labels = PointerGetDatum(async_label_set(PG_GETARG_ARRAYTYPE_P(2)));
	q.nexcluded = excluded_ids(PG_GETARG_ARRAYTYPE_P(4), !PG_ARGISNULL(5),
							   PG_ARGISNULL(5) ? 0 : PG_GETARG_INT64(5), &q.excluded);

	InitMaterializedSRF(fcinfo, 0);
	cache = async_find_cache();
	memset(&rels, 0, sizeof(rels));
	async_rels_open(&rels, cache);
	/* one snapshot for the config and the first search */
	async_push_snapshot();
	/* a copy: the backend's cache may be refilled by a nested call */
	config = *async_config_reuse(&find_config, TopMemoryContext,
								 async_read_config(&rels, q.pool));
	c = &config;

	/* the searched interval: the buckets async_search_order visits */
	order = palloc(sizeof(int) * c->mmr_bucket_count);
	count = async_search_order(c, q.mmr, retries, order);
	lo = hi = order[0];
	for (int i = 1; i < count; i++)
	{
		lo = Min(lo, order[i]);
		hi = Max(hi, order[i]);
	}
	q.lower = async_bound(c, lo);
	q.upper = async_bound(c, hi + 1);
	q.min_width = (c->max_mmr - c->min_mmr) / c->mmr_bucket_count * 1e-6;

	result = async_find(&rels, c, &q, &found);
	PopActiveSnapshot();
	async_rels_close(&rels);

	if (result == FIND_FOUND)
	{
		values[0] = CStringGetTextDatum("success");
		values[1] = Int64GetDatum(found.player_id);
		values[2] = Float8GetDatum(found.mmr);
		values[3] = Float8GetDatum(c->max_difference - fabs(found.mmr - q.mmr));
		values[4] = found.model;
		nulls[4] = found.model_null || !c->return_model;
	}
	else
	{
		values[0] = CStringGetTextDatum(c->enable_fake_opponents ?
										"fake_opponent" : "none_found");
		nulls[1] = nulls[3] = nulls[4] = true;
		values[2] = Float8GetDatum(q.mmr);
		nulls[2] = !c->enable_fake_opponents;
	}
	/* the tuplestore copies the row out of SPI's memory */
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	if (rels.spi)
		SPI_finish();
	return (Datum) 0;
}

/*
 * mm.offer_entry(entry_id bigint) → boolean: claim an entry picked from
 * mm.find_candidates; false if it is gone or a concurrent query holds it.
 */
Datum
mm_offer_entry(PG_FUNCTION_ARGS)
{
	const AsyncConfig *c;
	AsyncConfig config;
	Datum		entry_id;
	MmArgs		a;
	Datum		pool,
				labels;
	bool		isnull;
	bool		ok = false;

	mm_require_primary("mm.offer_entry");
	mm_args_not_null(fcinfo, 0);
	entry_id = PG_GETARG_DATUM(0);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	async_args(&a, PLAN_ENTRY);
	mm_arg(&a, "entry_id", entry_id);
	if (async_exec(&a) == 1)
	{
		config = *async_config_reuse(&find_config, TopMemoryContext,
									 DatumGetJsonbP(async_value(0, 1, &isnull)));
		c = &config;
		pool = async_value(0, 2, &isnull);
		labels = async_value(0, 3, &isnull);
		if (c->remove_threshold_null)
			ok = true;
		else
		{
			async_args(&a, PLAN_LOCK_ID);
			mm_arg(&a, "entry_id", entry_id);
			if (async_exec(&a) == 1)
			{
				double		mmr = DatumGetFloat8(async_value(0, 1, &isnull));

				ok = true;
				if (async_remove_after_offer(c, pool, labels, mmr))
					async_delete(DatumGetInt64(entry_id));
			}
		}
	}
	SPI_finish();
	PG_RETURN_BOOL(ok);
}
