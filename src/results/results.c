/*-------------------------------------------------------------------------
 *
 * results.c
 *		mm.report_result: rate a finished match of a queue exactly once, in
 *		the caller's transaction.
 *
 * One call reads the match (locked, so that a second report of it waits
 * for the first and then sees its outcome), checks the result against the
 * match's rosters as they are at report time, locks the players' mm.ratings
 * rows in player-id order (inserting missing ones first, in the same
 * order), rates in memory with the queue's rating family (rating_model.h),
 * awards ladder points (gw2.h), gives dishonor for
 * desertions through mm.dishonor, and writes the ratings, the result and
 * every player's before and after with one multi-row statement each. All
 * statements are prepared once per backend; there is no work table. This
 * file reads and writes the match; the checks of the result are
 * results_check.c, the rating step results_rating.c, and what they share
 * result_match.c.
 *
 * With the queue's rating.profession_ratio > 0, the match is rated a second
 * time with the players' profession ratings (key "<key>/<profession>", the
 * Guild Wars 2 wiki's profession-ratio). With rating.period "pending"
 * (Glicko-2), the games are recorded in mm.rating_period_game instead of
 * rated; mm.close_rating_period rates the period.
 *
 * Locking order: the match row first, then the core rating rows by
 * ascending player id, then the profession rows by ascending player id.
 * Two reports that share players therefore wait for each other instead of
 * losing an update, and never deadlock.
 *
 *-------------------------------------------------------------------------
 */
#include "results.h"
#include "odds_scale.h"

#include <errno.h>
#include <math.h>

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"



/*
 * Read the match's rosters: its teams and players, by player id. With
 * "end" (a single node), the statement that reads them also ends the match
 * (RS_END_MATCH: the rosters move to mm.ended_roster, the match is
 * finished, its backfill requests expired, its event written); otherwise
 * it only reads them, and end_match ends the match after the writes.
 */
static void
read_rosters(ResMatch *m, bool end, TimestampTz at)
{
	int			nrows;
	int			cap = 16;

	if (end)
	{
		MmArgs		a;

		res_args(&a, RS_END_MATCH);
		mm_arg(&a, "queue_id", Int32GetDatum(m->queue_id));
		mm_arg(&a, "match_id", Int64GetDatum(m->match_id));
		mm_arg(&a, "at", TimestampTzGetDatum(at));
		mm_execute(&a, false, 0);
	}
	else
		res_run_match(RS_ROSTERS, m, 0);
	nrows = (int) SPI_processed;
	m->teams = palloc0(sizeof(ResTeam) * Max(nrows, 1));
	m->players = palloc0(sizeof(ResPlayer) * cap);
	for (int r = 0; r < nrows; r++)
	{
		bool		isnull;
		char	   *team = TextDatumGetCString(res_col(r, 1, &isnull));
		int64	   *ids;
		int			n = mm_int8_array(DatumGetArrayTypeP(res_col(r, 2, &isnull)), "players", &ids);
		Datum	   *prof;
		int			nprof = mm_text_array(DatumGetArrayTypeP(res_col(r, 3, &isnull)), "professions", &prof);
		Datum	   *roles;
		int			nroles = mm_text_array(DatumGetArrayTypeP(res_col(r, 4, &isnull)), "roles", &roles);
		int			t;

		for (t = 0; t < m->nteams; t++)
			if (strcmp(m->teams[t].name, team) == 0)
				break;
		if (t == m->nteams)
			m->teams[m->nteams++].name = team;
		if (m->nplayers + n > RESULT_MAX_PLAYERS)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("too many players"),
					 errdetail("Match " INT64_FORMAT " has more than %d players.",
							   m->match_id, RESULT_MAX_PLAYERS)));
		while (m->nplayers + n > cap)
		{
			cap *= 2;
			m->players = repalloc(m->players, sizeof(ResPlayer) * cap);
		}
		for (int i = 0; i < n; i++)
		{
			ResPlayer  *p = &m->players[m->nplayers++];

			memset(p, 0, sizeof(ResPlayer));
			p->id = ids[i];
			p->team = t;
			p->weight = 1.0;
			/* one profession per player, in the order of players, or none */
			if (nprof == n)
				p->profession = TextDatumGetCString(prof[i]);
			/* likewise a role per player, or none */
			if (nroles == n)
				p->role = TextDatumGetCString(roles[i]);
		}
	}
	qsort(m->players, m->nplayers, sizeof(ResPlayer), res_player_cmp);
	for (int i = 1; i < m->nplayers; i++)
		if (m->players[i].id == m->players[i - 1].id)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("player " INT64_FORMAT " is twice in match " INT64_FORMAT,
							m->players[i].id, m->match_id)));
}

/*
 * Record the result and every player's before and after; the rows written
 * (in player-id order) are the function's result. A pending period has
 * the states before and none after yet.
 */
static void
write_result(ReturnSetInfo *rsinfo, ResMatch *m, const MmMatcherConfig *cfg, Jsonb *result,
			 TimestampTz at)
{
	const MmRatingModel *model = mm_rating_model_of(&cfg->rating);
	int			n = m->nplayers;
	char	  **team = palloc(sizeof(char *) * n);
	char	  **role = palloc(sizeof(char *) * n);
	double	   *f[3];
	bool	   *fnull[3];
	double	  **before = palloc(sizeof(double *) * n);
	double	  **after = palloc(sizeof(double *) * n);
	bool	   *deserted = palloc(sizeof(bool) * n);
	int32	   *iv[4];
	bool	   *inull[4];
	MmArgs		a;

	for (int c = 0; c < 3; c++)
	{
		f[c] = palloc(sizeof(double) * n);
		fnull[c] = palloc0(sizeof(bool) * n);
	}
	for (int c = 0; c < 4; c++)
	{
		iv[c] = palloc(sizeof(int32) * n);
		inull[c] = palloc(sizeof(bool) * n);
	}
	for (int i = 0; i < n; i++)
	{
		ResPlayer  *p = &m->players[i];

		team[i] = m->teams[p->team].name;
		role[i] = p->role;
		deserted[i] = p->deserted;
		f[0][i] = m->teams[p->team].rank;
		f[1][i] = p->score;
		f[2][i] = p->weight;
		fnull[1][i] = !p->has_score;
		before[i] = p->core.before;
		after[i] = p->core.after;
		iv[0][i] = p->ladder;
		inull[0][i] = !p->has_ladder;
		iv[1][i] = p->awarded;
		inull[1][i] = !p->awarded_set;
		iv[2][i] = p->ladder2;
		inull[2][i] = !p->awarded_set;
		iv[3][i] = p->stacks;
		inull[3][i] = !p->stacks_set;
	}
	res_args(&a, RS_INSERT_RESULT);
	mm_arg(&a, "match_id", Int64GetDatum(m->match_id));
	mm_arg(&a, "queue_id", Int32GetDatum(m->queue_id));
	mm_arg(&a, "result", JsonbPGetDatum(result));
	mm_arg(&a, "at", TimestampTzGetDatum(at));
	mm_execute(&a, false, 0);

	res_args(&a, RS_INSERT_PLAYERS);
	mm_arg(&a, "match_id", Int64GetDatum(m->match_id));
	mm_arg(&a, "queue_id", Int32GetDatum(m->queue_id));
	mm_arg(&a, "key", CStringGetTextDatum(cfg->rating.key));
	mm_arg(&a, "model", CStringGetTextDatum(model->name));
	mm_arg(&a, "nstate", Int32GetDatum(model->nstate));
	mm_arg(&a, "player_ids", res_player_ids(m));
	mm_arg(&a, "teams", mm_text_array_datum(n, team));
	mm_arg(&a, "roles", mm_text_array_datum(n, role));
	mm_arg(&a, "ranks", mm_float8_array_datum(n, f[0], fnull[0]));
	mm_arg(&a, "scores", mm_float8_array_datum(n, f[1], fnull[1]));
	mm_arg(&a, "weights", mm_float8_array_datum(n, f[2], fnull[2]));
	mm_arg(&a, "deserted", mm_bool_array_datum(n, deserted));
	mm_arg(&a, "states_before", res_states_array(model, n, before));
	/* a pending period rates later: no state after yet */
	mm_arg_maybe(&a, "states_after", cfg->rating.pending_period ? (Datum) 0 : res_states_array(model, n, after),
				 cfg->rating.pending_period);
	mm_arg(&a, "ladders", mm_int4_array_datum(n, iv[0], inull[0]));
	mm_arg(&a, "awarded", mm_int4_array_datum(n, iv[1], inull[1]));
	mm_arg(&a, "ladders_after", mm_int4_array_datum(n, iv[2], inull[2]));
	mm_arg(&a, "stacks", mm_int4_array_datum(n, iv[3], inull[3]));
	mm_execute(&a, false, 0);
	for (uint64 r = 0; r < SPI_processed; r++)
		tuplestore_puttuple(rsinfo->setResult, SPI_tuptable->vals[r]);
}

/*
 * A pending rating period: record each player's game against every
 * opposing player (1 win, 0.5 draw, 0 loss) for mm.close_rating_period.
 */
static void
write_pending_games(ResMatch *m, const MmMatcherConfig *cfg, TimestampTz at)
{
	int			cap = Max(m->nplayers * m->nplayers, 1);
	int64	   *pl = palloc(sizeof(int64) * cap);
	int64	   *op = palloc(sizeof(int64) * cap);
	double	   *sc = palloc(sizeof(double) * cap);
	int			k = 0;
	MmArgs		a;

	for (int i = 0; i < m->nplayers; i++)
	{
		ResPlayer  *p = &m->players[i];
		double		r = m->teams[p->team].rank;

		CHECK_FOR_INTERRUPTS();
		for (int j = 0; j < m->nplayers; j++)
		{
			ResPlayer  *o = &m->players[j];
			double		s = m->teams[o->team].rank;

			if (o->team == p->team)
				continue;
			pl[k] = p->id;
			op[k] = o->id;
			sc[k++] = r < s ? 1.0 : r == s ? 0.5 : 0.0;
		}
	}
	if (k == 0)
		return;
	res_args(&a, RS_INSERT_PENDING);
	mm_arg(&a, "key", CStringGetTextDatum(cfg->rating.key));
	mm_arg(&a, "match_id", Int64GetDatum(m->match_id));
	mm_arg(&a, "at", TimestampTzGetDatum(at));
	mm_arg(&a, "player_ids", mm_int8_array_datum(k, pl));
	mm_arg(&a, "opponent_ids", mm_int8_array_datum(k, op));
	mm_arg(&a, "scores", mm_float8_array_datum(k, sc, NULL));
	mm_execute(&a, false, 0);
}

/*
 * A two-team result for the queue's calibration of its odds (odds_scale.h,
 * learnt from by the queue's next tick): the family's logit of the first
 * team's odds, the stored odds' logit divided by the scale the tick
 * applied, and the first team's score, with the family. Nothing for a
 * match of more teams, for odds a tick's family did not make (odds_scale
 * NULL), for odds of another family than the one rating the result (the
 * queue's rating.model changed since the match was made: its odds say
 * nothing of the new family's), and for odds of exactly 0 or 1, which have
 * no logit.
 */
static void
write_odds_result(ResMatch *m, const MmMatcherConfig *cfg, TimestampTz at)
{
	double		rank[2] = {0, 0};
	double		logit;
	MmArgs		a;

	if (m->nmteams != 2 || m->nteams != 2 || !m->has_odds_scale ||
		(m->model != NULL && strcmp(m->model, cfg->rating.model) != 0))
		return;
	logit = mm_odds_logit(m->odds[0]) / m->odds_scale;
	if (!isfinite(logit))
		return;
	for (int t = 0; t < m->nteams; t++)
		rank[res_team_order(m, t)] = m->teams[t].rank;
	res_args(&a, RS_INSERT_ODDS);
	mm_arg(&a, "queue_id", Int32GetDatum(m->queue_id));
	mm_arg(&a, "match_id", Int64GetDatum(m->match_id));
	mm_arg(&a, "model", CStringGetTextDatum(cfg->rating.model));
	mm_arg(&a, "logit", Float8GetDatum(logit));
	mm_arg(&a, "score", Float8GetDatum(rank[0] < rank[1] ? 1.0 : rank[0] == rank[1] ? 0.5 : 0.0));
	mm_arg(&a, "at", TimestampTzGetDatum(at));
	mm_execute(&a, false, 0);
}

/* Return a match's recorded outcome, one row per player by player id. */
static void
put_outcome(ReturnSetInfo *rsinfo, const ResMatch *m)
{
	res_run_match(RS_OUTCOME, m, 0);
	for (uint64 r = 0; r < SPI_processed; r++)
		tuplestore_puttuple(rsinfo->setResult, SPI_tuptable->vals[r]);
}

/*
 * A match already has a result: the same report again returns the first
 * outcome (the same means the same outcome: team ranks compared by their
 * order, mm._result_outcome, so ranks 0 and 1 repeat ranks 1 and 2); an
 * abandoned match or a different result is an error. Returns
 * false when the match has no result yet.
 */
static bool
previous_result(const ResMatch *m, Jsonb *result)
{
	int64		match_id = m->match_id;
	MmArgs		a;
	bool		isnull;
	char	   *status;
	Datum		prev;
	Datum		same;
	char	   *at;

	res_args(&a, RS_PREVIOUS);
	mm_arg(&a, "queue_id", Int32GetDatum(m->queue_id));
	mm_arg(&a, "match_id", Int64GetDatum(match_id));
	mm_arg(&a, "result", JsonbPGetDatum(result));
	mm_execute(&a, false, 1);
	if (SPI_processed == 0)
		return false;
	status = TextDatumGetCString(res_col(0, 1, &isnull));
	prev = res_col(0, 2, &isnull);
	at = DatumGetCString(DirectFunctionCall1(timestamptz_out, res_col(0, 3, &isnull)));
	if (strcmp(status, "abandoned") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("match " INT64_FORMAT " was abandoned", match_id),
				 errdetail("mm.abandon_match ended it at %s.", at)));
	/* the same outcome, whatever numbers state the ranks: a retry */
	same = res_col(0, 4, &isnull);
	if (isnull || !DatumGetBool(same))
		ereport(ERROR,
				(errcode(ERRCODE_UNIQUE_VIOLATION),
				 errmsg("match " INT64_FORMAT " already has a different result", match_id),
				 errdetail("The reported result is %s.",
						   JsonbToCString(NULL, &DatumGetJsonbP(prev)->root, -1)),
				 errhint("A match is rated once; report the same result again to read its outcome.")));
	return true;
}

/*
 * The last queue config a report of this backend parsed, with the bytes it
 * was parsed from: a report reads its queue's config every time (in its
 * own snapshot, after the match's lock) and parses it only when the bytes
 * differ from the last ones. A queue's config changes rarely, and parsing
 * it was about a tenth of a report's work. The parse and the bytes it was
 * parsed from (it may point into them) live in their own memory context,
 * replaced by the next parse of other bytes.
 */
static MemoryContext config_cxt = NULL;
static Jsonb *config_bytes = NULL;
static MmMatcherConfig config_parsed;

static void
report_config(Jsonb *config, MmMatcherConfig *cfg)
{
	Size		len;
	MemoryContext old;
	Jsonb	   *copy;

	if (config == NULL)
	{
		mm_queue_config(NULL, cfg);
		return;
	}
	len = VARSIZE(config);
	if (config_bytes != NULL && VARSIZE(config_bytes) == len && memcmp(config_bytes, config, len) == 0)
	{
		*cfg = config_parsed;
		return;
	}
	if (config_cxt == NULL)
		config_cxt = AllocSetContextCreate(TopMemoryContext, "mm report_result config", ALLOCSET_SMALL_SIZES);
	/* forget the last parse first: an error must not leave half of one */
	config_bytes = NULL;
	MemoryContextReset(config_cxt);
	old = MemoryContextSwitchTo(config_cxt);
	/* parsed from the kept copy: a parse may point into the bytes it read */
	copy = palloc(len);
	memcpy(copy, config, len);
	mm_queue_config(copy, &config_parsed);
	MemoryContextSwitchTo(old);
	config_bytes = copy;
	*cfg = config_parsed;
}

/*
 * Lock the match, read its queue's config; errors if it cannot be
 * reported. m->queue_id 0: not known yet (mm.report_result(match_id,
 * result)); on Citus it is looked up first, on every shard, and the match
 * is then locked on its queue's shard.
 */
static void
lock_match(ResMatch *m, MmMatcherConfig *cfg, bool *done, Jsonb *result)
{
	MmArgs		a;
	bool		isnull;
	char	   *status;
	Datum		config;

	if (m->queue_id == 0 && mm_queues_distributed())
	{
		res_args(&a, RS_MATCH_QUEUE);
		mm_arg(&a, "match_id", Int64GetDatum(m->match_id));
		mm_execute(&a, true, 1);
		if (SPI_processed == 1)
			m->queue_id = DatumGetInt32(res_col(0, 1, &isnull));
	}
	res_args(&a, RS_LOCK_MATCH);
	mm_arg_maybe(&a, "queue_id", Int32GetDatum(m->queue_id), m->queue_id == 0);
	mm_arg(&a, "match_id", Int64GetDatum(m->match_id));
	mm_execute(&a, false, 1);
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("match " INT64_FORMAT " does not exist", m->match_id),
				 errhint("Report the match_id that mm.claim_matches delivered.")));
	m->queue_id = DatumGetInt32(res_col(0, 1, &isnull));
	status = TextDatumGetCString(res_col(0, 2, &isnull));
	{
		Datum	   *elems;
		bool	   *enulls;
		int			n,
					nodds;

		deconstruct_array(DatumGetArrayTypeP(res_col(0, 3, &isnull)), TEXTOID, -1, false, TYPALIGN_INT,
						  &elems, &enulls, &n);
		m->mteams = palloc(sizeof(char *) * Max(n, 1));
		for (int t = 0; t < n; t++)
			m->mteams[t] = TextDatumGetCString(elems[t]);
		deconstruct_array(DatumGetArrayTypeP(res_col(0, 4, &isnull)), FLOAT8OID, 8, FLOAT8PASSBYVAL,
						  TYPALIGN_DOUBLE, &elems, &enulls, &nodds);
		m->odds = palloc(sizeof(double) * Max(n, 1));
		for (int t = 0; t < n; t++)
			m->odds[t] = t < nodds ? DatumGetFloat8(elems[t]) : 0;
		m->nmteams = n;
	}
	{
		Datum		scale = res_col(0, 5, &isnull);

		m->has_odds_scale = !isnull;
		m->odds_scale = isnull ? 1.0 : DatumGetFloat8(scale);
		scale = res_col(0, 6, &isnull);
		m->model = isnull ? NULL : TextDatumGetCString(scale);
	}
	*done = previous_result(m, result);
	if (*done)
		return;

	/*
	 * Only a match being played is reported: not one still waiting for its
	 * players to accept (proposed), dissolved, or finished.
	 */
	if (strcmp(status, "matched") != 0 && strcmp(status, "ready") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("match " INT64_FORMAT " is %s", m->match_id, status),
				 errhint("Report a match that is being played.")));
	res_args(&a, RS_CONFIG);
	mm_arg(&a, "queue_id", Int32GetDatum(m->queue_id));
	mm_execute(&a, false, 1);
	config = res_col(0, 1, &isnull);
	report_config(isnull ? NULL : DatumGetJsonbP(config), cfg);
}

/*
 * Report the match m (its id, and its queue's id when the caller gives
 * it: 0 otherwise) with "result".
 */
static void
report(FunctionCallInfo fcinfo, ResMatch *mp, Jsonb *result)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TimestampTz at = GetCurrentTransactionStartTimestamp();
	ResMatch	m = *mp;
	MmMatcherConfig cfg;
	bool		done;

	InitMaterializedSRF(fcinfo, 0);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");

	lock_match(&m, &cfg, &done, result);
	if (!done)
	{
		/*
		 * On a single node the match ends as its rosters are read, in one
		 * statement (RS_END_MATCH); on Citus, where the queue's tables are
		 * distributed, by the statements each shard runs, after the writes.
		 */
		bool		distributed = mm_queues_distributed();

		read_rosters(&m, !distributed, at);
		res_parse_result(&m, result);
		res_lock_ratings(&m, &cfg, at, false);
		if (cfg.rating.profession_ratio > 0)
			res_lock_ratings(&m, &cfg, at, true);
		if (!cfg.rating.pending_period)
			res_rate(&m, &cfg, false);
		if (cfg.rating.profession_ratio > 0)
			res_rate(&m, &cfg, true);
		if (cfg.rating.ladder)
			res_award_ladder(&m, &cfg, at);
		if (!cfg.rating.desertion_reason_null)
			res_give_dishonor(&m, &cfg, at);
		res_write_ratings(&m, &cfg, at);
		if (cfg.rating.profession_ratio > 0)
			res_write_profession_ratings(&m, &cfg, at);
		write_result(rsinfo, &m, &cfg, result, at);
		if (cfg.rating.pending_period)
			write_pending_games(&m, &cfg, at);
		if (!cfg.rating.calibration_null)
			write_odds_result(&m, &cfg, at);
		if (distributed)
		{
			MmArgs		a;

			res_run_match(RS_FINISH, &m, 0);
			res_run_match(RS_END_ROSTERS, &m, 0);
			res_args(&a, RS_EXPIRE_BACKFILL);
			mm_arg(&a, "queue_id", Int32GetDatum(m.queue_id));
			mm_arg(&a, "match_id", Int64GetDatum(m.match_id));
			mm_arg(&a, "at", TimestampTzGetDatum(at));
			mm_execute(&a, false, 0);
		}
	}
	else
		put_outcome(rsinfo, &m);
	SPI_finish();
}

PG_FUNCTION_INFO_V1(mm_report_result);

/*
 * mm.report_result(match_id bigint, result jsonb)
 *		-> SETOF mm.match_result_player
 */
Datum
mm_report_result(PG_FUNCTION_ARGS)
{
	ResMatch	m;

	mm_require_primary("mm.report_result");
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("match_id and result must not be NULL")));
	memset(&m, 0, sizeof(m));
	m.match_id = PG_GETARG_INT64(0);
	report(fcinfo, &m, PG_GETARG_JSONB_P(1));
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(mm_report_result_queue);

/*
 * mm.report_result(queue_id int, match_id bigint, result jsonb)
 *		-> SETOF mm.match_result_player
 * A match of the queue of that id: on Citus the match is not looked up on
 * every shard, each statement goes to the queue's shard. The call runs on
 * the coordinator (not delegated: mm.citus_distribute_queues says why).
 */
Datum
mm_report_result_queue(PG_FUNCTION_ARGS)
{
	ResMatch	m;

	mm_require_primary("mm.report_result");
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("queue_id, match_id and result must not be NULL")));
	memset(&m, 0, sizeof(m));
	m.queue_id = PG_GETARG_INT32(0);
	m.match_id = PG_GETARG_INT64(1);
	/* a queue id of 0 is no queue's (ids start at 1): the match is not found */
	if (m.queue_id == 0)
		m.queue_id = -1;
	report(fcinfo, &m, PG_GETARG_JSONB_P(2));
	return (Datum) 0;
}
