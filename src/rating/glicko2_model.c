/*-------------------------------------------------------------------------
 *
 * glicko2_model.c
 *		Glicko-2 as a rating family (rating_model.h): a state of rating,
 *		rd and vol; a game is one rating period in which each player meets
 *		each opposing team once, by a team likelihood on the teams' mean
 *		ratings (1 for the better rank, 0.5 for a tie), with the tau and
 *		policy of an MmGlicko2Params.
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
 * The team likelihood (docs/ratings.md, "Glicko-2 in teams"). On the
 * Glicko-2 scale a team's strength is its players' mean mu, and team A
 * beats team B with probability
 *
 *		E = 1 / (1 + exp(-g(phi) (M_A - M_B))),  M_t = (1/n_t) sum_{k in t} mu_k,
 *
 * phi^2 the variance of M_A - M_B, sum over both teams of phi_k^2 / n_t^2
 * (Glickman's g over the ratings' uncertainty, as step 3 takes it over an
 * opponent's). A player's update takes its own mu as the unknown and every
 * other player's as uncertain: phi^2 without its own term, and the
 * derivative of the log-likelihood with respect to its mu, which is
 * (g / n_A) (s - E), with the information (g / n_A)^2 E (1 - E). These are
 * step 3's and 4's terms of one game with g_j = g / n_A, so they go into a
 * Glicko2Sums and the rest of the period (volatility, steps 5-8) is
 * Glickman's. A player of a team of one against a team of one has n_A 1
 * and phi^2 = phi_j^2: Glickman's game, to the bit.
 */
typedef struct G2Teams
{
	double	   *mean;			/* M_t */
	double	   *var;			/* sum_{k in t} phi_k^2 / n_t^2 */
	double	   *size;			/* n_t */
	double		small[3 * MM_RATING_SMALL];
} G2Teams;

/* Each team's mean mu, the variance of that mean and its size. */
static void
g2_teams(const MmRatingGame *g, G2Teams *t)
{
	int			k = g->nteams;

	t->mean = k <= MM_RATING_SMALL ? t->small : palloc(sizeof(double) * 3 * k);
	t->var = t->mean + k;
	t->size = t->var + k;
	for (int i = 0; i < k; i++)
		t->mean[i] = t->var[i] = t->size[i] = 0.0;
	for (int p = 0; p < g->nplayers; p++)
	{
		int			i = g->team_of[p];
		double		phi = g->state[1][p] / GLICKO2_SCALE;

		t->mean[i] += (g->state[0][p] - GLICKO2_CENTRE) / GLICKO2_SCALE;
		t->var[i] += phi * phi;
		t->size[i]++;
	}
	for (int i = 0; i < k; i++)
	{
		t->mean[i] /= t->size[i];
		t->var[i] /= t->size[i] * t->size[i];
	}
}

static void
g2_teams_free(G2Teams *t)
{
	if (t->mean != t->small)
		pfree(t->mean);
}

/*
 * Rate one game: each player's period holds one game against each opposing
 * team, its terms from the team likelihood above (a team of one player
 * against a team of one: Glickman's game against that player), all from
 * the ratings before the game; 1 for the better rank, 0.5 for a tie.
 */
static void
g2_model_rate(const void *params, const MmRatingGame *g, double *const *out)
{
	const MmGlicko2Params *prm = params;
	G2Teams		t;

	g2_teams(g, &t);
	for (int i = 0; i < g->nplayers; i++)
	{
		int			a = g->team_of[i];
		double		phi = g->state[1][i] / GLICKO2_SCALE;
		double		own = fmax(t.var[a] - phi * phi / (t.size[a] * t.size[a]), 0.0);
		Glicko2Sums sums = {0, 0, 0};
		Glicko2Player after;

		CHECK_FOR_INTERRUPTS();
		for (int b = 0; b < g->nteams; b++)
		{
			double		gb,
						gw,
						e,
						s;

			if (b == a)
				continue;
			s = g->rank[a] < g->rank[b] ? 1.0 : (g->rank[a] == g->rank[b] ? 0.5 : 0.0);
			gb = glicko2_g(sqrt(own + t.var[b]));
			e = glicko2_e(t.mean[a], t.mean[b], gb);
			gw = gb / t.size[a];
			sums.v_inv += gw * gw * e * (1.0 - e);
			sums.delta_sum += gw * (s - e);
			sums.n += 1.0;
		}
		after = mm_g2_rate_period(g2_state(g, i), &sums, prm->tau, prm->pol);
		out[0][i] = after.rating;
		out[1][i] = after.rd;
		out[2][i] = after.vol;
	}
	g2_teams_free(&t);
}

/*
 * Each team's probability of winning: each pair of teams splits one win by
 * the team likelihood's E, with every player's deviation (phi^2 the sum of
 * both teams' variances of their means), and each team's share is divided
 * by the number of pairs. Two players: mm_g2_expect of the first against
 * the second, and one minus it.
 */
static void
g2_model_predict(const void *params pg_attribute_unused(), const MmRatingGame *g,
				 double *prob)
{
	int			k = g->nteams;
	double		denom = k * (k - 1) / 2.0;
	G2Teams		t;

	g2_teams(g, &t);
	for (int i = 0; i < k; i++)
		prob[i] = 0.0;
	for (int i = 0; i < k; i++)
	{
		CHECK_FOR_INTERRUPTS();
		for (int j = i + 1; j < k; j++)
		{
			double		e = glicko2_e(t.mean[i], t.mean[j],
									  glicko2_g(sqrt(t.var[i] + t.var[j])));

			prob[i] += e;
			prob[j] += 1.0 - e;
		}
	}
	for (int i = 0; i < k; i++)
		prob[i] /= denom;
	g2_teams_free(&t);
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

const MmConfigKind mm_glicko2_options_kind = {
	.kind = "glicko2_options", .what = "Glicko-2 options", .keys = g2_options,
	.size = sizeof(G2QueueOptions)
};

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
 * The red team's probability of winning: the team likelihood's E, a team's
 * mean mu from its rosters' means. The players of a roster queue together
 * and are rated from the same results, so their errors are not
 * independent: a roster of m players with mean deviation d adds (m d)^2 to
 * the variance of its team's sum, the bound sd(sum) <= sum of sd's, which
 * it reaches when they always play together; rosters count as independent.
 * A roster of one player adds its phi^2, as g2_model_predict counts every
 * player (a game of rosters of one: exactly its prediction).
 */
static double
g2_model_odds(const void *params pg_attribute_unused(), int n, const int *team,
			  const int *players, const double *rating, const double *deviation)
{
	double		mu[2] = {0.0, 0.0};
	double		var[2] = {0.0, 0.0};
	double		size[2] = {0.0, 0.0};

	for (int i = 0; i < n; i++)
	{
		double		phi = deviation[i] / GLICKO2_SCALE;

		mu[team[i]] += players[i] * ((rating[i] - GLICKO2_CENTRE) / GLICKO2_SCALE);
		var[team[i]] += players[i] * players[i] * phi * phi;
		size[team[i]] += players[i];
	}
	for (int t = 0; t < 2; t++)
	{
		mu[t] /= size[t];
		var[t] /= size[t] * size[t];
	}
	return glicko2_e(mu[0], mu[1], glicko2_g(sqrt(var[0] + var[1])));
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
