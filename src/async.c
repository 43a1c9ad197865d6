/*-------------------------------------------------------------------------
 *
 * async.c
 *		Async opponents: the pool configuration, MMR bucketing and the search
 *		order of the Metaplay asynchronous matchmaker (seed 004).
 *
 * Seed 004 divides offline players into Buckets by MMR: the range
 * [min_mmr, max_mmr] is cut into mmr_bucket_count equal slices, a player at
 * or near the minimum gets label 0 and one at or near the maximum gets
 * mmr_bucket_count - 1 (values outside the range are clamped to the edge
 * buckets). A query searches its own bucket and alternates with the
 * adjacent bucket on the side of the query's MMR, so that a query near a
 * bucket edge sees opponents on both sides of the edge; every retry widens
 * the search by buckets_per_retry buckets on each side ("find players
 * outside the normal MMR range if the matchmaker doesn't see any").
 *
 * This file holds that arithmetic as plain C over a plain struct, and the
 * pool configuration (its keys mirror the seed's options in snake_case).
 * The pool tables and the SQL functions that read and write them are in
 * sql/parts/50_async.sql.
 *
 *-------------------------------------------------------------------------
 */
#include "mm.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

/* A pool's configuration (seed 004's matchmaker options). */
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

/* Set the documented defaults. */
static void
async_config_defaults(AsyncConfig *c)
{
	c->min_mmr = 0;
	c->max_mmr = 3000;
	c->mmr_bucket_count = 10;
	c->bucket_initial_size = 1000;
	c->bucket_min_size = 10;
	c->player_cache_size = 0;
	c->player_cache_size_null = true;
	c->allow_multiple_entries_per_player = false;
	c->remove_threshold = 0;
	c->remove_threshold_null = false;
	c->ignore_threshold = 0;
	c->ignore_threshold_null = true;
	c->enable_fake_opponents = false;
	c->return_model = true;
	c->max_difference = 300;
	c->min_quality = 0;
	c->min_quality_null = true;
	c->buckets_per_retry = 1;
}

/* Parse and check a pool config; NULL gives the defaults. */
static void
async_config_parse(Jsonb *config, AsyncConfig *c)
{
	MmConfigKey keys[] = {
		{.name = "min_mmr", .type = MM_CONFIG_FLOAT, .target = &c->min_mmr,
		.min = -1e15, .max = 1e15},
		{.name = "max_mmr", .type = MM_CONFIG_FLOAT, .target = &c->max_mmr,
		.min = -1e15, .max = 1e15},
		{.name = "mmr_bucket_count", .type = MM_CONFIG_INT,
		.target = &c->mmr_bucket_count, .min = 1, .max = 100000},
		{.name = "bucket_initial_size", .type = MM_CONFIG_INT,
		.target = &c->bucket_initial_size, .min = 1, .max = 1e9},
		{.name = "bucket_min_size", .type = MM_CONFIG_INT,
		.target = &c->bucket_min_size, .min = 1, .max = 1e9},
		{.name = "player_cache_size", .type = MM_CONFIG_INT,
			.target = &c->player_cache_size, .min = 1, .max = 2e9,
		.isnull = &c->player_cache_size_null},
		{.name = "allow_multiple_entries_per_player", .type = MM_CONFIG_BOOL,
		.target = &c->allow_multiple_entries_per_player},
		{.name = "player_remove_after_candidate_offer_threshold",
			.type = MM_CONFIG_FLOAT, .target = &c->remove_threshold,
		.min = 0, .max = 1, .isnull = &c->remove_threshold_null},
		{.name = "player_ignore_update_insert_threshold",
			.type = MM_CONFIG_FLOAT, .target = &c->ignore_threshold,
		.min = 0, .max = 1, .isnull = &c->ignore_threshold_null},
		{.name = "enable_fake_opponents", .type = MM_CONFIG_BOOL,
		.target = &c->enable_fake_opponents},
		{.name = "return_model_in_query_response", .type = MM_CONFIG_BOOL,
		.target = &c->return_model},
		{.name = "max_difference", .type = MM_CONFIG_FLOAT,
		.target = &c->max_difference, .min = 0, .max = 1e15},
		{.name = "min_quality", .type = MM_CONFIG_FLOAT,
			.target = &c->min_quality, .min = -1e15, .max = 1e15,
		.isnull = &c->min_quality_null},
		{.name = "buckets_per_retry", .type = MM_CONFIG_INT,
		.target = &c->buckets_per_retry, .min = 0, .max = 100000},
		{.name = NULL}
	};

	async_config_defaults(c);
	mm_config_parse(config, "pool config", keys);

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

/* Render a float8 for the normalized config. */
static void
append_number(StringInfo buf, const char *key, double v, bool isnull)
{
	if (isnull)
		appendStringInfo(buf, ", \"%s\": null", key);
	else
		appendStringInfo(buf, ", \"%s\": %.17g", key, v);
}

/* The full config, every key present, as jsonb text. */
static char *
async_config_text(const AsyncConfig *c)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfo(&buf, "{\"min_mmr\": %.17g", c->min_mmr);
	append_number(&buf, "max_mmr", c->max_mmr, false);
	append_number(&buf, "mmr_bucket_count", c->mmr_bucket_count, false);
	append_number(&buf, "bucket_initial_size", c->bucket_initial_size, false);
	append_number(&buf, "bucket_min_size", c->bucket_min_size, false);
	append_number(&buf, "player_cache_size", c->player_cache_size,
				  c->player_cache_size_null);
	appendStringInfo(&buf, ", \"allow_multiple_entries_per_player\": %s",
					 c->allow_multiple_entries_per_player ? "true" : "false");
	append_number(&buf, "player_remove_after_candidate_offer_threshold",
				  c->remove_threshold, c->remove_threshold_null);
	append_number(&buf, "player_ignore_update_insert_threshold",
				  c->ignore_threshold, c->ignore_threshold_null);
	appendStringInfo(&buf, ", \"enable_fake_opponents\": %s",
					 c->enable_fake_opponents ? "true" : "false");
	appendStringInfo(&buf, ", \"return_model_in_query_response\": %s",
					 c->return_model ? "true" : "false");
	append_number(&buf, "max_difference", c->max_difference, false);
	append_number(&buf, "min_quality", c->min_quality, c->min_quality_null);
	append_number(&buf, "buckets_per_retry", c->buckets_per_retry, false);
	appendStringInfoChar(&buf, '}');
	return buf.data;
}

/*
 * A parsed config cached across calls of one call site: the trigger that
 * counts bucket fill calls mm.async_bucket once per row.
 */
typedef struct AsyncConfigCache
{
	Size		len;
	char	   *bytes;
	AsyncConfig config;
} AsyncConfigCache;

/* Parse the config argument, reusing the call site's last parse. */
static const AsyncConfig *
async_config_arg(FunctionCallInfo fcinfo, int argno)
{
	Jsonb	   *config = PG_GETARG_JSONB_P(argno);
	Size		len = VARSIZE(config);
	AsyncConfigCache *cache = fcinfo->flinfo->fn_extra;

	if (cache != NULL && cache->len == len &&
		memcmp(cache->bytes, config, len) == 0)
		return &cache->config;
	if (cache == NULL)
	{
		cache = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt,
									   sizeof(AsyncConfigCache));
		fcinfo->flinfo->fn_extra = cache;
	}
	/* parse first: an error must not leave a half-filled cache */
	cache->len = 0;
	async_config_parse(config, &cache->config);
	if (cache->bytes != NULL)
		pfree(cache->bytes);
	cache->bytes = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, len);
	memcpy(cache->bytes, config, len);
	cache->len = len;
	return &cache->config;
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

/* Return a row of the function's OUT parameters; no value is NULL. */
static Datum
return_row(FunctionCallInfo fcinfo, Datum *values)
{
	TupleDesc	tupdesc;
	bool		nulls[4] = {false, false, false, false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	Assert(tupdesc->natts <= 4);
	return HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc),
											 values, nulls));
}

/* SQL wrappers */

PG_FUNCTION_INFO_V1(mm_async_config);
PG_FUNCTION_INFO_V1(mm_async_bucket);
PG_FUNCTION_INFO_V1(mm_async_bucket_bounds);
PG_FUNCTION_INFO_V1(mm_async_search);
PG_FUNCTION_INFO_V1(mm_async_labels);

/* mm.async_config(config jsonb) → jsonb: checked, with every default */
Datum
mm_async_config(PG_FUNCTION_ARGS)
{
	AsyncConfig c;

	async_config_parse(PG_GETARG_JSONB_P(0), &c);
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in,
										CStringGetDatum(async_config_text(&c))));
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

	if (first < 0 || last >= c->mmr_bucket_count || first > last)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bucket range is out of range"),
				 errdetail("The range is %d to %d.", first, last),
				 errhint("Buckets are numbered 0 to %d, first <= last.",
						 c->mmr_bucket_count - 1)));
	values[0] = Float8GetDatum(async_bound(c, first));
	values[1] = Float8GetDatum(async_bound(c, last + 1));
	PG_RETURN_DATUM(return_row(fcinfo, values));
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

	check_mmr(mmr);
	if (retries < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("retries must not be negative"),
				 errdetail("The value is %d.", retries),
				 errhint("Pass 0 for a first attempt and count up on each retry.")));
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
	values[2] = Float8GetDatum(async_bound(c, lo));
	values[3] = Float8GetDatum(async_bound(c, hi + 1));
	PG_RETURN_DATUM(return_row(fcinfo, values));
}

/*
 * mm.async_labels(labels text[]) → text[]: hard labels as a set, sorted
 * bytewise and without duplicates, so that equal sets compare equal.
 */
Datum
mm_async_labels(PG_FUNCTION_ARGS)
{
	ArrayType  *array = PG_GETARG_ARRAYTYPE_P(0);
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
	PG_RETURN_ARRAYTYPE_P(construct_array(elems, kept, TEXTOID, -1, false,
										  TYPALIGN_INT));
}
