/*-------------------------------------------------------------------------
 *
 * glicko2_math.c
 *		Glicko-2 math over plain C structs: one rating period per Glickman
 *		(steps 3-8, the volatility by the Illinois method of step 5), the
 *		expected score, idle deviation growth and the GW2 policy's clamps.
 *
 * The Glicko scale maps to the Glicko-2 scale by mu = (r - 1500) / 173.7178
 * and phi = RD / 173.7178 (step 2). Idle growth with the policy's
 * max_periods takes a deviation from its minimum to its maximum in
 * max_periods periods:
 *
 *		RD' = min(RD_max, sqrt(RD^2 + t * (RD_max^2 - RD_min^2) / max_periods))
 *
 * (the constant c^2 of Glicko-1's idle growth solved for that condition).
 *
 *-------------------------------------------------------------------------
 */
#include "glicko2.h"

#include <math.h>

/* Step 5's f(x). */
static inline double
glicko2_f(double x, double delta2, double phi2, double v, double a,
		  double tau2)
{
	double		ex = exp(x);
	double		d = phi2 + v + ex;
	double		dd = 2.0 * d * d;

	/* Deviations and tau so small that their squares underflow. */
	if (dd == 0.0 || tau2 == 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("volatility is out of range"),
				 errdetail("The volatility iteration divides by zero (phi^2 + v + e^x = %g, tau^2 = %g).",
						   d, tau2),
				 errhint("Deviations, volatilities and tau this small are not meaningful.")));
	return ex * (delta2 - phi2 - v - ex) / dd - (x - a) / tau2;
}

/* Find the new volatility sigma' by the Illinois method (step 5). */
static double
glicko2_volatility(double phi, double sigma, double v, double delta,
				   double tau)
{
	double		phi2 = phi * phi;
	double		delta2 = delta * delta;
	double		tau2 = tau * tau;
	double		a = log(sigma * sigma);
	double		A = a;
	double		B;
	double		fA;
	double		fB;
	int			iter;

	/* Step 5.2: bracket the root. */
	if (delta2 > phi2 + v)
		B = log(delta2 - phi2 - v);
	else
	{
		int			k = 1;

		/* f(a - k tau) grows by at least 1/tau per step: this ends. */
		while (glicko2_f(a - k * tau, delta2, phi2, v, a, tau2) < 0.0)
		{
			k++;
			if (k > 1000000)
				ereport(ERROR,
						(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
						 errmsg("volatility is out of range"),
						 errdetail("The volatility iteration found no bracket.")));
		}
		B = a - k * tau;
	}

	/* Steps 5.3 and 5.4: Illinois iteration until |B - A| <= epsilon. */
	fA = glicko2_f(A, delta2, phi2, v, a, tau2);
	fB = glicko2_f(B, delta2, phi2, v, a, tau2);
	for (iter = 0; fabs(B - A) > GLICKO2_EPSILON && iter < GLICKO2_MAX_ITER; iter++)
	{
		double		C = A + (A - B) * fA / (fB - fA);
		double		fC = glicko2_f(C, delta2, phi2, v, a, tau2);

		if (fC * fB <= 0.0)
		{
			A = B;
			fA = fB;
		}
		else
			fA = fA / 2.0;
		B = C;
		fB = fC;
	}

	/* Step 5.5 */
	return exp(A / 2.0);
}

/*
 * Finish a rating period from its sums: steps 3-8, or only step 6 when the
 * player had no games.
 */
Glicko2Player
mm_g2_finish(Glicko2Player p, const Glicko2Sums *sums, double tau)
{
	double		mu = (p.rating - GLICKO2_CENTRE) / GLICKO2_SCALE;
	double		phi = p.rd / GLICKO2_SCALE;
	double		v;
	double		delta;
	double		sigma_new;
	double		phi_star;
	double		phi_new;
	Glicko2Player r;

	if (sums->n == 0)
	{
		/* A period without games: only the deviation grows (step 6). */
		r.rating = p.rating;
		r.rd = sqrt(phi * phi + p.vol * p.vol) * GLICKO2_SCALE;
		r.vol = p.vol;
		return r;
	}

	/* Steps 3 and 4; v^-1 of 0 (or NaN) leaves v infinite */
	v = sums->v_inv > 0.0 ? 1.0 / sums->v_inv : INFINITY;
	delta = v * sums->delta_sum;
	if (!isfinite(v) || !isfinite(delta))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("rating difference is too large for glicko-2"),
				 errdetail("The estimated variance of the rating is infinite (v^-1 = %g).",
						   sums->v_inv),
				 errhint("Ratings far apart (tens of thousands of points) make every outcome certain; check the ratings.")));

	/* Step 5 */
	sigma_new = glicko2_volatility(phi, p.vol, v, delta, tau);

	/* Steps 6 and 7 */
	phi_star = sqrt(phi * phi + sigma_new * sigma_new);
	if (phi_star * phi_star > 0.0)
		phi_new = 1.0 / sqrt(1.0 / (phi_star * phi_star) + 1.0 / v);
	else
	{
		/*
		 * phi*^2 underflows (deviation and volatility below 1e-154): 1/phi*^2
		 * outweighs 1/v beyond double precision, and phi' = phi*
		 */
		phi_new = phi_star;
	}
	mu = mu + phi_new * phi_new * sums->delta_sum;

	/* Step 8 */
	r.rating = mm_check_result(GLICKO2_SCALE * mu + GLICKO2_CENTRE, "rating");
	r.rd = mm_check_result(GLICKO2_SCALE * phi_new, "rd");
	r.vol = mm_check_result(sigma_new, "vol");
	return r;
}

/* Expected score of a player against an opponent (step 3's E, with RDs combined). */
double
mm_g2_expect(double rating, double rd, double opp_rating, double opp_rd)
{
	double		phi = rd / GLICKO2_SCALE;
	double		phi_j = opp_rd / GLICKO2_SCALE;

	return glicko2_e((rating - GLICKO2_CENTRE) / GLICKO2_SCALE,
					 (opp_rating - GLICKO2_CENTRE) / GLICKO2_SCALE,
					 glicko2_g(sqrt(phi * phi + phi_j * phi_j)));
}


/*
 * Grow a deviation over t idle periods: Glickman's step 6 applied t times
 * (phi^2 + t sigma^2), or with a policy that sets max_periods the GW2 rule
 * of this file's header; with a policy the result is clamped to its range.
 */
Glicko2Player
mm_g2_idle(Glicko2Player p, double t, const Glicko2Policy *pol)
{
	Glicko2Player r = p;

	if (t <= 0)
		return r;
	if (pol != NULL && !pol->max_periods_null)
	{
		double		c2 = (pol->deviation_max * pol->deviation_max -
						  pol->deviation_min * pol->deviation_min) / pol->max_periods;

		r.rd = fmin(pol->deviation_max, sqrt(p.rd * p.rd + t * c2));
	}
	else
		r.rd = sqrt(p.rd * p.rd + t * p.vol * p.vol * GLICKO2_SCALE * GLICKO2_SCALE);
	if (pol != NULL)
		r.rd = mm_g2_clamp(r.rd, pol->deviation_min, pol->deviation_max);
	r.rd = mm_check_result(r.rd, "rd");
	return r;
}

/*
 * Apply a policy after an update from "before" to "after" over n games:
 * the change is limited to max_change per game, then rating, deviation and
 * volatility are clamped to their ranges.
 */
Glicko2Player
mm_g2_policy_apply(Glicko2Player before, Glicko2Player after, double n,
					 const Glicko2Policy *pol)
{
	Glicko2Player r = after;

	if (!pol->rating_max_change_null && n > 0)
	{
		double		limit = pol->rating_max_change * n;

		r.rating = mm_g2_clamp(r.rating, before.rating - limit, before.rating + limit);
	}
	r.rating = mm_g2_clamp(r.rating, pol->rating_min, pol->rating_max);
	r.rd = mm_g2_clamp(r.rd, pol->deviation_min, pol->deviation_max);
	r.vol = mm_g2_clamp(r.vol, pol->volatility_min, pol->volatility_max);
	return r;
}

/* Rate one period with a policy (or none): idle rule, finish, clamps. */
Glicko2Player
mm_g2_rate_period(Glicko2Player p, const Glicko2Sums *sums, double tau,
					const Glicko2Policy *pol)
{
	if (pol == NULL)
		return mm_g2_finish(p, sums, tau);
	if (sums->n == 0)
		return mm_g2_policy_apply(p, mm_g2_idle(p, 1, pol), 0, pol);
	return mm_g2_policy_apply(p, mm_g2_finish(p, sums, tau), sums->n, pol);
}
