/*-------------------------------------------------------------------------
 *
 * queue.c
 *		SQL side of the GW2 roster matcher: mm.match_rosters reads rosters
 *		from any query (roster_read.c), runs the matcher (matcher.c) over
 *		them and returns the matches as rows; and the queue config's and
 *		the rating scales' SQL functions.
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

/* Run a user's rosters query (a single plain SELECT) and read its rows. */
static void
read_query(const char *query, TimestampTz at, MmMatcherConfig *cfg, MmRosterSet *set)
{
	mm_run_rows_query(mm_prepare_rows_query(query, "rosters",
											"Pass a SELECT (or VALUES) that returns one row per roster, in queue order."),
					  NULL);
	mm_read_rosters(at, false, cfg, set);
	mm_roster_limits_columns(cfg, set);
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
			mm_matcher_odds(mt, set->r, cfg, 1.0, odds);
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
		/* a matched roster has no failure, a failed one no team: never read them */
		if (x->state == MM_ROSTER_MATCHED)
		{
			values[2] = Int32GetDatum(x->match + 1);
			values[3] = CStringGetTextDatum(cfg.team_names[x->team]);
			nulls[4] = nulls[5] = true;
		}
		else
		{
			values[4] = Int32GetDatum(x->fail_order + 1);
			values[5] = CStringGetTextDatum(x->fail_reason == MM_FAIL_RULE
											? psprintf("rule:%s", cfg.rules[x->fail_rule].name)
											: mm_fail_reason_names[x->fail_reason]);
			nulls[2] = nulls[3] = true;
		}
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
	/* 0.1.0's matcher: the GW2 wiki's teams and figures, on the Glicko scale */
	cfg.split = MM_SPLIT_GW2;
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
