/*-------------------------------------------------------------------------
 *
 * roster_read.c
 *		Reading rosters into the matcher's set (MmRosterSet, matcher.h):
 *		the rows of the last SPI result, from any query (mm.match_rosters)
 *		or from the queue tables (tick.c, explain.c, backfill.c), checked
 *		and turned into the matcher's figures; and finding a roster of the
 *		set by its id.
 *
 * The query's columns are found by name: roster_id and players (an array
 * of player ids) and rating are required; deviation, rank, ladder_points,
 * dishonor, professions (text[]), joined_at, attributes (jsonb),
 * latencies (jsonb) and roles (text[], the players' roles) are optional. Rows are the
 * queue in the order the query returns them. A roster id or a player that
 * appears twice is refused: the matcher would put it on two teams.
 *
 *-------------------------------------------------------------------------
 */
#include "queue.h"
#include "rating_model.h"
#include "statement.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"


/* Column numbers of the rosters query; 0 when absent. */
typedef struct Columns
{
	int			roster_id;
	int			players;
	int			rating;
	int			deviation;
	int			rank;
	int			ladder;
	int			dishonor;
	int			professions;
	int			joined_at;
	int			attributes;
	int			latencies;
	int			roles;
} Columns;

static int
column(TupleDesc desc, const char *name, bool required, Oid *types, int ntypes)
{
	int			col = SPI_fnumber(desc, name);
	Oid			type;

	if (col <= 0)
	{
		if (required)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("rosters query has no column \"%s\"", name),
					 errhint("The query must return roster_id bigint, players bigint[] and rating float8; "
							 "deviation, rank, ladder_points, dishonor, professions text[], joined_at timestamptz, "
							 "attributes jsonb, latencies jsonb and roles text[] are optional.")));
		return 0;
	}
	type = SPI_gettypeid(desc, col);
	for (int i = 0; i < ntypes; i++)
		if (types[i] == type)
			return col;
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("rosters query column \"%s\" has the wrong type", name),
			 errdetail("The column is of type %s.", format_type_be(type)),
			 errhint("Cast it to %s.", format_type_be(types[0]))));
	return 0;
}

static Oid	number_types[] = {FLOAT8OID, FLOAT4OID, INT2OID, INT4OID, INT8OID, NUMERICOID};

/* One row of the rosters query, its columns deformed once (by number, 1-based). */
typedef struct Row
{
	Datum	   *values;
	bool	   *nulls;
} Row;

static inline Datum
row_value(const Row *row, int col, bool *isnull)
{
	*isnull = row->nulls[col - 1];
	return row->values[col - 1];
}

/* A numeric column's value as a double; "dflt" when the column is absent. */
static double
number(const Row *row, TupleDesc desc, int col, const char *name, double dflt)
{
	bool		isnull;
	Datum		d;
	double		v = 0;

	if (col == 0)
		return dflt;
	d = row_value(row, col, &isnull);
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("rosters query column \"%s\" must not be null", name)));
	switch (SPI_gettypeid(desc, col))
	{
		case FLOAT8OID:
			v = DatumGetFloat8(d);
			break;
		case FLOAT4OID:
			v = DatumGetFloat4(d);
			break;
		case INT2OID:
			v = DatumGetInt16(d);
			break;
		case INT4OID:
			v = DatumGetInt32(d);
			break;
		case INT8OID:
			v = (double) DatumGetInt64(d);
			break;
		case NUMERICOID:
			v = DatumGetFloat8(DirectFunctionCall1(numeric_float8, d));
			break;
	}
	mm_check_finite(v, name);
	return v;
}

/* Profession names seen so far, interned to small ids. */
typedef struct Professions
{
	int			n;
	int			cap;
	char	  **names;
} Professions;

static int
profession_id(Professions *p, const char *name)
{
	for (int i = 0; i < p->n; i++)
		if (strcmp(p->names[i], name) == 0)
			return i;
	if (p->n == p->cap)
	{
		p->cap = p->cap ? p->cap * 2 : 16;
		p->names = p->names ? repalloc(p->names, sizeof(char *) * p->cap)
			: palloc(sizeof(char *) * p->cap);
	}
	p->names[p->n] = pstrdup(name);
	return p->n++;
}

/* Read the professions text[] of one roster into distinct ids and counts. */
static void
read_professions(MmRoster *r, ArrayType *arr, Professions *p)
{
	Datum	   *elems;
	int			n = mm_text_array(arr, "professions", &elems);

	r->nprof = 0;
	r->prof = palloc(sizeof(int) * Max(n, 1));
	r->prof_count = palloc(sizeof(int) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		int			id;
		int			k;

		id = profession_id(p, TextDatumGetCString(elems[i]));
		for (k = 0; k < r->nprof; k++)
			if (r->prof[k] == id)
				break;
		if (k == r->nprof)
		{
			r->prof[k] = id;
			r->prof_count[k] = 0;
			r->nprof++;
		}
		r->prof_count[k]++;
	}
}

int
mm_cmp_int64(const void *a, const void *b)
{
	int64		x = *(const int64 *) a;
	int64		y = *(const int64 *) b;

	return (x > y) - (x < y);
}

/* A player id and the roster it came in. */
typedef struct PlayerOf
{
	int64		player;
	int64		roster;
} PlayerOf;

static int
cmp_player(const void *a, const void *b)
{
	return mm_cmp_int64(&((const PlayerOf *) a)->player, &((const PlayerOf *) b)->player);
}

/*
 * Refuse a roster id given twice, or a player in two rosters (or twice in
 * one): the matcher would put it on both teams.
 */
static void
check_unique(MmRoster *r, int n, PlayerOf *players, int nplayers)
{
	int64	   *ids = palloc(sizeof(int64) * Max(n, 1));

	for (int i = 0; i < n; i++)
		ids[i] = r[i].id;
	qsort(ids, n, sizeof(int64), mm_cmp_int64);
	for (int i = 1; i < n; i++)
		if (ids[i] == ids[i - 1])
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("roster %lld appears twice in the rosters query", (long long) ids[i]),
					 errhint("Return each roster once.")));
	pfree(ids);
	qsort(players, nplayers, sizeof(PlayerOf), cmp_player);
	for (int i = 1; i < nplayers; i++)
		if (players[i].player == players[i - 1].player)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("player %lld appears in two rosters", (long long) players[i].player),
					 errdetail("The player is in rosters %lld and %lld.",
							   (long long) players[i - 1].roster, (long long) players[i].roster),
					 errhint("A player can be in one roster of a match only.")));
}

/* The player ids of one roster's players array, appended to "players". */
static int
read_players(ArrayType *arr, int64 roster, PlayerOf **players, int *nplayers, int *cap)
{
	int			n;
	int64	   *v;

	if (ARR_ELEMTYPE(arr) == INT8OID)
		n = mm_int8_array(arr, "players", &v);
	else
	{
		int32	   *v4;

		n = mm_int4_array(arr, "players", &v4);
		v = palloc(sizeof(int64) * Max(n, 1));
		for (int i = 0; i < n; i++)
			v[i] = v4[i];
	}
	for (int i = 0; i < n; i++)
	{
		if (*nplayers == *cap)
		{
			*cap *= 2;
			*players = repalloc(*players, sizeof(PlayerOf) * *cap);
		}
		(*players)[*nplayers].player = v[i];
		(*players)[(*nplayers)++].roster = roster;
	}
	return n;
}

/*
 * The rows of a queue's players grouped by roster (columns roster_id,
 * players: their number, professions, roles), in roster id order, with
 * their ids taken out for a binary search.
 */
typedef struct Grouped
{
	SPITupleTable *rows;
	int64	   *ids;
	uint64		n;
	Columns		c;
	Row			row;
} Grouped;

static void
grouped_init(Grouped *g, SPITupleTable *rows, uint64 n)
{
	Oid			id_types[] = {INT8OID};
	Oid			text_array[] = {TEXTARRAYOID};
	TupleDesc	desc = rows->tupdesc;

	memset(g, 0, sizeof(*g));
	g->rows = rows;
	g->n = n;
	g->c.roster_id = column(desc, "roster_id", true, id_types, 1);
	g->c.players = column(desc, "players", true, number_types, 6);
	g->c.professions = column(desc, "professions", false, text_array, 1);
	g->c.roles = column(desc, "roles", false, text_array, 1);
	g->ids = palloc(sizeof(int64) * Max(n, 1));
	for (uint64 i = 0; i < n; i++)
	{
		bool		isnull;

		g->ids[i] = DatumGetInt64(SPI_getbinval(rows->vals[i], desc, g->c.roster_id, &isnull));
		if (isnull || (i > 0 && g->ids[i] <= g->ids[i - 1]))
			elog(ERROR, "the players grouped by roster are not in roster id order");
	}
	g->row.values = palloc(sizeof(Datum) * desc->natts);
	g->row.nulls = palloc(sizeof(bool) * desc->natts);
}

/* Deform the grouped row of roster "id" into g->row; false when it has none. */
static bool
grouped_find(Grouped *g, int64 id)
{
	uint64		lo = 0;
	uint64		hi = g->n;

	while (lo < hi)
	{
		uint64		mid = lo + (hi - lo) / 2;

		if (g->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == g->n || g->ids[lo] != id)
		return false;
	heap_deform_tuple(g->rows->vals[lo], g->rows->tupdesc, g->row.values, g->row.nulls);
	return true;
}

/* How read_rosters reads, beyond the rows (all optional). */
typedef struct ReadHow
{
	Grouped    *grouped;		/* the players' columns of each roster */
	MmRosterSet *base;			/* intern as base's rosters were (its reader,
								 * professions), adding to them */
	int64	   *position;		/* out: per roster kept, column "position" */
	TimestampTz *joined;		/* out: per roster kept, joined_at (a queue's: never null) */
	bool		unknown;		/* out (base): a region base's rosters do not have */
	MmRosterIds *ids;			/* batches whose ids agree (mm_read_rosters_ids) */
} ReadHow;

static void read_rosters(TimestampTz at, bool counts, MmMatcherConfig *cfg, MmRosterSet *out,
						 ReadHow *how);

/*
 * Build the roster array from the rows of an executed SPI query (in
 * SPI_tuptable). With "counts", players is the number of players (the
 * queue tables, where keys keep players unique), and a roster without
 * players (a row with 0) is not waiting for anything and is left out;
 * otherwise it is the players' ids, checked for duplicates.
 */
void
mm_read_rosters(TimestampTz at, bool counts, MmMatcherConfig *cfg, MmRosterSet *out)
{
	ReadHow		how = {0};

	read_rosters(at, counts, cfg, out, &how);
}

/*
 * The same for rosters read in batches whose ids must agree (queue.h):
 * players is the number of players, and the professions, attribute values
 * and regions are interned in "ids", across the batches.
 */
void
mm_read_rosters_ids(TimestampTz at, MmMatcherConfig *cfg, MmRosterSet *out, MmRosterIds *ids)
{
	ReadHow		how = {0};

	how.ids = ids;
	read_rosters(at, true, cfg, out, &how);
}

/*
 * The same from a queue's rosters (SPI_tuptable: the roster columns, no
 * players, professions or roles) and its players grouped by roster
 * ("players", "nplayers" rows: roster_id, players, professions, roles, in
 * roster id order, as an earlier statement under the same snapshot
 * returned them). A roster without a grouped row has no players and is
 * left out; grouped rows without a roster (rosters in a match) are not
 * read.
 */
void
mm_read_rosters_grouped(TimestampTz at, MmMatcherConfig *cfg, MmRosterSet *out,
						SPITupleTable *players, uint64 nplayers)
{
	Grouped		g;
	ReadHow		how = {0};

	grouped_init(&g, players, nplayers);
	how.grouped = &g;
	read_rosters(at, true, cfg, out, &how);
}

void
mm_read_rosters_kept(TimestampTz at, MmMatcherConfig *cfg, MmRosterSet *out,
					 SPITupleTable *players, uint64 nplayers, int64 *position, TimestampTz *joined)
{
	Grouped		g;
	ReadHow		how = {0};

	how.position = position;
	how.joined = joined;
	if (players != NULL)
	{
		grouped_init(&g, players, nplayers);
		how.grouped = &g;
	}
	read_rosters(at, true, cfg, out, &how);
}

bool
mm_read_rosters_more(TimestampTz at, MmMatcherConfig *cfg, MmRosterSet *base, MmRosterSet *out,
					 int64 *position, TimestampTz *joined)
{
	ReadHow		how = {0};

	how.base = base;
	how.position = position;
	how.joined = joined;
	read_rosters(at, true, cfg, out, &how);
	return !how.unknown;
}

static void
read_rosters(TimestampTz at, bool counts, MmMatcherConfig *cfg, MmRosterSet *out,
			 ReadHow *how)
{
	Grouped    *grouped = how->grouped;
	MmRosterIds *ids = how->ids;
	Oid			jsonb_types[] = {JSONBOID};
	Oid			position_types[] = {INT8OID};
	MmRuleReader rd = {0};
	Oid			id_types[] = {INT8OID, INT4OID};
	Oid			players_types[] = {INT8ARRAYOID, INT4ARRAYOID};
	Oid			text_array[] = {TEXTARRAYOID};
	Oid			ts_types[] = {TIMESTAMPTZOID};
	Columns		c;
	TupleDesc	desc = SPI_tuptable->tupdesc;
	MmRoster   *r;
	Professions prof = {0, 0, NULL};
	uint64		n = SPI_processed;
	PlayerOf   *players = NULL;
	int			nplayers = 0;
	int			cap = 64;
	int			kept = 0;
	int			poscol = 0;
	Row			row;

	if (n > INT_MAX / 4)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many rosters"),
				 errdetail("The query returned %llu rows.", (unsigned long long) n)));
	c.roster_id = column(desc, "roster_id", true, id_types, 2);
	if (grouped)
		c.players = 0;
	else if (counts)
		c.players = column(desc, "players", true, number_types, 6);
	else
		c.players = column(desc, "players", true, players_types, 2);
	c.rating = column(desc, "rating", true, number_types, 6);
	c.deviation = column(desc, "deviation", false, number_types, 6);
	c.rank = column(desc, "rank", false, number_types, 6);
	c.ladder = column(desc, "ladder_points", false, number_types, 6);
	c.dishonor = column(desc, "dishonor", false, number_types, 6);
	c.professions = column(desc, "professions", false, text_array, 1);
	c.joined_at = column(desc, "joined_at", false, ts_types, 1);
	c.attributes = column(desc, "attributes", false, jsonb_types, 1);
	c.latencies = column(desc, "latencies", false, jsonb_types, 1);
	c.roles = column(desc, "roles", false, text_array, 1);
	if (how->position)
		poscol = column(desc, "position", true, position_types, 1);
	if (ids != NULL)
	{
		/* the ids of the batches read before */
		rd = ids->rd;
		prof.n = ids->nprof;
		prof.cap = ids->prof_cap;
		prof.names = ids->prof_names;
	}
	else if (how->base != NULL)
	{
		/* more rosters of a kept input: its values, regions and professions */
		if (how->base->reader != NULL)
			rd = *how->base->reader;
		prof.n = prof.cap = how->base->nprof;
		prof.names = how->base->prof_names;
	}
	if ((cfg->nattrs > 0 || cfg->latency_rule >= 0) && rd.values == NULL)
	{
		rd.values = mm_intern_create("mm attribute values");
		rd.regions = mm_intern_create("mm regions");
	}

	if (!counts)
		players = palloc(sizeof(PlayerOf) * cap);
	r = palloc0(sizeof(MmRoster) * Max(n, 1));
	row.values = palloc(sizeof(Datum) * desc->natts);
	row.nulls = palloc(sizeof(bool) * desc->natts);
	for (uint64 i = 0; i < n; i++)
	{
		MmRoster   *x = &r[kept];
		bool		isnull;
		Datum		d;
		int64		id;

		/* the players' columns: of the row, or of its grouped row */
		const Row  *prow = &row;
		TupleDesc	pdesc = desc;
		const Columns *pc = &c;

		CHECK_FOR_INTERRUPTS();
		/* every column at once (one by one, each walks the row again) */
		heap_deform_tuple(SPI_tuptable->vals[i], desc, row.values, row.nulls);
		d = row_value(&row, c.roster_id, &isnull);
		if (isnull)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("rosters query column \"roster_id\" must not be null")));
		id = SPI_gettypeid(desc, c.roster_id) == INT8OID ? DatumGetInt64(d) : DatumGetInt32(d);
		if (grouped)
		{
			if (!grouped_find(grouped, id))
				continue;
			prow = &grouped->row;
			pdesc = grouped->rows->tupdesc;
			pc = &grouped->c;
		}
		if (counts && number(prow, pdesc, pc->players, "players", 0) == 0)
			continue;
		if (how->position)
		{
			d = row_value(&row, poscol, &isnull);
			how->position[kept] = isnull ? 0 : DatumGetInt64(d);
		}
		if (how->joined)
		{
			d = c.joined_at ? row_value(&row, c.joined_at, &isnull) : (Datum) 0;
			how->joined[kept] = c.joined_at && !isnull ? DatumGetTimestampTz(d) : 0;
		}
		kept++;
		x->id = id;
		if (counts)
			x->players = (int) number(prow, pdesc, pc->players, "players", 0);
		else
		{
			d = row_value(&row, c.players, &isnull);
			if (isnull)
				ereport(ERROR,
						(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						 errmsg("rosters query column \"players\" must not be null"),
						 errdetail("Roster %lld has no players array.", (long long) x->id)));
			x->players = read_players(DatumGetArrayTypeP(d), x->id, &players, &nplayers, &cap);
		}
		if (x->players <= 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("roster must have at least one player"),
					 errdetail("Roster %lld has an empty players array.", (long long) x->id)));
		x->rating = number(&row, desc, c.rating, "rating", 0);
		x->deviation = number(&row, desc, c.deviation, "deviation", 0);
		if (x->deviation < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("deviation must not be negative"),
					 errdetail("Roster %lld has deviation %g.", (long long) x->id, x->deviation)));
		if (fabs(x->rating) > MM_RATING_MAX || x->deviation > MM_RATING_MAX)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("rosters query column \"%s\" is out of range",
							fabs(x->rating) > MM_RATING_MAX ? "rating" : "deviation"),
					 errdetail("Roster %lld has rating %g and deviation %g.", (long long) x->id,
							   x->rating, x->deviation),
					 errhint("A roster's rating lies between -1e9 and 1e9, its deviation between 0 and 1e9.")));
		x->rank = number(&row, desc, c.rank, "rank", 0);
		x->ladder = number(&row, desc, c.ladder, "ladder_points", 0);
		x->dishonor = number(&row, desc, c.dishonor, "dishonor", 0);
		/* as a queue's rosters: figures over a match stay finite */
		if (fabs(x->rank) > MM_RATING_MAX || fabs(x->ladder) > MM_RATING_MAX ||
			x->dishonor < 0 || x->dishonor > PG_INT32_MAX)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("rosters query column \"%s\" is out of range",
							fabs(x->rank) > MM_RATING_MAX ? "rank" :
							fabs(x->ladder) > MM_RATING_MAX ? "ladder_points" : "dishonor"),
					 errdetail("Roster %lld has rank %g, ladder_points %g and dishonor %g.", (long long) x->id,
							   x->rank, x->ladder, x->dishonor),
					 errhint("A roster's rank and ladder points lie between -1e9 and 1e9, its dishonor between 0 and 2147483647.")));
		x->age = 0;
		if (c.joined_at)
		{
			d = row_value(&row, c.joined_at, &isnull);
			if (!isnull)
			{
				TimestampTz joined = DatumGetTimestampTz(d);

				if (TIMESTAMP_NOT_FINITE(joined))
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("rosters query column \"joined_at\" must be finite"),
							 errdetail("Roster %lld has joined_at %s.", (long long) x->id,
									   timestamptz_to_str(joined))));
				x->age = Max(0.0, (at - joined) / 1e6);
			}
		}
		if (pc->professions)
		{
			d = row_value(prow, pc->professions, &isnull);
			if (!isnull)
				read_professions(x, DatumGetArrayTypeP(d), &prof);
		}
		x->role_count = NULL;
		if (pc->roles && cfg->nroles > 0)
		{
			d = row_value(prow, pc->roles, &isnull);
			if (!isnull)
				mm_rules_read_roles(cfg, x, DatumGetArrayTypeP(d), !counts);
		}
		if (rd.values != NULL)
		{
			Jsonb	   *attrs = NULL;
			Jsonb	   *lat = NULL;

			if (c.attributes && cfg->nattrs > 0)
			{
				d = row_value(&row, c.attributes, &isnull);
				if (!isnull)
					attrs = DatumGetJsonbP(d);
			}
			if (c.latencies && cfg->latency_rule >= 0)
			{
				d = row_value(&row, c.latencies, &isnull);
				if (!isnull)
					lat = DatumGetJsonbP(d);
			}
			if (how->base != NULL)
				mm_rules_read_known(cfg, x, attrs, lat, &rd, &how->unknown);
			else
				mm_rules_read_roster(cfg, x, attrs, lat, !counts, &rd);
		}
	}
	if (how->base != NULL)
	{
		/* what was interned goes back to the kept input */
		if (how->base->reader != NULL)
			*how->base->reader = rd;
		how->base->nprof = prof.n;
		how->base->prof_names = prof.names;
		out->region_names = how->base->region_names;
		out->reader = how->base->reader;
		out->r = r;
		out->n = kept;
		out->nprof = prof.n;
		out->prof_names = prof.names;
		return;
	}
	if (rd.values != NULL)
		mm_rules_read_finish(r, kept, &rd);
	cfg->nregions = rd.nregions;
	out->region_names = rd.region_names;
	out->reader = NULL;
	if (rd.values != NULL)
	{
		out->reader = palloc(sizeof(MmRuleReader));
		*out->reader = rd;
	}
	if (!counts)
		check_unique(r, kept, players, nplayers);
	if (ids != NULL)
	{
		ids->rd = rd;
		ids->nprof = prof.n;
		ids->prof_cap = prof.cap;
		ids->prof_names = prof.names;
	}
	out->r = r;
	out->n = kept;
	out->nprof = prof.n;
	out->prof_names = prof.names;
}

/* Lookups of roster ids */

static int
cmp_roster_index(const void *a, const void *b)
{
	return mm_cmp_int64(&((const MmRosterIndex *) a)->id, &((const MmRosterIndex *) b)->id);
}

MmRosterIndex *
mm_roster_lookup(const MmRosterSet *set, const int *which, int n, int *nout)
{
	MmRosterIndex *lookup;

	if (which == NULL)
		n = set->n;
	lookup = palloc(sizeof(MmRosterIndex) * Max(n, 1));
	for (int k = 0; k < n; k++)
	{
		int			i = which ? which[k] : k;

		lookup[k].id = set->r[i].id;
		lookup[k].index = i;
	}
	qsort(lookup, n, sizeof(MmRosterIndex), cmp_roster_index);
	*nout = n;
	return lookup;
}

int
mm_roster_find(const MmRosterIndex *lookup, int n, int64 id)
{
	MmRosterIndex key = {id, 0};
	MmRosterIndex *hit = bsearch(&key, lookup, n, sizeof(MmRosterIndex), cmp_roster_index);

	return hit ? hit->index : -1;
}
