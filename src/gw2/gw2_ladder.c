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
	char	   *start_text;		/* ISO 8601 text; NULL: no start */
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

/* Fill cfg's matrix with the GW2 wiki's. */
static void
matrix_defaults(LadderConfig *cfg)
{
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

/* The keys of one score of a matrix, {min, points}; no defaults. */
static const MmConfigKey score_keys[] = {
	{.name = "min", .type = MM_CONFIG_FLOAT, .offset = offsetof(LadderScore, min),
	.min = 0, .max = 1e12},
	{.name = "points", .type = MM_CONFIG_INT, .offset = offsetof(LadderScore, points),
	.min = -1000000, .max = 1000000},
	{.name = NULL}
};

/* Parse and check a matrix's "scores": [{min, points}] (base: its LadderMatrix). */
static void
scores_parse(JsonbValue *v, void *base, const char *what, const char *path)
{
	LadderMatrix *mx = base;
	JsonbValue *scores = array_elements(v, path, &mx->nscores);

	mx->scores = palloc(sizeof(LadderScore) * mx->nscores);
	for (int s = 0; s < mx->nscores; s++)
	{
		LadderScore *sc = &mx->scores[s];
		char	   *spath = psprintf("%s[%d]", path, s);

		sc->min = -1;
		sc->points = INT_MIN;
		mm_config_parse_value(&scores[s], what, spath, score_keys, sc);
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

/* The keys of one matrix, {odds, scores}; no defaults. */
static const MmConfigKey matrix_keys[] = {
	{.name = "odds", .type = MM_CONFIG_FLOAT, .offset = offsetof(LadderMatrix, odds),
	.min = 0, .max = 1},
	{.name = "scores", .type = MM_CONFIG_CUSTOM, .parse = scores_parse},
	{.name = NULL}
};

/* Parse and check "matrix": [{odds, scores: [{min, points}]}]; NULL: the default. */
static void
matrix_parse(JsonbValue *v, void *base, const char *what, const char *path)
{
	LadderConfig *cfg = base;
	JsonbValue *rows;

	if (v == NULL)
	{
		matrix_defaults(cfg);
		return;
	}
	rows = array_elements(v, path, &cfg->nmatrix);
	cfg->matrix = palloc(sizeof(LadderMatrix) * cfg->nmatrix);
	for (int m = 0; m < cfg->nmatrix; m++)
	{
		LadderMatrix *mx = &cfg->matrix[m];
		char	   *mpath = psprintf("%s[%d]", path, m);

		mx->odds = -1;
		mx->nscores = -1;
		mm_config_parse_value(&rows[m], what, mpath, matrix_keys, mx);
		if (mx->odds < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("ladder config key \"%s.odds\" is missing", mpath),
					 errhint("Give each matrix its minimum odds of victory (0 to 1).")));
		if (m == 0 && mx->odds != 0)
			matrix_error(psprintf("%s.odds", mpath), "must be 0", mx->odds,
						 "The first matrix must start at odds 0, so that every game finds one.");
		if (m > 0 && mx->odds <= cfg->matrix[m - 1].odds)
			matrix_error(psprintf("%s.odds", mpath), "must be greater than the previous matrix's odds",
						 mx->odds, "List the matrices by ascending odds, each odds once.");
		if (mx->nscores < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("ladder config key \"%s.scores\" is missing", mpath),
					 errhint("Give each matrix its scores: [{\"min\": 0, \"points\": -1}, ...].")));
	}
}

/* Append the matrix as a JSON array. */
static void
matrix_render(StringInfo buf, const void *base)
{
	const LadderConfig *cfg = base;

	appendStringInfoChar(buf, '[');
	for (int m = 0; m < cfg->nmatrix; m++)
	{
		appendStringInfo(buf, "%s{\"odds\": ", m ? ", " : "");
		mm_append_float8(buf, cfg->matrix[m].odds);
		appendStringInfoString(buf, ", \"scores\": [");
		for (int s = 0; s < cfg->matrix[m].nscores; s++)
		{
			appendStringInfo(buf, "%s{\"min\": ", s ? ", " : "");
			mm_append_float8(buf, cfg->matrix[m].scores[s].min);
			appendStringInfo(buf, ", \"points\": %d}", cfg->matrix[m].scores[s].points);
		}
		appendStringInfoString(buf, "]}");
	}
	appendStringInfoChar(buf, ']');
}

#define LK(field) offsetof(LadderConfig, field)

/* The ladder config's keys: the GW2 wiki's <Ladder default="0" min="0" max="1000000" ...>. */
static const MmConfigKey ladder_keys[] = {
	{.name = "default", .type = MM_CONFIG_INT, .offset = LK(default_points),
		.min = INT_MIN, .max = INT_MAX, .def = 0, .unit = "points",
	.doc = "a new player's ladder points"},
	{.name = "min", .type = MM_CONFIG_INT, .offset = LK(min),
		.min = INT_MIN, .max = INT_MAX, .def = 0, .unit = "points",
	.doc = "fewest ladder points"},
	{.name = "max", .type = MM_CONFIG_INT, .offset = LK(max),
		.min = INT_MIN, .max = INT_MAX, .def = 1000000, .unit = "points",
	.doc = "most ladder points"},
	{.name = "leaderboard_points", .type = MM_CONFIG_INT,
		.offset = LK(leaderboard_points), .min = INT_MIN, .max = INT_MAX, .def = 1,
		.unit = "points",
	.doc = "points a player needs to be on the leaderboard"},
	{.name = "start", .type = MM_CONFIG_TEXT, .flags = MM_CONFIG_NULLABLE,
		.offset = LK(start_text), .null_offset = LK(start_null), .def_null = true,
	.doc = "season start, a timestamp with its UTC offset (null: none)"},
	{.name = "end", .type = MM_CONFIG_TEXT, .flags = MM_CONFIG_NULLABLE,
		.offset = LK(end_text), .null_offset = LK(end_null), .def_null = true,
	.doc = "season end, excluded (null: none)"},
	{.name = "matrix", .type = MM_CONFIG_CUSTOM, .parse = matrix_parse,
		.render = matrix_render,
	.doc = "points by odds of victory and final score: [{odds, scores: [{min, points}]}]"},
	{.name = NULL}
};

#undef LK

static void ladder_check(void *base, const char *what);

const MmConfigKind mm_ladder_config_kind = {
	.kind = "ladder", .what = "ladder config", .keys = ladder_keys,
	.size = sizeof(LadderConfig), .check = ladder_check
};

/* Parse a ladder config (overrides of the defaults; NULL: defaults). */
static void
ladder_config(Jsonb *config, LadderConfig *cfg)
{
	mm_config_read(&mm_ladder_config_kind, config, cfg);
}

/* The checks between keys, and the season bounds. */
static void
ladder_check(void *base, const char *what)
{
	LadderConfig *cfg = base;

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
		cfg->start = DatumGetTimestampTz(mm_config_input(timestamptz_in, cfg->start_text,
														 what, "start"));
	if (!cfg->end_null)
		cfg->end = DatumGetTimestampTz(mm_config_input(timestamptz_in, cfg->end_text,
													   what, "end"));
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

/* The config argument at position i ('{}' for the defaults; NULL refused). */
static void
ladder_config_arg(FunctionCallInfo fcinfo, int i, LadderConfig *cfg)
{
	if (PG_ARGISNULL(i))
		mm_null_arg("config");
	ladder_config(PG_GETARG_JSONB_P(i), cfg);
}

PG_FUNCTION_INFO_V1(mm_ladder_config_resolve);

/* mm.ladder_config_resolve(config jsonb) -> jsonb: complete, checked */
Datum
mm_ladder_config_resolve(PG_FUNCTION_ARGS)
{
	LadderConfig cfg;

	ladder_config_arg(fcinfo, 0, &cfg);
	PG_RETURN_JSONB_P(mm_config_jsonb(ladder_keys, &cfg));
}

PG_FUNCTION_INFO_V1(mm_ladder_points);

/*
 * mm.ladder_points(odds float8, final_score float8, result text,
 *		config jsonb DEFAULT NULL, at timestamptz DEFAULT now()) -> int
 *
 * Every argument is needed: a NULL one is refused (22004); '{}' is the
 * default config.
 */
Datum
mm_ladder_points(PG_FUNCTION_ARGS)
{
	double		odds;
	double		final_score;
	LadderResult result;
	TimestampTz at;
	LadderConfig cfg;

	mm_args_not_null(fcinfo, 0);
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
	PG_RETURN_DATUM(mm_result_row(fcinfo, values, nulls));
}
