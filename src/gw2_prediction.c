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

/* Number of keys of one metric object, plus the terminator. */
#define MM_METRIC_KEYS 5

/* Fill one metric with the given spread and weight, enabled, method spread. */
static void
metric_defaults(MmPredictionMetric *m, double spread, double weight)
{
	m->enabled = true;
	m->method = "spread";
	m->spread = spread;
	m->weight = weight;
}

void
mm_prediction_defaults(MmPredictionConfig *cfg)
{
	/* <Rank method="Spread" spread="40" weight="1"/> */
	metric_defaults(&cfg->rank, 40.0, 1.0);
	/* <Rating method="Spread" spread="200" weight="5"/> */
	metric_defaults(&cfg->rating, 200.0, 5.0);
	/* <Roster method="Spread" spread="4" weight="2"/> */
	metric_defaults(&cfg->roster, 4.0, 2.0);
}

/* Describe one key (the array is zeroed: isnull NULL, min inclusive). */
static void
set_key(MmConfigKey *key, const char *name, MmConfigType type, void *target,
		double min, double max, bool min_exclusive, const MmConfigKey *keys)
{
	key->name = name;
	key->type = type;
	key->target = target;
	key->min = min;
	key->max = max;
	key->min_exclusive = min_exclusive;
	key->keys = keys;
}

/* Fill keys[0..MM_METRIC_KEYS) with the keys of one metric object. */
static void
metric_keys(MmConfigKey *keys, MmPredictionMetric *m)
{
	set_key(&keys[0], "method", MM_CONFIG_TEXT, &m->method, 0, 0, false, NULL);
	set_key(&keys[1], "spread", MM_CONFIG_FLOAT, &m->spread, 0, MM_PREDICTION_MAX, true, NULL);
	set_key(&keys[2], "weight", MM_CONFIG_FLOAT, &m->weight, 0, MM_PREDICTION_MAX, false, NULL);
	set_key(&keys[3], "enabled", MM_CONFIG_BOOL, &m->enabled, 0, 0, false, NULL);
	/* keys[4] is the terminator (zeroed) */
}

const MmConfigKey *
mm_prediction_keys(MmPredictionConfig *cfg)
{
	MmConfigKey *keys = palloc0(sizeof(MmConfigKey) * 4);
	MmConfigKey *nested = palloc0(sizeof(MmConfigKey) * 3 * MM_METRIC_KEYS);

	metric_keys(nested, &cfg->rank);
	metric_keys(nested + MM_METRIC_KEYS, &cfg->rating);
	metric_keys(nested + 2 * MM_METRIC_KEYS, &cfg->roster);
	set_key(&keys[0], "rank", MM_CONFIG_OBJECT, NULL, 0, 0, false, nested);
	set_key(&keys[1], "rating", MM_CONFIG_OBJECT, NULL, 0, 0, false, nested + MM_METRIC_KEYS);
	set_key(&keys[2], "roster", MM_CONFIG_OBJECT, NULL, 0, 0, false, nested + 2 * MM_METRIC_KEYS);
	/* keys[3] is the terminator (zeroed) */
	return keys;
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
	mm_prediction_defaults(cfg);
	mm_config_parse(config, "prediction config", mm_prediction_keys(cfg));
	mm_prediction_check(cfg, "prediction config");
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
	return mm_gw2_result_row(fcinfo, values, nulls);
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
