/*-------------------------------------------------------------------------
 *
 * rating_model.c
 *		The rating families (rating_model.h): the list mm looks them up in,
 *		and the game they all rate, built and checked once for every family.
 *
 *-------------------------------------------------------------------------
 */
#include "rating_model.h"

#include <math.h>

#include "lib/stringinfo.h"
#include "miscadmin.h"

/* Every family; a new one is one line here. */
static const MmRatingModel *const rating_models[] = {
	&mm_openskill_model,
	&mm_glicko2_model,
};

const MmRatingModel *
mm_rating_model_find(const char *name)
{
	for (size_t i = 0; i < lengthof(rating_models); i++)
		if (strcmp(rating_models[i]->name, name) == 0)
			return rating_models[i];
	return NULL;
}

const MmRatingModel *
mm_rating_model_at(int i)
{
	return i >= 0 && i < (int) lengthof(rating_models) ? rating_models[i] : NULL;
}

const char *
mm_rating_model_names(void)
{
	StringInfoData b;

	initStringInfo(&b);
	for (size_t i = 0; i < lengthof(rating_models); i++)
		appendStringInfo(&b, "%s\"%s\"",
						 i == 0 ? "" : (i + 1 < lengthof(rating_models) ? ", " : " or "),
						 rating_models[i]->name);
	return b.data;
}

/* The checks of mm.h, called only when a value fails them (the common case costs a compare). */
#define RATING_CHECK_FINITE(x, what) \
	do { if (unlikely(!isfinite(x))) mm_check_finite((x), (what)); } while (0)
#define RATING_CHECK_POSITIVE(x, what) \
	do { if (unlikely(!(isfinite(x) && (x) > 0.0))) mm_check_positive((x), (what)); } while (0)
#define RATING_CHECK_NONNEGATIVE(x, what) \
	do { if (unlikely(!(isfinite(x) && (x) >= 0.0))) mm_check_nonnegative((x), (what)); } while (0)

/* Order player indexes by team label, then by position (qsort_arg). */
static int
cmp_label_index(const void *a, const void *b, void *arg)
{
	const int64 *label = (const int64 *) arg;
	int			x = *(const int *) a,
				y = *(const int *) b;

	if (label[x] != label[y])
		return label[x] < label[y] ? -1 : 1;
	return x < y ? -1 : (x > y ? 1 : 0);
}

/*
 * Number the teams in order of first appearance: team_of[p] for every
 * player, returns the team count. Sorting the players by label (O(n log n))
 * finds each team's first player without comparing every player with every
 * team seen so far.
 */
static int
rating_number_teams(int n, const int64 *label, int *team_of)
{
	int		   *by_label;
	int		   *first;			/* player -> team's first player */
	int			k = 0;

	if (n <= MM_RATING_SMALL)
	{
		/* few players: compare each with the teams seen so far */
		int64		seen[MM_RATING_SMALL];

		for (int p = 0; p < n; p++)
		{
			int			t = 0;

			while (t < k && seen[t] != label[p])
				t++;
			if (t == k)
				seen[k++] = label[p];
			team_of[p] = t;
		}
		return k;
	}
	by_label = palloc(sizeof(int) * n);
	first = palloc(sizeof(int) * n);
	for (int p = 0; p < n; p++)
		by_label[p] = p;
	qsort_arg(by_label, n, sizeof(int), cmp_label_index, (void *) label);
	for (int i = 0; i < n; i++)
	{
		int			p = by_label[i];

		first[p] = (i > 0 && label[by_label[i - 1]] == label[p]) ?
			first[by_label[i - 1]] : p;
	}
	/* in input order, a player that is its team's first opens a new team */
	for (int p = 0; p < n; p++)
	{
		CHECK_FOR_INTERRUPTS();
		team_of[p] = (first[p] == p) ? k++ : team_of[first[p]];
	}
	pfree(by_label);
	pfree(first);
	return k;
}

void
mm_rating_build_game(MmRatingGame *g, const MmRatingModel *model, int n,
					 const int64 *label, const double *rank,
					 const double *score, const double *const *state,
					 const double *weight)
{
	int		   *team_of;
	double	   *trank;
	double	   *tscore;
	bool		small_seen[MM_RATING_SMALL];
	bool	   *seen;
	int			k;

	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a game needs players"),
				 errhint("Pass one array element per player.")));
	team_of = n <= MM_RATING_SMALL ? g->small_team_of : palloc(sizeof(int) * n);
	k = rating_number_teams(n, label, team_of);
	trank = k <= MM_RATING_SMALL ? g->small_rank : palloc(sizeof(double) * k);
	tscore = score ? palloc(sizeof(double) * k) : NULL;
	seen = k <= MM_RATING_SMALL ? small_seen : palloc(sizeof(bool) * k);
	memset(seen, 0, sizeof(bool) * k);
	for (int p = 0; p < n; p++)
	{
		int			t = team_of[p];

		CHECK_FOR_INTERRUPTS();
		for (int c = 0; c < model->nstate; c++)
		{
			if (model->columns[c].positive)
				RATING_CHECK_POSITIVE(state[c][p], model->columns[c].name);
			else
				RATING_CHECK_FINITE(state[c][p], model->columns[c].name);
		}
		if (rank)
			RATING_CHECK_FINITE(rank[p], "rank");
		if (score)
			RATING_CHECK_FINITE(score[p], "score");
		if (weight)
			RATING_CHECK_NONNEGATIVE(weight[p], "weight");
		if (!seen[t])
		{
			seen[t] = true;
			trank[t] = rank ? rank[p] : (score ? -score[p] : 0.0);
			if (score)
				tscore[t] = score[p];
		}
		else if (rank && trank[t] != rank[p])
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("ranks differ inside team " INT64_FORMAT, label[p]),
					 errdetail("Player %d has rank %g, an earlier player of the team has %g.",
							   p + 1, rank[p], trank[t]),
					 errhint("A rank belongs to a team: give every player of a team the same rank.")));
		else if (score && tscore[t] != score[p])
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("scores differ inside team " INT64_FORMAT, label[p]),
					 errdetail("Player %d has score %g, an earlier player of the team has %g.",
							   p + 1, score[p], tscore[t]),
					 errhint("A score belongs to a team: give every player of a team the same score.")));
	}
	if (seen != small_seen)
		pfree(seen);
	if (k < 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a game needs at least two teams"),
				 errdetail("All %d players are in team " INT64_FORMAT ".", n, label[0]),
				 errhint("Label each player's team in the team array.")));
	g->nplayers = n;
	g->nteams = k;
	g->team_of = team_of;
	g->rank = trank;
	g->score = tscore;
	for (int c = 0; c < model->nstate; c++)
		g->state[c] = state[c];
	g->weight = weight;
}
