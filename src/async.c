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
 * This file holds that arithmetic as plain C over a plain struct, the
 * pool configuration (its keys mirror Metaplay's options in snake_case),
 * and mm.find_opponent and mm.offer_entry, which search and claim entries.
 * The pool tables and the SQL functions that put and rebalance entries are
 * in sql/parts/50_async.sql.
 *
 *-------------------------------------------------------------------------
 */
#include "mm.h"
#include "config.h"

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

/* A pool's configuration (Metaplay's documentation's matchmaker options). */
typedef struct AsyncConfig
{
	double		min_mmr;		/* lower end of the bucketed MMR range */
	double		max_mmr;		/* upper end */
	int			mmr_bucket_count;	/* MmrBucketCount */
	int			bucket_initial_size;	/* BucketInitialSize: capacity */
	int			bucket_min_size;	/* smallest capacity after rebalancing */
	int			player_cache_size;	/* PlayerCacheSize: total for rebalancing */
	bool		player_cache_size_null;
	bool		allow_multiple_entries_per_player;
	double		remove_threshold;	/* remove after offer at this fill level */
	bool		remove_threshold_null;	/* null: never */
	double		ignore_threshold;	/* ignore new players at this fill level */
	bool		ignore_threshold_null;	/* null: never */
	bool		enable_fake_opponents;
	bool		return_model;	/* ReturnModelInQueryResponse */
	double		max_difference; /* quality = max_difference - |delta mmr| */
	double		min_quality;	/* candidates below are not eligible */
	bool		min_quality_null;	/* null: no minimum */
	int			buckets_per_retry;	/* widening per retry, each side */
} AsyncConfig;

#define AK(field) offsetof(AsyncConfig, field)

/* The pool config's keys (Metaplay's names in snake_case). */
static const MmConfigKey async_config_keys[] = {
	{.name = "min_mmr", .type = MM_CONFIG_FLOAT, .offset = AK(min_mmr),
		.min = -1e15, .max = 1e15, .def = 0, .unit = "mmr",
	.doc = "lower end of the bucketed MMR range"},
	{.name = "max_mmr", .type = MM_CONFIG_FLOAT, .offset = AK(max_mmr),
		.min = -1e15, .max = 1e15, .def = 3000, .unit = "mmr",
	.doc = "upper end of the bucketed MMR range (greater than min_mmr)"},
	{.name = "mmr_bucket_count", .type = MM_CONFIG_INT,
		.offset = AK(mmr_bucket_count), .min = 1, .max = 100000, .def = 10,
	.doc = "MmrBucketCount: equal slices of [min_mmr, max_mmr)"},
	{.name = "bucket_initial_size", .type = MM_CONFIG_INT,
		.offset = AK(bucket_initial_size), .min = 1, .max = 1e9, .def = 1000,
		.unit = "entries",
	.doc = "capacity of a bucket without a rebalanced size"},
	{.name = "bucket_min_size", .type = MM_CONFIG_INT,
		.offset = AK(bucket_min_size), .min = 1, .max = 1e9, .def = 10,
		.unit = "entries",
	.doc = "smallest capacity rebalancing gives"},
	{.name = "player_cache_size", .type = MM_CONFIG_INT,
		.flags = MM_CONFIG_NULLABLE, .offset = AK(player_cache_size),
		.null_offset = AK(player_cache_size_null), .min = 1, .max = 2e9,
		.def_null = true, .unit = "entries",
	.doc = "PlayerCacheSize: total shared out by mm.rebalance_pool (null: no rebalancing)"},
	{.name = "allow_multiple_entries_per_player", .type = MM_CONFIG_BOOL,
		.offset = AK(allow_multiple_entries_per_player), .def = 0,
	.doc = "AllowMultipleEntriesPerPlayer (then one per bucket)"},
	{.name = "player_remove_after_candidate_offer_threshold",
		.type = MM_CONFIG_FLOAT, .flags = MM_CONFIG_NULLABLE,
		.offset = AK(remove_threshold), .null_offset = AK(remove_threshold_null),
		.min = 0, .max = 1, .def = 0, .unit = "fill",
	.doc = "fill level at which an offered entry is removed (null: never)"},
	{.name = "player_ignore_update_insert_threshold",
		.type = MM_CONFIG_FLOAT, .flags = MM_CONFIG_NULLABLE,
		.offset = AK(ignore_threshold), .null_offset = AK(ignore_threshold_null),
		.min = 0, .max = 1, .def_null = true, .unit = "fill",
	.doc = "fill level at which new players are not added (null: never)"},
	{.name = "enable_fake_opponents", .type = MM_CONFIG_BOOL,
		.offset = AK(enable_fake_opponents), .def = 0,
	.doc = "EnableFakeOpponents"},
	{.name = "return_model_in_query_response", .type = MM_CONFIG_BOOL,
		.offset = AK(return_model), .def = 1,
	.doc = "ReturnModelInQueryResponse (false: model is NULL)"},
	{.name = "max_difference", .type = MM_CONFIG_FLOAT,
		.offset = AK(max_difference), .min = 0, .max = 1e15, .def = 300,
		.unit = "mmr",
	.doc = "quality = max_difference - abs(mmr difference)"},
	{.name = "min_quality", .type = MM_CONFIG_FLOAT, .flags = MM_CONFIG_NULLABLE,
		.offset = AK(min_quality), .null_offset = AK(min_quality_null),
		.min = -1e15, .max = 1e15, .def_null = true,
	.doc = "candidates below it are not eligible (null: any)"},
	{.name = "buckets_per_retry", .type = MM_CONFIG_INT,
		.offset = AK(buckets_per_retry), .min = 0, .max = 100000, .def = 1,
		.unit = "buckets",
	.doc = "buckets added on each side per retry"},
	{.name = NULL}
};

#undef AK

static void async_config_check(void *base, const char *what);

const MmConfigKind mm_pool_config_kind = {
	.kind = "pool", .what = "pool config", .keys = async_config_keys,
	.size = sizeof(AsyncConfig), .check = async_config_check
};

/* Parse and check a pool config; NULL gives the defaults. */
static void
async_config_parse(Jsonb *config, AsyncConfig *c)
{
	mm_config_read(&mm_pool_config_kind, config, c);
}

/* The checks between keys. */
static void
async_config_check(void *base, const char *what)
{
	const AsyncConfig *c = base;

	(void) what;

	if (c->max_mmr <= c->min_mmr)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("pool config key \"max_mmr\" must be greater than \"min_mmr\""),
				 errdetail("min_mmr is %g and max_mmr is %g.", c->min_mmr, c->max_mmr),
				 errhint("Give an MMR range with max_mmr > min_mmr.")));
	if (c->bucket_initial_size < c->bucket_min_size)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("pool config key \"bucket_initial_size\" must not be below \"bucket_min_size\""),
				 errdetail("bucket_initial_size is %d and bucket_min_size is %d.",
						   c->bucket_initial_size, c->bucket_min_size),
				 errhint("Raise bucket_initial_size or lower bucket_min_size.")));
	if (!c->player_cache_size_null && c->player_cache_size < c->bucket_min_size)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("pool config key \"player_cache_size\" must not be below \"bucket_min_size\""),
				 errdetail("player_cache_size is %d and bucket_min_size is %d.",
						   c->player_cache_size, c->bucket_min_size),
				 errhint("Raise player_cache_size or lower bucket_min_size.")));
}

/*
 * Lower MMR bound of bucket i, for 0 < i < n. Bucket i holds
 * [bound(i), bound(i + 1)); bucket 0 extends to -Infinity and bucket n - 1
 * to +Infinity, which clamps MMRs outside the range to the edge buckets.
 */
static double
async_bound(const AsyncConfig *c, int i)
{
	if (i <= 0)
		return -INFINITY;
	if (i >= c->mmr_bucket_count)
		return INFINITY;
	return c->min_mmr + (c->max_mmr - c->min_mmr) * i / c->mmr_bucket_count;
}

/*
 * Bucket label of an MMR: floor((mmr - min) / width), clamped, then
 * adjusted so that it agrees exactly with async_bound (rounding of the
 * division must not put an MMR on a bound into the wrong bucket).
 */
static int
async_bucket(const AsyncConfig *c, double mmr)
{
	int			n = c->mmr_bucket_count;
	double		x = (mmr - c->min_mmr) / (c->max_mmr - c->min_mmr) * n;
	int			b;

	if (x <= 0)
		b = 0;
	else if (x >= n)
		b = n - 1;
	else
		b = (int) floor(x);
	while (b < n - 1 && mmr >= async_bound(c, b + 1))
		b++;
	while (b > 0 && mmr < async_bound(c, b))
		b--;
	return b;
}

/*
 * The buckets a query searches, in the order they are visited: its own
 * bucket b, then the adjacent bucket b' on the side of the query's MMR
 * within b (upper half: b + 1, lower half: b - 1), then alternately
 * outwards from the pair. retries widen the pair by buckets_per_retry
 * buckets on each side. Returns the count; order must hold
 * mmr_bucket_count ints.
 */
static int
async_search_order(const AsyncConfig *c, double mmr, int retries, int *order)
{
	int			n = c->mmr_bucket_count;
	int			b = async_bucket(c, mmr);
	int			side;
	int			lo,
				hi,
				count = 0;
	double		widen = (double) retries * c->buckets_per_retry;
	double		mid;

	/* Which half of b the query lies in; the edge buckets are unbounded. */
	if (b == 0)
		side = 1;
	else if (b == n - 1)
		side = -1;
	else
	{
		mid = (async_bound(c, b) + async_bound(c, b + 1)) / 2;
		side = mmr >= mid ? 1 : -1;
	}
	lo = b;
	hi = b;
	if (b + side >= 0 && b + side < n)
	{
		lo = Min(b, b + side);
		hi = Max(b, b + side);
	}
	lo = (int) Max(0.0, lo - widen);
	hi = (int) Min((double) n - 1, hi + widen);

	/* b, b + side, b - side, b + 2 side, b - 2 side, ... inside [lo, hi] */
	order[count++] = b;
	for (int d = 1; d < n; d++)
	{
		int			near = b + side * d;
		int			far = b - side * d;

		if (near >= lo && near <= hi)
			order[count++] = near;
		if (far >= lo && far <= hi)
			order[count++] = far;
	}
	return count;
}

/*
 * A parsed config and the bytes it was parsed from, reused while the bytes
 * are the same: per call site (mm.async_bucket is called once per entry by
 * mm.pool_buckets and mm.rebalance_pool), or per backend (find_opponent and
 * offer_entry, which read the config from the pool's row on every call).
 */
typedef struct AsyncConfigCache
{
	Size		len;
	char	   *bytes;
	AsyncConfig config;
} AsyncConfigCache;

/* Parse a config, reusing the cache's last parse of the same bytes. */
static const AsyncConfig *
async_config_reuse(AsyncConfigCache *cache, MemoryContext cxt, Jsonb *config)
{
	Size		len = VARSIZE(config);

	if (cache->len == len && memcmp(cache->bytes, config, len) == 0)
		return &cache->config;
	/* parse first: an error must not leave a half-filled cache */
	cache->len = 0;
	async_config_parse(config, &cache->config);
	if (cache->bytes != NULL)
		pfree(cache->bytes);
	cache->bytes = MemoryContextAlloc(cxt, len);
	memcpy(cache->bytes, config, len);
	cache->len = len;
	return &cache->config;
}

/* Parse a config, reusing the call site's last parse of the same bytes. */
static const AsyncConfig *
async_config_cached(FunctionCallInfo fcinfo, Jsonb *config)
{
	if (fcinfo->flinfo->fn_extra == NULL)
		fcinfo->flinfo->fn_extra = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt,
														  sizeof(AsyncConfigCache));
	return async_config_reuse(fcinfo->flinfo->fn_extra, fcinfo->flinfo->fn_mcxt, config);
}

/* Parse the config argument, reusing the call site's last parse. */
static const AsyncConfig *
async_config_arg(FunctionCallInfo fcinfo, int argno)
{
	return async_config_cached(fcinfo, PG_GETARG_JSONB_P(argno));
}

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
	return construct_array(elems, kept, TEXTOID, -1, false, TYPALIGN_INT);
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
 * is about, unless mm.async_fill_bound (a count mm.put_entry remembered,
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
#define MATCH_ENTRY " FROM mm.async_entries e WHERE e.pool" EQ "$1 AND e.labels" EQ "$2"

static const MmStatement plan_defs[N_PLANS] =
{
	[PLAN_ENTRY] = {
		"SELECT p.config, e.pool, e.labels FROM mm.async_entries e"
		" JOIN mm.async_pools p ON p.pool" EQ "e.pool WHERE e.entry_id" EQ "$1",
		1, {INT8OID}
	},
	[PLAN_LOCK] = {
		"SELECT e.player_id, e.mmr, e.model" MATCH_ENTRY
		" AND e.entry_id" EQ "$3"
		" AND e.mmr OPERATOR(pg_catalog.>=) $4 AND e.mmr OPERATOR(pg_catalog.<) $5"
		" FOR UPDATE OF e SKIP LOCKED",
		5, {TEXTOID, TEXTARRAYOID, INT8OID, FLOAT8OID, FLOAT8OID}
	},
	[PLAN_TAKE] = {
		"DELETE FROM mm.async_entries e WHERE e.entry_id" EQ
		"(SELECT x.entry_id FROM mm.async_entries x WHERE x.entry_id" EQ "$3"
		" AND x.pool" EQ "$1 AND x.labels" EQ "$2"
		" AND x.mmr OPERATOR(pg_catalog.>=) $4 AND x.mmr OPERATOR(pg_catalog.<) $5"
		" FOR UPDATE OF x SKIP LOCKED)"
		" RETURNING e.player_id, e.mmr, e.model",
		5, {TEXTOID, TEXTARRAYOID, INT8OID, FLOAT8OID, FLOAT8OID}
	},
	[PLAN_LOCK_ID] = {
		"SELECT e.mmr FROM mm.async_entries e WHERE e.entry_id" EQ "$1"
		" FOR UPDATE OF e SKIP LOCKED",
		1, {INT8OID}
	},
	[PLAN_CAPACITY] = {
		"SELECT s.capacity FROM mm.async_bucket_sizes s WHERE s.pool" EQ "$1"
		" AND s.labels" EQ "$2 AND s.bucket" EQ "$3",
		3, {TEXTOID, TEXTARRAYOID, INT4OID}
	},
	[PLAN_FILL] = {
		"SELECT pg_catalog.count(*) FROM (SELECT e.mmr" MATCH_ENTRY
		" AND e.mmr OPERATOR(pg_catalog.>=) $3 AND e.mmr OPERATOR(pg_catalog.<) $4"
		" ORDER BY e.mmr LIMIT $5) f",
		5, {TEXTOID, TEXTARRAYOID, FLOAT8OID, FLOAT8OID, INT8OID}
	},
	[PLAN_FILL_BOUND] = {
		"SELECT mm.async_fill_bound($1, $2, $3, $4, $5)",
		5, {TEXTOID, TEXTARRAYOID, INT4OID, FLOAT8OID, FLOAT8OID}
	},
	[PLAN_DELETE] = {
		"DELETE FROM mm.async_entries e WHERE e.entry_id" EQ "$1",
		1, {INT8OID}
	},
	[PLAN_DELETE_TID] = {
		"DELETE FROM mm.async_entries e WHERE e.ctid" EQ "$1",
		1, {TIDOID}
	},
};

static SPIPlanPtr plans[N_PLANS];

/* Run one of the pool statements (inside SPI); returns the rows it gave. */
static uint64
async_exec(AsyncPlan which, Datum *values)
{
	int			rc = mm_statement_execute(&plan_defs[which], &plans[which], values, NULL, false, 0);

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
	Datum		values[3] = {pool, labels, Int32GetDatum(bucket)};
	bool		isnull;

	if (async_exec(PLAN_CAPACITY, values) == 0)
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
	Datum		values[5];
	Datum		bound;
	bool		isnull;

	if (c->remove_threshold_null)
		return false;
	if (c->remove_threshold <= 0)
		return true;
	b = async_bucket(c, mmr);
	/* fill >= t * capacity, for an integer fill */
	need = ceil(c->remove_threshold * async_capacity(c, pool, labels, b));
	values[0] = pool;
	values[1] = labels;
	/* a bucket known to hold fewer is not counted */
	values[2] = Int32GetDatum(b);
	values[3] = Float8GetDatum(async_bound(c, b));
	values[4] = Float8GetDatum(async_bound(c, b + 1));
	async_exec(PLAN_FILL_BOUND, values);
	bound = async_value(0, 1, &isnull);
	if (!isnull && (double) DatumGetInt64(bound) < need)
		return false;
	values[2] = Float8GetDatum(async_bound(c, b));
	values[3] = Float8GetDatum(async_bound(c, b + 1));
	values[4] = Int64GetDatum((int64) need);
	async_exec(PLAN_FILL, values);
	return DatumGetInt64(async_value(0, 1, &isnull)) >= need;
}

/* Remove an entry this transaction holds locked. */
static void
async_delete(int64 entry_id)
{
	Datum		values[1] = {Int64GetDatum(entry_id)};

	async_exec(PLAN_DELETE, values);
}

/*
 * What find_opponent keeps for the life of the backend: the OIDs and column
 * numbers of the pool tables (forgotten when any of them is invalidated in
 * the relcache: dropped, altered, the extension reinstalled), and the last
 * pool config it parsed (reused while the stored bytes are the same).
 */
typedef struct AsyncFindCache
{
	bool		known;			/* the fields below are filled */
	Oid			pools;
	Oid			pools_key;
	Oid			entries;
	Oid			search;
	AttrNumber	att_config;
	AttrNumber	att_entry_id;
	AttrNumber	att_player_id;
	AttrNumber	att_mmr;
	AttrNumber	att_model;
} AsyncFindCache;

static AsyncFindCache find_cache;
static bool find_cache_callback;
static AsyncConfigCache find_config;

/* The relations find_opponent reads, open for one call. */
typedef struct AsyncRels
{
	Relation	pools;
	Relation	pools_key;		/* mm.async_pools_pkey */
	Relation	entries;
	Relation	search;			/* mm.async_entries_search */
	TupleTableSlot *pool_slot;
	TupleTableSlot *entry_slot;
	AttrNumber	att_config;
	AttrNumber	att_entry_id;
	AttrNumber	att_player_id;
	AttrNumber	att_mmr;
	AttrNumber	att_model;
	bool		spi;			/* connected to SPI (to claim an entry) */
} AsyncRels;

/* The OID of one of mm's relations. */
static Oid
async_relid(const char *name)
{
	Oid			relid = get_relname_relid(name, get_namespace_oid("mm", false));

	if (!OidIsValid(relid))
		elog(ERROR, "relation mm.%s does not exist", name);
	return relid;
}

/* The number of a column, by name. */
static AttrNumber
async_column(Oid relid, const char *name)
{
	AttrNumber	att = get_attnum(relid, name);

	if (att == InvalidAttrNumber)
		elog(ERROR, "column \"%s\" of relation mm.%s does not exist",
			 name, get_rel_name(relid));
	return att;
}

/* Forget the OIDs when one of the pool relations (or every one) is invalidated. */
static void
async_relcache_callback(Datum arg, Oid relid)
{
	(void) arg;
	if (!OidIsValid(relid) || relid == find_cache.pools ||
		relid == find_cache.pools_key || relid == find_cache.entries ||
		relid == find_cache.search)
		find_cache.known = false;
}

/* Look up the pool tables' OIDs and columns once per backend. */
static const AsyncFindCache *
async_find_cache(void)
{
	AsyncFindCache *cache = &find_cache;

	if (!find_cache_callback)
	{
		CacheRegisterRelcacheCallback(async_relcache_callback, (Datum) 0);
		find_cache_callback = true;
	}
	if (!cache->known)
	{
		cache->pools = async_relid("async_pools");
		cache->pools_key = async_relid("async_pools_pkey");
		cache->entries = async_relid("async_entries");
		cache->search = async_relid("async_entries_search");
		cache->att_config = async_column(cache->pools, "config");
		cache->att_entry_id = async_column(cache->entries, "entry_id");
		cache->att_player_id = async_column(cache->entries, "player_id");
		cache->att_mmr = async_column(cache->entries, "mmr");
		cache->att_model = async_column(cache->entries, "model");
		cache->known = true;
	}
	return cache;
}

/*
 * Open a pool table to read it directly, with the checks a SELECT would
 * make: the caller's SELECT privilege, and no row level security (whose
 * policies only the executor applies).
 */
static Relation
async_table_open(Oid relid)
{
	Relation	rel = table_open(relid, AccessShareLock);
	AclResult	acl = pg_class_aclcheck(relid, GetUserId(), ACL_SELECT);

	if (acl != ACLCHECK_OK)
		aclcheck_error(acl, OBJECT_TABLE, RelationGetRelationName(rel));
	if (check_enable_rls(relid, InvalidOid, true) == RLS_ENABLED)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("mm.find_opponent does not support row level security on mm.%s",
						RelationGetRelationName(rel)),
				 errhint("Disable row level security on the table, or give the role BYPASSRLS.")));
	return rel;
}

/* Open the pool tables and their indexes (locks are kept to commit). */
static void
async_rels_open(AsyncRels *r, const AsyncFindCache *cache)
{
	r->pools = async_table_open(cache->pools);
	r->pools_key = index_open(cache->pools_key, AccessShareLock);
	r->entries = async_table_open(cache->entries);
	r->search = index_open(cache->search, AccessShareLock);
	r->pool_slot = table_slot_create(r->pools, NULL);
	r->entry_slot = table_slot_create(r->entries, NULL);
	r->att_config = cache->att_config;
	r->att_entry_id = cache->att_entry_id;
	r->att_player_id = cache->att_player_id;
	r->att_mmr = cache->att_mmr;
	r->att_model = cache->att_model;
}

static void
async_rels_close(AsyncRels *r)
{
	ExecDropSingleTupleTableSlot(r->pool_slot);
	ExecDropSingleTupleTableSlot(r->entry_slot);
	index_close(r->search, NoLock);
	table_close(r->entries, NoLock);
	index_close(r->pools_key, NoLock);
	table_close(r->pools, NoLock);
}

/*
 * Make a new snapshot active, as SPI does before a statement that may
 * write: it sees what committed meanwhile and this transaction's earlier
 * changes (claims of earlier calls, an alter_pool earlier in the statement).
 */
static void
async_push_snapshot(void)
{
	CommandCounterIncrement();
	PushActiveSnapshot(GetTransactionSnapshot());
	UpdateActiveSnapshotCommandId();
}

/* A scan key on column att of an index, in the index's collation. */
static void
async_scan_key(ScanKey key, Relation index, AttrNumber att, StrategyNumber strategy,
			   RegProcedure proc, Datum arg)
{
	ScanKeyEntryInitialize(key, 0, att, strategy, InvalidOid,
						   index->rd_indcollation[att - 1], proc, arg);
}

/* The config of a pool, read by its key; an error if there is no such pool. */
static Jsonb *
async_read_config(AsyncRels *r, Datum pool)
{
	ScanKeyData key;
	IndexScanDesc scan;
	Jsonb	   *config = NULL;

	async_scan_key(&key, r->pools_key, 1, BTEqualStrategyNumber, F_TEXTEQ, pool);
	scan = index_beginscan(r->pools, r->pools_key, GetActiveSnapshot(), 1, 0);
	index_rescan(scan, &key, 1, NULL, 0);
	if (index_getnext_slot(scan, ForwardScanDirection, r->pool_slot))
	{
		bool		isnull;
		Datum		d = slot_getattr(r->pool_slot, r->att_config, &isnull);

		if (!isnull)
			config = DatumGetJsonbPCopy(d);
	}
	index_endscan(scan);
	if (config == NULL)
	{
		char	   *name = TextDatumGetCString(pool);

		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("pool \"%s\" does not exist", name),
				 errdetail("No row of mm.async_pools is named %s.", quote_literal_cstr(name)),
				 errhint("Create it with mm.create_pool(name, config).")));
	}
	return config;
}

/* A find query, resolved. */
typedef struct AsyncQuery
{
	Datum		pool;			/* text */
	Datum		labels;			/* text[], as a set */
	double		mmr;
	double		lower;			/* searched MMR interval [lower, upper) */
	double		upper;
	double		min_width;		/* of a first window (a millionth of a bucket) */
	int64	   *excluded;		/* player ids never offered */
	int			nexcluded;
} AsyncQuery;


/* An entry a search saw. */
typedef struct AsyncCandidate
{
	bool		found;
	int64		entry_id;
	int64		player_id;
	double		mmr;
	Datum		model;
	bool		model_null;
	ItemPointerData tid;		/* of the version the search saw */
} AsyncCandidate;

static bool
int64_member(int64 x, const int64 *set, int n)
{
	for (int i = 0; i < n; i++)
		if (set[i] == x)
			return true;
	return false;
}

/*
 * The width of the first window of a side with no bound on the distance is
 * twice this: a running mean of the distances of the opponents found above
 * queries in this backend (a hint only: it changes how the side is cut,
 * never the result). A mean, so that one distance of 0 (an equal MMR) does
 * not make the next query start from a window of nothing.
 */
static double nearest_hint = 0;

/*
 * Scan one window of one side of the (pool, labels, mmr) index: mmr in
 * [from, to), upwards (above) or downwards. Take the first entry that is
 * not an excluded player or a skipped entry; stop at the first one farther
 * than reach from the query. Returns false when the side is done (an entry
 * was taken, or one beyond reach was met).
 */
static bool
async_window(AsyncRels *r, const AsyncQuery *q, bool above, double from, double to,
			 double reach, const int64 *skipped, int nskipped, AsyncCandidate *c)
{
	ScanKeyData keys[4];
	IndexScanDesc scan;
	TupleTableSlot *slot = r->entry_slot;
	bool		more = true;

	async_scan_key(&keys[0], r->search, 1, BTEqualStrategyNumber, F_TEXTEQ, q->pool);
	async_scan_key(&keys[1], r->search, 2, BTEqualStrategyNumber, F_ARRAY_EQ, q->labels);
	async_scan_key(&keys[2], r->search, 3, BTGreaterEqualStrategyNumber, F_FLOAT8GE,
				   Float8GetDatum(from));
	async_scan_key(&keys[3], r->search, 3, BTLessStrategyNumber, F_FLOAT8LT,
				   Float8GetDatum(to));
	scan = index_beginscan(r->entries, r->search, GetActiveSnapshot(), 4, 0);
	index_rescan(scan, keys, 4, NULL, 0);
	while (index_getnext_slot(scan, above ? ForwardScanDirection : BackwardScanDirection, slot))
	{
		bool		isnull;
		Datum		model;

		CHECK_FOR_INTERRUPTS();
		c->mmr = DatumGetFloat8(slot_getattr(slot, r->att_mmr, &isnull));
		/* in scan order the distance never decreases */
		if ((above ? c->mmr - q->mmr : q->mmr - c->mmr) > reach)
		{
			more = false;
			break;
		}
		c->entry_id = DatumGetInt64(slot_getattr(slot, r->att_entry_id, &isnull));
		c->player_id = DatumGetInt64(slot_getattr(slot, r->att_player_id, &isnull));
		if (int64_member(c->player_id, q->excluded, q->nexcluded) ||
			int64_member(c->entry_id, skipped, nskipped))
			continue;
		model = slot_getattr(slot, r->att_model, &c->model_null);
		c->model = c->model_null ? (Datum) 0 : PointerGetDatum(DatumGetJsonbPCopy(model));
		c->tid = slot->tts_tid;
		c->found = true;
		more = false;
		break;
	}
	index_endscan(scan);
	return more;
}

/*
 * The nearest entry on one side of the query (above: mmr in [query, upper),
 * first in index order; below: [lower, query), last) at most reach away,
 * skipping excluded players and skipped entries.
 *
 * A btree index scan reads every tuple of the leaf page it starts on that
 * passes its keys before it returns the first, checking each key on each
 * tuple: an open-ended scan reads up to a page of entries to return one.
 * So the side is scanned in windows that grow outwards from the query (the
 * first as wide as reach, or as the hint; each next one 8 times wider; the
 * fourth, or one reaching it, ending at the side's end, so that an empty
 * or sparse side costs four scans at most): a window near the query reads a
 * few entries. The windows tile the side in order, so the entry found is
 * the one a single scan of the side finds.
 */
#define ASYNC_WINDOWS 4

static void
async_nearest(AsyncRels *r, const AsyncQuery *q, bool above, double reach,
			  const int64 *skipped, int nskipped, AsyncCandidate *c)
{
	double		end = above ? q->upper : q->lower;
	double		at = q->mmr;
	double		width;

	if (!isinf(reach))
		width = reach * 2;
	else
		width = nearest_hint * 2;
	/* a millionth of a bucket at least; never so narrow that at + width == at */
	width = Max(width, q->min_width);
	width = Max(width, (fabs(q->mmr) + 1) * 1e-12);
	c->found = false;
	for (int window = 1;; window++)
	{
		double		next = above ? Min(at + width, end) : Max(at - width, end);
		bool		more;

		if (window == ASYNC_WINDOWS)
			next = end;

		more = above ? async_window(r, q, true, at, next, reach, skipped, nskipped, c)
			: async_window(r, q, false, next, at, reach, skipped, nskipped, c);
		/* beyond the window's far edge every entry is farther still */
		if (!more || next == end ||
			(above ? next - q->mmr : q->mmr - next) > reach)
			break;
		at = next;
		width *= 8;
	}
	if (c->found && above)
		nearest_hint = nearest_hint * 0.75 + (c->mmr - q->mmr) * 0.25;
}

typedef enum AsyncLock
{
	LOCK_OK,					/* locked, as the version the search saw */
	LOCK_HELD,					/* a concurrent query holds it: skip it */
	LOCK_STALE					/* changed since: claim it by statement */
} AsyncLock;

/*
 * Lock the entry found without waiting, as SELECT ... FOR UPDATE SKIP
 * LOCKED would, but on the version the search saw, by its TID: no
 * statement to start. When that version is no longer the latest (updated or
 * removed since the search's snapshot, or by this transaction) or the user
 * may not lock rows of the table, the caller claims it by statement, which
 * rechecks the latest version (or raises the error a statement raises).
 */
static AsyncLock
async_lock(AsyncRels *r, AsyncCandidate *c, bool take)
{
	TM_FailureData tmfd;
	TM_Result	result;

	if (pg_class_aclcheck(RelationGetRelid(r->entries), GetUserId(),
						  take ? ACL_UPDATE | ACL_DELETE : ACL_UPDATE) != ACLCHECK_OK)
		return LOCK_STALE;
	/* the table lock the statement would take, before a row lock */
	LockRelationOid(RelationGetRelid(r->entries), take ? RowExclusiveLock : RowShareLock);
	result = table_tuple_lock(r->entries, &c->tid, GetActiveSnapshot(), r->entry_slot,
							  GetCurrentCommandId(true), LockTupleExclusive,
							  LockWaitSkip, 0, &tmfd);
	if (result == TM_Ok)
		return LOCK_OK;
	if (result == TM_WouldBlock)
		return LOCK_HELD;
	return LOCK_STALE;
}

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
			Datum		lock[5] = {q->pool, q->labels, Int64GetDatum(found->entry_id),
			Float8GetDatum(q->lower), Float8GetDatum(q->upper)};
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
					Datum		tid[1] = {PointerGetDatum(&found->tid)};

					if (async_exec(PLAN_DELETE_TID, tid) != 1)
						elog(ERROR, "entry " INT64_FORMAT " locked but not removed",
							 found->entry_id);
					return FIND_FOUND;
				}
			}
			else if (locked == LOCK_HELD)
				claimed = false;
			else
			{
				claimed = async_exec(take ? PLAN_TAKE : PLAN_LOCK, lock) == 1;
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
	Datum	   *elems;
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};

	check_mmr(mmr);
	check_retries(retries);
	order = palloc(sizeof(int) * c->mmr_bucket_count);
	count = async_search_order(c, mmr, retries, order);
	elems = palloc(sizeof(Datum) * count);
	lo = hi = order[0];
	for (int i = 0; i < count; i++)
	{
		elems[i] = Int32GetDatum(order[i]);
		lo = Min(lo, order[i]);
		hi = Max(hi, order[i]);
	}
	values[0] = Int32GetDatum(order[0]);
	values[1] = PointerGetDatum(construct_array(elems, count, INT4OID,
												sizeof(int32), true, TYPALIGN_INT));
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
	Datum		values[1];
	Datum		pool,
				labels;
	bool		isnull;
	bool		ok = false;

	mm_require_primary("mm.offer_entry");
	mm_args_not_null(fcinfo, 0);
	values[0] = PG_GETARG_DATUM(0);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (async_exec(PLAN_ENTRY, values) == 1)
	{
		config = *async_config_reuse(&find_config, TopMemoryContext,
									 DatumGetJsonbP(async_value(0, 1, &isnull)));
		c = &config;
		pool = async_value(0, 2, &isnull);
		labels = async_value(0, 3, &isnull);
		if (c->remove_threshold_null)
			ok = true;
		else if (async_exec(PLAN_LOCK_ID, values) == 1)
		{
			double		mmr = DatumGetFloat8(async_value(0, 1, &isnull));

			ok = true;
			if (async_remove_after_offer(c, pool, labels, mmr))
				async_delete(DatumGetInt64(values[0]));
		}
	}
	SPI_finish();
	PG_RETURN_BOOL(ok);
}
