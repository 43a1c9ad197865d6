/*-------------------------------------------------------------------------
 *
 * events.c
 *		A queue's event feed (sql/parts/43_queue_events.sql): mm.events, which
 *		reads it after a cursor and can wait for it inside one statement,
 *		and the events a tick and a backfill write for the matches they make.
 *
 * The feed must never let a reader pass an event that commits later: a
 * backend polls with "after = the last event_id seen", and ids drawn from a
 * sequence are not in commit order (a transaction that drew id 5 may
 * commit after one that drew id 6 was read). mm.events therefore returns
 * only events up to a horizon h that is final:
 *
 *	1. h = the last id drawn from mm.queue_event_id_seq (its last_value);
 *	2. wait for every transaction that holds a lock on the sequence now
 *	   (GetLockConflicts, then VirtualXactLock, as CREATE INDEX
 *	   CONCURRENTLY waits for the writers of its table);
 *	3. read the events up to h with a new snapshot (READ COMMITTED).
 *
 * nextval() locks the sequence (RowExclusiveLock, owned by the top
 * transaction, held until it ends) before it draws, and the sequence has
 * CACHE 1, so every id up to h was drawn by a transaction that held the
 * lock at step 2 or had already ended: by step 3 each has ended, its
 * commit visible to the new snapshot (a transaction's virtual xid lock is
 * released after it is marked committed). So the events up to h are all
 * the events up to h there will ever be, and returning them in id order
 * never passes one that can still appear. Events above h wait for the next
 * call. The lock waited for belongs to transactions that write events,
 * not to every writer of the cluster: a long transaction elsewhere does
 * not hold the feed back (as a horizon at the snapshot's xmin would).
 *
 * Waiting (max_wait > 0) is a loop inside the statement: read, and when
 * nothing is there, sleep on the latch for a short interval and read
 * again, each read with a new snapshot (a VOLATILE function's SPI queries
 * in READ COMMITTED each take one). LISTEN could not help: notifications
 * reach a session only between transactions. Nothing here depends on the
 * session, so a backend can call it through a transaction pooler.
 *
 *-------------------------------------------------------------------------
 */
#include "queue.h"
#include "mm.h"
#include "statement.h"

#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "storage/lock.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

/* how often a waiting reader looks again, in milliseconds */
#define EVENTS_POLL_MS		10
/* the most events one call returns, and the longest it waits */
#define EVENTS_MAX_EVENTS	10000
#define EVENTS_MAX_WAIT_S	600

enum
{
	E_QUEUE,
	E_LAST_ID,
	E_READ,
	E_MATCHES,
	E_BACKFILLED,
	E_NUMBER,
	E_COUNT
};

static MmStatement statements[E_COUNT] = {
	[E_QUEUE] = {
		"SELECT q.queue_id FROM mm.queue q WHERE q.name = $name AND q.dropped_at IS NULL",
		{{"name", TEXTOID}}
	},
	/* the last id drawn (0 before the first) */
	[E_LAST_ID] = {
		"SELECT CASE WHEN s.is_called THEN s.last_value ELSE 0 END FROM mm.queue_event_id_seq s"
	},
	/* one range scan of the key (queue_id, event_id) */
	[E_READ] = {
		"SELECT e.event_id, e.at, e.kind, e.match_id, e.roster_id, e.player_ids, e.detail "
		"FROM mm.queue_event e "
		"WHERE e.queue_id = $queue_id AND e.event_id > $after AND e.event_id <= $upto "
		"ORDER BY e.event_id LIMIT $max",
		{{"queue_id", INT4OID}, {"after", INT8OID}, {"upto", INT8OID}, {"max", INT4OID}}
	},
	/*
	 * One event per match a tick made ($kind proposed or matched): its
	 * players in roster then party order, its rosters, the end of its ready
	 * check (the same for every match of a tick), and (matched) each
	 * roster's wait in seconds, which the wait histogram of
	 * mm.queue_metrics counts. The rosters' players by one join on the key
	 * (no subquery per roster, which Citus would run on every shard), then
	 * one grouping of the rosters.
	 */
	[E_MATCHES] = {
		"WITH r AS MATERIALIZED ("
		" SELECT r.match_id, r.roster_id, round(extract(epoch FROM r.waited), 3) AS waited,"
		" array_agg(qp.player_id ORDER BY qp.seat) AS players"
		" FROM mm.roster r JOIN mm.queued_player qp ON qp.queue_id = r.queue_id AND qp.roster_id = r.roster_id"
		" WHERE r.queue_id = $queue_id AND r.match_id = ANY ($match_ids)"
		" GROUP BY r.queue_id, r.match_id, r.roster_id, r.waited"
		") INSERT INTO mm.queue_event (queue_id, at, kind, match_id, player_ids, detail)"
		" SELECT $queue_id, $at, $kind, g.match_id, g.players,"
		" CASE WHEN $kind = 'proposed'"
		"      THEN jsonb_build_object('accept_until', $accept_until::timestamptz, 'rosters', g.rosters)"
		"      ELSE jsonb_build_object('rosters', g.rosters, 'waits', g.waits) END"
		" FROM (SELECT r.match_id, array_agg(u.p ORDER BY r.roster_id, u.o) AS players,"
		"       jsonb_agg(r.roster_id ORDER BY r.roster_id) FILTER (WHERE u.o = 1) AS rosters,"
		"       jsonb_agg(r.waited ORDER BY r.roster_id) FILTER (WHERE u.o = 1) AS waits"
		"       FROM r CROSS JOIN LATERAL unnest(r.players) WITH ORDINALITY AS u(p, o)"
		"       GROUP BY r.match_id) g"
		" ORDER BY g.match_id",
		{{"queue_id", INT4OID}, {"match_ids", INT8ARRAYOID}, {"kind", TEXTOID}, {"at", TIMESTAMPTZOID},
		 {"accept_until", TIMESTAMPTZOID}}
	},
	/*
	 * one event per backfill request the tick filled: the new players (one
	 * join on queue_id, no subquery in the target list, which Citus could
	 * not run on the queue's shard)
	 */
	[E_BACKFILLED] = {
		"INSERT INTO mm.queue_event (queue_id, at, kind, match_id, player_ids, detail)"
		" SELECT b.queue_id, $at, 'backfilled', b.match_id, array_agg(qp.player_id ORDER BY r.roster_id, qp.seat),"
		" jsonb_build_object('backfill_id', b.backfill_id, 'team', b.team,"
		"  'rosters', jsonb_agg(DISTINCT r.roster_id ORDER BY r.roster_id))"
		" FROM mm.backfill b"
		" JOIN mm.roster r ON r.queue_id = b.queue_id AND r.match_id = b.match_id AND r.backfill_id = b.backfill_id"
		" JOIN mm.queued_player qp ON qp.queue_id = r.queue_id AND qp.roster_id = r.roster_id"
		" WHERE b.queue_id = $queue_id AND b.status = 'filled' AND b.delivered_at IS NULL AND b.tick_id = $tick_id"
		" GROUP BY b.queue_id, b.match_id, b.backfill_id, b.team"
		" ORDER BY b.backfill_id",
		{{"queue_id", INT4OID}, {"tick_id", INT8OID}, {"at", TIMESTAMPTZOID}}
	},

	/* on Citus: the events just written numbered in the queue's order */
	[E_NUMBER] = {
		"SELECT mm._number_events($queue_id)",
		{{"queue_id", INT4OID}}
	},
};

/* The single int8 of the first row of the last result. */
static int64
first_int64(void)
{
	bool		isnull;
	Datum		d;

	if (SPI_processed != 1)
		elog(ERROR, "expected one row, got %llu", (unsigned long long) SPI_processed);
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	return isnull ? 0 : DatumGetInt64(d);
}

/*
 * The largest event id up to which the feed is final (see the top of this
 * file): the last id drawn, once every transaction holding the sequence's
 * lock has ended. Waits for them; "after" short-cuts the wait when nothing
 * new was drawn.
 */
static int64
feed_horizon(Oid seq, int64 after)
{
	MmArgs		a;
	int64		h;
	LOCKTAG		tag;
	VirtualTransactionId *holders;

	mm_args_begin(&a, &statements[E_LAST_ID]);
	mm_run(&a, true, SPI_OK_SELECT);
	h = first_int64();
	SPI_freetuptable(SPI_tuptable);
	if (h <= after)
		return h;
	/* our own transaction is not among them (GetLockConflicts skips it) */
	SET_LOCKTAG_RELATION(tag, MyDatabaseId, seq);
	holders = GetLockConflicts(&tag, ShareLock, NULL);
	for (VirtualTransactionId *v = holders; VirtualTransactionIdIsValid(*v); v++)
	{
		CHECK_FOR_INTERRUPTS();
		VirtualXactLock(*v, true);
	}
	pfree(holders);
	return h;
}

/* max_wait in microseconds, checked: 0 to EVENTS_MAX_WAIT_S seconds */
static int64
wait_usecs(const Interval *w)
{
	double		us = (double) w->time + (double) w->day * USECS_PER_DAY
		+ (double) w->month * DAYS_PER_MONTH * USECS_PER_DAY;

	if (us < 0 || us > (double) EVENTS_MAX_WAIT_S * USECS_PER_SEC)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_wait must be between 0 and %d seconds", EVENTS_MAX_WAIT_S),
				 errdetail("The value is %s.",
						   DatumGetCString(DirectFunctionCall1(interval_out, IntervalPGetDatum(w)))),
				 errhint("Call mm.events again after it returns: a waiting reader holds its connection, and its snapshot keeps VACUUM from removing rows.")));
	return (int64) us;
}

PG_FUNCTION_INFO_V1(mm_events);

/*
 * mm.events(queue text, after bigint, max_events int, max_wait interval):
 * the events of a queue after "after", in id order, waiting up to max_wait
 * for the first.
 */
Datum
mm_events(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *name;
	int64		after;
	int32		max_events;
	int64		wait_us;
	TimestampTz deadline;
	Oid			seq;
	int32		queue_id;
	bool		distributed;
	MmArgs		a;

	mm_args_not_null(fcinfo, 0);
	name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	after = PG_GETARG_INT64(1);
	max_events = PG_GETARG_INT32(2);
	wait_us = wait_usecs(PG_GETARG_INTERVAL_P(3));
	if (max_events < 1 || max_events > EVENTS_MAX_EVENTS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_events must be between 1 and %d", EVENTS_MAX_EVENTS),
				 errdetail("The value is %d.", max_events)));
	if (RecoveryInProgress())
		mm_require_primary("mm.events");
	if (IsolationUsesXactSnapshot())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("mm.events needs the READ COMMITTED isolation level"),
				 errdetail("A transaction snapshot cannot see the events that commit while it reads the feed, which would let the reader pass them."),
				 errhint("Call mm.events in its own transaction, or in one at READ COMMITTED.")));
	deadline = GetCurrentTimestamp() + wait_us;

	InitMaterializedSRF(fcinfo, 0);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	mm_args_begin(&a, &statements[E_QUEUE]);
	mm_arg(&a, "name", CStringGetTextDatum(name));
	mm_run(&a, true, SPI_OK_SELECT);
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("queue \"%s\" does not exist", name),
				 errhint("Create it with mm.create_queue.")));
	queue_id = (int32) first_int64();
	seq = get_relname_relid("queue_event_id_seq", get_namespace_oid("mm", false));
	if (!OidIsValid(seq))
		elog(ERROR, "sequence mm.queue_event_id_seq is missing");
	distributed = mm_queues_distributed();

	for (;;)
	{
		int64		upto;
		TimestampTz now;
		long		sleep_ms;

		CHECK_FOR_INTERRUPTS();
		/*
		 * On Citus a queue's ids grow in commit order (mm._number_events):
		 * one read of the queue's shard sees every event up to the last it
		 * sees, and no horizon is needed.
		 */
		upto = distributed ? PG_INT64_MAX : feed_horizon(seq, after);
		if (upto > after)
		{
			/* a new snapshot (not read-only): sees every event up to upto */
			mm_args_begin(&a, &statements[E_READ]);
			mm_arg(&a, "queue_id", Int32GetDatum(queue_id));
			mm_arg(&a, "after", Int64GetDatum(after));
			mm_arg(&a, "upto", Int64GetDatum(upto));
			mm_arg(&a, "max", Int32GetDatum(max_events));
			mm_run(&a, false, SPI_OK_SELECT);
			if (SPI_processed > 0)
			{
				for (uint64 r = 0; r < SPI_processed; r++)
				{
					Datum		values[7];
					bool		nulls[7];

					for (int c = 0; c < 7; c++)
						values[c] = SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, c + 1, &nulls[c]);
					tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
				}
				break;
			}
			SPI_freetuptable(SPI_tuptable);
			/* nothing of this queue up to upto: the next look starts there */
			if (!distributed)
				after = upto;
		}
		now = GetCurrentTimestamp();
		if (now >= deadline)
			break;
		sleep_ms = Min(EVENTS_POLL_MS, (long) ((deadline - now + 999) / 1000));
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 sleep_ms, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
	SPI_finish();
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(mm_event_retention);

/* mm._event_retention(): mm.event_retention as an interval */
Datum
mm_event_retention(PG_FUNCTION_ARGS)
{
	Interval   *r = palloc0(sizeof(Interval));

	r->time = (int64) mm_event_retention_s * USECS_PER_SEC;
	PG_RETURN_INTERVAL_P(r);
}

/*
 * The queue whose events a running tick numbers at its end (0: none). On
 * Citus, numbering a queue's events locks the queue's row of
 * mm.queue_event_position until the transaction ends, and every writer of
 * the queue's events waits for it: a tick that numbered the events of the
 * rosters it expires or the ready checks it dissolves when it writes them
 * would hold the row through its whole run. Forgotten when the
 * (sub)transaction that set it ends; the tick numbers its queue's events
 * at its end in any case.
 */
static int32 deferred_queue = 0;
static SubTransactionId deferred_subid = InvalidSubTransactionId;
static bool defer_callbacks = false;

static void
defer_xact_callback(XactEvent event, void *arg)
{
	(void) arg;
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT ||
		event == XACT_EVENT_COMMIT || event == XACT_EVENT_PARALLEL_COMMIT ||
		event == XACT_EVENT_PREPARE)
		deferred_queue = 0;
}

static void
defer_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					   SubTransactionId parentSubid, void *arg)
{
	(void) parentSubid;
	(void) arg;
	/* the subtransaction the tick ran in (not one inside it that failed and was caught) */
	if (event == SUBXACT_EVENT_ABORT_SUB && mySubid == deferred_subid)
		deferred_queue = 0;
}

/*
 * On Citus, number the events just written for a queue in the queue's own
 * order (mm._number_events, sql/parts/43_queue_events.sql), unless a tick
 * of the queue defers it to its end; nothing on a single node, where the
 * sequence numbers them. Inside SPI.
 */
static void
number_events(int32 queue_id)
{
	MmArgs		a;

	if (!mm_queues_distributed() || deferred_queue == queue_id)
		return;
	mm_args_begin(&a, &statements[E_NUMBER]);
	mm_arg(&a, "queue_id", Int32GetDatum(queue_id));
	mm_run(&a, false, SPI_OK_SELECT);
}

void
mm_events_defer(int32 queue_id)
{
	if (!defer_callbacks)
	{
		RegisterXactCallback(defer_xact_callback, NULL);
		RegisterSubXactCallback(defer_subxact_callback, NULL);
		defer_callbacks = true;
	}
	deferred_queue = queue_id;
	deferred_subid = GetCurrentSubTransactionId();
}

void
mm_events_undefer(int32 queue_id)
{
	deferred_queue = 0;
	number_events(queue_id);
}

PG_FUNCTION_INFO_V1(mm_events_deferred);

/* mm._events_deferred(queue_id int): whether a running tick numbers the queue's events at its end */
Datum
mm_events_deferred(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(deferred_queue != 0 && deferred_queue == PG_GETARG_INT32(0));
}

/*
 * Write the events of the matches a tick made at "at" ("proposed" with a
 * ready check of accept_timeout_s seconds, "matched" without, 0); ids <= 0
 * are matches it dropped. Inside SPI.
 */
void
mm_events_matches(int32 queue_id, const int64 *ids, int n, double accept_timeout_s,
				  TimestampTz at)
{
	bool		proposed = accept_timeout_s > 0;
	int64	   *made = palloc(sizeof(int64) * Max(n, 1));
	int			nmade = 0;
	MmArgs		a;

	for (int m = 0; m < n; m++)
		if (ids[m] > 0)
			made[nmade++] = ids[m];
	if (nmade == 0)
		return;
	mm_args_begin(&a, &statements[E_MATCHES]);
	mm_arg(&a, "queue_id", Int32GetDatum(queue_id));
	mm_arg(&a, "match_ids", mm_id_array(made, nmade));
	mm_arg(&a, "kind", CStringGetTextDatum(proposed ? "proposed" : "matched"));
	mm_arg(&a, "at", TimestampTzGetDatum(at));
	mm_arg(&a, "accept_until", TimestampTzGetDatum(at + (int64) (accept_timeout_s * USECS_PER_SEC)));
	mm_run(&a, false, SPI_OK_INSERT);
	number_events(queue_id);
}

/* Write the events of the backfill requests tick "tick_id" filled. Inside SPI. */
void
mm_events_backfilled(int32 queue_id, int64 tick_id, TimestampTz at)
{
	MmArgs		a;

	mm_args_begin(&a, &statements[E_BACKFILLED]);
	mm_arg(&a, "queue_id", Int32GetDatum(queue_id));
	mm_arg(&a, "tick_id", Int64GetDatum(tick_id));
	mm_arg(&a, "at", TimestampTzGetDatum(at));
	mm_run(&a, false, SPI_OK_INSERT);
	if (SPI_processed > 0)
		number_events(queue_id);
}
