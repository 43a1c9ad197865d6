/*-------------------------------------------------------------------------
 *
 * tick.c
 *		Matchmaking ticks over the queue tables: mm.tick and mm.preview
 *		(mm.explain is explain.c, the mm.run_ticks procedure that pg_cron
 *		calls is run_ticks.c).
 *
 * A tick of a queue
 *	0. dissolves the proposed matches whose ready check has ended (ready.c);
 *	1. takes a transaction-level advisory lock on the queue with a
 *	   try-lock: a second tick of the same queue returns at once, with no
 *	   rows and no tick log entry;
 *	2. reads the waiting rosters without locking them (a plain snapshot
 *	   read: enqueue, leave and update_roster never wait for this step);
 *	3. runs the matcher (matcher.c) over them in memory;
 *	4. for each match, locks its rosters (FOR UPDATE SKIP LOCKED) and checks
 *	   that all of them, with all their players, are still there; if one
 *	   left, is being changed, or lost a player meanwhile, the match is
 *	   dropped whole and its rosters stay waiting; otherwise one statement
 *	   records the match and writes its match id and team into each of its
 *	   rosters' rows, where they stay until the match is reported or
 *	   abandoned (their players' rows are not touched; a roster's row in
 *	   its match is also its players' ticket history: a match without a
 *	   ready check writes no ticket event per player);
 *	5. moves the failed targets to the back of the queue (those not
 *	   locked by someone else) and logs the tick.
 * So the rows a tick writes and the locks it holds are those of the
 * rosters it matches or tried, never the rest of the queue. Every
 * statement is prepared once per backend and kept.
 *
 * The advisory lock keys are (MM_TICK_LOCK, queue_id) for a tick and
 * (MM_RUN_LOCK, queue_id) for a run_ticks, in pg_locks as advisory locks
 * with classid 0x6d6d0001 / 0x6d6d0002 and objid the queue id.
 *
 *-------------------------------------------------------------------------
 */
#include "tick.h"
#include "odds_scale.h"

#include <math.h>

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "storage/latch.h"
#include "storage/lock.h"
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

static MmStatement statements[Q_COUNT] = {
	[Q_QUEUE] = {
		"SELECT q.queue_id, q.config FROM mm.queue q WHERE q.name = $name AND q.dropped_at IS NULL",
		{{"name", TEXTOID}}
	},
	/*
	 * The whole queue (mm.explain, and a tick whose targets need more than
	 * its first reads) in two statements under one snapshot, joined in C
	 * (tick_read_queue): the waiting rosters in queue order, and the
	 * queue's players grouped by roster in roster id order (the seat key's
	 * order, so no sort). players: the count; professions and roles: those
	 * given, in no order (a role queue's role counts per roster; other
	 * queues' players have none, and the filter leaves their arrays NULL).
	 * No join, so no plan can run a grouped read of the players once per
	 * roster (what a nested loop over a join with the grouped players did
	 * when the statistics said the queue held one roster: a new queue, a
	 * burst of enqueues); each statement scans one table. One grouped
	 * statement over the union of both tables cost about five times as
	 * much at 100k rosters: every roster's attributes and latencies went
	 * through an aggregate, and the union's rows through a sort.
	 */
	[Q_READ_ROSTERS] = {
		"SELECT r.roster_id, r.position, r.rating, r.deviation, r.rank, r.ladder_points, r.dishonor, r.joined_at, "
		"r.attributes, r.latencies "
		"FROM mm.roster r WHERE r.queue_id = $queue_id AND r.match_id IS NULL ORDER BY r.position",
		{{"queue_id", INT4OID}}
	},
	[Q_READ_PLAYERS] = {
		"SELECT qp.roster_id, count(*) AS players, "
		"array_agg(qp.profession) FILTER (WHERE qp.profession IS NOT NULL) AS professions, "
		"array_agg(qp.role) FILTER (WHERE qp.role IS NOT NULL) AS roles "
		"FROM mm.queued_player qp WHERE qp.queue_id = $queue_id "
		"GROUP BY qp.roster_id ORDER BY qp.roster_id",
		{{"queue_id", INT4OID}}
	},
	/*
	 * The first $limit rosters of the queue in queue order (the position
	 * index), each with its players' count, professions and roles read from the
	 * seat key by the roster's id: no aggregate over the queue's players.
	 * The columns of Q_READ_ROSTERS and Q_READ_PLAYERS; a roster without
	 * players comes with 0 (mm_read_rosters leaves it out), so that the
	 * rows are the rosters read, fewer than $limit only when the queue has
	 * no more. The players are
	 * a lateral subquery, an index lookup per roster read whatever the
	 * statistics say (the seat key is the only way to its queue_id and
	 * roster_id); "roster_id = ANY (the ids read)" was a filter over all
	 * the queue's players, each checked against the whole array, when the
	 * statistics knew nothing of the queue. A roster column the matcher
	 * reads goes into both lists of r and into Q_READ_ROSTERS.
	 */
	[Q_READ_FIRST] = {
		"SELECT r.roster_id, p.players, r.rating, r.deviation, r.rank, r.ladder_points, "
		"r.dishonor, p.professions, r.joined_at, r.attributes, r.latencies, p.roles "
		"FROM (SELECT r.roster_id, r.position, r.rating, r.deviation, r.rank, r.ladder_points, "
		"r.dishonor, r.joined_at, r.attributes, r.latencies "
		"FROM mm.roster r WHERE r.queue_id = $queue_id AND r.match_id IS NULL ORDER BY r.position LIMIT $limit) r "
		"CROSS JOIN LATERAL (SELECT count(*) AS players, "
		"array_agg(qp.profession) FILTER (WHERE qp.profession IS NOT NULL) AS professions, "
		"array_agg(qp.role) FILTER (WHERE qp.role IS NOT NULL) AS roles "
		"FROM mm.queued_player qp WHERE qp.queue_id = $queue_id AND qp.roster_id = r.roster_id) p "
		"ORDER BY r.position",
		{{"queue_id", INT4OID}, {"limit", INT8OID}}
	},
	/*
	 * How many of the first $limit waiting rosters there are: fewer than
	 * $limit, and the first read is the whole queue, which
	 * tick_read_queue reads faster than a lookup of the players per roster
	 * (Q_READ_FIRST): a burst, whose targets are every roster.
	 */
	[Q_FITS] = {
		"SELECT count(*) FROM (SELECT FROM mm.roster r WHERE r.queue_id = $queue_id AND r.match_id IS NULL "
		"ORDER BY r.position LIMIT $limit) r",
		{{"queue_id", INT4OID}, {"limit", INT8OID}}
	},
	/* when the oldest waiting roster joined (the joined_at index) */
	[Q_OLDEST] = {
		"SELECT min(r.joined_at) FROM mm.roster r WHERE r.queue_id = $queue_id AND r.match_id IS NULL",
		{{"queue_id", INT4OID}}
	},
	[Q_TICK_ID] = {
		"SELECT nextval('mm.tick_id_seq')"
	},
	/* the ids of n new matches, in order */
	[Q_MATCH_IDS] = {
		"SELECT nextval('mm.match_id_seq') FROM generate_series(1, $n) g ORDER BY g",
		{{"n", INT4OID}}
	},
	/*
	 * Record the matches, then put their rosters in them (Q_MOVE_ROSTERS)
	 * and, for a ready check, write the players' ticket events
	 * (Q_MOVE_EVENTS): three statements, each on one table. The matches
	 * come as arrays of their figures (one element per match made,
	 * numbered 1, 2, ... in the order of $match_ids; $odds has k per match
	 * for the queue's k teams, named by $team_names in team order), the
	 * rosters as arrays of (roster, match number, team index) in ascending
	 * roster id: bulk parameters, three statements however many matches.
	 * No statement reads the result of another (a CTE): Citus would ship
	 * such a result to every node of the cluster, over a connection
	 * opened for it and a two-phase commit, from a tick that writes only
	 * its own queue's shard. A matched roster stays where it is: its row
	 * gets its match id, team and wait (the match id a foreign key to the
	 * match), and its players' rows are not touched (they hold the players
	 * until the match ends). A roster's place in $roster_ids is found by
	 * width_bucket, a binary search of the sorted ids, and indexes its
	 * match number and team: no join, so no plan can run one side once
	 * per row of the other when the statistics say the queue is empty (a
	 * new queue, a burst of enqueues), and nothing built per roster (a
	 * jsonb object of roster id -> match and team cost about a tenth of a
	 * burst's writes). Only a ready check ($status 'proposed',
	 * $accept_until its end) writes a ticket event per player, as
	 * mm.accept and mm.decline go on from there ($status 'matched',
	 * $accept_until NULL without one). $odds_scale is the scale the
	 * queue's calibration applied to the odds, $model the rating family
	 * whose odds they are. The UPDATE's subscripts sit inside scalar
	 * subqueries: Citus 13.2 crashes planning an UPDATE of a distributed
	 * table whose SET subscripts a parameter directly (its evaluation of
	 * the SET expressions before sending the statement to the shard).
	 */
	[Q_MOVE] = {
		"INSERT INTO mm.match (match_id, queue_id, tick_id, created_at, prediction, red_odds, blue_odds, rating_spread,"
		" status, accept_until, region, teams, odds, odds_scale, model)"
		" SELECT u.match_id, $queue_id, $tick_id, $at, u.prediction, $odds[(u.no::int - 1) * cardinality($team_names) + 1],"
		" $odds[(u.no::int - 1) * cardinality($team_names) + 2], u.spread, $status, $accept_until, u.region, $team_names,"
		" $odds[(u.no::int - 1) * cardinality($team_names) + 1 : u.no::int * cardinality($team_names)], $odds_scale, $model"
		" FROM unnest($match_ids::int8[], $predictions::float8[], $spreads::float8[], $regions::text[])"
		" WITH ORDINALITY AS u(match_id, prediction, spread, region, no)",
		{{"queue_id", INT4OID}, {"tick_id", INT8OID}, {"match_ids", INT8ARRAYOID},
		 {"predictions", FLOAT8ARRAYOID}, {"odds", FLOAT8ARRAYOID},
		 {"team_names", TEXTARRAYOID}, {"spreads", FLOAT8ARRAYOID},
		 {"at", TIMESTAMPTZOID}, {"status", TEXTOID},
		 {"accept_until", TIMESTAMPTZOID}, {"regions", TEXTARRAYOID}, {"odds_scale", FLOAT8OID},
		 {"model", TEXTOID}}
	},
	[Q_MOVE_ROSTERS] = {
		"UPDATE mm.roster r"
		" SET match_id = (SELECT $match_ids[$roster_matches[width_bucket(r.roster_id, $roster_ids)]]),"
		" team = (SELECT $team_names[$roster_teams[width_bucket(r.roster_id, $roster_ids)] + 1]),"
		" waited = $at - r.joined_at"
		" WHERE r.queue_id = $queue_id AND r.roster_id = ANY ($roster_ids)"
		" AND CASE WHEN r.match_id IS NULL THEN true END",  /* by key: see queue_commit.c's L_LOCK */
		{{"queue_id", INT4OID}, {"match_ids", INT8ARRAYOID}, {"team_names", TEXTARRAYOID},
		 {"roster_ids", INT8ARRAYOID}, {"roster_matches", INT4ARRAYOID},
		 {"roster_teams", INT4ARRAYOID}, {"at", TIMESTAMPTZOID}}
	},
	[Q_MOVE_EVENTS] = {
		"INSERT INTO mm.ticket_event (roster_id, player_id, status, at, queue_id, match_id)"
		" SELECT qp.roster_id, qp.player_id, 'proposed', $at, $queue_id,"
		" (SELECT $match_ids[$roster_matches[width_bucket(qp.roster_id, $roster_ids)]])"
		" FROM mm.queued_player qp"
		" WHERE qp.queue_id = $queue_id AND qp.roster_id = ANY ($roster_ids)"
		" ORDER BY qp.roster_id, qp.seat",
		{{"queue_id", INT4OID}, {"match_ids", INT8ARRAYOID}, {"roster_ids", INT8ARRAYOID},
		 {"roster_matches", INT4ARRAYOID}, {"at", TIMESTAMPTZOID}}
	},
	/*
	 * failed targets to the back, in the order they failed (the positions
	 * drawn in a CTE of their own: Citus refuses nextval() inside an UPDATE
	 * of a distributed table). Those another session holds are skipped.
	 * The rosters locked (l) and the new positions (f) meet in a jsonb
	 * object of roster id -> position, looked up per roster by key: no
	 * join, so no plan runs the locking read once per roster (as a semi
	 * join did when the statistics said the queue was empty). Returns the
	 * rosters moved and their new places (a kept input follows them).
	 */
	[Q_REQUEUE] = {
		"WITH l AS MATERIALIZED (SELECT r.roster_id FROM mm.roster r "
		"WHERE r.queue_id = $queue_id AND r.roster_id = ANY ($roster_ids) "
		"AND CASE WHEN r.match_id IS NULL THEN true END FOR UPDATE SKIP LOCKED), "  /* by key: L_LOCK */
		"held AS MATERIALIZED (SELECT jsonb_object_agg(l.roster_id::text, true) AS ids FROM l), "
		"f AS MATERIALIZED (SELECT u.id, nextval('mm.roster_position_seq') AS pos "
		"FROM unnest($roster_ids::bigint[]) WITH ORDINALITY AS u(id, o) ORDER BY u.o), "
		"m AS MATERIALIZED (SELECT jsonb_object_agg(f.id::text, f.pos) AS pos FROM f "
		"WHERE (SELECT held.ids FROM held) ? f.id::text) "
		"UPDATE mm.roster r SET position = ((SELECT m.pos FROM m) ->> r.roster_id::text)::bigint "
		"WHERE r.queue_id = $queue_id AND r.roster_id = ANY ($roster_ids) AND (SELECT m.pos FROM m) ? r.roster_id::text "
		"RETURNING r.roster_id, r.position",
		{{"queue_id", INT4OID}, {"roster_ids", INT8ARRAYOID}}
	},
	[Q_LOG] = {
		"INSERT INTO mm.tick_log (tick_id, queue_id, at, started_at, duration_ms, rosters_seen, "
		"matches_made, targets_failed, oldest_wait, mean_rating_spread, matches_dropped, "
		"rosters_expired, failed_reasons, dissolves_failed, last_at) "
		"VALUES ($tick_id, $queue_id, $at, $started_at, extract(epoch FROM clock_timestamp() - $started_at)::float8 * 1000, "
		"$rosters_seen, $matches_made, $targets_failed, make_interval(secs => $oldest_wait_s), $mean_rating_spread, $matches_dropped, $rosters_expired, $failed_reasons::jsonb, $dissolves_failed, $at)",
		{{"tick_id", INT8OID}, {"queue_id", INT4OID}, {"at", TIMESTAMPTZOID},
		 {"started_at", TIMESTAMPTZOID}, {"rosters_seen", INT4OID}, {"matches_made", INT4OID},
		 {"targets_failed", INT4OID}, {"oldest_wait_s", FLOAT8OID},
		 {"mean_rating_spread", FLOAT8OID}, {"matches_dropped", INT4OID},
		 {"failed_reasons", TEXTOID}, {"rosters_expired", INT4OID},
		 {"dissolves_failed", INT4OID}}
	},
	/*
	 * an idle tick (nothing waiting, nothing done) extends the queue's last
	 * row when that row is idle too: one row per idle stretch, not per tick
	 */
	[Q_IDLE] = {
		"UPDATE mm.tick_log l SET ticks = l.ticks + 1, last_at = greatest(l.last_at, $at) "
		"WHERE l.queue_id = $queue_id AND l.tick_id = (SELECT x.tick_id FROM mm.tick_log x "
		"WHERE x.queue_id = $queue_id ORDER BY x.at DESC, x.tick_id DESC LIMIT 1) "
		"AND l.rosters_seen = 0 AND l.matches_made = 0 AND l.targets_failed = 0 "
		"AND l.matches_dropped = 0 AND l.rosters_expired = 0 AND l.dissolves_failed = 0",
		{{"queue_id", INT4OID}, {"at", TIMESTAMPTZOID}}
	},
	/* when the queue was last ticked (run_ticks taking a queue over) */
	[Q_LAST_TICK] = {
		"SELECT l.last_at FROM mm.tick_log l WHERE l.queue_id = $queue_id "
		"ORDER BY l.at DESC, l.tick_id DESC LIMIT 1",
		{{"queue_id", INT4OID}}
	},
	/*
	 * rosters past ticket_ttl, then taken out (those locked, being left or
	 * matched, wait): two statements, so that on Citus the function that
	 * takes them out, which runs statements on the queue's shard, is not
	 * called from a statement that itself runs there
	 */
	[Q_EXPIRED] = {
		"SELECT array_agg(r.roster_id ORDER BY r.roster_id) FROM mm.roster r "
		"WHERE r.queue_id = $queue_id AND r.match_id IS NULL AND r.joined_at <= $at - make_interval(secs => $ttl_s)",
		{{"queue_id", INT4OID}, {"at", TIMESTAMPTZOID}, {"ttl_s", FLOAT8OID}}
	},
	[Q_EXPIRE] = {
		"SELECT count(*) FROM mm._end_rosters($roster_ids, 'expired', 'ticket_ttl', true, $at, $queue_id)",
		{{"queue_id", INT4OID}, {"at", TIMESTAMPTZOID}, {"roster_ids", INT8ARRAYOID}}
	},
	/* the queue's calibration of its odds (odds_scale.h) */
	[Q_ODDS_READ] = {
		"SELECT c.model, c.scale, c.information, c.results FROM mm.odds_calibration c "
		"WHERE c.queue_id = $queue_id",
		{{"queue_id", INT4OID}}
	},
	/*
	 * the results reported since the last tick, removed, in report order;
	 * a report that commits meanwhile stays for the next tick
	 */
	[Q_ODDS_FOLD] = {
		"WITH d AS (DELETE FROM mm.odds_result r WHERE r.queue_id = $queue_id "
		"RETURNING r.logit, r.score, r.reported_at, r.match_id, r.model) "
		"SELECT d.logit, d.score FROM d WHERE d.model = $model ORDER BY d.reported_at, d.match_id",
		{{"queue_id", INT4OID}, {"model", TEXTOID}}
	},
	[Q_ODDS_WRITE] = {
		"INSERT INTO mm.odds_calibration AS c (queue_id, model, scale, information, results, updated_at) "
		"VALUES ($queue_id, $model, $scale, $information, $results, $at) "
		"ON CONFLICT ON CONSTRAINT odds_calibration_pkey DO UPDATE "
		"SET model = excluded.model, scale = excluded.scale, information = excluded.information, "
		"results = excluded.results, updated_at = excluded.updated_at",
		{{"queue_id", INT4OID}, {"model", TEXTOID}, {"scale", FLOAT8OID}, {"information", FLOAT8OID},
		 {"results", INT8OID}, {"at", TIMESTAMPTZOID}}
	},
};

/* Run statement q with one argument, the queue's id. */
void
tick_run_queue(int q, int32 queue_id, bool read_only, int expected)
{
	MmArgs		a;

	mm_args_begin(&a, &statements[q]);
	mm_arg(&a, "queue_id", Int32GetDatum(queue_id));
	mm_run(&a, read_only, expected);
}

/*
 * Read a queue's waiting rosters whole, in queue order, into "set": its
 * players grouped by roster, then its rosters, both in the active
 * snapshot (read-only statements take no new one), joined by roster id.
 */
void
tick_read_queue(int32 queue_id, TimestampTz at, MmMatcherConfig *cfg, MmRosterSet *set)
{
	SPITupleTable *players;
	uint64		nplayers;

	tick_run_queue(Q_READ_PLAYERS, queue_id, true, SPI_OK_SELECT);
	players = SPI_tuptable;
	nplayers = SPI_processed;
	tick_run_queue(Q_READ_ROSTERS, queue_id, true, SPI_OK_SELECT);
	mm_read_rosters_grouped(at, cfg, set, players, nplayers);
}

/* The single int8 value of the first column of the last result. */
static int64
result_int64(void)
{
	bool		isnull;
	Datum		d;

	if (SPI_processed != 1)
		elog(ERROR, "expected one row, got %llu", (unsigned long long) SPI_processed);
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	return isnull ? 0 : DatumGetInt64(d);
}

/* Look up a queue: its id and config (*config as stored, if wanted), or an error. */
static int32
queue_lookup(const char *name, MmMatcherConfig *cfg, Jsonb **config)
{
	MmArgs		a;
	bool		isnull;
	int32		id;
	Jsonb	   *stored;

	mm_args_begin(&a, &statements[Q_QUEUE]);
	mm_arg(&a, "name", CStringGetTextDatum(name));
	mm_run(&a, true, SPI_OK_SELECT);
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("queue \"%s\" does not exist", name),
				 errhint("Create it with mm.create_queue.")));
	id = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	stored = DatumGetJsonbP(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	mm_queue_config(stored, cfg);
	if (config != NULL)
		*config = stored;
	return id;
}

/* Try to take an advisory lock (MM_TICK_LOCK or MM_RUN_LOCK) on a queue. */
bool
queue_try_lock(int32 key, int32 queue_id, bool session)
{
	LOCKTAG		tag;

	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, (uint32) key, (uint32) queue_id, 2);
	return LockAcquire(&tag, ExclusiveLock, session, true) != LOCKACQUIRE_NOT_AVAIL;
}

void
queue_unlock(int32 key, int32 queue_id)
{
	LOCKTAG		tag;

	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, (uint32) key, (uint32) queue_id, 2);
	LockRelease(&tag, ExclusiveLock, true);
}

/*
 * Read the first "limit" waiting rosters of a queue in queue order (no
 * locks) into "set"; true when they are the whole queue. With "own", the
 * read also sees what this tick wrote before it (rosters a dissolved ready
 * check gave back, rosters it expired): the statement's snapshot with a
 * newer command id, so still no roster committed after the statement
 * began; without, the statement's snapshot. Either way every read of a
 * tick sees the same queue.
 */
static bool
read_first(int32 queue_id, TimestampTz at, int64 limit, bool own, MmMatcherConfig *cfg,
		   MmRosterSet *set)
{
	MmArgs		a;
	uint64		rows;

	if (own)
	{
		CommandCounterIncrement();
		PushCopiedSnapshot(GetActiveSnapshot());
		UpdateActiveSnapshotCommandId();
	}
	/* a queue no longer than the first read: read it whole */
	if (limit > 0)
	{
		mm_args_begin(&a, &statements[Q_FITS]);
		mm_arg(&a, "queue_id", Int32GetDatum(queue_id));
		mm_arg(&a, "limit", Int64GetDatum(limit));
		mm_run(&a, true, SPI_OK_SELECT);
		if (result_int64() < limit)
			limit = 0;
	}
	if (limit > 0)
	{
		mm_args_begin(&a, &statements[Q_READ_FIRST]);
		mm_arg(&a, "queue_id", Int32GetDatum(queue_id));
		mm_arg(&a, "limit", Int64GetDatum(limit));
		mm_run(&a, true, SPI_OK_SELECT);
		rows = SPI_processed;
		mm_read_rosters(at, true, cfg, set);
	}
	else
	{
		/* limit 0: the whole queue, its players grouped in one scan */
		tick_read_queue(queue_id, at, cfg, set);
		rows = 0;
	}
	if (own)
		PopActiveSnapshot();
	return limit == 0 || rows < (uint64) limit;
}


/*
 * How many rosters a tick's first read takes: mm.tick_read_batch, or by
 * default twice the targets and potentials a run looks at.
 */
static int64
first_read_limit(const MmMatcherConfig *cfg)
{
	if (mm_tick_read_batch > 0)
		return mm_tick_read_batch;
	return 2 * ((int64) cfg->filter.rosters + cfg->filter.potentials_max);
}

/*
 * Read a queue's waiting rosters and match them, reading only as much of
 * the queue, in queue order, as the targets need. The matcher's targets are
 * the first filter.rosters rosters, and each target's potentials the first
 * potentials_max rosters still waiting whose ranges overlap it: over the
 * first k rosters of the queue, a target whose search found potentials_max
 * has the potentials it has over the whole queue, and so the same outcome
 * (mm_matcher_run's prefix mode stops at the first target that found
 * fewer). So the tick reads the first mm.tick_read_batch rosters (by
 * default twice filter.rosters + potentials_max) and runs the matcher; if
 * a target is undecided, it reads the whole queue and runs it again. The
 * matches are those of a run over the whole queue. Reading twice as many
 * instead, until decided, cost more where the whole queue is needed anyway
 * (a sparse queue, where most targets fail): a lookup per roster costs
 * more than one grouped read of the queue's players, and with the whole
 * queue read at the second step a tick costs at most one first read more
 * than reading it all at once. A
 * tick (name given) first fills the queue's open backfill requests
 * (backfill.c) in the same way, which takes the rosters it picks out of
 * the set; their fills are written once the read is final.
 */
static void
tick_match(int32 queue_id, TimestampTz at, const MmMatcherConfig *cfg,
		   MmRosterSet *set, MmMatcherResult *res, bool own, const char *name, int64 tick_id)
{
	MmMatcherConfig run_cfg = *cfg;
	int64		limit = first_read_limit(cfg);
	MmRosterSet all;
	MmRosterSet rest;
	MmBackfillPlan *plan = NULL;

	for (;;)
	{
		bool		whole = read_first(queue_id, at, limit, own, &run_cfg, &all);
		bool		decided = true;

		mm_roster_limits_read(queue_id, at, &run_cfg, &all, NULL);

		run_cfg.prefix = !whole;
		rest = all;
		if (name != NULL)
			decided = mm_backfill_plan(queue_id, at, &run_cfg, &all, &plan, &rest);
		if (decided)
		{
			mm_matcher_run(rest.r, rest.n, rest.nprof, &run_cfg, res);
			decided = !res->undecided;
		}
		if (decided || whole)
			break;
		limit = 0;				/* the whole queue */
	}
	if (plan != NULL)
		(void) mm_backfill_apply(queue_id, name, tick_id, at, &all, plan);
	*set = rest;
}

/*
 * The same over a kept input (tick_input.c), in memory: its first rosters
 * with the matcher in prefix mode, then, if a target is undecided, all of
 * them. With mm.check_tick_input, the input is first compared with a
 * fresh read of the tables under the same snapshot, and the matches with
 * the matcher's over that read. *backfilled gets the rosters the tick's
 * backfills moved.
 */
static void
tick_match_kept(int32 queue_id, TimestampTz at, const MmMatcherConfig *cfg, KeptInput *kept,
				MmRosterSet *kset, int nregions, MmRosterSet *set, MmMatcherResult *res,
				const char *name, int64 tick_id, int64 **backfilled, int *nbackfilled)
{
	MmMatcherConfig run_cfg = *cfg;
	int64		limit = first_read_limit(cfg);
	MmRosterSet all;
	MmRosterSet rest;
	MmBackfillPlan *plan = NULL;
	MmMatcherConfig fresh_cfg = *cfg;
	MmRosterSet fresh = {0};
	const uint64 **saved_bits = NULL;
	List	   *touched = NIL;
	ListCell   *lc;

	run_cfg.nregions = nregions;
	/*
	 * What the players asked of their matches is never kept: blocks change
	 * without the queue changing (mm.block, mm.unblock, a block running
	 * out) and are read again at every tick, with the rosters' own latency
	 * limits, as a tick from the tables reads them (roster_limits.c). The
	 * kept rosters hold none between ticks: this tick gives them to the
	 * rosters it lists in "touched" and takes them away again at its end.
	 */
	mm_roster_limits_read(queue_id, at, &run_cfg, kset, &touched);
	/*
	 * The rules' bits kept with the rosters were made without their own
	 * latency limits (read just now): when a roster has one, this tick's
	 * run makes every roster's bits itself, and the kept ones come back
	 * after it.
	 */
	foreach(lc, touched)
	{
		int			i = lfirst_int(lc);

		if (kset->r[i].max_latency > 0 && kset->r[i].rule_bits != NULL)
		{
			if (saved_bits == NULL)
				saved_bits = palloc0(sizeof(const uint64 *) * kset->n);
			saved_bits[i] = kset->r[i].rule_bits;
			kset->r[i].rule_bits = NULL;
		}
	}
	if (mm_check_tick_input)
	{
		tick_read_queue(queue_id, at, &fresh_cfg, &fresh);
		mm_roster_limits_read(queue_id, at, &fresh_cfg, &fresh, NULL);
		tick_input_compare(kset, nregions, &fresh, fresh_cfg.nregions, cfg, name);
	}
	tick_input_pop();
	/* a queue whose last tick needed all its rosters most likely needs them again */
	if (tick_input_whole(kept))
		limit = 0;
	for (;;)
	{
		bool		whole = limit <= 0 || limit >= kset->n;
		bool		decided = true;

		all = *kset;
		if (!whole)
			all.n = (int) limit;
		run_cfg.prefix = !whole;
		rest = all;
		/* the open requests, once: none found, none to plan over more rosters */
		if (plan == NULL || !mm_backfill_none(plan))
			decided = mm_backfill_plan(queue_id, at, &run_cfg, &all, &plan, &rest);
		if (decided)
		{
			mm_matcher_run(rest.r, rest.n, rest.nprof, &run_cfg, res);
			decided = !res->undecided;
		}
		if (decided || whole)
		{
			tick_input_set_whole(kept, whole && limit == 0 && kset->n > 0);
			break;
		}
		limit = 0;
	}
	*nbackfilled = 0;
	if (plan != NULL)
	{
		(void) mm_backfill_apply(queue_id, name, tick_id, at, &all, plan);
		*nbackfilled = mm_backfill_moved(plan, &all, backfilled);
	}
	if (mm_check_tick_input)
	{
		/*
		 * the fresh read less the rosters the backfills took (those of
		 * "all" not in "rest", which keeps the others in order), matched
		 * whole
		 */
		MmRosterSet fresh_rest = fresh;
		MmMatcherResult fres;
		int64	   *taken = palloc(sizeof(int64) * Max(all.n, 1));
		int			ntaken = 0;

		for (int i = 0, j = 0; i < all.n; i++)
			if (j < rest.n && all.r[i].id == rest.r[j].id)
				j++;
			else
				taken[ntaken++] = all.r[i].id;
		qsort(taken, ntaken, sizeof(int64), mm_cmp_int64);
		fresh_rest.r = palloc(sizeof(MmRoster) * Max(fresh.n, 1));
		fresh_rest.n = 0;
		for (int i = 0; i < fresh.n; i++)
			if (ntaken == 0 || bsearch(&fresh.r[i].id, taken, ntaken, sizeof(int64), mm_cmp_int64) == NULL)
				fresh_rest.r[fresh_rest.n++] = fresh.r[i];
		fresh_cfg.prefix = false;
		mm_matcher_run(fresh_rest.r, fresh_rest.n, fresh_rest.nprof, &fresh_cfg, &fres);
		tick_input_compare_runs(&rest, res, &fresh_rest, &fres, name);
	}
	foreach(lc, touched)
	{
		int			i = lfirst_int(lc);

		if (saved_bits != NULL && saved_bits[i] != NULL)
			kset->r[i].rule_bits = saved_bits[i];
		kset->r[i].nblocks = 0;
		kset->r[i].blocks = NULL;
		kset->r[i].max_latency = 0;
	}
	*set = rest;
}

/* Figures of one tick for the tick log. */
typedef struct TickFigures
{
	int			expired;
	int			made;
	int			dropped;
	int			dissolves_failed;
	double		spread_sum;
} TickFigures;

/* A matched roster for Q_MOVE_ROSTERS: its id, match number and team index. */
typedef struct MovedRoster
{
	int64		id;
	int32		no;
	int32		team;
} MovedRoster;

static int
cmp_moved(const void *a, const void *b)
{
	int64		x = ((const MovedRoster *) a)->id;
	int64		y = ((const MovedRoster *) b)->id;

	return (x > y) - (x < y);
}

/* Put the rows of one match: its teams in team order, each by roster id. */
static void
put_match_rows(ReturnSetInfo *rsinfo, const MmRosterSet *set, const MmMatcherConfig *cfg,
			   const MmMatch *mt, int64 match_id)
{
	int64	   *ids = palloc(sizeof(int64) * mt->nmembers);

	for (int side = 0; side < cfg->nteams; side++)
	{
		int			n = 0;

		for (int k = 0; k < mt->nmembers; k++)
			if (set->r[mt->members[k]].team == side)
				ids[n++] = set->r[mt->members[k]].id;
		qsort(ids, n, sizeof(int64), mm_cmp_int64);
		for (int k = 0; k < n; k++)
		{
			Datum		values[3];
			bool		nulls[3] = {false, false, false};

			values[0] = Int64GetDatum(match_id);
			values[1] = Int64GetDatum(ids[k]);
			values[2] = CStringGetTextDatum(cfg->team_names[side]);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	}
	pfree(ids);
}

/*
 * Lock the rosters of every match, keep the matches whose rosters are all
 * still there with all their players (others are dropped whole), record
 * them and move their rosters (Q_MOVE and the statements after it); put
 * the rows in the result. Fills match_ids (0 for a dropped match) and the
 * figures.
 */
static void
tick_commit(int32 queue_id, int64 tick_id, TimestampTz at, const MmMatcherConfig *cfg,
			double odds_scale, MmRosterSet *set, const MmMatcherResult *res,
			ReturnSetInfo *rsinfo, int64 *match_ids, TickFigures *fig)
{
	int			nm = 0;
	int		   *which;			/* the set indexes of the matched rosters */
	bool	   *whole;			/* per set index: locked, players unchanged */
	MmArgs		a;
	int64	   *m_id;
	double	   *m_pred, *m_odds, *m_spread;
	char	  **m_region;		/* NULL: no region */
	int64	   *r_id;
	int32	   *r_no, *r_team;
	MovedRoster *moved;
	int		   *good;			/* per match number - 1: its index in res */
	int			ngood = 0, nrows = 0;
	Datum		ids, team_names, roster_ids, roster_matches;
	bool		proposed;

	for (int m = 0; m < res->nmatches; m++)
		nm += res->matches[m].nmembers;
	if (nm == 0)
		return;
	which = palloc(sizeof(int) * nm);
	nm = 0;
	for (int m = 0; m < res->nmatches; m++)
		for (int k = 0; k < res->matches[m].nmembers; k++)
			which[nm++] = res->matches[m].members[k];
	whole = mm_lock_rosters(queue_id, set, which, nm);

	/* the matches to make, and their rosters */
	good = palloc(sizeof(int) * res->nmatches);
	m_pred = palloc(sizeof(double) * res->nmatches);
	m_odds = palloc(sizeof(double) * res->nmatches * cfg->nteams);
	m_spread = palloc(sizeof(double) * res->nmatches);
	m_region = palloc(sizeof(char *) * res->nmatches);
	r_id = palloc(sizeof(int64) * nm);
	r_no = palloc(sizeof(int32) * nm);
	r_team = palloc(sizeof(int32) * nm);
	moved = palloc(sizeof(MovedRoster) * nm);
	for (int m = 0; m < res->nmatches; m++)
	{
		const MmMatch *mt = &res->matches[m];
		bool		all_whole = true;

		match_ids[m] = 0;
		for (int k = 0; k < mt->nmembers && all_whole; k++)
			all_whole = whole[mt->members[k]];
		if (!all_whole)
		{
			fig->dropped++;
			continue;
		}
		good[ngood] = m;
		m_pred[ngood] = mm_matcher_prediction(mt, cfg);
		mm_matcher_odds(mt, set->r, cfg, odds_scale, &m_odds[ngood * cfg->nteams]);
		m_region[ngood] = mt->region < 0 ? NULL : set->region_names[mt->region];
		m_spread[ngood++] = mt->rating_spread;
		for (int k = 0; k < mt->nmembers; k++)
		{
			const MmRoster *x = &set->r[mt->members[k]];

			moved[nrows].id = x->id;
			moved[nrows].no = ngood;
			moved[nrows++].team = x->team;
		}
	}
	if (ngood == 0)
		return;
	/* by roster id: Q_MOVE_ROSTERS finds a roster's place by binary search */
	qsort(moved, nrows, sizeof(MovedRoster), cmp_moved);
	for (int k = 0; k < nrows; k++)
	{
		r_id[k] = moved[k].id;
		r_no[k] = moved[k].no;
		r_team[k] = moved[k].team;
	}

	/* the matches' ids, in match number order */
	m_id = palloc(sizeof(int64) * ngood);
	mm_args_begin(&a, &statements[Q_MATCH_IDS]);
	mm_arg(&a, "n", Int32GetDatum(ngood));
	mm_run(&a, false, SPI_OK_SELECT);
	if (SPI_processed != (uint64) ngood)
		elog(ERROR, "mm.tick drew %llu match ids for %d matches",
			 (unsigned long long) SPI_processed, ngood);
	for (int k = 0; k < ngood; k++)
	{
		bool		isnull;

		m_id[k] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[k], SPI_tuptable->tupdesc, 1, &isnull));
	}
	ids = mm_int8_array_datum(ngood, m_id);
	team_names = mm_text_array_datum(cfg->nteams, cfg->team_names);
	roster_ids = mm_int8_array_datum(nrows, r_id);
	roster_matches = mm_int4_array_datum(nrows, r_no, NULL);
	proposed = cfg->queue.accept_timeout_s > 0;

	mm_args_begin(&a, &statements[Q_MOVE]);
	mm_arg(&a, "queue_id", Int32GetDatum(queue_id));
	mm_arg(&a, "tick_id", Int64GetDatum(tick_id));
	mm_arg(&a, "at", TimestampTzGetDatum(at));
	mm_arg(&a, "match_ids", ids);
	mm_arg(&a, "predictions", mm_float8_array_datum(ngood, m_pred, NULL));
	mm_arg(&a, "odds", mm_float8_array_datum(ngood * cfg->nteams, m_odds, NULL));
	mm_arg(&a, "team_names", team_names);
	mm_arg(&a, "spreads", mm_float8_array_datum(ngood, m_spread, NULL));
	mm_arg(&a, "regions", mm_text_array_datum(ngood, m_region));
	/* a ready check: proposed until at + accept_timeout */
	mm_arg(&a, "status", CStringGetTextDatum(proposed ? "proposed" : "matched"));
	mm_arg_maybe(&a, "accept_until",
				 TimestampTzGetDatum(at + (int64) (cfg->queue.accept_timeout_s * USECS_PER_SEC)),
				 !proposed);
	mm_arg(&a, "odds_scale", Float8GetDatum(odds_scale));
	mm_arg(&a, "model", CStringGetTextDatum(cfg->rating.model));
	mm_run(&a, false, SPI_OK_INSERT);

	mm_args_begin(&a, &statements[Q_MOVE_ROSTERS]);
	mm_arg(&a, "queue_id", Int32GetDatum(queue_id));
	mm_arg(&a, "match_ids", ids);
	mm_arg(&a, "team_names", team_names);
	mm_arg(&a, "roster_ids", roster_ids);
	mm_arg(&a, "roster_matches", roster_matches);
	mm_arg(&a, "roster_teams", mm_int4_array_datum(nrows, r_team, NULL));
	mm_arg(&a, "at", TimestampTzGetDatum(at));
	mm_run(&a, false, SPI_OK_UPDATE);
	/* every roster was locked, waiting, with its players: all move */
	if (SPI_processed != (uint64) nrows)
		elog(ERROR, "mm.tick moved %llu of the %d rosters it locked",
			 (unsigned long long) SPI_processed, nrows);

	if (proposed)
	{
		mm_args_begin(&a, &statements[Q_MOVE_EVENTS]);
		mm_arg(&a, "queue_id", Int32GetDatum(queue_id));
		mm_arg(&a, "match_ids", ids);
		mm_arg(&a, "roster_ids", roster_ids);
		mm_arg(&a, "roster_matches", roster_matches);
		mm_arg(&a, "at", TimestampTzGetDatum(at));
		mm_run(&a, false, SPI_OK_INSERT);
	}
	for (int k = 0; k < ngood; k++)
	{
		int			m = good[k];

		match_ids[m] = m_id[k];
		fig->made++;
		fig->spread_sum += res->matches[m].rating_spread;
	}
	for (int m = 0; m < res->nmatches; m++)
		if (match_ids[m] > 0)
			put_match_rows(rsinfo, set, cfg, &res->matches[m], match_ids[m]);
}

/*
 * The scale of the queue's odds for this tick (odds_scale.h): with a
 * calibration, the results reported since its last tick are learnt from in
 * report order and removed, and what the queue knows is written back; 1
 * without one. A queue whose rating model changed starts again from 1,
 * without the results pending then (their odds were the other family's).
 */
static double
tick_odds_scale(int32 queue_id, const MmMatcherConfig *cfg, TimestampTz at)
{
	MmArgs		a;
	bool		isnull;
	MmOddsScale s;
	int64		results = 0;
	bool		restart = false;
	uint64		n;

	if (cfg->rating.calibration_null)
		return 1.0;
	mm_odds_scale_start(&s);
	tick_run_queue(Q_ODDS_READ, queue_id, false, SPI_OK_SELECT);
	if (SPI_processed == 1)
	{
		char	   *model = TextDatumGetCString(SPI_getbinval(SPI_tuptable->vals[0],
															  SPI_tuptable->tupdesc, 1, &isnull));

		restart = strcmp(model, cfg->rating.model) != 0;
		if (!restart)
		{
			s.scale = DatumGetFloat8(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc,
												   2, &isnull));
			s.information = DatumGetFloat8(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc,
														 3, &isnull));
			results = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc,
												  4, &isnull));
		}
	}
	/*
	 * the results reported since the last tick, each rated by the queue's
	 * current family; those of another family (reported before a change of
	 * model) are dropped, as all are after a change of model
	 */
	mm_args_begin(&a, &statements[Q_ODDS_FOLD]);
	mm_arg(&a, "queue_id", Int32GetDatum(queue_id));
	mm_arg(&a, "model", CStringGetTextDatum(cfg->rating.model));
	mm_run(&a, false, SPI_OK_SELECT);
	n = restart ? 0 : SPI_processed;
	if (n == 0 && !restart)
		return s.scale;
	for (uint64 i = 0; i < n; i++)
	{
		double		logit = DatumGetFloat8(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc,
														 1, &isnull));
		double		score = DatumGetFloat8(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc,
														 2, &isnull));

		CHECK_FOR_INTERRUPTS();
		mm_odds_scale_update(&s, cfg->rating.calibration, logit, score);
	}
	mm_args_begin(&a, &statements[Q_ODDS_WRITE]);
	mm_arg(&a, "queue_id", Int32GetDatum(queue_id));
	mm_arg(&a, "model", CStringGetTextDatum(cfg->rating.model));
	mm_arg(&a, "scale", Float8GetDatum(s.scale));
	mm_arg(&a, "information", Float8GetDatum(s.information));
	mm_arg(&a, "results", Int64GetDatum(results + (int64) n));
	mm_arg(&a, "at", TimestampTzGetDatum(at));
	mm_run(&a, false, SPI_OK_INSERT);
	return s.scale;
}

/* Expire the rosters that have waited ticket_ttl; returns how many. */
static int
tick_expire(int32 queue_id, TimestampTz at, double ttl_s)
{
	MmArgs		a;
	bool		isnull;
	Datum		ids;

	mm_args_begin(&a, &statements[Q_EXPIRED]);
	mm_arg(&a, "queue_id", Int32GetDatum(queue_id));
	mm_arg(&a, "at", TimestampTzGetDatum(at));
	mm_arg(&a, "ttl_s", Float8GetDatum(ttl_s));
	mm_run(&a, false, SPI_OK_SELECT);
	ids = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (isnull)
		return 0;
	ids = PointerGetDatum(DatumGetArrayTypePCopy(ids));
	mm_args_begin(&a, &statements[Q_EXPIRE]);
	mm_arg(&a, "queue_id", Int32GetDatum(queue_id));
	mm_arg(&a, "at", TimestampTzGetDatum(at));
	mm_arg(&a, "roster_ids", ids);
	mm_run(&a, false, SPI_OK_SELECT);
	return (int) result_int64();
}


/* Failed targets' reasons as a JSON object of counts. */
static char *
failed_reasons_json(const MmMatcherResult *res, const MmMatcherConfig *cfg)
{
	StringInfoData b;
	bool		first = true;

	initStringInfo(&b);
	appendStringInfoChar(&b, '{');
	for (int k = 1; k < MM_FAIL_REASONS; k++)
	{
		if (res->failed_by_reason[k] == 0 || k == MM_FAIL_RULE)
			continue;
		appendStringInfo(&b, "%s\"%s\": %d", first ? "" : ", ", mm_fail_reason_names[k],
						 res->failed_by_reason[k]);
		first = false;
	}
	/* per rule, "rule:<name>" */
	for (int k = 0; k < cfg->nrules; k++)
	{
		if (res->failed_by_rule == NULL || res->failed_by_rule[k] == 0)
			continue;
		appendStringInfoString(&b, first ? "" : ", ");
		escape_json(&b, psprintf("rule:%s", cfg->rules[k].name));
		appendStringInfo(&b, ": %d", res->failed_by_rule[k]);
		first = false;
	}
	appendStringInfoChar(&b, '}');
	return b.data;
}

/* Requeue the failed targets and log the tick. */
static void
tick_finish(int32 queue_id, int64 tick_id, TimestampTz at, TimestampTz started,
			const MmMatcherConfig *cfg, const MmRosterSet *set, const MmMatcherResult *res,
			const TickFigures *fig, int64 **moved, int64 **moved_to, int *nmoved)
{
	MmArgs		a;
	double		oldest = 0;
	int64	   *failed = palloc(sizeof(int64) * Max(res->nfailed, 1));

	for (int k = 0; k < res->nfailed; k++)
		failed[k] = set->r[res->failed[k]].id;
	for (int m = 0; m < res->nmatches; m++)
		for (int k = 0; k < res->matches[m].nmembers; k++)
			oldest = Max(oldest, set->r[res->matches[m].members[k]].age);
	/*
	 * The oldest wait over the queue, not only the rosters read (a failed
	 * target goes to the back): those matched and those still waiting,
	 * from the joined_at index (no pass over the rosters read).
	 */
	if (set->n > 0)
	{
		bool		isnull;
		Datum		d;

		tick_run_queue(Q_OLDEST, queue_id, false, SPI_OK_SELECT);
		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
		if (!isnull)
			oldest = Max(oldest, (at - DatumGetTimestampTz(d)) / 1e6);
	}
	*nmoved = 0;
	if (res->nfailed > 0)
	{
		mm_args_begin(&a, &statements[Q_REQUEUE]);
		mm_arg(&a, "queue_id", Int32GetDatum(queue_id));
		mm_arg(&a, "roster_ids", mm_id_array(failed, res->nfailed));
		mm_run(&a, false, SPI_OK_UPDATE_RETURNING);
		*nmoved = (int) SPI_processed;
		*moved = palloc(sizeof(int64) * Max(*nmoved, 1));
		*moved_to = palloc(sizeof(int64) * Max(*nmoved, 1));
		for (int j = 0; j < *nmoved; j++)
		{
			bool		isnull;

			(*moved)[j] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[j], SPI_tuptable->tupdesc, 1, &isnull));
			(*moved_to)[j] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[j], SPI_tuptable->tupdesc, 2, &isnull));
		}
	}

	if (set->n == 0 && fig->made == 0 && res->nfailed == 0 && fig->dropped == 0 && fig->expired == 0 &&
		fig->dissolves_failed == 0)
	{
		mm_args_begin(&a, &statements[Q_IDLE]);
		mm_arg(&a, "queue_id", Int32GetDatum(queue_id));
		mm_arg(&a, "at", TimestampTzGetDatum(at));
		mm_run(&a, false, SPI_OK_UPDATE);
		if (SPI_processed > 0)
			return;
	}

	mm_args_begin(&a, &statements[Q_LOG]);
	mm_arg(&a, "tick_id", Int64GetDatum(tick_id));
	mm_arg(&a, "queue_id", Int32GetDatum(queue_id));
	mm_arg(&a, "at", TimestampTzGetDatum(at));
	mm_arg(&a, "started_at", TimestampTzGetDatum(started));
	mm_arg(&a, "rosters_seen", Int32GetDatum(set->n));
	mm_arg(&a, "matches_made", Int32GetDatum(fig->made));
	mm_arg(&a, "targets_failed", Int32GetDatum(res->nfailed));
	mm_arg(&a, "oldest_wait_s", Float8GetDatum(oldest));
	mm_arg_maybe(&a, "mean_rating_spread", Float8GetDatum(fig->made > 0 ? fig->spread_sum / fig->made : 0),
				 fig->made == 0);
	mm_arg(&a, "matches_dropped", Int32GetDatum(fig->dropped));
	mm_arg(&a, "failed_reasons", CStringGetTextDatum(failed_reasons_json(res, cfg)));
	mm_arg(&a, "rosters_expired", Int32GetDatum(fig->expired));
	mm_arg(&a, "dissolves_failed", Int32GetDatum(fig->dissolves_failed));
	mm_run(&a, false, SPI_OK_INSERT);
}

/* Check the arguments of mm.tick and mm.preview; the queue name. */
static char *
tick_args(FunctionCallInfo fcinfo, TimestampTz *at)
{
	mm_args_not_null(fcinfo, 0);
	if (TIMESTAMP_NOT_FINITE(PG_GETARG_TIMESTAMPTZ(1)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("at must be finite")));
	*at = PG_GETARG_TIMESTAMPTZ(1);
	return text_to_cstring(PG_GETARG_TEXT_PP(0));
}

PG_FUNCTION_INFO_V1(mm_tick);
PG_FUNCTION_INFO_V1(mm_preview);

/* mm.tick(queue text, at timestamptz) → (match_id, roster_id, team) */
Datum
mm_tick(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TimestampTz started = GetCurrentTimestamp();
	TimestampTz at;
	char	   *name = tick_args(fcinfo, &at);
	MmMatcherConfig cfg;
	MmMatcherResult res;
	MmRosterSet set;
	TickFigures fig = {0, 0, 0, 0, 0};
	int32		queue_id;
	int64		tick_id;
	int64	   *match_ids;
	int			dissolved;
	double		odds_scale;
	Jsonb	   *config;
	bool		keep = mm_keep_tick_input == MM_KEEP_INPUT_ALWAYS ||
		(mm_tick_keeps_input && mm_keep_tick_input == MM_KEEP_INPUT_RUN_TICKS);
	KeptInput  *kept = NULL;
	int64	   *moved = NULL,
			   *moved_to = NULL,
			   *backfilled = NULL;
	int			nmoved = 0,
				nbackfilled = 0;

	mm_require_primary("mm.tick");
	InitMaterializedSRF(fcinfo, 0);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	queue_id = queue_lookup(name, &cfg, &config);
	if (!queue_try_lock(MM_TICK_LOCK, queue_id, false))
	{
		/* another tick of this queue is running: nothing to do */
		SPI_finish();
		return (Datum) 0;
	}
	{
		MmArgs		a;

		mm_args_begin(&a, &statements[Q_TICK_ID]);
		mm_run(&a, false, SPI_OK_SELECT);
	}
	tick_id = result_int64();
	/* the events this tick writes: numbered once, at its end (Citus) */
	mm_events_defer(queue_id);
	odds_scale = tick_odds_scale(queue_id, &cfg, at);
	cfg.odds_scale = odds_scale;
	dissolved = mm_ready_resolve(queue_id, at, &fig.dissolves_failed);
	if (cfg.queue.ticket_ttl_s > 0)
		fig.expired = tick_expire(queue_id, at, cfg.queue.ticket_ttl_s);
	/* the read sees what the tick has just changed: rosters given back, expired */
	if (keep)
	{
		MmRosterSet kset;
		int			nregions;

		kept = tick_input_open(queue_id, config, &cfg, at, &kset, &nregions);
		tick_match_kept(queue_id, at, &cfg, kept, &kset, nregions, &set, &res, name, tick_id,
						&backfilled, &nbackfilled);
	}
	else
		tick_match(queue_id, at, &cfg, &set, &res, dissolved > 0 || fig.expired > 0, name, tick_id);
	match_ids = palloc0(sizeof(int64) * Max(res.nmatches, 1));
	tick_commit(queue_id, tick_id, at, &cfg, odds_scale, &set, &res, rsinfo, match_ids, &fig);
	tick_finish(queue_id, tick_id, at, started, &cfg, &set, &res, &fig, &moved, &moved_to, &nmoved);
	mm_events_matches(queue_id, match_ids, res.nmatches, cfg.queue.accept_timeout_s, at);
	mm_events_undefer(queue_id);
	mm_queue_notify(queue_id, name, match_ids, res.nmatches,
				cfg.queue.accept_timeout_s > 0 ? "proposed" : "matches");
	if (kept != NULL)
	{
		/* what the tick wrote, for the input's next tick */
		int			ngone = nbackfilled;
		int64	   *gone;

		for (int m = 0; m < res.nmatches; m++)
			if (match_ids[m] > 0)
				ngone += res.matches[m].nmembers;
		gone = palloc(sizeof(int64) * Max(ngone, 1));
		ngone = 0;
		for (int m = 0; m < res.nmatches; m++)
			if (match_ids[m] > 0)
				for (int k = 0; k < res.matches[m].nmembers; k++)
					gone[ngone++] = set.r[res.matches[m].members[k]].id;
		for (int k = 0; k < nbackfilled; k++)
			gone[ngone++] = backfilled[k];
		tick_input_written(kept, gone, ngone, moved, moved_to, nmoved);
		tick_input_close(kept, tick_id, ngone > 0 || nmoved > 0);
	}
	else
		tick_input_plain(queue_id, tick_id);
	SPI_finish();
	return (Datum) 0;
}

/* mm.preview(queue text, at timestamptz): a tick's matches, nothing written */
Datum
mm_preview(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TimestampTz at;
	char	   *name = tick_args(fcinfo, &at);
	MmMatcherConfig cfg;
	MmMatcherResult res;
	MmRosterSet set;
	int32		queue_id;

	InitMaterializedSRF(fcinfo, 0);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	queue_id = queue_lookup(name, &cfg, NULL);
	cfg.odds_scale = mm_queue_stored_odds_scale(queue_id, &cfg);
	tick_match(queue_id, at, &cfg, &set, &res, false, NULL, 0);
	for (int m = 0; m < res.nmatches; m++)
		put_match_rows(rsinfo, &set, &cfg, &res.matches[m], m + 1);
	SPI_finish();
	return (Datum) 0;
}

