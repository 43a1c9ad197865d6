/*-------------------------------------------------------------------------
 *
 * glicko2_sql.c
 *		SQL wrappers of Glicko-2 ratings: one rating period, idle growth,
 *		expected score, the effective rating, the policy, the rating at a
 *		time and the blend of two ratings. The math is in glicko2_math.c,
 *		the policy in glicko2_policy.c, the aggregate in glicko2_period.c,
 *		the replays in glicko2_replay.c.
 *
 * Source: Mark E. Glickman, "Example of the Glicko-2 system" (glicko2.pdf,
 * the 2013/2022 version): steps 1-8, the volatility found by the Illinois
 * (regula falsi) method of step 5 with the "f(C) f(B) <= 0" update. The
 * Glicko scale maps to the Glicko-2 scale by mu = (r - 1500) / 173.7178 and
 * phi = RD / 173.7178 (step 2).
 *
 * The GW2 rating policy follows the Guild Wars 2 wiki's PvP matchmaking page ("Ratings"): the Ratings,
 * Rating, Deviation and Volatility elements become a jsonb object whose
 * keys are their attributes in snake_case, with the GW2 wiki's values as
 * defaults. Clamps and the maximum change apply after an update; idle
 * growth with max_periods takes a deviation from its minimum to its
 * maximum in max_periods periods:
 *
 *		RD' = min(RD_max, sqrt(RD^2 + t * (RD_max^2 - RD_min^2) / max_periods))
 *
 * (the constant c^2 of Glicko-1's idle growth solved for that condition).
 *
 *-------------------------------------------------------------------------
 */
#include "glicko2.h"

#include <math.h>

#include "access/htup_details.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/timestamp.h"

/* Argument helpers */

/* Read an mm.glicko argument; NULL fields take the defaults. */
Glicko2Player
mm_g2_player_arg(HeapTupleHeader tup, const Glicko2Policy *pol, const char *what)
{
	Glicko2Player p;
	bool		isnull;
	Datum		d;
	char		name[64];

	d = GetAttributeByNum(tup, 1, &isnull);
	p.rating = isnull ? (pol ? pol->rating_default : GLICKO2_CENTRE) : DatumGetFloat8(d);
	d = GetAttributeByNum(tup, 2, &isnull);
	p.rd = isnull ? (pol ? pol->deviation_default : 350.0) : DatumGetFloat8(d);
	d = GetAttributeByNum(tup, 3, &isnull);
	p.vol = isnull ? (pol ? pol->volatility_default : 0.06) : DatumGetFloat8(d);

	snprintf(name, sizeof(name), "%s rating", what);
	mm_check_finite(p.rating, name);
	snprintf(name, sizeof(name), "%s rd", what);
	mm_check_positive(p.rd, name);
	snprintf(name, sizeof(name), "%s vol", what);
	mm_check_positive(p.vol, name);
	return p;
}

/* Build an mm.glicko datum. */
Datum
mm_g2_player_datum(FunctionCallInfo fcinfo, Glicko2Player p)
{
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	values[0] = Float8GetDatum(p.rating);
	values[1] = Float8GetDatum(p.rd);
	values[2] = Float8GetDatum(p.vol);
	return mm_result_row(fcinfo, values, nulls);
}


/* SQL wrappers */

PG_FUNCTION_INFO_V1(mm_glicko2_rate);

/*
 * mm.glicko2_rate(player mm.glicko, opp_rating float8[], opp_rd float8[],
 *				   score float8[], tau float8 DEFAULT NULL, policy jsonb DEFAULT NULL)
 * Not strict in tau and policy: a NULL tau is the policy's
 * volatility.system_constant (0.5 without one), a NULL policy means none.
 */
Datum
mm_glicko2_rate(PG_FUNCTION_ARGS)
{
	Glicko2Policy polbuf;
	Glicko2Policy *pol = NULL;
	Glicko2Player p;
	Glicko2Sums sums = {0, 0, 0};
	double	   *opp_rating;
	double	   *opp_rd;
	double	   *score;
	int			n1,
				n2,
				n3;
	double		tau;

	for (int i = 0; i < 4; i++)
		if (PG_ARGISNULL(i))
			PG_RETURN_NULL();
	if (!PG_ARGISNULL(5))
	{
		mm_g2_policy_parse(PG_GETARG_JSONB_P(5), &polbuf);
		pol = &polbuf;
	}
	tau = get_float8_nan();		/* not given */
	if (!PG_ARGISNULL(4))
	{
		tau = PG_GETARG_FLOAT8(4);
		mm_check_positive(tau, "tau");
	}
	tau = mm_g2_resolve_tau(tau, pol);
	p = mm_g2_player_arg(PG_GETARG_HEAPTUPLEHEADER(0), pol, "player");

	n1 = mm_float8_array(PG_GETARG_ARRAYTYPE_P(1), "opp_rating", &opp_rating);
	n2 = mm_float8_array(PG_GETARG_ARRAYTYPE_P(2), "opp_rd", &opp_rd);
	n3 = mm_float8_array(PG_GETARG_ARRAYTYPE_P(3), "score", &score);
	if (n1 != n2 || n1 != n3)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("opp_rating, opp_rd and score must have the same length"),
				 errdetail("The lengths are %d, %d and %d.", n1, n2, n3),
				 errhint("Give one element per game in each array.")));
	for (int i = 0; i < n1; i++)
	{
		mm_g2_check_game(opp_rating[i], opp_rd[i], score[i]);
		mm_g2_accumulate(&sums, p.rating, opp_rating[i], opp_rd[i], score[i]);
	}
	PG_RETURN_DATUM(mm_g2_player_datum(fcinfo, mm_g2_rate_period(p, &sums, tau, pol)));
}

PG_FUNCTION_INFO_V1(mm_glicko2_idle);

/* mm.mm_g2_idle(player mm.glicko, periods float8, policy jsonb DEFAULT NULL) */
Datum
mm_glicko2_idle(PG_FUNCTION_ARGS)
{
	Glicko2Policy polbuf;
	Glicko2Policy *pol = NULL;
	Glicko2Player p;
	double		periods;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	if (!PG_ARGISNULL(2))
	{
		mm_g2_policy_parse(PG_GETARG_JSONB_P(2), &polbuf);
		pol = &polbuf;
	}
	p = mm_g2_player_arg(PG_GETARG_HEAPTUPLEHEADER(0), pol, "player");
	periods = PG_GETARG_FLOAT8(1);
	mm_check_nonnegative(periods, "periods");
	PG_RETURN_DATUM(mm_g2_player_datum(fcinfo, mm_g2_idle(p, periods, pol)));
}

PG_FUNCTION_INFO_V1(mm_glicko2_expect);

/* mm.mm_g2_expect(rating, rd, opp_rating, opp_rd) */
Datum
mm_glicko2_expect(PG_FUNCTION_ARGS)
{
	double		rating = PG_GETARG_FLOAT8(0);
	double		rd = PG_GETARG_FLOAT8(1);
	double		opp_rating = PG_GETARG_FLOAT8(2);
	double		opp_rd = PG_GETARG_FLOAT8(3);

	mm_check_finite(rating, "rating");
	mm_check_positive(rd, "rd");
	mm_check_finite(opp_rating, "opp_rating");
	mm_check_positive(opp_rd, "opp_rd");
	PG_RETURN_FLOAT8(mm_g2_expect(rating, rd, opp_rating, opp_rd));
}

PG_FUNCTION_INFO_V1(mm_glicko2_effective);

/* mm.glicko2_effective(player mm.glicko): rating - rd, as GW2 uses it (the Guild Wars 2 wiki's PvP matchmaking page) */
Datum
mm_glicko2_effective(PG_FUNCTION_ARGS)
{
	Glicko2Player p = mm_g2_player_arg(PG_GETARG_HEAPTUPLEHEADER(0), NULL, "player");

	PG_RETURN_FLOAT8(mm_check_result(p.rating - p.rd, "effective rating"));
}

PG_FUNCTION_INFO_V1(mm_glicko2_policy);

/*
 * mm.glicko2_policy(policy jsonb DEFAULT '{}'): the policy with every default
 * filled in; STRICT: a NULL policy is none, and so is its resolution.
 */
Datum
mm_glicko2_policy(PG_FUNCTION_ARGS)
{
	Glicko2Policy pol;

	mm_g2_policy_parse(PG_GETARG_JSONB_P(0), &pol);
	PG_RETURN_JSONB_P(mm_config_jsonb(mm_policy_config_kind.keys, &pol));
}

PG_FUNCTION_INFO_V1(mm_glicko2_rating_at);

/*
 * mm.glicko2_rating_at(player mm.glicko, updated_at timestamptz,
 *						at timestamptz, policy jsonb DEFAULT '{}')
 * A rating last updated before the policy's reset (and read after it) is
 * the default; otherwise the deviation grows over the whole periods elapsed.
 * A NULL policy is none, as everywhere: plain Glicko-2 idle growth (no
 * reset, no max_periods rule) over periods of the default length, the
 * period mm.glicko2_replay uses without a policy.
 */
Datum
mm_glicko2_rating_at(PG_FUNCTION_ARGS)
{
	Glicko2Policy pol;
	Glicko2Player p;
	TimestampTz updated_at;
	TimestampTz at;
	double		periods;
	bool		has_policy = !PG_ARGISNULL(3);

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		PG_RETURN_NULL();
	mm_g2_policy_parse(has_policy ? PG_GETARG_JSONB_P(3) : NULL, &pol);
	updated_at = PG_GETARG_TIMESTAMPTZ(1);
	at = PG_GETARG_TIMESTAMPTZ(2);
	if (TIMESTAMP_NOT_FINITE(updated_at) || TIMESTAMP_NOT_FINITE(at))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("updated_at and at must be finite timestamps")));
	if (at < updated_at)
	{
		char	   *from = pstrdup(timestamptz_to_str(updated_at));

		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("at must not be before updated_at"),
				 errdetail("updated_at is %s, at is %s.",
						   from, timestamptz_to_str(at)),
				 errhint("Ask for the rating at or after its last update.")));
	}
	if (has_policy && !pol.reset_null)
	{
		TimestampTz reset = mm_g2_parse_timestamptz(pol.reset);

		if (updated_at < reset && at >= reset)
		{
			p.rating = pol.rating_default;
			p.rd = pol.deviation_default;
			p.vol = pol.volatility_default;
			PG_RETURN_DATUM(mm_g2_player_datum(fcinfo, p));
		}
	}
	p = mm_g2_player_arg(PG_GETARG_HEAPTUPLEHEADER(0), has_policy ? &pol : NULL, "player");
	periods = floor((at - updated_at) / (double) USECS_PER_SEC / pol.period.seconds);
	PG_RETURN_DATUM(mm_g2_player_datum(fcinfo, mm_g2_idle(p, periods, has_policy ? &pol : NULL)));
}

PG_FUNCTION_INFO_V1(mm_glicko2_blend);

/*
 * mm.glicko2_blend(core mm.glicko, profession mm.glicko, policy jsonb DEFAULT NULL)
 * (1 - ratio) * core + ratio * profession, field by field, with the
 * policy's rating.profession_ratio.
 */
Datum
mm_glicko2_blend(PG_FUNCTION_ARGS)
{
	Glicko2Policy pol;
	Glicko2Player core;
	Glicko2Player prof;
	Glicko2Player r;
	double		w;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	/* a NULL policy is none, and without one there is no ratio */
	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("glicko2_blend needs a policy"),
				 errdetail("The blend is the policy's rating.profession_ratio; a NULL policy is no policy."),
				 errhint("Pass '{}' for the Guild Wars 2 wiki's defaults.")));
	mm_g2_policy_parse(PG_GETARG_JSONB_P(2), &pol);
	core = mm_g2_player_arg(PG_GETARG_HEAPTUPLEHEADER(0), &pol, "core");
	prof = mm_g2_player_arg(PG_GETARG_HEAPTUPLEHEADER(1), &pol, "profession");
	w = pol.profession_ratio;
	/* exact at the ends: 0 is the core rating, 1 the profession rating */
	if (w == 0.0)
		r = core;
	else if (w == 1.0)
		r = prof;
	else
	{
		r.rating = (1.0 - w) * core.rating + w * prof.rating;
		r.rd = (1.0 - w) * core.rd + w * prof.rd;
		r.vol = (1.0 - w) * core.vol + w * prof.vol;
	}
	PG_RETURN_DATUM(mm_g2_player_datum(fcinfo, r));
}
