/*-------------------------------------------------------------------------
 *
 * gw2_ladder.c
 *		GW2 ladder points (the Guild Wars 2 wiki's PvP matchmaking page, "Ladder": getPoints and processGame).
 *
 * getPoints picks the matrix with the highest odds threshold not above the
 * team's odds of victory, then in it the score with the highest min not
 * above the final score, and awards its points; processGame forces the
 * final score of a desertion to 0, gives a victory at least 1 point, adds
 * the points to the player's ladder total and updates or removes the
 * player's leaderboard entry around leaderboard_points.
 *
 * Readings where the GW2 wiki page is silent (README, section gw2):
 *	- A game outside the season [start, end) scores 0, also a victory (the
 *	  pseudo-code's max(1, 0) would award it 1 point; the XML says such
 *	  games "are not included on the ladder"). start and end default to
 *	  null: no season bounds.
 *	- The matrix is validated so that a lookup always matches: odds
 *	  thresholds in [0, 1], score thresholds >= 0, both strictly ascending,
 *	  the first matrix at odds 0 and every matrix's first score at min 0;
 *	  final scores must not be negative.
 *	- The ladder total is clamped to [min, max] after each game; a player
 *	  without a total starts at "default".
 *
 *-------------------------------------------------------------------------
 */
#include "gw2.h"

#include <limits.h>
#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"
#include "utils/timestamp.h"

/* One <Score min=... points=...>. */
typedef struct LadderScore
{
	double		min;
	int			points;
} LadderScore;

/* One <Matrix odds=...> with its scores, ascending by min. */
typedef struct LadderMatrix
{
	double		odds;
	int			nscores;
	LadderScore *scores;
} LadderMatrix;

/* The <Ladder> configuration. */
typedef struct LadderConfig
{
	int			default_points;
	int			min;
	int			max;
	int			leaderboard_points;
	char	   *start_text;		/* NULL: no start */
	char	   *end_text;		/* NULL: no end */
	bool		start_null;
	bool		end_null;
	TimestampTz start;
	TimestampTz end;
	int			nmatrix;
	LadderMatrix *matrix;		/* ascending by odds */
} LadderConfig;

/* The GW2 wiki's matrix: odds, then (min, points) pairs, -1 ending a row. */
static const double default_matrix[5][12] = {
	{0.0, 0, -1, 200, 0, 300, 1, 400, 2, 500, 3, -1},
	{0.2, 0, -1, 300, 0, 400, 1, 500, 2, -1},
	{0.4, 0, -1, 400, 0, 500, 1, -1},
	{0.6, 0, -2, 300, -1, 400, 0, 500, 1, -1},
	{0.8, 0, -3, 200, -2, 300, -1, 400, 0, 500, 1},
};
static const int default_nscores[5] = {5, 4, 3, 4, 5};

/* Fill cfg with the GW2 wiki's <Ladder default="0" min="0" max="1000000" ...>. */
static void
ladder_defaults(LadderConfig *cfg)
{
	cfg->default_points = 0;
	cfg->min = 0;
	cfg->max = 1000000;
	cfg->leaderboard_points = 1;
	cfg->start_text = NULL;
	cfg->end_text = NULL;
	cfg->start_null = true;
	cfg->end_null = true;
	cfg->nmatrix = 5;
	cfg->matrix = palloc(sizeof(LadderMatrix) * 5);
	for (int m = 0; m < 5; m++)
	{
		LadderMatrix *mx = &cfg->matrix[m];

		mx->odds = default_matrix[m][0];
		mx->nscores = default_nscores[m];
		mx->scores = palloc(sizeof(LadderScore) * mx->nscores);
		for (int s = 0; s < mx->nscores; s++)
		{
			mx->scores[s].min = default_matrix[m][1 + 2 * s];
			mx->scores[s].points = (int) default_matrix[m][2 + 2 * s];
		}
	}
}

/* The elements of an array value; "what" names it in messages. */
static JsonbValue *
array_elements(JsonbValue *v, const char *what, int *n)
{
	JsonbIterator *it;
	JsonbValue	e;
	JsonbIteratorToken tok;
	JsonbValue *elems;
	int			count = 0;

	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data) ||
		JsonContainerIsScalar(v->val.binary.data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ladder config key \"%s\" must be an array", what),
				 errhint("See mm.ladder_config_defaults() for the layout.")));
	elems = palloc(sizeof(JsonbValue) * (JsonContainerSize(v->val.binary.data) + 1));
	it = JsonbIteratorInit(v->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
		if (tok == WJB_ELEM)
			elems[count++] = e;
	if (count == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ladder config key \"%s\" must not be empty", what),
				 errhint("See mm.ladder_config_defaults() for the layout.")));
	*n = count;
	return elems;
}

/* Parse an array element that must be an object with the given keys. */
static void
element_parse(JsonbValue *e, const char *path, const MmConfigKey *keys,
			  const char *array_key)
{
	Jsonb	   *obj;

	if (e->type != jbvBinary || !JsonContainerIsObject(e->val.binary.data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ladder config key \"%s\" must be an object", path),
				 errhint("See mm.ladder_config_defaults() for the layout.")));
	obj = JsonbValueToJsonb(e);
	if (array_key != NULL)
		obj = mm_gw2_jsonb_without(obj, array_key);
	mm_config_parse(obj, psprintf("ladder config %s", path), keys);
}

/* Refuse a matrix setting with a message naming its path. */
static void
matrix_error(const char *path, const char *msg, double value, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("ladder config key \"%s\" %s", path, msg),
			 errdetail("The value is %g.", value),
			 errhint("%s", hint)));
}

/* Parse and check "matrix": [{odds, scores: [{min, points}]}]. */
static void
matrix_parse(JsonbValue *v, LadderConfig *cfg)
{
	JsonbValue *rows = array_elements(v, "matrix", &cfg->nmatrix);

	cfg->matrix = palloc(sizeof(LadderMatrix) * cfg->nmatrix);
	for (int m = 0; m < cfg->nmatrix; m++)
	{
		LadderMatrix *mx = &cfg->matrix[m];
		char	   *path = psprintf("matrix[%d]", m);
		MmConfigKey keys[] = {
			{"odds", MM_CONFIG_FLOAT, &mx->odds, 0, 1, false, NULL, NULL},
			{"scores", MM_CONFIG_OBJECT, NULL, 0, 0, false, NULL, NULL},
			{NULL, 0, NULL, 0, 0, false, NULL, NULL}
		};
		JsonbValue *sv;
		JsonbValue *scores;

		mx->odds = -1;
		element_parse(&rows[m], path, keys, "scores");
		if (mx->odds < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("ladder config key \"%s.odds\" is missing", path),
					 errhint("Give each matrix its minimum odds of victory (0 to 1).")));
		if (m == 0 && mx->odds != 0)
			matrix_error(psprintf("%s.odds", path), "must be 0", mx->odds,
						 "The first matrix must start at odds 0, so that every game finds one.");
		if (m > 0 && mx->odds <= cfg->matrix[m - 1].odds)
			matrix_error(psprintf("%s.odds", path), "must be greater than the previous matrix's odds",
						 mx->odds, "List the matrices by ascending odds, each odds once.");
		sv = mm_gw2_object_get(rows[m].val.binary.data, "scores");
		if (sv == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("ladder config key \"%s.scores\" is missing", path),
					 errhint("Give each matrix its scores: [{\"min\": 0, \"points\": -1}, ...].")));
		scores = array_elements(sv, psprintf("%s.scores", path), &mx->nscores);
		mx->scores = palloc(sizeof(LadderScore) * mx->nscores);
		for (int s = 0; s < mx->nscores; s++)
		{
			LadderScore *sc = &mx->scores[s];
			char	   *spath = psprintf("%s.scores[%d]", path, s);
			MmConfigKey skeys[] = {
				{"min", MM_CONFIG_FLOAT, &sc->min, 0, 1e12, false, NULL, NULL},
				{"points", MM_CONFIG_INT, &sc->points, -1000000, 1000000, false, NULL, NULL},
				{NULL, 0, NULL, 0, 0, false, NULL, NULL}
			};

			sc->min = -1;
			sc->points = INT_MIN;
			element_parse(&scores[s], spath, skeys, NULL);
			if (sc->min < 0 || sc->points == INT_MIN)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("ladder config key \"%s\" needs both \"min\" and \"points\"", spath),
						 errhint("Write each score as {\"min\": 300, \"points\": 1}.")));
			if (s == 0 && sc->min != 0)
				matrix_error(psprintf("%s.min", spath), "must be 0", sc->min,
							 "Each matrix's first score must start at min 0, so that every final score finds one.");
			if (s > 0 && sc->min <= mx->scores[s - 1].min)
				matrix_error(psprintf("%s.min", spath), "must be greater than the previous score's min",
							 sc->min, "List the scores by ascending min, each min once.");
		}
	}
}

/* Parse a ladder config (overrides of the defaults; NULL: defaults). */
static void
ladder_config(Jsonb *config, LadderConfig *cfg)
{
	MmConfigKey keys[] = {
		{"default", MM_CONFIG_INT, &cfg->default_points, INT_MIN, INT_MAX, false, NULL, NULL},
		{"min", MM_CONFIG_INT, &cfg->min, INT_MIN, INT_MAX, false, NULL, NULL},
		{"max", MM_CONFIG_INT, &cfg->max, INT_MIN, INT_MAX, false, NULL, NULL},
		{"leaderboard_points", MM_CONFIG_INT, &cfg->leaderboard_points, INT_MIN, INT_MAX, false, NULL, NULL},
		{"start", MM_CONFIG_TEXT, &cfg->start_text, 0, 0, false, &cfg->start_null, NULL},
		{"end", MM_CONFIG_TEXT, &cfg->end_text, 0, 0, false, &cfg->end_null, NULL},
		{"matrix", MM_CONFIG_OBJECT, NULL, 0, 0, false, NULL, NULL},
		{NULL, 0, NULL, 0, 0, false, NULL, NULL}
	};
	JsonbValue *mv;

	ladder_defaults(cfg);
	if (config == NULL)
		return;
	mv = mm_gw2_object_get(&config->root, "matrix");
	if (mv != NULL)
	{
		/* an array: read it here, the plain keys below */
		matrix_parse(mv, cfg);
		config = mm_gw2_jsonb_without(config, "matrix");
	}
	mm_config_parse(config, "ladder config", keys);
	if (cfg->min > cfg->max)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ladder config key \"min\" must not exceed \"max\""),
				 errdetail("min is %d, max is %d.", cfg->min, cfg->max),
				 errhint("Set min <= default <= max.")));
	if (cfg->default_points < cfg->min || cfg->default_points > cfg->max)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ladder config key \"default\" must be between \"min\" and \"max\""),
				 errdetail("default is %d, min is %d, max is %d.",
						   cfg->default_points, cfg->min, cfg->max),
				 errhint("Set min <= default <= max.")));
	if (!cfg->start_null)
		cfg->start = DatumGetTimestampTz(mm_gw2_text_setting(timestamptz_in, cfg->start_text,
															 "ladder config", "start"));
	if (!cfg->end_null)
		cfg->end = DatumGetTimestampTz(mm_gw2_text_setting(timestamptz_in, cfg->end_text,
														   "ladder config", "end"));
	if (!cfg->start_null && !cfg->end_null && cfg->start >= cfg->end)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ladder config key \"start\" must be before \"end\""),
				 errdetail("start is \"%s\", end is \"%s\".", cfg->start_text, cfg->end_text),
				 errhint("A season runs from start (included) to end (excluded).")));
}

/* getPoints without the season check: the matrix lookup. */
static int
ladder_lookup(double odds, double final_score, const LadderConfig *cfg)
{
	const LadderMatrix *best = &cfg->matrix[0];
	const LadderScore *score;

	/* highest odds threshold not above the odds (matrix[0].odds is 0) */
	for (int m = 1; m < cfg->nmatrix && cfg->matrix[m].odds <= odds; m++)
		best = &cfg->matrix[m];
	score = &best->scores[0];
	for (int s = 1; s < best->nscores && best->scores[s].min <= final_score; s++)
		score = &best->scores[s];
	return score->points;
}

/* Result of a game for the player's team. */
typedef enum LadderResult
{
	LADDER_VICTORY,
	LADDER_DEFEAT,
	LADDER_DESERTION
} LadderResult;

static LadderResult
ladder_result(const char *result)
{
	if (strcmp(result, "victory") == 0)
		return LADDER_VICTORY;
	if (strcmp(result, "defeat") == 0)
		return LADDER_DEFEAT;
	if (strcmp(result, "desertion") == 0)
		return LADDER_DESERTION;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown game result \"%s\"", result),
			 errhint("Pass 'victory', 'defeat' or 'desertion'.")));
	return LADDER_DEFEAT;		/* not reached */
}

/* processGame's points: season, desertion, lookup, victory at least 1. */
static int
ladder_points(double odds, double final_score, LadderResult result,
			  TimestampTz at, const LadderConfig *cfg)
{
	int			points;

	if ((!cfg->start_null && at < cfg->start) ||
		(!cfg->end_null && at >= cfg->end))
		return 0;
	if (result == LADDER_DESERTION)
		final_score = 0;
	points = ladder_lookup(odds, final_score, cfg);
	if (result == LADDER_VICTORY && points < 1)
		points = 1;
	return points;
}

/* Build the complete config as jsonb. */
static Jsonb *
ladder_config_jsonb(const LadderConfig *cfg)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfo(&buf, "{\"default\": %d, \"min\": %d, \"max\": %d, \"leaderboard_points\": %d, \"start\": ",
					 cfg->default_points, cfg->min, cfg->max, cfg->leaderboard_points);
	if (cfg->start_null)
		appendStringInfoString(&buf, "null");
	else
		escape_json(&buf, cfg->start_text);
	appendStringInfoString(&buf, ", \"end\": ");
	if (cfg->end_null)
		appendStringInfoString(&buf, "null");
	else
		escape_json(&buf, cfg->end_text);
	appendStringInfoString(&buf, ", \"matrix\": [");
	for (int m = 0; m < cfg->nmatrix; m++)
	{
		appendStringInfo(&buf, "%s{\"odds\": %s, \"scores\": [", m ? ", " : "",
						 float8out_internal(cfg->matrix[m].odds));
		for (int s = 0; s < cfg->matrix[m].nscores; s++)
			appendStringInfo(&buf, "%s{\"min\": %s, \"points\": %d}", s ? ", " : "",
							 float8out_internal(cfg->matrix[m].scores[s].min),
							 cfg->matrix[m].scores[s].points);
		appendStringInfoString(&buf, "]}");
	}
	appendStringInfoString(&buf, "]}");
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(buf.data)));
}

/* Check one game's odds, final score, result and time (mm.ladder_points). */
static LadderResult
ladder_check_game(double odds, double final_score, const char *result, TimestampTz at)
{
	LadderResult r;

	mm_check_finite(odds, "odds");
	if (odds < 0.0 || odds > 1.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("odds must be between 0 and 1"),
				 errdetail("The value is %g.", odds),
				 errhint("Pass the team's odds of victory, e.g. from mm.odds_of_victory.")));
	mm_check_nonnegative(final_score, "final_score");
	r = ladder_result(result);
	if (TIMESTAMP_NOT_FINITE(at))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("at must be a finite timestamp"),
				 errhint("Pass the time the game ended.")));
	return r;
}

/* processGame's new total, clamped to [min, max]; prev is the old one. */
static int32
ladder_total(int64 prev, int32 points, const LadderConfig *cfg)
{
	int64		next = prev + points;

	if (next < cfg->min)
		next = cfg->min;
	if (next > cfg->max)
		next = cfg->max;
	return (int32) next;
}

/*
 * One game of one player (gw2.h): mm.ladder_points, then mm.ladder_apply
 * with the same config.
 */
void
mm_ladder_game(Jsonb *config, TimestampTz at, double odds, double final_score,
			   const char *result, const int32 *current, int32 *points, int32 *total)
{
	LadderConfig cfg;
	LadderResult r = ladder_check_game(odds, final_score, result, at);

	ladder_config(config, &cfg);
	*points = ladder_points(odds, final_score, r, at, &cfg);
	*total = ladder_total(current != NULL ? *current : cfg.default_points, *points, &cfg);
}

/* SQL wrappers */

/* The config argument at position i, NULL meaning the defaults. */
static void
ladder_config_arg(FunctionCallInfo fcinfo, int i, LadderConfig *cfg)
{
	ladder_config(PG_NARGS() > i && !PG_ARGISNULL(i) ? PG_GETARG_JSONB_P(i) : NULL, cfg);
}

PG_FUNCTION_INFO_V1(mm_ladder_config_resolve);

/* mm.ladder_config_resolve(config jsonb) -> jsonb: complete, checked */
Datum
mm_ladder_config_resolve(PG_FUNCTION_ARGS)
{
	LadderConfig cfg;

	ladder_config_arg(fcinfo, 0, &cfg);
	PG_RETURN_JSONB_P(ladder_config_jsonb(&cfg));
}

PG_FUNCTION_INFO_V1(mm_ladder_points);

/*
 * mm.ladder_points(odds float8, final_score float8, result text,
 *		config jsonb DEFAULT NULL, at timestamptz DEFAULT now()) -> int
 *
 * NULL odds, final score, result or time give NULL; a NULL config means
 * the defaults.
 */
Datum
mm_ladder_points(PG_FUNCTION_ARGS)
{
	double		odds;
	double		final_score;
	LadderResult result;
	TimestampTz at;
	LadderConfig cfg;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(4))
		PG_RETURN_NULL();
	odds = PG_GETARG_FLOAT8(0);
	final_score = PG_GETARG_FLOAT8(1);
	at = PG_GETARG_TIMESTAMPTZ(4);
	result = ladder_check_game(odds, final_score, text_to_cstring(PG_GETARG_TEXT_PP(2)), at);
	ladder_config_arg(fcinfo, 3, &cfg);
	PG_RETURN_INT32(ladder_points(odds, final_score, result, at, &cfg));
}

PG_FUNCTION_INFO_V1(mm_ladder_apply);

/*
 * mm.ladder_apply(current int, points int, config jsonb DEFAULT NULL)
 *		-> (ladder_points int, on_leaderboard bool, leaderboard text)
 *
 * current NULL: the player has no total yet (starts at "default").
 * leaderboard is 'update' when the player is (still) on the leaderboard,
 * 'remove' when they just dropped below leaderboard_points, else NULL.
 */
Datum
mm_ladder_apply(PG_FUNCTION_ARGS)
{
	LadderConfig cfg;
	int64		prev;
	int64		next;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("points must not be NULL"),
				 errhint("Pass the points awarded, e.g. from mm.ladder_points.")));
	ladder_config_arg(fcinfo, 2, &cfg);
	prev = PG_ARGISNULL(0) ? cfg.default_points : PG_GETARG_INT32(0);
	next = ladder_total(prev, PG_GETARG_INT32(1), &cfg);

	values[0] = Int32GetDatum((int32) next);
	values[1] = BoolGetDatum(next >= cfg.leaderboard_points);
	if (next >= cfg.leaderboard_points)
		values[2] = CStringGetTextDatum("update");
	else if (prev >= cfg.leaderboard_points)
		values[2] = CStringGetTextDatum("remove");
	else
		nulls[2] = true;
	PG_RETURN_DATUM(mm_gw2_result_row(fcinfo, values, nulls));
}
