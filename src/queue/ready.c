/*-------------------------------------------------------------------------
 *
 * ready.c
 *		The tick's side of the ready check: before matching, a tick
 *		dissolves the proposed matches of its queue whose ready check has
 *		ended (mm._resolve_proposals, in SQL beside mm.accept and
 *		mm.decline), so that the rosters going back to the queue can be
 *		matched by the same tick.
 *
 * A match stays proposed for the queue's accept_timeout after the tick
 * that made it (mm.match.accept_until). A proposed match another session
 * holds (an accept or a decline deciding it) is skipped and left to that
 * session or to the next tick.
 *
 *-------------------------------------------------------------------------
 */
#include "queue.h"
#include "statement.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/timestamp.h"

static MmStatement resolve_statement = {
	.sql = "SELECT r.dissolved, r.failed FROM mm._resolve_proposals($queue_id, $at) r",
	.params = {{"queue_id", INT4OID}, {"at", TIMESTAMPTZOID}}
};

/*
 * Dissolve the proposed matches of a queue whose ready check ended by
 * "at"; returns how many, and in *failed how many could not be (each got
 * a WARNING from mm._resolve_proposals and stays proposed). The caller is
 * connected to SPI.
 */
int
mm_ready_resolve(int32 queue_id, TimestampTz at, int *failed)
{
	MmArgs		a;
	bool		isnull;
	Datum		n;

	mm_args_begin(&a, &resolve_statement);
	mm_arg(&a, "queue_id", Int32GetDatum(queue_id));
	mm_arg(&a, "at", TimestampTzGetDatum(at));
	mm_run(&a, false, SPI_OK_SELECT);
	if (SPI_processed != 1)
		elog(ERROR, "resolving the ready checks gave %d rows", (int) SPI_processed);
	n = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull);
	*failed = isnull ? 0 : DatumGetInt32(n);
	n = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	return isnull ? 0 : DatumGetInt32(n);
}
