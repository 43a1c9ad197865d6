/*-------------------------------------------------------------------------
 *
 * gw2_prediction.c
 *		GW2 match prediction and odds of victory (the Guild Wars 2 wiki's PvP matchmaking page, "Match
 *		Prediction": calculateSpread, predict, predictionToOddsOfVictory).
 *
 * calculateSpread(red, blue, s) = clamp((blue - red) / s, -1, 1) for each
 * enabled metric (average rank, average effective rating = rating -
 * deviation, largest roster size); the prediction is
 * clamp(sum(spread_m * weight_m) / sum(weight_m), -1, 1), where -1 means
 * red dominates. The GW2 wiki page divides by the total weight unguarded: here a
 * total weight of 0 (every metric off or weightless) predicts 0, an even
 * match. Odds of victory: blue = prediction / 2 + 0.5, red = 1 - blue.
 *
 *-------------------------------------------------------------------------
 */
#include "gw2.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/builtins.h"

/* Largest spread or weight a configuration accepts. */
#define MM_PREDICTION_MAX 1e12

#define METRIC_KEYS(spread_flags, spread_default, spread_doc, weight_default) \
	{.name = "method", .type = MM_CONFIG_TEXT, \
		.offset = offsetof(MmPredictionMetric, method), .def_text = "spread", \
	.doc = "the only method is spread"}, \
	{.name = "spread", .type = MM_CONFIG_FLOAT, \
		.flags = MM_CONFIG_MIN_EXCLUSIVE | (spread_flags), \
		.offset = offsetof(MmPredictionMetric, spread), \
		.null_offset = offsetof(MmPredictionMetric, spread_null), .min = 0, \
		.max = MM_PREDICTION_MAX, .def = (spread_default), \
		.def_null = (spread_flags) != 0, \
	.doc = "difference between the teams that counts as full dominance" spread_doc}, \
	{.name = "weight", .type = MM_CONFIG_FLOAT, \
		.offset = offsetof(MmPredictionMetric, weight), .min = 0, \
		.max = MM_PREDICTION_MAX, .def = (weight_default), \
	.doc = "weight of the metric in the prediction"}, \
	{.name = "enabled", .type = MM_CONFIG_BOOL, \
		.offset = offsetof(MmPredictionMetric, enabled), .def = 1, \
	.doc = "false leaves the metric out"}, \
	{.name = NULL}

/* <Rank method="Spread" spread="40" weight="1"/> */
static const MmConfigKey rank_keys[] = {METRIC_KEYS(0, 40, "", 1)};

/*
 * <Rating method="Spread" spread="200" weight="5"/>: 200 is on the Glicko
 * scale, so the spread defaults to null: in a queue, the rating model's
 * (rating_model.h's MmRatingScale), elsewhere the GW2 wiki's 200.
 */
static const MmConfigKey rating_keys[] = {METRIC_KEYS(MM_CONFIG_NULLABLE, 200,
													  " (null: in a queue the rating model's, openskill 5, glicko2 200; elsewhere 200)",
													  5)};

/* <Roster method="Spread" spread="4" weight="2"/> */
static const MmConfigKey roster_keys[] = {METRIC_KEYS(0, 4, "", 2)};

#undef METRIC_KEYS

const MmConfigKey mm_prediction_keys[] = {
	{.name = "rank", .type = MM_CONFIG_OBJECT,
	.offset = offsetof(MmPredictionConfig, rank), .keys = rank_keys},
	{.name = "rating", .type = MM_CONFIG_OBJECT,
	.offset = offsetof(MmPredictionConfig, rating), .keys = rating_keys},
	{.name = "roster", .type = MM_CONFIG_OBJECT,
	.offset = offsetof(MmPredictionConfig, roster), .keys = roster_keys},
	{.name = NULL}
};

static void prediction_check(void *base, const char *what);

const MmConfigKind mm_prediction_config_kind = {
	.kind = "prediction", .what = "prediction config", .keys = mm_prediction_keys,
	.size = sizeof(MmPredictionConfig), .check = prediction_check
};

void
mm_prediction_defaults(MmPredictionConfig *cfg)
{
	mm_config_defaults(mm_prediction_keys, cfg);
}

/* Refuse a metric whose method is not "spread". */
static void
metric_check(const MmPredictionMetric *m, const char *name, const char *what)
{
	if (m->method == NULL || pg_strcasecmp(m->method, "spread") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s key \"%s.method\" is not a known method", what, name),
				 errdetail("The value is \"%s\".", m->method ? m->method : ""),
				 errhint("The only method is \"spread\".")));
}

static void
prediction_check(void *base, const char *what)
{
	MmPredictionConfig *cfg = base;

	/* a null rating spread outside a queue is the GW2 wiki's */
	if (cfg->rating.spread_null)
		cfg->rating.spread = 200;
	mm_prediction_check(base, what);
}

void
mm_prediction_check(const MmPredictionConfig *cfg, const char *what)
{
	metric_check(&cfg->rank, "rank", what);
	metric_check(&cfg->rating, "rating", what);
	metric_check(&cfg->roster, "roster", what);
}

/* calculateSpread: (blue - red) / spread, clamped to [-1, 1]. */
static double
calculate_spread(double red, double blue, double spread)
{
	double		s;

	if (red == blue)
		return 0.0;
	s = (blue - red) / spread;
	if (s < -1.0)
		return -1.0;
	if (s > 1.0)
		return 1.0;
	return s;
}

/* Add one metric's weighted spread and weight to the running sums. */
static void
add_metric(const MmPredictionMetric *m, double red, double blue,
		   double *score, double *weight)
{
	if (!m->enabled || m->weight <= 0.0)
		return;
	*score += calculate_spread(red, blue, m->spread) * m->weight;
	*weight += m->weight;
}

double
mm_predict(const MmTeamSummary *red, const MmTeamSummary *blue,
		   const MmPredictionConfig *cfg)
{
	double		score = 0.0;
	double		weight = 0.0;
	double		p;

	add_metric(&cfg->rank, red->avg_rank, blue->avg_rank, &score, &weight);
	add_metric(&cfg->rating, red->avg_rating_low, blue->avg_rating_low,
			   &score, &weight);
	add_metric(&cfg->roster, red->max_roster_size, blue->max_roster_size,
			   &score, &weight);
	if (weight <= 0.0)
		return 0.0;
	p = score / weight;
	if (p < -1.0)
		return -1.0;
	if (p > 1.0)
		return 1.0;
	return p;
}

double
mm_odds_of_victory(double prediction, bool red)
{
	double		normalized = prediction / 2.0 + 0.5;

	return red ? 1.0 - normalized : normalized;
}

/* SQL wrappers */

/* Parse a prediction config (NULL: defaults). */
static void
prediction_config(Jsonb *config, MmPredictionConfig *cfg)
{
	mm_config_read(&mm_prediction_config_kind, config, cfg);
}

/* Read a team name: true for red, false for blue. */
static bool
team_is_red(const char *team)
{
	if (strcmp(team, "red") == 0)
		return true;
	if (strcmp(team, "blue") == 0)
		return false;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("team must be \"red\" or \"blue\""),
			 errdetail("The value is \"%s\".", team),
			 errhint("Pass 'red' or 'blue' (lower case).")));
	return false;				/* not reached */
}

/* Return (prediction, red_odds, blue_odds) as the function's result row. */
static Datum
prediction_row(FunctionCallInfo fcinfo, double prediction)
{
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	values[0] = Float8GetDatum(prediction);
	values[1] = Float8GetDatum(mm_odds_of_victory(prediction, true));
	values[2] = Float8GetDatum(mm_odds_of_victory(prediction, false));
	return mm_result_row(fcinfo, values, nulls);
}

PG_FUNCTION_INFO_V1(mm_match_prediction_teams);

/*
 * mm.match_prediction_teams(red_rank, red_rating_low, red_max_roster_size,
 *		blue_rank, blue_rating_low, blue_max_roster_size, config jsonb)
 *		-> (prediction, red_odds, blue_odds)
 */
Datum
mm_match_prediction_teams(PG_FUNCTION_ARGS)
{
	MmPredictionConfig cfg;
	MmTeamSummary red;
	MmTeamSummary blue;

	red.avg_rank = PG_GETARG_FLOAT8(0);
	red.avg_rating_low = PG_GETARG_FLOAT8(1);
	red.max_roster_size = PG_GETARG_FLOAT8(2);
	blue.avg_rank = PG_GETARG_FLOAT8(3);
	blue.avg_rating_low = PG_GETARG_FLOAT8(4);
	blue.max_roster_size = PG_GETARG_FLOAT8(5);
	mm_check_finite(red.avg_rank, "red_rank");
	mm_check_finite(red.avg_rating_low, "red_rating_low");
	mm_check_positive(red.max_roster_size, "red_max_roster_size");
	mm_check_finite(blue.avg_rank, "blue_rank");
	mm_check_finite(blue.avg_rating_low, "blue_rating_low");
	mm_check_positive(blue.max_roster_size, "blue_max_roster_size");
	prediction_config(PG_GETARG_JSONB_P(6), &cfg);
	return prediction_row(fcinfo, mm_predict(&red, &blue, &cfg));
}

PG_FUNCTION_INFO_V1(mm_match_prediction);

/*
 * mm.match_prediction(team text[], rating float8[], deviation float8[],
 *		rank float8[], players int[], config jsonb)
 *		-> (prediction, red_odds, blue_odds)
 *
 * One element per roster. A team's averages weigh each roster by its
 * player count (they are averages over the team's players); its roster
 * size is its largest roster's player count.
 */
Datum
mm_match_prediction(PG_FUNCTION_ARGS)
{
	ArrayType  *team_array = PG_GETARG_ARRAYTYPE_P(0);
	double	   *rating;
	double	   *deviation;
	double	   *rank;
	int32	   *players;
	Datum	   *teams;
	int			n_team;
	int			n;
	int			n_dev;
	int			n_rank;
	int			n_players;
	MmPredictionConfig cfg;
	MmTeamSummary sum[2];
	double		count[2] = {0.0, 0.0};

	n_team = mm_text_array(team_array, "team", &teams);
	n = mm_float8_array(PG_GETARG_ARRAYTYPE_P(1), "rating", &rating);
	n_dev = mm_float8_array(PG_GETARG_ARRAYTYPE_P(2), "deviation", &deviation);
	n_rank = mm_float8_array(PG_GETARG_ARRAYTYPE_P(3), "rank", &rank);
	n_players = mm_int4_array(PG_GETARG_ARRAYTYPE_P(4), "players", &players);
	if (n_team != n || n_dev != n || n_rank != n || n_players != n)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("team, rating, deviation, rank and players must have the same length"),
				 errdetail("The lengths are %d, %d, %d, %d and %d.",
						   n_team, n, n_dev, n_rank, n_players),
				 errhint("Pass one element per roster in every array.")));
	prediction_config(PG_GETARG_JSONB_P(5), &cfg);

	memset(sum, 0, sizeof(sum));
	for (int i = 0; i < n; i++)
	{
		int			t;

		t = team_is_red(TextDatumGetCString(teams[i])) ? 0 : 1;
		mm_check_finite(rating[i], "rating");
		mm_check_nonnegative(deviation[i], "deviation");
		mm_check_finite(rank[i], "rank");
		if (players[i] < 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("players must be positive"),
					 errdetail("Element %d is %d.", i + 1, players[i]),
					 errhint("Pass each roster's player count (at least 1).")));
		sum[t].avg_rank += rank[i] * players[i];
		sum[t].avg_rating_low += (rating[i] - deviation[i]) * players[i];
		if (players[i] > sum[t].max_roster_size)
			sum[t].max_roster_size = players[i];
		count[t] += players[i];
	}
	for (int t = 0; t < 2; t++)
	{
		if (count[t] == 0.0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("team \"%s\" has no rosters", t == 0 ? "red" : "blue"),
					 errhint("Pass at least one roster for each of red and blue.")));
		sum[t].avg_rank /= count[t];
		sum[t].avg_rating_low = mm_check_result(sum[t].avg_rating_low / count[t],
												"average rating");
		sum[t].avg_rank = mm_check_result(sum[t].avg_rank, "average rank");
	}
	return prediction_row(fcinfo, mm_predict(&sum[0], &sum[1], &cfg));
}

PG_FUNCTION_INFO_V1(mm_odds_of_victory_sql);

/* mm.odds_of_victory(prediction float8, team text) -> float8 */
Datum
mm_odds_of_victory_sql(PG_FUNCTION_ARGS)
{
	double		prediction = PG_GETARG_FLOAT8(0);
	char	   *team = text_to_cstring(PG_GETARG_TEXT_PP(1));

	mm_check_finite(prediction, "prediction");
	if (prediction < -1.0 || prediction > 1.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("prediction must be between -1 and 1"),
				 errdetail("The value is %g.", prediction),
				 errhint("A prediction is -1 (red dominates) to 1 (blue dominates).")));
	PG_RETURN_FLOAT8(mm_odds_of_victory(prediction, team_is_red(team)));
}
