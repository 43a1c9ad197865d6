/*-------------------------------------------------------------------------
 *
 * tick_input.c
 *		The matcher's input kept between ticks: a backend that ticks a queue
 *		again and again (mm.run_ticks) keeps the queue's waiting rosters, in
 *		the form the matcher reads them, from one tick to the next, and
 *		brings them up to date from what changed instead of reading the
 *		queue again.
 *
 * The tables stay the truth; the kept input is a copy that each tick either
 * proves current or reads again. Two tables hold what a tick needs for
 * that (sql/parts/40_queue_input.sql):
 *	- mm.queue_change: a row (queue, roster) for each change to a waiting
 *	  roster, written in the changing transaction by mm.enqueue, mm.leave
 *	  and the other ways out of a queue (mm._end_rosters: expiry,
 *	  mm.leave_player, mm.remove_player's last player, mm.drop_queue),
 *	  mm.remove_player, mm.update_roster and a dissolved ready check giving
 *	  rosters back; a tick removes the rows it has read;
 *	- mm.queue_change_read: per queue, the tick that last removed rows of
 *	  the log or wrote rosters of the queue (its "mark").
 * A kept input is current when the queue's mark is the one it last saw or
 * set: no other tick has taken changes from the log since, or matched,
 * requeued or backfilled rosters it did not see. Then the rosters named
 * by the log rows are read again by id (a roster waiting now takes its
 * place by position; one no longer waiting goes), and with the tick's own
 * writes of the last tick (its matches, backfills and failed targets moved
 * to the back, kept until that tick committed) the input is the queue as
 * a fresh read under the same snapshot would give it. That is the
 * invariant (docs/queue.md, "The kept input"); mm.check_tick_input makes
 * every tick from a kept input compare both, input and matches.
 *
 * Otherwise it is read again whole: another backend ticked the queue, the
 * queue's config changed, mm.roster or mm.queued_player was truncated (a
 * new relfilenode), a roster brings a latency to a region the input has
 * no id for, a tick of this backend failed or its transaction rolled back,
 * or a backend is new (after a restart, a promotion, a reconnect). Changes
 * made to the tables without mm's functions (an UPDATE of mm.roster by
 * hand) write no log row: they reach a kept input when it is next read
 * whole; docs/queue.md says so. A stale input can only make a tick propose
 * a match whose rosters changed: the tick locks them and checks that each
 * is waiting with all its players before it writes (mm_lock_rosters), as
 * for a fresh read, so no invariant of the tables depends on the copy.
 *
 * Everything of a kept input lives in its own memory context; the rosters
 * are one array in queue order (what mm_matcher_run reads), with their
 * positions and join times beside it. A tick applies what changed in one
 * pass over the array.
 *
 *-------------------------------------------------------------------------
 */
#include "tick.h"

#include <math.h>

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/itemptr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

/* set by mm.run_ticks around each of its ticks: keep the input */
bool		mm_tick_keeps_input = false;

enum
{
	K_STATE,
	K_CHANGES,
	K_CONSUME,
	K_CONSUME_ALL,
	K_MARK,
	K_CHANGED,
	K_COUNT
};

static MmStatement statements[K_COUNT] = {
	/*
	 * The queue's mark, and the files of mm.roster and mm.queued_player
	 * (a TRUNCATE gives a table a new one); looked up by name at each call,
	 * so that a plan kept over a DROP EXTENSION does not name old objects.
	 */
	[K_STATE] = {
		"SELECT (SELECT r.tick_id FROM mm.queue_change_read r WHERE r.queue_id = $queue_id), "
		"ARRAY(SELECT pg_catalog.pg_relation_filenode(c.oid)::bigint FROM pg_catalog.pg_class c "
		"JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
		"WHERE n.nspname = 'mm' AND c.relname IN ('roster', 'queued_player') ORDER BY c.relname)",
		{{"queue_id", INT4OID}}
	},
	/* the queue's changes since its last tick, in no order */
	[K_CHANGES] = {
		"SELECT c.ctid, c.roster_id FROM mm.queue_change c WHERE c.queue_id = $queue_id",
		{{"queue_id", INT4OID}}
	},
	/*
	 * The changes read, by their row (a change committed since the read
	 * stays for the next tick)
	 */
	[K_CONSUME] = {
		"DELETE FROM mm.queue_change c WHERE c.ctid = ANY ($ctids) AND c.queue_id = $queue_id",
		{{"ctids", TIDARRAYOID}, {"queue_id", INT4OID}}
	},
	/* a tick that keeps no input: every change of the queue */
	[K_CONSUME_ALL] = {
		"DELETE FROM mm.queue_change c WHERE c.queue_id = $queue_id",
		{{"queue_id", INT4OID}}
	},
	[K_MARK] = {
		"INSERT INTO mm.queue_change_read AS r (queue_id, tick_id) VALUES ($queue_id, $tick_id) "
		"ON CONFLICT ON CONSTRAINT queue_change_read_pkey DO UPDATE SET tick_id = excluded.tick_id",
		{{"queue_id", INT4OID}, {"tick_id", INT8OID}}
	},
	/*
	 * The rosters a change named, those still waiting, in queue order, with
	 * the columns of Q_READ_FIRST (their players by the seat key) and
	 * their place. One lookup by the key per id, whatever the statistics.
	 */
	[K_CHANGED] = {
		"SELECT r.roster_id, r.position, p.players, r.rating, r.deviation, r.rank, r.ladder_points, "
		"r.dishonor, p.professions, r.joined_at, r.attributes, r.latencies, p.roles "
		"FROM (SELECT DISTINCT u.id FROM unnest($roster_ids::bigint[]) AS u(id)) u "
		"CROSS JOIN LATERAL (SELECT r.* FROM mm.roster r WHERE r.roster_id = u.id AND r.queue_id = $queue_id "
		"AND r.match_id IS NULL) r "
		"CROSS JOIN LATERAL (SELECT count(*) AS players, "
		"array_agg(qp.profession) FILTER (WHERE qp.profession IS NOT NULL) AS professions, "
		"array_agg(qp.role) FILTER (WHERE qp.role IS NOT NULL) AS roles "
		"FROM mm.queued_player qp WHERE qp.queue_id = $queue_id AND qp.roster_id = r.roster_id) p "
		"ORDER BY r.position",
		{{"queue_id", INT4OID}, {"roster_ids", INT8ARRAYOID}}
	},
};

typedef enum KeptState
{
	KEPT_VALID,					/* current as of its mark (committed) */
	KEPT_PENDING,				/* brought up to date by a tick of this transaction */
	KEPT_BUSY					/* a tick is using it (an error leaves it so) */
} KeptState;

/* One queue's kept input. */
typedef struct KeptInput
{
	int32		queue_id;		/* hash key */
	MemoryContext cxt;			/* everything below */
	KeptState	state;
	int64		mark;			/* the queue's mark it is current with (0: none) */
	Jsonb	   *config;			/* the config it was read under */
	int64		files[2];		/* relfilenodes of mm.queued_player and mm.roster */
	MmRosterSet set;			/* the waiting rosters in queue order; reader, names */
	int			nregions;
	int			cap;			/* room in set.r, position, joined */
	int64	   *position;
	TimestampTz *joined;
	/* its tick's own writes, applied at the next tick */
	int			ngone;			/* rosters matched or backfilled */
	int64	   *gone;
	int			nmoved;			/* failed targets moved to the back */
	int64	   *moved;
	int64	   *moved_to;
	bool		whole;			/* its last tick matched all of it */
	/* this tick */
	int64		new_mark;		/* the mark read at the tick's start */
	bool		consumed;		/* it removed rows of the log */
	/* figures (mm._kept_inputs) */
	int64		ticks;
	int64		reads;
	int64		changes;
} KeptInput;

static HTAB *kept_inputs = NULL;
static bool callback_registered = false;

/* Forget a kept input. */
static void
kept_drop(KeptInput *k)
{
	bool		found;

	if (k->cxt)
		MemoryContextDelete(k->cxt);
	(void) hash_search(kept_inputs, &k->queue_id, HASH_REMOVE, &found);
}

/*
 * At the end of a transaction: the inputs its ticks brought up to date are
 * current when it commits; when it aborts, or a tick failed, they are
 * dropped (read whole next time).
 */
static void
kept_xact_callback(XactEvent event, void *arg)
{
	HASH_SEQ_STATUS seq;
	KeptInput  *k;

	(void) arg;
	if (kept_inputs == NULL)
		return;
	if (event != XACT_EVENT_COMMIT && event != XACT_EVENT_ABORT && event != XACT_EVENT_PREPARE &&
		event != XACT_EVENT_PARALLEL_COMMIT && event != XACT_EVENT_PARALLEL_ABORT)
		return;
	hash_seq_init(&seq, kept_inputs);
	while ((k = hash_seq_search(&seq)) != NULL)
	{
		if (k->state == KEPT_VALID)
			continue;
		if (k->state == KEPT_PENDING &&
			(event == XACT_EVENT_COMMIT || event == XACT_EVENT_PARALLEL_COMMIT))
			k->state = KEPT_VALID;
		else
			kept_drop(k);
	}
}

static void
kept_init(void)
{
	HASHCTL		ctl;

	if (kept_inputs != NULL)
		return;
	ctl.keysize = sizeof(int32);
	ctl.entrysize = sizeof(KeptInput);
	ctl.hcxt = TopMemoryContext;
	kept_inputs = hash_create("mm kept tick inputs", 16, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	if (!callback_registered)
	{
		RegisterXactCallback(kept_xact_callback, NULL);
		callback_registered = true;
	}
}

/* Free what a roster of a kept input holds beside its struct. */
static void
roster_free(MmRoster *x, const MmMatcherConfig *cfg)
{
	if (x->attr != NULL)
	{
		for (int a = 0; a < cfg->nattrs; a++)
			if (x->attr[a].present && x->attr[a].set != NULL)
				pfree(x->attr[a].set);
		pfree(x->attr);
	}
	if (x->lat != NULL)
		pfree(x->lat);
	if (x->role_count != NULL)
		pfree(x->role_count);
	if (x->prof != NULL)
		pfree(x->prof);
	if (x->prof_count != NULL)
		pfree(x->prof_count);
	if (x->rule_bits != NULL)
		pfree((uint64 *) x->rule_bits);
}

/*
 * The rules' filter bits of rosters entering k (allocated in k's context,
 * which must be the current one): the matcher then takes them from the
 * rosters instead of computing them at every run.
 */
static void
kept_bits(KeptInput *k, const MmMatcherConfig *cfg, MmRoster *r, int n)
{
	MmMatcherConfig bits_cfg = *cfg;
	int			words;

	bits_cfg.nregions = k->nregions;
	words = mm_matcher_bits_words(&bits_cfg);
	if (words == 0)
		return;
	for (int i = 0; i < n; i++)
	{
		uint64	   *bits = palloc(sizeof(uint64) * words);

		if (mm_matcher_roster_bits(&bits_cfg, &r[i], bits))
			r[i].rule_bits = bits;
		else
			pfree(bits);
	}
}

/*
 * A filter of a few ids: one bit per hash of an id, so that a pass over
 * the whole input looks most ids up with one load.
 */
#define GONE_FILTER_BITS 65536

static inline uint32
gone_hash(int64 id)
{
	return (uint32) (((uint64) id * UINT64CONST(0x9E3779B97F4A7C15)) >> 48);
}

static inline bool
gone_maybe(const uint64 *filter, int64 id)
{
	uint32		h = gone_hash(id);

	return (filter[h >> 6] >> (h & 63)) & 1;
}

/* Make room for n rosters. */
static void
kept_reserve(KeptInput *k, int n)
{
	int			cap = k->cap;

	if (n <= cap)
		return;
	while (cap < n)
		cap = cap < 64 ? 64 : cap + cap / 2;
	if (cap > (int) (MaxAllocSize / sizeof(MmRoster)))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many waiting rosters to keep a tick's input"),
				 errdetail("The queue has %d waiting rosters.", n),
				 errhint("Set mm.keep_tick_input to off for this queue's ticks.")));
	if (k->set.r == NULL)
	{
		k->set.r = MemoryContextAlloc(k->cxt, sizeof(MmRoster) * cap);
		k->position = MemoryContextAlloc(k->cxt, sizeof(int64) * cap);
		k->joined = MemoryContextAlloc(k->cxt, sizeof(TimestampTz) * cap);
	}
	else
	{
		k->set.r = repalloc(k->set.r, sizeof(MmRoster) * cap);
		k->position = repalloc(k->position, sizeof(int64) * cap);
		k->joined = repalloc(k->joined, sizeof(TimestampTz) * cap);
	}
	k->cap = cap;
}

/* The tick's own writes to apply next time: none. */
static void
kept_clear_writes(KeptInput *k)
{
	k->ngone = 0;
	k->nmoved = 0;
}

/*
 * Read the queue's waiting rosters whole into k (under the active
 * snapshot), dropping what it held.
 */
static void
kept_read_whole(KeptInput *k, int32 queue_id, TimestampTz at, const MmMatcherConfig *cfg,
				Jsonb *config)
{
	SPITupleTable *players;
	uint64		nplayers;
	MemoryContext old;
	MmMatcherConfig read_cfg = *cfg;
	MmRosterSet fresh;
	uint64		rows;

	if (k->cxt)
		MemoryContextDelete(k->cxt);
	memset(&k->set, 0, sizeof(k->set));
	k->cxt = AllocSetContextCreate(TopMemoryContext, "mm kept tick input", ALLOCSET_DEFAULT_SIZES);
	k->cap = 0;
	k->position = NULL;
	k->joined = NULL;
	k->gone = k->moved = k->moved_to = NULL;
	kept_clear_writes(k);

	tick_run_queue(Q_READ_PLAYERS, queue_id, true, SPI_OK_SELECT);
	players = SPI_tuptable;
	nplayers = SPI_processed;
	tick_run_queue(Q_READ_ROSTERS, queue_id, true, SPI_OK_SELECT);
	rows = SPI_processed;
	old = MemoryContextSwitchTo(k->cxt);
	k->config = DatumGetJsonbPCopy(JsonbPGetDatum(config));
	k->cap = Max((int) rows, 1);
	k->position = palloc(sizeof(int64) * k->cap);
	k->joined = palloc(sizeof(TimestampTz) * k->cap);
	/* the rosters' array (room for every row) is the input's */
	mm_read_rosters_kept(at, &read_cfg, &fresh, players, nplayers, k->position, k->joined);
	k->nregions = read_cfg.nregions;
	kept_bits(k, cfg, fresh.r, fresh.n);
	MemoryContextSwitchTo(old);
	k->set.r = fresh.r;
	k->set.n = fresh.n;
	k->set.nprof = fresh.nprof;
	k->set.prof_names = fresh.prof_names;
	k->set.region_names = fresh.region_names;
	k->set.reader = fresh.reader;
	k->reads++;
}

static int
cmp_id(const void *a, const void *b)
{
	return mm_cmp_int64(a, b);
}

static bool
id_in(int64 id, const int64 *sorted, int n)
{
	int			lo = 0,
				hi = n;

	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (sorted[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && sorted[lo] == id;
}

/*
 * Insert rosters (in position order) into k's array, which is in position
 * order: merged from the end, so only the rosters placed after the first
 * one inserted move.
 */
static void
kept_insert(KeptInput *k, const MmRoster *r, const int64 *pos, const TimestampTz *joined, int n)
{
	int			i,
				j,
				w;

	if (n == 0)
		return;
	kept_reserve(k, k->set.n + n);
	i = k->set.n - 1;
	j = n - 1;
	w = k->set.n + n - 1;
	while (j >= 0)
	{
		if (i >= 0 && k->position[i] > pos[j])
		{
			k->set.r[w] = k->set.r[i];
			k->position[w] = k->position[i];
			k->joined[w--] = k->joined[i--];
		}
		else
		{
			k->set.r[w] = r[j];
			k->position[w] = pos[j];
			k->joined[w--] = joined[j--];
		}
	}
	k->set.n += n;
}

/*
 * Bring k up to date: its last tick's own writes (rosters matched or
 * backfilled go, failed targets move to their new places) and the
 * rosters the log names, read again (under the active snapshot). False
 * when k must be read whole instead (a region it has no id for).
 */
static bool
kept_catch_up(KeptInput *k, int32 queue_id, TimestampTz at, const MmMatcherConfig *cfg,
			  int64 *changed, int nchanged)
{
	int			ngone = k->ngone + k->nmoved + nchanged;
	int64	   *gone;
	int64	   *moved_ids = NULL;
	int			nback = 0;
	MmRoster   *back = NULL;
	int64	   *back_pos = NULL;
	TimestampTz *back_joined = NULL;
	int			w = 0;
	uint64	   *filter;

	if (ngone == 0)
	{
		/* nothing leaves: the waits at this tick */
		for (int i = 0; i < k->set.n; i++)
			k->set.r[i].age = Max(0.0, (at - k->joined[i]) / 1e6);
		return true;
	}
	/* every roster that leaves its place, by id */
	gone = palloc(sizeof(int64) * ngone);
	if (k->ngone > 0)
		memcpy(gone, k->gone, sizeof(int64) * k->ngone);
	if (k->nmoved > 0)
		memcpy(gone + k->ngone, k->moved, sizeof(int64) * k->nmoved);
	if (nchanged > 0)
		memcpy(gone + k->ngone + k->nmoved, changed, sizeof(int64) * nchanged);
	qsort(gone, ngone, sizeof(int64), cmp_id);
	qsort(changed, nchanged, sizeof(int64), cmp_id);
	if (k->nmoved > 0)
	{
		/* the failed targets, by id, with their new places */
		moved_ids = palloc(sizeof(int64) * k->nmoved);
		memcpy(moved_ids, k->moved, sizeof(int64) * k->nmoved);
		qsort(moved_ids, k->nmoved, sizeof(int64), cmp_id);
		back = palloc(sizeof(MmRoster) * k->nmoved);
		back_pos = palloc(sizeof(int64) * k->nmoved);
		back_joined = palloc(sizeof(TimestampTz) * k->nmoved);
	}

	filter = palloc0(GONE_FILTER_BITS / 8);
	for (int g = 0; g < ngone; g++)
		filter[gone_hash(gone[g]) >> 6] |= UINT64CONST(1) << (gone_hash(gone[g]) & 63);

	/* one pass: those that leave are taken out, the rest close up */
	for (int i = 0; i < k->set.n; i++)
	{
		MmRoster   *x = &k->set.r[i];

		if (gone_maybe(filter, x->id) && id_in(x->id, gone, ngone))
		{
			/* a failed target moves back, unless a change read it again */
			if (moved_ids != NULL && id_in(x->id, moved_ids, k->nmoved) &&
				!id_in(x->id, changed, nchanged))
			{
				for (int m = 0; m < k->nmoved; m++)
					if (k->moved[m] == x->id)
					{
						back_pos[nback] = k->moved_to[m];
						break;
					}
				back_joined[nback] = k->joined[i];
				x->age = Max(0.0, (at - k->joined[i]) / 1e6);
				back[nback++] = *x;
			}
			else
				roster_free(x, cfg);
			continue;
		}
		/* its wait at this tick (one pass over the input) */
		x->age = Max(0.0, (at - k->joined[i]) / 1e6);
		if (w != i)
		{
			k->set.r[w] = *x;
			k->position[w] = k->position[i];
			k->joined[w] = k->joined[i];
		}
		w++;
	}
	k->set.n = w;
	kept_clear_writes(k);

	/* the failed targets at their new places, in position order */
	if (nback > 0)
	{
		int		   *order = palloc(sizeof(int) * nback);
		MmRoster   *r = palloc(sizeof(MmRoster) * nback);
		int64	   *p = palloc(sizeof(int64) * nback);
		TimestampTz *j = palloc(sizeof(TimestampTz) * nback);

		for (int m = 0; m < nback; m++)
			order[m] = m;
		/* few: insertion sort by position */
		for (int a = 1; a < nback; a++)
			for (int b = a; b > 0 && back_pos[order[b - 1]] > back_pos[order[b]]; b--)
			{
				int			t = order[b];

				order[b] = order[b - 1];
				order[b - 1] = t;
			}
		for (int m = 0; m < nback; m++)
		{
			r[m] = back[order[m]];
			p[m] = back_pos[order[m]];
			j[m] = back_joined[order[m]];
		}
		kept_insert(k, r, p, j, nback);
	}

	/* the rosters the log named, as they are now */
	if (nchanged > 0)
	{
		MmArgs		a;
		MmRosterSet more;
		MmMatcherConfig read_cfg = *cfg;
		MemoryContext old;
		int64	   *pos;
		TimestampTz *joined;
		bool		known;

		mm_args_begin(&a, &statements[K_CHANGED]);
		mm_arg(&a, "queue_id", Int32GetDatum(queue_id));
		mm_arg(&a, "roster_ids", mm_int8_array_datum(nchanged, changed));
		mm_run(&a, true, SPI_OK_SELECT);
		read_cfg.nregions = k->nregions;
		old = MemoryContextSwitchTo(k->cxt);
		pos = palloc(sizeof(int64) * Max(SPI_processed, 1));
		joined = palloc(sizeof(TimestampTz) * Max(SPI_processed, 1));
		known = mm_read_rosters_more(at, &read_cfg, &k->set, &more, pos, joined);
		if (known)
			kept_bits(k, cfg, more.r, more.n);
		MemoryContextSwitchTo(old);
		if (!known)
			return false;
		kept_insert(k, more.r, pos, joined, more.n);
		pfree(more.r);
		pfree(pos);
		pfree(joined);
		k->changes += nchanged;
	}
	return true;
}

/* Run one of this file's statements with $queue_id. */
static void
run_queue(int q, int32 queue_id, bool read_only, int expected)
{
	MmArgs		a;

	mm_args_begin(&a, &statements[q]);
	mm_arg(&a, "queue_id", Int32GetDatum(queue_id));
	mm_run(&a, read_only, expected);
}

/* The single row of K_STATE: the mark (0: none) and the two files. */
static int64
read_state(int32 queue_id, int64 *files)
{
	bool		isnull;
	Datum		d;
	int64		mark;

	run_queue(K_STATE, queue_id, true, SPI_OK_SELECT);
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	mark = isnull ? 0 : DatumGetInt64(d);
	files[0] = files[1] = 0;
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull);
	if (!isnull)
	{
		int64	   *v;
		int			n = mm_int8_array(DatumGetArrayTypeP(d), "files", &v);

		for (int i = 0; i < Min(n, 2); i++)
			files[i] = v[i];
	}
	return mark;
}

/*
 * Read the log's rows of the queue (under the active snapshot) and remove
 * them; *ids gets the rosters they name. Returns how many.
 */
static int
consume_changes(int32 queue_id, int64 **ids)
{
	int			n;
	Datum	   *ctids;
	MmArgs		a;

	run_queue(K_CHANGES, queue_id, true, SPI_OK_SELECT);
	n = (int) SPI_processed;
	*ids = palloc(sizeof(int64) * Max(n, 1));
	if (n == 0)
		return 0;
	ctids = palloc(sizeof(Datum) * n);
	for (int i = 0; i < n; i++)
	{
		bool		isnull;
		HeapTuple	tup = SPI_tuptable->vals[i];
		ItemPointer tid = (ItemPointer) DatumGetPointer(SPI_getbinval(tup, SPI_tuptable->tupdesc, 1, &isnull));
		ItemPointer copy = palloc(sizeof(ItemPointerData));

		ItemPointerCopy(tid, copy);
		ctids[i] = PointerGetDatum(copy);
		(*ids)[i] = DatumGetInt64(SPI_getbinval(tup, SPI_tuptable->tupdesc, 2, &isnull));
	}
	mm_args_begin(&a, &statements[K_CONSUME]);
	mm_arg(&a, "ctids", PointerGetDatum(construct_array(ctids, n, TIDOID, sizeof(ItemPointerData),
														 false, TYPALIGN_SHORT)));
	mm_arg(&a, "queue_id", Int32GetDatum(queue_id));
	mm_run(&a, false, SPI_OK_DELETE);
	return n;
}

KeptInput *
tick_input_open(int32 queue_id, Jsonb *config, const MmMatcherConfig *cfg, TimestampTz at,
				MmRosterSet *set, int *nregions)
{
	KeptInput  *k;
	bool		found;
	int64		files[2];
	int64		mark;
	int64	   *changed;
	int			nchanged;
	bool		current;

	kept_init();
	k = hash_search(kept_inputs, &queue_id, HASH_ENTER, &found);
	if (!found)
	{
		memset(((char *) k) + sizeof(int32), 0, sizeof(KeptInput) - sizeof(int32));
		k->state = KEPT_BUSY;	/* read whole below */
	}

	/* a snapshot taken now, under the tick's lock: any tick before is in it */
	CommandCounterIncrement();
	PushActiveSnapshot(GetTransactionSnapshot());
	mark = read_state(queue_id, files);
	nchanged = consume_changes(queue_id, &changed);
	current = k->state != KEPT_BUSY && k->cxt != NULL && k->mark == mark &&
		k->files[0] == files[0] && k->files[1] == files[1] &&
		VARSIZE(k->config) == VARSIZE(config) &&
		memcmp(k->config, config, VARSIZE(config)) == 0 &&
		/* a burst: reading it whole costs less than a lookup per roster */
		nchanged <= Max(k->set.n / 4, 1000);
	k->state = KEPT_BUSY;
	if (current)
		current = kept_catch_up(k, queue_id, at, cfg, changed, nchanged);
	if (!current)
		kept_read_whole(k, queue_id, at, cfg, config);

	k->files[0] = files[0];
	k->files[1] = files[1];
	k->new_mark = mark;
	k->consumed = nchanged > 0;
	k->ticks++;
	/* (each roster's wait at this tick: set by the catch-up or the read) */
	*set = k->set;
	*nregions = k->nregions;
	return k;
}

void
tick_input_pop(void)
{
	PopActiveSnapshot();
}

bool
tick_input_whole(const KeptInput *k)
{
	/* (every 16th tick tries the first rosters again: the queue may have changed) */
	return k->whole && k->ticks % 16 != 0;
}

void
tick_input_set_whole(KeptInput *k, bool whole)
{
	k->whole = whole;
}

void
tick_input_written(KeptInput *k, const int64 *gone, int ngone, const int64 *moved,
				   const int64 *moved_to, int nmoved)
{
	MemoryContext old = MemoryContextSwitchTo(k->cxt);

	if (ngone > 0)
	{
		k->gone = k->gone ? repalloc(k->gone, sizeof(int64) * (k->ngone + ngone))
			: palloc(sizeof(int64) * ngone);
		memcpy(k->gone + k->ngone, gone, sizeof(int64) * ngone);
		k->ngone += ngone;
	}
	if (nmoved > 0)
	{
		k->moved = k->moved ? repalloc(k->moved, sizeof(int64) * (k->nmoved + nmoved))
			: palloc(sizeof(int64) * nmoved);
		k->moved_to = k->moved_to ? repalloc(k->moved_to, sizeof(int64) * (k->nmoved + nmoved))
			: palloc(sizeof(int64) * nmoved);
		memcpy(k->moved + k->nmoved, moved, sizeof(int64) * nmoved);
		memcpy(k->moved_to + k->nmoved, moved_to, sizeof(int64) * nmoved);
		k->nmoved += nmoved;
	}
	MemoryContextSwitchTo(old);
}

/* Set the queue's mark to this tick. */
static void
set_mark(int32 queue_id, int64 tick_id)
{
	MmArgs		a;

	mm_args_begin(&a, &statements[K_MARK]);
	mm_arg(&a, "queue_id", Int32GetDatum(queue_id));
	mm_arg(&a, "tick_id", Int64GetDatum(tick_id));
	mm_run(&a, false, SPI_OK_INSERT);
}

void
tick_input_close(KeptInput *k, int64 tick_id, bool wrote)
{
	/*
	 * A tick that took changes from the log or wrote rosters marks the
	 * queue: every other kept input is then read again. One that did
	 * neither leaves the mark, and the inputs current with it.
	 */
	if (k->consumed || wrote || k->ngone > 0 || k->nmoved > 0)
	{
		set_mark(k->queue_id, tick_id);
		k->mark = tick_id;
	}
	else
		k->mark = k->new_mark;
	k->state = KEPT_PENDING;
}

void
tick_input_plain(int32 queue_id, int64 tick_id)
{
	MmArgs		a;

	/* this backend's input of the queue, if any, is read whole next time */
	if (kept_inputs != NULL)
	{
		KeptInput  *k = hash_search(kept_inputs, &queue_id, HASH_FIND, NULL);

		if (k != NULL)
			k->state = KEPT_BUSY;
	}
	mm_args_begin(&a, &statements[K_CONSUME_ALL]);
	mm_arg(&a, "queue_id", Int32GetDatum(queue_id));
	mm_run(&a, false, SPI_OK_DELETE);
	set_mark(queue_id, tick_id);
}

/* Comparing a kept input with a fresh read (mm.check_tick_input) */

/* A roster's professions as "name*count" sorted, for comparing. */
static char *
professions_text(const MmRoster *x, char **names)
{
	StringInfoData b;
	char	  **items = palloc(sizeof(char *) * Max(x->nprof, 1));

	for (int k = 0; k < x->nprof; k++)
		items[k] = psprintf("%s*%d", names[x->prof[k]], x->prof_count[k]);
	for (int a = 1; a < x->nprof; a++)
		for (int b = a; b > 0 && strcmp(items[b - 1], items[b]) > 0; b--)
		{
			char	   *t = items[b];

			items[b] = items[b - 1];
			items[b - 1] = t;
		}
	initStringInfo(&b);
	for (int k = 0; k < x->nprof; k++)
		appendStringInfo(&b, "%s%s", k ? "," : "", items[k]);
	return b.data;
}

/* A roster's attribute values and latencies as text, by names. */
static char *
values_text(const MmRoster *x, const MmMatcherConfig *cfg, const MmRosterSet *set, int nregions)
{
	StringInfoData b;
	char	  **vnames = set->reader ? set->reader->value_names : NULL;

	initStringInfo(&b);
	for (int a = 0; x->attr != NULL && a < cfg->nattrs; a++)
	{
		const MmAttrValue *v = &x->attr[a];

		appendStringInfo(&b, "%s=", cfg->attrs[a].name);
		if (!v->present)
			appendStringInfoString(&b, "-;");
		else if (cfg->attrs[a].type == MM_ATTR_NUMBER)
			appendStringInfo(&b, "%.17g;", v->num);
		else if (cfg->attrs[a].type == MM_ATTR_STRING)
			appendStringInfo(&b, "%s;", vnames ? vnames[v->id] : "?");
		else
		{
			/* a set: its names sorted */
			char	  **items = palloc(sizeof(char *) * Max(v->nset, 1));

			for (int s = 0; s < v->nset; s++)
				items[s] = vnames ? vnames[v->set[s]] : "?";
			for (int p = 1; p < v->nset; p++)
				for (int q = p; q > 0 && strcmp(items[q - 1], items[q]) > 0; q--)
				{
					char	   *t = items[q];

					items[q] = items[q - 1];
					items[q - 1] = t;
				}
			for (int s = 0; s < v->nset; s++)
				appendStringInfo(&b, "%s%s", s ? "," : "", items[s]);
			appendStringInfoChar(&b, ';');
		}
	}
	if (x->lat != NULL)
	{
		/* finite latencies by region name (region ids are in name order) */
		appendStringInfoString(&b, "lat:");
		for (int k = 0; k < x->nlat; k++)
			if (x->lat_region[k] >= 0 && x->lat_region[k] < nregions && !isinf(x->lat[k]))
				appendStringInfo(&b, "%s=%.17g,", set->region_names[x->lat_region[k]], x->lat[k]);
	}
	if (x->role_count != NULL)
	{
		appendStringInfoString(&b, "roles:");
		for (int r = 0; r < cfg->nroles; r++)
			appendStringInfo(&b, "%d,", x->role_count[r]);
	}
	return b.data;
}

/* Whether two rosters are the same input to the matcher; *what names the difference. */
static bool
same_roster(const MmRoster *x, const MmRoster *y, const MmRosterSet *xs, const MmRosterSet *ys,
			int xregions, int yregions, const MmMatcherConfig *cfg, const char **what)
{
	if (x->id != y->id)
		*what = "roster id";
	else if (x->players != y->players)
		*what = "players";
	else if (x->rating != y->rating || x->deviation != y->deviation)
		*what = "rating or deviation";
	else if (x->rank != y->rank || x->ladder != y->ladder || x->dishonor != y->dishonor)
		*what = "rank, ladder points or dishonor";
	else if (x->age != y->age)
		*what = "wait";
	else if (x->max_latency != y->max_latency)
		*what = "own latency limit";
	else if (x->nblocks != y->nblocks ||
			 (x->nblocks > 0 && memcmp(x->blocks, y->blocks, sizeof(int64) * x->nblocks) != 0))
		*what = "blocks";
	else if (strcmp(professions_text(x, xs->prof_names), professions_text(y, ys->prof_names)) != 0)
		*what = "professions";
	else if ((x->lat == NULL) != (y->lat == NULL) || (x->role_count == NULL) != (y->role_count == NULL) ||
			 strcmp(values_text(x, cfg, xs, xregions), values_text(y, cfg, ys, yregions)) != 0)
		*what = "attributes, latencies or roles";
	else
		return true;
	return false;
}

void
tick_input_compare(const MmRosterSet *kept, int kept_regions, const MmRosterSet *fresh,
				   int fresh_regions, const MmMatcherConfig *cfg, const char *queue)
{
	const char *what = NULL;

	for (int i = 0; i < Min(kept->n, fresh->n); i++)
		if (!same_roster(&kept->r[i], &fresh->r[i], kept, fresh, kept_regions, fresh_regions, cfg, &what))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("the kept input of queue \"%s\" differs from its tables", queue),
					 errdetail("At place %d: kept roster %lld, read roster %lld (%s).", i + 1,
							   (long long) kept->r[i].id, (long long) fresh->r[i].id, what),
					 errhint("This is a defect of mm; set mm.keep_tick_input to off to tick from the tables.")));
	if (kept->n != fresh->n)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("the kept input of queue \"%s\" differs from its tables", queue),
				 errdetail("It holds %d waiting rosters; the tables hold %d.", kept->n, fresh->n),
				 errhint("This is a defect of mm; set mm.keep_tick_input to off to tick from the tables.")));
}

/* Whether two runs of the matcher over the same rosters made the same matches. */
void
tick_input_compare_runs(const MmRosterSet *a, const MmMatcherResult *ra, const MmRosterSet *b,
						const MmMatcherResult *rb, const char *queue)
{
	const char *what = NULL;

	if (ra->stopped_by_limit || rb->stopped_by_limit)
		return;					/* a run cut by filter.limit depends on the clock */
	if (ra->nmatches != rb->nmatches || ra->nfailed != rb->nfailed)
		what = "the number of matches or failed targets";
	for (int m = 0; what == NULL && m < ra->nmatches; m++)
	{
		const MmMatch *x = &ra->matches[m];
		const MmMatch *y = &rb->matches[m];

		if (x->nmembers != y->nmembers ||
			(x->region < 0) != (y->region < 0) ||
			(x->region >= 0 && strcmp(a->region_names[x->region], b->region_names[y->region]) != 0))
			what = "a match's rosters or region";
		for (int j = 0; what == NULL && j < x->nmembers; j++)
			if (a->r[x->members[j]].id != b->r[y->members[j]].id ||
				a->r[x->members[j]].team != b->r[y->members[j]].team)
				what = "a match's rosters or teams";
	}
	if (what == NULL)
	{
		/* the failed targets, in the order they failed, with their reasons */
		int64	   *fa = palloc0(sizeof(int64) * Max(ra->nfailed, 1) * 2);
		int64	   *fb = palloc0(sizeof(int64) * Max(rb->nfailed, 1) * 2);

		for (int i = 0; i < a->n; i++)
			if (a->r[i].state == MM_ROSTER_FAILED)
			{
				fa[2 * a->r[i].fail_order] = a->r[i].id;
				fa[2 * a->r[i].fail_order + 1] = a->r[i].fail_reason * 1000 + a->r[i].fail_rule;
			}
		for (int i = 0; i < b->n; i++)
			if (b->r[i].state == MM_ROSTER_FAILED)
			{
				fb[2 * b->r[i].fail_order] = b->r[i].id;
				fb[2 * b->r[i].fail_order + 1] = b->r[i].fail_reason * 1000 + b->r[i].fail_rule;
			}
		if (memcmp(fa, fb, sizeof(int64) * 2 * ra->nfailed) != 0)
			what = "the failed targets";
	}
	if (what != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("the matches of queue \"%s\" from its kept input differ from those of its tables", queue),
				 errdetail("They differ in %s: %d matches and %d failed targets from the kept input, %d and %d from the tables.",
						   what, ra->nmatches, ra->nfailed, rb->nmatches, rb->nfailed),
				 errhint("This is a defect of mm; set mm.keep_tick_input to off to tick from the tables.")));
}

/* mm._kept_inputs(): this backend's kept inputs */

PG_FUNCTION_INFO_V1(mm_kept_inputs);

Datum
mm_kept_inputs(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	HASH_SEQ_STATUS seq;
	KeptInput  *k;

	InitMaterializedSRF(fcinfo, 0);
	if (kept_inputs == NULL)
		return (Datum) 0;
	hash_seq_init(&seq, kept_inputs);
	while ((k = hash_seq_search(&seq)) != NULL)
	{
		Datum		values[7];
		bool		nulls[7] = {false, false, false, false, false, false, false};

		values[0] = Int32GetDatum(k->queue_id);
		values[1] = CStringGetTextDatum(k->state == KEPT_VALID ? "current" :
										k->state == KEPT_PENDING ? "pending" : "stale");
		values[2] = Int32GetDatum(k->set.n);
		values[3] = Int64GetDatum(k->mark);
		values[4] = Int64GetDatum(k->ticks);
		values[5] = Int64GetDatum(k->reads);
		values[6] = Int64GetDatum(k->changes);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
