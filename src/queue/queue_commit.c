/*-------------------------------------------------------------------------
 *
 * queue_commit.c
 *		What a tick (tick.c) and a backfill (backfill.c) share when they
 *		write what they matched: the locks on the rosters they move, and the
 *		notification on the queue's channel.
 *
 *-------------------------------------------------------------------------
 */
#include "queue.h"
#include "statement.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/json.h"

enum
{
	L_LOCK,
	L_PLAYERS,
	L_COUNT
};

static MmStatement lock_statements[L_COUNT] = {
	/*
	 * The rosters still waiting; those another session holds are skipped.
	 * Each is found by its key: "waiting" is a CASE, which no partial index
	 * on "match_id IS NULL" serves, since a plan made on a new queue's empty
	 * statistics (where match_id IS NULL looks rare) read the queue's every
	 * waiting roster through one, at every tick.
	 */
	[L_LOCK] = {
		"SELECT r.roster_id FROM mm.roster r "
		"WHERE r.queue_id = $queue_id AND r.roster_id = ANY ($roster_ids) "
		"AND CASE WHEN r.match_id IS NULL THEN true END FOR UPDATE SKIP LOCKED",
		{{"queue_id", INT4OID}, {"roster_ids", INT8ARRAYOID}}
	},
	/* a new snapshot, after the locks: players removed meanwhile show */
	[L_PLAYERS] = {
		"SELECT qp.roster_id, count(*) FROM mm.queued_player qp "
		"WHERE qp.queue_id = $queue_id AND qp.roster_id = ANY ($roster_ids) GROUP BY qp.roster_id",
		{{"queue_id", INT4OID}, {"roster_ids", INT8ARRAYOID}}
	},
};

bool *
mm_lock_rosters(int32 queue_id, const MmRosterSet *set, const int *which, int n)
{
	bool	   *held = palloc0(sizeof(bool) * Max(set->n, 1));
	int		   *count = palloc0(sizeof(int) * Max(set->n, 1));
	bool	   *whole = palloc0(sizeof(bool) * Max(set->n, 1));
	int64	   *ids = palloc(sizeof(int64) * Max(n, 1));
	int			nlookup;
	MmRosterIndex *lookup = mm_roster_lookup(set, which, n, &nlookup);
	Datum		roster_ids;

	if (n == 0)
		return whole;
	for (int k = 0; k < n; k++)
		ids[k] = set->r[which[k]].id;
	roster_ids = mm_id_array(ids, n);
	for (int q = L_LOCK; q < L_COUNT; q++)
	{
		MmArgs		a;

		mm_args_begin(&a, &lock_statements[q]);
		mm_arg(&a, "queue_id", Int32GetDatum(queue_id));
		mm_arg(&a, "roster_ids", roster_ids);
		mm_run(&a, false, SPI_OK_SELECT);
		for (uint64 j = 0; j < SPI_processed; j++)
		{
			bool		isnull;
			HeapTuple	tup = SPI_tuptable->vals[j];
			int			i = mm_roster_find(lookup, nlookup,
										   DatumGetInt64(SPI_getbinval(tup, SPI_tuptable->tupdesc, 1, &isnull)));

			if (i < 0)
				continue;
			if (q == L_LOCK)
				held[i] = true;
			else
				count[i] = (int) DatumGetInt64(SPI_getbinval(tup, SPI_tuptable->tupdesc, 2, &isnull));
		}
	}
	for (int k = 0; k < n; k++)
	{
		int			i = which[k];

		whole[i] = held[i] && count[i] == set->r[i].players;
	}
	return whole;
}

/* Notifications of a queue's channel */

/*
 * NOTIFY payloads must be shorter than 8000 bytes (BLCKSZ - NAMEDATALEN -
 * 128 with the default block size); a notification is cut below this.
 */
#define NOTIFY_PAYLOAD_MAX	7800

/*
 * A payload names its queue under "queue" when the name, escaped as a JSON
 * string, takes at most this many bytes. Every name 0.2.0 accepts does (63
 * bytes without control characters escape to at most 128); a queue that
 * 0.1.0 created may have a longer name, or control characters, each of
 * which escapes to six bytes (\u0001): its payloads leave the name out and
 * name the queue by "queue_id" alone, as every payload does.
 */
#define NOTIFY_NAME_MAX		1000

void
mm_queue_payload_head(StringInfo buf, int32 queue_id, const char *name)
{
	StringInfoData escaped;

	appendStringInfo(buf, "{\"queue_id\": %d", queue_id);
	if (name == NULL)
		return;
	initStringInfo(&escaped);
	escape_json(&escaped, name);
	if (escaped.len <= NOTIFY_NAME_MAX)
	{
		appendStringInfoString(buf, ", \"queue\": ");
		appendBinaryStringInfo(buf, escaped.data, escaped.len);
	}
	pfree(escaped.data);
}

PG_FUNCTION_INFO_V1(mm_queue_payload_head_sql);

/*
 * mm._payload_head(queue_id int, name text): the start of a payload of the
 * queue's channel, as mm_queue_payload_head writes it, for the payloads
 * PL/pgSQL sends (a dissolved match, the accept that completes one).
 */
Datum
mm_queue_payload_head_sql(PG_FUNCTION_ARGS)
{
	StringInfoData b;

	mm_args_not_null(fcinfo, 2);
	initStringInfo(&b);
	mm_queue_payload_head(&b, PG_GETARG_INT32(0), PG_ARGISNULL(1) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(1)));
	PG_RETURN_TEXT_P(cstring_to_text_with_len(b.data, b.len));
}

static MmStatement notify_statement = {
	.sql = "SELECT pg_catalog.pg_notify($channel, $payload)",
	.params = {{"channel", TEXTOID}, {"payload", TEXTOID}}
};

/*
 * On Citus the notification is sent on the coordinator, where backends
 * listen, whichever node the tick runs on: mm.notify_relay is a table of
 * one row that lives there (docs/scaling.md, "Delivery"), and Citus runs a
 * statement that reads it there, in the tick's distributed transaction.
 */
static MmStatement relay_statement = {
	.sql = "SELECT pg_catalog.pg_notify($channel, $payload) FROM mm.notify_relay",
	.params = {{"channel", TEXTOID}, {"payload", TEXTOID}}
};

/*
 * NOTIFY the queue's channel with match ids (see matcher.h): the tick's
 * matches made, {"queue_id": .., "queue": "..", "matches": [..]}, or with a
 * ready check the matches proposed, under "proposed" (mm.accept notifies
 * each under "matches" when it is ready); a backfill's under "backfills".
 */
void
mm_queue_notify(int32 queue_id, const char *name, const int64 *ids, int n,
				const char *key)
{
	int64	   *made = palloc(sizeof(int64) * Max(n, 1));
	int			nmade = 0;
	StringInfoData head;
	StringInfoData b;
	char		channel[64];
	int			i = 0;
	MmStatement *st;

	for (int m = 0; m < n; m++)
		if (ids[m] > 0)
			made[nmade++] = ids[m];

	if (nmade == 0)
		return;
	st = mm_queues_distributed() ? &relay_statement : &notify_statement;
	snprintf(channel, sizeof(channel), "mm_queue_%d", queue_id);
	initStringInfo(&head);
	mm_queue_payload_head(&head, queue_id, name);
	appendStringInfo(&head, ", \"%s\": [", key);
	initStringInfo(&b);
	while (i < nmade)
	{
		MmArgs		a;

		resetStringInfo(&b);
		appendStringInfoString(&b, head.data);
		for (int k = 0; i < nmade && b.len < NOTIFY_PAYLOAD_MAX - 64; i++, k++)
			appendStringInfo(&b, "%s" INT64_FORMAT, k ? ", " : "", made[i]);
		appendStringInfoString(&b, "]}");
		mm_args_begin(&a, st);
		mm_arg(&a, "channel", CStringGetTextDatum(channel));
		mm_arg(&a, "payload", CStringGetTextDatum(b.data));
		mm_run(&a, false, SPI_OK_SELECT);
	}
}
