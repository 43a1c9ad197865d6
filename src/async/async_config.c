/*-------------------------------------------------------------------------
 *
 * async_config.c
 *		A pool's configuration (its keys mirror Metaplay's matchmaker
 *		options in snake_case), the MMR bucket arithmetic over it, and the
 *		reuse of a parsed config while its bytes stay the same.
 *
 *-------------------------------------------------------------------------
 */
#include "async.h"

#include <math.h>

#include "utils/memutils.h"


#define AK(field) offsetof(AsyncConfig, field)

/* The pool config's keys (Metaplay's names in snake_case). */
const MmConfigKey async_config_keys[] = {
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
void
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
double
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
int
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
int
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


/* Parse a config, reusing the cache's last parse of the same bytes. */
const AsyncConfig *
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
const AsyncConfig *
async_config_arg(FunctionCallInfo fcinfo, int argno)
{
	return async_config_cached(fcinfo, PG_GETARG_JSONB_P(argno));
}

