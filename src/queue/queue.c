/*-------------------------------------------------------------------------
 *
 * queue.c
 *		SQL side of the GW2 roster matcher: read rosters from any query
 *		through SPI, run the matcher of matcher.c over them, return the
 *		matches as rows (mm.match_rosters). tick.c reads the queue tables
 *		with the same reader. Also what the tick (tick.c) and the backfill
 *		(backfill.c) share over the queue tables: looking rosters up by id,
 *		locking the rosters they move, and notifying the queue's channel.
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
#include "matcher.h"
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


PG_FUNCTION_INFO_V1(mm_check_attributes);

/*
 * mm._check_attributes(config jsonb, attributes jsonb, latencies jsonb) ->
 * jsonb: the attributes checked against those the config declares, with
 * the defaults filled in (mm.enqueue stores them so).
 */
Datum
mm_check_attributes(PG_FUNCTION_ARGS)
{
	MmMatcherConfig cfg;

	if (PG_ARGISNULL(0))
		mm_null_arg("config");
	if (PG_ARGISNULL(1))
		mm_null_arg("attributes");
	if (PG_ARGISNULL(2))
		mm_null_arg("latencies");
	mm_queue_config(PG_GETARG_JSONB_P(0), &cfg);
	PG_RETURN_JSONB_P(mm_rules_check_attributes(&cfg, PG_GETARG_JSONB_P(1), PG_GETARG_JSONB_P(2)));
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
 * Build the roster array from the rows of an executed SPI query (in
 * SPI_tuptable). With "counts", players is the number of players (the
 * queue tables, where keys keep players unique), and a roster without
 * players (a row with 0) is not waiting for anything and is left out;
 * otherwise it is the players' ids, checked for duplicates.
 */
void
mm_read_rosters(TimestampTz at, bool counts, MmMatcherConfig *cfg, MmRosterSet *out)
{
	Oid			jsonb_types[] = {JSONBOID};
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
	Row			row;

	if (n > INT_MAX / 4)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many rosters"),
				 errdetail("The query returned %llu rows.", (unsigned long long) n)));
	c.roster_id = column(desc, "roster_id", true, id_types, 2);
	if (counts)
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
	if (cfg->nattrs > 0 || cfg->latency_rule >= 0)
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

		CHECK_FOR_INTERRUPTS();
		/* every column at once (one by one, each walks the row again) */
		heap_deform_tuple(SPI_tuptable->vals[i], desc, row.values, row.nulls);
		if (counts && number(&row, desc, c.players, "players", 0) == 0)
			continue;
		kept++;
		d = row_value(&row, c.roster_id, &isnull);
		if (isnull)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("rosters query column \"roster_id\" must not be null")));
		x->id = SPI_gettypeid(desc, c.roster_id) == INT8OID ? DatumGetInt64(d) : DatumGetInt32(d);
		if (counts)
			x->players = (int) number(&row, desc, c.players, "players", 0);
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
		if (c.professions)
		{
			d = row_value(&row, c.professions, &isnull);
			if (!isnull)
				read_professions(x, DatumGetArrayTypeP(d), &prof);
		}
		x->role_count = NULL;
		if (c.roles && cfg->nroles > 0)
		{
			d = row_value(&row, c.roles, &isnull);
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
			mm_rules_read_roster(cfg, x, attrs, lat, !counts, &rd);
		}
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
	out->reader = NULL;
	if (rd.values != NULL)
	{
		out->reader = palloc(sizeof(MmRuleReader));
		*out->reader = rd;
	}
	if (!counts)
		check_unique(r, kept, players, nplayers);
	out->r = r;
	out->n = kept;
	out->nprof = prof.n;
	out->prof_names = prof.names;
}

/* Run a user's rosters query (a single plain SELECT) and read its rows. */
static void
read_query(const char *query, TimestampTz at, MmMatcherConfig *cfg, MmRosterSet *set)
{
	mm_run_rows_query(mm_prepare_rows_query(query, "rosters",
											"Pass a SELECT (or VALUES) that returns one row per roster, in queue order."),
					  NULL);
	mm_read_rosters(at, false, cfg, set);
}

/* Put one match_rosters row. */
static void
put_row(ReturnSetInfo *rsinfo, int match_no, int64 roster_id, const char *team,
		double prediction, double odds, double spread, const char *region)
{
	Datum		values[7];
	bool		nulls[7] = {false, false, false, false, false, false, false};

	/* 0.1.0's entry point (mm_match_rosters_internal) has no region column */
	values[6] = region ? CStringGetTextDatum(region) : (Datum) 0;
	nulls[6] = region == NULL;
	values[0] = Int32GetDatum(match_no);
	values[1] = Int64GetDatum(roster_id);
	values[2] = CStringGetTextDatum(team);
	values[3] = Float8GetDatum(prediction);
	values[4] = Float8GetDatum(odds);
	values[5] = Float8GetDatum(spread);
	Assert(rsinfo->setDesc->natts == 6 || rsinfo->setDesc->natts == 7);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * The prediction of a match made by the matcher: GW2's, red against blue,
 * in [-1, 1] (-1: red dominates). With more teams, that of the most
 * lopsided pairing (mm_predict_match): over the pairs of teams i < j in
 * team order (i as red), the prediction of largest magnitude, the first
 * such pair on a tie; so -1 says that some team dominates a later one, and
 * 0 that every pairing is even.
 */
StaticAssertDecl(MM_TEAMS <= MM_PREDICTION_TEAMS, "a queue's teams are a match's teams");

double
mm_matcher_prediction(const MmMatch *mt, const MmMatcherConfig *cfg)
{
	MmTeamSummary teams[MM_TEAMS];

	for (int t = 0; t < cfg->nteams; t++)
	{
		teams[t].avg_rank = mt->avg_rank[t];
		teams[t].avg_rating_low = mt->avg_rating_low[t];
		teams[t].max_roster_size = mt->max_roster_size[t];
	}
	return mm_predict_match(teams, cfg->nteams, &cfg->prediction, NULL);
}

/*
 * The odds of a match made by the matcher, each team's probability of
 * winning under the queue's rating model from its rosters' figures
 * (rating_model.h's MmRatingScale.odds, red against blue): at two teams
 * red's is the family's odds and blue's one minus it. With k teams, team
 * i's is the mean over its pairings of its odds against the other team,
 * times 2 / k: odds_i = 2 / (k (k - 1)) sum over j != i of P(i beats j),
 * the pairwise form the families' predict uses for k teams; the odds add
 * up to one.
 */
void
mm_matcher_odds(const MmMatch *mt, const MmRoster *rosters, const MmMatcherConfig *cfg,
				double *odds)
{
	const MmRatingModel *model = mm_rating_model_find(cfg->rating.model);
	const void *params;
	int			n = mt->nmembers;
	int			k = cfg->nteams;
	int		   *team = palloc(sizeof(int) * 2 * n);
	int		   *players = team + n;
	double	   *rating = palloc(sizeof(double) * 2 * n);
	double	   *deviation = rating + n;

	Assert(model != NULL);
	params = model->queue_params(cfg->rating.options);
	if (k == 2)
	{
		for (int x = 0; x < n; x++)
		{
			const MmRoster *r = &rosters[mt->members[x]];

			team[x] = r->team;
			players[x] = r->players;
			rating[x] = r->rating;
			deviation[x] = r->deviation;
		}
		odds[0] = model->scale.odds(params, n, team, players, rating, deviation);
		odds[1] = 1.0 - odds[0];
	}
	else
	{
		for (int t = 0; t < k; t++)
			odds[t] = 0;
		for (int i = 0; i < k; i++)
			for (int j = i + 1; j < k; j++)
			{
				int			m = 0;
				double		e;

				/* the rosters of teams i (as red, 0) and j (as blue, 1) */
				for (int x = 0; x < n; x++)
				{
					const MmRoster *r = &rosters[mt->members[x]];

					if (r->team != i && r->team != j)
						continue;
					team[m] = r->team == i ? 0 : 1;
					players[m] = r->players;
					rating[m] = r->rating;
					deviation[m] = r->deviation;
					m++;
				}
				e = model->scale.odds(params, m, team, players, rating, deviation);
				odds[i] += e;
				odds[j] += 1.0 - e;
			}
		for (int t = 0; t < k; t++)
			odds[t] /= k * (k - 1) / 2.0;
	}
	pfree(team);
	pfree(rating);
	pfree((void *) params);
}

/* Check "at" and the config, start a materialized SRF and SPI. */
static void
match_start(FunctionCallInfo fcinfo, MmMatcherConfig *cfg, TimestampTz *at)
{
	*at = PG_GETARG_TIMESTAMPTZ(2);
	if (TIMESTAMP_NOT_FINITE(*at))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("at must be finite")));
	mm_queue_config(PG_GETARG_JSONB_P(1), cfg);
	InitMaterializedSRF(fcinfo, 0);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
}

/* One row per roster of every match made, in match order. */
static void
put_matches(ReturnSetInfo *rsinfo, const MmRosterSet *set, const MmMatcherResult *res,
			const MmMatcherConfig *cfg, bool gw2_odds)
{
	for (int m = 0; m < res->nmatches; m++)
	{
		MmMatch    *mt = &res->matches[m];
		double		prediction = mm_matcher_prediction(mt, cfg);
		double	   *odds = palloc(sizeof(double) * cfg->nteams);

		/* 0.1.0's odds (two teams): GW2's odds of victory from the prediction */
		if (gw2_odds && cfg->nteams == 2)
		{
			odds[0] = mm_odds_of_victory(prediction, true);
			odds[1] = 1.0 - odds[0];
		}
		else
			mm_matcher_odds(mt, set->r, cfg, odds);
		for (int k = 0; k < mt->nmembers; k++)
		{
			MmRoster   *x = &set->r[mt->members[k]];

			put_row(rsinfo, m + 1, x->id, cfg->team_names[x->team], prediction,
					odds[x->team], mt->rating_spread,
					mt->region >= 0 ? set->region_names[mt->region] : NULL);
		}
	}
}

/*
 * Read the rosters of the query (argument 0) and run the matcher over them;
 * naive (if given) chooses the matcher's search.
 */
static void
match_query(FunctionCallInfo fcinfo, const bool *naive, MmMatcherConfig *cfg,
			MmRosterSet *set, MmMatcherResult *res)
{
	char	   *query = text_to_cstring(PG_GETARG_TEXT_PP(0));
	TimestampTz at;

	match_start(fcinfo, cfg, &at);
	if (naive)
		cfg->naive_search = *naive;
	read_query(query, at, cfg, set);
	mm_matcher_run(set->r, set->n, set->nprof, cfg, res);
}

/* mm.match_rosters: the matches made over a query's rows. */
static Datum
match_rosters(FunctionCallInfo fcinfo)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MmMatcherConfig cfg;
	MmMatcherResult res;
	MmRosterSet set;

	match_query(fcinfo, NULL, &cfg, &set, &res);
	put_matches(rsinfo, &set, &res, &cfg, false);
	SPI_finish();
	return (Datum) 0;
}

/*
 * mm._match_rosters: one row per matched roster and per failed target, in
 * the matcher's terms (for the tests that compare it with the port).
 */
static Datum
match_outcomes(FunctionCallInfo fcinfo)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MmMatcherConfig cfg;
	MmMatcherResult res;
	MmRosterSet set;
	bool		naive = PG_GETARG_BOOL(3);

	match_query(fcinfo, &naive, &cfg, &set, &res);
	for (int i = 0; i < set.n; i++)
	{
		MmRoster   *x = &set.r[i];
		Datum		values[6];
		bool		nulls[6] = {false, false, false, false, false, false};

		if (x->state == MM_ROSTER_WAITING)
			continue;
		values[0] = Int64GetDatum(x->id);
		values[1] = CStringGetTextDatum(x->state == MM_ROSTER_MATCHED ? "matched" : "failed");
		values[2] = Int32GetDatum(x->match + 1);
		values[3] = CStringGetTextDatum(cfg.team_names[x->team]);
		values[4] = Int32GetDatum(x->fail_order + 1);
		values[5] = CStringGetTextDatum(x->fail_reason == MM_FAIL_RULE
										? psprintf("rule:%s", cfg.rules[x->fail_rule].name)
										: mm_fail_reason_names[x->fail_reason]);
		if (x->state == MM_ROSTER_MATCHED)
			nulls[4] = nulls[5] = true;
		else
			nulls[2] = nulls[3] = true;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	SPI_finish();
	return (Datum) 0;
}

/* SQL wrappers */

PG_FUNCTION_INFO_V1(mm_match_rosters);
PG_FUNCTION_INFO_V1(mm_match_rosters_outcomes);
PG_FUNCTION_INFO_V1(mm_matcher_config);
PG_FUNCTION_INFO_V1(mm_matcher_padding_sql);

/* mm.match_rosters(rosters text, config jsonb, at timestamptz) */
Datum
mm_match_rosters(PG_FUNCTION_ARGS)
{
	mm_args_not_null(fcinfo, 0);
	return match_rosters(fcinfo);
}

/* mm._match_rosters(rosters text, config jsonb, at timestamptz, naive bool) */
Datum
mm_match_rosters_outcomes(PG_FUNCTION_ARGS)
{
	return match_outcomes(fcinfo);
}

PG_FUNCTION_INFO_V1(mm_match_rosters_internal);

/*
 * The internal entry point of 0.1.0's mm.tick, kept so that a 0.1.0
 * database works with this library until ALTER EXTENSION mm UPDATE: the
 * matches, then each failed target (team 'failed', match_no its order of
 * failure), then a last row (team 'seen': match_no the rosters read,
 * rating_spread the oldest wait in seconds). Its query is mm's own (it
 * claims rows with FOR UPDATE SKIP LOCKED), so it is not held to the
 * single plain SELECT rule.
 */
Datum
mm_match_rosters_internal(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *query = text_to_cstring(PG_GETARG_TEXT_PP(0));
	MmMatcherConfig cfg;
	MmMatcherResult res;
	MmRosterSet set;
	TimestampTz at;
	double		oldest = 0;

	match_start(fcinfo, &cfg, &at);
	cfg.naive_search = PG_GETARG_BOOL(3);
	/* 0.1.0's matcher: the GW2 wiki's figures, on the Glicko scale */
	if (cfg.filter.padding_null)
		cfg.filter.padding = mm_glicko2_model.scale.padding;
	if (cfg.filter.deviations_null)
		cfg.filter.deviations = 1;
	if (cfg.filter.potentials_min_null)
		cfg.filter.potentials_min = Min(20, cfg.filter.potentials_max);
	if (cfg.scoring.rating_distance_null)
		cfg.scoring.rating_distance = mm_glicko2_model.scale.rating_distance;
	if (cfg.prediction.rating.spread_null)
		cfg.prediction.rating.spread = mm_glicko2_model.scale.rating_spread;
	mm_run_own_text(query, false, SPI_OK_SELECT);
	mm_read_rosters(at, false, &cfg, &set);
	mm_matcher_run(set.r, set.n, set.nprof, &cfg, &res);
	put_matches(rsinfo, &set, &res, &cfg, true);
	for (int i = 0; i < set.n; i++)
	{
		oldest = Max(oldest, set.r[i].age);
		if (set.r[i].state == MM_ROSTER_FAILED)
			put_row(rsinfo, set.r[i].fail_order + 1, set.r[i].id, "failed", 0, 0, 0, NULL);
	}
	put_row(rsinfo, set.n, 0, "seen", 0, 0, oldest, NULL);
	SPI_finish();
	return (Datum) 0;
}

/* mm.matcher_config(config jsonb) → the full config with defaults */
Datum
mm_matcher_config(PG_FUNCTION_ARGS)
{
	MmMatcherConfig cfg;

	mm_queue_config(PG_GETARG_JSONB_P(0), &cfg);
	PG_RETURN_JSONB_P(mm_config_jsonb(mm_queue_config_kind.keys, &cfg));
}

/* mm.matcher_padding(config jsonb, waited float8) → padding in rating points */
Datum
mm_matcher_padding_sql(PG_FUNCTION_ARGS)
{
	MmMatcherConfig cfg;
	double		waited = PG_GETARG_FLOAT8(1);

	mm_queue_config(PG_GETARG_JSONB_P(0), &cfg);
	mm_check_nonnegative(waited, "waited");
	PG_RETURN_FLOAT8(mm_matcher_padding(&cfg, waited));
}


/* Lookups of roster ids, and the locks a tick or a backfill takes */

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

enum
{
	L_LOCK,
	L_PLAYERS,
	L_COUNT
};

static MmStatement lock_statements[L_COUNT] = {
	/* the rosters still waiting; those another session holds are skipped */
	[L_LOCK] = {
		"SELECT r.roster_id FROM mm.roster r "
		"WHERE r.queue_id = $queue_id AND r.roster_id = ANY ($roster_ids) AND r.match_id IS NULL FOR UPDATE SKIP LOCKED",
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

static MmStatement notify_statement = {
	.sql = "SELECT pg_catalog.pg_notify($channel, $payload)",
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

	for (int m = 0; m < n; m++)
		if (ids[m] > 0)
			made[nmade++] = ids[m];

	if (nmade == 0)
		return;
	snprintf(channel, sizeof(channel), "mm_queue_%d", queue_id);
	initStringInfo(&head);
	appendStringInfo(&head, "{\"queue_id\": %d", queue_id);
	if (strlen(name) < NOTIFY_PAYLOAD_MAX / 4)
	{
		appendStringInfoString(&head, ", \"queue\": ");
		escape_json(&head, name);
	}
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
		mm_args_begin(&a, &notify_statement);
		mm_arg(&a, "channel", CStringGetTextDatum(channel));
		mm_arg(&a, "payload", CStringGetTextDatum(b.data));
		mm_run(&a, false, SPI_OK_SELECT);
	}
}

PG_FUNCTION_INFO_V1(mm_rating_scales);

/*
 * mm.rating_scales() -> TABLE(model, deviations, padding, rating_distance,
 * rating_spread): per rating model, the values a queue's scale-bound keys
 * take when its config leaves them null.
 */
Datum
mm_rating_scales(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const MmRatingModel *m;

	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; (m = mm_rating_model_at(i)) != NULL; i++)
	{
		Datum		values[5];
		bool		nulls[5] = {false, false, false, false, false};

		values[0] = CStringGetTextDatum(m->name);
		values[1] = Float8GetDatum(m->scale.deviations);
		values[2] = Float8GetDatum(m->scale.padding);
		values[3] = Float8GetDatum(m->scale.rating_distance);
		values[4] = Float8GetDatum(m->scale.rating_spread);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
