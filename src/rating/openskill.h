/*-------------------------------------------------------------------------
 *
 * openskill.h
 *		The Weng-Lin (OpenSkill) rating core of openskill.c (rate and
 *		predict), shared by openskill_sql.c (the SQL rate and predict
 *		functions), openskill_model.c (OpenSkill as a rating family,
 *		rating_model.h), openskill_replay.c (history replay) and
 *		openskill_ims.c (the IMS rate endpoint).
 *
 *-------------------------------------------------------------------------
 */
#ifndef MM_OPENSKILL_H
#define MM_OPENSKILL_H

#include "mm.h"
#include "rating_model.h"

/* The five models of Weng and Lin (2011), as openskill.js names them. */
typedef enum MmOsModel
{
	MM_OS_PLACKETT_LUCE,
	MM_OS_BRADLEY_TERRY_FULL,
	MM_OS_BRADLEY_TERRY_PART,
	MM_OS_THURSTONE_MOSTELLER_FULL,
	MM_OS_THURSTONE_MOSTELLER_PART
} MmOsModel;

/* Options of one rating update; defaults are openskill.js 5.0.1's. */
typedef struct MmOsOptions
{
	MmOsModel	model;
	double		beta;			/* performance deviation, 25/6 */
	double		kappa;			/* floor of the sigma shrink factor, 1e-4 */
	double		tau;			/* dynamics added to sigma first, 25/300 */
	bool		limit_sigma;	/* never let sigma grow (only when tau > 0) */
	double		z;				/* balance: ordinal deviations, 3 */
	double		alpha;			/* balance: ordinal scale, 1 */
	double		target;			/* balance: ordinal offset, 0 */
	bool		balance;		/* weight weaker players up in team sums */
	double		epsilon;		/* Thurstone-Mosteller draw margin, 0.1 */
	double		margin;			/* score margin (0: off) */
} MmOsOptions;

/*
 * One game (rating_model.h's, the game of every family): state[0] holds
 * the players' mu, state[1] their sigma.
 */
typedef MmRatingGame MmOsGame;

#define MM_OS_SMALL MM_RATING_SMALL
#define OS_MU(g)	((g)->state[0])
#define OS_SIGMA(g) ((g)->state[1])

extern void mm_os_default_options(MmOsOptions *o);
extern bool mm_os_lookup_model(const char *name, MmOsModel *model);
extern MmOsModel mm_os_parse_model(const char *name);
extern void mm_os_check_options(const MmOsOptions *o);
extern void mm_os_rate(const MmOsGame *g, const MmOsOptions *o,
					   double *mu_out, double *sigma_out);

/*
 * Build a game from per-player arrays (team labels, ranks, scores, mu,
 * sigma, weights): mm_rating_build_game for OpenSkill.
 */
extern void mm_os_build_game(MmOsGame *g, int n, const int64 *label,
							 const double *rank, const double *score,
							 const double *mu, const double *sigma,
							 const double *weight);

/*
 * Win probability of each team of a game (openskill.js predictWin), in
 * team order; prob has nteams elements.
 */
/*
 * The IMS party rating of n players: (max_w * max mu + med_w * median mu) /
 * (max_w + med_w) - dev * mean sigma (mm.party_rating; sorts mu).
 */
extern double mm_os_party_rating(int n, double *mu, const double *sigma,
								 double max_w, double med_w, double dev);

extern void mm_os_predict_win(const MmOsGame *g, double beta, double *prob);

/*
 * Draw probability of a game (openskill.js predictDraw): the mean over
 * pairs of teams of the chance that they end within the draw margin.
 */
extern double mm_os_predict_draw(const MmOsGame *g, double beta);

/* Standard normal CDF and its inverse (ours: libm has no inverse). */
extern double mm_os_phi(double x);
extern double mm_os_phi_inverse(double p);

#endif							/* MM_OPENSKILL_H */
