/*-------------------------------------------------------------------------
 *
 * openskill_ims.c
 *		The IMS matchmaker's rate endpoint (the IMS matchmaker documentation, "Rating Calculation")
 *		as one SQL call: mm.rate(request jsonb) -> jsonb.
 *
 * The request is the IMS documentation's: {"config": {"modelId", "beta", "epsilon",
 * "mu", "sigma"}, "teams": [{"rank", "team": {"teamId", "players":
 * [{"playerId", "mu", "sigma"}]}}]}. The IMS documentation's sample response is
 * openskill.js 5.0.1 Plackett-Luce with tau = 0 and kappa = epsilon
 * (docs/architecture.md, "How mm reads its sources"). Missing player mu/sigma take the config's mu and
 * sigma; teams and players keep their ids and order; equal ranks draw; a
 * player id may appear once in a request.
 * mm also accepts the other four models ("BRADLEY_TERRY_FULL", ...) and
 * the config keys "tau" and "limitSigma" (default false).
 *
 * Two SQL functions share the code and differ only in the defaults of
 * config keys a request leaves out: mm.ims_rate takes mm.openskill_rate's
 * (beta 25/6, tau 25/300, mu 25, sigma 25/3), mm.rate (deprecated, the
 * 0.1.0 name) keeps its own (beta 5, tau 0, mu 30, sigma 10).
 *
 *-------------------------------------------------------------------------
 */
#include "openskill.h"
#include "config.h"

#include <float.h>
#include <math.h>

#include "common/shortest_dec.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

/* Refuse keys of an object that are not in allowed (NULL-terminated). */
static void
ims_check_keys(JsonbContainer *c, const char *what, const char *const *allowed,
			   const char *valid)
{
	JsonbIterator *it = JsonbIteratorInit(c);
	JsonbValue	v;
	JsonbIteratorToken tok;

	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		bool		found = false;

		if (tok != WJB_KEY)
			continue;
		for (int i = 0; allowed[i]; i++)
			if (strlen(allowed[i]) == (size_t) v.val.string.len &&
				strncmp(allowed[i], v.val.string.val, v.val.string.len) == 0)
				found = true;
		if (!found)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown key \"%.*s\" in %s", v.val.string.len,
							v.val.string.val, what),
					 errhint("Valid keys are: %s.", valid)));
	}
}

/* The container of an object or array value; error naming the key if not. */
static JsonbContainer *
ims_container(JsonbValue *v, bool array, const char *key)
{
	if (v->type != jbvBinary ||
		(array ? !JsonContainerIsArray(v->val.binary.data)
		 : !JsonContainerIsObject(v->val.binary.data)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("request key \"%s\" must be %s", key,
						array ? "an array" : "an object")));
	return v->val.binary.data;
}

/* Look up a key; NULL if absent, error if required and absent. */
static JsonbValue *
ims_get(JsonbContainer *c, const char *key, bool required, const char *path)
{
	JsonbValue *v = getKeyJsonValueFromContainer(c, key, strlen(key), NULL);

	if (v == NULL && required)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("request key \"%s\" is missing", path),
				 errhint("See the IMS rate request in the README.")));
	return v;
}

/* A number value as double; error naming the key if it is not a number. */
static double
ims_number(JsonbValue *v, const char *path)
{
	double		d;

	if (v->type != jbvNumeric)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("request key \"%s\" must be a number", path)));
	/* via text, so that a value beyond float8 is reported with its key */
	d = strtod(DatumGetCString(DirectFunctionCall1(numeric_out,
												   NumericGetDatum(v->val.numeric))),
			   NULL);
	if (!isfinite(d))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("request key \"%s\" is out of range", path),
				 errhint("Numbers must fit in double precision.")));
	return d;
}

/* An id: a string or a number, kept as it is. */
static JsonbValue *
ims_id(JsonbValue *v, const char *path)
{
	if (v->type != jbvString && v->type != jbvNumeric)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("request key \"%s\" must be a string or a number", path)));
	return v;
}

/* A double as a JSON number with the shortest exact decimal form. */
static JsonbValue
ims_float(double d)
{
	char		buf[DOUBLE_SHORTEST_DECIMAL_LEN];
	JsonbValue	v;

	double_to_shortest_decimal_buf(d, buf);
	v.type = jbvNumeric;
	v.val.numeric = DatumGetNumeric(DirectFunctionCall3(numeric_in,
														CStringGetDatum(buf),
														ObjectIdGetDatum(InvalidOid),
														Int32GetDatum(-1)));
	return v;
}

static void
ims_push_key(JsonbParseState **st, const char *key)
{
	JsonbValue	k;

	k.type = jbvString;
	k.val.string.val = (char *) key;
	k.val.string.len = strlen(key);
	pushJsonbValue(st, WJB_KEY, &k);
}

/* The "config" object of a rate request (the IMS matchmaker's keys). */
typedef struct RateConfig
{
	char	   *model_id;
	double		beta;
	double		epsilon;		/* openskill's kappa */
	double		mu;				/* of a player given without one */
	double		sigma;
	double		tau;
	bool		limit_sigma;
} RateConfig;

#define RK(field) offsetof(RateConfig, field)

static const MmConfigKey rate_keys[] = {
	{.name = "modelId", .type = MM_CONFIG_TEXT, .offset = RK(model_id),
		.def_text = "PLACKETT_LUCE",
	.doc = "PLACKETT_LUCE, BRADLEY_TERRY_FULL, BRADLEY_TERRY_PART, THURSTONE_MOSTELLER_FULL or THURSTONE_MOSTELLER_PART"},
	{.name = "beta", .type = MM_CONFIG_FLOAT, .flags = MM_CONFIG_MIN_EXCLUSIVE,
		.offset = RK(beta), .min = 0, .max = DBL_MAX, .def = 5,
	.doc = "performance deviation"},
	{.name = "epsilon", .type = MM_CONFIG_FLOAT, .flags = MM_CONFIG_MIN_EXCLUSIVE,
		.offset = RK(epsilon), .min = 0, .max = DBL_MAX, .def = 0.0001,
	.doc = "openskill's kappa: floor of the sigma shrink factor"},
	{.name = "mu", .type = MM_CONFIG_FLOAT, .offset = RK(mu),
		.min = -DBL_MAX, .max = DBL_MAX, .def = 30,
	.doc = "mu of a player given without one"},
	{.name = "sigma", .type = MM_CONFIG_FLOAT, .flags = MM_CONFIG_MIN_EXCLUSIVE,
		.offset = RK(sigma), .min = 0, .max = DBL_MAX, .def = 10,
	.doc = "sigma of a player given without one"},
	{.name = "tau", .type = MM_CONFIG_FLOAT, .offset = RK(tau),
		.min = 0, .max = DBL_MAX, .def = 0,
	.doc = "dynamics added to sigma before the update"},
	{.name = "limitSigma", .type = MM_CONFIG_BOOL, .offset = RK(limit_sigma),
		.def = 0,
	.doc = "never let sigma grow"},
	{.name = NULL}
};

#undef RK

const MmConfigKind mm_rate_config_kind = {
	.kind = "rate", .what = "rate request config", .keys = rate_keys,
	.size = sizeof(RateConfig)
};

/* An id and where it was, for the duplicate check. */
typedef struct ImsId
{
	JsonbValue *id;
	int			team;
	int			player;
} ImsId;

/* Order ids: by JSON type, then strings bytewise, numbers by value. */
static int
ims_id_cmp(const void *a, const void *b)
{
	const JsonbValue *x = ((const ImsId *) a)->id;
	const JsonbValue *y = ((const ImsId *) b)->id;

	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	if (x->type == jbvString)
	{
		int			c = memcmp(x->val.string.val, y->val.string.val,
							   Min(x->val.string.len, y->val.string.len));

		if (c != 0)
			return c;
		return (x->val.string.len > y->val.string.len) - (x->val.string.len < y->val.string.len);
	}
	return DatumGetInt32(DirectFunctionCall2(numeric_cmp,
											 NumericGetDatum(x->val.numeric),
											 NumericGetDatum(y->val.numeric)));
}

/* An id as the request spelled it, for messages. */
static char *
ims_id_text(const JsonbValue *v)
{
	if (v->type == jbvString)
		return psprintf("\"%.*s\"", v->val.string.len, v->val.string.val);
	return DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(v->val.numeric)));
}

/* Refuse a request that names a player twice (in one team or two). */
static void
ims_check_unique(ImsId *ids, int n)
{
	qsort(ids, n, sizeof(ImsId), ims_id_cmp);
	for (int i = 1; i < n; i++)
	{
		ImsId	   *a = &ids[i - 1],
				   *b = &ids[i];

		if (ims_id_cmp(a, b) != 0)
			continue;
		if (a->team > b->team || (a->team == b->team && a->player > b->player))
		{
			ImsId	   *t = a;

			a = b;
			b = t;
		}
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("player %s is in the rate request twice", ims_id_text(a->id)),
				 errdetail("teams[%d].team.players[%d] and teams[%d].team.players[%d] have the same playerId.",
						   a->team, a->player, b->team, b->player),
				 errhint("A player plays for one team, once.")));
	}
}

/* Defaults of the config keys a request leaves out. */
typedef struct ImsDefaults
{
	double		beta;
	double		tau;
	double		mu;
	double		sigma;
} ImsDefaults;

static Datum ims_rate(Jsonb *req, const ImsDefaults *d);

PG_FUNCTION_INFO_V1(mm_ims_rate_v2);

/* mm.ims_rate(request jsonb) -> jsonb: mm.openskill_rate's defaults */
Datum
mm_ims_rate_v2(PG_FUNCTION_ARGS)
{
	static const ImsDefaults d = {25.0 / 6.0, 25.0 / 300.0, 25.0, 25.0 / 3.0};

	return ims_rate(PG_GETARG_JSONB_P(0), &d);
}

PG_FUNCTION_INFO_V1(mm_ims_rate);

/* mm.rate(request jsonb) -> jsonb, deprecated: the 0.1.0 defaults */
Datum
mm_ims_rate(PG_FUNCTION_ARGS)
{
	static const ImsDefaults d = {5.0, 0.0, 30.0, 10.0};

	return ims_rate(PG_GETARG_JSONB_P(0), &d);
}

/* Rate one request; d gives the defaults of keys it leaves out. */
static Datum
ims_rate(Jsonb *req, const ImsDefaults *d)
{
	static const char *const top_keys[] = {"config", "teams", NULL};
	static const char *const team_keys[] = {"rank", "team", NULL};
	static const char *const inner_keys[] = {"teamId", "players", NULL};
	static const char *const player_keys[] = {"playerId", "mu", "sigma", NULL};
	RateConfig	rc;
	char	   *model_id;
	double		def_mu,
				def_sigma;
	MmOsOptions o;
	JsonbValue *v;
	JsonbContainer *teams;
	int			nteams,
				n = 0,
				cap = 16;
	int64	   *label = palloc(sizeof(int64) * cap);
	double	   *rank = palloc(sizeof(double) * cap);
	double	   *mu = palloc(sizeof(double) * cap);
	double	   *sigma = palloc(sizeof(double) * cap);
	JsonbValue **team_id;
	JsonbValue **player_id = palloc(sizeof(JsonbValue *) * cap);
	ImsId	   *ids = palloc(sizeof(ImsId) * cap);
	int		   *team_size;
	double	   *mu_out,
			   *sigma_out;
	MmOsGame	g;
	JsonbParseState *st = NULL;
	JsonbValue *res;
	int			p;

	/* the key table's defaults are the IMS documentation's; the caller's replace four */
	mm_config_defaults(rate_keys, &rc);
	rc.beta = d->beta;
	rc.tau = d->tau;
	rc.mu = d->mu;
	rc.sigma = d->sigma;

	if (JB_ROOT_IS_SCALAR(req) || !JB_ROOT_IS_OBJECT(req))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("rate request must be a JSON object"),
				 errhint("Send {\"config\": {...}, \"teams\": [...]}.")));
	ims_check_keys(&req->root, "rate request", top_keys, "config, teams");
	v = ims_get(&req->root, "config", false, "config");
	if (v != NULL)
	{
		ims_container(v, false, "config");
		mm_config_parse_value(v, mm_rate_config_kind.what, NULL, rate_keys, &rc);
	}
	mm_os_default_options(&o);
	model_id = rc.model_id;
	def_mu = rc.mu;
	def_sigma = rc.sigma;
	o.beta = rc.beta;
	o.kappa = rc.epsilon;
	o.tau = rc.tau;
	o.limit_sigma = rc.limit_sigma;
	if (!mm_os_lookup_model(model_id, &o.model))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("request key \"config.modelId\" names an unknown model"),
				 errdetail("The value is \"%s\".", model_id),
				 errhint("Valid models are: PLACKETT_LUCE, BRADLEY_TERRY_FULL, BRADLEY_TERRY_PART, THURSTONE_MOSTELLER_FULL, THURSTONE_MOSTELLER_PART.")));
	mm_os_check_options(&o);

	teams = ims_container(ims_get(&req->root, "teams", true, "teams"), true, "teams");
	nteams = JsonContainerSize(teams);
	team_id = palloc(sizeof(JsonbValue *) * Max(nteams, 1));
	team_size = palloc0(sizeof(int) * Max(nteams, 1));
	for (int t = 0; t < nteams; t++)
	{
		JsonbValue *tv = getIthJsonbValueFromContainer(teams, t);
		JsonbContainer *tc,
				   *inner,
				   *players;
		char	   *path = psprintf("teams[%d]", t);
		double		r;

		tc = ims_container(tv, false, path);
		ims_check_keys(tc, path, team_keys, "rank, team");
		r = ims_number(ims_get(tc, "rank", true, psprintf("%s.rank", path)),
					   psprintf("%s.rank", path));
		if (!isfinite(r))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("request key \"%s.rank\" is out of range", path),
					 errdetail("The value is %g.", r)));
		inner = ims_container(ims_get(tc, "team", true, psprintf("%s.team", path)),
							  false, psprintf("%s.team", path));
		ims_check_keys(inner, psprintf("%s.team", path), inner_keys, "teamId, players");
		team_id[t] = ims_id(ims_get(inner, "teamId", true, psprintf("%s.team.teamId", path)),
							psprintf("%s.team.teamId", path));
		players = ims_container(ims_get(inner, "players", true,
										psprintf("%s.team.players", path)),
								true, psprintf("%s.team.players", path));
		team_size[t] = JsonContainerSize(players);
		if (team_size[t] == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("request key \"%s.team.players\" must not be empty", path),
					 errhint("Every team needs at least one player.")));
		for (int j = 0; j < team_size[t]; j++)
		{
			JsonbValue *pv = getIthJsonbValueFromContainer(players, j);
			char	   *pp = psprintf("%s.team.players[%d]", path, j);
			JsonbContainer *pc = ims_container(pv, false, pp);
			JsonbValue *x;

			ims_check_keys(pc, pp, player_keys, "playerId, mu, sigma");
			if (n == cap)
			{
				cap *= 2;
				label = repalloc(label, sizeof(int64) * cap);
				rank = repalloc(rank, sizeof(double) * cap);
				mu = repalloc(mu, sizeof(double) * cap);
				sigma = repalloc(sigma, sizeof(double) * cap);
				player_id = repalloc(player_id, sizeof(JsonbValue *) * cap);
				ids = repalloc(ids, sizeof(ImsId) * cap);
			}
			player_id[n] = ims_id(ims_get(pc, "playerId", true, psprintf("%s.playerId", pp)),
								  psprintf("%s.playerId", pp));
			x = ims_get(pc, "mu", false, NULL);
			mu[n] = (x == NULL || x->type == jbvNull) ? def_mu : ims_number(x, psprintf("%s.mu", pp));
			x = ims_get(pc, "sigma", false, NULL);
			sigma[n] = (x == NULL || x->type == jbvNull) ? def_sigma : ims_number(x, psprintf("%s.sigma", pp));
			if (!isfinite(mu[n]))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("request key \"%s.mu\" is out of range", pp),
						 errdetail("The value is %g.", mu[n])));
			if (!(sigma[n] > 0.0) || !isfinite(sigma[n]))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("request key \"%s.sigma\" must be positive", pp),
						 errdetail("The value is %g.", sigma[n])));
			ids[n].id = player_id[n];
			ids[n].team = t;
			ids[n].player = j;
			label[n] = t;
			rank[n] = r;
			n++;
		}
	}
	if (nteams < 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("request key \"teams\" must hold at least two teams"),
				 errdetail("It holds %d.", nteams)));
	ims_check_unique(ids, n);
	mm_os_build_game(&g, n, label, rank, NULL, mu, sigma, NULL);
	mu_out = palloc(sizeof(double) * n);
	sigma_out = palloc(sizeof(double) * n);
	mm_os_rate(&g, &o, mu_out, sigma_out);

	/* {"teams": [{"teamId", "players": [{"playerId", "mu", "sigma"}]}]} */
	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	ims_push_key(&st, "teams");
	pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	p = 0;
	for (int t = 0; t < nteams; t++)
	{
		pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
		ims_push_key(&st, "teamId");
		pushJsonbValue(&st, WJB_VALUE, team_id[t]);
		ims_push_key(&st, "players");
		pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
		for (int j = 0; j < team_size[t]; j++, p++)
		{
			JsonbValue	num;

			pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
			ims_push_key(&st, "playerId");
			pushJsonbValue(&st, WJB_VALUE, player_id[p]);
			ims_push_key(&st, "mu");
			num = ims_float(mu_out[p]);
			pushJsonbValue(&st, WJB_VALUE, &num);
			ims_push_key(&st, "sigma");
			num = ims_float(sigma_out[p]);
			pushJsonbValue(&st, WJB_VALUE, &num);
			pushJsonbValue(&st, WJB_END_OBJECT, NULL);
		}
		pushJsonbValue(&st, WJB_END_ARRAY, NULL);
		pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	}
	pushJsonbValue(&st, WJB_END_ARRAY, NULL);
	res = pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	PG_RETURN_JSONB_P(JsonbValueToJsonb(res));
}
