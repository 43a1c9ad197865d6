/*-------------------------------------------------------------------------
 *
 * roster_limits.c
 *		What the players of a roster asked of the matches they join, read
 *		into the matcher's set (MmRoster.blocks, MmRoster.max_latency):
 *		the players they blocked or who blocked them (mm.block, table
 *		mm.player_block) and their own latency limit (mm.enqueue's
 *		max_latency, mm.roster.max_latency); and the scale of the queue's
 *		calibrated odds as stored, for a preview or an explain (a tick
 *		learns it first: tick.c).
 *
 * Blocks are read as pairs of rosters of the queue, one holding a player
 * who blocked a player of the other, for the rosters the tick read (a
 * player's blocks are looked up by the player's key, the rosters' players
 * by the queue's seat key), and given to both rosters of each pair. A
 * block between a waiting roster and a running match's is the backfill's
 * to honour (backfill.c excludes such rosters). When nobody has blocked
 * anybody the statement stops at its first step (a one-time filter on
 * the table holding no row), so a queue pays for blocks only once there
 * are some.
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
#include "utils/lsyscache.h"
#include "utils/timestamp.h"

#include <math.h>

enum
{
	L_BLOCKS,
	L_BLOCKS_QUEUE,
	L_CAPS,
	L_SCALE,
	L_COUNT
};

static MmStatement statements[L_COUNT] = {
	/*
	 * Pairs of the rosters $roster_ids of a queue in which a player of the
	 * first blocked a player of the second (a block in force at $at); the
	 * second is any roster of the queue, and only those read count.
	 */
	[L_BLOCKS] = {
		"SELECT a.roster_id, b.roster_id FROM mm.queued_player a"
		" JOIN mm.player_block k ON k.player_id = a.player_id"
		" JOIN mm.queued_player b ON b.player_id = k.blocked_id AND NOT b.requeued"
		" WHERE a.queue_id = $queue_id AND a.roster_id = ANY ($roster_ids) AND NOT a.requeued"
		"   AND b.queue_id = $queue_id AND b.roster_id <> a.roster_id"
		"   AND (k.until IS NULL OR k.until > $at)"
		"   AND EXISTS (SELECT FROM mm.player_block)",
		{{"queue_id", INT4OID}, {"roster_ids", INT8ARRAYOID}, {"at", TIMESTAMPTZOID}}
	},
	/*
	 * The same for every waiting roster of the queue, for a set too large
	 * to pass as a list (the rosters not read are dropped after): no list
	 * to build and plan per element, and a queue where nobody blocked
	 * anybody stops at the first step.
	 */
	[L_BLOCKS_QUEUE] = {
		"SELECT a.roster_id, b.roster_id FROM mm.queued_player a"
		" JOIN mm.player_block k ON k.player_id = a.player_id"
		" JOIN mm.queued_player b ON b.player_id = k.blocked_id AND NOT b.requeued"
		" WHERE a.queue_id = $queue_id AND NOT a.requeued"
		"   AND b.queue_id = $queue_id AND b.roster_id <> a.roster_id"
		"   AND (k.until IS NULL OR k.until > $at)"
		"   AND EXISTS (SELECT FROM mm.player_block)",
		{{"queue_id", INT4OID}, {"at", TIMESTAMPTZOID}}
	},
	/* the waiting rosters of a queue with a latency limit of their own */
	[L_CAPS] = {
		"SELECT r.roster_id, r.max_latency FROM mm.roster r"
		" WHERE r.queue_id = $queue_id AND r.match_id IS NULL AND r.max_latency IS NOT NULL",
		{{"queue_id", INT4OID}}
	},
	/* the scale a queue's calibration has learnt for its family */
	[L_SCALE] = {
		"SELECT c.scale FROM mm.odds_calibration c WHERE c.queue_id = $queue_id AND c.model = $model",
		{{"queue_id", INT4OID}, {"model", TEXTOID}}
	},
};

/* A pair of rosters by set index. */
typedef struct Pair
{
	int			a;
	int64		b;
} Pair;

static int
cmp_pair(const void *x, const void *y)
{
	const Pair *p = x;
	const Pair *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return (p->b > q->b) - (p->b < q->b);
}

/*
 * Give each roster of the set the ids of the rosters it may not meet,
 * from pairs of set indexes (each pair once per direction it was found):
 * both directions, sorted, each id once.
 */
static void
give_blocks(MmRosterSet *set, const int *a, const int *b, int npairs, List **touched)
{
	Pair	   *p = palloc(sizeof(Pair) * 2 * Max(npairs, 1));
	int			n = 0;

	for (int i = 0; i < npairs; i++)
	{
		p[n].a = a[i];
		p[n++].b = set->r[b[i]].id;
		p[n].a = b[i];
		p[n++].b = set->r[a[i]].id;
	}
	qsort(p, n, sizeof(Pair), cmp_pair);
	for (int i = 0; i < n;)
	{
		int			j = i;
		MmRoster   *x = &set->r[p[i].a];

		while (j < n && p[j].a == p[i].a)
			j++;
		x->blocks = palloc(sizeof(int64) * (j - i));
		x->nblocks = 0;
		if (touched != NULL)
			*touched = lappend_int(*touched, p[i].a);
		for (int k = i; k < j; k++)
			if (x->nblocks == 0 || x->blocks[x->nblocks - 1] != p[k].b)
				x->blocks[x->nblocks++] = p[k].b;
		i = j;
	}
	pfree(p);
}

/*
 * The blocks between the rosters of the set, from the queue's tables: for
 * a set of up to BLOCKS_LIST_MAX rosters (a tick's first read), those of
 * the set's rosters, by their ids; for a larger one (a queue read whole, a
 * kept input), those of the whole queue. A list of a whole large queue
 * cost a third of the tick of a kept input of 100,000 rosters (building
 * the array and planning the statement for it, element by element).
 */
#define BLOCKS_LIST_MAX 2000

/* The blocks between the rosters of the set, from the queue's tables. */
static void
read_blocks(int32 queue_id, TimestampTz at, MmRosterSet *set, List **touched)
{
	MmRosterIndex *lookup;
	int			nlookup;
	int		   *a;
	int		   *b;
	int			npairs = 0;
	MmArgs		args;

	if (set->n > BLOCKS_LIST_MAX)
	{
		mm_args_begin(&args, &statements[L_BLOCKS_QUEUE]);
		mm_arg(&args, "queue_id", Int32GetDatum(queue_id));
	}
	else
	{
		int64	   *ids = palloc(sizeof(int64) * Max(set->n, 1));

		for (int i = 0; i < set->n; i++)
			ids[i] = set->r[i].id;
		mm_args_begin(&args, &statements[L_BLOCKS]);
		mm_arg(&args, "queue_id", Int32GetDatum(queue_id));
		mm_arg(&args, "roster_ids", mm_id_array(ids, set->n));
	}
	mm_arg(&args, "at", TimestampTzGetDatum(at));
	mm_run(&args, true, SPI_OK_SELECT);
	if (SPI_processed == 0)
		return;
	lookup = mm_roster_lookup(set, NULL, 0, &nlookup);
	a = palloc(sizeof(int) * SPI_processed);
	b = palloc(sizeof(int) * SPI_processed);
	for (uint64 row = 0; row < SPI_processed; row++)
	{
		bool		isnull;
		int			x = mm_roster_find(lookup, nlookup,
									   DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[row],
																   SPI_tuptable->tupdesc, 1, &isnull)));
		int			y = mm_roster_find(lookup, nlookup,
									   DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[row],
																   SPI_tuptable->tupdesc, 2, &isnull)));

		if (x < 0 || y < 0)
			continue;			/* a roster the tick did not read */
		a[npairs] = x;
		b[npairs++] = y;
	}
	give_blocks(set, a, b, npairs, touched);
}

/* The latency limits of the waiting rosters of the set. */
static void
read_caps(int32 queue_id, MmRosterSet *set, List **touched)
{
	MmRosterIndex *lookup;
	int			nlookup;
	MmArgs		args;

	mm_args_begin(&args, &statements[L_CAPS]);
	mm_arg(&args, "queue_id", Int32GetDatum(queue_id));
	mm_run(&args, true, SPI_OK_SELECT);
	if (SPI_processed == 0)
		return;
	lookup = mm_roster_lookup(set, NULL, 0, &nlookup);
	for (uint64 row = 0; row < SPI_processed; row++)
	{
		bool		isnull;
		int			x = mm_roster_find(lookup, nlookup,
									   DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[row],
																   SPI_tuptable->tupdesc, 1, &isnull)));

		if (x >= 0)
		{
			set->r[x].max_latency = DatumGetFloat8(SPI_getbinval(SPI_tuptable->vals[row],
																 SPI_tuptable->tupdesc, 2, &isnull));
			if (touched != NULL)
				*touched = lappend_int(*touched, x);
		}
	}
}

/*
 * Read the blocks between the waiting rosters of a queue that the set
 * holds, and their latency limits (for a queue with a latency rule: the
 * only one that reads them). With touched, appends to it the set index of
 * each roster given blocks or a limit (a roster may be listed twice), so
 * that a kept input can take them away again without a pass over the set.
 */
void
mm_roster_limits_read(int32 queue_id, TimestampTz at, const MmMatcherConfig *cfg, MmRosterSet *set,
					  List **touched)
{
	if (set->n == 0)
		return;
	read_blocks(queue_id, at, set, touched);
	if (cfg->latency_rule >= 0)
		read_caps(queue_id, set, touched);
}

/* A rosters query's column of that name and type; 0 when absent. */
static int
optional_column(TupleDesc desc, const char *name, Oid type, const char *typename)
{
	int			col = SPI_fnumber(desc, name);

	if (col <= 0)
		return 0;
	if (SPI_gettypeid(desc, col) != type)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("rosters query column \"%s\" has the wrong type", name),
				 errdetail("The column is of type %s.", format_type_be(SPI_gettypeid(desc, col))),
				 errhint("Cast it to %s.", typename)));
	return col;
}

/*
 * The same from the optional columns of a rosters query (SPI_tuptable,
 * read by mm_read_rosters into the set, row for row): "blocks" bigint[],
 * the ids of the rosters of the query a roster may not meet (either
 * roster's list suffices), and "max_latency" float8, its players' own
 * latency limit in ms (NULL: none), which needs a latency rule.
 */
void
mm_roster_limits_columns(const MmMatcherConfig *cfg, MmRosterSet *set)
{
	TupleDesc	desc = SPI_tuptable->tupdesc;
	int			cblocks = optional_column(desc, "blocks", INT8ARRAYOID, "bigint[]");
	int			ccap = optional_column(desc, "max_latency", FLOAT8OID, "float8");
	MmRosterIndex *lookup = NULL;
	int			nlookup = 0;
	int		   *a = NULL;
	int		   *b = NULL;
	int			npairs = 0;
	int			cap = 0;

	if (cblocks == 0 && ccap == 0)
		return;
	Assert(SPI_processed == (uint64) set->n);
	if (cblocks)
		lookup = mm_roster_lookup(set, NULL, 0, &nlookup);
	for (int i = 0; i < set->n; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		bool		isnull;
		Datum		d;

		CHECK_FOR_INTERRUPTS();
		if (ccap)
		{
			d = SPI_getbinval(tup, desc, ccap, &isnull);
			if (!isnull)
			{
				double		v = DatumGetFloat8(d);

				if (isnan(v) || v <= 0 || v > 3600000)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("rosters query column \"max_latency\" is out of range"),
							 errdetail("Roster %lld has max_latency %g.", (long long) set->r[i].id, v),
							 errhint("A latency limit is a number of milliseconds above 0 and at most 3600000, or NULL.")));
				if (cfg->latency_rule < 0)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("rosters query column \"max_latency\" needs a latency rule"),
							 errdetail("Roster %lld has max_latency %g.", (long long) set->r[i].id, v),
							 errhint("Add a latency rule to the config, or leave max_latency NULL.")));
				set->r[i].max_latency = v;
			}
		}
		if (cblocks)
		{
			Datum	   *elems;
			bool	   *enulls;
			int			ne;

			d = SPI_getbinval(tup, desc, cblocks, &isnull);
			if (isnull)
				continue;
			deconstruct_array(DatumGetArrayTypeP(d), INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
							  &elems, &enulls, &ne);
			for (int k = 0; k < ne; k++)
			{
				int			j;

				if (enulls[k])
					ereport(ERROR,
							(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
							 errmsg("rosters query column \"blocks\" must not contain nulls"),
							 errdetail("Roster %lld has a null in blocks.", (long long) set->r[i].id)));
				j = mm_roster_find(lookup, nlookup, DatumGetInt64(elems[k]));
				if (j < 0 || j == i)
					continue;	/* a roster the query does not return */
				if (npairs == cap)
				{
					cap = cap ? 2 * cap : 64;
					a = a ? repalloc(a, sizeof(int) * cap) : palloc(sizeof(int) * cap);
					b = b ? repalloc(b, sizeof(int) * cap) : palloc(sizeof(int) * cap);
				}
				a[npairs] = i;
				b[npairs++] = j;
			}
		}
	}
	if (npairs > 0)
		give_blocks(set, a, b, npairs, NULL);
}

/*
 * The scale of a queue's calibrated odds as its last tick left it (1:
 * none, or a queue without calibration): what a preview or an explain
 * holds a balance rule to.
 */
double
mm_queue_stored_odds_scale(int32 queue_id, const MmMatcherConfig *cfg)
{
	MmArgs		args;
	bool		isnull;

	if (cfg->rating.calibration_null)
		return 1.0;
	mm_args_begin(&args, &statements[L_SCALE]);
	mm_arg(&args, "queue_id", Int32GetDatum(queue_id));
	mm_arg(&args, "model", CStringGetTextDatum(cfg->rating.model));
	mm_run(&args, true, SPI_OK_SELECT);
	if (SPI_processed == 0)
		return 1.0;
	return DatumGetFloat8(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
}
