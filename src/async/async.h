/*-------------------------------------------------------------------------
 *
 * async.h
 *		The async opponent pool's parts (Metaplay's async matchmaker
 *		documentation): the pool config and its MMR bucket arithmetic
 *		(async_config.c), the direct reading and locking of the pool tables
 *		(async_store.c), and the search and SQL functions (async.c).
 *		Internal to those three files.
 *
 *-------------------------------------------------------------------------
 */
#ifndef MM_ASYNC_H
#define MM_ASYNC_H

#include "mm.h"
#include "config.h"

#include "access/relscan.h"
#include "executor/tuptable.h"
#include "storage/itemptr.h"
#include "utils/jsonb.h"
#include "utils/rel.h"

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

/*
 * What find_opponent keeps for the life of the backend: the OIDs and column
 * numbers of the pool tables (forgotten when any of them is invalidated in
 * the relcache: dropped, altered, the extension reinstalled).
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

typedef enum AsyncLock
{
	LOCK_OK,					/* locked, as the version the search saw */
	LOCK_HELD,					/* a concurrent query holds it: skip it */
	LOCK_STALE					/* changed since: claim it by statement */
} AsyncLock;

/* async_config.c: the pool config and its bucket arithmetic */

extern const MmConfigKey async_config_keys[];
/* Read and check a pool config (NULL: the defaults). */
extern void async_config_parse(Jsonb *config, AsyncConfig *c);
/* The lower MMR bound of bucket i (-Inf for bucket 0, +Inf for mmr_bucket_count). */
extern double async_bound(const AsyncConfig *c, int i);
/* The bucket of an MMR (clamped to the edge buckets). */
extern int	async_bucket(const AsyncConfig *c, double mmr);
/* The buckets a search with this many retries visits, in order; returns how many. */
extern int	async_search_order(const AsyncConfig *c, double mmr, int retries, int *order);
/* A parsed config, reusing the cache's parse of the same bytes. */
extern const AsyncConfig *async_config_reuse(AsyncConfigCache *cache, MemoryContext cxt,
											 Jsonb *config);
/* The config argument argno, parsed once per call site while its bytes repeat. */
extern const AsyncConfig *async_config_arg(FunctionCallInfo fcinfo, int argno);

/* async_store.c: reading and locking the pool tables without the executor */

/* The pool tables' OIDs and columns, looked up once per backend. */
extern const AsyncFindCache *async_find_cache(void);
/* Open and close the pool tables and indexes for one call. */
extern void async_rels_open(AsyncRels *r, const AsyncFindCache *cache);
extern void async_rels_close(AsyncRels *r);
/* Push a snapshot for the reads (popped by the caller). */
extern void async_push_snapshot(void);
/* A pool's stored config, through the pool's primary key; errors if no pool. */
extern Jsonb *async_read_config(AsyncRels *r, Datum pool);
/* The entry nearest the query's MMR on one side, within reach, skipping some ids. */
extern void async_nearest(AsyncRels *r, const AsyncQuery *q, bool above, double reach,
						  const int64 *skipped, int nskipped, AsyncCandidate *c);
/* Lock the version of an entry the search saw, without waiting. */
extern AsyncLock async_lock(AsyncRels *r, AsyncCandidate *c, bool take);

#endif							/* MM_ASYNC_H */
