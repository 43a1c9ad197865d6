/*-------------------------------------------------------------------------
 *
 * placement_config.c
 *		A place's signal configuration (placement.h): the kinds of signals
 *		of Roblox's matchmaking documentation, their keys and defaults, and
 *		the parsing of a place config into a PlaceConfig.
 *
 *-------------------------------------------------------------------------
 */
#include "placement.h"

#include <float.h>
#include <math.h>

#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

const KindInfo place_kinds[] = {
	{"friends", K_WEIGHT, 0, 10, 0, NULL},
	{"latency", K_WEIGHT | K_MAXDIFF, 0, 3, 250, "latency"},
	{"occupancy", K_WEIGHT, 0, 2, 0, NULL},
	{"play_history", K_WEIGHT | K_MAXDIFF, 0, 2, 4.6, "play_history"},
	{"age", K_WEIGHT | K_MAXDIFF, 0, 1, 25, "age"},
	{"language", K_WEIGHT, 0, 1, 0, "language"},
	{"voice_chat", K_WEIGHT, 0, 1, 0, "voice_chat"},
	{"device_type", K_WEIGHT, 0, 0, 0, "device_type"},
	{"player_numeric_joining", K_WEIGHT | K_ATTR | K_AGG | K_MAXDIFF,
	K_WEIGHT | K_ATTR | K_MAXDIFF, 0, 0, NULL},
	{"player_numeric_constant", K_WEIGHT | K_ATTR | K_AGG | K_MAXDIFF | K_CONST,
	K_WEIGHT | K_ATTR | K_MAXDIFF | K_CONST, 0, 0, NULL},
	{"player_categorical_clustering", K_WEIGHT | K_ATTR,
	K_WEIGHT | K_ATTR, 0, 0, NULL},
	{"player_categorical_diversifying", K_WEIGHT | K_ATTR,
	K_WEIGHT | K_ATTR, 0, 0, NULL},
	{"server_numeric_joining", K_WEIGHT | K_ATTR | K_PATTR | K_MAXDIFF,
	K_WEIGHT | K_ATTR | K_MAXDIFF, 0, 0, NULL},
	{"server_numeric_constant", K_WEIGHT | K_ATTR | K_MAXDIFF | K_CONST,
	K_WEIGHT | K_ATTR | K_MAXDIFF | K_CONST, 0, 0, NULL},
	{"server_categorical_joining", K_WEIGHT | K_ATTR | K_PATTR,
	K_WEIGHT | K_ATTR, 0, 0, NULL},
	{"server_categorical_constant", K_WEIGHT | K_ATTR | K_TEXTCONST,
	K_WEIGHT | K_ATTR | K_TEXTCONST, 0, 0, NULL},
};

const int place_nkinds = lengthof(place_kinds);

static int
find_kind(const char *name, int len)
{
	for (int i = 0; i < N_KINDS; i++)
		if ((int) strlen(place_kinds[i].name) == len &&
			strncmp(place_kinds[i].name, name, len) == 0)
			return i;
	return -1;
}

static char *
kind_list(int from, int to)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = from; i < to; i++)
		appendStringInfo(&buf, "%s%s", i == from ? "" : ", ", place_kinds[i].name);
	return buf.data;
}

/* Look up a key of a JSON object; NULL when absent. */
JsonbValue *
place_json_get(JsonbContainer *obj, const char *key, JsonbValue *buf)
{
	return getKeyJsonValueFromContainer(obj, key, strlen(key), buf);
}

double
place_numeric(JsonbValue *v)
{
	return DatumGetFloat8(DirectFunctionCall1(numeric_float8,
											  NumericGetDatum(v->val.numeric)));
}

/* Read a JSON scalar as a categorical value; false for arrays, objects, null. */
bool
place_cat_read(JsonbValue *v, CatValue *out)
{
	out->type = v->type;
	switch (v->type)
	{
		case jbvString:
			out->text = pnstrdup(v->val.string.val, v->val.string.len);
			return true;
		case jbvBool:
			out->text = pstrdup(v->val.boolean ? "true" : "false");
			return true;
		case jbvNumeric:
			out->num = place_numeric(v);
			return true;
		default:
			return false;
	}
}

/* Equality of a categorical value and a JSON value: same type, same value. */
bool
place_cat_equal(const CatValue *a, JsonbValue *v)
{
	if (v->type != a->type)
		return false;
	switch (v->type)
	{
		case jbvString:
			return (int) strlen(a->text) == v->val.string.len &&
				memcmp(a->text, v->val.string.val, v->val.string.len) == 0;
		case jbvBool:
			return v->val.boolean == (a->text[0] == 't');
		case jbvNumeric:
			return place_numeric(v) == a->num;
		default:
			return false;
	}
}

/* What a signal object's keys are read into. */
typedef struct SignalSettings
{
	Signal		sig;
	char	   *kind_name;
	char	   *agg;
} SignalSettings;

#define SK(field) offsetof(SignalSettings, field)

/*
 * Every key a signal object may have, each with the K_ flag of the kinds
 * that take it ("kind" is always allowed); no defaults: they depend on the
 * kind.
 */
static const struct
{
	int			flag;
	MmConfigKey key;
}			signal_keys[] = {
	{0, {.name = "kind", .type = MM_CONFIG_TEXT, .offset = SK(kind_name)}},
	{K_WEIGHT, {.name = "weight", .type = MM_CONFIG_FLOAT, .offset = SK(sig.weight),
	.min = 0, .max = MM_PLACE_MAX_WEIGHT}},
	{K_ATTR, {.name = "attribute", .type = MM_CONFIG_TEXT, .offset = SK(sig.attribute)}},
	{K_PATTR, {.name = "player_attribute", .type = MM_CONFIG_TEXT,
	.offset = SK(sig.player_attribute)}},
	{K_AGG, {.name = "aggregation", .type = MM_CONFIG_TEXT, .offset = SK(agg)}},
	{K_MAXDIFF, {.name = "max_relevant_difference", .type = MM_CONFIG_FLOAT,
			.flags = MM_CONFIG_MIN_EXCLUSIVE, .offset = SK(sig.maxdiff),
	.min = 0, .max = DBL_MAX}},
	{K_CONST, {.name = "constant", .type = MM_CONFIG_FLOAT, .offset = SK(sig.constant),
	.min = -DBL_MAX, .max = DBL_MAX}},
};

#undef SK

/* Parse one signal object named name into *sig. */
static void
parse_signal(const char *name, JsonbValue *obj, Signal *sig)
{
	JsonbValue	buf;
	JsonbValue *v;
	JsonbContainer *c;
	Jsonb	   *jb;
	SignalSettings ss;
	char	   *agg;
	char	   *what = psprintf("signal \"%s\"", name);
	int			k;
	MmConfigKey keys[lengthof(signal_keys) + 1];
	int			nkeys = 0;
	const KindInfo *info;

	mm_check_name("place config signal name", name, strlen(name));
	if (obj->type != jbvBinary || !JsonContainerIsObject(obj->val.binary.data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("signal \"%s\" must be a JSON object", name),
				 errhint("Write {\"weight\": 2} for a built-in signal, or give a custom signal's \"kind\".")));
	c = obj->val.binary.data;

	v = place_json_get(c, "kind", &buf);
	if (v == NULL)
	{
		k = find_kind(name, strlen(name));
		if (k < 0 || k >= N_BUILTIN)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("signal \"%s\" has no kind", name),
					 errdetail("\"%s\" is not a built-in signal.", name),
					 errhint("Built-in signals: %s. A custom signal needs \"kind\", one of: %s.",
							 kind_list(0, N_BUILTIN), kind_list(N_BUILTIN, N_KINDS))));
	}
	else
	{
		if (v->type != jbvString)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("signal \"%s\" key \"kind\" must be a string", name)));
		k = find_kind(v->val.string.val, v->val.string.len);
		if (k < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown signal kind \"%.*s\"", v->val.string.len, v->val.string.val),
					 errdetail("Signal \"%s\" has kind \"%.*s\".", name,
							   v->val.string.len, v->val.string.val),
					 errhint("Valid kinds are: %s.", kind_list(0, N_KINDS))));
	}
	info = &place_kinds[k];

	memset(sig, 0, sizeof(Signal));
	sig->name = pstrdup(name);
	sig->kind = (SignalKind) k;
	sig->weight = k < N_BUILTIN ? info->weight : NAN;
	sig->maxdiff = info->maxdiff;
	sig->constant = NAN;

	/* A categorical constant is any scalar: take it out before parsing. */
	jb = JsonbValueToJsonb(obj);
	if (info->keys & K_TEXTCONST)
	{
		v = place_json_get(c, "constant", &buf);
		if (v != NULL)
		{
			sig->has_cat_constant = place_cat_read(v, &sig->cat_constant);
			if (!sig->has_cat_constant)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("signal \"%s\" key \"constant\" must be a string, a number or a boolean", name)));
			jb = DatumGetJsonbP(DirectFunctionCall2(jsonb_delete, JsonbPGetDatum(jb),
													CStringGetTextDatum("constant")));
		}
	}

	/* the keys of this kind */
	for (int i = 0; i < (int) lengthof(signal_keys); i++)
		if (signal_keys[i].flag == 0 || (info->keys & signal_keys[i].flag))
			keys[nkeys++] = signal_keys[i].key;
	memset(&keys[nkeys], 0, sizeof(MmConfigKey));
	ss.sig = *sig;
	ss.kind_name = NULL;
	ss.agg = NULL;
	mm_config_parse(jb, what, keys, &ss);
	*sig = ss.sig;
	agg = ss.agg;

	/* Required keys. */
	if ((info->required & K_WEIGHT) && isnan(sig->weight))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("signal \"%s\" needs a \"weight\"", name),
				 errhint("Weights are numbers >= 0; a weight of 0 drops the signal.")));
	if ((info->required & K_ATTR) && sig->attribute == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("signal \"%s\" needs an \"attribute\"", name),
				 errhint("Name the %s attribute the %s signal reads.",
						 k >= SIG_SERVER_NUMERIC_JOINING ? "server" : "player",
						 info->name)));
	if ((info->required & K_MAXDIFF) && sig->maxdiff <= 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("signal \"%s\" needs a \"max_relevant_difference\"", name),
				 errhint("Differences at or above it score 0; it must be positive.")));
	if ((info->required & K_CONST) && isnan(sig->constant))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("signal \"%s\" needs a numeric \"constant\"", name)));
	if ((info->required & K_TEXTCONST) && !sig->has_cat_constant)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("signal \"%s\" needs a \"constant\"", name),
				 errhint("The server attribute is compared with it for equality.")));

	/* Aggregation: Roblox's player numeric examples use average and sum. */
	sig->agg = (k == SIG_PLAYER_NUMERIC_CONSTANT) ? AGG_SUM : AGG_AVERAGE;
	if (agg != NULL)
	{
		if (strcmp(agg, "average") == 0)
			sig->agg = AGG_AVERAGE;
		else if (strcmp(agg, "sum") == 0)
			sig->agg = AGG_SUM;
		else if (strcmp(agg, "min") == 0)
			sig->agg = AGG_MIN;
		else if (strcmp(agg, "max") == 0)
			sig->agg = AGG_MAX;
		else
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown aggregation \"%s\" in signal \"%s\"", agg, name),
					 errhint("Valid aggregations are: average, sum, min, max.")));
	}

	if (info->player_attr != NULL)
		sig->player_attribute = pstrdup(info->player_attr);
	else if (k != SIG_SERVER_NUMERIC_CONSTANT &&
			 k != SIG_SERVER_CATEGORICAL_CONSTANT && sig->player_attribute == NULL)
		sig->player_attribute = sig->attribute;
}

/* The top level of a place config; "signals" is read by mm_place_parse_config. */
typedef struct PlaceSettings
{
	bool		voice_chat;
	bool		include_defaults;
	JsonbValue *signals;		/* NULL: not given */
} PlaceSettings;

/* Keep the "signals" object: its keys are signal names of the caller's choosing. */
static void
signals_keep(JsonbValue *v, void *base, const char *what, const char *path)
{
	PlaceSettings *ps = base;

	(void) what;
	(void) path;
	if (v == NULL)
		ps->signals = NULL;
	else
	{
		ps->signals = palloc(sizeof(JsonbValue));
		*ps->signals = *v;
	}
}

/* The names of enum Aggregation, for a stored config. */
static const char *const agg_names[] = {"average", "sum", "min", "max"};

/*
 * Append a signal as a stored config has it: its kind and every key its
 * kind takes, defaults written out (a signal of a built-in kind keeps its
 * name as kind).
 */
static void
signal_render(StringInfo buf, const Signal *sig)
{
	const KindInfo *info = &place_kinds[sig->kind];

	appendStringInfoString(buf, "{\"kind\": ");
	escape_json(buf, info->name);
	appendStringInfoString(buf, ", \"weight\": ");
	mm_append_float8(buf, sig->weight);
	if ((info->keys & K_ATTR) && sig->attribute != NULL)
	{
		appendStringInfoString(buf, ", \"attribute\": ");
		escape_json(buf, sig->attribute);
	}
	if ((info->keys & K_PATTR) && sig->player_attribute != NULL)
	{
		appendStringInfoString(buf, ", \"player_attribute\": ");
		escape_json(buf, sig->player_attribute);
	}
	if (info->keys & K_AGG)
		appendStringInfo(buf, ", \"aggregation\": \"%s\"", agg_names[sig->agg]);
	if ((info->keys & K_MAXDIFF) && sig->maxdiff > 0.0)
	{
		appendStringInfoString(buf, ", \"max_relevant_difference\": ");
		mm_append_float8(buf, sig->maxdiff);
	}
	if ((info->keys & K_CONST) && !isnan(sig->constant))
	{
		appendStringInfoString(buf, ", \"constant\": ");
		mm_append_float8(buf, sig->constant);
	}
	if ((info->keys & K_TEXTCONST) && sig->has_cat_constant)
	{
		appendStringInfoString(buf, ", \"constant\": ");
		if (sig->cat_constant.type == jbvString)
			escape_json(buf, sig->cat_constant.text);
		else if (sig->cat_constant.type == jbvBool)
			appendStringInfoString(buf, sig->cat_constant.text);
		else
			mm_append_float8(buf, sig->cat_constant.num);
	}
	appendStringInfoChar(buf, '}');
}

/* Append the "signals" object: each signal given, complete. */
static void
signals_render(StringInfo buf, const void *base)
{
	const PlaceSettings *ps = base;
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	char	   *name = NULL;
	bool		first = true;

	appendStringInfoChar(buf, '{');
	if (ps->signals != NULL)
	{
		it = JsonbIteratorInit(ps->signals->val.binary.data);
		while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		{
			if (tok == WJB_KEY)
				name = pnstrdup(v.val.string.val, v.val.string.len);
			else if (tok == WJB_VALUE)
			{
				Signal		sig;

				parse_signal(name, &v, &sig);
				if (!first)
					appendStringInfoString(buf, ", ");
				first = false;
				escape_json(buf, name);
				appendStringInfoString(buf, ": ");
				signal_render(buf, &sig);
			}
		}
	}
	appendStringInfoChar(buf, '}');
}

static const MmConfigKey place_keys[] = {
	{.name = "voice_chat", .type = MM_CONFIG_BOOL,
		.offset = offsetof(PlaceSettings, voice_chat), .def = 1,
	.doc = "the place has voice chat (false: the voice_chat signal weighs 0)"},
	{.name = "include_defaults", .type = MM_CONFIG_BOOL,
		.offset = offsetof(PlaceSettings, include_defaults), .def = 1,
	.doc = "start from Roblox's default signals"},
	{.name = "signals", .type = MM_CONFIG_CUSTOM, .parse = signals_keep,
		.render = signals_render,
	.doc = "signal name -> its settings (weight; a custom signal's kind, attribute, ...)"},
	{.name = NULL}
};

const MmConfigKind mm_place_config_kind = {
	.kind = "place", .what = "place config", .keys = place_keys,
	.size = sizeof(PlaceSettings)
};

/*
 * Parse a place configuration:
 *	 {"voice_chat": bool, "include_defaults": bool, "signals": {name: {...}}}.
 * NULL gives the Roblox default configuration. Signals of weight 0 are
 * dropped; without voice chat, the voice chat signal's weight is 0.
 */
PlaceConfig *
mm_place_parse_config(Jsonb *config)
{
	PlaceConfig *pc = palloc0(sizeof(PlaceConfig));
	Signal	   *all;
	int			nall = 0;
	int			cap = N_BUILTIN;
	bool		include_defaults = true;
	JsonbValue *signals = NULL;

	pc->voice_chat = true;
	if (config != NULL)
	{
		PlaceSettings ps;

		mm_config_read(&mm_place_config_kind, config, &ps);
		pc->voice_chat = ps.voice_chat;
		include_defaults = ps.include_defaults;
		signals = ps.signals;
		if (signals != NULL &&
			(signals->type != jbvBinary ||
			 !JsonContainerIsObject(signals->val.binary.data)))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("place config key \"signals\" must be an object"),
					 errhint("Map signal names to their settings: {\"signals\": {\"friends\": {\"weight\": 10}}}.")));
		if (signals != NULL)
			cap += JsonContainerSize(signals->val.binary.data);
	}

	all = palloc0(sizeof(Signal) * cap);
	if (signals != NULL)
	{
		JsonbIterator *it = JsonbIteratorInit(signals->val.binary.data);
		JsonbValue	v;
		JsonbIteratorToken tok;
		char	   *name = NULL;

		while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		{
			if (tok == WJB_KEY)
				name = pnstrdup(v.val.string.val, v.val.string.len);
			else if (tok == WJB_VALUE)
				parse_signal(name, &v, &all[nall++]);
		}
	}
	if (include_defaults)
	{
		for (int b = 0; b < N_BUILTIN; b++)
		{
			bool		named = false;

			for (int i = 0; i < nall && !named; i++)
				named = strcmp(all[i].name, place_kinds[b].name) == 0;
			if (named)
				continue;
			all[nall].name = pstrdup(place_kinds[b].name);
			all[nall].kind = (SignalKind) b;
			all[nall].weight = place_kinds[b].weight;
			all[nall].maxdiff = place_kinds[b].maxdiff;
			all[nall].player_attribute = (char *) place_kinds[b].player_attr;
			nall++;
		}
	}

	pc->signals = palloc0(sizeof(Signal) * (nall > 0 ? nall : 1));
	for (int i = 0; i < nall; i++)
	{
		if (all[i].kind == SIG_VOICE_CHAT && !pc->voice_chat)
			all[i].weight = 0.0;
		if (all[i].weight > 0.0)
			pc->signals[pc->nsignals++] = all[i];
	}
	return pc;
}

Jsonb *
mm_place_config_complete(Jsonb *config)
{
	PlaceSettings ps;

	mm_place_parse_config(config);
	mm_config_read(&mm_place_config_kind, config, &ps);
	return mm_config_jsonb(place_keys, &ps);
}
