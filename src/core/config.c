/*-------------------------------------------------------------------------
 *
 * config.c
 *		The config spine (config.h): defaults, parsing, validation and
 *		rendering of every jsonb config from its key table, the one duration
 *		reader, and mm.config_keys.
 *
 *-------------------------------------------------------------------------
 */
#include "mm.h"
#include "config.h"

#include <float.h>
#include <math.h>

#include "common/shortest_dec.h"
#include "datatype/timestamp.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/timestamp.h"

#define FIELD(base, off, type) ((type *) ((char *) (base) + (off)))
#define CFIELD(base, off, type) ((const type *) ((const char *) (base) + (off)))

void
mm_append_float8(StringInfo buf, double value)
{
	char		digits[DOUBLE_SHORTEST_DECIMAL_LEN];

	Assert(!isnan(value) && !isinf(value));
	double_to_shortest_decimal_buf(value, digits);
	appendStringInfoString(buf, digits);
}

JsonbValue *
mm_jsonb_object_get(JsonbContainer *container, const char *name)
{
	JsonbValue	key;

	if (!JsonContainerIsObject(container))
		return NULL;
	key.type = jbvString;
	key.val.string.val = (char *) name;
	key.val.string.len = strlen(name);
	return findJsonbValueFromContainer(container, JB_FOBJECT, &key);
}

void
mm_config_defaults(const MmConfigKey *keys, void *base)
{
	for (const MmConfigKey *k = keys; k->name != NULL; k++)
	{
		if (k->flags & MM_CONFIG_NULLABLE)
			*FIELD(base, k->null_offset, bool) = k->def_null;
		if (k->flags & MM_CONFIG_GIVEN)
			*FIELD(base, k->given_offset, bool) = false;
		switch (k->type)
		{
			case MM_CONFIG_FLOAT:
				*FIELD(base, k->offset, double) = k->def;
				break;
			case MM_CONFIG_INT:
				*FIELD(base, k->offset, int) = (int) k->def;
				break;
			case MM_CONFIG_BOOL:
				*FIELD(base, k->offset, bool) = k->def != 0;
				break;
			case MM_CONFIG_TEXT:
				*FIELD(base, k->offset, char *) =
					k->def_text ? pstrdup(k->def_text) : NULL;
				break;
			case MM_CONFIG_DURATION:
				FIELD(base, k->offset, MmDuration)->seconds = k->def;
				FIELD(base, k->offset, MmDuration)->text =
					k->def_text ? pstrdup(k->def_text) : NULL;
				break;
			case MM_CONFIG_OBJECT:
				mm_config_defaults(k->keys, FIELD(base, k->offset, char));
				break;
			case MM_CONFIG_CUSTOM:
				k->parse(NULL, base, NULL, NULL);
				break;
		}
	}
}

/* Find a key in a key table; NULL if unknown. */
static const MmConfigKey *
config_find(const MmConfigKey *keys, const char *name, int len)
{
	for (const MmConfigKey *k = keys; k->name != NULL; k++)
	{
		if ((int) strlen(k->name) == len && strncmp(k->name, name, len) == 0)
			return k;
	}
	return NULL;
}

/* List the keys of a key table, for a hint. */
static char *
config_key_list(const MmConfigKey *keys)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (const MmConfigKey *k = keys; k->name != NULL; k++)
		appendStringInfo(&buf, "%s%s", k == keys ? "" : ", ", k->name);
	return buf.data;
}

static const char *
config_type_name(MmConfigType type)
{
	switch (type)
	{
		case MM_CONFIG_FLOAT:
			return "a number";
		case MM_CONFIG_INT:
			return "an integer";
		case MM_CONFIG_BOOL:
			return "a boolean";
		case MM_CONFIG_TEXT:
			return "a string";
		case MM_CONFIG_DURATION:
			return "a duration (a number of seconds or an interval text)";
		case MM_CONFIG_OBJECT:
			return "an object";
		case MM_CONFIG_CUSTOM:
			break;
	}
	return "a value";
}

/* The type's name in mm.config_keys. */
static const char *
config_type_label(MmConfigType type)
{
	switch (type)
	{
		case MM_CONFIG_FLOAT:
			return "number";
		case MM_CONFIG_INT:
			return "integer";
		case MM_CONFIG_BOOL:
			return "boolean";
		case MM_CONFIG_TEXT:
			return "text";
		case MM_CONFIG_DURATION:
			return "duration";
		case MM_CONFIG_OBJECT:
		case MM_CONFIG_CUSTOM:
			break;
	}
	return "object";
}

/* Refuse a number outside a key's range. */
static void
config_check_range(const MmConfigKey *key, double d, const char *what,
				   const char *path)
{
	bool		exclusive = (key->flags & MM_CONFIG_MIN_EXCLUSIVE) != 0;

	if (isinf(d) || isnan(d) || d < key->min || d > key->max ||
		(exclusive && d <= key->min))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s key \"%s\" is out of range", what, path),
				 errdetail("The value is %g%s.", d,
						   key->type == MM_CONFIG_DURATION ? " s" : ""),
				 key->max >= DBL_MAX ?
				 errhint("\"%s\" must be %s %g.", path,
						 exclusive ? "greater than" : "at least", key->min) :
				 errhint("\"%s\" must be %s %g and at most %g%s.", path,
						 exclusive ? "greater than" : "at least",
						 key->min, key->max,
						 key->type == MM_CONFIG_DURATION ? " seconds" : "")));
}

/* Name the config key whose text an input function is reading. */
static void
config_key_context(void *arg)
{
	errcontext("%s", (const char *) arg);
}

Datum
mm_config_input(PGFunction input, const char *text, const char *what,
				const char *key)
{
	ErrorContextCallback cb;
	Datum		result;

	cb.callback = config_key_context;
	cb.arg = psprintf("%s key \"%s\"", what, key);
	cb.previous = error_context_stack;
	error_context_stack = &cb;
	result = DirectFunctionCall3(input, CStringGetDatum(text),
								 ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
	error_context_stack = cb.previous;
	return result;
}

double
mm_interval_seconds(const Interval *iv)
{
	return iv->time / (double) USECS_PER_SEC + (double) iv->day * SECS_PER_DAY +
		(double) (iv->month / MONTHS_PER_YEAR) * DAYS_PER_YEAR * SECS_PER_DAY +
		(double) (iv->month % MONTHS_PER_YEAR) * DAYS_PER_MONTH * SECS_PER_DAY;
}

void
mm_duration_parse(JsonbValue *v, const char *what, const char *path,
				  MmDuration *out)
{
	Interval   *iv;
	char	   *text;

	if (v->type == jbvNumeric)
	{
		out->seconds = DatumGetFloat8(DirectFunctionCall1(numeric_float8,
														  NumericGetDatum(v->val.numeric)));
		out->text = NULL;
		return;
	}
	if (v->type != jbvString)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s key \"%s\" must be %s", what, path,
						config_type_name(MM_CONFIG_DURATION))));
	text = pnstrdup(v->val.string.val, v->val.string.len);

	/*
	 * interval_in is STABLE only because IntervalStyle sql_standard reads a
	 * minus sign differently ("-1 30:00" is -54 hours there, +6 hours in the
	 * other styles): a minus sign is refused, so that the functions taking a
	 * config stay IMMUTABLE.
	 */
	if (strchr(text, '-') != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s key \"%s\" must not contain a minus sign", what, path),
				 errdetail("The value is \"%s\".", text),
				 errhint("Give a positive duration, such as \"15m\", \"3 days\" or 900.")));
	iv = DatumGetIntervalP(mm_config_input(interval_in, text, what, path));
	if (iv->month != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s key \"%s\" must not use months or years", what, path),
				 errdetail("The value is \"%s\"; a month or a year has no fixed length.", text),
				 errhint("Give it in days, hours, minutes or seconds, such as \"30 days\", or as a number of seconds.")));
	out->seconds = iv->time / (double) USECS_PER_SEC + iv->day * (double) SECS_PER_DAY;
	out->text = text;
}

/* Store one value into its key's field, checking type and range. */
static void
config_store(const MmConfigKey *key, JsonbValue *v, void *base,
			 const char *what, const char *path)
{
	if (key->flags & MM_CONFIG_GIVEN)
		*FIELD(base, key->given_offset, bool) = true;
	if (v->type == jbvNull && (key->flags & MM_CONFIG_NULLABLE))
	{
		*FIELD(base, key->null_offset, bool) = true;
		return;
	}
	if (key->flags & MM_CONFIG_NULLABLE)
		*FIELD(base, key->null_offset, bool) = false;

	switch (key->type)
	{
		case MM_CONFIG_FLOAT:
		case MM_CONFIG_INT:
			{
				double		d;

				if (v->type != jbvNumeric)
					break;
				d = DatumGetFloat8(DirectFunctionCall1(numeric_float8,
													   NumericGetDatum(v->val.numeric)));
				if (key->type == MM_CONFIG_INT && d != floor(d))
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("%s key \"%s\" must be an integer", what, path),
							 errdetail("The value is %g.", d)));
				config_check_range(key, d, what, path);
				if (key->type == MM_CONFIG_FLOAT)
					*FIELD(base, key->offset, double) = d;
				else
					*FIELD(base, key->offset, int) = (int) d;
				return;
			}
		case MM_CONFIG_BOOL:
			if (v->type != jbvBool)
				break;
			*FIELD(base, key->offset, bool) = v->val.boolean;
			return;
		case MM_CONFIG_TEXT:
			if (v->type != jbvString)
				break;
			*FIELD(base, key->offset, char *) =
				pnstrdup(v->val.string.val, v->val.string.len);
			return;
		case MM_CONFIG_DURATION:
			{
				MmDuration *dur = FIELD(base, key->offset, MmDuration);

				mm_duration_parse(v, what, path, dur);
				config_check_range(key, dur->seconds, what, path);
				return;
			}
		case MM_CONFIG_OBJECT:
			mm_config_parse_value(v, what, path, key->keys,
								  FIELD(base, key->offset, char));
			return;
		case MM_CONFIG_CUSTOM:
			key->parse(v, base, what, path);
			return;
	}
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s key \"%s\" must be %s", what, path,
					config_type_name(key->type))));
}

/* Parse one JSON object against a key table; prefix is its dotted path. */
static void
config_parse_object(JsonbContainer *container, const char *what,
					const char *prefix, const MmConfigKey *keys, void *base)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	const MmConfigKey *key = NULL;
	char	   *path = NULL;

	if (!JsonContainerIsObject(container))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 prefix ? errmsg("%s key \"%s\" must be an object", what, prefix)
				 : errmsg("%s must be a JSON object", what)));

	it = JsonbIteratorInit(container);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY)
		{
			key = config_find(keys, v.val.string.val, v.val.string.len);
			path = prefix
				? psprintf("%s.%.*s", prefix, v.val.string.len, v.val.string.val)
				: pnstrdup(v.val.string.val, v.val.string.len);
			if (key == NULL)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("unknown key \"%s\" in %s", path, what),
						 errhint("Valid keys%s%s are: %s.",
								 prefix ? " of " : "", prefix ? prefix : "",
								 config_key_list(keys))));
		}
		else if (tok == WJB_VALUE)
		{
			Assert(key != NULL);
			config_store(key, &v, base, what, path);
		}
	}
}

void
mm_config_parse_value(JsonbValue *v, const char *what, const char *path,
					  const MmConfigKey *keys, void *base)
{
	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 path ? errmsg("%s key \"%s\" must be an object", what, path)
				 : errmsg("%s must be a JSON object", what)));
	config_parse_object(v->val.binary.data, what, path, keys, base);
}

void
mm_config_parse(Jsonb *config, const char *what, const MmConfigKey *keys,
				void *base)
{
	if (config == NULL)
		return;
	if (JB_ROOT_IS_SCALAR(config))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a JSON object", what)));
	config_parse_object(&config->root, what, NULL, keys, base);
}

/* Append one key's value as JSON. */
static void
config_render_value(StringInfo buf, const MmConfigKey *k, const void *base)
{
	if ((k->flags & MM_CONFIG_NULLABLE) && *CFIELD(base, k->null_offset, bool))
	{
		appendStringInfoString(buf, "null");
		return;
	}
	switch (k->type)
	{
		case MM_CONFIG_FLOAT:
			mm_append_float8(buf, *CFIELD(base, k->offset, double));
			break;
		case MM_CONFIG_INT:
			appendStringInfo(buf, "%d", *CFIELD(base, k->offset, int));
			break;
		case MM_CONFIG_BOOL:
			appendStringInfoString(buf, *CFIELD(base, k->offset, bool) ? "true" : "false");
			break;
		case MM_CONFIG_TEXT:
			{
				const char *s = *CFIELD(base, k->offset, char *);

				if (s)
					escape_json(buf, s);
				else
					appendStringInfoString(buf, "null");
				break;
			}
		case MM_CONFIG_DURATION:
			{
				const MmDuration *d = CFIELD(base, k->offset, MmDuration);

				if (d->text)
					escape_json(buf, d->text);
				else
					mm_append_float8(buf, d->seconds);
				break;
			}
		case MM_CONFIG_OBJECT:
			mm_config_render(buf, k->keys, CFIELD(base, k->offset, char));
			break;
		case MM_CONFIG_CUSTOM:
			k->render(buf, base);
			break;
	}
}

void
mm_config_render(StringInfo buf, const MmConfigKey *keys, const void *base)
{
	appendStringInfoChar(buf, '{');
	for (const MmConfigKey *k = keys; k->name != NULL; k++)
	{
		if (k != keys)
			appendStringInfoString(buf, ", ");
		escape_json(buf, k->name);
		appendStringInfoString(buf, ": ");
		config_render_value(buf, k, base);
	}
	appendStringInfoChar(buf, '}');
}

void
mm_config_read(const MmConfigKind *kind, Jsonb *config, void *base)
{
	mm_config_defaults(kind->keys, base);
	mm_config_parse(config, kind->what, kind->keys, base);
	if (kind->check)
		kind->check(base, kind->what);
}

Jsonb *
mm_config_jsonb(const MmConfigKey *keys, const void *base)
{
	StringInfoData buf;

	initStringInfo(&buf);
	mm_config_render(&buf, keys, base);
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(buf.data)));
}

/* mm.config_keys: one row per key */

/* Add the rows of a key table (leaves only; nested keys as dotted paths). */
static void
config_keys_rows(ReturnSetInfo *rsinfo, const char *kind, const char *prefix,
				 const MmConfigKey *keys, const void *base)
{
	for (const MmConfigKey *k = keys; k->name != NULL; k++)
	{
		char	   *path = prefix ? psprintf("%s.%s", prefix, k->name) : pstrdup(k->name);
		Datum		values[8];
		bool		nulls[8] = {false};
		StringInfoData buf;
		bool		ranged = k->type == MM_CONFIG_FLOAT || k->type == MM_CONFIG_INT ||
			k->type == MM_CONFIG_DURATION;

		if (k->type == MM_CONFIG_OBJECT)
		{
			config_keys_rows(rsinfo, kind, path, k->keys,
							 CFIELD(base, k->offset, char));
			continue;
		}
		initStringInfo(&buf);
		config_render_value(&buf, k, base);
		values[0] = CStringGetTextDatum(kind);
		values[1] = CStringGetTextDatum(path);
		values[2] = CStringGetTextDatum(config_type_label(k->type));
		values[3] = DirectFunctionCall1(jsonb_in, CStringGetDatum(buf.data));
		values[4] = Float8GetDatum(k->min);
		values[5] = Float8GetDatum(k->max);
		nulls[4] = !ranged || isinf(k->min);
		nulls[5] = !ranged || isinf(k->max);
		values[6] = k->unit ? CStringGetTextDatum(k->unit) : (Datum) 0;
		nulls[6] = k->unit == NULL;
		values[7] = CStringGetTextDatum(k->doc ? k->doc : "");
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

/* Every kind of config, in the order mm.config_keys lists them. */
static const MmConfigKind *const config_kinds[] = {
	&mm_queue_config_kind,
	&mm_pool_config_kind,
	&mm_policy_config_kind,
	&mm_dishonor_config_kind,
	&mm_ladder_config_kind,
	&mm_prediction_config_kind,
	&mm_rate_config_kind,
	&mm_place_config_kind,
	&mm_openskill_options_kind,
	&mm_glicko2_options_kind,
	&mm_elo_options_kind,
};

/* The i-th kind (0-based) of the list above; NULL past the end. */
static const MmConfigKind *
config_kind_at(int i)
{
	return i < (int) lengthof(config_kinds) ? config_kinds[i] : NULL;
}

/* Every config kind's name, for a hint. */
static char *
config_kind_list(void)
{
	StringInfoData buf;
	const MmConfigKind *c;

	initStringInfo(&buf);
	for (int i = 0; (c = config_kind_at(i)) != NULL; i++)
		appendStringInfo(&buf, "%s%s", i ? ", " : "", c->kind);
	return buf.data;
}

PG_FUNCTION_INFO_V1(mm_config_keys);

/*
 * mm.config_keys(kind text DEFAULT NULL) -> SETOF (kind, key, type,
 * "default", min, max, unit, doc): the keys of one kind of config, or of
 * every kind when kind is NULL.
 */
Datum
mm_config_keys(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *want = PG_ARGISNULL(0) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(0));
	bool		found = false;
	const MmConfigKind *c;

	if (want != NULL)
	{
		for (int i = 0; (c = config_kind_at(i)) != NULL; i++)
			found |= strcmp(c->kind, want) == 0;
		if (!found)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown config kind \"%s\"", want),
					 errhint("Valid kinds are: %s.", config_kind_list())));
	}
	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; (c = config_kind_at(i)) != NULL; i++)
	{
		void	   *base;

		if (want != NULL && strcmp(c->kind, want) != 0)
			continue;
		base = palloc0(c->size);
		mm_config_defaults(c->keys, base);
		config_keys_rows(rsinfo, c->kind, NULL, c->keys, base);
	}
	return (Datum) 0;
}

void
mm_config_check_name(const char *what, const char *key, const char *value)
{
	mm_check_name(psprintf("%s key \"%s\"", what, key), value, strlen(value));
}
