/*-------------------------------------------------------------------------
 *
 * placement.c
 *		The placement engine: per-place signal configurations and the ranking
 *		of a place's live servers for a joining player.
 *
 * Source: Roblox's matchmaking documentation (ServerScore = sum_i Weight_i * SignalScore_i; the Roblox
 * default configuration Friends 10, Latency 3, Occupancy 2, Play History 2,
 * Age 1, Language 1, Voice Chat 1, Device Type 0) and Roblox's matchmaking documentation (the existing
 * signals and the eight kinds of custom signals: player numeric vs the
 * joining player and vs a constant, player categorical clustering and
 * diversifying, server numeric and categorical vs the joining player and vs
 * a constant). Readings of docs/architecture.md, "How mm reads its sources": play history is
 * 1 - min(1, diff / 4.6); server numeric vs constant is
 * 1 - min(diff / max_relevant_difference, 1); ratios over an empty server
 * score 0.
 *
 * Data layout: mm.servers keeps, per server, its occupancy and the
 * aggregates of its players' attributes (mm.refresh_servers recomputes them
 * under the server's row lock whenever a player joins or leaves), so that
 * ranking reads one row per server instead of every player:
 *	 age_n/age_sum, play_history_n/play_history_sum	 built-in numerics;
 *	 stats jsonb	{attribute: {"n", "sum", "min", "max"} for numbers,
 *					 {"values": {text: count}} for strings and booleans}.
 * The Friends signal is an index lookup of the preferred players in
 * mm.server_players.
 *
 * The config parsing and scoring are plain C over the structs below; the
 * SPI reading (a DestReceiver that scores each server row as the executor
 * produces it) and the SQL wrappers are at the bottom.
 *
 *-------------------------------------------------------------------------
 */
#include "mm.h"
#include "config.h"

#include <float.h>
#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/params.h"
#include "tcop/dest.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"

typedef enum SignalKind
{
	/* the built-in signals of Roblox's matchmaking documentation, in the default configuration */
	SIG_FRIENDS,
	SIG_LATENCY,
	SIG_OCCUPANCY,
	SIG_PLAY_HISTORY,
	SIG_AGE,
	SIG_LANGUAGE,
	SIG_VOICE_CHAT,
	SIG_DEVICE_TYPE,
	/* the eight kinds of custom signals of Roblox's matchmaking documentation */
	SIG_PLAYER_NUMERIC_JOINING,
	SIG_PLAYER_NUMERIC_CONSTANT,
	SIG_PLAYER_CATEGORICAL_CLUSTERING,
	SIG_PLAYER_CATEGORICAL_DIVERSIFYING,
	SIG_SERVER_NUMERIC_JOINING,
	SIG_SERVER_NUMERIC_CONSTANT,
	SIG_SERVER_CATEGORICAL_JOINING,
	SIG_SERVER_CATEGORICAL_CONSTANT
} SignalKind;

/*
 * The largest signal weight. Only the ratios of weights matter (Roblox's
 * matchmaking documentation, "Weight magnitudes"); the cap keeps every
 * server score, a sum of weight * score with scores in [0, 1], finite.
 */
#define MM_PLACE_MAX_WEIGHT 1e12

#define N_BUILTIN 8

typedef enum Aggregation
{
	AGG_AVERAGE,
	AGG_SUM,
	AGG_MIN,
	AGG_MAX
} Aggregation;

/* Keys a signal object may have, as a bit set per kind. */
#define K_WEIGHT	0x01
#define K_ATTR		0x02
#define K_PATTR		0x04
#define K_AGG		0x08
#define K_MAXDIFF	0x10
#define K_CONST		0x20
#define K_TEXTCONST 0x40		/* "constant" is any JSON scalar */

typedef struct KindInfo
{
	const char *name;
	int			keys;			/* allowed keys besides "kind" */
	int			required;		/* keys without a default */
	double		weight;			/* default weight (built-ins) */
	double		maxdiff;		/* default max_relevant_difference */
	const char *player_attr;	/* built-ins: the joining player's attribute */
} KindInfo;

static const KindInfo kinds[] = {
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

#define N_KINDS ((int) lengthof(kinds))

/* A categorical value: a JSON string, boolean or number. */
typedef struct CatValue
{
	enum jbvType type;			/* jbvString, jbvBool or jbvNumeric */
	char	   *text;			/* string; "true"/"false" for booleans */
	double		num;			/* number */
} CatValue;

/* One signal of a configuration. */
typedef struct Signal
{
	char	   *name;			/* key in the config, and in the breakdown */
	SignalKind	kind;
	double		weight;
	char	   *attribute;		/* custom: player or server attribute */
	char	   *player_attribute;	/* the joining player's attribute */
	Aggregation agg;
	double		maxdiff;
	double		constant;		/* numeric constant */
	CatValue	cat_constant;	/* server categorical vs a constant */
	bool		has_cat_constant;
	/* the joining player's value, filled per ranking */
	double		player_num;
	bool		player_missing; /* built-in: the joining player lacks it */
	char	   *player_text;	/* player categorical: string or boolean */
	CatValue	player_cat;		/* server categorical vs the joining player */
	/* latency: the player's estimates per region, read once */
	int			nregions;
	char	  **region;
	int		   *region_len;
	double	   *region_ms;
} Signal;

typedef struct PlaceConfig
{
	bool		voice_chat;		/* the place has voice chat enabled */
	int			nsignals;
	Signal	   *signals;		/* with weight > 0 only, in config order */
} PlaceConfig;

static int
find_kind(const char *name, int len)
{
	for (int i = 0; i < N_KINDS; i++)
		if ((int) strlen(kinds[i].name) == len &&
			strncmp(kinds[i].name, name, len) == 0)
			return i;
	return -1;
}

static char *
kind_list(int from, int to)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = from; i < to; i++)
		appendStringInfo(&buf, "%s%s", i == from ? "" : ", ", kinds[i].name);
	return buf.data;
}

/* Look up a key of a JSON object; NULL when absent. */
static JsonbValue *
json_get(JsonbContainer *obj, const char *key, JsonbValue *buf)
{
	return getKeyJsonValueFromContainer(obj, key, strlen(key), buf);
}

static double
numeric_value(JsonbValue *v)
{
	return DatumGetFloat8(DirectFunctionCall1(numeric_float8,
											  NumericGetDatum(v->val.numeric)));
}

/* Read a JSON scalar as a categorical value; false for arrays, objects, null. */
static bool
cat_read(JsonbValue *v, CatValue *out)
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
			out->num = numeric_value(v);
			return true;
		default:
			return false;
	}
}

/* Equality of a categorical value and a JSON value: same type, same value. */
static bool
cat_equal(const CatValue *a, JsonbValue *v)
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
			return numeric_value(v) == a->num;
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

	if (obj->type != jbvBinary || !JsonContainerIsObject(obj->val.binary.data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("signal \"%s\" must be a JSON object", name),
				 errhint("Write {\"weight\": 2} for a built-in signal, or give a custom signal's \"kind\".")));
	c = obj->val.binary.data;

	v = json_get(c, "kind", &buf);
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
	info = &kinds[k];

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
		v = json_get(c, "constant", &buf);
		if (v != NULL)
		{
			sig->has_cat_constant = cat_read(v, &sig->cat_constant);
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

/* The top level of a place config; "signals" is read by parse_place_config. */
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
	const KindInfo *info = &kinds[sig->kind];

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
static PlaceConfig *
parse_place_config(Jsonb *config)
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
				named = strcmp(all[i].name, kinds[b].name) == 0;
			if (named)
				continue;
			all[nall].name = pstrdup(kinds[b].name);
			all[nall].kind = (SignalKind) b;
			all[nall].weight = kinds[b].weight;
			all[nall].maxdiff = kinds[b].maxdiff;
			all[nall].player_attribute = (char *) kinds[b].player_attr;
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

/* Read the joining player's latency map: region -> estimated ping in ms. */
static void
read_latency(Signal *s, JsonbContainer *map)
{
	JsonbIterator *it = JsonbIteratorInit(map);
	JsonbValue	v;
	JsonbIteratorToken tok;
	int			n = JsonContainerSize(map);
	int			k = 0;

	s->region = palloc(sizeof(char *) * (n + 1));
	s->region_len = palloc(sizeof(int) * (n + 1));
	s->region_ms = palloc(sizeof(double) * (n + 1));
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY)
		{
			s->region[k] = pnstrdup(v.val.string.val, v.val.string.len);
			s->region_len[k] = v.val.string.len;
		}
		else if (tok == WJB_VALUE)
		{
			if (v.type != jbvNumeric)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("joining player latency for region \"%s\" must be a number",
								s->region[k]),
						 errhint("Give the estimated ping in milliseconds.")));
			s->region_ms[k] = numeric_value(&v);
			if (isnan(s->region_ms[k]) || s->region_ms[k] < 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("joining player latency for region \"%s\" must not be negative",
								s->region[k]),
						 errdetail("The value is %g.", s->region_ms[k])));
			k++;
		}
	}
	s->nregions = k;
}

/*
 * Fill each signal's joining-player value. A missing attribute of a
 * built-in signal makes it score 0; one of a custom signal is refused.
 */
static void
read_player(PlaceConfig *pc, Jsonb *player)
{
	if (JB_ROOT_IS_SCALAR(player) || !JB_ROOT_IS_OBJECT(player))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("player must be a JSON object of attributes"),
				 errhint("For example {\"age\": 12, \"language\": \"en\"}.")));
	for (int i = 0; i < pc->nsignals; i++)
	{
		Signal	   *s = &pc->signals[i];
		JsonbValue *v;

		if (s->player_attribute == NULL)
			continue;
		v = json_get(&player->root, s->player_attribute, palloc(sizeof(JsonbValue)));
		/*
		 * A built-in attribute the player has no value for (no latency
		 * estimate, age not shared) scores 0 on every server, as a server
		 * without an attribute does; a custom signal's attribute is the
		 * game's own, and a missing one is more likely a typo.
		 */
		if (v == NULL && s->kind < N_BUILTIN)
		{
			s->player_missing = true;
			continue;
		}
		if (v == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("joining player has no attribute \"%s\"", s->player_attribute),
					 errdetail("Signal \"%s\" (weight %g) reads it.", s->name, s->weight),
					 errhint("Add \"%s\" to the player's attributes, or give signal \"%s\" a weight of 0.",
							 s->player_attribute, s->name)));
		switch (s->kind)
		{
			case SIG_LATENCY:
				if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("joining player attribute \"latency\" must be an object"),
							 errhint("Map each server region to the estimated ping in ms: {\"latency\": {\"eu\": 40}}.")));
				read_latency(s, v->val.binary.data);
				break;
			case SIG_AGE:
			case SIG_PLAY_HISTORY:
			case SIG_PLAYER_NUMERIC_JOINING:
			case SIG_PLAYER_NUMERIC_CONSTANT:
			case SIG_SERVER_NUMERIC_JOINING:
				if (v->type != jbvNumeric)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("joining player attribute \"%s\" must be a number",
									s->player_attribute),
							 errdetail("Signal \"%s\" is numerical.", s->name)));
				s->player_num = numeric_value(v);
				break;
			case SIG_SERVER_CATEGORICAL_JOINING:
				if (!cat_read(v, &s->player_cat))
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("joining player attribute \"%s\" must be a string, a number or a boolean",
									s->player_attribute),
							 errdetail("Signal \"%s\" compares it with server attribute \"%s\".",
									   s->name, s->attribute)));
				break;
			default:
				/* shares count the players' strings and booleans */
				if (v->type == jbvString)
					s->player_text = pnstrdup(v->val.string.val, v->val.string.len);
				else if (v->type == jbvBool)
					s->player_text = pstrdup(v->val.boolean ? "true" : "false");
				else
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("joining player attribute \"%s\" must be a string or a boolean",
									s->player_attribute),
							 errdetail("Signal \"%s\" is a categorical share of the server's players.",
									   s->name)));
				break;
		}
	}
}

/* One server as ranking sees it. */
typedef struct ServerRow
{
	int64		server_id;
	int32		capacity;
	int32		occupancy;
	double		age_n;
	double		age_sum;
	double		play_history_n;
	double		play_history_sum;
	bool		has_friend;
	JsonbContainer *attributes;
	JsonbContainer *stats;
} ServerRow;

/* The stats of one player attribute on a server; NULL if no one has it. */
static JsonbContainer *
attr_stats(ServerRow *row, const char *attr)
{
	JsonbValue	buf;
	JsonbValue *v = json_get(row->stats, attr, &buf);

	if (v == NULL || v->type != jbvBinary)
		return NULL;
	return v->val.binary.data;
}

/* Players on the server whose attribute has the text value. */
static double
count_same(ServerRow *row, const char *attr, const char *value)
{
	JsonbContainer *st = attr_stats(row, attr);
	JsonbValue	buf;
	JsonbValue *v;

	if (st == NULL)
		return 0.0;
	v = json_get(st, "values", &buf);
	if (v == NULL || v->type != jbvBinary)
		return 0.0;
	v = json_get(v->val.binary.data, value, &buf);
	if (v == NULL || v->type != jbvNumeric)
		return 0.0;
	return (double) DatumGetInt32(DirectFunctionCall1(numeric_int4,
													  NumericGetDatum(v->val.numeric)));
}

/* A numeric stat ("n", "sum", "min", "max") of a player attribute. */
static bool
numeric_stat(JsonbContainer *st, const char *key, double *out)
{
	JsonbValue	buf;
	JsonbValue *v = json_get(st, key, &buf);

	if (v == NULL || v->type != jbvNumeric)
		return false;
	*out = numeric_value(v);
	return true;
}

static double
clamp_signal(double diff, double max)
{
	double		d = fabs(diff) / max;

	return 1.0 - (d < 1.0 ? d : 1.0);
}

/* Score one signal on one server: a number in [0, 1]. */
static double
score_signal(const Signal *s, ServerRow *row)
{
	double		n = row->occupancy;
	JsonbValue	buf;
	JsonbValue *v;
	JsonbContainer *st;
	double		x;

	if (s->player_missing)
		return 0.0;
	switch (s->kind)
	{
		case SIG_FRIENDS:
			return row->has_friend ? 1.0 : 0.0;
		case SIG_LATENCY:
			/* the player's estimate for the server's region; none scores 0 */
			v = json_get(row->attributes, "region", &buf);
			if (v == NULL || v->type != jbvString)
				return 0.0;
			for (int i = 0; i < s->nregions; i++)
				if (s->region_len[i] == v->val.string.len &&
					memcmp(s->region[i], v->val.string.val, v->val.string.len) == 0)
					return clamp_signal(s->region_ms[i], s->maxdiff);
			return 0.0;
		case SIG_OCCUPANCY:
			return n / row->capacity;
		case SIG_AGE:
			if (row->age_n <= 0)
				return 0.0;
			return clamp_signal(row->age_sum / row->age_n - s->player_num, s->maxdiff);
		case SIG_PLAY_HISTORY:
			if (row->play_history_n <= 0)
				return 0.0;
			return clamp_signal(row->play_history_sum / row->play_history_n - s->player_num,
								s->maxdiff);
		case SIG_LANGUAGE:
		case SIG_VOICE_CHAT:
		case SIG_DEVICE_TYPE:
		case SIG_PLAYER_CATEGORICAL_CLUSTERING:
			if (n <= 0)
				return 0.0;
			x = count_same(row, s->player_attribute, s->player_text) / n;
			return x > 1.0 ? 1.0 : x;
		case SIG_PLAYER_CATEGORICAL_DIVERSIFYING:
			if (n <= 0)
				return 0.0;
			x = count_same(row, s->player_attribute, s->player_text) / n;
			return x > 1.0 ? 0.0 : 1.0 - x;
		case SIG_PLAYER_NUMERIC_JOINING:
		case SIG_PLAYER_NUMERIC_CONSTANT:
			{
				double		cnt = 0,
							sum = 0,
							lo = 0,
							hi = 0,
							agg;
				bool		join = s->kind == SIG_PLAYER_NUMERIC_CONSTANT;

				st = attr_stats(row, s->attribute);
				if (st != NULL && numeric_stat(st, "n", &cnt) && cnt > 0)
				{
					numeric_stat(st, "sum", &sum);
					numeric_stat(st, "min", &lo);
					numeric_stat(st, "max", &hi);
				}
				else
					cnt = 0;
				/* vs a constant, the server as it would be with the player */
				if (join)
				{
					lo = cnt > 0 ? Min(lo, s->player_num) : s->player_num;
					hi = cnt > 0 ? Max(hi, s->player_num) : s->player_num;
					sum += s->player_num;
					cnt += 1;
				}
				if (cnt <= 0)
					return 0.0;
				switch (s->agg)
				{
					case AGG_SUM:
						agg = sum;
						break;
					case AGG_MIN:
						agg = lo;
						break;
					case AGG_MAX:
						agg = hi;
						break;
					default:
						agg = sum / cnt;
						break;
				}
				return clamp_signal(agg - (join ? s->constant : s->player_num),
									s->maxdiff);
			}
		case SIG_SERVER_NUMERIC_JOINING:
		case SIG_SERVER_NUMERIC_CONSTANT:
			v = json_get(row->attributes, s->attribute, &buf);
			if (v == NULL || v->type != jbvNumeric)
				return 0.0;
			return clamp_signal(numeric_value(v) -
								(s->kind == SIG_SERVER_NUMERIC_JOINING ?
								 s->player_num : s->constant), s->maxdiff);
		case SIG_SERVER_CATEGORICAL_JOINING:
		case SIG_SERVER_CATEGORICAL_CONSTANT:
			v = json_get(row->attributes, s->attribute, &buf);
			if (v == NULL)
				return 0.0;
			return cat_equal(s->kind == SIG_SERVER_CATEGORICAL_JOINING ?
							 &s->player_cat : &s->cat_constant, v) ? 1.0 : 0.0;
	}
	return 0.0;
}

typedef struct Ranked
{
	int64		server_id;
	double		score;
	int			index;			/* into the per-signal scores */
} Ranked;

/* Best first; equal scores by server id. */
static inline int
ranked_cmp(const Ranked *x, const Ranked *y)
{
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return x->server_id < y->server_id ? -1 : (x->server_id > y->server_id);
}

/* sort_ranked(Ranked *, size_t): an inlined quicksort by ranked_cmp */
#define ST_SORT sort_ranked
#define ST_ELEMENT_TYPE Ranked
#define ST_COMPARE(a, b) ranked_cmp(a, b)
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

static int
int64_cmp(const void *a, const void *b)
{
	int64		x = *(const int64 *) a;
	int64		y = *(const int64 *) b;

	return x < y ? -1 : (x > y);
}

/* Load a place's config jsonb; NULL when the place has none. */
static Jsonb *
load_config(text *place)
{
	Oid			argtypes[1] = {TEXTOID};
	Datum		args[1] = {PointerGetDatum(place)};
	int			rc;
	bool		isnull;
	Datum		d;

	rc = SPI_execute_with_args("SELECT config FROM mm.place_configs"
							   " WHERE place OPERATOR(pg_catalog.=) $1",
							   1, argtypes, args, NULL, true, 1);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "SPI_execute_with_args failed: %s", SPI_result_code_string(rc));
	if (SPI_processed == 0)
		return NULL;
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	return isnull ? NULL : DatumGetJsonbP(d);
}

/* Sorted ids of the servers holding any preferred player. */
static int
load_friend_servers(ArrayType *preferred, int64 **ids)
{
	Oid			argtypes[1] = {INT8ARRAYOID};
	Datum		args[1] = {PointerGetDatum(preferred)};
	int			rc;
	int			n;

	rc = SPI_execute_with_args("SELECT DISTINCT p.server_id FROM mm.server_players p"
							   " WHERE p.player_id OPERATOR(pg_catalog.=) ANY ($1)",
							   1, argtypes, args, NULL, true, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "SPI_execute_with_args failed: %s", SPI_result_code_string(rc));
	n = (int) SPI_processed;
	*ids = palloc(sizeof(int64) * (n > 0 ? n : 1));
	for (int i = 0; i < n; i++)
	{
		bool		isnull;

		(*ids)[i] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i],
												SPI_tuptable->tupdesc, 1, &isnull));
	}
	qsort(*ids, n, sizeof(int64), int64_cmp);
	return n;
}

/*
 * Ranking state: the config, the friend servers, and the scores of the
 * servers seen so far (grown in the outer memory context).
 */
typedef struct RankState
{
	DestReceiver pub;			/* scores rows as the executor sends them */
	PlaceConfig *pc;
	int64	   *friends;		/* sorted ids of servers with a friend */
	int			nfriends;
	bool		need_stats;		/* some signal reads the stats jsonb */
	int			nsig;			/* Max(signals, 1): stride of scores */
	Ranked	   *ranked;
	double	   *scores;			/* nsig per server, in arrival order */
	int			nrows;
	int			allocated;
	MemoryContext outer;
	MemoryContext rowcxt;		/* reset after each server */
} RankState;

/* Score one server row, as read by the query in scan_servers. */
static bool
rank_receive(TupleTableSlot *slot, DestReceiver *self)
{
	RankState  *st = (RankState *) self;
	PlaceConfig *pc = st->pc;
	Datum	   *values;
	bool	   *isnull;
	ServerRow	row;
	MemoryContext old;
	double		total = 0.0;
	int			r;

	CHECK_FOR_INTERRUPTS();
	if (st->nrows >= st->allocated)
	{
		st->allocated = Max(st->allocated * 2, 1024);
		st->ranked = repalloc_huge(st->ranked, sizeof(Ranked) * st->allocated);
		st->scores = repalloc_huge(st->scores,
								   sizeof(double) * st->allocated * st->nsig);
	}
	r = st->nrows++;

	slot_getallattrs(slot);
	values = slot->tts_values;
	isnull = slot->tts_isnull;
	for (int i = 0; i < 9; i++)
		if (isnull[i])
			elog(ERROR, "mm.servers row has a NULL in column %d", i + 1);

	old = MemoryContextSwitchTo(st->rowcxt);
	row.server_id = DatumGetInt64(values[0]);
	row.capacity = DatumGetInt32(values[1]);
	row.occupancy = DatumGetInt32(values[2]);
	row.age_n = DatumGetInt32(values[3]);
	row.age_sum = DatumGetFloat8(values[4]);
	row.play_history_n = DatumGetInt32(values[5]);
	row.play_history_sum = DatumGetFloat8(values[6]);
	row.attributes = &DatumGetJsonbP(values[7])->root;
	row.stats = st->need_stats ? &DatumGetJsonbP(values[8])->root : NULL;
	row.has_friend = st->nfriends > 0 &&
		bsearch(&row.server_id, st->friends, st->nfriends, sizeof(int64),
				int64_cmp) != NULL;

	for (int i = 0; i < pc->nsignals; i++)
	{
		double		sc = score_signal(&pc->signals[i], &row);

		st->scores[(size_t) r * st->nsig + i] = sc;
		total += pc->signals[i].weight * sc;
	}
	st->ranked[r].server_id = row.server_id;
	st->ranked[r].score = total;
	st->ranked[r].index = r;
	MemoryContextSwitchTo(old);
	MemoryContextReset(st->rowcxt);
	return true;
}

/* Nothing to set up or tear down: the state lives in RankState. */
static void
rank_startup(DestReceiver *self pg_attribute_unused(),
			 int operation pg_attribute_unused(),
			 TupleDesc typeinfo pg_attribute_unused())
{
}

static void
rank_noop(DestReceiver *self pg_attribute_unused())
{
}

/*
 * Score every non-full server of the place. The query's rows go straight
 * to rank_receive (no copy into an SPI tuple table); fixed-width columns
 * come first, so their offsets are cached.
 */
static void
scan_servers(RankState *st, text *place)
{
	static SPIPlanPtr plan = NULL;
	Oid			argtypes[1] = {TEXTOID};
	ParamListInfo params;
	SPIExecuteOptions options;
	int			rc;

	(void) mm_kept_plan(&plan, "SELECT s.server_id, s.capacity, s.occupancy, s.age_n,"
						" s.age_sum, s.play_history_n, s.play_history_sum,"
						" s.attributes, s.stats FROM mm.servers s"
						" WHERE s.place OPERATOR(pg_catalog.=) $1"
						" AND s.occupancy OPERATOR(pg_catalog.<) s.capacity",
						1, argtypes);

	params = makeParamList(1);
	params->params[0].value = PointerGetDatum(place);
	params->params[0].isnull = false;
	params->params[0].pflags = PARAM_FLAG_CONST;
	params->params[0].ptype = TEXTOID;

	st->pub.receiveSlot = rank_receive;
	st->pub.rStartup = rank_startup;
	st->pub.rShutdown = rank_noop;
	st->pub.rDestroy = rank_noop;
	st->pub.mydest = DestNone;

	memset(&options, 0, sizeof(options));
	options.params = params;
	options.read_only = true;
	options.dest = &st->pub;
	rc = SPI_execute_plan_extended(plan, &options);
	/* a SELECT into a DestNone receiver reports SPI_OK_UTILITY */
	if (rc != SPI_OK_SELECT && rc != SPI_OK_UTILITY)
		elog(ERROR, "SPI_execute_plan_extended failed: %s", SPI_result_code_string(rc));
}

/* SQL wrappers */

PG_FUNCTION_INFO_V1(mm_check_place_config);
PG_FUNCTION_INFO_V1(mm_rank_servers);

/*
 * mm.place_config(config jsonb) → jsonb: the config checked and complete,
 * as mm.set_place_config stores it (every key, every signal given with
 * every key its kind takes, numbers in their shortest round-trip form).
 */
PG_FUNCTION_INFO_V1(mm_place_config);
Datum
mm_place_config(PG_FUNCTION_ARGS)
{
	Jsonb	   *config = PG_GETARG_JSONB_P(0);
	PlaceSettings ps;

	parse_place_config(config);
	mm_config_read(&mm_place_config_kind, config, &ps);
	PG_RETURN_JSONB_P(mm_config_jsonb(place_keys, &ps));
}

/* mm.check_place_config(config jsonb): true, or an error saying what is wrong */
Datum
mm_check_place_config(PG_FUNCTION_ARGS)
{
	parse_place_config(PG_GETARG_JSONB_P(0));
	PG_RETURN_BOOL(true);
}

/*
 * mm.rank_servers(place text, player jsonb, preferred bigint[] DEFAULT '{}')
 *	 RETURNS TABLE(server_id bigint, score float8, signals text[],
 *				   signal_scores float8[])
 */
Datum
mm_rank_servers(PG_FUNCTION_ARGS)
{
	text	   *place;
	Jsonb	   *player;
	ArrayType  *preferred;
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	RankState	st;
	int64	   *pref;
	int			npref;
	Datum	   *names;
	Datum	   *sd;
	ArrayType  *names_array;
	bool		has_friends = false;

	mm_args_not_null(fcinfo, 0);
	place = PG_GETARG_TEXT_PP(0);
	player = PG_GETARG_JSONB_P(1);
	preferred = PG_GETARG_ARRAYTYPE_P(2);

	InitMaterializedSRF(fcinfo, 0);
	npref = mm_int8_array(preferred, "preferred", &pref);

	memset(&st, 0, sizeof(st));
	st.outer = CurrentMemoryContext;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");

	/* the config and the player's values live in the outer context */
	{
		Jsonb	   *config = load_config(place);
		MemoryContext spi = MemoryContextSwitchTo(st.outer);

		if (config != NULL)
			config = (Jsonb *) PG_DETOAST_DATUM_COPY(JsonbPGetDatum(config));
		st.pc = parse_place_config(config);
		read_player(st.pc, player);
		st.nsig = Max(st.pc->nsignals, 1);
		st.allocated = 1024;
		st.ranked = palloc_extended(sizeof(Ranked) * st.allocated, MCXT_ALLOC_HUGE);
		st.scores = palloc_extended(sizeof(double) * st.allocated * st.nsig,
									MCXT_ALLOC_HUGE);
		MemoryContextSwitchTo(spi);
	}
	for (int i = 0; i < st.pc->nsignals; i++)
	{
		SignalKind	k = st.pc->signals[i].kind;

		if (k == SIG_FRIENDS)
			has_friends = true;
		else if (k == SIG_LANGUAGE || k == SIG_VOICE_CHAT || k == SIG_DEVICE_TYPE ||
				 (k >= SIG_PLAYER_NUMERIC_JOINING &&
				  k <= SIG_PLAYER_CATEGORICAL_DIVERSIFYING))
			st.need_stats = true;
	}
	if (has_friends && npref > 0)
		st.nfriends = load_friend_servers(preferred, &st.friends);

	st.rowcxt = AllocSetContextCreate(CurrentMemoryContext, "mm rank_servers row",
									  ALLOCSET_DEFAULT_SIZES);
	scan_servers(&st, place);
	SPI_finish();

	if (st.nrows > 1)
		sort_ranked(st.ranked, st.nrows);

	names = palloc(sizeof(Datum) * st.nsig);
	for (int i = 0; i < st.pc->nsignals; i++)
		names[i] = CStringGetTextDatum(st.pc->signals[i].name);
	names_array = construct_array(names, st.pc->nsignals, TEXTOID, -1, false,
								  TYPALIGN_INT);

	sd = palloc(sizeof(Datum) * st.nsig);
	for (int r = 0; r < st.nrows; r++)
	{
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};
		const double *sc = &st.scores[(size_t) st.ranked[r].index * st.nsig];
		ArrayType  *sa;

		for (int i = 0; i < st.pc->nsignals; i++)
			sd[i] = Float8GetDatum(sc[i]);
		sa = construct_array(sd, st.pc->nsignals, FLOAT8OID, sizeof(float8),
							 FLOAT8PASSBYVAL, TYPALIGN_DOUBLE);
		values[0] = Int64GetDatum(st.ranked[r].server_id);
		values[1] = Float8GetDatum(st.ranked[r].score);
		values[2] = PointerGetDatum(names_array);
		values[3] = PointerGetDatum(sa);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		pfree(sa);
	}
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(mm_place_signals);

/*
 * mm.place_signals(place text)
 *	 RETURNS TABLE(signal text, kind text, weight float8)
 * The signals a place scores servers with (its config, or the Roblox
 * default configuration), defaults filled in, weight-0 signals left out, in
 * the order rank_servers reports them.
 */
Datum
mm_place_signals(PG_FUNCTION_ARGS)
{
	text	   *place;
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MemoryContext outer;
	PlaceConfig *pc;
	Jsonb	   *config;

	mm_args_not_null(fcinfo, 0);
	place = PG_GETARG_TEXT_PP(0);

	InitMaterializedSRF(fcinfo, 0);
	outer = CurrentMemoryContext;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	config = load_config(place);
	{
		MemoryContext spi = MemoryContextSwitchTo(outer);

		if (config != NULL)
			config = (Jsonb *) PG_DETOAST_DATUM_COPY(JsonbPGetDatum(config));
		pc = parse_place_config(config);
		MemoryContextSwitchTo(spi);
	}
	SPI_finish();

	for (int i = 0; i < pc->nsignals; i++)
	{
		Datum		values[3];
		bool		nulls[3] = {false, false, false};

		values[0] = CStringGetTextDatum(pc->signals[i].name);
		values[1] = CStringGetTextDatum(kinds[pc->signals[i].kind].name);
		values[2] = Float8GetDatum(pc->signals[i].weight);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
