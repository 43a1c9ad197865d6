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
	int			k = cfg->nteams;
	int		   *team = palloc(sizeof(int) * 2 * n);
	int		   *players = team + n;
	double	   *rating = palloc(sizeof(double) * 2 * n);
	double	   *deviation = rating + n;

	Assert(model != NULL);
	params = model->queue_params(cfg->rating.options);
	if (k == 2)
	{
		for (int x = 0; x < n; x++)
		{
			const MmRoster *r = &rosters[mt->members[x]];

			team[x] = r->team;
			players[x] = r->players;
			rating[x] = r->rating;
			deviation[x] = r->deviation;
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
					const MmRoster *r = &rosters[mt->members[x]];

					if (r->team != i && r->team != j)
						continue;
					team[m] = r->team == i ? 0 : 1;
					players[m] = r->players;
					rating[m] = r->rating;
					deviation[m] = r->deviation;
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
	pfree(team);
	pfree(rating);
	pfree((void *) params);
}
