/*-------------------------------------------------------------------------
 *
 * openskill.h
 *		The Weng-Lin (OpenSkill) rating core shared by openskill.c (the SQL
 *		rate and predict functions), openskill_replay.c (history replay)
 *		and openskill_ims.c (the IMS rate endpoint).
 *
 *-------------------------------------------------------------------------
 */
#ifndef MM_OPENSKILL_H
#define MM_OPENSKILL_H

#include "mm.h"

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
 * Games of up to this many players are built, rated and predicted without
 * allocating: their per-player and per-team arrays fit in the game and on
 * the stack (a replay rates one game per match, millions in one call).
 */
#define MM_OS_SMALL 32

/*
 * One game: nplayers players in nteams teams. team_of[p] is player p's
 * team, 0-based, teams numbered in order of first appearance. rank and
 * score are per team (score may be NULL), weight per player (may be NULL).
 * A small game's team_of and rank point into the game itself: build it
 * where it is used, do not copy it.
 */
typedef struct MmOsGame
{
	int			nplayers;
	int			nteams;
	const int  *team_of;
	const double *rank;
	const double *score;
	const double *mu;
	const double *sigma;
	const double *weight;
	int			small_team_of[MM_OS_SMALL];
	double		small_rank[MM_OS_SMALL];
} MmOsGame;

extern void mm_os_default_options(MmOsOptions *o);
extern bool mm_os_lookup_model(const char *name, MmOsModel *model);
extern MmOsModel mm_os_parse_model(const char *name);
extern void mm_os_check_options(const MmOsOptions *o);
extern void mm_os_rate(const MmOsGame *g, const MmOsOptions *o,
					   double *mu_out, double *sigma_out);

/*
 * Build a game from per-player arrays (team labels, ranks, scores,
 * weights), checking everything a user can get wrong. Arrays of games
 * larger than MM_OS_SMALL are palloc'd in the current memory context.
 */
extern void mm_os_build_game(MmOsGame *g, int n, const int64 *label,
							 const double *rank, const double *score,
							 const double *mu, const double *sigma,
							 const double *weight);

/*
 * Win probability of each team of a game (openskill.js predictWin), in
 * team order; prob has nteams elements.
 */
extern void mm_os_predict_win(const MmOsGame *g, double beta, double *prob);

/* Standard normal CDF and its inverse (ours: libm has no inverse). */
extern double mm_os_phi(double x);
extern double mm_os_phi_inverse(double p);

#endif							/* MM_OPENSKILL_H */
