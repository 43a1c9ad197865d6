/*-------------------------------------------------------------------------
 *
 * analytics.h
 *		Calibration of win predictions (Brier score, log loss, accuracy,
 *		reliability table), shared by the calibration aggregate and the
 *		replays that calibrate a rating system over a history.
 *
 *-------------------------------------------------------------------------
 */
#ifndef MM_ANALYTICS_H
#define MM_ANALYTICS_H

#include "mm.h"

/* Probabilities are clipped to [EPS, 1 - EPS] in the log loss. */
#define MM_CALIBRATION_EPS 1e-15
#define MM_CALIBRATION_MAX_BINS 1000

/*
 * Sums over (probability, outcome) pairs. Bin b of bins holds the
 * probabilities in [b/bins, (b+1)/bins), the last bin also 1.
 */
typedef struct MmCalibration
{
	int			bins;
	double		n;
	double		sq;				/* sum (p - y)^2 */
	double		ll;				/* sum -(y log p + (1 - y) log(1 - p)) */
	double		acc;			/* sum of 1 when the likelier side happened */
	double	   *bin_n;
	double	   *bin_p;			/* sum of p in the bin */
	double	   *bin_y;			/* sum of y in the bin */
} MmCalibration;

extern void mm_calibration_init(MmCalibration *c, int bins);
extern void mm_calibration_check_bins(int bins);

/* Add one prediction p of an event and its outcome y (1, 0, or 0.5 for a draw). */
extern void mm_calibration_add(MmCalibration *c, double p, double y);

/* The figures as jsonb: n, brier, log_loss, accuracy, bins. */
extern Jsonb *mm_calibration_jsonb(const MmCalibration *c);

/*
 * Maximum likelihood over one parameter: evaluate the calibration of a
 * replay at each value of a grid, or by golden-section search over
 * [lo, hi], and return every value tried as the rows (step, value,
 * log_loss, brier, accuracy, matches, best) of a set-returning function.
 * The arguments at grid_arg, lo_arg, hi_arg and iter_arg hold the grid
 * (float8[] or NULL), lo, hi and iterations. eval fills *out for a value;
 * each evaluation runs in a memory context reset after it.
 */
typedef void (*MmFitEval) (void *arg, double value, MmCalibration *out);

extern void mm_fit_search(FunctionCallInfo fcinfo, int grid_arg, int lo_arg,
						  int hi_arg, int iter_arg, MmFitEval eval, void *arg);

#endif							/* MM_ANALYTICS_H */
