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
 * statements are prepared once per backend; there is no work table.
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
#include "mm.h"
#include "gw2.h"
#include "matcher.h"
#include "rating_model.h"

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

/* A match has at most MM_TEAMS teams of 1000 players. */
#define RESULT_MAX_PLAYERS (MM_TEAMS * 1000)

/* The prepared statements, kept for the backend's life. */
typedef enum ResultStatement
{
	RS_LOCK_MATCH,
	RS_PREVIOUS,
	RS_OUTCOME,
	RS_CONFIG,
	RS_ROSTERS,
	RS_INSERT_MISSING,
	RS_LOCK,
	RS_INSERT_MISSING_PROFESSION,
	RS_LOCK_PROFESSION,
	RS_UPDATE_PROFESSION,
	RS_DISHONOR,
	RS_REASON_KNOWN,
	RS_UPDATE_RATINGS,
	RS_INSERT_PENDING,
	RS_INSERT_RESULT,
	RS_INSERT_PLAYERS,
	RS_FINISH,
	RS_END_ROSTERS,
	RS_EXPIRE_BACKFILL,
	RS_COUNT
} ResultStatement;

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
static int
run(ResultStatement s, Datum *values, const char *nulls, long limit)
{
	return mm_statement_execute(&statements[s], &plans[s], values, nulls, false, limit);
}

/* Column i (1-based) of row r of the last result, as a Datum. */
static Datum
col(int r, int i, bool *isnull)
{
	return SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, i, isnull);
}

/* A player's rating under one key: the family's state before and after the match. */
typedef struct ResState
{
	double		before[MM_RATING_MAX_STATE];
	double		after[MM_RATING_MAX_STATE];
	bool		rated;
} ResState;

/* One player of the match. */
typedef struct ResPlayer
{
	int64		id;
	int			team;			/* index into the teams */
	double		weight;
	bool		has_score;
	double		score;
	bool		deserted;
	char	   *profession;		/* NULL: the roster names none */
	ResState	core;			/* the queue's rating key */
	ResState	prof;			/* the profession's key (profession_ratio > 0) */
	bool		has_ladder;
	int32		ladder;
	bool		awarded_set;
	int32		awarded;
	int32		ladder2;
	bool		stacks_set;
	int32		stacks;
} ResPlayer;

/* One team of the match. */
typedef struct ResTeam
{
	char	   *name;
	JsonbContainer *obj;		/* the team's object in the result */
	bool		has_rank;
	double		given_rank;
	bool		has_score;
	double		score;
	double		rank;			/* the rank used: given, or from the scores */
} ResTeam;

typedef struct ResMatch
{
	int64		match_id;
	int32		queue_id;
	int			nmteams;		/* the match's teams (mm.match.teams), in team order */
	char	  **mteams;
	double	   *odds;			/* each one's odds, in team order */
	int			nteams;
	ResTeam    *teams;
	int			nplayers;
	ResPlayer  *players;		/* ascending player id */
} ResMatch;

static int
player_cmp(const void *a, const void *b)
{
	int64		x = ((const ResPlayer *) a)->id;
	int64		y = ((const ResPlayer *) b)->id;

	return x < y ? -1 : x > y ? 1 : 0;
}

/* The player with an id, or NULL. */
static ResPlayer *
find_player(ResMatch *m, int64 id)
{
	ResPlayer	key;

	key.id = id;
	return bsearch(&key, m->players, m->nplayers, sizeof(ResPlayer), player_cmp);
}

/*
 * The place of team t (of the result, m->teams) in the match's team order
 * (mm.match.teams); the tick and the backfill write only those teams.
 */
static int
team_order(const ResMatch *m, int t)
{
	for (int k = 0; k < m->nmteams; k++)
		if (strcmp(m->mteams[k], m->teams[t].name) == 0)
			return k;
	elog(ERROR, "team \"%s\" of match " INT64_FORMAT " is not one of its teams", m->teams[t].name, m->match_id);
	return -1;
}

/* The match's teams for a message: "red", "blue" and "team_3". */
static char *
team_list(const ResMatch *m)
{
	StringInfoData b;

	initStringInfo(&b);
	for (int k = 0; k < m->nmteams; k++)
		appendStringInfo(&b, "%s\"%s\"", k == 0 ? "" : k + 1 == m->nmteams ? " and " : ", ", m->mteams[k]);
	return b.data;
}

/* Read the match's rosters: its teams and players, by player id. */
static void
read_rosters(ResMatch *m)
{
	Datum		arg = Int64GetDatum(m->match_id);
	int			nrows;
	int			cap = 16;

	run(RS_ROSTERS, &arg, NULL, 0);
	nrows = (int) SPI_processed;
	m->teams = palloc0(sizeof(ResTeam) * Max(nrows, 1));
	m->players = palloc0(sizeof(ResPlayer) * cap);
	for (int r = 0; r < nrows; r++)
	{
		bool		isnull;
		char	   *team = TextDatumGetCString(col(r, 1, &isnull));
		int64	   *ids;
		int			n = mm_int8_array(DatumGetArrayTypeP(col(r, 2, &isnull)), "players", &ids);
		Datum	   *prof;
		int			nprof = mm_text_array(DatumGetArrayTypeP(col(r, 3, &isnull)), "professions", &prof);
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
		}
	}
	qsort(m->players, m->nplayers, sizeof(ResPlayer), player_cmp);
	for (int i = 1; i < m->nplayers; i++)
		if (m->players[i].id == m->players[i - 1].id)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("player " INT64_FORMAT " is twice in match " INT64_FORMAT,
							m->players[i].id, m->match_id)));
}

/* The result's JSON value of a key of an object container, or NULL. */
static JsonbValue *
jget(JsonbContainer *c, const char *key)
{
	return getKeyJsonValueFromContainer(c, key, strlen(key), NULL);
}

static bool
is_object(const JsonbValue *v)
{
	return v != NULL && v->type == jbvBinary && JsonContainerIsObject(v->val.binary.data);
}

static bool
is_array(const JsonbValue *v)
{
	return v != NULL && v->type == jbvBinary && JsonContainerIsArray(v->val.binary.data);
}

/* A JSON number as float8 (out of range is 22003, as the SQL cast). */
static double
jnumber(const JsonbValue *v)
{
	return DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(v->val.numeric)));
}

/* Parse text as a player id: false if it is not an integer of int8. */
static bool
parse_id(const char *s, int64 *id)
{
	char	   *end;
	const char *d = (*s == '-') ? s + 1 : s;

	if (*d == '\0' || strspn(d, "0123456789") != strlen(d))
		return false;
	errno = 0;
	*id = strtoll(s, &end, 10);
	return errno == 0 && *end == '\0';
}

/* The keys of an object container, in order, as palloc'd strings. */
static char **
object_keys(JsonbContainer *c, int *n)
{
	JsonbIterator *it = JsonbIteratorInit(c);
	JsonbValue	v;
	JsonbIteratorToken tok;
	char	  **keys = palloc(sizeof(char *) * (JsonContainerSize(c) + 1));

	*n = 0;
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		if (tok == WJB_KEY)
			keys[(*n)++] = pnstrdup(v.val.string.val, v.val.string.len);
	return keys;
}

/* Check one team's object of the result (its keys, types, desertions). */
static void
check_team(ResMatch *m, int t)
{
	ResTeam    *team = &m->teams[t];
	int			nkeys;
	char	  **keys = object_keys(team->obj, &nkeys);
	JsonbValue *rank = jget(team->obj, "rank");
	JsonbValue *score = jget(team->obj, "score");
	JsonbValue *des = jget(team->obj, "desertions");

	for (int k = 0; k < nkeys; k++)
		if (strcmp(keys[k], "rank") != 0 && strcmp(keys[k], "score") != 0 &&
			strcmp(keys[k], "desertions") != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("result key \"teams.%s.%s\" is unknown", team->name, keys[k]),
					 errhint("A team has keys \"rank\", \"score\" and \"desertions\".")));
	if ((rank != NULL && rank->type != jbvNumeric) ||
		(score != NULL && score->type != jbvNumeric) ||
		(des != NULL && !is_array(des)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("team \"%s\" of the result has a value of the wrong type", team->name),
				 errhint("\"rank\" and \"score\" are numbers, \"desertions\" an array of player ids.")));
	if (des != NULL)
	{
		JsonbIterator *it = JsonbIteratorInit(des->val.binary.data);
		JsonbValue	e;
		JsonbIteratorToken tok;

		while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
		{
			int64		id;
			ResPlayer  *p = NULL;

			if (tok != WJB_ELEM)
				continue;
			if (e.type == jbvNumeric && parse_id(numeric_normalize(e.val.numeric), &id))
				p = find_player(m, id);
			if (p == NULL || p->team != t)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("desertions of team \"%s\" must be players of that team", team->name),
						 errdetail("The desertions are %s.",
								   JsonbToCString(NULL, des->val.binary.data, -1))));
			p->deserted = true;
		}
	}
	team->has_rank = rank != NULL;
	team->has_score = score != NULL;
	if (rank != NULL)
		team->given_rank = jnumber(rank);
	if (score != NULL)
		team->score = jnumber(score);
}

/* Check the "players" object of the result and take weights and scores. */
static void
check_players(ResMatch *m, JsonbContainer *obj)
{
	int			nkeys;
	char	  **keys = object_keys(obj, &nkeys);

	for (int k = 0; k < nkeys; k++)
	{
		int64		id;
		ResPlayer  *p = NULL;
		JsonbValue *v = jget(obj, keys[k]);
		JsonbValue *w = NULL;
		JsonbValue *s = NULL;
		bool		ok;

		if (strlen(keys[k]) <= 20 && parse_id(keys[k], &id))
			p = find_player(m, id);
		if (p == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("result names player \"%s\" who is not in match " INT64_FORMAT,
							keys[k], m->match_id)));
		ok = is_object(v);
		if (ok)
		{
			int			n;
			char	  **pk = object_keys(v->val.binary.data, &n);

			for (int i = 0; i < n; i++)
				if (strcmp(pk[i], "weight") != 0 && strcmp(pk[i], "score") != 0)
					ok = false;
			w = jget(v->val.binary.data, "weight");
			s = jget(v->val.binary.data, "score");
			ok = ok && (w == NULL || w->type == jbvNumeric) && (s == NULL || s->type == jbvNumeric);
		}
		if (!ok)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("player \"%s\" of the result must be an object with numbers \"weight\" and \"score\"",
							keys[k])));
		if (w != NULL)
		{
			p->weight = jnumber(w);
			if (!(p->weight >= 0.0 && p->weight <= 1.0))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("weight of player %s must be between 0 and 1", keys[k]),
						 errdetail("The value is %s.", numeric_normalize(w->val.numeric)),
						 errhint("The weight is the share of the match the player played.")));
		}
		if (s != NULL)
		{
			p->has_score = true;
			p->score = jnumber(s);
		}
	}
}

/*
 * Check a result against the match and fill in the teams' ranks and the
 * players' weights, scores and desertions.
 */
static void
parse_result(ResMatch *m, Jsonb *result)
{
	JsonbValue *teams = NULL;
	JsonbValue *players = NULL;
	int			nkeys;
	char	  **keys;
	int			n_rank = 0;
	int			n_score = 0;
	bool		by_rank;

	if (JB_ROOT_IS_OBJECT(result) && !JB_ROOT_IS_SCALAR(result))
	{
		teams = jget(&result->root, "teams");
		players = jget(&result->root, "players");
	}
	if (!is_object(teams) || (players != NULL && !is_object(players)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("result must be an object with an object \"teams\""),
				 errhint("Pass {\"teams\": {\"red\": {\"rank\": 1}, \"blue\": {\"rank\": 2}}} (one key per team of the match), "
						 "optionally with \"players\": {\"<id>\": {\"weight\": 0.5}}.")));
	keys = object_keys(&result->root, &nkeys);
	for (int k = 0; k < nkeys; k++)
		if (strcmp(keys[k], "teams") != 0 && strcmp(keys[k], "players") != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("result key \"%s\" is unknown", keys[k]),
					 errhint("A result has keys \"teams\" and \"players\".")));
	for (int t = 0; t < m->nteams; t++)
	{
		JsonbValue *v = jget(teams->val.binary.data, m->teams[t].name);

		if (!is_object(v))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("result has no team \"%s\"", m->teams[t].name),
					 errhint("Give every team of the match an object with its \"rank\" or \"score\".")));
		m->teams[t].obj = v->val.binary.data;
	}
	keys = object_keys(teams->val.binary.data, &nkeys);
	for (int k = 0; k < nkeys; k++)
	{
		int			t;

		for (t = 0; t < m->nteams; t++)
			if (strcmp(m->teams[t].name, keys[k]) == 0)
				break;
		if (t == m->nteams)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("match " INT64_FORMAT " has no team \"%s\"", m->match_id, keys[k]),
					 errhint("The teams of match " INT64_FORMAT " are %s.", m->match_id, team_list(m))));
		check_team(m, t);
		n_rank += m->teams[t].has_rank;
		n_score += m->teams[t].has_score;
	}
	if (n_rank != m->nteams && n_score != m->nteams)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("every team of the result needs a rank, or every team a score"),
				 errhint("Rank 1 is the winner; equal ranks are a draw. Without ranks, the higher score wins.")));
	if (players != NULL)
		check_players(m, players->val.binary.data);

	/* the ranks: given, or 1 + the number of teams with a higher score */
	by_rank = n_rank == m->nteams;
	for (int t = 0; t < m->nteams; t++)
	{
		ResTeam    *team = &m->teams[t];

		if (by_rank)
			team->rank = team->given_rank;
		else
		{
			team->rank = 1;
			for (int u = 0; u < m->nteams; u++)
				if (m->teams[u].score > team->score)
					team->rank++;
		}
	}
}


/* The players' ids, ascending. */
static Datum
player_ids(const ResMatch *m)
{
	int64	   *ids = palloc(sizeof(int64) * Max(m->nplayers, 1));

	for (int i = 0; i < m->nplayers; i++)
		ids[i] = m->players[i].id;
	return mm_int8_array_datum(m->nplayers, ids);
}

/* The state a lock or rate step works on: core or profession. */
static ResState *
state_of(ResPlayer *p, bool prof)
{
	return prof ? &p->prof : &p->core;
}

/* The profession's rating key: the queue's key, a slash, the profession. */
static char *
profession_key(const MmMatcherConfig *cfg, const ResPlayer *p)
{
	return psprintf("%s/%s", cfg->rating.key, p->profession);
}

/* A flat float8[] of n states of the family: nstate elements each. */
static Datum
states_array(const MmRatingModel *model, int n, double *const *st)
{
	double	   *v = palloc(sizeof(double) * Max(n * model->nstate, 1));

	for (int i = 0; i < n; i++)
		memcpy(v + i * model->nstate, st[i], sizeof(double) * model->nstate);
	return mm_float8_array_datum(n * model->nstate, v, NULL);
}

/*
 * Lock the players' rating rows of the queue's family in player-id order,
 * inserting missing ones first (in the same order, with the family's
 * defaults), and read each state before the match as of now (the family's
 * read_at: Glicko-2's idle deviation growth). prof: the profession rows of
 * the players whose roster names their profession (locked after every
 * core row); the others play the profession game with their core rating,
 * which is not written back.
 */
static void
lock_ratings(ResMatch *m, const MmMatcherConfig *cfg, TimestampTz at, bool prof)
{
	const MmRatingModel *model = mm_rating_model_of(&cfg->rating);
	double		defaults[MM_RATING_MAX_STATE];
	Datum		args[4];
	int64	   *ids = palloc(sizeof(int64) * Max(m->nplayers, 1));
	char	  **keys = palloc(sizeof(char *) * Max(m->nplayers, 1));
	ResPlayer **who = palloc(sizeof(ResPlayer *) * Max(m->nplayers, 1));
	int			n = 0;

	for (int i = 0; i < m->nplayers; i++)
	{
		ResPlayer  *p = &m->players[i];

		if (prof)
		{
			p->prof = p->core;
			p->prof.rated = false;
			if (p->profession == NULL)
				continue;
			keys[n] = profession_key(cfg, p);
		}
		ids[n] = p->id;
		who[n++] = p;
	}
	if (n == 0)
		return;
	model->defaults(cfg->rating.options, defaults);
	args[0] = prof ? mm_text_array_datum(n, keys) : CStringGetTextDatum(cfg->rating.key);
	args[1] = mm_int8_array_datum(n, ids);
	args[2] = CStringGetTextDatum(model->name);
	args[3] = mm_rating_state_datum(model, defaults);
	run(prof ? RS_INSERT_MISSING_PROFESSION : RS_INSERT_MISSING, args, NULL, 0);
	run(prof ? RS_LOCK_PROFESSION : RS_LOCK, args, NULL, 0);
	if ((int) SPI_processed != n)
		elog(ERROR, "locked %d rating rows for %d players", (int) SPI_processed, n);
	for (int i = 0; i < n; i++)
	{
		ResPlayer  *p = who[i];
		ResState   *st = state_of(p, prof);
		bool		isnull;
		Datum		d;

		if (DatumGetInt64(col(i, 1, &isnull)) != p->id)
			elog(ERROR, "rating rows are not in player-id order");
		mm_rating_state_read(model, DatumGetArrayTypeP(col(i, 2, &isnull)), st->before);
		d = col(i, 3, &isnull);
		if (!isnull && model->read_at != NULL && DatumGetTimestampTz(d) < at)
			model->read_at(st->before, DatumGetTimestampTz(d), at);
		d = col(i, 4, &isnull);
		/* ladder points are the core key's */
		if (!prof)
		{
			p->has_ladder = !isnull;
			if (!isnull)
				p->ladder = DatumGetInt32(d);
		}
	}
}

/*
 * Rate the match as one game of the queue's rating family (rating_model.h),
 * core or profession ratings: as mm.openskill_rate rates it, or for
 * Glicko-2 by its team likelihood, each player against each opposing team
 * (a 1v1 exactly as mm.glicko2_rate).
 */
static void
rate(ResMatch *m, const MmMatcherConfig *cfg, bool prof)
{
	const MmRatingModel *model = mm_rating_model_of(&cfg->rating);
	const void *params = model->queue_params(cfg->rating.options);
	int			n = m->nplayers;
	int64	   *label = palloc(sizeof(int64) * n);
	double	   *rank = palloc(sizeof(double) * n);
	double	   *weight = palloc(sizeof(double) * n);
	double	   *in[MM_RATING_MAX_STATE];
	double	   *out[MM_RATING_MAX_STATE];
	MmRatingGame g;

	for (int c = 0; c < model->nstate; c++)
	{
		in[c] = palloc(sizeof(double) * n);
		out[c] = palloc(sizeof(double) * n);
	}
	for (int i = 0; i < n; i++)
	{
		const ResPlayer *p = &m->players[i];
		ResState   *st = state_of(&m->players[i], prof);

		/* a team's label is its place in the match's team order, from 1 (red 1, blue 2) */
		label[i] = team_order(m, p->team) + 1;
		rank[i] = m->teams[p->team].rank;
		weight[i] = p->weight;
		for (int c = 0; c < model->nstate; c++)
			in[c][i] = st->before[c];
	}
	mm_rating_build_game(&g, model, n, label, rank, NULL,
						 (const double *const *) in, weight);
	model->rate(params, &g, out);
	for (int i = 0; i < n; i++)
	{
		ResState   *st = state_of(&m->players[i], prof);

		st->rated = true;
		for (int c = 0; c < model->nstate; c++)
			st->after[c] = mm_check_result(out[c][i], model->columns[c].name);
	}
}

/* The ladder's season config from the queue's rating config. */
static Jsonb *
season_config(const MmMatcherConfig *cfg)
{
	StringInfoData b;
	bool		first = true;

	initStringInfo(&b);
	appendStringInfoChar(&b, '{');
	if (!cfg->rating.season_start_null)
	{
		appendStringInfoString(&b, "\"start\": ");
		escape_json(&b, cfg->rating.season_start);
		first = false;
	}
	if (!cfg->rating.season_end_null)
	{
		appendStringInfoString(&b, first ? "\"end\": " : ", \"end\": ");
		escape_json(&b, cfg->rating.season_end);
	}
	appendStringInfoChar(&b, '}');
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(b.data)));
}

/*
 * Ladder points from the match's prediction (each team's odds of victory)
 * and the team's final score; a team without a score gets none.
 */
static void
award_ladder(ResMatch *m, const MmMatcherConfig *cfg, TimestampTz at)
{
	Jsonb	   *season = season_config(cfg);

	for (int i = 0; i < m->nplayers; i++)
	{
		ResPlayer  *p = &m->players[i];
		ResTeam    *team = &m->teams[p->team];
		const char *result = "victory";
		double		odds = m->odds[team_order(m, p->team)];

		if (!team->has_score)
			continue;
		for (int t = 0; t < m->nteams; t++)
			if (t != p->team && !(team->rank < m->teams[t].rank))
				result = "defeat";
		if (p->deserted)
			result = "desertion";
		mm_ladder_game(season, at, odds, team->score, result,
					   p->has_ladder ? &p->ladder : NULL, &p->awarded, &p->ladder2);
		p->awarded_set = true;
	}
}

/*
 * Dishonor for desertions, in player-id order. A reason the dishonor
 * config does not know (mm.set_dishonor_config refuses to drop one a queue
 * uses; a direct change of mm.dishonor_settings may have) gives no
 * dishonor and a WARNING: the result is still recorded.
 */
static void
give_dishonor(ResMatch *m, const MmMatcherConfig *cfg, TimestampTz at)
{
	bool		checked = false;

	for (int i = 0; i < m->nplayers; i++)
	{
		ResPlayer  *p = &m->players[i];
		Datum		args[3];
		bool		isnull;
		Datum		d;

		if (!p->deserted)
			continue;
		if (!checked)
		{
			args[0] = CStringGetTextDatum(cfg->rating.desertion_reason);
			run(RS_REASON_KNOWN, args, NULL, 1);
			if (!DatumGetBool(col(0, 1, &isnull)) || isnull)
			{
				ereport(WARNING,
						(errmsg("rating.desertion_reason \"%s\" is not a known dishonor reason: the deserters of match %lld get no dishonor",
								cfg->rating.desertion_reason, (long long) m->match_id),
						 errhint("Add the reason under \"penalties\" with mm.set_dishonor_config, or change the queue's rating.desertion_reason with mm.alter_queue.")));
				return;
			}
			checked = true;
		}
		args[0] = Int64GetDatum(p->id);
		args[1] = CStringGetTextDatum(cfg->rating.desertion_reason);
		args[2] = TimestampTzGetDatum(at);
		run(RS_DISHONOR, args, NULL, 1);
		d = col(0, 1, &isnull);
		p->stacks_set = !isnull;
		if (!isnull)
			p->stacks = DatumGetInt32(d);
	}
}

/*
 * Write the new ratings and ladder totals, and count the game (a pending
 * period keeps the states: mm.close_rating_period rates and counts).
 */
static void
write_ratings(ResMatch *m, const MmMatcherConfig *cfg, TimestampTz at)
{
	const MmRatingModel *model = mm_rating_model_of(&cfg->rating);
	int			n = m->nplayers;
	double	  **after = palloc(sizeof(double *) * n);
	int32	   *ladder = palloc(sizeof(int32) * n);
	bool	   *lnull = palloc(sizeof(bool) * n);
	Datum		args[7];
	char		nulls[7] = "       ";

	for (int i = 0; i < n; i++)
	{
		after[i] = m->players[i].core.after;
		ladder[i] = m->players[i].ladder2;
		lnull[i] = !m->players[i].awarded_set;
	}
	args[0] = CStringGetTextDatum(cfg->rating.key);
	args[1] = TimestampTzGetDatum(at);
	args[2] = player_ids(m);
	if (cfg->rating.pending_period)
	{
		args[3] = (Datum) 0;
		nulls[3] = 'n';
	}
	else
		args[3] = states_array(model, n, after);
	args[4] = Int32GetDatum(model->nstate);
	args[5] = mm_int4_array_datum(n, ladder, lnull);
	args[6] = CStringGetTextDatum(model->name);
	run(RS_UPDATE_RATINGS, args, nulls, 0);
	if ((int) SPI_processed != n)
		elog(ERROR, "updated %d rating rows for %d players", (int) SPI_processed, n);
}

/* Write the profession ratings of the players whose roster names one. */
static void
write_profession_ratings(ResMatch *m, const MmMatcherConfig *cfg, TimestampTz at)
{
	const MmRatingModel *model = mm_rating_model_of(&cfg->rating);
	int			n = 0;
	int64	   *ids = palloc(sizeof(int64) * Max(m->nplayers, 1));
	char	  **keys = palloc(sizeof(char *) * Max(m->nplayers, 1));
	double	  **after = palloc(sizeof(double *) * Max(m->nplayers, 1));
	Datum		args[6];

	for (int i = 0; i < m->nplayers; i++)
	{
		ResPlayer  *p = &m->players[i];

		if (p->profession == NULL)
			continue;
		ids[n] = p->id;
		keys[n] = profession_key(cfg, p);
		after[n] = p->prof.after;
		n++;
	}
	if (n == 0)
		return;
	args[0] = mm_text_array_datum(n, keys);
	args[1] = TimestampTzGetDatum(at);
	args[2] = mm_int8_array_datum(n, ids);
	args[3] = states_array(model, n, after);
	args[4] = Int32GetDatum(model->nstate);
	args[5] = CStringGetTextDatum(model->name);
	run(RS_UPDATE_PROFESSION, args, NULL, 0);
	if ((int) SPI_processed != n)
		elog(ERROR, "updated %d profession rating rows for %d players", (int) SPI_processed, n);
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
	double	   *f[3];
	bool	   *fnull[3];
	double	  **before = palloc(sizeof(double *) * n);
	double	  **after = palloc(sizeof(double *) * n);
	bool	   *deserted = palloc(sizeof(bool) * n);
	int32	   *iv[4];
	bool	   *inull[4];
	Datum		args[17];
	char		nulls[17];

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
	args[0] = Int64GetDatum(m->match_id);
	args[1] = Int32GetDatum(m->queue_id);
	args[2] = JsonbPGetDatum(result);
	args[3] = TimestampTzGetDatum(at);
	run(RS_INSERT_RESULT, args, NULL, 0);

	memset(nulls, ' ', sizeof(nulls));
	args[2] = CStringGetTextDatum(cfg->rating.key);
	args[3] = player_ids(m);
	args[4] = mm_text_array_datum(n, team);
	for (int c = 0; c < 3; c++)
		args[5 + c] = mm_float8_array_datum(n, f[c], fnull[c]);
	args[8] = states_array(model, n, before);
	if (cfg->rating.pending_period)
	{
		args[9] = (Datum) 0;
		nulls[9] = 'n';
	}
	else
		args[9] = states_array(model, n, after);
	args[10] = Int32GetDatum(model->nstate);
	args[11] = CStringGetTextDatum(model->name);
	args[12] = mm_bool_array_datum(n, deserted);
	for (int c = 0; c < 4; c++)
		args[13 + c] = mm_int4_array_datum(n, iv[c], inull[c]);
	run(RS_INSERT_PLAYERS, args, nulls, 0);
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
	Datum		args[6];

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
	args[0] = CStringGetTextDatum(cfg->rating.key);
	args[1] = Int64GetDatum(m->match_id);
	args[2] = TimestampTzGetDatum(at);
	args[3] = mm_int8_array_datum(k, pl);
	args[4] = mm_int8_array_datum(k, op);
	args[5] = mm_float8_array_datum(k, sc, NULL);
	run(RS_INSERT_PENDING, args, NULL, 0);
}

/* Return a match's recorded outcome, one row per player by player id. */
static void
put_outcome(ReturnSetInfo *rsinfo, int64 match_id)
{
	Datum		arg = Int64GetDatum(match_id);

	run(RS_OUTCOME, &arg, NULL, 0);
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
previous_result(int64 match_id, Jsonb *result)
{
	Datum		args[2] = {Int64GetDatum(match_id), JsonbPGetDatum(result)};
	bool		isnull;
	char	   *status;
	Datum		prev;
	Datum		same;
	char	   *at;

	run(RS_PREVIOUS, args, NULL, 1);
	if (SPI_processed == 0)
		return false;
	status = TextDatumGetCString(col(0, 1, &isnull));
	prev = col(0, 2, &isnull);
	at = DatumGetCString(DirectFunctionCall1(timestamptz_out, col(0, 3, &isnull)));
	if (strcmp(status, "abandoned") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("match " INT64_FORMAT " was abandoned", match_id),
				 errdetail("mm.abandon_match ended it at %s.", at)));
	/* the same outcome, whatever numbers state the ranks: a retry */
	same = col(0, 4, &isnull);
	if (isnull || !DatumGetBool(same))
		ereport(ERROR,
				(errcode(ERRCODE_UNIQUE_VIOLATION),
				 errmsg("match " INT64_FORMAT " already has a different result", match_id),
				 errdetail("The reported result is %s.",
						   JsonbToCString(NULL, &DatumGetJsonbP(prev)->root, -1)),
				 errhint("A match is rated once; report the same result again to read its outcome.")));
	return true;
}

/* Lock the match, read its queue's config; errors if it cannot be reported. */
static void
lock_match(ResMatch *m, MmMatcherConfig *cfg, bool *done, Jsonb *result)
{
	Datum		arg = Int64GetDatum(m->match_id);
	bool		isnull;
	char	   *status;
	Datum		config;

	run(RS_LOCK_MATCH, &arg, NULL, 1);
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("match " INT64_FORMAT " does not exist", m->match_id),
				 errhint("Report the match_id that mm.claim_matches delivered.")));
	m->queue_id = DatumGetInt32(col(0, 1, &isnull));
	status = TextDatumGetCString(col(0, 2, &isnull));
	{
		Datum	   *elems;
		bool	   *enulls;
		int			n,
					nodds;

		deconstruct_array(DatumGetArrayTypeP(col(0, 3, &isnull)), TEXTOID, -1, false, TYPALIGN_INT,
						  &elems, &enulls, &n);
		m->mteams = palloc(sizeof(char *) * Max(n, 1));
		for (int t = 0; t < n; t++)
			m->mteams[t] = TextDatumGetCString(elems[t]);
		deconstruct_array(DatumGetArrayTypeP(col(0, 4, &isnull)), FLOAT8OID, 8, FLOAT8PASSBYVAL,
						  TYPALIGN_DOUBLE, &elems, &enulls, &nodds);
		m->odds = palloc(sizeof(double) * Max(n, 1));
		for (int t = 0; t < n; t++)
			m->odds[t] = t < nodds ? DatumGetFloat8(elems[t]) : 0;
		m->nmteams = n;
	}
	*done = previous_result(m->match_id, result);
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
	arg = Int32GetDatum(m->queue_id);
	run(RS_CONFIG, &arg, NULL, 1);
	config = col(0, 1, &isnull);
	mm_queue_config(isnull ? NULL : DatumGetJsonbP(config), cfg);
}

PG_FUNCTION_INFO_V1(mm_report_result);

/*
 * mm.report_result(match_id bigint, result jsonb)
 *		-> SETOF mm.match_result_player
 */
Datum
mm_report_result(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TimestampTz at = GetCurrentTransactionStartTimestamp();
	ResMatch	m;
	MmMatcherConfig cfg;
	Jsonb	   *result;
	bool		done;

	mm_require_primary("mm.report_result");
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("match_id and result must not be NULL")));
	memset(&m, 0, sizeof(m));
	m.match_id = PG_GETARG_INT64(0);
	result = PG_GETARG_JSONB_P(1);
	InitMaterializedSRF(fcinfo, 0);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");

	lock_match(&m, &cfg, &done, result);
	if (!done)
	{
		read_rosters(&m);
		parse_result(&m, result);
		lock_ratings(&m, &cfg, at, false);
		if (cfg.rating.profession_ratio > 0)
			lock_ratings(&m, &cfg, at, true);
		if (!cfg.rating.pending_period)
			rate(&m, &cfg, false);
		if (cfg.rating.profession_ratio > 0)
			rate(&m, &cfg, true);
		if (cfg.rating.ladder)
			award_ladder(&m, &cfg, at);
		if (!cfg.rating.desertion_reason_null)
			give_dishonor(&m, &cfg, at);
		write_ratings(&m, &cfg, at);
		if (cfg.rating.profession_ratio > 0)
			write_profession_ratings(&m, &cfg, at);
		write_result(rsinfo, &m, &cfg, result, at);
		if (cfg.rating.pending_period)
			write_pending_games(&m, &cfg, at);
		{
			Datum		args[2] = {Int64GetDatum(m.match_id), TimestampTzGetDatum(at)};

			run(RS_FINISH, args, NULL, 0);
			run(RS_END_ROSTERS, args, NULL, 0);
			run(RS_EXPIRE_BACKFILL, args, NULL, 0);
		}
	}
	else
		put_outcome(rsinfo, m.match_id);
	SPI_finish();
	return (Datum) 0;
}
