/*-------------------------------------------------------------------------
 *
 * backfill.c
 *		Backfill in a tick: the open seats of running matches (requested with
 *		mm.request_backfill when players left) are filled from the queue
 *		before the tick makes new matches.
 *
 * A tick of a queue, after reading its waiting rosters and before running
 * the matcher over them,
 *	1. locks the queue's open requests whose match is still being played
 *	   (FOR UPDATE SKIP LOCKED: a request being cancelled, or a match being
 *	   reported or abandoned, waits for the next tick; the match row is
 *	   locked FOR KEY SHARE, so mm.report_result and mm.abandon_match, which
 *	   lock it FOR UPDATE, wait for this tick, never the other way round),
 *	   and reads each request's team: the players' mean rating, deviation
 *	   and rank, its dishonor and professions, and the match's largest
 *	   roster and ladder points;
 *	2. fills each request, oldest first, with mm_matcher_backfill (the
 *	   matcher's scoring against that team, sizes adding up exactly, and
 *	   the queue's rules against the whole match: for a queue with rules,
 *	   the rosters of the requests' matches are read too); a
 *	   waiting roster holding a player of the match (one who left it and
 *	   queued again) is never put back into it, nor one holding a player
 *	   who blocked a player of the match or was blocked by one (mm.block),
 *	   and the rosters picked for one request never block each other;
 *	3. locks the picked rosters (FOR UPDATE SKIP LOCKED) and checks that
 *	   they are all still there with all their players; a request whose
 *	   rosters are not is left open, whole, for the next tick; the others
 *	   are recorded one table a statement: the rosters join the match in place
 *	   (their rows get the request's match, team and backfill id, their
 *	   players' rows stay), their players' tickets
 *	   become matched to that match, the requests become filled;
 *	4. notifies the queue's channel with the matches backfilled;
 *	5. takes every picked roster out of the tick's roster set: a roster
 *	   picked for a backfill is not matched again in the same tick.
 * Steps 1, 2 and 5 are mm_backfill_plan, in memory: when the tick has read
 * only the first rosters of the queue and a request's fill could change
 * with more of them (its search found fewer than potentials_max), the tick
 * reads more and plans again. Steps 3 and 4 are mm_backfill_apply, once the
 * tick's read is final.
 *
 *-------------------------------------------------------------------------
 */
#include "queue.h"
#include "statement.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

enum
{
	B_OPEN,
	B_ROSTERS,
	B_MOVE_ROSTERS,
	B_MOVE_EVENTS,
	B_MOVE_REQUESTS,
	B_COUNT
};

static MmStatement statements[B_COUNT] = {
	/*
	 * The open requests of a live match, oldest first, with their team's
	 * figures over its players, the other team's professions, the waiting
	 * rosters of this queue that hold a player of the match, or a player
	 * one of the match's blocked or who blocked one (looked up by the
	 * players' ids, not joined: the queue is not scanned per player of the
	 * match whatever the statistics say about it), the favourite's odds
	 * when the match was made, and the request's team (by name).
	 */
	[B_OPEN] = {
		"WITH b AS ("
		" SELECT b.backfill_id, b.match_id, b.team, b.players, b.requested_at, b.roles,"
		" array_position(m.teams, b.team) - 1 AS side, m.region, m.odds"
		" FROM mm.backfill b JOIN mm.match m ON m.queue_id = b.queue_id AND m.match_id = b.match_id"
		" WHERE b.queue_id = $queue_id AND b.status = 'open' AND m.status = 'matched'"
		" ORDER BY b.backfill_id"
		" FOR UPDATE OF b SKIP LOCKED FOR KEY SHARE OF m SKIP LOCKED"
		") SELECT b.backfill_id, b.players,"
		" greatest(extract(epoch FROM $at - b.requested_at)::float8, 0),"
		" t.rating, t.deviation, t.rank, t.dishonor,"
		" ARRAY(SELECT p FROM mm.match_roster r, unnest(r.professions) p"
		"       WHERE r.queue_id = $queue_id AND r.match_id = b.match_id AND r.team = b.team),"
		" ARRAY(SELECT p FROM mm.match_roster r, unnest(r.professions) p"
		"       WHERE r.queue_id = $queue_id AND r.match_id = b.match_id AND r.team <> b.team),"
		" x.max_size, x.max_ladder,"
		" ARRAY(SELECT qp.roster_id FROM mm.queued_player qp"
		"       WHERE qp.queue_id = $queue_id AND NOT qp.requeued AND qp.player_id = ANY (ARRAY("
		"         WITH mp AS (SELECT u.p FROM mm.match_roster r CROSS JOIN LATERAL unnest(r.players) AS u(p)"
		"                     WHERE r.queue_id = $queue_id AND r.match_id = b.match_id)"
		"         SELECT mp.p FROM mp"
		"         UNION ALL SELECT k.blocked_id FROM mp JOIN mm.player_block k ON k.player_id = mp.p"
		"                   WHERE k.until IS NULL OR k.until > $at"
		"         UNION ALL SELECT k.player_id FROM mp JOIN mm.player_block k ON k.blocked_id = mp.p"
		"                   WHERE k.until IS NULL OR k.until > $at))),"
		" b.match_id, b.side, b.region, b.roles, (SELECT max(o) FROM unnest(b.odds) AS o), b.team"
		" FROM b"
		" CROSS JOIN LATERAL (SELECT sum(r.rating * cardinality(r.players)) / sum(cardinality(r.players)) AS rating,"
		"   sum(r.deviation * cardinality(r.players)) / sum(cardinality(r.players)) AS deviation,"
		"   sum(r.rank * cardinality(r.players)) / sum(cardinality(r.players)) AS rank,"
		"   sum(r.dishonor)::float8 AS dishonor"
		"   FROM mm.match_roster r WHERE r.queue_id = $queue_id AND r.match_id = b.match_id AND r.team = b.team) t"
		" CROSS JOIN LATERAL (SELECT max(cardinality(r.players)) AS max_size, max(r.ladder_points) AS max_ladder"
		"   FROM mm.match_roster r WHERE r.queue_id = $queue_id AND r.match_id = b.match_id) x"
		" WHERE t.rating IS NOT NULL"
		" ORDER BY b.backfill_id",
		{{"queue_id", INT4OID}, {"at", TIMESTAMPTZOID}}
	},
	/*
	 * The rosters of the matches $match_ids (a queue with rules: they are
	 * checked against the whole match), each with its team's index in its
	 * match, its players' count and roles in party order, its id, rating
	 * and deviation (for a balance rule's odds): looked up by the matches'
	 * ids, its players by its key.
	 */
	[B_ROSTERS] = {
		"SELECT r.match_id, array_position(m.teams, r.team) - 1 AS side, p.players,"
		" r.attributes, r.latencies, p.roles, r.roster_id, r.rating, r.deviation"
		" FROM mm.roster r"
		" JOIN mm.match m ON m.queue_id = r.queue_id AND m.match_id = r.match_id"
		" CROSS JOIN LATERAL (SELECT count(*) AS players, array_agg(qp.role ORDER BY qp.seat) AS roles"
		"   FROM mm.queued_player qp WHERE qp.queue_id = r.queue_id AND qp.roster_id = r.roster_id) p"
		" WHERE r.queue_id = $queue_id AND r.match_id = ANY ($match_ids)"
		" ORDER BY r.match_id, r.roster_id",
		{{"queue_id", INT4OID}, {"match_ids", INT8ARRAYOID}}
	},
	/*
	 * Record the whole fills: the rosters join their requests' matches
	 * (B_MOVE_ROSTERS), their players' tickets become matched
	 * (B_MOVE_EVENTS), the requests become filled (B_MOVE_REQUESTS). Three
	 * statements, each on one table, none reading another's result: on
	 * Citus the results of a statement's CTEs went to every node of the
	 * cluster, over a connection opened for them and a two-phase commit, so
	 * a tick that filled a seat failed while a worker holding none of its
	 * queue was down (as the tick's own Q_MOVE). The rosters come as
	 * arrays in ascending roster id, with the match, team and request of
	 * each: a roster's place is found by width_bucket (a binary search), the
	 * subscripts inside scalar subqueries (see the tick's Q_MOVE_ROSTERS).
	 */
	[B_MOVE_ROSTERS] = {
		"UPDATE mm.roster r"
		" SET match_id = (SELECT $match_ids[width_bucket(r.roster_id, $roster_ids)]),"
		" team = (SELECT $teams[width_bucket(r.roster_id, $roster_ids)]),"
		" backfill_id = (SELECT $backfill_ids[width_bucket(r.roster_id, $roster_ids)]),"
		" waited = $at - r.joined_at"
		" WHERE r.queue_id = $queue_id AND r.roster_id = ANY ($roster_ids)"
		" AND CASE WHEN r.match_id IS NULL THEN true END",  /* by key: see queue_commit.c's L_LOCK */
		{{"queue_id", INT4OID}, {"roster_ids", INT8ARRAYOID}, {"match_ids", INT8ARRAYOID},
		 {"teams", TEXTARRAYOID}, {"backfill_ids", INT8ARRAYOID}, {"at", TIMESTAMPTZOID}}
	},
	[B_MOVE_EVENTS] = {
		"INSERT INTO mm.ticket_event (roster_id, player_id, status, at, queue_id, match_id)"
		" SELECT qp.roster_id, qp.player_id, 'matched', $at, $queue_id,"
		" (SELECT $match_ids[width_bucket(qp.roster_id, $roster_ids)])"
		" FROM mm.queued_player qp"
		" WHERE qp.queue_id = $queue_id AND qp.roster_id = ANY ($roster_ids)"
		" ORDER BY qp.roster_id, qp.seat",
		{{"queue_id", INT4OID}, {"roster_ids", INT8ARRAYOID}, {"match_ids", INT8ARRAYOID},
		 {"at", TIMESTAMPTZOID}}
	},
	[B_MOVE_REQUESTS] = {
		"UPDATE mm.backfill b SET status = 'filled', ended_at = $at, tick_id = $tick_id"
		" WHERE b.queue_id = $queue_id AND b.backfill_id = ANY ($backfill_ids)",
		{{"queue_id", INT4OID}, {"backfill_ids", INT8ARRAYOID}, {"at", TIMESTAMPTZOID},
		 {"tick_id", INT8OID}}
	},
};

/* One open request and what the tick does with it. */
typedef struct Request
{
	int64		backfill_id;
	int64		match_id;
	char	   *team_name;		/* the team the request fills */
	MmBackfillTeam team;
	int			nexclude;
	int		   *exclude;		/* roster indexes holding a player of the match */
	bool		whole;			/* its rosters are locked with all their players */
} Request;

static double
get_float(HeapTuple tup, TupleDesc desc, int col)
{
	bool		isnull;
	Datum		d = SPI_getbinval(tup, desc, col, &isnull);

	return isnull ? 0 : DatumGetFloat8(d);
}

/* Count a text[] of professions into per-id counts of the roster set. */
static void
count_professions(HeapTuple tup, TupleDesc desc, int col, const MmRosterSet *set, int *counts)
{
	bool		isnull;
	Datum		d = SPI_getbinval(tup, desc, col, &isnull);
	Datum	   *elems;
	bool	   *enulls;
	int			n;

	if (isnull)
		return;
	deconstruct_array(DatumGetArrayTypeP(d), TEXTOID, -1, false, TYPALIGN_INT, &elems, &enulls, &n);
	for (int i = 0; i < n; i++)
	{
		char	   *name;

		if (enulls[i])
			continue;
		name = TextDatumGetCString(elems[i]);
		/* a profession nobody waiting has cannot change a score */
		for (int k = 0; k < set->nprof; k++)
			if (strcmp(set->prof_names[k], name) == 0)
			{
				counts[k]++;
				break;
			}
	}
}

/*
 * Read the rosters of the requests' matches for the queue's rules (the
 * rules hold over the whole match a backfill joins), their values read as
 * those of the waiting rosters (set->reader), into each request's team.
 */
static void
read_match_rosters(int32 queue_id, const MmMatcherConfig *cfg, const MmRosterSet *set,
				   Request *reqs, int nreqs)
{
	int64	   *ids = palloc(sizeof(int64) * nreqs);
	MmArgs		a;
	TupleDesc	desc;
	uint64		rows;
	MmRoster   *all;
	int64	   *match_of;

	for (int j = 0; j < nreqs; j++)
		ids[j] = reqs[j].match_id;
	mm_args_begin(&a, &statements[B_ROSTERS]);
	mm_arg(&a, "queue_id", Int32GetDatum(queue_id));
	mm_arg(&a, "match_ids", mm_id_array(ids, nreqs));
	mm_run(&a, true, SPI_OK_SELECT);
	rows = SPI_processed;
	desc = SPI_tuptable->tupdesc;
	all = palloc0(sizeof(MmRoster) * Max(rows, 1));
	match_of = palloc(sizeof(int64) * Max(rows, 1));
	for (uint64 row = 0; row < rows; row++)
	{
		HeapTuple	tup = SPI_tuptable->vals[row];
		MmRoster   *x = &all[row];
		bool		isnull;
		Datum		d;
		Jsonb	   *attrs;
		Jsonb	   *lat;

		CHECK_FOR_INTERRUPTS();
		match_of[row] = DatumGetInt64(SPI_getbinval(tup, desc, 1, &isnull));
		d = SPI_getbinval(tup, desc, 2, &isnull);
		x->team = isnull ? MM_TEAMS : DatumGetInt32(d);
		x->players = (int) DatumGetInt64(SPI_getbinval(tup, desc, 3, &isnull));
		d = SPI_getbinval(tup, desc, 4, &isnull);
		attrs = isnull ? NULL : DatumGetJsonbP(d);
		d = SPI_getbinval(tup, desc, 5, &isnull);
		lat = isnull ? NULL : DatumGetJsonbP(d);
		mm_rules_read_more(cfg, x, attrs, lat, set->reader);
		d = SPI_getbinval(tup, desc, 6, &isnull);
		mm_rules_read_roles(cfg, x, isnull ? NULL : DatumGetArrayTypeP(d), false);
		x->id = DatumGetInt64(SPI_getbinval(tup, desc, 7, &isnull));
		x->rating = get_float(tup, desc, 8);
		x->deviation = get_float(tup, desc, 9);
	}
	/* each request's match: its rows (in the order of their match ids) */
	for (int j = 0; j < nreqs; j++)
	{
		MmBackfillTeam *t = &reqs[j].team;
		uint64		first = 0;

		while (first < rows && match_of[first] < reqs[j].match_id)
			first++;
		t->match = &all[first];
		t->nmatch = 0;
		while (first + t->nmatch < rows && match_of[first + t->nmatch] == reqs[j].match_id)
			t->nmatch++;
	}
}

/*
 * Read the open requests of the queue (locking them) into reqs; build the
 * id lookup of the rosters only when there are some (most ticks have none).
 */
static int
read_requests(int32 queue_id, TimestampTz at, const MmMatcherConfig *cfg,
			  const MmRosterSet *set, Request **reqs)
{
	MmArgs		a;
	int			n;
	TupleDesc	desc;
	MmRosterIndex *lookup;
	int			nlookup;

	mm_args_begin(&a, &statements[B_OPEN]);
	mm_arg(&a, "queue_id", Int32GetDatum(queue_id));
	mm_arg(&a, "at", TimestampTzGetDatum(at));
	mm_run(&a, false, SPI_OK_SELECT);
	n = (int) SPI_processed;
	if (n == 0)
		return 0;
	desc = SPI_tuptable->tupdesc;
	lookup = mm_roster_lookup(set, NULL, 0, &nlookup);
	*reqs = palloc0(sizeof(Request) * Max(n, 1));
	for (int j = 0; j < n; j++)
	{
		HeapTuple	tup = SPI_tuptable->vals[j];
		Request    *q = &(*reqs)[j];
		MmBackfillTeam *t = &q->team;
		bool		isnull;
		Datum		d;

		q->backfill_id = DatumGetInt64(SPI_getbinval(tup, desc, 1, &isnull));
		t->open = DatumGetInt32(SPI_getbinval(tup, desc, 2, &isnull));
		t->present = Max(cfg->team_size - t->open, 0);
		t->age = get_float(tup, desc, 3);
		t->rating = get_float(tup, desc, 4);
		t->deviation = get_float(tup, desc, 5);
		t->rank = get_float(tup, desc, 6);
		t->dishonor = get_float(tup, desc, 7);
		for (int side = 0; side < 2; side++)
		{
			t->prof_count[side] = palloc0(sizeof(int) * Max(set->nprof, 1));
			count_professions(tup, desc, 8 + side, set, t->prof_count[side]);
		}
		d = SPI_getbinval(tup, desc, 10, &isnull);
		t->max_roster_size = isnull ? 1 : DatumGetInt32(d);
		t->max_ladder = get_float(tup, desc, 11);
		d = SPI_getbinval(tup, desc, 12, &isnull);
		if (!isnull)
		{
			Datum	   *elems;
			bool	   *enulls;
			int			ne;

			deconstruct_array(DatumGetArrayTypeP(d), INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
							  &elems, &enulls, &ne);
			q->exclude = palloc(sizeof(int) * Max(ne, 1));
			for (int k = 0; k < ne; k++)
			{
				int			i = mm_roster_find(lookup, nlookup, DatumGetInt64(elems[k]));

				if (i >= 0)
					q->exclude[q->nexclude++] = i;
			}
		}
		/* what the rules need: the team's index, the region, the leavers' roles */
		q->match_id = DatumGetInt64(SPI_getbinval(tup, desc, 13, &isnull));
		d = SPI_getbinval(tup, desc, 14, &isnull);
		t->side = isnull ? 0 : DatumGetInt32(d);
		t->region = -1;
		d = SPI_getbinval(tup, desc, 15, &isnull);
		if (!isnull)
		{
			t->region = mm_rules_region_id(set->reader, TextDatumGetCString(d));
			if (t->region < 0)
				t->region = MM_REGION_ABSENT;
		}
		t->left = NULL;
		d = SPI_getbinval(tup, desc, 16, &isnull);
		if (!isnull && cfg->nroles > 0)
		{
			MmRoster	leavers = {0};

			mm_rules_read_roles(cfg, &leavers, DatumGetArrayTypeP(d), false);
			t->left = leavers.role_count;
		}
		t->made_favourite = get_float(tup, desc, 17);
		q->team_name = TextDatumGetCString(SPI_getbinval(tup, desc, 18, &isnull));
	}
	if (cfg->nrules > 0)
		read_match_rosters(queue_id, cfg, set, *reqs, n);
	return n;
}

/*
 * Lock the picked rosters and keep the requests whose rosters are all
 * still there with all their players.
 */
static void
lock_picked(int32 queue_id, const MmRosterSet *set, Request *reqs, int nreqs)
{
	int			npicked = 0;
	int		   *which;
	bool	   *whole;

	for (int j = 0; j < nreqs; j++)
		npicked += reqs[j].team.npicked;
	if (npicked == 0)
		return;
	which = palloc(sizeof(int) * npicked);
	npicked = 0;
	for (int j = 0; j < nreqs; j++)
		for (int k = 0; k < reqs[j].team.npicked; k++)
			which[npicked++] = reqs[j].team.picked[k];
	whole = mm_lock_rosters(queue_id, set, which, npicked);
	for (int j = 0; j < nreqs; j++)
	{
		MmBackfillTeam *t = &reqs[j].team;

		reqs[j].whole = t->npicked > 0;
		for (int k = 0; k < t->npicked && reqs[j].whole; k++)
			reqs[j].whole = whole[t->picked[k]];
	}
}

/* A picked roster of a whole fill, for B_MOVE_ROSTERS: its id and request. */
typedef struct PickedRoster
{
	int64		id;
	int			req;
} PickedRoster;

static int
cmp_picked(const void *a, const void *b)
{
	return mm_cmp_int64(&((const PickedRoster *) a)->id, &((const PickedRoster *) b)->id);
}

/*
 * Record the whole fills (B_MOVE_ROSTERS, B_MOVE_EVENTS, B_MOVE_REQUESTS);
 * put the matches filled in match_ids, in request order (by backfill id),
 * and return their count.
 */
static int
move_picked(int32 queue_id, int64 tick_id, TimestampTz at, const MmRosterSet *set,
			const Request *reqs, int nreqs, int64 *match_ids)
{
	int			n = 0;
	PickedRoster *picked;
	int64	   *r_id;
	int64	   *r_match;
	int64	   *r_backfill;
	char	  **r_team;
	int64	   *backfill_ids;
	Datum		roster_ids;
	Datum		r_matches;
	MmArgs		a;
	int			nfilled = 0;

	for (int j = 0; j < nreqs; j++)
		if (reqs[j].whole)
			n += reqs[j].team.npicked;
	if (n == 0)
		return 0;
	picked = palloc(sizeof(PickedRoster) * n);
	backfill_ids = palloc(sizeof(int64) * nreqs);
	n = 0;
	for (int j = 0; j < nreqs; j++)
	{
		if (!reqs[j].whole)
			continue;
		for (int k = 0; k < reqs[j].team.npicked; k++)
		{
			picked[n].id = set->r[reqs[j].team.picked[k]].id;
			picked[n++].req = j;
		}
		backfill_ids[nfilled] = reqs[j].backfill_id;
		match_ids[nfilled++] = reqs[j].match_id;
	}
	/* by roster id: the statements find a roster's place by binary search */
	qsort(picked, n, sizeof(PickedRoster), cmp_picked);
	r_id = palloc(sizeof(int64) * n);
	r_match = palloc(sizeof(int64) * n);
	r_backfill = palloc(sizeof(int64) * n);
	r_team = palloc(sizeof(char *) * n);
	for (int k = 0; k < n; k++)
	{
		const Request *q = &reqs[picked[k].req];

		r_id[k] = picked[k].id;
		r_match[k] = q->match_id;
		r_backfill[k] = q->backfill_id;
		r_team[k] = q->team_name;
	}
	roster_ids = mm_int8_array_datum(n, r_id);
	r_matches = mm_int8_array_datum(n, r_match);

	mm_args_begin(&a, &statements[B_MOVE_ROSTERS]);
	mm_arg(&a, "queue_id", Int32GetDatum(queue_id));
	mm_arg(&a, "roster_ids", roster_ids);
	mm_arg(&a, "match_ids", r_matches);
	mm_arg(&a, "teams", mm_text_array_datum(n, r_team));
	mm_arg(&a, "backfill_ids", mm_int8_array_datum(n, r_backfill));
	mm_arg(&a, "at", TimestampTzGetDatum(at));
	mm_run(&a, false, SPI_OK_UPDATE);
	/* every roster was locked, waiting, with its players: all move */
	if (SPI_processed != (uint64) n)
		elog(ERROR, "mm.tick moved %llu of the %d rosters it locked for backfill",
			 (unsigned long long) SPI_processed, n);

	mm_args_begin(&a, &statements[B_MOVE_EVENTS]);
	mm_arg(&a, "queue_id", Int32GetDatum(queue_id));
	mm_arg(&a, "roster_ids", roster_ids);
	mm_arg(&a, "match_ids", r_matches);
	mm_arg(&a, "at", TimestampTzGetDatum(at));
	mm_run(&a, false, SPI_OK_INSERT);

	mm_args_begin(&a, &statements[B_MOVE_REQUESTS]);
	mm_arg(&a, "queue_id", Int32GetDatum(queue_id));
	mm_arg(&a, "backfill_ids", mm_int8_array_datum(nfilled, backfill_ids));
	mm_arg(&a, "at", TimestampTzGetDatum(at));
	mm_arg(&a, "tick_id", Int64GetDatum(tick_id));
	mm_run(&a, false, SPI_OK_UPDATE);
	/* the requests were locked open when the tick read them */
	if (SPI_processed != (uint64) nfilled)
		elog(ERROR, "mm.tick filled %llu of the %d backfill requests it locked",
			 (unsigned long long) SPI_processed, nfilled);
	return nfilled;
}

/* What a tick does with a queue's open requests (mm_backfill_plan). */
struct MmBackfillPlan
{
	Request    *reqs;
	int			nreqs;
};

/*
 * Fill the open backfill requests of a queue (locking them) from its
 * waiting rosters ("set", read by the tick; the first ones of the queue
 * when cfg->prefix), in memory, and put in "rest" the rosters not picked,
 * in queue order: what the tick's matcher sees. Returns false when a
 * request's fill could change with more of the queue (cfg->prefix only);
 * the caller then reads more and plans again. Nothing is written: see
 * mm_backfill_apply.
 */
bool
mm_backfill_plan(int32 queue_id, TimestampTz at, const MmMatcherConfig *cfg,
				 const MmRosterSet *set, MmBackfillPlan **plan, MmRosterSet *rest)
{
	bool	   *taken;
	Request    *reqs = NULL;
	int			nreqs;
	bool		decided = true;

	*rest = *set;
	*plan = palloc0(sizeof(MmBackfillPlan));
	nreqs = read_requests(queue_id, at, cfg, set, &reqs);
	if (nreqs == 0)
		return true;
	(*plan)->reqs = reqs;
	(*plan)->nreqs = nreqs;
	taken = palloc0(sizeof(bool) * Max(set->n, 1));

	for (int j = 0; j < nreqs && decided; j++)
	{
		Request    *q = &reqs[j];
		int		   *unmark = palloc(sizeof(int) * Max(q->nexclude, 1));
		int			nunmark = 0;

		CHECK_FOR_INTERRUPTS();
		/* a roster holding a player of the match is not for this match */
		for (int k = 0; k < q->nexclude; k++)
			if (!taken[q->exclude[k]])
			{
				taken[q->exclude[k]] = true;
				unmark[nunmark++] = q->exclude[k];
			}
		mm_matcher_backfill(set->r, set->n, set->nprof, cfg, &q->team, taken);
		decided = !q->team.undecided;
		for (int k = 0; k < nunmark; k++)
			taken[unmark[k]] = false;
	}
	if (!decided)
		return false;

	/* the rest, in queue order, is what the tick matches */
	rest->r = palloc(sizeof(MmRoster) * Max(set->n, 1));
	rest->n = 0;
	for (int i = 0; i < set->n; i++)
		if (!taken[i])
			rest->r[rest->n++] = set->r[i];
	return true;
}

/*
 * Record the fills of a plan over "set": lock the picked rosters, move
 * those of the requests whose rosters are all whole, notify the queue's
 * channel. Returns the number of requests filled.
 */
int
mm_backfill_apply(int32 queue_id, const char *name, int64 tick_id, TimestampTz at,
				  const MmRosterSet *set, const MmBackfillPlan *plan)
{
	int64	   *match_ids;
	int			nfilled;

	if (plan->nreqs == 0)
		return 0;
	lock_picked(queue_id, set, plan->reqs, plan->nreqs);
	match_ids = palloc(sizeof(int64) * plan->nreqs);
	nfilled = move_picked(queue_id, tick_id, at, set, plan->reqs, plan->nreqs, match_ids);
	if (nfilled > 0)
		mm_events_backfilled(queue_id, tick_id, at);
	mm_queue_notify(queue_id, name, match_ids, nfilled, "backfills");
	return nfilled;
}

int
mm_backfill_moved(const MmBackfillPlan *plan, const MmRosterSet *set, int64 **ids)
{
	int			n = 0;

	for (int j = 0; j < plan->nreqs; j++)
		if (plan->reqs[j].whole)
			n += plan->reqs[j].team.npicked;
	*ids = palloc(sizeof(int64) * Max(n, 1));
	n = 0;
	for (int j = 0; j < plan->nreqs; j++)
		if (plan->reqs[j].whole)
			for (int k = 0; k < plan->reqs[j].team.npicked; k++)
				(*ids)[n++] = set->r[plan->reqs[j].team.picked[k]].id;
	return n;
}

bool
mm_backfill_none(const MmBackfillPlan *plan)
{
	return plan == NULL || plan->nreqs == 0;
}
