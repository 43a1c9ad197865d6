/*-------------------------------------------------------------------------
 *
 * whatif_record.c
 *		The record of a queue's window that a what-if replays: the queue and
 *		its config with the caller's merged in, the times it was ticked,
 *		the live matches (their rosters, and the outcome of their ready
 *		checks), and the arrivals in arrival order (mm.roster_arrival), each
 *		with when it left as the ticket history recorded it. The arrivals are
 *		read in batches through a cursor and turned into the matcher's
 *		rosters by the queue's own reader (roster_read.c), which keeps their
 *		ids (professions, attribute values, regions) across the batches.
 *
 * Everything is read in the snapshot of the calling statement (read-only
 * statements take no new one), with no lock but a reader's on the tables:
 * a tick, an enqueue or a leave never waits for a replay.
 *
 *-------------------------------------------------------------------------
 */
#include "whatif.h"
#include "statement.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

/* Arrivals read per batch (mm.whatif_read_batch: fewer, for the tests). */
#define BATCH_ROWS (mm_whatif_read_batch > 0 ? mm_whatif_read_batch : 4096)

enum
{
	W_QUEUE,
	W_TICKS,
	W_LOOKBACK,
	W_LIVE,
	W_REGIONS,
	W_ARRIVALS,
	W_COUNT
};

static MmStatement statements[W_COUNT] = {
	/*
	 * The queue, its config with the given one merged in as mm.alter_queue
	 * merges it (another rating family starts from its own options; the
	 * result is checked when it is read), and its calibration.
	 */
	[W_QUEUE] = {
		"SELECT q.queue_id, q.config, "
		"mm._jsonb_merge(CASE WHEN jsonb_typeof($config -> 'rating') = 'object' "
		"AND $config -> 'rating' ? 'model' AND $config #>> '{rating,model}' IS DISTINCT FROM q.config #>> '{rating,model}' "
		"THEN q.config #- '{rating,options}' ELSE q.config END, $config), c.model, c.scale "
		"FROM mm.queue q LEFT JOIN mm.odds_calibration c ON c.queue_id = q.queue_id "
		"WHERE q.name = $name AND q.dropped_at IS NULL",
		{{"name", TEXTOID}, {"config", JSONBOID}}
	},
	/* the ticks: a row of idle ticks stands for "ticks" of them from at to last_at */
	[W_TICKS] = {
		"SELECT l.at, l.last_at, l.ticks FROM mm.tick_log l "
		"WHERE l.queue_id = $queue_id AND l.last_at >= $since AND l.at < $until ORDER BY l.at, l.tick_id",
		{{"queue_id", INT4OID}, {"since", TIMESTAMPTZOID}, {"until", TIMESTAMPTZOID}}
	},
	/*
	 * The earliest a roster still waiting at the first tick from "since" can
	 * have joined (its oldest wait), and so arrived
	 */
	[W_LOOKBACK] = {
		"SELECT l.at - l.oldest_wait FROM mm.tick_log l "
		"WHERE l.queue_id = $queue_id AND l.at >= $since ORDER BY l.at LIMIT 1",
		{{"queue_id", INT4OID}, {"since", TIMESTAMPTZOID}}
	},
	/*
	 * The live matches of the window, each with the rosters it was made
	 * of (a backfill's joined later) in roster id order; with a ready check
	 * (one that dissolved, or was accepted), its outcome: dissolved, when,
	 * and the rosters it removed; the players it asked and who accepted.
	 * A dissolved match gave its rosters up: its ticket events name them.
	 */
	[W_LIVE] = {
		"SELECT m.match_id, m.created_at, m.status, "
		"CASE WHEN m.status = 'dissolved' "
		"THEN ARRAY(SELECT DISTINCT e.roster_id FROM mm.ticket_event e "
		"WHERE e.match_id = m.match_id AND e.status IN ('waiting', 'removed') ORDER BY 1) "
		"ELSE ARRAY(SELECT mr.roster_id FROM mm.match_roster mr "
		"WHERE mr.match_id = m.match_id AND mr.backfill_id IS NULL ORDER BY 1) END, "
		"ARRAY(SELECT DISTINCT e.roster_id FROM mm.ticket_event e "
		"WHERE e.match_id = m.match_id AND e.status = 'removed' ORDER BY 1), "
		"(SELECT min(e.at) FROM mm.ticket_event e WHERE e.match_id = m.match_id AND e.status IN ('waiting', 'removed')), "
		"(SELECT count(*) FROM mm.match_accept a WHERE a.match_id = m.match_id), "
		"(SELECT count(*) FROM mm.ticket_event e WHERE e.match_id = m.match_id AND e.status IN ('waiting', 'removed')) "
		"FROM mm.match m WHERE m.queue_id = $queue_id AND m.created_at >= $lo AND m.created_at < $until "
		"ORDER BY m.created_at, m.match_id",
		{{"queue_id", INT4OID}, {"lo", TIMESTAMPTZOID}, {"until", TIMESTAMPTZOID}}
	},
	/* the regions of the window's arrivals (their latencies' keys) */
	[W_REGIONS] = {
		"SELECT DISTINCT k FROM mm.roster_arrival a CROSS JOIN LATERAL jsonb_object_keys(a.latencies) k "
		"WHERE a.queue_id = $queue_id AND a.arrived_at >= $lo AND a.arrived_at < $until AND a.latencies IS NOT NULL",
		{{"queue_id", INT4OID}, {"lo", TIMESTAMPTZOID}, {"until", TIMESTAMPTZOID}}
	},
	/*
	 * The arrivals in arrival order, with the columns the roster reader
	 * reads (players: their number) and, from the ticket history, when
	 * each left: left_at once all its players left or were removed while
	 * it waited (a party that only lost some keeps waiting), gone_at when
	 * it stopped waiting in any way (left, expired, removed by a ready
	 * check), backfill_at when a live backfill took it; matched_at, for a
	 * roster that arrived before the window, when the live queue matched
	 * it (with gone_at, whether it still waited when the window began).
	 */
	[W_ARRIVALS] = {
		"SELECT a.roster_id, cardinality(a.players) AS players, a.rating, a.deviation, a.rank, "
		"a.ladder_points, a.dishonor, a.professions, a.joined_at, a.attributes, a.latencies, a.roles, "
		"a.players AS player_ids, a.arrived_at, a.position, a.attributes ->> $mode AS mode, "
		"x.left_at, least(x.left_at, x.expired_at, x.dodged_at) AS gone_at, x.backfill_at, "
		"CASE WHEN a.arrived_at < $since THEN (SELECT min(m.created_at) FROM mm.match_roster mr "
		"JOIN mm.match m ON m.queue_id = mr.queue_id AND m.match_id = mr.match_id "
		"WHERE mr.roster_id = a.roster_id) END AS matched_at "
		"FROM mm.roster_arrival a CROSS JOIN LATERAL ("
		"SELECT CASE WHEN count(DISTINCT e.player_id) FILTER (WHERE e.status IN ('left', 'removed') AND e.match_id IS NULL) "
		">= cardinality(a.players) "
		"THEN max(e.at) FILTER (WHERE e.status IN ('left', 'removed') AND e.match_id IS NULL) END AS left_at, "
		"min(e.at) FILTER (WHERE e.status = 'expired') AS expired_at, "
		"min(e.at) FILTER (WHERE e.status = 'removed' AND e.match_id IS NOT NULL) AS dodged_at, "
		"min(e.at) FILTER (WHERE e.status = 'matched' AND NOT EXISTS (SELECT FROM mm.ticket_event p "
		"WHERE p.roster_id = e.roster_id AND p.match_id = e.match_id AND p.status = 'proposed')) AS backfill_at "
		"FROM mm.ticket_event e WHERE e.roster_id = a.roster_id AND e.queue_id = a.queue_id) x "
		"WHERE a.queue_id = $queue_id AND a.arrived_at >= $lo AND a.arrived_at < $until "
		"ORDER BY a.arrived_at, a.position",
		{{"queue_id", INT4OID}, {"lo", TIMESTAMPTZOID}, {"until", TIMESTAMPTZOID},
		 {"since", TIMESTAMPTZOID}, {"mode", TEXTOID}}
	},
};

/* A live match's roster set, by its hash. */
typedef struct LiveEntry
{
	uint64		hash;
	int			first;			/* the first live match of that hash */
} LiveEntry;

/* An interned name (a region, a mode). */
typedef struct NameEntry
{
	char		name[NAMEDATALEN];
	int			id;
} NameEntry;

static uint64
set_hash(const int64 *ids, int n)
{
	return hash_bytes_extended((const unsigned char *) ids, sizeof(int64) * n, 0x6d6d);
}

static HTAB *
names_create(const char *what)
{
	HASHCTL		ctl;

	ctl.keysize = NAMEDATALEN;
	ctl.entrysize = sizeof(NameEntry);
	ctl.hcxt = CurrentMemoryContext;
	return hash_create(what, 64, &ctl, HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
}

/* The id of a name in a table of names (the record's memory). */
static int
name_id(WhatifRecord *rec, HTAB *tab, int *n, char ***names, const char *s, int len)
{
	char		key[NAMEDATALEN];
	NameEntry  *e;
	bool		found;

	len = Min(len, NAMEDATALEN - 1);
	memcpy(key, s, len);
	key[len] = '\0';
	e = hash_search(tab, key, HASH_ENTER, &found);
	if (!found)
	{
		MemoryContext old = MemoryContextSwitchTo(rec->keep);

		e->id = (*n)++;
		*names = *names ? repalloc(*names, sizeof(char *) * *n) : palloc(sizeof(char *));
		(*names)[e->id] = pstrdup(key);
		MemoryContextSwitchTo(old);
	}
	return e->id;
}

static TimestampTz
col_ts(HeapTuple tup, TupleDesc desc, int col, TimestampTz dflt)
{
	bool		isnull;
	Datum		d = SPI_getbinval(tup, desc, col, &isnull);

	return isnull ? dflt : DatumGetTimestampTz(d);
}

/* The tick times: the recorded ticks of the window, or a cadence of "every". */
static void
read_ticks(WhatifRecord *rec, Interval *every)
{
	int			cap = 1024;

	rec->nticks = 0;
	rec->every = 0;
	if (every != NULL)
	{
		double		step = (double) every->time + (double) every->day * USECS_PER_DAY +
			(double) every->month * DAYS_PER_MONTH * USECS_PER_DAY;
		double		n;

		if (!(step >= 100 * 1000))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("every must be at least 100 milliseconds"),
					 errhint("Replay at the queue's recorded tick times with every => NULL.")));
		/* a cadence longer than the window is no cadence (and may not fit int64) */
		if (step > (double) rec->until - (double) rec->since)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("every must not be longer than the window"),
					 errdetail("every is %.0f seconds; the window from since to until, %.0f seconds.",
							   step / USECS_PER_SEC, ((double) rec->until - (double) rec->since) / USECS_PER_SEC),
					 errhint("Give a cadence such as '5 seconds', or every => NULL for the queue's recorded tick times.")));
		/* the ticks of a cadence are counted, not kept */
		n = ceil(((double) rec->until - (double) rec->since) / step);
		if (n > PG_INT32_MAX)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("too many ticks to replay"),
					 errdetail("The window holds %.0f ticks of every; at most %d can be replayed.", n, PG_INT32_MAX),
					 errhint("Replay a shorter window, or at a longer cadence.")));
		rec->every = (int64) step;
		rec->nticks = (int) n;
		return;
	}
	rec->ticks = palloc(sizeof(TimestampTz) * cap);
	{
		MmArgs		a;

		mm_args_begin(&a, &statements[W_TICKS]);
		mm_arg(&a, "queue_id", Int32GetDatum(rec->queue_id));
		mm_arg(&a, "since", TimestampTzGetDatum(rec->since));
		mm_arg(&a, "until", TimestampTzGetDatum(rec->until));
		mm_run(&a, true, SPI_OK_SELECT);
	}
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		TimestampTz at = col_ts(tup, desc, 1, 0);
		TimestampTz last = col_ts(tup, desc, 2, at);
		bool		isnull;
		int			n = DatumGetInt32(SPI_getbinval(tup, desc, 3, &isnull));

		CHECK_FOR_INTERRUPTS();
		/* an idle stretch: its ticks spread evenly from at to last_at */
		for (int k = 0; k < n; k++)
		{
			TimestampTz t = n > 1 ? at + (TimestampTz) ((double) (last - at) * k / (n - 1)) : at;

			if (t < rec->since || t >= rec->until ||
				(rec->nticks > 0 && t <= rec->ticks[rec->nticks - 1]))
				continue;
			if (rec->nticks == cap)
			{
				if (cap >= PG_INT32_MAX / 2)
					ereport(ERROR,
							(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
							 errmsg("too many ticks to replay"),
							 errhint("Replay a shorter window.")));
				cap *= 2;
				rec->ticks = repalloc_huge(rec->ticks, sizeof(TimestampTz) * cap);
			}
			rec->ticks[rec->nticks++] = t;
		}
	}
	if (rec->nticks == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("queue \"%s\" has no ticks recorded between %s and %s", rec->queue,
						pstrdup(timestamptz_to_str(rec->since)), pstrdup(timestamptz_to_str(rec->until))),
				 errhint("Replay at a cadence of your own, such as every => '5 seconds'.")));
}

/* The live matches of the window, by their roster sets, and the recorded accept rate. */
static void
read_live(WhatifRecord *rec, bool rate_given, double rate)
{
	MmArgs		a;
	HASHCTL		ctl;
	double		asked = 0,
				accepted = 0;

	mm_args_begin(&a, &statements[W_LIVE]);
	mm_arg(&a, "queue_id", Int32GetDatum(rec->queue_id));
	mm_arg(&a, "lo", TimestampTzGetDatum(rec->lookback));
	mm_arg(&a, "until", TimestampTzGetDatum(rec->until));
	mm_run(&a, true, SPI_OK_SELECT);
	rec->nlive = (int) SPI_processed;
	rec->live = palloc0(sizeof(WhatifLive) * Max(rec->nlive, 1));
	rec->live_next = palloc(sizeof(int) * Max(rec->nlive, 1));
	ctl.keysize = sizeof(uint64);
	ctl.entrysize = sizeof(LiveEntry);
	ctl.hcxt = CurrentMemoryContext;
	rec->live_by_set = hash_create("mm whatif live matches", Max(rec->nlive, 16), &ctl,
								   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	for (int i = 0; i < rec->nlive; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		WhatifLive *l = &rec->live[i];
		bool		isnull;
		char	   *status;
		int64		n_accepted,
					n_asked;
		LiveEntry  *e;
		bool		found;
		uint64		h;

		CHECK_FOR_INTERRUPTS();
		l->match_id = DatumGetInt64(SPI_getbinval(tup, desc, 1, &isnull));
		l->created_at = col_ts(tup, desc, 2, 0);
		status = TextDatumGetCString(SPI_getbinval(tup, desc, 3, &isnull));
		l->nrosters = mm_int8_array(DatumGetArrayTypeP(SPI_getbinval(tup, desc, 4, &isnull)),
									"rosters", &l->rosters);
		l->nremoved = mm_int8_array(DatumGetArrayTypeP(SPI_getbinval(tup, desc, 5, &isnull)),
									"removed", &l->removed);
		l->dissolved_at = col_ts(tup, desc, 6, DT_NOEND);
		n_accepted = DatumGetInt64(SPI_getbinval(tup, desc, 7, &isnull));
		n_asked = DatumGetInt64(SPI_getbinval(tup, desc, 8, &isnull));
		/* its ready check's outcome, when it had one that ended */
		if (strcmp(status, "dissolved") == 0)
		{
			l->ready = true;
			l->accepted = false;
			asked += n_asked;
			accepted += n_accepted;
		}
		else if (strcmp(status, "proposed") != 0 && n_accepted > 0)
		{
			l->ready = true;
			l->accepted = true;
			asked += n_accepted;
			accepted += n_accepted;
		}
		l->used = false;
		rec->live_next[i] = -1;
		if (l->nrosters == 0)
			continue;
		h = set_hash(l->rosters, l->nrosters);
		e = hash_search(rec->live_by_set, &h, HASH_ENTER, &found);
		if (!found)
			e->first = i;
		else
		{
			int			k = e->first;

			while (rec->live_next[k] >= 0)
				k = rec->live_next[k];
			rec->live_next[k] = i;
		}
	}
	if (rate_given)
		rec->accept_rate = rate;
	else
		rec->accept_rate = asked > 0 ? accepted / asked : 1.0;
}

int
mm_whatif_live_find(const WhatifRecord *rec, const int64 *rosters, int n, bool unused)
{
	uint64		h = set_hash(rosters, n);
	LiveEntry  *e = hash_search(rec->live_by_set, &h, HASH_FIND, NULL);

	for (int k = e ? e->first : -1; k >= 0; k = rec->live_next[k])
	{
		const WhatifLive *l = &rec->live[k];

		if (l->nrosters == n && memcmp(l->rosters, rosters, sizeof(int64) * n) == 0 &&
			!(unused && l->used))
			return k;
	}
	return -1;
}

static int
cmp_cstring(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/*
 * The regions of the window's rosters, interned in name order before the
 * first batch: every batch's latencies are then dense over the same ids,
 * in the order the reader gives them (a tie between regions goes to the
 * first name, as in a tick).
 */
static void
preseed_regions(WhatifRecord *rec)
{
	MmArgs		a;
	int			n;
	char	  **names;
	MmRuleReader *rd = &rec->ids.rd;

	rd->values = mm_intern_create("mm whatif attribute values");
	rd->regions = mm_intern_create("mm whatif regions");
	if (rec->cfg.latency_rule < 0)
		return;
	mm_args_begin(&a, &statements[W_REGIONS]);
	mm_arg(&a, "queue_id", Int32GetDatum(rec->queue_id));
	mm_arg(&a, "lo", TimestampTzGetDatum(rec->lookback));
	mm_arg(&a, "until", TimestampTzGetDatum(rec->until));
	mm_run(&a, true, SPI_OK_SELECT);
	n = (int) SPI_processed;
	names = palloc(sizeof(char *) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		bool		isnull;

		names[i] = TextDatumGetCString(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc,
													 1, &isnull));
	}
	qsort(names, n, sizeof(char *), cmp_cstring);
	for (int i = 0; i < n; i++)
		(void) mm_intern(rd->regions, names[i], strlen(names[i]), &rd->nregions, &rd->region_names);
	rec->npreseeded = rd->nregions;
}

/* The first equal rule's attribute of the queue's current config: the mode. */
static char *
mode_attribute(Jsonb *current)
{
	MmMatcherConfig cfg;

	mm_queue_config(current, &cfg);
	for (int k = 0; k < cfg.nrules; k++)
		if (strcmp(cfg.rules[k].type, "equal") == 0 && cfg.rules[k].attribute != NULL)
			return pstrdup(cfg.rules[k].attribute);
	return NULL;
}

void
mm_whatif_record(WhatifRecord *rec, const char *queue, Jsonb *config, TimestampTz since,
				 TimestampTz until, Interval *every, bool accept_rate_given, double accept_rate)
{
	MmArgs		a;
	bool		isnull;
	HeapTuple	tup;
	TupleDesc	desc;
	Jsonb	   *current;
	MemoryContext old;

	memset(rec, 0, sizeof(*rec));
	rec->keep = AllocSetContextCreate(CurrentMemoryContext, "mm whatif record", ALLOCSET_DEFAULT_SIZES);
	rec->batch = AllocSetContextCreate(rec->keep, "mm whatif batch", ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(rec->keep);
	rec->queue = pstrdup(queue);
	rec->given = config;
	rec->since = since;
	rec->until = until;

	mm_args_begin(&a, &statements[W_QUEUE]);
	mm_arg(&a, "name", CStringGetTextDatum(queue));
	mm_arg(&a, "config", JsonbPGetDatum(config));
	mm_run(&a, true, SPI_OK_SELECT);
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("queue \"%s\" does not exist", queue),
				 errhint("See the queues in mm.queue.")));
	tup = SPI_tuptable->vals[0];
	desc = SPI_tuptable->tupdesc;
	rec->queue_id = DatumGetInt32(SPI_getbinval(tup, desc, 1, &isnull));
	current = DatumGetJsonbPCopy(SPI_getbinval(tup, desc, 2, &isnull));
	mm_queue_config(DatumGetJsonbPCopy(SPI_getbinval(tup, desc, 3, &isnull)), &rec->cfg);
	/*
	 * No wall-clock limit on a replayed tick: the replay must not depend on
	 * the machine's load (docs/whatif.md, what can differ)
	 */
	rec->cfg.filter.limit_ms = INFINITY;
	rec->odds_scale = 1.0;
	if (!rec->cfg.rating.calibration_null)
	{
		Datum		model = SPI_getbinval(tup, desc, 4, &isnull);

		if (!isnull && strcmp(TextDatumGetCString(model), rec->cfg.rating.model) == 0)
			rec->odds_scale = DatumGetFloat8(SPI_getbinval(tup, desc, 5, &isnull));
	}
	rec->mode_attr = mode_attribute(current);

	read_ticks(rec, every);
	/* arrivals from here on may still be waiting when the window begins */
	mm_args_begin(&a, &statements[W_LOOKBACK]);
	mm_arg(&a, "queue_id", Int32GetDatum(rec->queue_id));
	mm_arg(&a, "since", TimestampTzGetDatum(since));
	mm_run(&a, true, SPI_OK_SELECT);
	rec->lookback = since - USECS_PER_DAY;
	if (SPI_processed == 1)
		rec->lookback = Min(since, col_ts(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1,
										  rec->lookback));
	read_live(rec, accept_rate_given, accept_rate);

	preseed_regions(rec);
	rec->region_ids = names_create("mm whatif best regions");
	rec->mode_ids = names_create("mm whatif modes");
	rec->ids.prof_cap = 16;
	rec->ids.prof_names = palloc(sizeof(char *) * rec->ids.prof_cap);

	mm_args_begin(&a, &statements[W_ARRIVALS]);
	mm_arg(&a, "queue_id", Int32GetDatum(rec->queue_id));
	mm_arg(&a, "lo", TimestampTzGetDatum(rec->lookback));
	mm_arg(&a, "until", TimestampTzGetDatum(until));
	mm_arg(&a, "since", TimestampTzGetDatum(since));
	mm_arg_maybe(&a, "mode", rec->mode_attr ? CStringGetTextDatum(rec->mode_attr) : (Datum) 0,
				 rec->mode_attr == NULL);
	rec->cursor = mm_open_cursor(&a, true);
	MemoryContextSwitchTo(old);
}

void
mm_whatif_record_end(WhatifRecord *rec)
{
	if (rec->cursor != NULL)
		SPI_cursor_close(rec->cursor);
	rec->cursor = NULL;
}

/* A roster's best region: its lowest latency, a tie to the first name. */
static int
best_region(WhatifRecord *rec, Jsonb *lat)
{
	JsonbIterator *it;
	JsonbValue	e;
	JsonbIteratorToken tok;
	char	   *key = NULL;
	int			keylen = 0;
	char	   *best = NULL;
	int			bestlen = 0;
	double		best_ms = INFINITY;

	if (lat == NULL || !JB_ROOT_IS_OBJECT(lat))
		return -1;
	it = JsonbIteratorInit(&lat->root);
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY)
		{
			key = e.val.string.val;
			keylen = e.val.string.len;
		}
		else if (tok == WJB_VALUE && e.type == jbvNumeric)
		{
			double		ms = mm_numeric_float8(e.val.numeric);
			int			c;

			if (isnan(ms))
				continue;
			c = best ? memcmp(key, best, Min(keylen, bestlen)) : 0;
			if (ms < best_ms || (ms == best_ms && (c < 0 || (c == 0 && keylen < bestlen))))
			{
				best_ms = ms;
				best = key;
				bestlen = keylen;
			}
		}
	}
	if (best == NULL)
		return -1;
	return name_id(rec, rec->region_ids, &rec->nregion_names, &rec->region_names, best, bestlen);
}

/* One roster of the set, its arrays copied into one allocation of the record's. */
static WhatifRoster *
copy_roster(const WhatifRecord *rec, const MmRoster *r, int nplayers)
{
	const MmMatcherConfig *cfg = &rec->cfg;
	Size		size = MAXALIGN(sizeof(WhatifRoster));
	Size		off;
	int			nsets = 0;
	char	   *p;
	WhatifRoster *w;

	size += MAXALIGN(sizeof(int64) * nplayers);
	if (r->lat != NULL)
		size += MAXALIGN(sizeof(double) * Max(r->nlat, 1)) + MAXALIGN(sizeof(int) * Max(r->nlat, 1));
	if (r->attr != NULL)
	{
		size += MAXALIGN(sizeof(MmAttrValue) * cfg->nattrs);
		for (int k = 0; k < cfg->nattrs; k++)
			nsets += r->attr[k].nset;
		size += MAXALIGN(sizeof(int) * Max(nsets, 1));
	}
	size += MAXALIGN(sizeof(int) * 2 * Max(r->nprof, 1));
	if (r->role_count != NULL)
		size += MAXALIGN(sizeof(int) * Max(cfg->nroles, 1));
	p = MemoryContextAlloc(rec->keep, size);
	w = (WhatifRoster *) p;
	memset(w, 0, sizeof(WhatifRoster));
	w->r = *r;
	off = MAXALIGN(sizeof(WhatifRoster));
	w->players = (int64 *) (p + off);
	off += MAXALIGN(sizeof(int64) * nplayers);
	w->nplayers = nplayers;
	/* the latencies as the reader left them: nlat regions, ids ascending */
	w->r.lat_region = NULL;
	if (r->lat != NULL)
	{
		w->r.lat = (double *) (p + off);
		memcpy(w->r.lat, r->lat, sizeof(double) * r->nlat);
		off += MAXALIGN(sizeof(double) * Max(r->nlat, 1));
		w->r.lat_region = (int *) (p + off);
		memcpy(w->r.lat_region, r->lat_region, sizeof(int) * r->nlat);
		off += MAXALIGN(sizeof(int) * Max(r->nlat, 1));
	}
	if (r->attr != NULL)
	{
		int		   *sets;

		w->r.attr = (MmAttrValue *) (p + off);
		memcpy(w->r.attr, r->attr, sizeof(MmAttrValue) * cfg->nattrs);
		off += MAXALIGN(sizeof(MmAttrValue) * cfg->nattrs);
		sets = (int *) (p + off);
		off += MAXALIGN(sizeof(int) * Max(nsets, 1));
		for (int k = 0; k < cfg->nattrs; k++)
		{
			if (r->attr[k].nset == 0)
			{
				w->r.attr[k].set = NULL;
				continue;
			}
			memcpy(sets, r->attr[k].set, sizeof(int) * r->attr[k].nset);
			w->r.attr[k].set = sets;
			sets += r->attr[k].nset;
		}
	}
	w->r.prof = (int *) (p + off);
	w->r.prof_count = w->r.prof + Max(r->nprof, 1);
	if (r->nprof > 0)
	{
		memcpy(w->r.prof, r->prof, sizeof(int) * r->nprof);
		memcpy(w->r.prof_count, r->prof_count, sizeof(int) * r->nprof);
	}
	off += MAXALIGN(sizeof(int) * 2 * Max(r->nprof, 1));
	if (r->role_count != NULL)
	{
		w->r.role_count = (int *) (p + off);
		memcpy(w->r.role_count, r->role_count, sizeof(int) * cfg->nroles);
	}
	return w;
}

/*
 * Keep what the reader interned in this batch in the record's memory (the
 * batch's is reset before the next): new profession names, the regions'
 * order.
 */
static void
keep_ids(WhatifRecord *rec, int nprof_before)
{
	MmRuleReader *rd = &rec->ids.rd;
	MemoryContext old = MemoryContextSwitchTo(rec->keep);

	if (rec->ids.prof_names != NULL && GetMemoryChunkContext(rec->ids.prof_names) != rec->keep)
	{
		char	  **names = palloc(sizeof(char *) * rec->ids.prof_cap);

		memcpy(names, rec->ids.prof_names, sizeof(char *) * rec->ids.nprof);
		rec->ids.prof_names = names;
	}
	for (int i = nprof_before; i < rec->ids.nprof; i++)
		rec->ids.prof_names[i] = pstrdup(rec->ids.prof_names[i]);
	if (rd->nregions != rec->npreseeded)
		elog(ERROR, "whatif: the arrivals name a region the window's regions did not");
	if (rd->region_id != NULL)
	{
		int		   *id = palloc(sizeof(int) * Max(rd->nregions, 1));
		char	  **names = palloc(sizeof(char *) * Max(rd->nregions, 1));

		memcpy(id, rd->region_id, sizeof(int) * rd->nregions);
		memcpy(names, rd->region_names, sizeof(char *) * rd->nregions);
		rd->region_id = id;
		rd->region_names = names;
	}
	MemoryContextSwitchTo(old);
}

int
mm_whatif_arrivals(WhatifRecord *rec, WhatifRoster ***out)
{
	MmRosterSet set;
	MemoryContext old;
	TupleDesc	desc;
	int			n;
	int			nprof = rec->ids.nprof;
	int			c_ids, c_arrived, c_position, c_mode, c_left, c_gone, c_backfill, c_matched,
				c_joined, c_lat;
	WhatifRoster **batch;

	if (rec->cursor == NULL)
		return 0;
	MemoryContextReset(rec->batch);
	SPI_cursor_fetch(rec->cursor, true, BATCH_ROWS);
	n = (int) SPI_processed;
	if (n == 0)
	{
		mm_whatif_record_end(rec);
		return 0;
	}
	old = MemoryContextSwitchTo(rec->batch);
	mm_read_rosters_ids(0, &rec->cfg, &set, &rec->ids);
	if (set.n != n)
		elog(ERROR, "whatif: %d arrivals read as %d rosters", n, set.n);
	keep_ids(rec, nprof);
	desc = SPI_tuptable->tupdesc;
	c_ids = SPI_fnumber(desc, "player_ids");
	c_arrived = SPI_fnumber(desc, "arrived_at");
	c_position = SPI_fnumber(desc, "position");
	c_mode = SPI_fnumber(desc, "mode");
	c_left = SPI_fnumber(desc, "left_at");
	c_gone = SPI_fnumber(desc, "gone_at");
	c_backfill = SPI_fnumber(desc, "backfill_at");
	c_matched = SPI_fnumber(desc, "matched_at");
	c_joined = SPI_fnumber(desc, "joined_at");
	c_lat = SPI_fnumber(desc, "latencies");
	batch = palloc(sizeof(WhatifRoster *) * n);
	for (int i = 0; i < n; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		bool		isnull;
		int64	   *players;
		int			np = mm_int8_array(DatumGetArrayTypeP(SPI_getbinval(tup, desc, c_ids, &isnull)),
									   "players", &players);
		WhatifRoster *w = copy_roster(rec, &set.r[i], np);
		Datum		d;

		CHECK_FOR_INTERRUPTS();
		memcpy(w->players, players, sizeof(int64) * np);
		w->arrived_at = col_ts(tup, desc, c_arrived, 0);
		w->joined_at = col_ts(tup, desc, c_joined, 0);
		w->key = DatumGetInt64(SPI_getbinval(tup, desc, c_position, &isnull));
		w->sub = 0;
		w->exit_at = col_ts(tup, desc, c_left, DT_NOEND);
		w->backfill_at = col_ts(tup, desc, c_backfill, DT_NOEND);
		w->state = WI_ARRIVING;
		w->proposal = -1;
		/* arrived before the window: in it only if it still waited then */
		if (w->arrived_at < rec->since &&
			(col_ts(tup, desc, c_gone, DT_NOEND) < rec->since ||
			 col_ts(tup, desc, c_matched, DT_NOEND) < rec->since ||
			 w->backfill_at < rec->since))
		{
			pfree(w);
			batch[i] = NULL;
			continue;
		}
		d = SPI_getbinval(tup, desc, c_mode, &isnull);
		w->mode = -1;
		if (!isnull)
		{
			text	   *t = DatumGetTextPP(d);

			w->mode = name_id(rec, rec->mode_ids, &rec->nmodes, &rec->mode_names,
							  VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
		}
		d = SPI_getbinval(tup, desc, c_lat, &isnull);
		w->region = isnull ? -1 : best_region(rec, DatumGetJsonbP(d));
		batch[i] = w;
	}
	MemoryContextSwitchTo(old);
	SPI_freetuptable(SPI_tuptable);
	*out = batch;
	return n;
}
