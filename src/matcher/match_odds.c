/*-------------------------------------------------------------------------
 *
 * match_odds.c
 *		The figures stored with a match the matcher made: its prediction
 *		(the Guild Wars 2 wiki's, over any number of teams) and each team's
 *		odds under the queue's rating model.
 *
 *-------------------------------------------------------------------------
 */
#include "matcher.h"
#include "odds_scale.h"
#include "rating_model.h"

/*
 * The prediction of a match made by the matcher: GW2's, red against blue,
 * in [-1, 1] (-1: red dominates). With more teams, that of the most
 * lopsided pairing (mm_predict_match): over the pairs of teams i < j in
 * team order (i as red), the prediction of largest magnitude, the first
 * such pair on a tie; so -1 says that some team dominates a later one, and
 * 0 that every pairing is even.
 */
StaticAssertDecl(MM_TEAMS <= MM_PREDICTION_TEAMS, "a queue's teams are a match's teams");

double
mm_matcher_prediction(const MmMatch *mt, const MmMatcherConfig *cfg)
{
	MmTeamSummary teams[MM_TEAMS];

	for (int t = 0; t < cfg->nteams; t++)
	{
		teams[t].avg_rank = mt->avg_rank[t];
		teams[t].avg_rating_low = mt->avg_rating_low[t];
		teams[t].max_roster_size = mt->max_roster_size[t];
	}
	return mm_predict_match(teams, cfg->nteams, &cfg->prediction, NULL);
}

/*
 * Each team's odds of winning, in team order, from rosters r[0..n-1] on
 * teams team_of[] (see matcher.h). At two teams red's is the family's
 * odds, scaled, and blue's one minus it; with k teams, team i's is
 * 2 / (k (k - 1)) times the sum over j != i of its scaled odds against j,
 * each pairing's rosters taken in the given order. Returns the largest.
 */
double
mm_split_odds(const MmRatingModel *model, const void *params, int nteams, int n,
			  const MmRoster *const *r, const int *team_of, double scale,
			  double *odds, int *iws, double *dws)
{
	int		   *team = iws;
	int		   *players = iws + n;
	double	   *rating = dws;
	double	   *deviation = dws + n;
	int			k = nteams;
	double		favourite = 0;

	if (k == 2)
	{
		for (int x = 0; x < n; x++)
		{
			team[x] = team_of[x];
			players[x] = r[x]->players;
			rating[x] = r[x]->rating;
			deviation[x] = r[x]->deviation;
		}
		odds[0] = mm_odds_scaled(model->scale.odds(params, n, team, players, rating, deviation),
								 scale);
		odds[1] = 1.0 - odds[0];
	}
	else
	{
		for (int t = 0; t < k; t++)
			odds[t] = 0;
		for (int i = 0; i < k; i++)
			for (int j = i + 1; j < k; j++)
			{
				int			m = 0;
				double		e;

				/* the rosters of teams i (as red, 0) and j (as blue, 1) */
				for (int x = 0; x < n; x++)
				{
					if (team_of[x] != i && team_of[x] != j)
						continue;
					team[m] = team_of[x] == i ? 0 : 1;
					players[m] = r[x]->players;
					rating[m] = r[x]->rating;
					deviation[m] = r[x]->deviation;
					m++;
				}
				e = mm_odds_scaled(model->scale.odds(params, m, team, players, rating, deviation),
								   scale);
				odds[i] += e;
				odds[j] += 1.0 - e;
			}
		for (int t = 0; t < k; t++)
			odds[t] /= k * (k - 1) / 2.0;
	}
	for (int t = 0; t < k; t++)
		favourite = Max(favourite, odds[t]);
	return favourite;
}

/*
 * The odds of a match made by the matcher, each team's probability of
 * winning under the queue's rating model from its rosters' figures
 * (rating_model.h's MmRatingScale.odds, red against blue), scaled by the
 * queue's calibration (mm_odds_scaled; scale 1 leaves them as they are):
 * at two teams red's is the family's odds scaled and blue's one minus it.
 * With k teams, team i's is the mean over its pairings of its scaled odds
 * against the other team, times 2 / k: odds_i = 2 / (k (k - 1)) sum over
 * j != i of P(i beats j), the pairwise form the families' predict uses
 * for k teams; the odds add up to one.
 */
void
mm_matcher_odds(const MmMatch *mt, const MmRoster *rosters, const MmMatcherConfig *cfg,
				double scale, double *odds)
{
	const MmRatingModel *model = mm_rating_model_find(cfg->rating.model);
	const void *params;
	int			n = mt->nmembers;
	const MmRoster **r = palloc(sizeof(MmRoster *) * Max(n, 1));
	int		   *team_of = palloc(sizeof(int) * 3 * Max(n, 1));
	double	   *dws = palloc(sizeof(double) * 2 * Max(n, 1));

	Assert(model != NULL);
	params = model->queue_params(cfg->rating.options);
	for (int x = 0; x < n; x++)
	{
		r[x] = &rosters[mt->members[x]];
		team_of[x] = r[x]->team;
	}
	(void) mm_split_odds(model, params, cfg->nteams, n, r, team_of, scale, odds,
						 team_of + n, dws);
	pfree(r);
	pfree(team_of);
	pfree(dws);
	pfree((void *) params);
}
