/*-------------------------------------------------------------------------
 *
 * run_ticks.c
 *		mm.run_ticks, the procedure pg_cron calls: ticks one queue or every queue
 *		for a span of time, each tick its own transaction, runs handing over
 *		to each other by the run advisory lock (MM_RUN_LOCK).
 *
 *-------------------------------------------------------------------------
 */
#include "tick.h"

#include <math.h>

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "libpq/libpq.h"
#include "libpq/libpq-be.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "storage/latch.h"
#include "storage/lock.h"
#include "tcop/dest.h"
#include "tcop/tcopprot.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

/* run_ticks */

/* Interval in milliseconds, refusing infinite and month-based ones. */
static double
interval_ms(Interval *iv, const char *what)
{
	double		ms;

	if (iv->month != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must not use months or years", what),
				 errhint("Give it in seconds, minutes or hours.")));
	ms = iv->time / 1000.0 + iv->day * 86400000.0;
	if (ms < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must not be negative", what),
				 errdetail("The value is %g ms.", ms)));
	return ms;
}

/* Milliseconds since "start". */
static double
elapsed_ms(TimestampTz start)
{
	return (GetCurrentTimestamp() - start) / 1000.0;
}

/*
 * The queues of a run: names and ids, and which ones this run holds. A
 * queue is its id: one dropped and created again under its name is another
 * queue, whose ticks another run may hold.
 */
typedef struct RunQueues
{
	int			n;
	char	  **names;
	int32	   *ids;
	bool	   *held;			/* MM_RUN_LOCK taken by this run */
	bool	   *waiting;		/* another run held it: told once, tried again */
} RunQueues;

static MmStatement queues_statement = {
	.sql = "SELECT q.name, q.queue_id FROM mm.queue q "
		"WHERE ($queue IS NULL OR q.name = $queue) AND q.dropped_at IS NULL ORDER BY q.name",
	.params = {{"queue", TEXTOID}}
};

/*
 * a tick at the time on the clock, of the queue this run holds: none when
 * the name no longer names that queue (dropped, and perhaps created again,
 * since the round began)
 */
static MmStatement tick_statement_now = {
	.sql = "SELECT count(*) FROM mm.tick($queue, clock_timestamp()) "
		"WHERE EXISTS (SELECT FROM mm.queue q WHERE q.queue_id = $queue_id AND q.name = $queue AND q.dropped_at IS NULL)",
	.params = {{"queue", TEXTOID}, {"queue_id", INT4OID}}
};

/* a tick that failed, counted (mm.queue_metrics.tick_errors_total) */
static MmStatement tick_error_statement = {
	.sql = "INSERT INTO mm.queue_counters AS c (queue_id, tick_errors_total) "
	"SELECT q.queue_id, 1 FROM mm.queue q WHERE q.name = $queue AND q.dropped_at IS NULL "
	"ON CONFLICT ON CONSTRAINT queue_counters_pkey DO UPDATE SET tick_errors_total = c.tick_errors_total + 1",
	.params = {{"queue", TEXTOID}}
};

/*
 * The queues to tick this round (one, or all), in memory of the run's
 * context: a queue dropped since the last round leaves the run (its lock
 * released), a new one joins it, not yet held. The first round refuses a
 * queue name that names no queue.
 */
static void
run_queues(const char *queue, RunQueues *q, MemoryContext cxt, bool first)
{
	MmArgs		a;
	MemoryContext old;
	RunQueues	r;

	mm_args_begin(&a, &queues_statement);
	mm_arg_maybe(&a, "queue", queue ? CStringGetTextDatum(queue) : (Datum) 0, queue == NULL);
	mm_run(&a, true, SPI_OK_SELECT);
	if (first && queue != NULL && SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("queue \"%s\" does not exist", queue),
				 errhint("Create it with mm.create_queue.")));
	old = MemoryContextSwitchTo(cxt);
	r.n = (int) SPI_processed;
	r.names = palloc(sizeof(char *) * Max(r.n, 1));
	r.ids = palloc(sizeof(int32) * Max(r.n, 1));
	r.held = palloc0(sizeof(bool) * Max(r.n, 1));
	r.waiting = palloc0(sizeof(bool) * Max(r.n, 1));
	for (int i = 0; i < r.n; i++)
	{
		bool		isnull;

		r.names[i] = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1);
		r.ids[i] = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &isnull));
		/* what this run knew of the queue */
		for (int j = 0; j < q->n; j++)
			if (q->ids[j] == r.ids[i])
			{
				r.held[i] = q->held[j];
				r.waiting[i] = q->waiting[j];
			}
	}
	/* the queues gone since the last round: their locks go */
	for (int j = 0; j < q->n; j++)
	{
		bool		kept = false;

		for (int i = 0; i < r.n && !kept; i++)
			kept = r.ids[i] == q->ids[j];
		if (!kept && q->held[j])
			queue_unlock(MM_RUN_LOCK, q->ids[j]);
		pfree(q->names[j]);
	}
	if (q->names)
	{
		pfree(q->names);
		pfree(q->ids);
		pfree(q->held);
		pfree(q->waiting);
	}
	*q = r;
	MemoryContextSwitchTo(old);
}

/*
 * The client that called this run is gone (its connection closed: Debian's
 * pg_cron 1.4 closes a job's connection on cron.unschedule): end as
 * PostgreSQL ends a query whose client is gone with
 * client_connection_check_interval, FATAL "connection to client lost". The
 * tick under way, if any, rolls back; none starts. A run without a client
 * connection (a background worker) is not checked.
 */
static void
check_client(void)
{
	if (MyProcPort != NULL && whereToSendOutput == DestRemote && !pq_check_connection())
	{
		ClientConnectionLost = 1;
		InterruptPending = 1;
	}
	CHECK_FOR_INTERRUPTS();
}

/*
 * Tick one queue in a subtransaction: an error is reported as a WARNING
 * naming the queue and rolled back, and the caller goes on.
 */
static void
run_one_tick(const char *name, int32 queue_id, MemoryContext cxt)
{
	ResourceOwner owner = CurrentResourceOwner;
	MmArgs		a;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		/*
		 * The tick's time is now on the clock: now() here is when the
		 * transaction began, at the previous tick's commit, an interval
		 * ago.
		 */
		mm_args_begin(&a, &tick_statement_now);
		mm_arg(&a, "queue", CStringGetTextDatum(name));
		mm_arg(&a, "queue_id", Int32GetDatum(queue_id));
		/* a run ticks again and again: the tick keeps its input (tick_input.c) */
		mm_tick_keeps_input = true;
		mm_run(&a, false, SPI_OK_SELECT);
		mm_tick_keeps_input = false;
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		mm_tick_keeps_input = false;
		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED)
			ReThrowError(edata);
		ereport(WARNING,
				(errcode(edata->sqlerrcode),
				 errmsg("tick of queue \"%s\" failed: %s", name, edata->message),
				 edata->detail ? errdetail("%s", edata->detail) : 0,
				 errhint("The other queues were ticked. Fix the queue, or drop it with mm.drop_queue.")));
		FreeErrorData(edata);
		mm_args_begin(&a, &tick_error_statement);
		mm_arg(&a, "queue", CStringGetTextDatum(name));
		mm_run(&a, false, SPI_OK_INSERT);
	}
	PG_END_TRY();
}

/*
 * Sleep until "target" ms after "start", whatever wakes the latch; a
 * client gone is seen within a second.
 */
static void
sleep_until(TimestampTz start, double target)
{
	for (;;)
	{
		double		left = target - elapsed_ms(start);

		check_client();
		if (left <= 0)
			return;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 (long) ceil(Min(left, 1000.0)), PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}

/*
 * Milliseconds since the queue's last logged tick, or a negative number
 * when it has none. Not read-only: a fresh snapshot sees the tick the
 * other run has just committed.
 */
static double
since_last_tick_ms(int32 queue_id)
{
	bool		isnull;
	Datum		last;

	tick_run_queue(Q_LAST_TICK, queue_id, false, SPI_OK_SELECT);
	if (SPI_processed == 0)
		return -1;
	last = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	return (GetCurrentTimestamp() - DatumGetTimestampTz(last)) / 1000.0;
}

/*
 * One round: tick each queue this run holds, each in its own transaction.
 * A queue not yet held is tried at every round: a queue that another run
 * holds is taken over at the first round after that run lets it go, so
 * runs that overlap hand a queue over within one "every" (the schedule
 * pg_cron 1.4 needs, whose runs start once a minute). Whoever ticked a
 * queue last (this run before the queue was taken over, another run, a
 * manual mm.tick), a queue taken over is not ticked within half an
 * interval of its last tick. After the first round, stop as soon as
 * "span" has passed.
 */
static void
run_round(RunQueues *q, TimestampTz start, double every, double span, bool first,
		  MemoryContext cxt)
{
	for (int i = 0; i < q->n; i++)
	{
		check_client();
		if (!first && elapsed_ms(start) >= span)
			return;
		if (!q->held[i])
		{
			double		since;

			if (!queue_try_lock(MM_RUN_LOCK, q->ids[i], true))
			{
				if (!q->waiting[i])
					ereport(NOTICE,
							(errmsg("queue \"%s\" is being ticked by another mm.run_ticks; this run takes over when that one ends",
									q->names[i])));
				q->waiting[i] = true;
				continue;
			}
			q->held[i] = true;

			/*
			 * Taken over: its last tick may have been a moment ago. Within
			 * half an interval of it, wait for this run's next slot, so
			 * that ticks stay at least half an interval apart and at most
			 * one and a half.
			 */
			since = first && !q->waiting[i] ? -1 : since_last_tick_ms(q->ids[i]);
			if (since >= 0 && since < every / 2)
				continue;
		}
		run_one_tick(q->names[i], q->ids[i], cxt);
		SPI_commit();
		MemoryContextSwitchTo(cxt);
	}
}

PG_FUNCTION_INFO_V1(mm_run_ticks);

/*
 * CALL mm.run_ticks(queue text, every interval, span interval): tick the
 * queue (every queue when NULL) every "every" until "span" of wall time
 * has passed. pg_cron fires at most once a minute; this runs the ticks in
 * between. Ticks are at start + k * every; a tick that runs late skips the
 * slots it missed rather than bunching ticks up.
 */
Datum
mm_run_ticks(PG_FUNCTION_ARGS)
{
	char	   *queue = PG_ARGISNULL(0) ? NULL :
		MemoryContextStrdup(TopMemoryContext, text_to_cstring(PG_GETARG_TEXT_PP(0)));
	double		every,
				span;
	bool		nonatomic;
	TimestampTz start = GetCurrentTimestamp();
	MemoryContext cxt;
	RunQueues  *q;

	mm_require_primary("mm.run_ticks");
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("every and span must not be null")));
	every = interval_ms(PG_GETARG_INTERVAL_P(1), "every");
	span = interval_ms(PG_GETARG_INTERVAL_P(2), "span");
	if (every < MIN_EVERY_MS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("every must be at least 100 milliseconds"),
				 errdetail("The value is %g ms.", every),
				 errhint("Give the time between ticks, such as '5 seconds'.")));
	nonatomic = fcinfo->context && IsA(fcinfo->context, CallContext) &&
		!castNode(CallContext, fcinfo->context)->atomic;
	if (!nonatomic)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_TERMINATION),
				 errmsg("mm.run_ticks must be called outside a transaction block"),
				 errhint("CALL it on its own (as pg_cron does), not inside BEGIN ... COMMIT or a function.")));

	/*
	 * lives across the commits of the run; deleted however the run ends (a
	 * cancel, a statement timeout, an error), so that no call leaves one
	 * behind
	 */
	cxt = AllocSetContextCreate(TopMemoryContext, "mm.run_ticks", ALLOCSET_SMALL_SIZES);
	/* in memory, not in a local the error path's longjmp could find stale */
	q = MemoryContextAllocZero(cxt, sizeof(RunQueues));
	if (SPI_connect_ext(SPI_OPT_NONATOMIC) != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	PG_TRY();
	{
		for (int k = 0;; k++)
		{
			double		next;

			/* the queues now: a queue dropped (and created again) meanwhile is another */
			run_queues(queue, q, cxt, k == 0);
			MemoryContextSwitchTo(cxt);
			run_round(q, start, every, span, k == 0, cxt);
			/* the next slot after now; missed slots are skipped */
			next = (floor(elapsed_ms(start) / every) + 1) * every;
			if (next >= span)
				break;
			sleep_until(start, next);
		}
	}
	PG_FINALLY();
	{
		for (int i = 0; i < q->n; i++)
			if (q->held[i])
				queue_unlock(MM_RUN_LOCK, q->ids[i]);
		if (queue)
			pfree(queue);
		/* (not the caller's context: a commit may have ended it) */
		MemoryContextSwitchTo(TopMemoryContext);
		MemoryContextDelete(cxt);
	}
	PG_END_TRY();
	SPI_finish();
	PG_RETURN_VOID();
}
