/*-------------------------------------------------------------------------
 *
 * queue.c
 *		SQL side of the GW2 roster matcher (seed 003): read rosters from any
 *		query through SPI, run the matcher of matcher.c over them, return
 *		the matches as rows. mm.tick and mm.preview (sql/parts/40_matcher.sql)
 *		call the internal entry point over the queue tables.
 *
 * The query's columns are found by name: roster_id and players (an array
 * of player ids) and rating are required; deviation, rank, ladder_points,
 * dishonor, professions (text[]) and joined_at are optional. Rows are the
 * queue in the order the query returns them.
 *
 *-------------------------------------------------------------------------
 */
#include "matcher.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "storage/latch.h"
#include "utils/memutils.h"
#include "utils/wait_event.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"

/* Parse and check a queue configuration (NULL: defaults). */
static void
matcher_config(Jsonb *config, MmMatcherConfig *cfg)
{
	mm_matcher_defaults(cfg);
	mm_config_parse(config, "queue config", mm_matcher_keys(cfg));
	mm_matcher_check(cfg);
}

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
							 "deviation, rank, ladder_points, dishonor, professions text[] and joined_at timestamptz are optional.")));
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

/* A numeric column's value as a double; "dflt" when the column is absent. */
static double
number(HeapTuple tup, TupleDesc desc, int col, const char *name, double dflt)
{
	bool		isnull;
	Datum		d;
	double		v = 0;

	if (col == 0)
		return dflt;
	d = SPI_getbinval(tup, desc, col, &isnull);
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

/* Run the rosters query and build the roster array. */
static MmRoster *
read_rosters(const char *query, TimestampTz at, int *nrosters, int *nprof)
{
	Oid			id_types[] = {INT8OID, INT4OID};
	Oid			players_types[] = {INT8ARRAYOID, INT4ARRAYOID};
	Oid			text_array[] = {TEXTARRAYOID};
	Oid			ts_types[] = {TIMESTAMPTZOID};
	Columns		c;
	TupleDesc	desc;
	MmRoster   *r;
	Professions prof = {0, 0, NULL};
	int			ret;
	uint64		n;
	SPIPlanPtr	plan;

	plan = mm_prepare_rows_query(query, "rosters",
								 "Pass a SELECT (or VALUES) that returns one row per roster, in queue order.");
	ret = SPI_execute_plan(plan, NULL, NULL, false, 0);
	if (ret != SPI_OK_SELECT || SPI_tuptable == NULL)
		elog(ERROR, "SPI_execute_plan failed: %s", SPI_result_code_string(ret));
	desc = SPI_tuptable->tupdesc;
	n = SPI_processed;
	if (n > INT_MAX / 4)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many rosters"),
				 errdetail("The query returned %llu rows.", (unsigned long long) n)));
	c.roster_id = column(desc, "roster_id", true, id_types, 2);
	c.players = column(desc, "players", true, players_types, 2);
	c.rating = column(desc, "rating", true, number_types, 6);
	c.deviation = column(desc, "deviation", false, number_types, 6);
	c.rank = column(desc, "rank", false, number_types, 6);
	c.ladder = column(desc, "ladder_points", false, number_types, 6);
	c.dishonor = column(desc, "dishonor", false, number_types, 6);
	c.professions = column(desc, "professions", false, text_array, 1);
	c.joined_at = column(desc, "joined_at", false, ts_types, 1);

	r = palloc0(sizeof(MmRoster) * Max(n, 1));
	for (uint64 i = 0; i < n; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		MmRoster   *x = &r[i];
		bool		isnull;
		Datum		d;
		ArrayType  *arr;

		CHECK_FOR_INTERRUPTS();
		d = SPI_getbinval(tup, desc, c.roster_id, &isnull);
		if (isnull)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("rosters query column \"roster_id\" must not be null")));
		x->id = SPI_gettypeid(desc, c.roster_id) == INT8OID ? DatumGetInt64(d) : DatumGetInt32(d);
		d = SPI_getbinval(tup, desc, c.players, &isnull);
		if (isnull)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("rosters query column \"players\" must not be null"),
					 errdetail("Roster %lld has no players array.", (long long) x->id)));
		arr = DatumGetArrayTypeP(d);
		x->players = ArrayGetNItems(ARR_NDIM(arr), ARR_DIMS(arr));
		if (x->players == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("roster must have at least one player"),
					 errdetail("Roster %lld has an empty players array.", (long long) x->id)));
		x->rating = number(tup, desc, c.rating, "rating", 0);
		x->deviation = number(tup, desc, c.deviation, "deviation", 0);
		if (x->deviation < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("deviation must not be negative"),
					 errdetail("Roster %lld has deviation %g.", (long long) x->id, x->deviation)));
		x->rank = number(tup, desc, c.rank, "rank", 0);
		x->ladder = number(tup, desc, c.ladder, "ladder_points", 0);
		x->dishonor = number(tup, desc, c.dishonor, "dishonor", 0);
		x->age = 0;
		if (c.joined_at)
		{
			d = SPI_getbinval(tup, desc, c.joined_at, &isnull);
			if (!isnull)
				x->age = Max(0.0, (at - DatumGetTimestampTz(d)) / 1e6);
		}
		if (c.professions)
		{
			d = SPI_getbinval(tup, desc, c.professions, &isnull);
			if (!isnull)
				read_professions(x, DatumGetArrayTypeP(d), &prof);
		}
	}
	*nrosters = (int) n;
	*nprof = prof.n;
	return r;
}

/* Put one result row. */
static void
put_row(Tuplestorestate *ts, TupleDesc desc, int match_no, int64 roster_id,
		const char *team, double prediction, double odds, double spread,
		bool with_prediction)
{
	Datum		values[6];
	bool		nulls[6] = {false, false, false, false, false, false};

	values[0] = Int32GetDatum(match_no);
	values[1] = Int64GetDatum(roster_id);
	values[2] = CStringGetTextDatum(team);
	values[3] = Float8GetDatum(prediction);
	values[4] = Float8GetDatum(odds);
	values[5] = Float8GetDatum(spread);
	if (!with_prediction)
		nulls[1] = nulls[3] = nulls[4] = true;
	tuplestore_putvalues(ts, desc, values, nulls);
}

/*
 * Run the matcher over a query's rows. With "internal", also return each
 * failed target (team 'failed', match_no its order of failure) and a last
 * row (team 'seen', match_no the rosters read, rating_spread the oldest
 * wait in seconds), for mm.tick.
 */
static Datum
match_rosters(FunctionCallInfo fcinfo, bool internal)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *query = text_to_cstring(PG_GETARG_TEXT_PP(0));
	Jsonb	   *config = PG_GETARG_JSONB_P(1);
	TimestampTz at = PG_GETARG_TIMESTAMPTZ(2);
	MmMatcherConfig cfg;
	MmMatcherResult res;
	MmRoster   *r;
	int			n;
	int			nprof;
	double		oldest = 0;

	if (TIMESTAMP_NOT_FINITE(at))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("at must be finite")));
	matcher_config(config, &cfg);
	if (internal && PG_NARGS() > 3)
		cfg.naive_search = PG_GETARG_BOOL(3);
	InitMaterializedSRF(fcinfo, 0);

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	{
		/* everything below lives in SPI's context until SPI_finish */
		r = read_rosters(query, at, &n, &nprof);
		mm_matcher_run(r, n, nprof, &cfg, &res);
		for (int i = 0; i < n; i++)
			oldest = Max(oldest, r[i].age);

		for (int m = 0; m < res.nmatches; m++)
		{
			MmMatch    *mt = &res.matches[m];
			MmTeamSummary red,
						blue;
			double		prediction;

			red.avg_rank = mt->avg_rank[0];
			red.avg_rating_low = mt->avg_rating_low[0];
			red.max_roster_size = mt->max_roster_size[0];
			blue.avg_rank = mt->avg_rank[1];
			blue.avg_rating_low = mt->avg_rating_low[1];
			blue.max_roster_size = mt->max_roster_size[1];
			prediction = mm_predict(&red, &blue, &cfg.prediction);
			for (int k = 0; k < mt->nmembers; k++)
			{
				MmRoster   *x = &r[mt->members[k]];

				put_row(rsinfo->setResult, rsinfo->setDesc, m + 1, x->id,
						x->team == 0 ? "red" : "blue", prediction,
						mm_odds_of_victory(prediction, x->team == 0),
						mt->rating_spread, true);
			}
		}
		if (internal)
		{
			for (int i = 0; i < n; i++)
				if (r[i].state == MM_ROSTER_FAILED)
					put_row(rsinfo->setResult, rsinfo->setDesc,
							r[i].fail_order + 1, r[i].id, "failed", 0, 0, 0, true);
			put_row(rsinfo->setResult, rsinfo->setDesc, n, 0, "seen", 0, 0,
					oldest, false);
		}
	}
	SPI_finish();
	return (Datum) 0;
}

/* Render a queue configuration with every default filled in. */
static char *
config_text(const MmMatcherConfig *c)
{
	StringInfoData b;
	const MmPredictionMetric *pm[3] = {&c->prediction.rank, &c->prediction.rating,
	&c->prediction.roster};
	const char *pn[3] = {"rank", "rating", "roster"};

	initStringInfo(&b);
	appendStringInfo(&b, "{\"team_size\": %d, \"filter\": {\"rosters\": %d, \"limit\": %.17g, "
					 "\"potentials_min\": %d, \"potentials_max\": %d, \"padding\": %.17g, "
					 "\"padding_start\": %.17g, \"padding_end\": %.17g}, ",
					 c->team_size, c->rosters, c->limit_ms, c->potentials_min,
					 c->potentials_max, c->padding, c->padding_start, c->padding_end);
	appendStringInfo(&b, "\"scoring\": {\"type\": \"%s\", \"age\": %.17g, "
					 "\"roster_size_distance\": %.17g, \"perfect_fit\": %.17g, "
					 "\"rank_distance\": %.17g, \"rating_distance\": %.17g, "
					 "\"ladder_distance\": %.17g, \"profession_max\": %d, "
					 "\"profession_common\": %.17g, \"profession_unique\": %.17g, "
					 "\"dishonor_distance\": %.17g, \"dishonor_stack\": %.17g}, ",
					 c->per_match ? "match" : "team", c->age, c->roster_size_distance,
					 c->perfect_fit, c->rank_distance, c->rating_distance,
					 c->ladder_distance, c->profession_max, c->profession_common,
					 c->profession_unique, c->dishonor_distance, c->dishonor_stack);
	appendStringInfoString(&b, "\"prediction\": {");
	for (int i = 0; i < 3; i++)
		appendStringInfo(&b, "%s\"%s\": {\"method\": \"spread\", \"spread\": %.17g, "
						 "\"weight\": %.17g, \"enabled\": %s}",
						 i ? ", " : "", pn[i], pm[i]->spread, pm[i]->weight,
						 pm[i]->enabled ? "true" : "false");
	appendStringInfoString(&b, "}}");
	return b.data;
}

/* SQL wrappers */

PG_FUNCTION_INFO_V1(mm_match_rosters);
PG_FUNCTION_INFO_V1(mm_match_rosters_internal);
PG_FUNCTION_INFO_V1(mm_matcher_config);
PG_FUNCTION_INFO_V1(mm_matcher_padding_sql);

/* mm.match_rosters(rosters text, config jsonb, at timestamptz) */
Datum
mm_match_rosters(PG_FUNCTION_ARGS)
{
	return match_rosters(fcinfo, false);
}

/* mm._match_rosters(rosters text, config jsonb, at timestamptz, naive bool) */
Datum
mm_match_rosters_internal(PG_FUNCTION_ARGS)
{
	return match_rosters(fcinfo, true);
}

/* mm.matcher_config(config jsonb) → the full config with defaults */
Datum
mm_matcher_config(PG_FUNCTION_ARGS)
{
	MmMatcherConfig cfg;

	matcher_config(PG_GETARG_JSONB_P(0), &cfg);
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(config_text(&cfg))));
}

/* mm.matcher_padding(config jsonb, waited float8) → padding in rating points */
Datum
mm_matcher_padding_sql(PG_FUNCTION_ARGS)
{
	MmMatcherConfig cfg;
	double		waited = PG_GETARG_FLOAT8(1);

	matcher_config(PG_GETARG_JSONB_P(0), &cfg);
	mm_check_nonnegative(waited, "waited");
	PG_RETURN_FLOAT8(mm_matcher_padding(&cfg, waited));
}

PG_FUNCTION_INFO_V1(mm_run_ticks);

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

/*
 * CALL mm.run_ticks(queue text, every interval, span interval): tick the
 * queue (every queue when NULL) every "every" for "span", committing after
 * each tick. pg_cron fires at most once a minute; this runs the ticks in
 * between.
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
	Oid			argtypes[1] = {TEXTOID};

	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("every and span must not be null")));
	every = interval_ms(PG_GETARG_INTERVAL_P(1), "every");
	span = interval_ms(PG_GETARG_INTERVAL_P(2), "span");
	if (every <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("every must be positive"),
				 errhint("Give the time between ticks, such as '5 seconds'.")));
	nonatomic = fcinfo->context && IsA(fcinfo->context, CallContext) &&
		!castNode(CallContext, fcinfo->context)->atomic;
	if (!nonatomic)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_TERMINATION),
				 errmsg("mm.run_ticks must be called outside a transaction block"),
				 errhint("CALL it on its own (as pg_cron does), not inside BEGIN ... COMMIT or a function.")));

	if (SPI_connect_ext(SPI_OPT_NONATOMIC) != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (queue != NULL)
	{
		Datum		arg = CStringGetTextDatum(queue);

		if (SPI_execute_with_args("SELECT 1 FROM mm.queue WHERE name OPERATOR(pg_catalog.=) $1",
								  1, argtypes, &arg, NULL, true, 1) != SPI_OK_SELECT)
			elog(ERROR, "SPI_execute failed");
		if (SPI_processed == 0)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_OBJECT),
					 errmsg("queue \"%s\" does not exist", queue),
					 errhint("Create it with mm.create_queue.")));
	}
	for (int i = 0;; i++)
	{
		Datum		arg;
		char		nulls[1] = {queue ? ' ' : 'n'};
		double		next;
		double		elapsed;

		CHECK_FOR_INTERRUPTS();
		arg = queue ? CStringGetTextDatum(queue) : (Datum) 0;
		/* qualified throughout: this runs under the caller's search_path */
		if (SPI_execute_with_args("SELECT pg_catalog.count(*) FROM mm.queue q, "
								  "LATERAL mm.tick(q.name) t "
								  "WHERE $1 IS NULL OR q.name OPERATOR(pg_catalog.=) $1",
								  1, argtypes, &arg, nulls, false, 0) != SPI_OK_SELECT)
			elog(ERROR, "SPI_execute failed");
		SPI_commit();
		next = (i + 1) * every;
		if (next >= span)
			break;
		elapsed = (GetCurrentTimestamp() - start) / 1000.0;
		if (next > elapsed)
		{
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
							 (long) (next - elapsed), PG_WAIT_EXTENSION);
			ResetLatch(MyLatch);
		}
	}
	SPI_finish();
	if (queue)
		pfree(queue);
	PG_RETURN_VOID();
}
