/*-------------------------------------------------------------------------
 *
 * odds_scale.h
 *		The calibration of a queue's odds (odds_scale.c): the scale its
 *		results have taught it, and the odds of a rating family scaled by it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef MM_ODDS_SCALE_H
#define MM_ODDS_SCALE_H

#include "mm.h"

#include <math.h>

/*
 * What a queue knows of the scale of its family's odds: ln(scale) has the
 * mean ln(scale) and the precision "information" (a Gaussian belief, as a
 * Glicko rating and its deviation).
 */
typedef struct MmOddsScale
{
	double		scale;
	double		information;
} MmOddsScale;

/* The prior of ln(scale): mean 0 (the family's odds), this deviation. */
#define MM_ODDS_SCALE_PRIOR_SD	1.0

/*
 * ln(scale) stays within [-LIMIT, LIMIT]: the scale between 1/10 and 10 (a
 * family whose odds need more than that is misconfigured, and no result
 * can say so).
 */
#define MM_ODDS_SCALE_LIMIT		M_LN10

/*
 * The lapse rate of the model of a result: with this probability a result
 * is a coin flip whatever the odds, which bounds what one upset can teach.
 */
#define MM_ODDS_SCALE_LAPSE		0.05

/* One result moves ln(scale) by at most this much. */
#define MM_ODDS_SCALE_MAX_STEP	0.5

/* A queue without results: scale 1, the prior's information. */
extern void mm_odds_scale_start(MmOddsScale *s);

/*
 * Learn from one result: logit is the family's logit of the first team's
 * odds, score 1 if the first team ranked better, 0.5 equal, 0 worse;
 * window > 1 the results over which the belief forgets (docs/ratings.md,
 * "Calibrated odds").
 */
extern void mm_odds_scale_update(MmOddsScale *s, double window, double logit,
								 double score);

/* ln(p / (1 - p)); +-Infinity at 1 and 0. */
extern double mm_odds_logit(double p);

/* The odds p of a family scaled: 1 / (1 + exp(-scale logit(p))). */
extern double mm_odds_scaled(double p, double scale);

#endif							/* MM_ODDS_SCALE_H */
