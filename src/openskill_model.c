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
#include "matcher.h"

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

/* A queue's rating.openskill_model, beta, kappa and tau. */
static const void *
os_model_queue_params(const MmMatcherConfig *cfg)
{
	MmOsOptions *o = palloc(sizeof(MmOsOptions));

	mm_os_default_options(o);
	o->model = mm_os_parse_model(cfg->openskill_model);
	o->beta = cfg->os_beta;
	o->kappa = cfg->os_kappa;
	o->tau = cfg->os_tau;
	mm_os_check_options(o);
	return o;
}

/* A new player: the queue's rating.mu and rating.sigma. */
static void
os_model_defaults(const MmMatcherConfig *cfg, double *state)
{
	state[0] = cfg->os_mu;
	state[1] = cfg->os_sigma;
}

/* A roster: the IMS party rating (mm.party_rating's defaults), deviation 0. */
static void
os_model_roster(const void *params pg_attribute_unused(), int n,
				const double *const *state, double *rating, double *deviation)
{
	double	   *mu = palloc(sizeof(double) * n);

	memcpy(mu, state[0], sizeof(double) * n);
	*rating = mm_os_party_rating(n, mu, state[1], 2, 1, 3);
	*deviation = 0;
	pfree(mu);
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
	.defaults = os_model_defaults,
	.read_at = NULL,			/* sigma grows when a player plays */
	.roster = os_model_roster,
	.conservative = os_model_conservative,
};

void
mm_os_build_game(MmOsGame *g, int n, const int64 *label, const double *rank,
				 const double *score, const double *mu, const double *sigma,
				 const double *weight)
{
	const double *state[2] = {mu, sigma};

	mm_rating_build_game(g, &mm_openskill_model, n, label, rank, score, state, weight);
}
