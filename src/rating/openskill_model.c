/*-------------------------------------------------------------------------
 *
 * openskill_model.c
 *		OpenSkill (Weng-Lin) as a rating family (rating_model.h): a state of
 *		mu and sigma, rated and predicted by openskill.c's core with the
 *		options of an MmOsOptions.
 *
 *-------------------------------------------------------------------------
 */
#include "openskill.h"
#include "config.h"

#include <math.h>

static const MmRatingColumn os_columns[] = {
	{"mu", false},
	{"sigma", true},
};

/* Rate one game: out[0] the new mu, out[1] the new sigma. */
static void
os_model_rate(const void *params, const MmRatingGame *g, double *const *out)
{
	mm_os_rate(g, (const MmOsOptions *) params, out[0], out[1]);
}

/* openskill.js predictWin. */
static void
os_model_predict(const void *params, const MmRatingGame *g, double *prob)
{
	mm_os_predict_win(g, ((const MmOsOptions *) params)->beta, prob);
}

/* rating.options of a queue whose rating.model is "openskill". */
typedef struct OsQueueOptions
{
	char	   *model;			/* a Weng-Lin model of mm.openskill_rate */
	double		mu;				/* a new player's mu */
	double		sigma;			/* a new player's sigma */
	double		beta;
	double		kappa;
	double		tau;
} OsQueueOptions;

#define OO(f) offsetof(OsQueueOptions, f)

static const MmConfigKey os_options[] = {
	{.name = "model", .type = MM_CONFIG_TEXT, .offset = OO(model),
		.def_text = "plackett_luce",
	.doc = "a Weng-Lin model of mm.openskill_rate"},
	{.name = "mu", .type = MM_CONFIG_FLOAT, .offset = OO(mu),
		.min = -1e15, .max = 1e15, .def = 25.0,
	.doc = "a new player's OpenSkill mu"},
	{.name = "sigma", .type = MM_CONFIG_FLOAT, .flags = MM_CONFIG_MIN_EXCLUSIVE,
		.offset = OO(sigma), .min = 0, .max = 1e15, .def = 25.0 / 3,
	.doc = "a new player's OpenSkill sigma"},
	{.name = "beta", .type = MM_CONFIG_FLOAT, .flags = MM_CONFIG_MIN_EXCLUSIVE,
		.offset = OO(beta), .min = 0, .max = 1e15, .def = 25.0 / 6,
	.doc = "OpenSkill beta"},
	{.name = "kappa", .type = MM_CONFIG_FLOAT, .flags = MM_CONFIG_MIN_EXCLUSIVE,
		.offset = OO(kappa), .min = 0, .max = 1e15, .def = 0.0001,
	.doc = "OpenSkill kappa"},
	{.name = "tau", .type = MM_CONFIG_FLOAT, .offset = OO(tau),
		.min = 0, .max = 1e15, .def = 25.0 / 300,
	.doc = "OpenSkill tau"},
	{.name = NULL}
};

#undef OO

const MmConfigKind mm_openskill_options_kind = {
	.kind = "openskill_options", .what = "OpenSkill options", .keys = os_options,
	.size = sizeof(OsQueueOptions)
};

/* The options' Weng-Lin model, beta, kappa and tau (checked). */
static const void *
os_model_queue_params(const void *options)
{
	const OsQueueOptions *q = options;
	MmOsOptions *o = palloc(sizeof(MmOsOptions));

	mm_os_default_options(o);
	o->model = mm_os_parse_model(q->model);
	o->beta = q->beta;
	o->kappa = q->kappa;
	o->tau = q->tau;
	mm_os_check_options(o);
	return o;
}

/* A new player: options.mu and options.sigma. */
static void
os_model_defaults(const void *options, double *state)
{
	const OsQueueOptions *q = options;

	state[0] = q->mu;
	state[1] = q->sigma;
}

/*
 * A roster's figures: its players' mean mu, and the root mean square of
 * their sigmas, so that a team's sums (mu summed, sigma^2 summed, as
 * Weng-Lin rates a team) are the rosters' figures times their players.
 */
static void
os_model_roster(const void *params pg_attribute_unused(), int n,
				const double *const *state, double *rating, double *deviation)
{
	double		mu = 0.0,
				s2 = 0.0;

	for (int p = 0; p < n; p++)
	{
		mu += state[0][p];
		s2 += state[1][p] * state[1][p];
	}
	*rating = mu / n;
	*deviation = sqrt(s2 / n);
}

/*
 * The red team's probability of winning under the queue's own Weng-Lin
 * model, the two-team likelihood its update assumes: with the teams' sums
 * mu_r, mu_b, s2_r, s2_b and c = sqrt(s2_r + s2_b + 2 beta^2) (Weng and
 * Lin's c for two teams), the logistic 1 / (1 + exp(-(mu_r - mu_b) / c))
 * for Plackett-Luce and Bradley-Terry, Phi((mu_r - mu_b) / c) for
 * Thurstone-Mosteller. (openskill.js's predictWin puts Phi over the same
 * c for every model, which for Plackett-Luce claims more than the ratings
 * learnt: the odds would not be calibrated.)
 *
 * The sigmas are those the game will be rated with: Weng and Lin's
 * dynamics (openskill.js's rate, and mm_os_rate) add tau^2 to every
 * player's sigma^2 before the update, the drift of a skill until the game
 * is played, so the prediction of that game carries it too: s2 of a team
 * of m players is its sum of sigma^2 plus m tau^2.
 */
static double
os_model_odds(const void *params, int n, const int *team, const int *players,
			  const double *rating, const double *deviation)
{
	const MmOsOptions *o = params;
	double		mu[2] = {0.0, 0.0};
	double		s2[2] = {0.0, 0.0};
	double		x;

	for (int i = 0; i < n; i++)
	{
		mu[team[i]] += players[i] * rating[i];
		s2[team[i]] += players[i] * (deviation[i] * deviation[i] + o->tau * o->tau);
	}
	x = (mu[0] - mu[1]) / sqrt(s2[0] + s2[1] + 2.0 * o->beta * o->beta);
	if (o->model == MM_OS_THURSTONE_MOSTELLER_FULL ||
		o->model == MM_OS_THURSTONE_MOSTELLER_PART)
		return mm_os_phi(x);
	return 1.0 / (1.0 + exp(-x));
}

/* The ordinal mu - 3 sigma (mm.ordinal). */
static double
os_model_conservative(const double *state)
{
	return state[0] - 3 * state[1];
}

const MmRatingModel mm_openskill_model = {
	.name = "openskill",
	.nstate = 2,
	.columns = os_columns,
	.rate = os_model_rate,
	.predict = os_model_predict,
	.idle = NULL,				/* tau grows sigma when a player plays */
	.queue_params = os_model_queue_params,
	/*
	 * the GW2 figures (Glicko scale) rescaled by 42, rd 350 over sigma 25/3:
	 * padding and spread divided, rating distance (per mu) multiplied,
	 * rounded; a range of two deviations (about 95%)
	 */
	.scale = {
		.deviations = 2,
		.padding = 0.25,
		.rating_distance = -200,
		.rating_spread = 5,
		.roster = os_model_roster,
		.odds = os_model_odds,
	},
	.defaults = os_model_defaults,
	.read_at = NULL,			/* sigma grows when a player plays */
	.conservative = os_model_conservative,
	.options = os_options,
	.options_size = sizeof(OsQueueOptions),
};

void
mm_os_build_game(MmOsGame *g, int n, const int64 *label, const double *rank,
				 const double *score, const double *mu, const double *sigma,
				 const double *weight)
{
	const double *state[2] = {mu, sigma};

	mm_rating_build_game(g, &mm_openskill_model, n, label, rank, score, state, weight);
}
