/*-------------------------------------------------------------------------
 *
 * elo.c
 *		Classic Elo as a rating family (rating_model.h).
 *
 * A player's state is its rating and the games Elo has counted for it. The
 * expected score of a rating r against an opponent's o is the logistic
 * 1 / (1 + 10^((o - r) / scale)), scale 400 (Elo's, FIDE's); a game's
 * score is 1 for a win, 1/2 for a draw and 0 for a loss, and the rating
 * moves by K * (score - expected). K is rating.options.k, or
 * k_provisional while the player has played fewer than provisional_games
 * games (FIDE's development coefficient: 40 for a new player's first 30
 * games, then 20).
 *
 * Teams play as their players' mean rating. With more than two teams a
 * team meets every other team: its score and its expected score are the
 * means over those pairings, so that K bounds the change of one game. A
 * player who played a share w of the match (a weight) moves by w times
 * the team's change. Ratings are not rounded (FIDE rounds a rating
 * period's change to a whole number; mm keeps the exact value).
 *
 *-------------------------------------------------------------------------
 */
#include "rating_model.h"
#include "config.h"

#include <math.h>

#include "miscadmin.h"

/* rating.options of a queue whose rating.model is "elo". */
typedef struct EloOptions
{
	double		k;				/* the K-factor */
	double		k_provisional;	/* while games < provisional_games */
	int			provisional_games;	/* 0: no provisional K */
	double		scale;			/* 400: 10 times the odds per 400 points */
	double		initial;		/* a new player's rating */
} EloOptions;

#define EO(f) offsetof(EloOptions, f)

static const MmConfigKey elo_options[] = {
	{.name = "k", .type = MM_CONFIG_FLOAT, .flags = MM_CONFIG_MIN_EXCLUSIVE,
		.offset = EO(k), .min = 0, .max = 1e6, .def = 32,
	.doc = "Elo K-factor: the most a rating moves in one game"},
	{.name = "k_provisional", .type = MM_CONFIG_FLOAT, .flags = MM_CONFIG_MIN_EXCLUSIVE,
		.offset = EO(k_provisional), .min = 0, .max = 1e6, .def = 40,
	.doc = "Elo K-factor while a player has played fewer than provisional_games games"},
	{.name = "provisional_games", .type = MM_CONFIG_INT, .offset = EO(provisional_games),
		.min = 0, .max = 1000000, .def = 0, .unit = "games",
	.doc = "games a player plays with k_provisional (0: none; FIDE: 30)"},
	{.name = "scale", .type = MM_CONFIG_FLOAT, .flags = MM_CONFIG_MIN_EXCLUSIVE,
		.offset = EO(scale), .min = 0, .max = 1e9, .def = 400,
	.doc = "rating difference at which the stronger side's odds are 10 to 1"},
	{.name = "initial", .type = MM_CONFIG_FLOAT, .offset = EO(initial),
		.min = -1e9, .max = 1e9, .def = 1500,
	.doc = "a new player's Elo rating"},
	{.name = NULL}
};

const MmConfigKind mm_elo_options_kind = {
	.kind = "elo_options", .what = "Elo options", .keys = elo_options,
	.size = sizeof(EloOptions)
};

static const MmRatingColumn elo_columns[] = {
	{"rating", false},
	{"games", false},
};

/* The expected score of rating r against rating o. */
static inline double
elo_expect(double r, double o, double scale)
{
	return 1.0 / (1.0 + pow(10.0, (o - r) / scale));
}

/* Each team's mean rating into mean[] (k teams; mean has room for k). */
static void
elo_team_means(const MmRatingGame *g, double *mean, double *size)
{
	for (int t = 0; t < g->nteams; t++)
		mean[t] = size[t] = 0.0;
	for (int p = 0; p < g->nplayers; p++)
	{
		mean[g->team_of[p]] += g->state[0][p];
		size[g->team_of[p]] += 1.0;
	}
	for (int t = 0; t < g->nteams; t++)
		mean[t] /= size[t];
}

/*
 * Rate one game: each team's mean score minus its mean expected score over
 * its pairings with the other teams, times each player's K and weight.
 */
static void
elo_rate(const void *params, const MmRatingGame *g, double *const *out)
{
	const EloOptions *o = params;
	int			k = g->nteams;
	double		small[3 * MM_RATING_SMALL];
	double	   *mean = k <= MM_RATING_SMALL ? small : palloc(sizeof(double) * 3 * k);
	double	   *size = mean + k;
	double	   *delta = size + k;

	elo_team_means(g, mean, size);
	for (int t = 0; t < k; t++)
	{
		double		score = 0.0,
					expect = 0.0;

		CHECK_FOR_INTERRUPTS();
		for (int u = 0; u < k; u++)
		{
			if (u == t)
				continue;
			score += g->rank[t] < g->rank[u] ? 1.0 : (g->rank[t] == g->rank[u] ? 0.5 : 0.0);
			expect += elo_expect(mean[t], mean[u], o->scale);
		}
		delta[t] = (score - expect) / (k - 1);
	}
	for (int p = 0; p < g->nplayers; p++)
	{
		double		games = g->state[1][p];
		double		kf = games < o->provisional_games ? o->k_provisional : o->k;
		double		w = g->weight ? g->weight[p] : 1.0;

		out[0][p] = g->state[0][p] + kf * w * delta[g->team_of[p]];
		out[1][p] = games + 1.0;
	}
	if (mean != small)
		pfree(mean);
}

/*
 * Each team's probability of winning: each pair of teams splits one win by
 * the expected score of their mean ratings, and each team's share is
 * divided by the number of pairs (two teams: the expected scores).
 */
static void
elo_predict(const void *params, const MmRatingGame *g, double *prob)
{
	const EloOptions *o = params;
	int			k = g->nteams;
	double		small[2 * MM_RATING_SMALL];
	double	   *mean = k <= MM_RATING_SMALL ? small : palloc(sizeof(double) * 2 * k);
	double	   *size = mean + k;
	double		pairs = k * (k - 1) / 2.0;

	elo_team_means(g, mean, size);
	for (int t = 0; t < k; t++)
		prob[t] = 0.0;
	for (int t = 0; t < k; t++)
	{
		CHECK_FOR_INTERRUPTS();
		for (int u = t + 1; u < k; u++)
		{
			double		e = elo_expect(mean[t], mean[u], o->scale);

			prob[t] += e;
			prob[u] += 1.0 - e;
		}
	}
	for (int t = 0; t < k; t++)
		prob[t] /= pairs;
	if (mean != small)
		pfree(mean);
}

/* A queue's rating.options (read by the config spine with elo_options). */
static const void *
elo_queue_params(const void *options)
{
	EloOptions *o = palloc(sizeof(EloOptions));

	memcpy(o, options, sizeof(EloOptions));
	return o;
}

/* A new player: rating.options.initial, no games. */
static void
elo_defaults(const void *options, double *state)
{
	const EloOptions *o = options;

	state[0] = o->initial;
	state[1] = 0.0;
}

/*
 * A roster: its players' mean rating, and as its deviation the spread an
 * Elo rating keeps around a fixed skill. Elo carries no uncertainty of its
 * own, but each game moves a rating by K (S - E); near even odds E moves
 * by ln 10 / (4 scale) per point of difference and S - E has variance
 * 1/4, so the rating wanders around the player's skill with variance
 * K scale / (2 ln 10): about 53 points for K 32 on the 400 scale. A
 * roster's range is that many points either side of its rating (times
 * filter.deviations), so new rosters overlap their neighbours at once
 * instead of waiting for padding.
 */
static void
elo_roster(const void *params, int n,
		   const double *const *state, double *rating, double *deviation)
{
	const EloOptions *o = params;
	double		sum = 0.0;

	for (int i = 0; i < n; i++)
		sum += state[0][i];
	*rating = sum / n;
	*deviation = sqrt(o->k * o->scale / (2.0 * M_LN10));
}

/*
 * The red team's probability of winning: Elo's expected score of the two
 * teams' mean ratings (every player carrying its roster's rating), as
 * elo_predict gives it for two teams.
 */
static double
elo_odds(const void *params, int n, const int *team, const int *players,
		 const double *rating, const double *deviation pg_attribute_unused())
{
	const EloOptions *o = params;
	double		r[2] = {0.0, 0.0};
	double		size[2] = {0.0, 0.0};

	for (int i = 0; i < n; i++)
	{
		r[team[i]] += players[i] * rating[i];
		size[team[i]] += players[i];
	}
	return elo_expect(r[0] / size[0], r[1] / size[1], o->scale);
}

/* The rating itself. */
static double
elo_conservative(const double *state)
{
	return state[0];
}

const MmRatingModel mm_elo_model = {
	.name = "elo",
	.nstate = 2,
	.columns = elo_columns,
	.rate = elo_rate,
	.predict = elo_predict,
	.idle = NULL,				/* an Elo rating does not change while idle */
	.queue_params = elo_queue_params,
	/* the Glicko scale's figures: Elo's 400 is the same logistic scale */
	.scale = {
		.deviations = 2,
		.padding = 10,
		.rating_distance = -5,
		.rating_spread = 200,
		.roster = elo_roster,
		.odds = elo_odds,
	},
	.defaults = elo_defaults,
	.read_at = NULL,
	.conservative = elo_conservative,
	.options = elo_options,
	.options_size = sizeof(EloOptions),
};
