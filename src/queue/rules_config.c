/*-------------------------------------------------------------------------
 *
 * rules_config.c
 *		The queue config keys "attributes", "roles" and "rules" (rules.h):
 *		their key tables, parsing, rendering and the checks between the
 *		rules and the attributes they name. rules.c explains each rule.
 *
 *-------------------------------------------------------------------------
 */
#include "queue.h"
#include "mm_limits.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"

#define BIT(t) MM_ATTR_BIT(t)

/* Config keys */

#define MC(field) offsetof(MmMatcherConfig, field)

/* The raw keys of one declared attribute and of one rule. */
typedef struct AttrRaw
{
	char	   *type;
	bool		required;
	JsonbValue *def;
} AttrRaw;

static void
attr_default_parse(JsonbValue *v, void *base, const char *what, const char *path)
{
	AttrRaw    *raw = base;

	(void) what;
	(void) path;

	if (v == NULL || v->type == jbvNull)
	{
		raw->def = NULL;
		return;
	}
	raw->def = palloc(sizeof(JsonbValue));
	*raw->def = *v;
}

/* Append a JSON value (a scalar, or an array or object container). */
static void
append_jsonb_value(StringInfo buf, const JsonbValue *v)
{
	switch (v->type)
	{
		case jbvNull:
			appendStringInfoString(buf, "null");
			break;
		case jbvString:
			{
				char	   *s = pnstrdup(v->val.string.val, v->val.string.len);

				escape_json(buf, s);
				break;
			}
		case jbvNumeric:
			appendStringInfoString(buf, DatumGetCString(DirectFunctionCall1(numeric_out,
																			NumericGetDatum(v->val.numeric))));
			break;
		case jbvBool:
			appendStringInfoString(buf, v->val.boolean ? "true" : "false");
			break;
		case jbvBinary:
			(void) JsonbToCString(buf, v->val.binary.data, v->val.binary.len);
			break;
		default:
			appendStringInfoString(buf, "null");
	}
}

static void
attr_default_render(StringInfo buf, const void *base)
{
	const AttrRaw *raw = base;

	if (raw->def)
		append_jsonb_value(buf, raw->def);
	else
		appendStringInfoString(buf, "null");
}

static const MmConfigKey attr_keys[] = {
	{.name = "type", .type = MM_CONFIG_TEXT, .offset = offsetof(AttrRaw, type), .def_text = "string",
	.doc = "number, string or string_set"},
	{.name = "required", .type = MM_CONFIG_BOOL, .offset = offsetof(AttrRaw, required), .def = 0,
	.doc = "mm.enqueue refuses a roster without it"},
	{.name = "default", .type = MM_CONFIG_CUSTOM, .parse = attr_default_parse,
		.render = attr_default_render,
	.doc = "the value of a roster that does not give it (null: none)"},
	{.name = NULL}
};

/* The parameters a rule may take: max, min, flex, max_favourite. */
#define NPARAMS 4

typedef struct RuleRaw
{
	char	   *name;
	bool		name_null;
	char	   *type;
	char	   *attribute;
	bool		attribute_null;
	double		max;
	bool		max_given;
	double		min;
	bool		min_given;
	double		flex;
	bool		flex_given;
	double		max_favourite;
	bool		max_favourite_given;
	int			premade;
	bool		premade_given;
	bool		soft;
	double		weight;
	bool		weight_given;
	int			ncounts;
	char	  **count_names;
	int		   *count_values;
	bool		counts_given;
	int			nsteps;
	MmExpandStep *steps;
	bool	   *step_given[NPARAMS];	/* per step: max, min, flex,
										 * max_favourite given */
	double	   *step_value[NPARAMS];
} RuleRaw;

/* The parameters a rule type may take, in RuleRaw and StepRaw order. */
static const char *const param_names[NPARAMS] = {"max", "min", "flex", "max_favourite"};

typedef struct StepRaw
{
	MmDuration	after;
	bool		after_given;
	double		max;
	bool		max_given;
	double		min;
	bool		min_given;
	double		flex;
	bool		flex_given;
	double		max_favourite;
	bool		max_favourite_given;
} StepRaw;

static const MmConfigKey step_keys[] = {
	{.name = "after", .type = MM_CONFIG_DURATION, .flags = MM_CONFIG_GIVEN | MM_CONFIG_MIN_EXCLUSIVE,
		.offset = offsetof(StepRaw, after), .given_offset = offsetof(StepRaw, after_given),
	.min = 0, .max = 1e10},
	{.name = "max", .type = MM_CONFIG_FLOAT, .flags = MM_CONFIG_GIVEN, .offset = offsetof(StepRaw, max),
	.given_offset = offsetof(StepRaw, max_given), .min = 0, .max = 1e15},
	{.name = "min", .type = MM_CONFIG_FLOAT, .flags = MM_CONFIG_GIVEN, .offset = offsetof(StepRaw, min),
	.given_offset = offsetof(StepRaw, min_given), .min = 0, .max = 1000},
	{.name = "flex", .type = MM_CONFIG_FLOAT, .flags = MM_CONFIG_GIVEN, .offset = offsetof(StepRaw, flex),
	.given_offset = offsetof(StepRaw, flex_given), .min = 0, .max = 1000},
	{.name = "max_favourite", .type = MM_CONFIG_FLOAT, .flags = MM_CONFIG_GIVEN,
		.offset = offsetof(StepRaw, max_favourite), .given_offset = offsetof(StepRaw, max_favourite_given),
	.min = 0, .max = 1},
	{.name = NULL}
};

/* Elements of a JSON array value, at most max of them; refuses anything else. */
static int
array_elements(JsonbValue *v, const char *what, const char *path, JsonbValue **out, int max)
{
	JsonbIterator *it;
	JsonbValue	e;
	JsonbIteratorToken tok;
	int			n = 0,
				cap = 8;

	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data) ||
		JsonContainerIsScalar(v->val.binary.data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s key \"%s\" must be an array", what, path)));
	mm_check_list_length(psprintf("%s key \"%s\"", what, path),
						 JsonContainerSize(v->val.binary.data), max);
	*out = palloc(sizeof(JsonbValue) * cap);
	it = JsonbIteratorInit(v->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		if (tok != WJB_ELEM)
			continue;
		if (n == cap)
		{
			cap *= 2;
			*out = repalloc(*out, sizeof(JsonbValue) * cap);
		}
		(*out)[n++] = e;
	}
	return n;
}

static void
rule_expand_parse(JsonbValue *v, void *base, const char *what, const char *path)
{
	RuleRaw    *raw = base;
	JsonbValue *elems;
	int			n;

	raw->nsteps = 0;
	raw->steps = NULL;
	if (v == NULL || v->type == jbvNull)
		return;
	n = array_elements(v, what, path, &elems, MM_EXPAND_STEPS_MAX);
	raw->steps = palloc0(sizeof(MmExpandStep) * Max(n, 1));
	for (int k = 0; k < NPARAMS; k++)
	{
		raw->step_given[k] = palloc0(sizeof(bool) * Max(n, 1));
		raw->step_value[k] = palloc0(sizeof(double) * Max(n, 1));
	}
	for (int i = 0; i < n; i++)
	{
		StepRaw		s;
		char	   *p = psprintf("%s[%d]", path, i);

		memset(&s, 0, sizeof(s));
		mm_config_defaults(step_keys, &s);
		mm_config_parse_value(&elems[i], what, p, step_keys, &s);
		if (!s.after_given)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s key \"%s.after\" is missing", what, p),
					 errhint("Each expansion step gives the wait it starts at, such as {\"after\": 30, \"max\": 100}.")));
		raw->steps[i].after = s.after;
		raw->step_given[0][i] = s.max_given;
		raw->step_value[0][i] = s.max;
		raw->step_given[1][i] = s.min_given;
		raw->step_value[1][i] = s.min;
		raw->step_given[2][i] = s.flex_given;
		raw->step_value[2][i] = s.flex;
		raw->step_given[3][i] = s.max_favourite_given;
		raw->step_value[3][i] = s.max_favourite;
	}
	raw->nsteps = n;
}

static void
rule_expand_render(StringInfo buf, const void *base)
{
	(void) base;
	appendStringInfoString(buf, "[]");
}

/* A roles rule's "counts": role -> players per team. */
static void
rule_counts_parse(JsonbValue *v, void *base, const char *what, const char *path)
{
	RuleRaw    *raw = base;
	JsonbIterator *it;
	JsonbValue	e;
	JsonbIteratorToken tok;
	char	   *name = NULL;
	int			cap = 4;

	raw->ncounts = 0;
	raw->counts_given = false;
	if (v == NULL || v->type == jbvNull)
		return;
	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s key \"%s\" must be an object", what, path),
				 errhint("Give the players each team needs per role, such as {\"tank\": 1, \"damage\": 2}.")));
	raw->counts_given = true;
	raw->count_names = palloc(sizeof(char *) * cap);
	raw->count_values = palloc(sizeof(int) * cap);
	it = JsonbIteratorInit(v->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY)
			name = pnstrdup(e.val.string.val, e.val.string.len);
		else if (tok == WJB_VALUE)
		{
			double		x = -1;

			if (e.type == jbvNumeric)
				x = DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(e.val.numeric)));
			if (x < 0 || x > 1000 || x != (int) x)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s key \"%s.%s\" must be a whole number of players from 0 to 1000",
								what, path, name)));
			if (raw->ncounts == cap)
			{
				cap *= 2;
				raw->count_names = repalloc(raw->count_names, sizeof(char *) * cap);
				raw->count_values = repalloc(raw->count_values, sizeof(int) * cap);
			}
			raw->count_names[raw->ncounts] = name;
			raw->count_values[raw->ncounts++] = (int) x;
		}
	}
}

static void
rule_counts_render(StringInfo buf, const void *base)
{
	(void) base;
	appendStringInfoString(buf, "{}");
}

static const MmConfigKey rule_keys[] = {
	{.name = "name", .type = MM_CONFIG_TEXT, .flags = MM_CONFIG_NULLABLE,
		.offset = offsetof(RuleRaw, name), .null_offset = offsetof(RuleRaw, name_null),
	.def_null = true},
	{.name = "type", .type = MM_CONFIG_TEXT, .offset = offsetof(RuleRaw, type), .def_text = ""},
	{.name = "attribute", .type = MM_CONFIG_TEXT, .flags = MM_CONFIG_NULLABLE,
		.offset = offsetof(RuleRaw, attribute), .null_offset = offsetof(RuleRaw, attribute_null),
	.def_null = true},
	{.name = "max", .type = MM_CONFIG_FLOAT, .flags = MM_CONFIG_GIVEN, .offset = offsetof(RuleRaw, max),
	.given_offset = offsetof(RuleRaw, max_given), .min = 0, .max = 1e15},
	{.name = "min", .type = MM_CONFIG_FLOAT, .flags = MM_CONFIG_GIVEN, .offset = offsetof(RuleRaw, min),
	.given_offset = offsetof(RuleRaw, min_given), .min = 0, .max = 1000},
	{.name = "flex", .type = MM_CONFIG_FLOAT, .flags = MM_CONFIG_GIVEN, .offset = offsetof(RuleRaw, flex),
	.given_offset = offsetof(RuleRaw, flex_given), .min = 0, .max = 1000},
	{.name = "max_favourite", .type = MM_CONFIG_FLOAT, .flags = MM_CONFIG_GIVEN,
		.offset = offsetof(RuleRaw, max_favourite), .given_offset = offsetof(RuleRaw, max_favourite_given),
	.min = 0, .max = 1},
	{.name = "premade", .type = MM_CONFIG_INT, .flags = MM_CONFIG_GIVEN, .offset = offsetof(RuleRaw, premade),
	.given_offset = offsetof(RuleRaw, premade_given), .min = 2, .max = 1000},
	{.name = "soft", .type = MM_CONFIG_BOOL, .offset = offsetof(RuleRaw, soft), .def = 0},
	{.name = "weight", .type = MM_CONFIG_FLOAT, .flags = MM_CONFIG_GIVEN, .offset = offsetof(RuleRaw, weight),
	.given_offset = offsetof(RuleRaw, weight_given), .min = 0, .max = 1e15, .def = 1},
	{.name = "counts", .type = MM_CONFIG_CUSTOM, .parse = rule_counts_parse, .render = rule_counts_render},
	{.name = "expand", .type = MM_CONFIG_CUSTOM, .parse = rule_expand_parse, .render = rule_expand_render},
	{.name = NULL}
};

static MmAttrType
attr_type_of(const char *type, const char *what, const char *path)
{
	if (strcmp(type, "number") == 0)
		return MM_ATTR_NUMBER;
	if (strcmp(type, "string") == 0)
		return MM_ATTR_STRING;
	if (strcmp(type, "string_set") == 0)
		return MM_ATTR_SET;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s key \"%s.type\" is invalid", what, path),
			 errdetail("The value is \"%s\".", type),
			 errhint("Use \"number\", \"string\" or \"string_set\".")));
	return MM_ATTR_STRING;
}

/* Check one value of an attribute; errors name it. */

void
mm_attributes_parse(JsonbValue *v, void *base, const char *what, const char *path)
{
	MmMatcherConfig *cfg = base;
	JsonbIterator *it;
	JsonbValue	e;
	JsonbIteratorToken tok;
	char	   *name = NULL;
	int			cap = 4;

	cfg->nattrs = 0;
	cfg->attrs = NULL;
	if (v == NULL)
		return;
	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s key \"%s\" must be an object", what, path),
				 errhint("Declare each attribute by name, such as {\"mode\": {\"type\": \"string\", \"required\": true}}.")));
	mm_check_list_length(psprintf("%s key \"%s\"", what, path),
						 JsonContainerSize(v->val.binary.data), MM_ATTRIBUTES_MAX);
	cfg->attrs = palloc0(sizeof(MmAttrDecl) * cap);
	it = JsonbIteratorInit(v->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY)
			name = pnstrdup(e.val.string.val, e.val.string.len);
		else if (tok == WJB_VALUE)
		{
			AttrRaw		raw;
			char	   *p = psprintf("%s.%s", path, name);
			MmAttrDecl *d;

			mm_check_name(psprintf("%s attribute name", what), name, strlen(name));
			memset(&raw, 0, sizeof(raw));
			mm_config_defaults(attr_keys, &raw);
			mm_config_parse_value(&e, what, p, attr_keys, &raw);
			if (cfg->nattrs == cap)
			{
				cap *= 2;
				cfg->attrs = repalloc(cfg->attrs, sizeof(MmAttrDecl) * cap);
			}
			d = &cfg->attrs[cfg->nattrs++];
			d->name = name;
			d->type_name = raw.type;
			d->type = attr_type_of(raw.type, what, p);
			d->required = raw.required;
			d->def = raw.def;
			if (d->def)
				mm_rules_check_value(d, d->def, "its default");
			if (d->required && d->def)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s attribute \"%s\" is required and has a default", what, name),
						 errhint("A required attribute has no default: drop one of the two.")));
		}
	}
}

void
mm_attributes_render(StringInfo buf, const void *base)
{
	const MmMatcherConfig *cfg = base;

	appendStringInfoChar(buf, '{');
	for (int i = 0; i < cfg->nattrs; i++)
	{
		const MmAttrDecl *d = &cfg->attrs[i];

		if (i > 0)
			appendStringInfoString(buf, ", ");
		escape_json(buf, d->name);
		appendStringInfoString(buf, ": {\"type\": ");
		escape_json(buf, d->type_name);
		appendStringInfo(buf, ", \"default\": ");
		if (d->def)
			append_jsonb_value(buf, d->def);
		else
			appendStringInfoString(buf, "null");
		appendStringInfo(buf, ", \"required\": %s}", d->required ? "true" : "false");
	}
	appendStringInfoChar(buf, '}');
}

/*
 * The n names of a JSON array (roles, team names): names (mm_check_name),
 * each once; errors name the key and
 * the element, "kind" says what the names are.
 */
static char **
name_list(JsonbValue *elems, int n, const char *what, const char *path,
		  const char *kind, const char *hint)
{
	char	  **names = palloc(sizeof(char *) * Max(n, 1));

	for (int i = 0; i < n; i++)
	{
		char	   *name;

		if (elems[i].type != jbvString)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s key \"%s[%d]\" must be a %s name of 1 to %d bytes", what, path, i,
							kind, MM_NAME_MAX),
					 errhint("%s", hint)));
		mm_check_name(psprintf("%s key \"%s[%d]\"", what, path, i),
					  elems[i].val.string.val, elems[i].val.string.len);
		name = pnstrdup(elems[i].val.string.val, elems[i].val.string.len);
		for (int j = 0; j < i; j++)
			if (strcmp(names[j], name) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s key \"%s\" names %s \"%s\" twice", what, path, kind, name)));
		names[i] = name;
	}
	return names;
}

/* A list of names as a JSON array. */
static void
name_list_render(StringInfo buf, char *const *names, int n)
{
	appendStringInfoChar(buf, '[');
	for (int i = 0; i < n; i++)
	{
		if (i > 0)
			appendStringInfoString(buf, ", ");
		escape_json(buf, names[i]);
	}
	appendStringInfoChar(buf, ']');
}

/* Config key "roles": the roles a player may carry, a list of distinct names. */
void
mm_roles_parse(JsonbValue *v, void *base, const char *what, const char *path)
{
	MmMatcherConfig *cfg = base;
	JsonbValue *elems;
	int			n;

	cfg->nroles = 0;
	cfg->roles = NULL;
	if (v == NULL || v->type == jbvNull)
		return;
	n = array_elements(v, what, path, &elems, MM_ROLES_MAX);
	cfg->roles = name_list(elems, n, what, path, "role",
						   "List the roles by name, such as [\"tank\", \"damage\", \"support\"].");
	cfg->nroles = n;
}

void
mm_roles_render(StringInfo buf, const void *base)
{
	const MmMatcherConfig *cfg = base;

	name_list_render(buf, cfg->roles, cfg->nroles);
}

/*
 * Config key "team_names": the teams' names in team order, or null (the
 * defaults red, blue, team_3, ...). Names are 1 to 63 bytes without
 * control characters, each once; mm_matcher_check compares their number
 * with "teams".
 */
void
mm_team_names_parse(JsonbValue *v, void *base, const char *what, const char *path)
{
	MmMatcherConfig *cfg = base;
	JsonbValue *elems;
	int			n;

	cfg->nteam_names = 0;
	cfg->team_names = NULL;
	if (v == NULL || v->type == jbvNull)
		return;
	n = array_elements(v, what, path, &elems, MM_TEAMS);
	if (n < 2 || n > MM_TEAMS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s key \"%s\" must name 2 to %d teams", what, path, MM_TEAMS),
				 errdetail("It names %d.", n)));
	cfg->team_names = name_list(elems, n, what, path, "team",
								"Name the teams in order, such as [\"north\", \"east\", \"south\", \"west\"].");
	cfg->nteam_names = n;
}

void
mm_team_names_render(StringInfo buf, const void *base)
{
	const MmMatcherConfig *cfg = base;

	if (cfg->nteam_names == 0)
	{
		appendStringInfoString(buf, "null");
		return;
	}
	name_list_render(buf, cfg->team_names, cfg->nteam_names);
}


void
mm_rules_parse(JsonbValue *v, void *base, const char *what, const char *path)
{
	MmMatcherConfig *cfg = base;
	JsonbValue *elems;
	int			n;

	cfg->nrules = 0;
	cfg->rules = NULL;
	cfg->latency_rule = -1;
	if (v == NULL)
		return;
	n = array_elements(v, what, path, &elems, MM_RULES_MAX);
	cfg->rules = palloc0(sizeof(MmRule) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		RuleRaw		raw;
		char	   *p = psprintf("%s[%d]", path, i);
		MmRule	   *rule = &cfg->rules[i];
		const MmRuleType *ops;
		int			pk = 0;

		memset(&raw, 0, sizeof(raw));
		mm_config_defaults(rule_keys, &raw);
		mm_config_parse_value(&elems[i], what, p, rule_keys, &raw);
		ops = mm_rule_type_find(raw.type);
		if (ops == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s key \"%s.type\" is invalid", what, p),
					 errdetail("The value is \"%s\".", raw.type),
					 errhint("Use one of: %s.", mm_rule_type_names())));
		rule->kind = ops;
		rule->ops = ops->ops;
		rule->type = raw.type;
		rule->attribute = raw.attribute_null ? NULL : raw.attribute;
		rule->attr = -1;
		if ((ops->attr_types != 0) != (rule->attribute != NULL))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 ops->attr_types ? errmsg("%s rule \"%s\" needs an attribute", what, p)
					 : errmsg("%s rule \"%s\" takes no attribute", what, p),
					 ops->attr_types ? errhint("Name one of the queue's attributes, such as {\"type\": \"%s\", \"attribute\": \"mode\"}.", ops->type)
					 : ops->odds ? errhint("A %s rule reads the odds of the match.", ops->type)
					 : errhint("A %s rule reads the rosters' %s.", ops->type,
									 strcmp(ops->type, "latency") == 0 ? "latencies" :
									 strcmp(ops->type, "roles") == 0 ? "players' roles" : "party sizes")));
		/* its parameter: "max", "min" or "flex", or none */
		{
			bool		given[NPARAMS] = {raw.max_given, raw.min_given, raw.flex_given,
			raw.max_favourite_given};
			double		value[NPARAMS] = {raw.max, raw.min, raw.flex, raw.max_favourite};

			for (int k = 0; k < NPARAMS; k++)
				if (given[k] && (raw.soft || ops->param == NULL || strcmp(ops->param, param_names[k]) != 0))
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("%s rule \"%s\" does not take \"%s\"", what, p, param_names[k]),
							 raw.soft ? errhint("A soft rule has no limit: it is scored by its \"weight\".")
							 : ops->param ? errhint("A %s rule's parameter is \"%s\".", ops->type, ops->param)
							 : errhint("A %s rule has no parameter.", ops->type)));
			if (ops->param)
				for (int k = 0; k < NPARAMS; k++)
					if (strcmp(ops->param, param_names[k]) == 0)
						pk = k;
			if (ops->param == NULL)
				rule->value = 0;
			else if (given[pk])
				rule->value = value[pk];
			else if (ops->param_required && !raw.soft)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s rule \"%s\" needs \"%s\"", what, p, ops->param),
						 errhint("Give the rule's limit, such as {\"type\": \"%s\", \"%s\": %s}.", ops->type,
								 ops->param, pk == 0 ? "100" : pk == 3 ? "0.65" : "2")));
			else
				rule->value = ops->param_default;
		}
		if (ops->param && (rule->value < ops->param_min || rule->value > ops->param_max))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s key \"%s.%s\" is out of range", what, p, ops->param),
					 errdetail("The value is %g.", rule->value),
					 errhint("It lies between %g and %g.", ops->param_min, ops->param_max)));
		/* soft: scored by its weight, no limit, no expansion */
		rule->soft = raw.soft;
		rule->weight = raw.weight;
		if (raw.soft && !ops->soft)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s rule \"%s\" cannot be soft", what, p),
					 errhint("A %s rule is hard; distance and latency rules may be soft.", ops->type)));
		if (raw.weight_given && !raw.soft)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s rule \"%s\" has a weight but is not soft", what, p),
					 errhint("Add \"soft\": true to score the rule instead of filtering by it.")));
		if (raw.soft && raw.nsteps > 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s rule \"%s\" cannot expand", what, p),
					 errdetail("A soft rule has no limit to relax.")));
		if (raw.soft)
			rule->value = INFINITY;
		/* the keys of one type */
		if (raw.counts_given != (strcmp(ops->type, "roles") == 0))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 raw.counts_given ? errmsg("%s rule \"%s\" does not take \"counts\"", what, p)
					 : errmsg("%s rule \"%s\" needs \"counts\"", what, p),
					 raw.counts_given ? errhint("Only a roles rule counts players per role.")
					 : errhint("Give the players each team needs per role, such as {\"type\": \"roles\", \"counts\": {\"tank\": 1, \"damage\": 2}}.")));
		if (raw.premade_given && strcmp(ops->type, "party") != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s rule \"%s\" does not take \"premade\"", what, p),
					 errhint("Only a party rule has a premade size.")));
		rule->ncounts = raw.ncounts;
		rule->count_names = raw.count_names;
		rule->count_values = raw.count_values;
		rule->premade = raw.premade_given ? raw.premade : 0;
		/* its expansion */
		if (raw.nsteps > 0 && ops->param == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s rule \"%s\" cannot expand", what, p),
					 errdetail("A %s rule has no parameter to relax.", ops->type),
					 errhint("Drop \"expand\"; to widen who plays whom with wait, add a distance or intersect rule that expands.")));
		for (int s = 0; s < raw.nsteps; s++)
		{
			double		prev = s == 0 ? rule->value : raw.steps[s - 1].value;
			bool		ok = raw.step_given[pk][s];

			for (int k = 0; k < NPARAMS; k++)
				if (k != pk && raw.step_given[k][s])
					ok = false;
			if (!ok)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s key \"%s.expand[%d]\" must give \"%s\"", what, p, s, ops->param),
						 errhint("An expansion step of a %s rule is {\"after\": seconds, \"%s\": value}.",
								 ops->type, ops->param)));
			raw.steps[s].value = raw.step_value[pk][s];
			if (s > 0 && raw.steps[s].after.seconds <= raw.steps[s - 1].after.seconds)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s key \"%s.expand\" must be in increasing order of \"after\"", what, p),
						 errdetail("Step %d starts at %g s, step %d at %g s.", s - 1,
								   raw.steps[s - 1].after.seconds, s, raw.steps[s].after.seconds)));
			if (raw.steps[s].value < ops->param_min || raw.steps[s].value > ops->param_max)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s key \"%s.expand[%d].%s\" is out of range", what, p, s, ops->param),
						 errdetail("The value is %g.", raw.steps[s].value),
						 errhint("It lies between %g and %g.", ops->param_min, ops->param_max)));
			if (ops->relax_up ? raw.steps[s].value < prev : raw.steps[s].value > prev)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s key \"%s.expand[%d]\" tightens the rule", what, p, s),
						 errdetail("Its %s is %g after %g before it.", ops->param, raw.steps[s].value, prev),
						 errhint("Each step relaxes the rule: a %s %s is looser.", ops->relax_up ? "larger" : "smaller",
								 ops->param)));
		}
		rule->nsteps = raw.nsteps;
		rule->steps = raw.steps;
		rule->name = raw.name_null
			? (rule->attribute ? psprintf("%s_%s", ops->type, rule->attribute) : pstrdup(ops->type))
			: raw.name;
		mm_check_name(psprintf("%s key \"%s.name\"", what, p), rule->name, strlen(rule->name));
		for (int j = 0; j < i; j++)
			if (strcmp(cfg->rules[j].name, rule->name) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s has two rules named \"%s\"", what, rule->name),
						 errhint("Give one of them a \"name\" of its own.")));
		if (strcmp(ops->type, "latency") == 0)
		{
			if (cfg->latency_rule >= 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s has two latency rules", what),
						 errhint("A match is played in one region: give one latency rule, with an expansion if it relaxes.")));
			cfg->latency_rule = i;
		}
	}
	cfg->nrules = n;
}

void
mm_rules_render(StringInfo buf, const void *base)
{
	const MmMatcherConfig *cfg = base;

	appendStringInfoChar(buf, '[');
	for (int i = 0; i < cfg->nrules; i++)
	{
		const MmRule *r = &cfg->rules[i];

		if (i > 0)
			appendStringInfoString(buf, ", ");
		appendStringInfoString(buf, "{\"name\": ");
		escape_json(buf, r->name);
		appendStringInfoString(buf, ", \"type\": ");
		escape_json(buf, r->kind->type);
		if (r->attribute)
		{
			appendStringInfoString(buf, ", \"attribute\": ");
			escape_json(buf, r->attribute);
		}
		if (r->ncounts > 0 || strcmp(r->kind->type, "roles") == 0)
		{
			appendStringInfoString(buf, ", \"counts\": {");
			for (int k = 0; k < r->ncounts; k++)
			{
				if (k > 0)
					appendStringInfoString(buf, ", ");
				escape_json(buf, r->count_names[k]);
				appendStringInfo(buf, ": %d", r->count_values[k]);
			}
			appendStringInfoChar(buf, '}');
		}
		if (r->premade > 0)
			appendStringInfo(buf, ", \"premade\": %d", r->premade);
		if (r->soft)
		{
			appendStringInfoString(buf, ", \"soft\": true, \"weight\": ");
			mm_append_float8(buf, r->weight);
			appendStringInfoChar(buf, '}');
			continue;
		}
		if (r->kind->param)
		{
			appendStringInfo(buf, ", \"%s\": ", r->kind->param);
			mm_append_float8(buf, r->value);
		}
		if (r->kind->param == NULL)
		{
			appendStringInfoChar(buf, '}');
			continue;
		}
		appendStringInfoString(buf, ", \"expand\": [");
		for (int s = 0; s < r->nsteps; s++)
		{
			appendStringInfo(buf, "%s{\"after\": ", s ? ", " : "");
			if (r->steps[s].after.text)
				escape_json(buf, r->steps[s].after.text);
			else
				mm_append_float8(buf, r->steps[s].after.seconds);
			appendStringInfo(buf, ", \"%s\": ", r->kind->param);
			mm_append_float8(buf, r->steps[s].value);
			appendStringInfoChar(buf, '}');
		}
		appendStringInfoString(buf, "]}");
	}
	appendStringInfoChar(buf, ']');
}

/* The relations between the rules and the attributes (mm_matcher_check). */
void
mm_rules_check(MmMatcherConfig *cfg)
{
	for (int i = 0; i < cfg->nrules; i++)
	{
		MmRule	   *rule = &cfg->rules[i];

		rule->team_size = cfg->team_size;
		rule->nteams = cfg->nteams;
		rule->nroles = cfg->nroles;
		if (strcmp(rule->kind->type, "party") == 0)
		{
			if (rule->premade == 0)
				rule->premade = Max(cfg->team_size, 2);
			if (rule->premade > cfg->team_size || rule->value > cfg->team_size)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("queue config rule \"%s\" is larger than a team", rule->name),
						 errdetail("Its premade is %d and its min %g; teams have %d players.",
								   rule->premade, rule->value, cfg->team_size)));
		}
		if (rule->kind->odds && rule->value < 1.0 / cfg->nteams)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("queue config rule \"%s\" can never be met", rule->name),
					 errdetail("Its %s is %g; with %d teams the favourite's odds are at least %g.",
							   rule->kind->param, rule->value, cfg->nteams, 1.0 / cfg->nteams),
					 errhint("Give a %s of at least 1/teams.", rule->kind->param)));
		if (strcmp(rule->kind->type, "roles") == 0)
		{
			int			sum = 0;

			if (cfg->nroles == 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("queue config rule \"%s\" needs the queue's roles", rule->name),
						 errhint("Declare them under \"roles\", such as [\"tank\", \"damage\", \"support\"].")));
			rule->need = palloc0(sizeof(int) * cfg->nroles);
			for (int k = 0; k < rule->ncounts; k++)
			{
				int			role = mm_role_find(cfg, rule->count_names[k]);

				if (role < 0)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("queue config rule \"%s\" counts role \"%s\", which the queue does not declare",
									rule->name, rule->count_names[k]),
							 errhint("The queue declares: %s.", mm_role_list(cfg))));
				rule->need[role] = rule->count_values[k];
				sum += rule->count_values[k];
			}
			if (sum > cfg->team_size)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("queue config rule \"%s\" counts more players than a team has", rule->name),
						 errdetail("Its counts add up to %d; teams have %d players.", sum, cfg->team_size)));
		}
		if (rule->attribute == NULL)
			continue;
		for (int a = 0; a < cfg->nattrs; a++)
			if (strcmp(cfg->attrs[a].name, rule->attribute) == 0)
				rule->attr = a;
		if (rule->attr < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("queue config rule \"%s\" names attribute \"%s\", which the queue does not declare",
							rule->name, rule->attribute),
					 errhint("Declare it under \"attributes\", such as {\"%s\": {\"type\": \"string\"}}.",
							 rule->attribute)));
		if ((rule->kind->attr_types & BIT(cfg->attrs[rule->attr].type)) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("queue config rule \"%s\" cannot read attribute \"%s\" of type %s",
							rule->name, rule->attribute, cfg->attrs[rule->attr].type_name),
					 errhint("A %s rule reads %s.", rule->kind->type,
							 strcmp(rule->kind->type, "equal") == 0 ? "a number or a string" :
							 strcmp(rule->kind->type, "distance") == 0 ? "a number" : "a string_set")));
	}
}

