/*-------------------------------------------------------------------------
 *
 * bayes_fit.c
 *		The offline Bayesian fit of a team-match history: every player's
 *		skill from all the games at once, the limit an online rating
 *		system approaches (mm.bayes_fit, mm.bayes_refit).
 *
 * The model is the Plackett-Luce model on team sums with a Gaussian
 * prior (Bradley-Terry's when a game has two teams):
 *
 *	- each player i has a skill theta_i ~ N(0, prior_sd^2), independent;
 *	- a team t of a game performs u_t = sum over its players of
 *	  w_i theta_i / beta (w_i the player's weight, 1 by default);
 *	- the teams' order is drawn as Plackett and Luce's: the best team is t
 *	  with probability exp(u_t) / sum over teams exp(u), then the best of
 *	  the rest, and so on. At two teams red beats blue with probability
 *	  1 / (1 + exp(-(sum red - sum blue) / beta)), the logistic truth of
 *	  mm's season simulation (beta 2 there); the order of any game is the
 *	  one the teams' performances plus Gumbel noise of scale beta give;
 *	- teams that share a rank (a draw) each count against every team
 *	  ranked as well or worse (Breslow's handling of ties, from survival
 *	  analysis: a draw of two teams weighs as each one beating the other).
 *
 * The log posterior is concave (a sum of log-sum-exp terms and the
 * prior's quadratic), so its maximum, the posterior mode (MAP), is unique.
 * It is found by cyclic coordinate Newton steps: each player's skill in
 * turn moves by the log posterior's first over second derivative in it,
 * the others fixed, the teams' performances updated in place (a step is
 * capped at prior_sd + beta); sweeps repeat until no skill moves by more
 * than 1e-10 prior_sd (at most 10,000 sweeps: a WARNING says when that is
 * not enough). Up to MM_BAYES_EXACT players, the sweeps stop at 1e-6 and
 * Newton's method on the whole Hessian finishes (teammates who always play
 * together converge slowly one coordinate at a time: only the prior tells
 * them apart), to a step below 1e-13 prior_sd.
 *
 * The uncertainty is Laplace's: the inverse of the negative Hessian of the
 * log posterior at the mode is the posterior's covariance, its diagonal
 * each player's variance. Up to MM_BAYES_EXACT players the whole Hessian
 * is factored (Cholesky, O(n^3)) and inverted; beyond, a player's deviation
 * is 1 / sqrt of its own second derivative, the deviation given every
 * other player's skill (it understates the uncertainty of players who
 * always play with the same teammates, whose skills only their sum tells).
 *
 * The games come through the streaming replay driver (replay.h), as the
 * rating replays read them: (match key, player_id, team, rank[, weight]),
 * the rows of a match consecutive; the fit keeps every game in memory.
 *
 *-------------------------------------------------------------------------
 */
#include "replay.h"

#include <math.h>

#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

/* Up to this many players the deviations come from the whole Hessian. */
#define MM_BAYES_EXACT 1000

#define MAX_SWEEPS 10000

static const MmReplayColumn bf_columns[] = {
	{"player_id", MM_REPLAY_WHOLE},
	{"team", MM_REPLAY_WHOLE},
	{"rank", MM_REPLAY_NUMBER},
	{"weight", MM_REPLAY_NUMBER},
};

/* Every game in memory: rows by game, teams by game, players. */
typedef struct Fit
{
	MemoryContext cxt;			/* where the arrays live */
	double		prior_sd;
	double		beta;
	/* games */
	int64		ngames;
	int64		games_cap;
	int64	   *game_row;		/* ngames + 1: first row of each game */
	int64	   *game_team;		/* ngames + 1: first team of each game */
	/* rows */
	int64		nrows;
	int64		rows_cap;
	int32	   *row_player;		/* the player's index */
	int64	   *row_team;		/* the team's index in the team arrays */
	double	   *row_w;
	/* teams of every game */
	int64		nteams;
	int64		teams_cap;
	double	   *team_rank;
	double	   *team_u;			/* its performance at the current skills */
	/* players */
	MmReplayIds ids;
	int32		nplayers;
	int32		players_cap;
	int64	   *player_id;
	int64	   *player_games;
	/* per player, its rows (after reading) */
	int64	   *inc_start;
	int64	   *inc_row;
	double	   *theta;
	double	   *hdiag;			/* the second derivative at the mode */
	/* per game being evaluated */
	double	   *gexp;			/* exp(u) of its teams */
	double	   *gsum;			/* sum over each team's risk set */
	int			gmax;
} Fit;

/* Grow an array of n elements of size "size" to hold at least need. */
static void *
grow(MemoryContext cxt, void *p, int64 *cap, int64 need, Size size)
{
	int64		n = *cap;

	if (need <= n)
		return p;
	while (n < need)
		n = n ? 2 * n : 256;
	if ((Size) n * size > MaxAllocHugeSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the history is too large to fit in memory")));
	*cap = n;
	if (p == NULL)
		return MemoryContextAllocExtended(cxt, n * size, MCXT_ALLOC_HUGE);
	return repalloc_huge(p, n * size);
}

/* One match of the history: its rows, its teams (in order of first appearance). */
static void
bf_match(void *arg, const MmReplayMatch *m)
{
	Fit		   *f = arg;
	int			n = m->nrows;
	int64		first_team = f->nteams;
	int64	   *label = palloc(sizeof(int64) * n);
	int			nt = 0;

	if (f->games_cap < f->ngames + 2)
	{
		int64		cap = f->games_cap;

		f->game_row = grow(f->cxt, f->game_row, &cap, f->ngames + 2, sizeof(int64));
		f->game_team = grow(f->cxt, f->game_team, &f->games_cap, f->ngames + 2, sizeof(int64));
	}
	if (f->rows_cap < f->nrows + n)
	{
		int64		cap = f->rows_cap;

		f->row_player = grow(f->cxt, f->row_player, &cap, f->nrows + n, sizeof(int32));
		cap = f->rows_cap;
		f->row_team = grow(f->cxt, f->row_team, &cap, f->nrows + n, sizeof(int64));
		f->row_w = grow(f->cxt, f->row_w, &f->rows_cap, f->nrows + n, sizeof(double));
	}
	if (f->teams_cap < f->nteams + n)
	{
		int64		cap = f->teams_cap;

		f->team_rank = grow(f->cxt, f->team_rank, &cap, f->nteams + n, sizeof(double));
		f->team_u = grow(f->cxt, f->team_u, &f->teams_cap, f->nteams + n, sizeof(double));
	}
	f->game_row[f->ngames] = f->nrows;
	f->game_team[f->ngames] = first_team;
	for (int i = 0; i < n; i++)
	{
		const MmReplayRow *row = &m->rows[i];
		int64		id = row->ival[0];
		bool		found;
		int64		p = mm_replay_ids_get(&f->ids, id, &found);
		int			t;
		double		w = m->ncolumns >= 4 ? row->fval[3] : 1.0;

		if (!found)
		{
			if (p >= INT32_MAX - 1)
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("the history has too many players")));
			if (f->nplayers == f->players_cap)
			{
				int64		cap = f->players_cap;

				f->player_id = grow(f->cxt, f->player_id, &cap, f->nplayers + 1, sizeof(int64));
				cap = f->players_cap;
				f->player_games = grow(f->cxt, f->player_games, &cap, f->nplayers + 1, sizeof(int64));
				f->players_cap = (int32) cap;
			}
			f->player_id[f->nplayers] = id;
			f->player_games[f->nplayers++] = 0;
		}
		for (int64 j = f->game_row[f->ngames]; j < f->nrows + i; j++)
			if (f->row_player[j] == (int32) p)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("player " INT64_FORMAT " appears twice in one match", id),
						 errdetail("Row " INT64_FORMAT " repeats the player.", row->row),
						 errhint("Give each match a distinct key, and order the history by it.")));
		if (!isfinite(w) || w < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("weight must be finite and not negative"),
					 errdetail("Row " INT64_FORMAT " has weight %g.", row->row, w)));
		if (!isfinite(row->fval[2]))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("rank must be finite"),
					 errdetail("Row " INT64_FORMAT " has rank %g.", row->row, row->fval[2])));
		for (t = 0; t < nt; t++)
			if (label[t] == row->ival[1])
				break;
		if (t == nt)
		{
			label[nt++] = row->ival[1];
			f->team_rank[first_team + t] = row->fval[2];
		}
		else if (f->team_rank[first_team + t] != row->fval[2])
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("ranks differ inside team " INT64_FORMAT, label[t]),
					 errdetail("Row " INT64_FORMAT " has rank %g, an earlier player of the team has %g.",
							   row->row, row->fval[2], f->team_rank[first_team + t]),
					 errhint("A rank belongs to a team: give every player of a team the same rank.")));
		f->row_player[f->nrows + i] = (int32) p;
		f->row_team[f->nrows + i] = first_team + t;
		f->row_w[f->nrows + i] = w;
		f->player_games[p]++;
	}
	if (nt < 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a game needs at least two teams"),
				 errdetail("All %d players of match " INT64_FORMAT " are in team " INT64_FORMAT ".",
						   n, m->number, label[0]),
				 errhint("Label each player's team in the team column.")));
	f->nrows += n;
	f->nteams += nt;
	f->ngames++;
	f->game_row[f->ngames] = f->nrows;
	f->game_team[f->ngames] = f->nteams;
	f->gmax = Max(f->gmax, nt);
}

/*
 * One game's terms at the current performances: gexp[t] = exp(u_t - max),
 * gsum[t] = the sum of gexp over t's risk set (the teams ranked as well
 * as t or worse).
 */
static void
game_terms(Fit *f, int64 g)
{
	int64		a = f->game_team[g];
	int			nt = (int) (f->game_team[g + 1] - a);
	double		top = -INFINITY;

	for (int t = 0; t < nt; t++)
		top = Max(top, f->team_u[a + t]);
	for (int t = 0; t < nt; t++)
		f->gexp[t] = exp(f->team_u[a + t] - top);
	for (int t = 0; t < nt; t++)
	{
		double		s = 0;

		for (int q = 0; q < nt; q++)
			if (f->team_rank[a + q] >= f->team_rank[a + t])
				s += f->gexp[q];
		f->gsum[t] = s;
	}
}

/*
 * The first and second derivatives of a game's log likelihood in team t's
 * performance (the game's terms computed): d1 = 1 - sum over the risk
 * sets holding t of p, d2 = -sum of p (1 - p), p = t's share of the set.
 */
static void
team_derivatives(const Fit *f, int64 g, int t, double *d1, double *d2)
{
	int64		a = f->game_team[g];
	int			nt = (int) (f->game_team[g + 1] - a);
	double		s1 = 0,
				s2 = 0;

	for (int q = 0; q < nt; q++)
		if (f->team_rank[a + q] <= f->team_rank[a + t])
		{
			double		p = f->gexp[t] / f->gsum[q];

			s1 += p;
			s2 += p * (1 - p);
		}
	*d1 = 1 - s1;
	*d2 = -s2;
}

/* The players' rows, for the coordinate steps. */
static void
index_rows(Fit *f)
{
	int64	   *fill;

	f->inc_start = MemoryContextAllocExtended(f->cxt, sizeof(int64) * (f->nplayers + 1),
											  MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	f->inc_row = MemoryContextAllocExtended(f->cxt, sizeof(int64) * Max(f->nrows, 1), MCXT_ALLOC_HUGE);
	fill = MemoryContextAllocExtended(f->cxt, sizeof(int64) * (f->nplayers + 1), MCXT_ALLOC_HUGE);
	for (int64 r = 0; r < f->nrows; r++)
		f->inc_start[f->row_player[r] + 1]++;
	for (int32 p = 0; p < f->nplayers; p++)
		f->inc_start[p + 1] += f->inc_start[p];
	memcpy(fill, f->inc_start, sizeof(int64) * (f->nplayers + 1));
	for (int64 r = 0; r < f->nrows; r++)
		f->inc_row[fill[f->row_player[r]]++] = r;
	pfree(fill);
}

/* The posterior mode, by cyclic coordinate Newton steps. */
static void
find_mode(Fit *f, int64 *row_g, double tolerance)
{
	double		prec = 1.0 / (f->prior_sd * f->prior_sd);
	double		cap = f->prior_sd + f->beta;
	int			sweep;

	for (sweep = 0; sweep < MAX_SWEEPS; sweep++)
	{
		double		largest = 0;

		CHECK_FOR_INTERRUPTS();
		for (int32 p = 0; p < f->nplayers; p++)
		{
			double		grad = -f->theta[p] * prec;
			double		hess = prec;
			double		step;

			for (int64 k = f->inc_start[p]; k < f->inc_start[p + 1]; k++)
			{
				int64		r = f->inc_row[k];
				int64		g = row_g[r];
				double		w = f->row_w[r] / f->beta;
				double		d1,
							d2;

				game_terms(f, g);
				team_derivatives(f, g, (int) (f->row_team[r] - f->game_team[g]), &d1, &d2);
				grad += w * d1;
				hess -= w * w * d2;
			}
			f->hdiag[p] = hess;
			step = grad / hess;
			step = Max(-cap, Min(cap, step));
			if (step == 0)
				continue;
			f->theta[p] += step;
			for (int64 k = f->inc_start[p]; k < f->inc_start[p + 1]; k++)
			{
				int64		r = f->inc_row[k];

				f->team_u[f->row_team[r]] += f->row_w[r] / f->beta * step;
			}
			largest = Max(largest, fabs(step));
		}
		if (largest < tolerance * f->prior_sd)
			break;
	}
	if (sweep == MAX_SWEEPS)
		ereport(WARNING,
				(errmsg("the fit did not converge in %d sweeps", MAX_SWEEPS),
				 errhint("The estimates are the last sweep's; a larger prior_sd or beta converges faster.")));
}

/* Every team's performance from the skills. */
static void
set_performances(Fit *f)
{
	for (int64 t = 0; t < f->nteams; t++)
		f->team_u[t] = 0;
	for (int64 r = 0; r < f->nrows; r++)
		f->team_u[f->row_team[r]] += f->row_w[r] * f->theta[f->row_player[r]] / f->beta;
}

/* The log posterior at the current skills (up to a constant). */
static double
log_posterior(Fit *f)
{
	double		lp = 0;

	for (int32 p = 0; p < f->nplayers; p++)
		lp -= f->theta[p] * f->theta[p] / (2 * f->prior_sd * f->prior_sd);
	for (int64 g = 0; g < f->ngames; g++)
	{
		int64		a = f->game_team[g];
		int			nt = (int) (f->game_team[g + 1] - a);
		double		top = -INFINITY;

		for (int t = 0; t < nt; t++)
			top = Max(top, f->team_u[a + t]);
		game_terms(f, g);
		for (int t = 0; t < nt; t++)
			lp += f->team_u[a + t] - top - log(f->gsum[t]);
	}
	return lp;
}

/*
 * The gradient of the log posterior (into grad) and its negative Hessian
 * (into h, n x n, the lower triangle factored in place by Cholesky: H = L
 * L'). A team t of a game has the curvature sum over the risk sets R
 * holding it and team s of p_t (delta_ts - p_s), p its share of R; a pair
 * of players gets it times w_i w_j / beta^2.
 */
static void
gradient_hessian(Fit *f, double *grad, double *h)
{
	int			n = f->nplayers;
	double		prec = 1.0 / (f->prior_sd * f->prior_sd);

	memset(h, 0, sizeof(double) * n * n);
	for (int i = 0; i < n; i++)
	{
		h[i * n + i] = prec;
		grad[i] = -f->theta[i] * prec;
	}
	for (int64 g = 0; g < f->ngames; g++)
	{
		int64		a = f->game_team[g];
		int			nt = (int) (f->game_team[g + 1] - a);

		CHECK_FOR_INTERRUPTS();
		game_terms(f, g);
		for (int64 r = f->game_row[g]; r < f->game_row[g + 1]; r++)
		{
			int			tr = (int) (f->row_team[r] - a);
			double		d1,
						d2;

			team_derivatives(f, g, tr, &d1, &d2);
			grad[f->row_player[r]] += f->row_w[r] / f->beta * d1;
			for (int64 s = f->game_row[g]; s < f->game_row[g + 1]; s++)
			{
				int			ts = (int) (f->row_team[s] - a);
				double		c = 0;

				for (int q = 0; q < nt; q++)
				{
					double		pr,
								ps;

					if (f->team_rank[a + tr] < f->team_rank[a + q] ||
						f->team_rank[a + ts] < f->team_rank[a + q])
						continue;	/* not both in q's risk set */
					pr = f->gexp[tr] / f->gsum[q];
					ps = f->gexp[ts] / f->gsum[q];
					c += (tr == ts ? pr : 0) - pr * ps;
				}
				h[f->row_player[r] * n + f->row_player[s]] +=
					c * f->row_w[r] * f->row_w[s] / (f->beta * f->beta);
			}
		}
	}
	/* Cholesky, in place in the lower triangle */
	for (int j = 0; j < n; j++)
	{
		double		d = h[j * n + j];

		CHECK_FOR_INTERRUPTS();
		for (int k = 0; k < j; k++)
			d -= h[j * n + k] * h[j * n + k];
		if (!(d > 0))
			elog(ERROR, "the posterior precision is not positive definite");
		d = sqrt(d);
		h[j * n + j] = d;
		for (int i = j + 1; i < n; i++)
		{
			double		v = h[i * n + j];

			for (int k = 0; k < j; k++)
				v -= h[i * n + k] * h[j * n + k];
			h[i * n + j] = v / d;
		}
	}
}

/*
 * Newton's method on the whole Hessian from the coordinate steps' mode, to
 * a step below 1e-13 prior_sd (step halving while the log posterior falls;
 * at most 50 steps); then each player's deviation, sqrt of the diagonal of
 * H^-1 = L'^-1 L^-1: the squared norm of each column of L^-1.
 */
static void
newton_and_deviations(Fit *f, double *dev)
{
	int			n = f->nplayers;
	double	   *h = MemoryContextAllocExtended(f->cxt, sizeof(double) * n * n, MCXT_ALLOC_HUGE);
	double	   *grad = palloc(sizeof(double) * n);
	double	   *step = palloc(sizeof(double) * n);
	double	   *old = palloc(sizeof(double) * n);
	double	   *x = palloc(sizeof(double) * n);

	for (int iter = 0; iter < 50; iter++)
	{
		double		lp0,
					largest = 0,
					t = 1;

		gradient_hessian(f, grad, h);
		/* L L' step = grad */
		for (int i = 0; i < n; i++)
		{
			double		v = grad[i];

			for (int k = 0; k < i; k++)
				v -= h[i * n + k] * step[k];
			step[i] = v / h[i * n + i];
		}
		for (int i = n - 1; i >= 0; i--)
		{
			double		v = step[i];

			for (int k = i + 1; k < n; k++)
				v -= h[k * n + i] * step[k];
			step[i] = v / h[i * n + i];
			largest = Max(largest, fabs(step[i]));
		}
		if (largest < 1e-13 * f->prior_sd)
			break;
		lp0 = log_posterior(f);
		memcpy(old, f->theta, sizeof(double) * n);
		for (;;)
		{
			for (int i = 0; i < n; i++)
				f->theta[i] = old[i] + t * step[i];
			set_performances(f);
			if (log_posterior(f) >= lp0 - 1e-12 * fabs(lp0) || t < 1e-3)
				break;
			t /= 2;
		}
	}
	gradient_hessian(f, grad, h);
	for (int i = 0; i < n; i++)
		dev[i] = 0;
	for (int i = 0; i < n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		/* column i of L^-1: x[k] for k >= i (L x = e_i) */
		for (int k = i; k < n; k++)
		{
			double		v = k == i ? 1.0 : 0.0;

			for (int m = i; m < k; m++)
				v -= h[k * n + m] * x[m];
			x[k] = v / h[k * n + k];
			dev[i] += x[k] * x[k];
		}
	}
	for (int i = 0; i < n; i++)
		dev[i] = sqrt(dev[i]);
	pfree(h);
	pfree(grad);
	pfree(step);
	pfree(old);
	pfree(x);
}

/* Order players by id for the result. */
static const Fit *sort_fit;

static int
cmp_player(const void *a, const void *b)
{
	int64		x = sort_fit->player_id[*(const int32 *) a];
	int64		y = sort_fit->player_id[*(const int32 *) b];

	return (x > y) - (x < y);
}

PG_FUNCTION_INFO_V1(mm_bayes_fit);

/*
 * mm.bayes_fit(games text, prior_sd float8 DEFAULT 1, beta float8 DEFAULT 1)
 *		-> TABLE(player_id bigint, rating float8, deviation float8, games bigint)
 */
Datum
mm_bayes_fit(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Fit			f;
	MmReplaySpec spec;
	SPIPlanPtr	plan;
	int			ncolumns;
	int64	   *row_g;
	double	   *dev;
	int32	   *order;

	mm_args_not_null(fcinfo, 0);
	memset(&f, 0, sizeof(f));
	f.prior_sd = PG_GETARG_FLOAT8(1);
	f.beta = PG_GETARG_FLOAT8(2);
	mm_check_positive(f.prior_sd, "prior_sd");
	mm_check_positive(f.beta, "beta");
	InitMaterializedSRF(fcinfo, 0);
	f.cxt = CurrentMemoryContext;
	mm_replay_ids_init(&f.ids);

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	plan = mm_prepare_rows_query(text_to_cstring(PG_GETARG_TEXT_PP(0)), "games",
								 "Pass e.g. 'SELECT match_id, player_id, team, rank FROM results ORDER BY match_id'.");
	spec.what = "games";
	spec.shape = "4 or 5 columns (match key, player_id, team, rank[, weight])";
	spec.keyed = true;
	spec.columns = bf_columns;
	spec.ncolumns = 4;
	spec.nrequired = 3;
	spec.row_column = -1;
	spec.match = bf_match;
	spec.arg = &f;
	spec.stop = NULL;
	mm_replay_run(&spec, plan, &ncolumns);
	SPI_finish();
	if (f.ngames == 0)
		return (Datum) 0;

	/* every performance starts at 0: every skill at the prior's mean */
	for (int64 t = 0; t < f.nteams; t++)
		f.team_u[t] = 0;
	f.theta = palloc0(sizeof(double) * f.nplayers);
	f.hdiag = palloc0(sizeof(double) * f.nplayers);
	f.gexp = palloc(sizeof(double) * f.gmax);
	f.gsum = palloc(sizeof(double) * f.gmax);
	index_rows(&f);
	row_g = MemoryContextAllocExtended(f.cxt, sizeof(int64) * f.nrows, MCXT_ALLOC_HUGE);
	for (int64 g = 0; g < f.ngames; g++)
		for (int64 r = f.game_row[g]; r < f.game_row[g + 1]; r++)
			row_g[r] = g;
	/* to the mode; up to MM_BAYES_EXACT players Newton's method finishes it */
	find_mode(&f, row_g, f.nplayers <= MM_BAYES_EXACT ? 1e-6 : 1e-10);

	dev = palloc(sizeof(double) * f.nplayers);
	if (f.nplayers <= MM_BAYES_EXACT)
		newton_and_deviations(&f, dev);
	else
		for (int32 p = 0; p < f.nplayers; p++)
			dev[p] = 1.0 / sqrt(f.hdiag[p]);

	order = palloc(sizeof(int32) * f.nplayers);
	for (int32 p = 0; p < f.nplayers; p++)
		order[p] = p;
	sort_fit = &f;
	qsort(order, f.nplayers, sizeof(int32), cmp_player);
	for (int32 k = 0; k < f.nplayers; k++)
	{
		int32		p = order[k];
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};

		values[0] = Int64GetDatum(f.player_id[p]);
		values[1] = Float8GetDatum(f.theta[p]);
		values[2] = Float8GetDatum(dev[p]);
		values[3] = Int64GetDatum(f.player_games[p]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
