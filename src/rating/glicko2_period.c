/*-------------------------------------------------------------------------
 *
 * glicko2_period.c
 *		The rating-period aggregate mm.glicko2_period: a float8[] state of
 *		the player and the sums of steps 3 and 4, which add, so that
 *		parallel query and Citus can aggregate partially.
 *
 *-------------------------------------------------------------------------
 */
#include "glicko2.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/float.h"

/* The aggregate mm.glicko2_period */

/* State: [rating, rd, vol, tau, sum g^2 E (1-E), sum g (s - E), n] */
#define G2S_LEN 7

/* The largest game count a float8 holds exactly. */
#define G2S_MAX_GAMES 9007199254740992.0
/* Rounding slack of the bounds below. */
#define G2S_SLACK	(1.0 + 1e-9)

static void
glicko2_bad_state(const char *what, const char *why)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s is not a glicko2_period state", what),
			 errdetail("%s.", why),
			 errhint("Pass only states made by mm.glicko2_period's own functions.")));
}

/*
 * Check a state in full and return its values (NULL for the empty state).
 * The functions are callable from SQL, so every invariant is checked: the
 * player's rating is finite, rd, vol and tau are positive, the game count n
 * is a whole number, and the sums are what n games can give: each game adds
 * g^2 E (1 - E) in [0, 1/4] to v^-1 and g (s - E) in [-1, 1] to the other.
 */
static double *
glicko2_state_values(ArrayType *a, const char *what)
{
	double	   *s;

	if (ARR_NDIM(a) == 0 && ARR_ELEMTYPE(a) == FLOAT8OID)
		return NULL;
	if (ARR_NDIM(a) != 1 || ARR_HASNULL(a) || ARR_ELEMTYPE(a) != FLOAT8OID ||
		ARR_DIMS(a)[0] != G2S_LEN || ARR_LBOUND(a)[0] != 1)
		glicko2_bad_state(what, psprintf("A state is a float8[] of %d elements without NULLs, or empty",
										 G2S_LEN));
	s = (double *) ARR_DATA_PTR(a);
	for (int i = 0; i < G2S_LEN; i++)
		if (!isfinite(s[i]))
			glicko2_bad_state(what, "Its values must be finite");
	if (s[1] <= 0.0 || s[2] <= 0.0 || s[3] <= 0.0)
		glicko2_bad_state(what, psprintf("Its rd, vol and tau must be positive (they are %g, %g, %g)",
										 s[1], s[2], s[3]));
	if (s[6] < 0.0 || s[6] != floor(s[6]) || s[6] > G2S_MAX_GAMES)
		glicko2_bad_state(what, psprintf("Its game count must be a whole number (it is %g)", s[6]));
	if (s[4] < 0.0 || s[4] > 0.25 * s[6] * G2S_SLACK ||
		fabs(s[5]) > s[6] * G2S_SLACK)
		glicko2_bad_state(what, psprintf("Its sums %g and %g cannot come from %g games",
										 s[4], s[5], s[6]));
	return s;
}

static inline bool
glicko2_state_empty(ArrayType *a)
{
	return ARR_NDIM(a) == 0;
}

static ArrayType *
glicko2_state_make(const double *v)
{
	return DatumGetArrayTypeP(mm_float8_array_datum(G2S_LEN, v, NULL));
}

static void
glicko2_state_check_player(const double *s, double rating, double rd,
						   double vol, double tau)
{
	if (s[0] != rating || s[1] != rd || s[2] != vol || s[3] != tau)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("glicko2_period needs one player rating per group"),
				 errdetail("The group has rating %g, rd %g, vol %g, tau %g and also %g, %g, %g, %g.",
						   s[0], s[1], s[2], s[3], rating, rd, vol, tau),
				 errhint("Group by player: each player's rating, rd, vol and tau are constant over a rating period.")));
}

PG_FUNCTION_INFO_V1(mm_glicko2_period_step);

/*
 * Transition: (state, rating, rd, vol, opp_rating, opp_rd, score [, tau]).
 * A row whose game columns are all NULL (a LEFT JOIN without games) counts
 * as no game: the player is still rated, for an idle period.
 */
Datum
mm_glicko2_period_step(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext;
	ArrayType  *state;
	double	   *s;
	double		rating,
				rd,
				vol,
				tau;
	bool		game_null;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("glicko2_period_step can only be called as the transition function of mm.glicko2_period")));
	for (int i = 1; i <= 3; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("rating, rd and vol must not be NULL"),
					 errhint("Use the policy's defaults for a new player, e.g. COALESCE(rd, 350).")));
	if (PG_NARGS() > 7 && PG_ARGISNULL(7))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("tau must not be NULL")));
	game_null = PG_ARGISNULL(4) && PG_ARGISNULL(5) && PG_ARGISNULL(6);
	if (!game_null && (PG_ARGISNULL(4) || PG_ARGISNULL(5) || PG_ARGISNULL(6)))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("opp_rating, opp_rd and score must be all NULL or all set"),
				 errhint("A row with all three NULL counts as no game.")));

	rating = PG_GETARG_FLOAT8(1);
	rd = PG_GETARG_FLOAT8(2);
	vol = PG_GETARG_FLOAT8(3);
	tau = PG_NARGS() > 7 ? PG_GETARG_FLOAT8(7) : GLICKO2_TAU;

	state = PG_GETARG_ARRAYTYPE_P(0);
	if (glicko2_state_empty(state))
	{
		double		init[G2S_LEN] = {rating, rd, vol, tau, 0, 0, 0};
		MemoryContext old;

		mm_check_finite(rating, "rating");
		mm_check_positive(rd, "rd");
		mm_check_positive(vol, "vol");
		mm_check_positive(tau, "tau");
		old = MemoryContextSwitchTo(aggcontext);
		state = glicko2_state_make(init);
		MemoryContextSwitchTo(old);
	}
	s = glicko2_state_values(state, "state");
	glicko2_state_check_player(s, rating, rd, vol, tau);
	if (!game_null)
	{
		Glicko2Sums sums = {s[4], s[5], s[6]};
		double		opp_rating = PG_GETARG_FLOAT8(4);
		double		opp_rd = PG_GETARG_FLOAT8(5);
		double		score = PG_GETARG_FLOAT8(6);

		mm_g2_check_game(opp_rating, opp_rd, score);
		mm_g2_accumulate(&sums, rating, opp_rating, opp_rd, score);
		/* the state was made in aggcontext (by us): update it in place */
		s[4] = sums.v_inv;
		s[5] = sums.delta_sum;
		s[6] = sums.n;
	}
	PG_RETURN_ARRAYTYPE_P(state);
}

PG_FUNCTION_INFO_V1(mm_glicko2_period_combine);

/* Combine two partial states: the same player, sums added. */
Datum
mm_glicko2_period_combine(PG_FUNCTION_ARGS)
{
	ArrayType  *a = PG_GETARG_ARRAYTYPE_P(0);
	ArrayType  *b = PG_GETARG_ARRAYTYPE_P(1);
	double	   *sa;
	double	   *sb;
	double		r[G2S_LEN];

	sa = glicko2_state_values(a, "state");
	sb = glicko2_state_values(b, "state");
	if (glicko2_state_empty(b))
		PG_RETURN_ARRAYTYPE_P(a);
	if (glicko2_state_empty(a))
		PG_RETURN_ARRAYTYPE_P(b);
	glicko2_state_check_player(sa, sb[0], sb[1], sb[2], sb[3]);
	memcpy(r, sa, sizeof(r));
	r[4] += sb[4];
	r[5] += sb[5];
	r[6] += sb[6];
	a = glicko2_state_make(r);
	glicko2_state_values(a, "the combined state");
	PG_RETURN_ARRAYTYPE_P(a);
}

PG_FUNCTION_INFO_V1(mm_glicko2_period_final);

/* Final: steps 3-8 from the sums; NULL for no rows. */
Datum
mm_glicko2_period_final(PG_FUNCTION_ARGS)
{
	ArrayType  *state = PG_GETARG_ARRAYTYPE_P(0);
	double	   *s = glicko2_state_values(state, "state");
	Glicko2Player p;
	Glicko2Sums sums;

	if (s == NULL)
		PG_RETURN_NULL();
	p.rating = s[0];
	p.rd = s[1];
	p.vol = s[2];
	sums.v_inv = s[4];
	sums.delta_sum = s[5];
	sums.n = s[6];
	PG_RETURN_DATUM(mm_g2_player_datum(fcinfo, mm_g2_finish(p, &sums, s[3])));
}
