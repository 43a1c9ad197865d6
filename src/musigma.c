/*-------------------------------------------------------------------------
 *
 * musigma.c
 *		musigma ratings: the ordinal (conservative skill estimate).
 *
 * A musigma rating is a normal belief N(mu, sigma^2) about a player's skill.
 * Its ordinal is mu - z * sigma, the skill the player has with probability
 * Phi(z); z = 3 is openskill's and the IMS matchmaker's default (the IMS matchmaker documentation).
 *
 *-------------------------------------------------------------------------
 */
#include "mm.h"

#include <math.h>

/* Default number of deviations subtracted by the ordinal. */
#define MM_ORDINAL_Z 3.0

/* Return the ordinal mu - z * sigma. */
static double
ordinal(double mu, double sigma, double z)
{
	return mu - z * sigma;
}

/* SQL wrappers */

PG_FUNCTION_INFO_V1(mm_ordinal);

/* mm.ordinal(mu float8, sigma float8, z float8 DEFAULT 3) */
Datum
mm_ordinal(PG_FUNCTION_ARGS)
{
	double		mu = PG_GETARG_FLOAT8(0);
	double		sigma = PG_GETARG_FLOAT8(1);
	double		z = PG_NARGS() > 2 ? PG_GETARG_FLOAT8(2) : MM_ORDINAL_Z;

	mm_check_finite(mu, "mu");
	mm_check_positive(sigma, "sigma");
	mm_check_finite(z, "z");
	PG_RETURN_FLOAT8(mm_check_result(ordinal(mu, sigma, z), "ordinal"));
}
