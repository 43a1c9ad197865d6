/*-------------------------------------------------------------------------
 *
 * async_store.c
 *		The one place where mm reads tables without the executor: the pool
 *		row and the entries nearest an MMR, read through their indexes, and
 *		the entry found locked by the tuple id of the version the search
 *		saw.
 *
 * Why: mm.find_opponent is called once per player looking for an
 * opponent, thousands of times a second on a busy game, and it needs one
 * row of the pool and the nearest rows of an index range. Planning and
 * starting an SQL statement for each would cost more than the search (the
 * find_opponent benchmark in docs/benchmarks.md measures both). Everything
 * that writes (removing an entry, claiming one changed since the search's
 * snapshot, counting a bucket) stays a statement run over SPI in async.c,
 * through the executor's triggers and constraints; this file only reads,
 * and locks without waiting as SELECT ... FOR UPDATE SKIP LOCKED would.
 * It checks the privileges and row-level security a statement would
 * (falling back to the statement when they do not allow the direct path)
 * and forgets the tables' OIDs on any relcache invalidation.
 *
 *-------------------------------------------------------------------------
 */
#include "async.h"

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



static AsyncFindCache find_cache;
static bool find_cache_callback;


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
const AsyncFindCache *
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
void
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

void
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
void
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
Jsonb *
async_read_config(AsyncRels *r, Datum pool)
{
	ScanKeyData key;
	IndexScanDesc scan;
	Jsonb	   *config = NULL;

	async_scan_key(&key, r->pools_key, 1, BTEqualStrategyNumber, F_TEXTEQ, pool);
	scan = mm_index_beginscan(r->pools, r->pools_key, GetActiveSnapshot(), 1, 0);
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
	scan = mm_index_beginscan(r->entries, r->search, GetActiveSnapshot(), 4, 0);
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

void
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


/*
 * Lock the entry found without waiting, as SELECT ... FOR UPDATE SKIP
 * LOCKED would, but on the version the search saw, by its TID: no
 * statement to start. When that version is no longer the latest (updated or
 * removed since the search's snapshot, or by this transaction) or the user
 * may not lock rows of the table, the caller claims it by statement, which
 * rechecks the latest version (or raises the error a statement raises).
 */
AsyncLock
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

