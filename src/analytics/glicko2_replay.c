/*-------------------------------------------------------------------------
 *
 * glicko2_replay.c
 *		The replay of a game history with Glicko-2 (mm.glicko2_replay,
 *		mm.glicko2_team_replay, mm.glicko2_history, mm.glicko2_calibration,
 *		mm.glicko2_fit) over the shared replay driver (replay.c).
 *
 *-------------------------------------------------------------------------
 */
#include "glicko2.h"
#include "analytics.h"
#include "rating_model.h"
#include "replay.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/hsearch.h"
#include "utils/jsonb.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

/* Replay of a game history */

/*
 * The replay runs on the streaming replay driver (replay.c) over the games
 * query sorted by played_at, ties in the query's order: the server sorts
 * (spilling to disk past work_mem), the replay keeps only the players.
 */

/* A player's running state (a dynahash entry; the key comes first). */
typedef struct ReplayPlayer
{
	int64		id;
	Glicko2Player r;
	Glicko2Player last;			/* after the player's last game or period */
	Glicko2Player before;		/* period mode: last, when the period began */
	Glicko2Sums sums;
	int64		last_period;	/* period of the last rating (period mode) */
	TimestampTz last_at;		/* time of the last game */
	int64		games;
	bool		touched;		/* has games in the current period */
} ReplayPlayer;

/* A game of the current period kept for the history rows. */
typedef struct ReplayGame
{
	int64		number;
	ReplayPlayer *a;
	ReplayPlayer *b;
	double		score;
	double		expected;
	TimestampTz at;
} ReplayGame;

typedef enum ReplayMode
{
	REPLAY_FINAL,
	REPLAY_HISTORY,
	REPLAY_CALIBRATION
} ReplayMode;

typedef struct Replay
{
	ReplayMode	mode;
	bool		per_game;
	bool		teams;			/* a team history (match key, player, team, rank, time) */
	bool		each;			/* teams: against each opponent, not the composite */
	bool		direct;			/* reading the query as given, not sorted */
	bool		unsorted;		/* direct: a game came before the previous one */
	HTAB	   *players;
	const Glicko2Policy *pol;	/* NULL: plain Glicko-2 */
	Glicko2Policy policy;
	Glicko2Player initial;
	double		tau;
	double		period_usec;
	bool		has_reset;
	TimestampTz reset;
	ReplayPlayer **touched;
	int			ntouched;
	int			maxtouched;
	int64		period;			/* period mode: the current period */
	int64		ngames;
	TimestampTz end;			/* time of the last game */
	ReplayGame *pending;		/* history, period mode: the period's games */
	int			npending;
	int			maxpending;
	ReturnSetInfo *rsinfo;		/* history: where rows go */
	MmCalibration cal;			/* calibration */
} Replay;

static const MmReplayColumn replay_columns[] = {
	{"player_id", MM_REPLAY_WHOLE},
	{"opponent_id", MM_REPLAY_WHOLE},
	{"score", MM_REPLAY_NUMBER},
	{"played_at", MM_REPLAY_TIME},
	{"input order", MM_REPLAY_WHOLE},
};

static const MmReplayColumn replay_team_columns[] = {
	{"player_id", MM_REPLAY_WHOLE},
	{"team", MM_REPLAY_WHOLE},
	{"rank", MM_REPLAY_NUMBER},
	{"played_at", MM_REPLAY_TIME},
	{"input order", MM_REPLAY_WHOLE},
};

/*
 * A player's deviation growth over idle periods: the family's idle growth
 * (rating_model.h), with the replay's policy.
 */
static void
replay_idle(const Replay *rp, ReplayPlayer *p, double periods)
{
	MmGlicko2Params prm = {rp->tau, rp->pol};
	double		state[3] = {p->r.rating, p->r.rd, p->r.vol};

	mm_glicko2_model.idle(&prm, state, periods);
	p->r.rating = state[0];
	p->r.rd = state[1];
	p->r.vol = state[2];
}

/*
 * The expected score of a against b: the family's prediction of a game of
 * the two (rating_model.h), a's probability of winning it.
 */
static double
replay_expect(const Replay *rp, const Glicko2Player *a, const Glicko2Player *b)
{
	static const int team_of[2] = {0, 1};
	MmGlicko2Params prm = {rp->tau, rp->pol};
	double		rating[2] = {a->rating, b->rating};
	double		rd[2] = {a->rd, b->rd};
	double		vol[2] = {a->vol, b->vol};
	double		prob[2];
	MmRatingGame g;

	g.nplayers = 2;
	g.nteams = 2;
	g.team_of = team_of;
	g.rank = NULL;
	g.score = NULL;
	g.state[0] = rating;
	g.state[1] = rd;
	g.state[2] = vol;
	g.weight = NULL;
	mm_glicko2_model.predict(&prm, &g, prob);
	return prob[0];
}

/* Look a player up, creating it with the initial rating. */
static ReplayPlayer *
replay_player(Replay *rp, int64 id, TimestampTz at)
{
	bool		found;
	ReplayPlayer *p = hash_search(rp->players, &id, HASH_ENTER, &found);

	if (!found)
	{
		p->r = rp->initial;
		p->last = rp->initial;
		p->sums.v_inv = p->sums.delta_sum = p->sums.n = 0;
		p->last_period = -1;
		p->last_at = at;
		p->games = 0;
		p->touched = false;
	}
	else if (rp->has_reset && !p->touched &&
			 p->last_at < rp->reset && at >= rp->reset)
	{
		/* rated before the reset, playing after it: back to the default */
		p->r = rp->initial;
		p->last_period = -1;
	}
	return p;
}

/* Bring a player into the current period k: idle growth for missed periods. */
static void
replay_touch(Replay *rp, ReplayPlayer *p, int64 k)
{
	if (p->touched)
		return;
	if (p->last_period >= 0 && k - p->last_period > 1)
		replay_idle(rp, p, (double) (k - p->last_period - 1));
	p->before = p->last;
	p->touched = true;
	if (rp->ntouched == rp->maxtouched)
	{
		rp->maxtouched *= 2;
		rp->touched = repalloc(rp->touched, sizeof(ReplayPlayer *) * rp->maxtouched);
	}
	rp->touched[rp->ntouched++] = p;
}

/* One history row: a player's view of a game. */
static void
replay_emit(Replay *rp, const ReplayGame *g, bool as_b, Glicko2Player before)
{
	ReplayPlayer *p = as_b ? g->b : g->a;
	ReplayPlayer *o = as_b ? g->a : g->b;
	Datum		values[12];
	bool		nulls[12] = {false};

	values[0] = Int64GetDatum(g->number);
	values[1] = Int64GetDatum(p->id);
	values[2] = Int64GetDatum(o->id);
	values[3] = TimestampTzGetDatum(g->at);
	values[4] = Float8GetDatum(as_b ? 1.0 - g->score : g->score);
	values[5] = Float8GetDatum(as_b ? 1.0 - g->expected : g->expected);
	values[6] = Float8GetDatum(before.rating);
	values[7] = Float8GetDatum(before.rd);
	values[8] = Float8GetDatum(before.vol);
	values[9] = Float8GetDatum(p->r.rating);
	values[10] = Float8GetDatum(p->r.rd);
	values[11] = Float8GetDatum(p->r.vol);
	tuplestore_putvalues(rp->rsinfo->setResult, rp->rsinfo->setDesc, values, nulls);
}

/* Close the current period: rate every player who played in it. */
static void
replay_close_period(Replay *rp)
{
	for (int i = 0; i < rp->ntouched; i++)
	{
		ReplayPlayer *p = rp->touched[i];

		p->r = mm_g2_rate_period(p->r, &p->sums, rp->tau, rp->pol);
		p->last = p->r;
		p->sums.v_inv = p->sums.delta_sum = p->sums.n = 0;
		p->last_period = rp->period;
	}
	for (int i = 0; i < rp->npending; i++)
	{
		replay_emit(rp, &rp->pending[i], false, rp->pending[i].a->before);
		replay_emit(rp, &rp->pending[i], true, rp->pending[i].b->before);
	}
	rp->npending = 0;
	for (int i = 0; i < rp->ntouched; i++)
		rp->touched[i]->touched = false;
	rp->ntouched = 0;
}

/* Idle periods between two times (whole periods elapsed). */
static inline double
replay_idle_periods(Replay *rp, TimestampTz from, TimestampTz to)
{
	return floor((double) (to - from) / rp->period_usec);
}

/*
 * The rating period of a time: periods are windows of the period length
 * counted from the Unix epoch, 1970-01-01 00:00 UTC, as
 * date_bin(period, played_at, '1970-01-01 00:00+00') numbers them.
 */
static inline int64
replay_period_of(Replay *rp, TimestampTz at)
{
	double		since_epoch = (double) at +
	(double) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY;

	return (int64) floor(since_epoch / rp->period_usec);
}

/* Rate one game on its own (per-game mode). */
static void
replay_game_now(Replay *rp, ReplayGame *g)
{
	ReplayPlayer *a = g->a;
	ReplayPlayer *b = g->b;
	Glicko2Sums sa = {0, 0, 0};
	Glicko2Sums sb = {0, 0, 0};

	if (a->games > 0)
		replay_idle(rp, a, replay_idle_periods(rp, a->last_at, g->at));
	if (b->games > 0)
		replay_idle(rp, b, replay_idle_periods(rp, b->last_at, g->at));
	g->expected = replay_expect(rp, &a->r, &b->r);
	mm_g2_accumulate(&sa, a->r.rating, b->r.rating, b->r.rd, g->score);
	mm_g2_accumulate(&sb, b->r.rating, a->r.rating, a->r.rd, 1.0 - g->score);
	a->r = mm_g2_rate_period(a->r, &sa, rp->tau, rp->pol);
	b->r = mm_g2_rate_period(b->r, &sb, rp->tau, rp->pol);
	if (rp->mode == REPLAY_HISTORY)
	{
		replay_emit(rp, g, false, a->last);
		replay_emit(rp, g, true, b->last);
	}
	a->last = a->r;
	b->last = b->r;
}

/* Add one game to the current period (period mode). */
static void
replay_game_in_period(Replay *rp, ReplayGame *g)
{
	ReplayPlayer *a = g->a;
	ReplayPlayer *b = g->b;
	int64		k = replay_period_of(rp, g->at);

	if (rp->ngames > 1 && k != rp->period)
		replay_close_period(rp);
	rp->period = k;
	replay_touch(rp, a, k);
	replay_touch(rp, b, k);
	g->expected = replay_expect(rp, &a->r, &b->r);
	mm_g2_accumulate(&a->sums, a->r.rating, b->r.rating, b->r.rd, g->score);
	mm_g2_accumulate(&b->sums, b->r.rating, a->r.rating, a->r.rd, 1.0 - g->score);
	if (rp->mode == REPLAY_HISTORY)
	{
		if (rp->npending == rp->maxpending)
		{
			rp->maxpending *= 2;
			rp->pending = repalloc_huge(rp->pending, sizeof(ReplayGame) * rp->maxpending);
		}
		rp->pending[rp->npending++] = *g;
	}
}

/* One game from the driver (a match of one row). */
static void
replay_game(void *arg, const MmReplayMatch *m)
{
	Replay	   *rp = arg;
	const MmReplayRow *row = &m->rows[0];
	ReplayGame	g;

	g.number = m->number;
	g.score = row->fval[2];
	g.at = row->ival[3];
	if (rp->ngames > 0 && g.at < rp->end)
	{
		Assert(rp->direct);
		rp->unsorted = true;
		return;
	}
	if (row->ival[0] == row->ival[1])
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a player cannot play against itself"),
				 errdetail("Game " INT64_FORMAT " has player " INT64_FORMAT " on both sides.",
						   row->row, row->ival[0])));
	mm_g2_check_game(0, 1, g.score);
	g.a = replay_player(rp, row->ival[0], g.at);
	g.b = replay_player(rp, row->ival[1], g.at);
	rp->ngames = m->number;
	rp->end = g.at;
	if (rp->per_game)
		replay_game_now(rp, &g);
	else
		replay_game_in_period(rp, &g);
	if (rp->mode == REPLAY_CALIBRATION)
	{
		if (g.expected >= 0.5)
			mm_calibration_add(&rp->cal, g.expected, g.score);
		else
			mm_calibration_add(&rp->cal, 1.0 - g.expected, 1.0 - g.score);
	}
	g.a->last_at = g.b->last_at = g.at;
	g.a->games++;
	g.b->games++;
}

/*
 * The teams of a match: team index of each row, and each team's rank and
 * composite opponent (mean rating, root mean square deviation).
 */
typedef struct ReplayTeams
{
	int			n;
	int		   *of;				/* team index of each row */
	int64	   *label;
	double	   *rank;
	double	   *rating;			/* composite rating */
	double	   *rd;				/* composite deviation */
	int		   *size;
} ReplayTeams;

static void
replay_teams_read(const MmReplayMatch *m, ReplayTeams *t)
{
	int			n = m->nrows;

	t->n = 0;
	t->of = palloc(sizeof(int) * n);
	t->label = palloc(sizeof(int64) * n);
	t->rank = palloc(sizeof(double) * n);
	t->rating = palloc0(sizeof(double) * n);
	t->rd = palloc0(sizeof(double) * n);
	t->size = palloc0(sizeof(int) * n);
	for (int i = 0; i < n; i++)
	{
		const MmReplayRow *row = &m->rows[i];
		int			k;

		if (row->ival[3] != m->rows[0].ival[3])
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the rows of a match must have the same played_at"),
					 errdetail("Row " INT64_FORMAT " is played at another time than the first row of its match.",
							   row->row)));
		mm_check_finite(row->fval[2], "rank");
		for (int j = 0; j < i; j++)
			if (m->rows[j].ival[0] == row->ival[0])
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("player " INT64_FORMAT " appears twice in one match", row->ival[0]),
						 errdetail("Row " INT64_FORMAT " repeats the player.", row->row)));
		for (k = 0; k < t->n; k++)
			if (t->label[k] == row->ival[1])
				break;
		if (k == t->n)
		{
			t->label[k] = row->ival[1];
			t->rank[k] = row->fval[2];
			t->n++;
		}
		else if (t->rank[k] != row->fval[2])
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("ranks differ inside team " INT64_FORMAT, row->ival[1]),
					 errdetail("Row " INT64_FORMAT " has rank %g, an earlier row of the team has %g.",
							   row->row, row->fval[2], t->rank[k]),
					 errhint("A rank belongs to a team: give every player of a team the same rank.")));
		t->of[i] = k;
	}
	if (t->n < 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a match needs at least two teams"),
				 errdetail("The match of row " INT64_FORMAT " has one team.", m->rows[0].row)));
}

/*
 * One team match from the driver. Every pair of teams is a game: 1 for the
 * better (lower) rank, 0.5 for a tie. Each player is rated against the
 * composite of each opposing team (its mean rating, root mean square
 * deviation) or against each opposing player, from the ratings before the
 * match (game by game) or before the period.
 */
static void
replay_team_match(void *arg, const MmReplayMatch *m)
{
	Replay	   *rp = arg;
	int			n = m->nrows;
	TimestampTz at = m->rows[0].ival[3];
	ReplayPlayer **p = palloc(sizeof(ReplayPlayer *) * n);
	Glicko2Player *r0 = palloc(sizeof(Glicko2Player) * n);
	Glicko2Sums *sums = palloc0(sizeof(Glicko2Sums) * n);
	ReplayTeams t;

	if (rp->ngames > 0 && at < rp->end)
	{
		Assert(rp->direct);
		rp->unsorted = true;
		return;
	}
	replay_teams_read(m, &t);
	for (int i = 0; i < n; i++)
		p[i] = replay_player(rp, m->rows[i].ival[0], at);
	if (rp->per_game)
	{
		for (int i = 0; i < n; i++)
			if (p[i]->games > 0)
				replay_idle(rp, p[i], replay_idle_periods(rp, p[i]->last_at, at));
	}
	else
	{
		int64		k = replay_period_of(rp, at);

		if (rp->ngames > 0 && k != rp->period)
			replay_close_period(rp);
		rp->period = k;
		for (int i = 0; i < n; i++)
			replay_touch(rp, p[i], k);
	}
	for (int i = 0; i < n; i++)
	{
		r0[i] = p[i]->r;
		t.rating[t.of[i]] += r0[i].rating;
		t.rd[t.of[i]] += r0[i].rd * r0[i].rd;
		t.size[t.of[i]]++;
	}
	for (int k = 0; k < t.n; k++)
	{
		t.rating[k] /= t.size[k];
		t.rd[k] = sqrt(t.rd[k] / t.size[k]);
	}
	for (int i = 0; i < n; i++)
	{
		Glicko2Sums *target = rp->per_game ? &sums[i] : &p[i]->sums;

		for (int k = 0; k < t.n; k++)
		{
			double		score;

			if (k == t.of[i])
				continue;
			score = t.rank[t.of[i]] < t.rank[k] ? 1.0 :
				(t.rank[t.of[i]] == t.rank[k] ? 0.5 : 0.0);
			if (!rp->each)
				mm_g2_accumulate(target, r0[i].rating, t.rating[k], t.rd[k], score);
			else
				for (int j = 0; j < n; j++)
					if (t.of[j] == k)
						mm_g2_accumulate(target, r0[i].rating, r0[j].rating, r0[j].rd, score);
		}
	}
	for (int i = 0; i < n; i++)
	{
		if (rp->per_game)
		{
			p[i]->r = mm_g2_rate_period(r0[i], &sums[i], rp->tau, rp->pol);
			p[i]->last = p[i]->r;
		}
		p[i]->last_at = at;
		p[i]->games++;
	}
	rp->ngames = m->number;
	rp->end = at;
}

/*
 * Read the arguments of a replay function: games text at 0, and period
 * interval, tau float8, policy jsonb, per_game boolean at the positions
 * given (-1: absent, as NULL).
 */
static void
replay_args_at(FunctionCallInfo fcinfo, Replay *rp, int period_arg, int tau_arg,
			   int policy_arg, int per_game_arg)
{
	Glicko2Policy *pol = &rp->policy;
	bool		has_policy = policy_arg >= 0 && !PG_ARGISNULL(policy_arg);

	/* the first argument (games, or history), named as declared */
	mm_args_not_null(fcinfo, ~UINT64CONST(1));
	if (per_game_arg >= 0 && PG_ARGISNULL(per_game_arg))
		mm_null_arg("per_game");
	rp->per_game = per_game_arg >= 0 && PG_GETARG_BOOL(per_game_arg);
	mm_g2_policy_parse(has_policy ? PG_GETARG_JSONB_P(policy_arg) : NULL, pol);
	rp->pol = has_policy ? pol : NULL;
	rp->tau = mm_g2_resolve_tau(tau_arg < 0 || PG_ARGISNULL(tau_arg) ?
								  get_float8_nan() : PG_GETARG_FLOAT8(tau_arg),
								  rp->pol);
	rp->period_usec = pol->period.seconds * USECS_PER_SEC;
	if (period_arg >= 0 && !PG_ARGISNULL(period_arg))
	{
		Interval   *iv = PG_GETARG_INTERVAL_P(period_arg);

		rp->period_usec = mm_interval_seconds(iv) * USECS_PER_SEC;
		if (!(rp->period_usec > 0))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("period must be a positive interval"),
					 errhint("Give an interval such as '3 days'.")));
		if (rp->pol != NULL && pol->period_set &&
			rp->period_usec != pol->period.seconds * USECS_PER_SEC)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("period conflicts with the policy's period"),
					 errdetail("The policy's period is %g seconds.", pol->period.seconds),
					 errhint("Pass the same period, or leave period out of the policy.")));
	}
	rp->initial.rating = rp->pol ? pol->rating_default : GLICKO2_CENTRE;
	rp->initial.rd = rp->pol ? pol->deviation_default : 350.0;
	rp->initial.vol = rp->pol ? pol->volatility_default : 0.06;
	rp->has_reset = rp->pol != NULL && !pol->reset_null;
	if (rp->has_reset)
		rp->reset = mm_g2_parse_timestamptz(pol->reset);
}

/* The replay functions' arguments: (games, period, tau, policy, per_game). */
static void
replay_args(FunctionCallInfo fcinfo, Replay *rp)
{
	replay_args_at(fcinfo, rp, 1, 2, 3, 4);
}

/* Run the replay over the games query; the ratings are as of the end. */
static void
replay_run(FunctionCallInfo fcinfo, Replay *rp)
{
	const char *hint = rp->teams ?
		"Give a SELECT returning match key, player_id, team, rank, played_at." :
		"Give a SELECT returning player_id, opponent_id, score, played_at.";
	const char *shape = rp->teams ?
		"5 columns (match key, player_id, team, rank, played_at)" :
		"4 columns (player_id, opponent_id, score, played_at)";
	char	   *query = text_to_cstring(PG_GETARG_TEXT_PP(0));
	MmReplaySpec spec;
	SPIPlanPtr	plan;
	int			ncolumns;
	int			rc;
	HASH_SEQ_STATUS seq;
	ReplayPlayer *p;

	MemoryContext caller = CurrentMemoryContext;

	rp->maxtouched = 1024;
	rp->touched = palloc(sizeof(ReplayPlayer *) * rp->maxtouched);
	rp->maxpending = 1024;
	rp->pending = palloc(sizeof(ReplayGame) * rp->maxpending);

	if ((rc = SPI_connect()) != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed: %s", SPI_result_code_string(rc));
	plan = mm_prepare_rows_query(query, "games", hint);
	if ((ncolumns = mm_rows_query_columns(plan)) != (rp->teams ? 5 : 4))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("games query must return %s", shape),
				 errdetail("It returns %d.", ncolumns)));

	/*
	 * Games are rated in played_at order, ties in the query's order (team
	 * matches: in match key order, then the query's). A games query already
	 * in that order is read as it is; at the first game earlier than the one
	 * before, the replay starts again from a copy of the query that the
	 * server sorts (spilling to disk past work_mem) with the row numbers of
	 * the query's order as the tie-break. Team queries are always sorted:
	 * sorting is what makes the rows of a match consecutive.
	 */
	spec.what = "games";
	spec.shape = shape;
	spec.keyed = rp->teams;
	spec.columns = rp->teams ? replay_team_columns : replay_columns;
	spec.match = rp->teams ? replay_team_match : replay_game;
	spec.arg = rp;
	spec.stop = &rp->unsorted;
	for (rp->direct = !rp->teams;; rp->direct = false)
	{
		/* what outlives the run goes in the caller's context, not SPI's */
		MemoryContext spi = MemoryContextSwitchTo(caller);

		rp->players = mm_replay_players("mm glicko2 replay", sizeof(ReplayPlayer));
		if (rp->mode == REPLAY_CALIBRATION)
			mm_calibration_init(&rp->cal, rp->cal.bins);
		MemoryContextSwitchTo(spi);
		rp->ntouched = rp->npending = 0;
		rp->ngames = rp->period = 0;
		rp->end = 0;
		rp->unsorted = false;
		if (rp->mode == REPLAY_HISTORY)
			tuplestore_clear(rp->rsinfo->setResult);
		if (!rp->direct)
		{
			SPI_freeplan(plan);
			plan = mm_prepare_rows_query(psprintf("SELECT * FROM (SELECT mm_q.*, row_number() OVER () AS mm_input_order "
												  "FROM (%s) mm_q) mm_s ORDER BY %s",
												  query, rp->teams ? "5, 1, 6" : "4, 5"),
										 "games", hint);
		}
		spec.ncolumns = spec.nrequired = rp->direct ? 4 : 5;
		spec.row_column = rp->direct ? -1 : 4;	/* errors name the caller's row */
		mm_replay_run(&spec, plan, &ncolumns);
		if (!rp->unsorted)
			break;
		hash_destroy(rp->players);
	}
	SPI_finish();

	if (rp->ngames == 0)
		return;
	if (rp->per_game)
	{
		/* as of the last game: idle growth for the whole periods since */
		hash_seq_init(&seq, rp->players);
		while ((p = hash_seq_search(&seq)) != NULL)
			replay_idle(rp, p, replay_idle_periods(rp, p->last_at, rp->end));
	}
	else
	{
		replay_close_period(rp);
		/* as of the end of the last period: idle growth for those who missed it */
		hash_seq_init(&seq, rp->players);
		while ((p = hash_seq_search(&seq)) != NULL)
			if (rp->period > p->last_period)
				replay_idle(rp, p, (double) (rp->period - p->last_period));
	}
}

PG_FUNCTION_INFO_V1(mm_glicko2_replay);

/*
 * mm.glicko2_replay(games text, period interval DEFAULT NULL,
 *					 tau float8 DEFAULT NULL, policy jsonb DEFAULT NULL,
 *					 per_game boolean DEFAULT false)
 * RETURNS TABLE(player_id bigint, rating float8, rd float8, vol float8,
 *				 games bigint, last_played timestamptz), by player_id
 */
Datum
mm_glicko2_replay(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Replay		rp;
	ReplayPlayer **all;
	long		count;

	memset(&rp, 0, sizeof(rp));
	rp.mode = REPLAY_FINAL;
	replay_args(fcinfo, &rp);
	if (PG_NARGS() > 5)
	{
		char	   *opp;

		if (PG_ARGISNULL(5))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("opponents must not be NULL")));
		opp = text_to_cstring(PG_GETARG_TEXT_PP(5));
		if (strcmp(opp, "composite") != 0 && strcmp(opp, "each") != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown opponents \"%s\"", opp),
					 errhint("Use 'composite' (each opposing team as one player) or 'each' (every opposing player).")));
		rp.teams = true;
		rp.each = strcmp(opp, "each") == 0;
	}
	replay_run(fcinfo, &rp);

	InitMaterializedSRF(fcinfo, 0);
	all = (ReplayPlayer **) mm_replay_sorted(rp.players, &count);
	for (long i = 0; i < count; i++)
	{
		ReplayPlayer *p = all[i];
		Datum		values[6];
		bool		nulls[6] = {false, false, false, false, false, false};

		values[0] = Int64GetDatum(p->id);
		values[1] = Float8GetDatum(p->r.rating);
		values[2] = Float8GetDatum(p->r.rd);
		values[3] = Float8GetDatum(p->r.vol);
		values[4] = Int64GetDatum(p->games);
		values[5] = TimestampTzGetDatum(p->last_at);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	PG_RETURN_NULL();
}

PG_FUNCTION_INFO_V1(mm_glicko2_team_replay);

/*
 * mm.glicko2_team_replay(history text, period, tau, policy, per_game,
 *						  opponents text DEFAULT 'composite'): the same
 * result as glicko2_replay, from team matches.
 */
Datum
mm_glicko2_team_replay(PG_FUNCTION_ARGS)
{
	return mm_glicko2_replay(fcinfo);
}

PG_FUNCTION_INFO_V1(mm_glicko2_history);

/*
 * mm.glicko2_history(same arguments as glicko2_replay)
 * RETURNS TABLE(game bigint, player_id bigint, opponent_id bigint,
 *				 played_at timestamptz, score float8, expected float8,
 *				 rating_before, rd_before, vol_before,
 *				 rating_after, rd_after, vol_after float8)
 */
Datum
mm_glicko2_history(PG_FUNCTION_ARGS)
{
	Replay		rp;

	memset(&rp, 0, sizeof(rp));
	rp.mode = REPLAY_HISTORY;
	replay_args(fcinfo, &rp);
	InitMaterializedSRF(fcinfo, 0);
	rp.rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	replay_run(fcinfo, &rp);
	PG_RETURN_NULL();
}

PG_FUNCTION_INFO_V1(mm_glicko2_calibration);

/*
 * mm.glicko2_calibration(same arguments as glicko2_replay, bins int,
 *						  initial_rd float8) -> jsonb; a non-NULL initial_rd
 * replaces the deviation new players start with (the policy's default).
 */
Datum
mm_glicko2_calibration(PG_FUNCTION_ARGS)
{
	Replay		rp;

	memset(&rp, 0, sizeof(rp));
	rp.mode = REPLAY_CALIBRATION;
	replay_args(fcinfo, &rp);
	if (PG_ARGISNULL(5))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("bins must not be NULL")));
	if (!PG_ARGISNULL(6))
	{
		double		rd = PG_GETARG_FLOAT8(6);

		mm_check_positive(rd, "initial_rd");
		if (rp.pol != NULL && (rd < rp.pol->deviation_min || rd > rp.pol->deviation_max))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("initial_rd is outside the policy's deviation range"),
					 errdetail("The value is %g; the policy allows %g to %g.",
							   rd, rp.pol->deviation_min, rp.pol->deviation_max)));
		rp.initial.rd = rd;
	}
	mm_calibration_init(&rp.cal, PG_GETARG_INT32(5));
	replay_run(fcinfo, &rp);
	PG_RETURN_JSONB_P(mm_calibration_jsonb(&rp.cal));
}

/* What glicko2_fit varies, and the replay it runs. */
typedef struct G2Fit
{
	Replay		base;
	FunctionCallInfo fcinfo;	/* for the games query (argument 0) */
	bool		rd;				/* fit the initial rd, not tau */
} G2Fit;

static void
glicko2_fit_eval(void *arg, double value, MmCalibration *out)
{
	G2Fit	   *f = arg;
	Replay		rp = f->base;

	mm_check_positive(value, f->rd ? "rd" : "tau");
	if (f->rd)
		rp.initial.rd = value;
	else
		rp.tau = value;
	mm_calibration_init(&rp.cal, 10);
	replay_run(f->fcinfo, &rp);
	*out = rp.cal;
}

PG_FUNCTION_INFO_V1(mm_glicko2_fit);

/*
 * mm.glicko2_fit(games text, parameter text, grid float8[], lo float8,
 *				  hi float8, iterations int, period interval, per_game boolean)
 */
Datum
mm_glicko2_fit(PG_FUNCTION_ARGS)
{
	G2Fit		f;
	char	   *parameter;

	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("parameter must not be NULL")));
	parameter = text_to_cstring(PG_GETARG_TEXT_PP(1));
	if (strcmp(parameter, "tau") != 0 && strcmp(parameter, "rd") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown parameter \"%s\"", parameter),
				 errhint("Fit tau or rd (the deviation new players start with).")));
	memset(&f, 0, sizeof(f));
	f.base.mode = REPLAY_CALIBRATION;
	replay_args_at(fcinfo, &f.base, 6, -1, -1, 7);
	f.base.pol = NULL;
	f.fcinfo = fcinfo;
	f.rd = strcmp(parameter, "rd") == 0;
	mm_fit_search(fcinfo, 2, 3, 4, 5, glicko2_fit_eval, &f);
	return (Datum) 0;
}
