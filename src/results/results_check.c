/*-------------------------------------------------------------------------
 *
 * results_check.c
 *		The checks of a reported result against its match (mm.report_result):
 *		its teams by name, ranks or scores, players, weights and desertions.
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
				p = res_find_player(m, id);
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
			p = res_find_player(m, id);
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
void
res_parse_result(ResMatch *m, Jsonb *result)
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
					 errhint("The teams of match " INT64_FORMAT " are %s.", m->match_id, res_team_list(m))));
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


