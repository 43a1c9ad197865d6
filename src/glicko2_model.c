/*-------------------------------------------------------------------------
 *
 * glicko2_model.c
 *		Glicko-2 as a rating family (rating_model.h): a state of rating,
 *		rd and vol; a game is one rating period in which each player meets
 *		every opposing player (1 for the better rank, 0.5 for a tie), with
 *		the tau and policy of an MmGlicko2Params.
 *
 *-------------------------------------------------------------------------
 */
#include "glicko2.h"
#include "rating_model.h"

#include <math.h>

#include "miscadmin.h"
#include "utils/float.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

static const MmRatingColumn g2_columns[] = {
	{"rating", false},
	{"rd", true},
	{"vol", true},
};

static inline Glicko2Player
g2_state(const MmRatingGame *g, int p)
{
	Glicko2Player r = {g->state[0][p], g->state[1][p], g->state[2][p]};

	return r;
}

/*
 * Rate one game: each player's period holds one game against each opposing
 * player, in player order, from the ratings before the game.
 */
static void
g2_model_rate(const void *params, const MmRatingGame *g, double *const *out)
{
	const MmGlicko2Params *prm = params;

	for (int i = 0; i < g->nplayers; i++)
	{
		double		r = g->rank[g->team_of[i]];
		Glicko2Sums sums = {0, 0, 0};
		Glicko2Player after;

		CHECK_FOR_INTERRUPTS();
		for (int j = 0; j < g->nplayers; j++)
		{
			double		s = g->rank[g->team_of[j]];

			if (g->team_of[j] == g->team_of[i])
				continue;
			mm_g2_accumulate(&sums, g->state[0][i], g->state[0][j], g->state[1][j],
							 r < s ? 1.0 : (r == s ? 0.5 : 0.0));
		}
		after = mm_g2_rate_period(g2_state(g, i), &sums, prm->tau, prm->pol);
		out[0][i] = after.rating;
		out[1][i] = after.rd;
		out[2][i] = after.vol;
	}
}

/*
 * Each team's probability of winning: a team plays as one player, its mean
 * rating with the root mean square of its deviations; each pair of teams
 * splits one win by the expected score of Glickman's step 3 (with both
 * deviations), and each team's share is divided by the number of pairs.
 * Two players: the first's expected score against the second, and one
 * minus it.
 */
static void
g2_model_predict(const void *params pg_attribute_unused(), const MmRatingGame *g,
				 double *prob)
{
	int			k = g->nteams;
	double		small[3 * MM_RATING_SMALL];
	double	   *rating = k <= MM_RATING_SMALL ? small : palloc(sizeof(double) * 3 * k);
	double	   *rd = rating + k;
	double	   *size = rd + k;
	double		denom = k * (k - 1) / 2.0;

	for (int t = 0; t < k; t++)
		rating[t] = rd[t] = size[t] = 0.0;

	for (int p = 0; p < g->nplayers; p++)
	{
		int			t = g->team_of[p];

		rating[t] += g->state[0][p];
		rd[t] += g->state[1][p] * g->state[1][p];
		size[t]++;
	}
	for (int t = 0; t < k; t++)
	{
		rating[t] /= size[t];
		rd[t] = sqrt(rd[t] / size[t]);
		prob[t] = 0.0;
	}
	for (int i = 0; i < k; i++)
	{
		CHECK_FOR_INTERRUPTS();
		for (int j = i + 1; j < k; j++)
		{
			double		e = mm_g2_expect(rating[i], rd[i], rating[j], rd[j]);

			prob[i] += e;
			prob[j] += 1.0 - e;
		}
	}
	for (int t = 0; t < k; t++)
		prob[t] /= denom;
	if (rating != small)
		pfree(rating);
}

/* The deviation grows over idle periods (mm_g2_idle, with the policy's rule). */
static void
g2_model_idle(const void *params, double *state, double periods)
{
	const MmGlicko2Params *prm = params;
	Glicko2Player p = {state[0], state[1], state[2]};

	p = mm_g2_idle(p, periods, prm->pol);
	state[0] = p.rating;
	state[1] = p.rd;
	state[2] = p.vol;
}

/* rating.options of a queue whose rating.model is "glicko2". */
typedef struct G2QueueOptions
{
	double		rating;			/* a new player's rating */
	double		rd;
	double		vol;
	double		tau;			/* the system constant */
} G2QueueOptions;

#define GO(f) offsetof(G2QueueOptions, f)

static const MmConfigKey g2_options[] = {
	{.name = "rating", .type = MM_CONFIG_FLOAT, .offset = GO(rating),
		.min = -1e15, .max = 1e15, .def = 1500,
	.doc = "a new player's Glicko-2 rating"},
	{.name = "rd", .type = MM_CONFIG_FLOAT, .flags = MM_CONFIG_MIN_EXCLUSIVE,
		.offset = GO(rd), .min = 0, .max = 1e15, .def = 350,
	.doc = "a new player's Glicko-2 rating deviation"},
	{.name = "vol", .type = MM_CONFIG_FLOAT, .flags = MM_CONFIG_MIN_EXCLUSIVE,
		.offset = GO(vol), .min = 0, .max = 1e15, .def = 0.06,
	.doc = "a new player's Glicko-2 volatility"},
	{.name = "tau", .type = MM_CONFIG_FLOAT, .flags = MM_CONFIG_MIN_EXCLUSIVE,
		.offset = GO(tau), .min = 0, .max = 1e15, .def = GLICKO2_TAU,
	.doc = "Glicko-2's system constant: how much a volatility may change (Glickman: 0.3 to 1.2)"},
	{.name = NULL}
};

#undef GO

/* A queue rates with plain Glicko-2 (no policy) and its options' tau. */
static const void *
g2_model_queue_params(const void *options)
{
	const G2QueueOptions *q = options;
	MmGlicko2Params *prm = palloc(sizeof(MmGlicko2Params));

	prm->pol = NULL;
	prm->tau = mm_g2_resolve_tau(q->tau, NULL);
	return prm;
}

/* A new player: options.rating, options.rd and options.vol. */
static void
g2_model_defaults(const void *options, double *state)
{
	const G2QueueOptions *q = options;

	state[0] = q->rating;
	state[1] = q->rd;
	state[2] = q->vol;
}

/*
 * A stored rating as of a time: as mm.glicko2_rating_at reads it with the
 * Guild Wars 2 wiki's policy ('{}'), the deviation grown over the whole
 * periods elapsed since it was last rated (the default after a reset).
 */
static void
g2_model_read_at(double *state, TimestampTz last_played, TimestampTz at)
{
	static bool have_policy = false;
	static Glicko2Policy pol;
	static TimestampTz reset;
	Glicko2Player p = {state[0], state[1], state[2]};

	if (!have_policy)
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		mm_g2_policy_parse(DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum("{}"))),
						   &pol);
		if (!pol.reset_null)
			reset = mm_g2_parse_timestamptz(pol.reset);
		MemoryContextSwitchTo(old);
		have_policy = true;
	}
	if (!pol.reset_null && last_played < reset && at >= reset)
	{
		state[0] = pol.rating_default;
		state[1] = pol.deviation_default;
		state[2] = pol.volatility_default;
		return;
	}
	p = mm_g2_idle(p, floor((at - last_played) / (double) USECS_PER_SEC / pol.period.seconds), &pol);
	state[0] = p.rating;
	state[1] = p.rd;
	state[2] = p.vol;
}

/*
 * A roster: the mean rating and the mean deviation (their difference is
 * the mean effective rating).
 */
static void
g2_model_roster(const void *params pg_attribute_unused(), int n,
				const double *const *state, double *rating, double *deviation)
{
	double		r = 0.0,
				d = 0.0;

	for (int p = 0; p < n; p++)
	{
		r += state[0][p];
		d += state[1][p];
	}
	*rating = r / n;
	*deviation = d / n;
}

/*
 * The red team's probability of winning, as g2_model_predict gives it with
 * each player carrying its roster's figures: a team's mean rating and the
 * root mean square of its deviations, and Glickman's expected score.
 */
static double
g2_model_odds(const void *params pg_attribute_unused(), int n, const int *team,
			  const int *players, const double *rating, const double *deviation)
{
	double		r[2] = {0.0, 0.0};
	double		d2[2] = {0.0, 0.0};
	double		size[2] = {0.0, 0.0};

	for (int i = 0; i < n; i++)
	{
		r[team[i]] += players[i] * rating[i];
		d2[team[i]] += players[i] * deviation[i] * deviation[i];
		size[team[i]] += players[i];
	}
	return mm_g2_expect(r[0] / size[0], sqrt(d2[0] / size[0]),
						r[1] / size[1], sqrt(d2[1] / size[1]));
}

/* rating - 2 rd. */
static double
g2_model_conservative(const double *state)
{
	return state[0] - 2 * state[1];
}

const MmRatingModel mm_glicko2_model = {
	.name = "glicko2",
	.nstate = 3,
	.columns = g2_columns,
	.rate = g2_model_rate,
	.predict = g2_model_predict,
	.idle = g2_model_idle,
	.queue_params = g2_model_queue_params,
	/* the Guild Wars 2 wiki's figures, on the Glicko scale */
	.scale = {
		.deviations = 2,
		.padding = 10,
		.rating_distance = -5,
		.rating_spread = 200,
		.roster = g2_model_roster,
		.odds = g2_model_odds,
	},
	.defaults = g2_model_defaults,
	.read_at = g2_model_read_at,
	.conservative = g2_model_conservative,
	.options = g2_options,
	.options_size = sizeof(G2QueueOptions),
	.rating_periods = true,
};
