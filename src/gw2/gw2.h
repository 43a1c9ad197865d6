/*-------------------------------------------------------------------------
 *
 * gw2.h
 *		GW2 match prediction, ladder points and dishonor (the Guild Wars 2 wiki's PvP matchmaking page): the
 *		plain C interface shared with the roster matcher.
 *
 * Match prediction (the Guild Wars 2 wiki's PvP matchmaking page, "Match Prediction"): each metric (rank,
 * rating, roster) gives calculateSpread(red, blue, spread) =
 * clamp((blue - red) / spread, -1, 1); the prediction is the weighted mean
 * of the enabled metrics, clamped to [-1, 1]; -1 means red dominates and +1
 * means blue dominates. A team's odds of victory are prediction / 2 + 0.5
 * for blue and 1 minus that for red. A match of more teams is predicted
 * pair by pair (mm_predict_match).
 *
 * Configuration (jsonb, keys mirror the XML <Prediction> element):
 *
 *	{"rank":   {"method": "spread", "spread": 40,  "weight": 1, "enabled": true},
 *	 "rating": {"method": "spread", "spread": 200, "weight": 5, "enabled": true},
 *	 "roster": {"method": "spread", "spread": 4,   "weight": 2, "enabled": true}}
 *
 * A metric is switched off with "enabled": false (the XML's "if present");
 * a weight of 0 has the same effect. "method" accepts "spread" only (the
 * the GW2 wiki's one method; any letter case). "spread" must be positive, "weight"
 * non-negative. When no metric carries weight the prediction is 0 (even).
 *
 *-------------------------------------------------------------------------
 */
#ifndef MM_GW2_H
#define MM_GW2_H

#include "mm.h"
#include "config.h"
#include "datatype/timestamp.h"

/* One metric of the prediction (an element of the XML <Prediction>). */
typedef struct MmPredictionMetric
{
	bool		enabled;		/* the XML element is present */
	char	   *method;			/* "spread" */
	double		spread;			/* > 0: spread at which the metric saturates */
	bool		spread_null;	/* rating: null, the rating model's (a queue)
								 * or the GW2 wiki's 200 */
	double		weight;			/* >= 0: impact on the final prediction */
} MmPredictionMetric;

/* The <Prediction> configuration. */
typedef struct MmPredictionConfig
{
	MmPredictionMetric rank;	/* teams' average rank */
	MmPredictionMetric rating;	/* teams' average effective rating */
	MmPredictionMetric roster;	/* teams' largest roster (party) size */
} MmPredictionConfig;

/* What the prediction needs to know about one team. */
typedef struct MmTeamSummary
{
	double		avg_rank;		/* mean rank of the team's players */
	double		avg_rating_low; /* mean effective rating (rating - deviation) */
	double		max_roster_size;	/* players in the team's largest roster */
} MmTeamSummary;

/* Fill cfg with the GW2 wiki's defaults (all three metrics on, method spread). */
extern void mm_prediction_defaults(MmPredictionConfig *cfg);

/*
 * The keys of a prediction config, relative to an MmPredictionConfig
 * (a queue config embeds them as its object "prediction"); call
 * mm_prediction_check after parsing.
 */
extern const MmConfigKey mm_prediction_keys[];

/*
 * Check a parsed configuration (the method names); "what" names the
 * configuration in messages ("prediction config", or for a nested object
 * e.g. "queue config \"prediction\""). mm_predict itself never errors.
 */
extern void mm_prediction_check(const MmPredictionConfig *cfg, const char *what);

/* Predict a match: in [-1, 1], -1 red dominates, +1 blue dominates. */
extern double mm_predict(const MmTeamSummary *red, const MmTeamSummary *blue,
						 const MmPredictionConfig *cfg);

/* Odds of victory in [0, 1] of the red team (red = true) or the blue team. */
extern double mm_odds_of_victory(double prediction, bool red);

/* A match has at most this many teams (a queue's "teams"). */
#define MM_PREDICTION_TEAMS 64

/*
 * Predict a match of k teams (2 <= k <= MM_PREDICTION_TEAMS), in team
 * order: the prediction of its most lopsided pairing (over the pairs i < j,
 * i as red, the prediction of largest magnitude, the first such pair on a
 * tie), and, when odds is not NULL, each team's odds of victory in
 * odds[k]: the mean of its pairwise odds times 2 / k, odds_i = 2 / (k (k -
 * 1)) sum over j != i of P(i beats j), P from the pair's prediction. At two
 * teams, exactly mm_predict and mm_odds_of_victory; the odds add up to one.
 */
extern double mm_predict_match(const MmTeamSummary *teams, int k,
							   const MmPredictionConfig *cfg, double *odds);

/*
 * Ladder points of one game of one player (gw2_ladder.c): what
 * mm.ladder_points(odds, final_score, result, config, at) awards and the
 * total mm.ladder_apply(current, points, config) gives; current NULL means
 * the player has no total yet. config NULL means the defaults.
 */
extern void mm_ladder_game(Jsonb *config, TimestampTz at, double odds,
						   double final_score, const char *result,
						   const int32 *current, int32 *points, int32 *total);

#endif							/* MM_GW2_H */
