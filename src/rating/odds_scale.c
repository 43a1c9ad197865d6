/*-------------------------------------------------------------------------
 *
 * odds_scale.c
 *		The calibration of a queue's odds (docs/ratings.md, "Calibrated
 *		odds"): a rating family's odds of a match, p, are stored as
 *
 *			p' = 1 / (1 + exp(-a z)),   z = ln(p / (1 - p)),
 *
 *		with a scale a that the queue learns from its own results. The queue
 *		holds a Gaussian belief about ln a, mean l and precision P, which
 *		starts at the prior N(0, 1): a = 1, the family's own odds. Each
 *		result of a two-team match (the family's logit z of the first team's
 *		odds, score s: 1 the first team ranked better, 1/2 equal, 0 worse)
 *		first forgets, then learns, with lambda = 1 - 1/window:
 *
 *			P1 = lambda P + (1 - lambda) / sd0^2,   l1 = lambda P l / P1
 *			x = exp(l1) z,   p = 1 / (1 + exp(-x))
 *			q = e/2 + (1 - e) p,   q' = (1 - e) p (1 - p) x   (dq / d ln a)
 *			P' = P1 + q'^2 / (q (1 - q)),   l' = l1 + (s - q) q' / (q (1 - q)) / P'
 *
 *		The forgetting step takes a share 1 - lambda of what the belief knew
 *		back to the prior, so that the belief weighs a result window results
 *		old by 1/e and follows a change of the ratings' fit over a season;
 *		the learning step is one Newton (Fisher scoring) step of the
 *		likelihood of the result in ln a, as Glickman's step 7 is one step
 *		for a rating. It is Platt's recalibration of a classifier's scores
 *		by a logistic model, with one parameter, learnt online, made robust:
 *		the model of a result is the family's (scaled) odds p with a lapse
 *		rate e (MM_ODDS_SCALE_LAPSE): with probability e a result is a coin
 *		flip whatever the odds (a disconnection, a smurf, a mistyped
 *		report). So no single result can say much: an upset at odds of
 *		0.999 moves ln a by 0.25 where the plain logistic step moved it by
 *		6.6 (to the limit), while results at ordinary odds teach almost as
 *		before. One result moves ln a by at most MM_ODDS_SCALE_MAX_STEP, and
 *		ln a stays within [-MM_ODDS_SCALE_LIMIT, MM_ODDS_SCALE_LIMIT] (the
 *		scale between 1/10 and 10).
 *
 *-------------------------------------------------------------------------
 */
#include "odds_scale.h"

#include <math.h>

void
mm_odds_scale_start(MmOddsScale *s)
{
	s->scale = 1.0;
	s->information = 1.0 / (MM_ODDS_SCALE_PRIOR_SD * MM_ODDS_SCALE_PRIOR_SD);
}

/* The logistic function. */
static inline double
logistic(double z)
{
	return 1.0 / (1.0 + exp(-z));
}

double
mm_odds_logit(double p)
{
	return log(p) - log1p(-p);
}

void
mm_odds_scale_update(MmOddsScale *s, double window, double logit, double score)
{
	double		lambda = 1.0 - 1.0 / window;
	double		prior = 1.0 / (MM_ODDS_SCALE_PRIOR_SD * MM_ODDS_SCALE_PRIOR_SD);
	double		info = lambda * s->information + (1.0 - lambda) * prior;
	double		l = lambda * s->information * log(s->scale) / info;
	double		x = exp(l) * logit;
	double		p = logistic(x);
	double		e = MM_ODDS_SCALE_LAPSE;
	double		q = e / 2 + (1.0 - e) * p;
	double		dq = (1.0 - e) * p * (1.0 - p) * x;
	double		var = q * (1.0 - q);	/* at least e/2 (1 - e/2): never 0 */
	double		step;

	info += dq * dq / var;
	step = (score - q) * dq / var / info;
	step = fmin(fmax(step, -MM_ODDS_SCALE_MAX_STEP), MM_ODDS_SCALE_MAX_STEP);
	l = fmin(fmax(l + step, -MM_ODDS_SCALE_LIMIT), MM_ODDS_SCALE_LIMIT);
	s->scale = exp(l);
	s->information = info;
}

double
mm_odds_scaled(double p, double scale)
{
	/* the family's odds exactly while the queue has learnt nothing */
	if (scale == 1.0 || p <= 0.0 || p >= 1.0)
		return p;
	return logistic(scale * mm_odds_logit(p));
}
