/*-------------------------------------------------------------------------
 *
 * result_match.c
 *		What the parts of mm.report_result share (result_match.h): the
 *		statements they run, and the match being reported: its players and
 *		teams looked up, listed and put into arrays.
 *
 *-------------------------------------------------------------------------
 */
#include "results.h"

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
#include "utils/numeric.h"
#include "utils/timestamp.h"

/*
 * Once the match is locked its queue is known, and every statement of the
 * match names it: on Citus the queue's tables (the match's result among
 * them) are distributed by queue, and the statement then runs on the
 * queue's shard.
 */
static MmStatement statements[RS_COUNT] = {
	/* on Citus, the queue of a match named by its id alone (every shard) */
	[RS_MATCH_QUEUE] = {
		"SELECT m.queue_id FROM mm.match m WHERE m.match_id = $match_id",
		{{"match_id", INT8OID}}
	},
	/* $queue_id NULL: the match's, whatever it is (a single node) */
	[RS_LOCK_MATCH] = {
		"SELECT m.queue_id, m.status, m.teams, m.odds, m.odds_scale, m.model FROM mm.match m "
		"WHERE m.queue_id = coalesce($queue_id, m.queue_id) AND m.match_id = $match_id FOR UPDATE",
		{{"queue_id", INT4OID}, {"match_id", INT8OID}}
	},
	[RS_PREVIOUS] = {
		"SELECT x.status, x.result, x.reported_at,"
		" mm._result_outcome(x.result) OPERATOR(pg_catalog.=) mm._result_outcome($result)"
		" FROM mm.match_result x WHERE x.queue_id = $queue_id AND x.match_id = $match_id",
		{{"queue_id", INT4OID}, {"match_id", INT8OID}, {"result", JSONBOID}}
	},
	[RS_OUTCOME] = {
		"SELECT p.* FROM mm.match_result_player p WHERE p.queue_id = $queue_id AND p.match_id = $match_id "
		"ORDER BY p.player_id",
		{{"queue_id", INT4OID}, {"match_id", INT8OID}}
	},
	[RS_CONFIG] = {
		"SELECT q.config FROM mm.queue q WHERE q.queue_id = $queue_id",
		{{"queue_id", INT4OID}}
	},
	[RS_ROSTERS] = {
		"SELECT r.team, r.players, r.professions, r.roles FROM mm.match_roster r "
		"WHERE r.queue_id = $queue_id AND r.match_id = $match_id ORDER BY r.roster_id",
		{{"queue_id", INT4OID}, {"match_id", INT8OID}}
	},
	/*
	 * a missing row starts from the family's defaults ($state); the rows
	 * that exist are left out before the insert (ON CONFLICT still settles
	 * a race), so that a match of rated players, the usual one, inserts
	 * nothing and pays for no row's checks
	 */
	[RS_INSERT_MISSING] = {
		"INSERT INTO mm.ratings AS r (player_id, key, model, state) "
		"SELECT p, $key, $model, $state FROM unnest($player_ids::bigint[]) p "
		"WHERE (SELECT true FROM mm.ratings x WHERE x.player_id = p AND x.key = $key AND x.model = $model) IS NULL ORDER BY p "
		"ON CONFLICT ON CONSTRAINT ratings_pkey DO NOTHING",
		{{"key", TEXTOID}, {"player_ids", INT8ARRAYOID}, {"model", TEXTOID},
		 {"state", FLOAT8ARRAYOID}}
	},
	[RS_INSERT_MISSING_PROFESSION] = {
		"INSERT INTO mm.ratings AS r (player_id, key, model, state) "
		"SELECT u.p, u.k, $model, $state FROM unnest($player_ids::bigint[], $key::text[]) u(p, k) "
		"ORDER BY u.p, u.k "
		"ON CONFLICT ON CONSTRAINT ratings_pkey DO NOTHING",
		{{"key", TEXTARRAYOID}, {"player_ids", INT8ARRAYOID}, {"model", TEXTOID},
		 {"state", FLOAT8ARRAYOID}}
	},
	[RS_LOCK_PROFESSION] = {
		"SELECT r.player_id, r.state, r.last_played, r.ladder_points FROM mm.ratings r "
		"JOIN unnest($player_ids::bigint[], $key::text[]) u(p, k) ON r.player_id = u.p AND r.key = u.k "
		"WHERE r.player_id = ANY ($player_ids) AND r.model = $model ORDER BY r.player_id, r.key FOR UPDATE OF r",
		{{"key", TEXTARRAYOID}, {"player_ids", INT8ARRAYOID}, {"model", TEXTOID}}
	},
	/*
	 * A state is $nstate elements of the flat array $states, in player
	 * order. "r.player_id = ANY ($player_ids)", implied by the join, puts
	 * the whole key into the index scan: without it, a plan made on a new
	 * table's empty statistics read every rating of the key and family
	 * through the key's later columns, at every report.
	 */
	[RS_UPDATE_PROFESSION] = {
		"UPDATE mm.ratings r SET state = $states[(u.o::int - 1) * $nstate + 1 : u.o::int * $nstate], "
		"games = r.games + 1, last_played = $at "
		"FROM unnest($player_ids::bigint[], $key::text[]) WITH ORDINALITY u(player_id, key, o) "
		"WHERE r.key = u.key AND r.player_id = u.player_id AND r.player_id = ANY ($player_ids) "
		"AND r.model = $model",
		{{"key", TEXTARRAYOID}, {"at", TIMESTAMPTZOID}, {"player_ids", INT8ARRAYOID},
		 {"states", FLOAT8ARRAYOID}, {"nstate", INT4OID}, {"model", TEXTOID}}
	},
	[RS_LOCK] = {
		"SELECT r.player_id, r.state, r.last_played, r.ladder_points FROM mm.ratings r "
		"WHERE r.key = $key AND r.player_id = ANY ($player_ids) AND r.model = $model "
		"ORDER BY r.player_id FOR UPDATE",
		{{"key", TEXTOID}, {"player_ids", INT8ARRAYOID}, {"model", TEXTOID}}
	},
	/*
	 * On Citus, one player's row, on its player's shard (Citus refuses a
	 * SELECT ... FOR UPDATE over several shards): each row of the match is
	 * locked by one of these, in player-id order, a missing one inserted
	 * first
	 */
	[RS_LOCK_ONE] = {
		"SELECT r.player_id, r.state, r.last_played, r.ladder_points FROM mm.ratings r "
		"WHERE r.player_id = $player_id AND r.key = $key AND r.model = $model FOR UPDATE",
		{{"player_id", INT8OID}, {"key", TEXTOID}, {"model", TEXTOID}}
	},
	[RS_INSERT_ONE] = {
		"INSERT INTO mm.ratings (player_id, key, model, state) VALUES ($player_id, $key, $model, $state) "
		"ON CONFLICT ON CONSTRAINT ratings_pkey DO NOTHING",
		{{"player_id", INT8OID}, {"key", TEXTOID}, {"model", TEXTOID}, {"state", FLOAT8ARRAYOID}}
	},
	[RS_DISHONOR] = {
		"SELECT d.stacks FROM mm.dishonor($player_id, $reason, $at) d",
		{{"player_id", INT8OID}, {"reason", TEXTOID}, {"at", TIMESTAMPTZOID}}
	},
	[RS_REASON_KNOWN] = {
		"SELECT mm._dishonor_reason_known($reason)",
		{{"reason", TEXTOID}}
	},
	/* $states NULL: the states stay (a pending period); the key's lookup as above */
	[RS_UPDATE_RATINGS] = {
		"UPDATE mm.ratings r "
		"SET state = coalesce($states[(u.o::int - 1) * $nstate + 1 : u.o::int * $nstate], r.state), "
		"ladder_points = coalesce(u.ladder, r.ladder_points), "
		"games = r.games + CASE WHEN $states IS NULL THEN 0 ELSE 1 END, "
		"last_played = CASE WHEN $states IS NULL THEN r.last_played ELSE $at END "
		"FROM unnest($player_ids::bigint[], $ladders::int[]) WITH ORDINALITY u(player_id, ladder, o) "
		"WHERE r.key = $key AND r.player_id = u.player_id AND r.player_id = ANY ($player_ids) "
		"AND r.model = $model",
		{{"key", TEXTOID}, {"at", TIMESTAMPTZOID}, {"player_ids", INT8ARRAYOID},
		 {"states", FLOAT8ARRAYOID}, {"nstate", INT4OID}, {"ladders", INT4ARRAYOID},
		 {"model", TEXTOID}}
	},
	/* a pending rating period: each player's games against every opponent */
	[RS_INSERT_PENDING] = {
		"INSERT INTO mm.rating_period_game (key, match_id, player_id, opponent_id, score, reported_at) "
		"SELECT $key, $match_id, u.p, u.o, u.s, $at "
		"FROM unnest($player_ids::bigint[], $opponent_ids::bigint[], $scores::float8[]) u(p, o, s)",
		{{"key", TEXTOID}, {"match_id", INT8OID}, {"at", TIMESTAMPTZOID},
		 {"player_ids", INT8ARRAYOID}, {"opponent_ids", INT8ARRAYOID},
		 {"scores", FLOAT8ARRAYOID}}
	},
	/* a two-team result for the queue's calibration of its odds */
	[RS_INSERT_ODDS] = {
		"INSERT INTO mm.odds_result (queue_id, match_id, model, logit, score, reported_at) "
		"VALUES ($queue_id, $match_id, $model, $logit, $score, $at)",
		{{"queue_id", INT4OID}, {"match_id", INT8OID}, {"model", TEXTOID}, {"logit", FLOAT8OID},
		 {"score", FLOAT8OID}, {"at", TIMESTAMPTZOID}}
	},
	[RS_INSERT_RESULT] = {
		"INSERT INTO mm.match_result (match_id, queue_id, status, result, reported_at) "
		"VALUES ($match_id, $queue_id, 'reported', $result, $at)",
		{{"match_id", INT8OID}, {"queue_id", INT4OID}, {"result", JSONBOID},
		 {"at", TIMESTAMPTZOID}}
	},
	/* states: $nstate elements each of the flat arrays $states_before and $states_after */
	[RS_INSERT_PLAYERS] = {
		"INSERT INTO mm.match_result_player (match_id, player_id, queue_id, team, role, rank, score, weight, "
		"deserted, key, model, state_before, state_after, ladder_before, ladder_awarded, ladder_after, "
		"dishonor_stacks) "
		"SELECT $match_id, u.player_id, $queue_id, u.team, u.role, u.rank, u.score, u.weight, u.deserted, "
		"$key, $model, "
		"$states_before[(u.o::int - 1) * $nstate + 1 : u.o::int * $nstate], "
		"$states_after[(u.o::int - 1) * $nstate + 1 : u.o::int * $nstate], "
		"u.ladder, u.awarded, u.ladder_after, u.stacks "
		"FROM unnest($player_ids::bigint[], $teams::text[], $roles::text[], $ranks::float8[], $scores::float8[], "
		"$weights::float8[], $deserted::boolean[], "
		"$ladders::int[], $awarded::int[], $ladders_after::int[], $stacks::int[]) WITH ORDINALITY "
		"u(player_id, team, role, rank, score, weight, deserted, ladder, awarded, ladder_after, stacks, o) "
		"ORDER BY u.player_id RETURNING *",
		{{"match_id", INT8OID}, {"queue_id", INT4OID}, {"key", TEXTOID},
		 {"player_ids", INT8ARRAYOID}, {"teams", TEXTARRAYOID}, {"roles", TEXTARRAYOID}, {"ranks", FLOAT8ARRAYOID},
		 {"scores", FLOAT8ARRAYOID}, {"weights", FLOAT8ARRAYOID},
		 {"states_before", FLOAT8ARRAYOID}, {"states_after", FLOAT8ARRAYOID},
		 {"nstate", INT4OID}, {"model", TEXTOID}, {"deserted", BOOLARRAYOID},
		 {"ladders", INT4ARRAYOID}, {"awarded", INT4ARRAYOID}, {"ladders_after", INT4ARRAYOID},
		 {"stacks", INT4ARRAYOID}}
	},
	[RS_FINISH] = {
		"UPDATE mm.match x SET status = 'finished' WHERE x.queue_id = $queue_id AND x.match_id = $match_id",
		{{"queue_id", INT4OID}, {"match_id", INT8OID}}
	},
	/*
	 * A single node: the match ends in one statement, which returns its
	 * rosters as RS_ROSTERS reads them (team, players, professions and
	 * roles in party order, by roster id), each roster's players read by
	 * its key as mm._end_match_rosters reads them (a lateral aggregate: no
	 * plan reads the queue's players). The rosters move from mm.roster
	 * (their players' rows go with them by the foreign key's cascade: they
	 * may queue again) to mm.ended_roster, as mm._end_match_rosters moves
	 * them; the match is finished, its open backfill requests expired, and
	 * the queue's feed gets the match's "reported" event, every player who
	 * played it by roster id and party order. One statement instead of the
	 * six a report ran for this (the view's read, the PL/pgSQL move with
	 * its reads of the result and of the moved rows, the finish and the
	 * backfill's expiry): each statement costs its executor's start and
	 * end, and each write to a table its CHECK constraints compiled again.
	 * Nothing is visible to anything else before the report commits, and
	 * an error later in the report undoes it with the rest.
	 */
	[RS_END_MATCH] = {
		"WITH p AS MATERIALIZED ("
		" SELECT r.roster_id, x.players, x.professions, x.roles"
		" FROM mm.roster r"
		" CROSS JOIN LATERAL ("
		"  SELECT array_agg(qp.player_id ORDER BY qp.seat) AS players,"
		"  coalesce(array_agg(qp.profession ORDER BY qp.seat) FILTER (WHERE qp.profession IS NOT NULL), '{}') AS professions,"
		"  coalesce(array_agg(qp.role ORDER BY qp.seat) FILTER (WHERE qp.role IS NOT NULL), '{}') AS roles"
		"  FROM mm.queued_player qp WHERE qp.queue_id = $queue_id AND qp.roster_id = r.roster_id) x"
		" WHERE r.queue_id = $queue_id AND r.match_id = $match_id"
		"), d AS ("
		" DELETE FROM mm.roster r WHERE r.queue_id = $queue_id AND r.match_id = $match_id RETURNING r.*"
		"), i AS ("
		" INSERT INTO mm.ended_roster (match_id, roster_id, team, players, rating, deviation, rank, ladder_points,"
		" dishonor, professions, joined_at, waited, queue_id, position, backfill_id, attributes, latencies, roles)"
		" SELECT d.match_id, d.roster_id, d.team, coalesce(p.players, '{}'), d.rating, d.deviation, d.rank,"
		" d.ladder_points, d.dishonor, coalesce(p.professions, '{}'), d.joined_at, d.waited, d.queue_id, d.position,"
		" d.backfill_id, d.attributes, d.latencies, coalesce(p.roles, '{}')"
		" FROM d LEFT JOIN p ON p.roster_id = d.roster_id ORDER BY d.roster_id"
		" RETURNING roster_id, team, players, professions, roles"
		"), f AS ("
		" UPDATE mm.match x SET status = 'finished' WHERE x.queue_id = $queue_id AND x.match_id = $match_id"
		" RETURNING 1"
		"), b AS ("
		" UPDATE mm.backfill b SET status = 'expired', ended_at = $at"
		" WHERE b.queue_id = $queue_id AND b.match_id = $match_id AND b.status = 'open' RETURNING 1"
		"), e AS ("
		" INSERT INTO mm.queue_event (queue_id, kind, match_id, player_ids)"
		" SELECT $queue_id, 'reported', $match_id, array_agg(u.p ORDER BY x.roster_id, u.o)"
		" FROM p x CROSS JOIN LATERAL unnest(x.players) WITH ORDINALITY AS u(p, o)"
		" HAVING count(*) > 0 RETURNING 1"
		") SELECT i.team, i.players, i.professions, i.roles FROM i ORDER BY i.roster_id",
		{{"queue_id", INT4OID}, {"match_id", INT8OID}, {"at", TIMESTAMPTZOID}}
	},
	/* its rosters leave mm.roster (their players may queue again) */
	[RS_END_ROSTERS] = {
		"SELECT mm._end_match_rosters($queue_id, $match_id)",
		{{"queue_id", INT4OID}, {"match_id", INT8OID}}
	},
	/* open backfill requests end with the match */
	[RS_EXPIRE_BACKFILL] = {
		"UPDATE mm.backfill b SET status = 'expired', ended_at = $at "
		"WHERE b.queue_id = $queue_id AND b.match_id = $match_id AND b.status = 'open'",
		{{"queue_id", INT4OID}, {"match_id", INT8OID}, {"at", TIMESTAMPTZOID}}
	},
};

/* Start the arguments of statement s. */
void
res_args(MmArgs *a, ResultStatement s)
{
	mm_args_begin(a, &statements[s]);
}

/* Run statement s with two arguments, $queue_id and $match_id; SPI result code. */
int
res_run_match(ResultStatement s, const ResMatch *m, long limit)
{
	MmArgs		a;

	mm_args_begin(&a, &statements[s]);
	mm_arg(&a, "queue_id", Int32GetDatum(m->queue_id));
	mm_arg(&a, "match_id", Int64GetDatum(m->match_id));
	return mm_execute(&a, false, limit);
}

/* Column i (1-based) of row r of the last result, as a Datum. */
Datum
res_col(int r, int i, bool *isnull)
{
	return SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, i, isnull);
}

int
res_player_cmp(const void *a, const void *b)
{
	int64		x = ((const ResPlayer *) a)->id;
	int64		y = ((const ResPlayer *) b)->id;

	return x < y ? -1 : x > y ? 1 : 0;
}

/* The player with an id, or NULL. */
ResPlayer *
res_find_player(ResMatch *m, int64 id)
{
	ResPlayer	key;

	key.id = id;
	return bsearch(&key, m->players, m->nplayers, sizeof(ResPlayer), res_player_cmp);
}

/*
 * The place of team t (of the result, m->teams) in the match's team order
 * (mm.match.teams). The tick and the backfill write only those teams; the
 * tables do not hold it (docs/matcher.md, Team shapes), so a roster
 * written otherwise is refused here.
 */
int
res_team_order(const ResMatch *m, int t)
{
	for (int k = 0; k < m->nmteams; k++)
		if (strcmp(m->mteams[k], m->teams[t].name) == 0)
			return k;
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("match " INT64_FORMAT " has a roster of team \"%s\", which is not one of its teams",
					m->match_id, m->teams[t].name),
			 errdetail("The match's teams are %s.", res_team_list(m)),
			 errhint("A roster's team was written outside mm; set it to one of the match's teams.")));
	return -1;
}

/* The match's teams for a message: "red", "blue" and "team_3". */
char *
res_team_list(const ResMatch *m)
{
	StringInfoData b;

	initStringInfo(&b);
	for (int k = 0; k < m->nmteams; k++)
		appendStringInfo(&b, "%s\"%s\"", k == 0 ? "" : k + 1 == m->nmteams ? " and " : ", ", m->mteams[k]);
	return b.data;
}

/* The players' ids, ascending. */
Datum
res_player_ids(const ResMatch *m)
{
	int64	   *ids = palloc(sizeof(int64) * Max(m->nplayers, 1));

	for (int i = 0; i < m->nplayers; i++)
		ids[i] = m->players[i].id;
	return mm_int8_array_datum(m->nplayers, ids);
}

/* A flat float8[] of n states of the family: nstate elements each. */
Datum
res_states_array(const MmRatingModel *model, int n, double *const *st)
{
	double	   *v = palloc(sizeof(double) * Max(n * model->nstate, 1));

	for (int i = 0; i < n; i++)
		memcpy(v + i * model->nstate, st[i], sizeof(double) * model->nstate);
	return mm_float8_array_datum(n * model->nstate, v, NULL);
}
