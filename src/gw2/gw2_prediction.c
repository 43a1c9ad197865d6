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
 * A match of more teams (the GW2 wiki page has two) is predicted pair by
 * pair (mm_predict_match): its prediction is its most lopsided pairing's,
 * and team i's odds are 2 / (k (k - 1)) times the sum over the other teams
 * j of its odds of victory against j, the pairwise form the rating
 * families' predictions and the tick's odds take for k teams; at two teams
 * this is exactly the GW2 wiki's.
 *
 *-------------------------------------------------------------------------
 */
#include "gw2.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
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

double
mm_predict_match(const MmTeamSummary *teams, int k, const MmPredictionConfig *cfg, double *odds)
{
	double		best = 0;

	if (k == 2)
	{
		/* GW2's two teams, exactly */
		best = mm_predict(&teams[0], &teams[1], cfg);
		if (odds)
		{
			odds[0] = mm_odds_of_victory(best, true);
			odds[1] = mm_odds_of_victory(best, false);
		}
		return best;
	}
	if (odds)
		for (int t = 0; t < k; t++)
			odds[t] = 0;
	for (int i = 0; i < k; i++)
		for (int j = i + 1; j < k; j++)
		{
			double		p = mm_predict(&teams[i], &teams[j], cfg);

			if (fabs(p) > fabs(best))
				best = p;
			if (odds)
			{
				/* team i as red, team j as blue */
				odds[i] += mm_odds_of_victory(p, true);
				odds[j] += mm_odds_of_victory(p, false);
			}
		}
	if (odds)
		for (int t = 0; t < k; t++)
			odds[t] /= k * (k - 1) / 2.0;
	return best;
}

/* SQL wrappers */

/* Parse a prediction config (NULL: defaults). */
static void
prediction_config(Jsonb *config, MmPredictionConfig *cfg)
{
	mm_config_read(&mm_prediction_config_kind, config, cfg);
}

/*
 * Return (prediction, red_odds, blue_odds, odds) of a match of k teams as
 * the function's result row: red_odds and blue_odds are the first two
 * teams' odds (as mm.match keeps them).
 */
static Datum
prediction_row(FunctionCallInfo fcinfo, const MmTeamSummary *teams, int k,
			   const MmPredictionConfig *cfg)
{
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};
	double	   *odds = palloc(sizeof(double) * k);

	values[0] = Float8GetDatum(mm_predict_match(teams, k, cfg, odds));
	values[1] = Float8GetDatum(odds[0]);
	values[2] = Float8GetDatum(odds[1]);
	values[3] = mm_float8_array_datum(k, odds, NULL);
	return mm_result_row(fcinfo, values, nulls);
}

/* Refuse a number of teams a match cannot have. */
static void
check_team_count(int k, const char *what)
{
	if (k < 2 || k > MM_PREDICTION_TEAMS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must have 2 to %d elements, one per team", what, MM_PREDICTION_TEAMS),
				 errdetail("It has %d.", k),
				 errhint("Give one element per team of the match, in team order.")));
}

/* Check and store one team's summary. */
static void
team_summary(MmTeamSummary *t, double rank, double rating_low, double max_roster_size,
			 const char *rank_what, const char *rating_what, const char *size_what)
{
	mm_check_finite(rank, rank_what);
	mm_check_finite(rating_low, rating_what);
	mm_check_positive(max_roster_size, size_what);
	t->avg_rank = rank;
	t->avg_rating_low = rating_low;
	t->max_roster_size = max_roster_size;
}

PG_FUNCTION_INFO_V1(mm_match_prediction_teams);

/*
 * mm.match_prediction_teams(red_rank, red_rating_low, red_max_roster_size,
 *		blue_rank, blue_rating_low, blue_max_roster_size, config jsonb)
 *		-> (prediction, red_odds, blue_odds, odds)
 */
Datum
mm_match_prediction_teams(PG_FUNCTION_ARGS)
{
	MmPredictionConfig cfg;
	MmTeamSummary teams[2];

	team_summary(&teams[0], PG_GETARG_FLOAT8(0), PG_GETARG_FLOAT8(1), PG_GETARG_FLOAT8(2),
				 "red_rank", "red_rating_low", "red_max_roster_size");
	team_summary(&teams[1], PG_GETARG_FLOAT8(3), PG_GETARG_FLOAT8(4), PG_GETARG_FLOAT8(5),
				 "blue_rank", "blue_rating_low", "blue_max_roster_size");
	prediction_config(PG_GETARG_JSONB_P(6), &cfg);
	return prediction_row(fcinfo, teams, 2, &cfg);
}

PG_FUNCTION_INFO_V1(mm_match_prediction_teams_arrays);

/*
 * mm.match_prediction_teams(rank float8[], rating_low float8[],
 *		max_roster_size float8[], config jsonb)
 *		-> (prediction, red_odds, blue_odds, odds)
 *
 * One element per team, in team order.
 */
Datum
mm_match_prediction_teams_arrays(PG_FUNCTION_ARGS)
{
	MmPredictionConfig cfg;
	MmTeamSummary *teams;
	double	   *rank;
	double	   *rating_low;
	double	   *size;
	int			k = mm_float8_array(PG_GETARG_ARRAYTYPE_P(0), "rank", &rank);
	int			n_rating = mm_float8_array(PG_GETARG_ARRAYTYPE_P(1), "rating_low", &rating_low);
	int			n_size = mm_float8_array(PG_GETARG_ARRAYTYPE_P(2), "max_roster_size", &size);

	if (n_rating != k || n_size != k)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("rank, rating_low and max_roster_size must have the same length"),
				 errdetail("The lengths are %d, %d and %d.", k, n_rating, n_size),
				 errhint("Pass one element per team in every array.")));
	check_team_count(k, "rank");
	teams = palloc(sizeof(MmTeamSummary) * k);
	for (int t = 0; t < k; t++)
		team_summary(&teams[t], rank[t], rating_low[t], size[t], "rank", "rating_low", "max_roster_size");
	prediction_config(PG_GETARG_JSONB_P(3), &cfg);
	return prediction_row(fcinfo, teams, k, &cfg);
}

/* The teams' names of mm.match_prediction as a list for messages. */
static char *
team_list(char *const *names, int k)
{
	StringInfoData b;

	initStringInfo(&b);
	for (int t = 0; t < k; t++)
		appendStringInfo(&b, "%s\"%s\"", t == 0 ? "" : t == k - 1 ? " and " : ", ", names[t]);
	return b.data;
}

PG_FUNCTION_INFO_V1(mm_match_prediction);

/*
 * mm.match_prediction(team text[], rating float8[], deviation float8[],
 *		rank float8[], players int[], config jsonb, teams text[])
 *		-> (prediction, red_odds, blue_odds, odds)
 *
 * One element per roster; "teams" names the match's teams in team order
 * (red and blue by default). A team's averages weigh each roster by its
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
	Datum	   *name_datums;
	char	  **names;
	int			n_team;
	int			n;
	int			n_dev;
	int			n_rank;
	int			n_players;
	int			k;
	MmPredictionConfig cfg;
	MmTeamSummary *sum;
	double	   *count;

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
	k = mm_text_array(PG_GETARG_ARRAYTYPE_P(6), "teams", &name_datums);
	check_team_count(k, "teams");
	names = palloc(sizeof(char *) * k);
	for (int t = 0; t < k; t++)
	{
		names[t] = TextDatumGetCString(name_datums[t]);
		for (int u = 0; u < t; u++)
			if (strcmp(names[u], names[t]) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("teams must not name a team twice"),
						 errdetail("\"%s\" appears twice.", names[t])));
	}

	sum = palloc0(sizeof(MmTeamSummary) * k);
	count = palloc0(sizeof(double) * k);
	for (int i = 0; i < n; i++)
	{
		char	   *name = TextDatumGetCString(teams[i]);
		int			t;

		for (t = 0; t < k; t++)
			if (strcmp(names[t], name) == 0)
				break;
		if (t == k)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("team \"%s\" is not one of the match's teams", name),
					 errdetail("The teams are %s.", team_list(names, k)),
					 errhint("Pass the match's teams, in team order, as teams.")));
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
	for (int t = 0; t < k; t++)
	{
		if (count[t] == 0.0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("team \"%s\" has no rosters", names[t]),
					 errhint("Pass at least one roster for each team of teams.")));
		sum[t].avg_rank /= count[t];
		sum[t].avg_rating_low = mm_check_result(sum[t].avg_rating_low / count[t],
												"average rating");
		sum[t].avg_rank = mm_check_result(sum[t].avg_rank, "average rank");
	}
	return prediction_row(fcinfo, sum, k, &cfg);
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
