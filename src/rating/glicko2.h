/*-------------------------------------------------------------------------
 *
 * glicko2.h
 *		Glicko-2 ratings, shared by the files of the family: the math of one
 *		rating period (glicko2_math.c), the GW2 rating policy
 *		(glicko2_policy.c), the SQL wrappers (glicko2_sql.c), the rating-period
 *		aggregate (glicko2_period.c), the replay of a game history
 *		(glicko2_replay.c) and Glicko-2 as a rating family
 *		(glicko2_model.c, rating_model.h).
 *
 * Source: Mark E. Glickman, "Example of the Glicko-2 system" (glicko2.pdf,
 * the 2013/2022 version); the GW2 rating policy follows the Guild Wars 2
 * wiki's PvP matchmaking page ("Ratings").
 *
 *-------------------------------------------------------------------------
 */
#ifndef MM_GLICKO2_H
#define MM_GLICKO2_H

#include "mm.h"
#include "config.h"

#include <math.h>

#include "access/htup.h"
#include "datatype/timestamp.h"

/* Glickman's step 2: the Glicko-2 scale. */
#define GLICKO2_SCALE		173.7178
#define GLICKO2_CENTRE		1500.0

/* Step 5: convergence tolerance and an iteration cap. */
#define GLICKO2_EPSILON		1e-7
#define GLICKO2_MAX_ITER	200

/* Glickman's recommended defaults, also the Guild Wars 2 wiki's. */
#define GLICKO2_TAU			0.5

/* A rating on the Glicko scale. */
typedef struct Glicko2Player
{
	double		rating;
	double		rd;
	double		vol;
} Glicko2Player;

/*
 * The sums of steps 3 and 4 over a period's games: v^-1 = sum g^2 E (1-E)
 * and sum g (s - E). They depend only on the player's own (constant)
 * rating and each game, so partial sums add.
 */
typedef struct Glicko2Sums
{
	double		v_inv;
	double		delta_sum;
	double		n;
} Glicko2Sums;

/* The GW2 rating policy (the Guild Wars 2 wiki's PvP matchmaking page, "Ratings"). */
typedef struct Glicko2Policy
{
	double		rating_default;
	double		rating_min;
	double		rating_max;
	double		rating_max_change;
	bool		rating_max_change_null;
	double		profession_ratio;
	double		deviation_default;
	double		deviation_min;
	double		deviation_max;
	double		volatility_default;
	double		volatility_min;
	double		volatility_max;
	double		system_constant;
	bool		system_constant_set;	/* the policy gives it */
	MmDuration	period;
	bool		period_set;		/* the policy gives period */
	int			max_periods;
	bool		max_periods_null;
	char	   *reset;
	bool		reset_null;
} Glicko2Policy;

/* The parameters of Glicko-2 as a rating family (mm_glicko2_model). */
typedef struct MmGlicko2Params
{
	double		tau;
	const Glicko2Policy *pol;	/* NULL: plain Glicko-2 */
} MmGlicko2Params;

/* The Guild Wars 2 wiki's values. */
#define GW2_RESET			"2014-02-01 00:00:00+00"

/* Step 3's g(phi). */
static inline double
glicko2_g(double phi)
{
	return 1.0 / sqrt(1.0 + 3.0 * phi * phi / (M_PI * M_PI));
}

/* Step 3's E(mu, mu_j, phi_j). */
static inline double
glicko2_e(double mu, double mu_j, double g_j)
{
	return 1.0 / (1.0 + exp(-g_j * (mu - mu_j)));
}

/* Add one game's terms of steps 3 and 4 to a period's sums. */
static inline void
mm_g2_accumulate(Glicko2Sums *sums, double rating, double opp_rating,
				   double opp_rd, double score)
{
	double		mu = (rating - GLICKO2_CENTRE) / GLICKO2_SCALE;
	double		mu_j = (opp_rating - GLICKO2_CENTRE) / GLICKO2_SCALE;
	double		g_j = glicko2_g(opp_rd / GLICKO2_SCALE);
	double		e = glicko2_e(mu, mu_j, g_j);

	sums->v_inv += g_j * g_j * e * (1.0 - e);
	sums->delta_sum += g_j * (score - e);
	sums->n += 1.0;
}

/* x limited to [lo, hi]. */
static inline double
mm_g2_clamp(double x, double lo, double hi)
{
	return x < lo ? lo : (x > hi ? hi : x);
}

/* Check one game's values. */
static inline void
mm_g2_check_game(double opp_rating, double opp_rd, double score)
{
	mm_check_finite(opp_rating, "opp_rating");
	mm_check_positive(opp_rd, "opp_rd");
	mm_check_finite(score, "score");
	if (score < 0.0 || score > 1.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("score must be between 0 and 1"),
				 errdetail("The value is %g.", score),
				 errhint("Use 1 for a win, 0.5 for a draw and 0 for a loss.")));
}

/*
 * Finish a rating period from its sums: steps 3-8, or only step 6 when the
 * player had no games.
 */
extern Glicko2Player mm_g2_finish(Glicko2Player p, const Glicko2Sums *sums,
								  double tau);

/* Expected score of a player against an opponent (step 3's E, with RDs combined). */
extern double mm_g2_expect(double rating, double rd, double opp_rating,
						   double opp_rd);

/*
 * Grow a deviation over t idle periods: Glickman's step 6 applied t times
 * (phi^2 + t sigma^2), or with a policy that sets max_periods the GW2 rule
 * of glicko2_math.c's header; with a policy the result is clamped to its range.
 */
extern Glicko2Player mm_g2_idle(Glicko2Player p, double t,
								const Glicko2Policy *pol);

/*
 * Apply a policy after an update from "before" to "after" over n games:
 * the change is limited to max_change per game, then rating, deviation and
 * volatility are clamped to their ranges.
 */
extern Glicko2Player mm_g2_policy_apply(Glicko2Player before,
										Glicko2Player after, double n,
										const Glicko2Policy *pol);

/* Rate one period with a policy (or none): idle rule, finish, clamps. */
extern Glicko2Player mm_g2_rate_period(Glicko2Player p,
									   const Glicko2Sums *sums, double tau,
									   const Glicko2Policy *pol);

/*
 * Parse the policy's "reset". Only ISO 8601 with an explicit UTC offset is
 * taken: timestamptz_in's other forms read differently under another
 * DateStyle ("01/02/2014") or TimeZone (no offset), or depend on the clock
 * ("now"), and the functions that read a policy are IMMUTABLE.
 */
extern TimestampTz mm_g2_parse_timestamptz(const char *text);

/* Fill a policy from jsonb (NULL gives the Guild Wars 2 wiki's defaults) and check it. */
extern void mm_g2_policy_parse(Jsonb *json, Glicko2Policy *pol);

/*
 * The tau to use: the argument, which must agree with the policy's
 * volatility.system_constant when the policy sets one. A NaN argument
 * means "not given" (replay's NULL): the policy's, else 0.5.
 */
extern double mm_g2_resolve_tau(double tau, const Glicko2Policy *pol);

/* Read an mm.glicko argument; NULL fields take the defaults. */
extern Glicko2Player mm_g2_player_arg(HeapTupleHeader tup,
									  const Glicko2Policy *pol,
									  const char *what);

/* Build an mm.glicko datum. */
extern Datum mm_g2_player_datum(FunctionCallInfo fcinfo, Glicko2Player p);

#endif							/* MM_GLICKO2_H */
