/*-------------------------------------------------------------------------
 *
 * result_match.c
 *		What the parts of mm.report_result share (result_match.h): the
 *		statements they run, and the match being reported: its players and
 *		teams looked up, listed and put into arrays.
 *
 *-------------------------------------------------------------------------
 */
#include "result_match.h"

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

static const MmStatement statements[RS_COUNT] = {
	[RS_LOCK_MATCH] = {
		"SELECT m.queue_id, m.status, m.teams, m.odds FROM mm.match m "
		"WHERE m.match_id = $1 FOR UPDATE",
	1, {INT8OID}},
	[RS_PREVIOUS] = {
		"SELECT x.status, x.result, x.reported_at,"
		" mm._result_outcome(x.result) OPERATOR(pg_catalog.=) mm._result_outcome($2)"
		" FROM mm.match_result x WHERE x.match_id = $1",
	2, {INT8OID, JSONBOID}},
	[RS_OUTCOME] = {
		"SELECT p.* FROM mm.match_result_player p WHERE p.match_id = $1 ORDER BY p.player_id",
	1, {INT8OID}},
	[RS_CONFIG] = {
		"SELECT q.config FROM mm.queue q WHERE q.queue_id = $1",
	1, {INT4OID}},
	[RS_ROSTERS] = {
		"SELECT r.team, r.players, r.professions FROM mm.match_roster r WHERE r.match_id = $1 "
		"ORDER BY r.roster_id",
	1, {INT8OID}},
	/* a missing row starts from the family's defaults ($4) */
	[RS_INSERT_MISSING] = {
		"INSERT INTO mm.ratings AS r (player_id, key, model, state) "
		"SELECT p, $1, $3, $4 FROM unnest($2::bigint[]) p ORDER BY p "
		"ON CONFLICT ON CONSTRAINT ratings_pkey DO NOTHING",
	4, {TEXTOID, INT8ARRAYOID, TEXTOID, FLOAT8ARRAYOID}},
	[RS_INSERT_MISSING_PROFESSION] = {
		"INSERT INTO mm.ratings AS r (player_id, key, model, state) "
		"SELECT u.p, u.k, $3, $4 FROM unnest($2::bigint[], $1::text[]) u(p, k) ORDER BY u.p, u.k "
		"ON CONFLICT ON CONSTRAINT ratings_pkey DO NOTHING",
	4, {TEXTARRAYOID, INT8ARRAYOID, TEXTOID, FLOAT8ARRAYOID}},
	[RS_LOCK_PROFESSION] = {
		"SELECT r.player_id, r.state, r.last_played, r.ladder_points FROM mm.ratings r "
		"JOIN unnest($2::bigint[], $1::text[]) u(p, k) ON r.player_id = u.p AND r.key = u.k "
		"WHERE r.model = $3 ORDER BY r.player_id, r.key FOR UPDATE OF r",
	3, {TEXTARRAYOID, INT8ARRAYOID, TEXTOID}},
	/* a state is nstate ($5) elements of the flat array $4, in player order */
	[RS_UPDATE_PROFESSION] = {
		"UPDATE mm.ratings r SET state = $4[(u.o::int - 1) * $5 + 1 : u.o::int * $5], "
		"games = r.games + 1, last_played = $2 "
		"FROM unnest($3::bigint[], $1::text[]) WITH ORDINALITY u(player_id, key, o) "
		"WHERE r.key = u.key AND r.player_id = u.player_id AND r.model = $6",
		6, {TEXTARRAYOID, TIMESTAMPTZOID, INT8ARRAYOID, FLOAT8ARRAYOID, INT4OID, TEXTOID}},
	[RS_LOCK] = {
		"SELECT r.player_id, r.state, r.last_played, r.ladder_points FROM mm.ratings r "
		"WHERE r.key = $1 AND r.player_id = ANY ($2) AND r.model = $3 "
		"ORDER BY r.player_id FOR UPDATE",
	3, {TEXTOID, INT8ARRAYOID, TEXTOID}},
	[RS_DISHONOR] = {
		"SELECT d.stacks FROM mm.dishonor($1, $2, $3) d",
	3, {INT8OID, TEXTOID, TIMESTAMPTZOID}},
	[RS_REASON_KNOWN] = {
		"SELECT mm._dishonor_reason_known($1)",
	1, {TEXTOID}},
	/* $4 NULL: the states stay (a pending period) */
	[RS_UPDATE_RATINGS] = {
		"UPDATE mm.ratings r SET state = coalesce($4[(u.o::int - 1) * $5 + 1 : u.o::int * $5], r.state), "
		"ladder_points = coalesce(u.ladder, r.ladder_points), "
		"games = r.games + CASE WHEN $4 IS NULL THEN 0 ELSE 1 END, "
		"last_played = CASE WHEN $4 IS NULL THEN r.last_played ELSE $2 END "
		"FROM unnest($3::bigint[], $6::int[]) WITH ORDINALITY u(player_id, ladder, o) "
		"WHERE r.key = $1 AND r.player_id = u.player_id AND r.model = $7",
		7, {TEXTOID, TIMESTAMPTZOID, INT8ARRAYOID, FLOAT8ARRAYOID, INT4OID, INT4ARRAYOID, TEXTOID}},
	/* a pending rating period: each player's games against every opponent */
	[RS_INSERT_PENDING] = {
		"INSERT INTO mm.rating_period_game (key, match_id, player_id, opponent_id, score, reported_at) "
		"SELECT $1, $2, u.p, u.o, u.s, $3 FROM unnest($4::bigint[], $5::bigint[], $6::float8[]) u(p, o, s)",
	6, {TEXTOID, INT8OID, TIMESTAMPTZOID, INT8ARRAYOID, INT8ARRAYOID, FLOAT8ARRAYOID}},
	[RS_INSERT_RESULT] = {
		"INSERT INTO mm.match_result (match_id, queue_id, status, result, reported_at) "
		"VALUES ($1, $2, 'reported', $3, $4)",
	4, {INT8OID, INT4OID, JSONBOID, TIMESTAMPTZOID}},
	/* states: nstate ($11) elements each of the flat arrays $9 and $10 */
	[RS_INSERT_PLAYERS] = {
		"INSERT INTO mm.match_result_player (match_id, player_id, queue_id, team, rank, score, weight, "
		"deserted, key, model, state_before, state_after, ladder_before, ladder_awarded, ladder_after, "
		"dishonor_stacks) "
		"SELECT $1, u.player_id, $2, u.team, u.rank, u.score, u.weight, u.deserted, $3, $12, "
		"$9[(u.o::int - 1) * $11 + 1 : u.o::int * $11], $10[(u.o::int - 1) * $11 + 1 : u.o::int * $11], "
		"u.ladder, u.awarded, u.ladder_after, u.stacks "
		"FROM unnest($4::bigint[], $5::text[], $6::float8[], $7::float8[], $8::float8[], $13::boolean[], "
		"$14::int[], $15::int[], $16::int[], $17::int[]) WITH ORDINALITY "
		"u(player_id, team, rank, score, weight, deserted, ladder, awarded, ladder_after, stacks, o) "
		"ORDER BY u.player_id RETURNING *",
		17, {INT8OID, INT4OID, TEXTOID, INT8ARRAYOID, TEXTARRAYOID, FLOAT8ARRAYOID, FLOAT8ARRAYOID,
			FLOAT8ARRAYOID, FLOAT8ARRAYOID, FLOAT8ARRAYOID, INT4OID, TEXTOID, BOOLARRAYOID,
	INT4ARRAYOID, INT4ARRAYOID, INT4ARRAYOID, INT4ARRAYOID}},
	[RS_FINISH] = {
		"UPDATE mm.match x SET status = 'finished' WHERE x.match_id = $1",
	1, {INT8OID}},
	/* its rosters leave mm.roster (their players may queue again) */
	[RS_END_ROSTERS] = {
		"SELECT mm._end_match_rosters(m.queue_id, m.match_id) FROM mm.match m WHERE m.match_id = $1",
	1, {INT8OID}},
	/* open backfill requests end with the match */
	[RS_EXPIRE_BACKFILL] = {
		"UPDATE mm.backfill b SET status = 'expired', ended_at = $2 "
		"WHERE b.match_id = $1 AND b.status = 'open'",
	2, {INT8OID, TIMESTAMPTZOID}},
};

static SPIPlanPtr plans[RS_COUNT];

/* Run a prepared statement (preparing it on first use); SPI result code. */
int
res_run(ResultStatement s, Datum *values, const char *nulls, long limit)
{
	return mm_statement_execute(&statements[s], &plans[s], values, nulls, false, limit);
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
 * tables do not hold it (docs/matchmaking.md, Team shapes), so a roster
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
