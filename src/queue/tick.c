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
 *	3. runs the matcher of matcher.c over them in memory;
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

static const MmStatement statements[Q_COUNT] = {
	[Q_QUEUE] = {
		"SELECT q.queue_id, q.config FROM mm.queue q WHERE q.name = $1 AND q.dropped_at IS NULL",
		1, {TEXTOID}
	},
	/*
	 * players: the count; professions and roles: those given, in no order
	 * (a role queue's role counts per roster; other queues' players have
	 * none, and the filter leaves their arrays NULL). No join:
	 * the rosters and their players are one append of two scans, grouped
	 * by roster, so no plan can run a grouped read of the players once per
	 * roster (what a nested loop over a join with the grouped players did
	 * when the statistics said the queue held one roster: a new queue, a
	 * burst of enqueues). A roster row has the roster's figures and no
	 * seat, a player row a seat and no figures; a roster is read when it
	 * has both (the inner join's rows), in queue order. The whole queue:
	 * mm.explain, and a tick whose targets need more than its first reads.
	 */
	[Q_READ] = {
		"SELECT u.roster_id, count(u.seat) AS players, max(u.rating) AS rating, "
		"max(u.deviation) AS deviation, max(u.rank) AS rank, max(u.ladder_points) AS ladder_points, "
		"max(u.dishonor) AS dishonor, "
		"array_agg(u.profession) FILTER (WHERE u.profession IS NOT NULL) AS professions, "
		"max(u.joined_at) AS joined_at, "
		"(array_agg(u.attributes) FILTER (WHERE u.attributes IS NOT NULL))[1] AS attributes, "
		"(array_agg(u.latencies) FILTER (WHERE u.latencies IS NOT NULL))[1] AS latencies, "
		"array_agg(u.role) FILTER (WHERE u.role IS NOT NULL) AS roles "
		"FROM (SELECT r.roster_id, r.position, r.rating, r.deviation, r.rank, r.ladder_points, "
		"r.dishonor, r.joined_at, NULL::int AS seat, NULL::text AS profession, r.attributes, r.latencies, "
		"NULL::text AS role "
		"FROM mm.roster r WHERE r.queue_id = $1 AND r.match_id IS NULL "
		"UNION ALL "
		"SELECT qp.roster_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, qp.seat, qp.profession, NULL, NULL, "
		"qp.role "
		"FROM mm.queued_player qp WHERE qp.queue_id = $1) u "
		"GROUP BY u.roster_id "
		"HAVING count(u.position) > 0 AND count(u.seat) > 0 "
		"ORDER BY max(u.position)",
		1, {INT4OID}
	},
	/*
	 * The first $2 rosters of the queue in queue order (the position
	 * index), each with its players' count, professions and roles read from the
	 * seat key by the roster's id: no aggregate over the queue's players.
	 * The same columns as Q_READ; a roster without players comes with 0
	 * (mm_read_rosters leaves it out), so that the rows are the rosters
	 * read, fewer than $2 only when the queue has no more. The players are
	 * a lateral subquery, an index lookup per roster read whatever the
	 * statistics say (the seat key is the only way to its queue_id and
	 * roster_id); "roster_id = ANY (the ids read)" was a filter over all
	 * the queue's players, each checked against the whole array, when the
	 * statistics knew nothing of the queue. A roster column the matcher
	 * reads goes into both lists of r.
	 */
	[Q_READ_FIRST] = {
		"SELECT r.roster_id, p.players, r.rating, r.deviation, r.rank, r.ladder_points, "
		"r.dishonor, p.professions, r.joined_at, r.attributes, r.latencies, p.roles "
		"FROM (SELECT r.roster_id, r.position, r.rating, r.deviation, r.rank, r.ladder_points, "
		"r.dishonor, r.joined_at, r.attributes, r.latencies "
		"FROM mm.roster r WHERE r.queue_id = $1 AND r.match_id IS NULL ORDER BY r.position LIMIT $2) r "
		"CROSS JOIN LATERAL (SELECT count(*) AS players, "
		"array_agg(qp.profession) FILTER (WHERE qp.profession IS NOT NULL) AS professions, "
		"array_agg(qp.role) FILTER (WHERE qp.role IS NOT NULL) AS roles "
		"FROM mm.queued_player qp WHERE qp.queue_id = $1 AND qp.roster_id = r.roster_id) p "
		"ORDER BY r.position",
		2, {INT4OID, INT8OID}
	},
	/* when the oldest waiting roster joined (the joined_at index) */
	[Q_OLDEST] = {
		"SELECT min(r.joined_at) FROM mm.roster r WHERE r.queue_id = $1 AND r.match_id IS NULL",
		1, {INT4OID}
	},
	[Q_TICK_ID] = {
		"SELECT nextval('mm.tick_id_seq')", 0, {InvalidOid}
	},
	/*
	 * Record the matches and put their rosters in them, all in one
	 * statement. The matches come as arrays of their figures ($3, $4, $7,
	 * $14, one element per match made, numbered 1, 2, ... in $3; $5 their
	 * odds, k per match for the queue's k teams, named by $6 in team
	 * order), the rosters as arrays of (roster, match number, team index)
	 * ($8..$10): bulk parameters, one
	 * statement however many matches. A matched roster stays where it is:
	 * its row gets its match id, team and wait (the match id a foreign key
	 * to the match), and its players' rows are not touched (they hold the
	 * players until the match ends). Each roster's match number and team
	 * are one jsonb object of roster id -> 64 number + team index (a queue
	 * has at most 64 teams, MM_TEAMS), looked up
	 * per roster by key, and a match's id is an element of one array (ids),
	 * indexed by its number: no join, so no plan can run one side once per
	 * row of the other when the statistics say the queue is empty (a new
	 * queue, a burst of enqueues). Only a ready check ($12 'proposed', $13
	 * its end) writes a ticket event per player, as mm.accept and
	 * mm.decline go on from there ($12 'matched', $13 NULL without one).
	 */
	[Q_MOVE] = {
		"WITH mi AS MATERIALIZED ("
		" SELECT u.no, nextval('mm.match_id_seq') AS match_id, u.prediction, u.spread, u.region"
		" FROM unnest($3::int[], $4::float8[], $7::float8[], $14::text[])"
		" WITH ORDINALITY AS u(no, prediction, spread, region, o) ORDER BY u.o"
		"), m AS ("
		" INSERT INTO mm.match (match_id, queue_id, tick_id, created_at, prediction, red_odds, blue_odds, rating_spread,"
		" status, accept_until, region, teams, odds)"
		" SELECT mi.match_id, $1, $2, $11, mi.prediction, $5[(mi.no - 1) * cardinality($6) + 1],"
		" $5[(mi.no - 1) * cardinality($6) + 2], mi.spread, $12, $13, mi.region, $6,"
		" $5[(mi.no - 1) * cardinality($6) + 1 : mi.no * cardinality($6)]"
		" FROM mi"
		"), ids AS MATERIALIZED ("
		" SELECT array_agg(mi.match_id ORDER BY mi.no) AS a FROM mi"
		"), sl AS MATERIALIZED ("
		" SELECT jsonb_object_agg(u.roster_id::text, u.no * 64 + u.team) AS s"
		" FROM unnest($8::bigint[], $9::int[], $10::int[]) AS u(roster_id, no, team)"
		"), r AS ("
		" UPDATE mm.roster r"
		" SET match_id = (SELECT ids.a FROM ids)[((SELECT sl.s FROM sl) ->> r.roster_id::text)::int / 64],"
		" team = $6[((SELECT sl.s FROM sl) ->> r.roster_id::text)::int % 64 + 1],"
		" waited = $11 - r.joined_at"
		" WHERE r.queue_id = $1 AND r.roster_id = ANY ($8) AND r.match_id IS NULL"
		"), e AS ("
		" INSERT INTO mm.ticket_event (roster_id, player_id, status, at, queue_id, match_id)"
		" SELECT qp.roster_id, qp.player_id, $12, $11, $1,"
		" (SELECT ids.a FROM ids)[((SELECT sl.s FROM sl) ->> qp.roster_id::text)::int / 64]"
		" FROM mm.queued_player qp"
		" WHERE $12 = 'proposed' AND qp.queue_id = $1 AND qp.roster_id = ANY ($8)"
		" ORDER BY qp.roster_id, qp.seat"
		") SELECT mi.no, mi.match_id FROM mi ORDER BY mi.no",
		14, {INT4OID, INT8OID, INT4ARRAYOID, FLOAT8ARRAYOID, FLOAT8ARRAYOID, TEXTARRAYOID,
		FLOAT8ARRAYOID, INT8ARRAYOID, INT4ARRAYOID, INT4ARRAYOID, TIMESTAMPTZOID, TEXTOID, TIMESTAMPTZOID,
		TEXTARRAYOID}
	},
	/*
	 * failed targets to the back, in the order they failed (the positions
	 * drawn in a CTE of their own: Citus refuses nextval() inside an UPDATE
	 * of a distributed table). Those another session holds are skipped.
	 * The rosters locked (l) and the new positions (f) meet in a jsonb
	 * object of roster id -> position, looked up per roster by key: no
	 * join, so no plan runs the locking read once per roster (as a semi
	 * join did when the statistics said the queue was empty).
	 */
	[Q_REQUEUE] = {
		"WITH l AS MATERIALIZED (SELECT r.roster_id FROM mm.roster r "
		"WHERE r.queue_id = $1 AND r.roster_id = ANY ($2) AND r.match_id IS NULL FOR UPDATE SKIP LOCKED), "
		"held AS MATERIALIZED (SELECT jsonb_object_agg(l.roster_id::text, true) AS ids FROM l), "
		"f AS MATERIALIZED (SELECT u.id, nextval('mm.roster_position_seq') AS pos "
		"FROM unnest($2::bigint[]) WITH ORDINALITY AS u(id, o) ORDER BY u.o), "
		"m AS MATERIALIZED (SELECT jsonb_object_agg(f.id::text, f.pos) AS pos FROM f "
		"WHERE (SELECT held.ids FROM held) ? f.id::text) "
		"UPDATE mm.roster r SET position = ((SELECT m.pos FROM m) ->> r.roster_id::text)::bigint "
		"WHERE r.queue_id = $1 AND r.roster_id = ANY ($2) AND (SELECT m.pos FROM m) ? r.roster_id::text",
		2, {INT4OID, INT8ARRAYOID}
	},
	[Q_LOG] = {
		"INSERT INTO mm.tick_log (tick_id, queue_id, at, started_at, duration_ms, rosters_seen, "
		"matches_made, targets_failed, oldest_wait, mean_rating_spread, matches_dropped, "
		"rosters_expired, failed_reasons, dissolves_failed, last_at) "
		"VALUES ($1, $2, $3, $4, extract(epoch FROM clock_timestamp() - $4)::float8 * 1000, "
		"$5, $6, $7, make_interval(secs => $8), $9, $10, $12, $11::jsonb, $13, $3)",
		13, {INT8OID, INT4OID, TIMESTAMPTZOID, TIMESTAMPTZOID, INT4OID, INT4OID, INT4OID,
		FLOAT8OID, FLOAT8OID, INT4OID, TEXTOID, INT4OID, INT4OID}
	},
	/*
	 * an idle tick (nothing waiting, nothing done) extends the queue's last
	 * row when that row is idle too: one row per idle stretch, not per tick
	 */
	[Q_IDLE] = {
		"UPDATE mm.tick_log l SET ticks = l.ticks + 1, last_at = greatest(l.last_at, $2) "
		"WHERE l.queue_id = $1 AND l.tick_id = (SELECT x.tick_id FROM mm.tick_log x "
		"WHERE x.queue_id = $1 ORDER BY x.at DESC, x.tick_id DESC LIMIT 1) "
		"AND l.rosters_seen = 0 AND l.matches_made = 0 AND l.targets_failed = 0 "
		"AND l.matches_dropped = 0 AND l.rosters_expired = 0 AND l.dissolves_failed = 0",
		2, {INT4OID, TIMESTAMPTZOID}
	},
	/* when the queue was last ticked (run_ticks taking a queue over) */
	[Q_LAST_TICK] = {
		"SELECT l.last_at FROM mm.tick_log l WHERE l.queue_id = $1 "
		"ORDER BY l.at DESC, l.tick_id DESC LIMIT 1",
		1, {INT4OID}
	},
	/* rosters past ticket_ttl; those locked (being left, matched) wait */
	[Q_EXPIRE] = {
		"SELECT count(*) FROM mm._end_rosters(ARRAY(SELECT r.roster_id FROM mm.roster r "
		"WHERE r.queue_id = $1 AND r.match_id IS NULL AND r.joined_at <= $2 - make_interval(secs => $3) "
		"ORDER BY r.roster_id), 'expired', 'ticket_ttl', true, $2)",
		3, {INT4OID, TIMESTAMPTZOID, FLOAT8OID}
	},
};

static SPIPlanPtr plans[Q_COUNT];

/* Run statement q; check that it did what it is for. */
void
tick_run(int q, Datum *values, const char *nulls, bool read_only, int expected)
{
	mm_statement_run(&statements[q], &plans[q], values, nulls, read_only, expected);
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

/* Look up a queue: its id and config, or an error. */
static int32
queue_lookup(const char *name, MmMatcherConfig *cfg)
{
	Datum		arg = CStringGetTextDatum(name);
	bool		isnull;
	int32		id;

	tick_run(Q_QUEUE, &arg, NULL, true, SPI_OK_SELECT);
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("queue \"%s\" does not exist", name),
				 errhint("Create it with mm.create_queue.")));
	id = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	mm_queue_config(DatumGetJsonbP(SPI_getbinval(SPI_tuptable->vals[0],
												 SPI_tuptable->tupdesc, 2, &isnull)), cfg);
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
	Datum		args[2];
	uint64		rows;

	args[0] = Int32GetDatum(queue_id);
	args[1] = Int64GetDatum(limit);
	if (own)
	{
		CommandCounterIncrement();
		PushCopiedSnapshot(GetActiveSnapshot());
		UpdateActiveSnapshotCommandId();
	}
	/* limit 0: the whole queue, in one grouped read of all its players */
	tick_run(limit > 0 ? Q_READ_FIRST : Q_READ, args, NULL, true, SPI_OK_SELECT);
	rows = SPI_processed;
	mm_read_rosters(at, true, cfg, set);
	if (own)
		PopActiveSnapshot();
	return limit == 0 || rows < (uint64) limit;
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
	int64		limit = mm_tick_read_batch > 0 ? mm_tick_read_batch :
		2 * ((int64) cfg->filter.rosters + cfg->filter.potentials_max);
	MmRosterSet all;
	MmRosterSet rest;
	MmBackfillPlan *plan = NULL;

	for (;;)
	{
		bool		whole = read_first(queue_id, at, limit, own, &run_cfg, &all);
		bool		decided = true;

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

/* Figures of one tick for the tick log. */
typedef struct TickFigures
{
	int			expired;
	int			made;
	int			dropped;
	int			dissolves_failed;
	double		spread_sum;
} TickFigures;

/* Datum arrays of one element type. */
static Datum
datum_array(Datum *d, int n, Oid type)
{
	int16		len;
	bool		byval;
	char		align;

	get_typlenbyvalalign(type, &len, &byval, &align);
	return PointerGetDatum(construct_array(d, n, type, len, byval, align));
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
 * them and move their rosters in one statement; put the rows in the
 * result. Fills match_ids (0 for a dropped match) and the figures.
 */
static void
tick_commit(int32 queue_id, int64 tick_id, TimestampTz at, const MmMatcherConfig *cfg,
			MmRosterSet *set, const MmMatcherResult *res, ReturnSetInfo *rsinfo,
			int64 *match_ids, TickFigures *fig)
{
	int			nm = 0;
	int		   *which;			/* the set indexes of the matched rosters */
	bool	   *whole;			/* per set index: locked, players unchanged */
	Datum		args[14];
	char		argnulls[14];
	Datum	   *m_no, *m_pred, *m_odds, *m_spread, *m_region;
	Datum	   *names;			/* the queue's team names, in team order */
	bool	   *m_region_null;
	Datum	   *r_id, *r_no, *r_team;
	int		   *good;			/* per match number - 1: its index in res */
	int			ngood = 0, nrows = 0;

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
	m_no = palloc(sizeof(Datum) * res->nmatches);
	good = palloc(sizeof(int) * res->nmatches);
	m_pred = palloc(sizeof(Datum) * res->nmatches);
	m_odds = palloc(sizeof(Datum) * res->nmatches * cfg->nteams);
	m_spread = palloc(sizeof(Datum) * res->nmatches);
	m_region = palloc(sizeof(Datum) * res->nmatches);
	m_region_null = palloc(sizeof(bool) * res->nmatches);
	r_id = palloc(sizeof(Datum) * nm);
	r_no = palloc(sizeof(Datum) * nm);
	r_team = palloc(sizeof(Datum) * nm);
	for (int m = 0; m < res->nmatches; m++)
	{
		const MmMatch *mt = &res->matches[m];
		bool		all_whole = true;
		double		prediction;
		double	   *odds = palloc(sizeof(double) * cfg->nteams);

		match_ids[m] = 0;
		for (int k = 0; k < mt->nmembers && all_whole; k++)
			all_whole = whole[mt->members[k]];
		if (!all_whole)
		{
			fig->dropped++;
			continue;
		}
		prediction = mm_matcher_prediction(mt, cfg);
		good[ngood] = m;
		m_no[ngood] = Int32GetDatum(ngood + 1);
		m_pred[ngood] = Float8GetDatum(prediction);
		mm_matcher_odds(mt, set->r, cfg, odds);
		for (int t = 0; t < cfg->nteams; t++)
			m_odds[ngood * cfg->nteams + t] = Float8GetDatum(odds[t]);
		m_region_null[ngood] = mt->region < 0;
		m_region[ngood] = mt->region < 0 ? (Datum) 0 : CStringGetTextDatum(set->region_names[mt->region]);
		m_spread[ngood++] = Float8GetDatum(mt->rating_spread);
		for (int k = 0; k < mt->nmembers; k++)
		{
			const MmRoster *x = &set->r[mt->members[k]];

			r_id[nrows] = Int64GetDatum(x->id);
			r_no[nrows] = Int32GetDatum(ngood);
			r_team[nrows++] = Int32GetDatum(x->team);
		}
	}
	if (ngood == 0)
		return;

	args[0] = Int32GetDatum(queue_id);
	args[1] = Int64GetDatum(tick_id);
	args[2] = datum_array(m_no, ngood, INT4OID);
	args[3] = datum_array(m_pred, ngood, FLOAT8OID);
	args[4] = datum_array(m_odds, ngood * cfg->nteams, FLOAT8OID);
	names = palloc(sizeof(Datum) * cfg->nteams);
	for (int t = 0; t < cfg->nteams; t++)
		names[t] = CStringGetTextDatum(cfg->team_names[t]);
	args[5] = datum_array(names, cfg->nteams, TEXTOID);
	args[6] = datum_array(m_spread, ngood, FLOAT8OID);
	args[7] = datum_array(r_id, nrows, INT8OID);
	args[8] = datum_array(r_no, nrows, INT4OID);
	args[9] = datum_array(r_team, nrows, INT4OID);
	args[10] = TimestampTzGetDatum(at);
	/* a ready check: proposed until at + accept_timeout */
	memset(argnulls, ' ', sizeof(argnulls));
	args[11] = CStringGetTextDatum(cfg->queue.accept_timeout_s > 0 ? "proposed" : "matched");
	args[12] = TimestampTzGetDatum(at + (int64) (cfg->queue.accept_timeout_s * USECS_PER_SEC));
	if (cfg->queue.accept_timeout_s <= 0)
		argnulls[12] = 'n';
	{
		int			dims[1] = {ngood};
		int			lbs[1] = {1};

		args[13] = PointerGetDatum(construct_md_array(m_region, m_region_null, 1, dims, lbs,
													  TEXTOID, -1, false, TYPALIGN_INT));
	}
	tick_run(Q_MOVE, args, argnulls, false, SPI_OK_SELECT);
	for (uint64 j = 0; j < SPI_processed; j++)
	{
		bool		isnull;
		int			m = good[DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[j], SPI_tuptable->tupdesc, 1, &isnull)) - 1];

		match_ids[m] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[j], SPI_tuptable->tupdesc, 2, &isnull));
		fig->made++;
		fig->spread_sum += res->matches[m].rating_spread;
	}
	for (int m = 0; m < res->nmatches; m++)
		if (match_ids[m] > 0)
			put_match_rows(rsinfo, set, cfg, &res->matches[m], match_ids[m]);
}

/* Expire the rosters that have waited ticket_ttl; returns how many. */
static int
tick_expire(int32 queue_id, TimestampTz at, double ttl_s)
{
	Datum		args[3];

	args[0] = Int32GetDatum(queue_id);
	args[1] = TimestampTzGetDatum(at);
	args[2] = Float8GetDatum(ttl_s);
	tick_run(Q_EXPIRE, args, NULL, false, SPI_OK_SELECT);
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
			const TickFigures *fig)
{
	Datum		args[13];
	bool		nulls[13] = {0};
	char		argnulls[13];
	double		oldest = 0;
	int64	   *failed = palloc(sizeof(int64) * Max(res->nfailed, 1));

	for (int i = 0; i < set->n; i++)
	{
		oldest = Max(oldest, set->r[i].age);
		if (set->r[i].state == MM_ROSTER_FAILED)
			failed[set->r[i].fail_order] = set->r[i].id;
	}
	/*
	 * The oldest wait over the queue, not only the rosters read (a failed
	 * target goes to the back): those read (the matched ones among them)
	 * and those still waiting, from the joined_at index.
	 */
	if (set->n > 0)
	{
		Datum		arg = Int32GetDatum(queue_id);
		bool		isnull;
		Datum		d;

		tick_run(Q_OLDEST, &arg, NULL, false, SPI_OK_SELECT);
		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
		if (!isnull)
			oldest = Max(oldest, (at - DatumGetTimestampTz(d)) / 1e6);
	}
	if (res->nfailed > 0)
	{
		args[0] = Int32GetDatum(queue_id);
		args[1] = mm_id_array(failed, res->nfailed);
		tick_run(Q_REQUEUE, args, NULL, false, SPI_OK_UPDATE);
	}

	if (set->n == 0 && fig->made == 0 && res->nfailed == 0 && fig->dropped == 0 && fig->expired == 0 &&
		fig->dissolves_failed == 0)
	{
		args[0] = Int32GetDatum(queue_id);
		args[1] = TimestampTzGetDatum(at);
		tick_run(Q_IDLE, args, NULL, false, SPI_OK_UPDATE);
		if (SPI_processed > 0)
			return;
	}

	args[0] = Int64GetDatum(tick_id);
	args[1] = Int32GetDatum(queue_id);
	args[2] = TimestampTzGetDatum(at);
	args[3] = TimestampTzGetDatum(started);
	args[4] = Int32GetDatum(set->n);
	args[5] = Int32GetDatum(fig->made);
	args[6] = Int32GetDatum(res->nfailed);
	args[7] = Float8GetDatum(oldest);
	args[8] = Float8GetDatum(fig->made > 0 ? fig->spread_sum / fig->made : 0);
	nulls[8] = fig->made == 0;
	args[9] = Int32GetDatum(fig->dropped);
	args[10] = CStringGetTextDatum(failed_reasons_json(res, cfg));
	args[11] = Int32GetDatum(fig->expired);
	args[12] = Int32GetDatum(fig->dissolves_failed);
	for (int i = 0; i < 13; i++)
		argnulls[i] = nulls[i] ? 'n' : ' ';
	tick_run(Q_LOG, args, argnulls, false, SPI_OK_INSERT);
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

	mm_require_primary("mm.tick");
	InitMaterializedSRF(fcinfo, 0);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	queue_id = queue_lookup(name, &cfg);
	if (!queue_try_lock(MM_TICK_LOCK, queue_id, false))
	{
		/* another tick of this queue is running: nothing to do */
		SPI_finish();
		return (Datum) 0;
	}
	tick_run(Q_TICK_ID, NULL, NULL, false, SPI_OK_SELECT);
	tick_id = result_int64();
	dissolved = mm_ready_resolve(queue_id, at, &fig.dissolves_failed);
	if (cfg.queue.ticket_ttl_s > 0)
		fig.expired = tick_expire(queue_id, at, cfg.queue.ticket_ttl_s);
	/* the read sees what the tick has just changed: rosters given back, expired */
	tick_match(queue_id, at, &cfg, &set, &res, dissolved > 0 || fig.expired > 0, name, tick_id);
	match_ids = palloc0(sizeof(int64) * Max(res.nmatches, 1));
	tick_commit(queue_id, tick_id, at, &cfg, &set, &res, rsinfo, match_ids, &fig);
	tick_finish(queue_id, tick_id, at, started, &cfg, &set, &res, &fig);
	mm_queue_notify(queue_id, name, match_ids, res.nmatches,
				cfg.queue.accept_timeout_s > 0 ? "proposed" : "matches");
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
	queue_id = queue_lookup(name, &cfg);
	tick_match(queue_id, at, &cfg, &set, &res, false, NULL, 0);
	for (int m = 0; m < res.nmatches; m++)
		put_match_rows(rsinfo, &set, &cfg, &res.matches[m], m + 1);
	SPI_finish();
	return (Datum) 0;
}

