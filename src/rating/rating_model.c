/*-------------------------------------------------------------------------
 *
 * rating_model.c
 *		The rating families (rating_model.h): the list mm looks them up in,
 *		and the game they all rate, built and checked once for every family.
 *
 *-------------------------------------------------------------------------
 */
#include "rating_model.h"
#include "config.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/timestamp.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"

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

/* ---- storage: a state as mm.ratings and the result history keep it ---- */

/* Whether a float8[] is a state of the family: see rating_model.h. */
bool
mm_rating_state_valid(const MmRatingModel *model, ArrayType *a)
{
	const double *v;

	if (ARR_NDIM(a) != 1 || ARR_ELEMTYPE(a) != FLOAT8OID || ARR_HASNULL(a) ||
		ARR_DIMS(a)[0] != model->nstate)
		return false;
	v = (const double *) ARR_DATA_PTR(a);
	for (int c = 0; c < model->nstate; c++)
	{
		if (!isfinite(v[c]))
			return false;
		if (model->columns[c].positive && !(v[c] > 0.0))
			return false;
	}
	return true;
}

void
mm_rating_state_read(const MmRatingModel *model, ArrayType *a, double *state)
{
	if (!mm_rating_state_valid(model, a))
	{
		Oid			out;
		bool		varlena;

		getTypeOutputInfo(FLOAT8ARRAYOID, &out, &varlena);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a %s rating state is %d finite numbers", model->name, model->nstate),
				 errdetail("The state is %s.", OidOutputFunctionCall(out, PointerGetDatum(a))),
				 errhint("Give the family's columns in order, without NULLs.")));
	}
	memcpy(state, ARR_DATA_PTR(a), sizeof(double) * model->nstate);
}

Datum
mm_rating_state_datum(const MmRatingModel *model, const double *state)
{
	return mm_float8_array_datum(model->nstate, state, NULL);
}

/* The family of a model argument: an error naming the families if unknown. */
static const MmRatingModel *
model_arg(text *name)
{
	char	   *s = text_to_cstring(name);
	const MmRatingModel *model = mm_rating_model_find(s);

	if (model == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("rating model \"%s\" is unknown", s),
				 errhint("Use %s.", mm_rating_model_names())));
	return model;
}

PG_FUNCTION_INFO_V1(mm_rating_state_check);

/*
 * mm._rating_state_valid(model text, state float8[]) -> boolean
 * mm.ratings' CHECK: the state is one of the family's (an unknown family's
 * is none).
 */
Datum
mm_rating_state_check(PG_FUNCTION_ARGS)
{
	char	   *name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	const MmRatingModel *model = mm_rating_model_find(name);

	PG_RETURN_BOOL(model != NULL && mm_rating_state_valid(model, PG_GETARG_ARRAYTYPE_P(1)));
}

PG_FUNCTION_INFO_V1(mm_rating_fields);

/*
 * mm.rating_fields(model text, state float8[]) -> jsonb
 * A state as an object of the family's columns: {"mu": 25, "sigma": 8.3}.
 */
Datum
mm_rating_fields(PG_FUNCTION_ARGS)
{
	const MmRatingModel *model = model_arg(PG_GETARG_TEXT_PP(0));
	double		state[MM_RATING_MAX_STATE];
	StringInfoData b;

	mm_rating_state_read(model, PG_GETARG_ARRAYTYPE_P(1), state);
	initStringInfo(&b);
	appendStringInfoChar(&b, '{');
	for (int c = 0; c < model->nstate; c++)
	{
		char	   *num = float8out_internal(state[c]);

		appendStringInfo(&b, "%s\"%s\": %s", c ? ", " : "", model->columns[c].name, num);
	}
	appendStringInfoChar(&b, '}');
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(b.data)));
}

/* A state as of a time: the family's read_at from last_played (NULL: as stored). */
static void
state_at(const MmRatingModel *model, double *state, bool last_null,
		 TimestampTz last_played, TimestampTz at)
{
	if (model->read_at != NULL && !last_null && last_played < at)
		model->read_at(state, last_played, at);
}

PG_FUNCTION_INFO_V1(mm_rating_conservative);

/*
 * mm.rating_conservative(model text, state float8[], last_played timestamptz
 *						  DEFAULT NULL, at timestamptz DEFAULT NULL) -> float8
 * The family's conservative rating (OpenSkill's ordinal, Glicko-2's rating
 * minus two deviations, ...) of a stored state as of at.
 */
Datum
mm_rating_conservative(PG_FUNCTION_ARGS)
{
	const MmRatingModel *model;
	double		state[MM_RATING_MAX_STATE];

	if (PG_ARGISNULL(0))
		mm_null_arg("model");
	if (PG_ARGISNULL(1))
		mm_null_arg("state");
	model = model_arg(PG_GETARG_TEXT_PP(0));
	mm_rating_state_read(model, PG_GETARG_ARRAYTYPE_P(1), state);
	if (!PG_ARGISNULL(2) && !PG_ARGISNULL(3))
		state_at(model, state, false, PG_GETARG_TIMESTAMPTZ(2), PG_GETARG_TIMESTAMPTZ(3));
	PG_RETURN_FLOAT8(mm_check_result(model->conservative(state), "conservative rating"));
}

PG_FUNCTION_INFO_V1(mm_rating_state_at);

/*
 * mm._rating_state_at(model text, state float8[], last_played timestamptz,
 *					   at timestamptz) -> float8[]
 * A stored state as of a time (Glicko-2's idle deviation growth); as stored
 * when last_played is NULL or not before at.
 */
Datum
mm_rating_state_at(PG_FUNCTION_ARGS)
{
	const MmRatingModel *model;
	double		state[MM_RATING_MAX_STATE];

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	model = model_arg(PG_GETARG_TEXT_PP(0));
	mm_rating_state_read(model, PG_GETARG_ARRAYTYPE_P(1), state);
	if (!PG_ARGISNULL(3))
		state_at(model, state, PG_ARGISNULL(2), PG_ARGISNULL(2) ? 0 : PG_GETARG_TIMESTAMPTZ(2),
				 PG_GETARG_TIMESTAMPTZ(3));
	PG_RETURN_DATUM(mm_rating_state_datum(model, state));
}

/* A queue config's checked rating section, from a jsonb queue config. */
static void
rating_config_arg(FunctionCallInfo fcinfo, int argno, MmRatingConfig *rc)
{
	if (PG_ARGISNULL(argno))
		mm_null_arg("rating_config");
	mm_rating_config_read(PG_GETARG_JSONB_P(argno), rc);
}

PG_FUNCTION_INFO_V1(mm_rating_defaults);

/*
 * mm._rating_defaults(config jsonb) -> float8[]
 * A new player's state under a queue config's rating section.
 */
Datum
mm_rating_defaults(PG_FUNCTION_ARGS)
{
	MmRatingConfig rc;
	const MmRatingModel *model;
	double		state[MM_RATING_MAX_STATE];

	rating_config_arg(fcinfo, 0, &rc);
	model = mm_rating_model_of(&rc);
	model->defaults(rc.options, state);
	PG_RETURN_DATUM(mm_rating_state_datum(model, state));
}

/* Element i of a timestamptz[] (NULL elements and short arrays: isnull). */
static TimestampTz
ts_elem(Datum *d, bool *nulls, int n, int i, bool *isnull)
{
	*isnull = i >= n || nulls[i];
	return *isnull ? 0 : DatumGetTimestampTz(d[i]);
}

PG_FUNCTION_INFO_V1(mm_rating_roster);

/*
 * mm._roster_rating(config jsonb, at timestamptz, ratio float8,
 *					 core float8[], core_played timestamptz[],
 *					 profession float8[], profession_played timestamptz[],
 *					 OUT rating float8, OUT deviation float8)
 * A roster's rating from its players' states (core and profession, n rows
 * of the family's nstate columns each, stored or the defaults), each read
 * as of at, blended field by field (1 - ratio) * core + ratio * profession,
 * then formed into the roster's by the family.
 */
Datum
mm_rating_roster(PG_FUNCTION_ARGS)
{
	MmRatingConfig rc;
	const MmRatingModel *model;
	const void *params;
	TimestampTz at = PG_GETARG_TIMESTAMPTZ(1);
	double		ratio = PG_GETARG_FLOAT8(2);
	ArrayType  *core = PG_GETARG_ARRAYTYPE_P(3);
	ArrayType  *prof = PG_GETARG_ARRAYTYPE_P(5);
	Datum	   *cd,
			   *pd;
	bool	   *cn,
			   *pn;
	int			ncl,
				npl;
	int			n;
	double	   *state[MM_RATING_MAX_STATE];
	double		rating,
				deviation;
	TupleDesc	tupdesc;
	Datum		values[2];
	bool		nulls[2] = {false, false};

	rating_config_arg(fcinfo, 0, &rc);
	model = mm_rating_model_of(&rc);
	params = model->queue_params(rc.options);
	if (ARR_HASNULL(core) || ARR_HASNULL(prof) || ARR_NDIM(core) != 2 ||
		ARR_DIMS(core)[1] != model->nstate || ARR_NDIM(prof) != 2 ||
		ARR_DIMS(prof)[0] != ARR_DIMS(core)[0] || ARR_DIMS(prof)[1] != model->nstate)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("roster states must be %d columns per player", model->nstate),
				 errdetail("core and profession are two-dimensional arrays of one row per player and one column per element of the %s state, without NULL.",
						   model->name),
				 errhint("mm.roster_rating forms them from mm.ratings; call it instead.")));
	n = ARR_DIMS(core)[0];
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(4), TIMESTAMPTZOID, 8, FLOAT8PASSBYVAL,
					  TYPALIGN_DOUBLE, &cd, &cn, &ncl);
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(6), TIMESTAMPTZOID, 8, FLOAT8PASSBYVAL,
					  TYPALIGN_DOUBLE, &pd, &pn, &npl);
	for (int c = 0; c < model->nstate; c++)
		state[c] = palloc(sizeof(double) * n);
	for (int i = 0; i < n; i++)
	{
		double		cs[MM_RATING_MAX_STATE],
					ps[MM_RATING_MAX_STATE];
		bool		isnull;
		TimestampTz t;

		CHECK_FOR_INTERRUPTS();
		memcpy(cs, (double *) ARR_DATA_PTR(core) + i * model->nstate, sizeof(double) * model->nstate);
		memcpy(ps, (double *) ARR_DATA_PTR(prof) + i * model->nstate, sizeof(double) * model->nstate);
		t = ts_elem(cd, cn, ncl, i, &isnull);
		state_at(model, cs, isnull, t, at);
		t = ts_elem(pd, pn, npl, i, &isnull);
		state_at(model, ps, isnull, t, at);
		for (int c = 0; c < model->nstate; c++)
			state[c][i] = (1 - ratio) * cs[c] + ratio * ps[c];
	}
	model->scale.roster(params, n, (const double *const *) state, &rating, &deviation);
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	values[0] = Float8GetDatum(mm_check_result(rating, "rating"));
	values[1] = Float8GetDatum(mm_check_result(deviation, "deviation"));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls)));
}
