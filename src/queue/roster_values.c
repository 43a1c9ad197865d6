/*-------------------------------------------------------------------------
 *
 * roster_values.c
 *		A roster's attributes, latencies and roles: checked when a roster is
 *		queued (mm.enqueue, mm.update_roster) and read into the matcher's
 *		structs (MmAttrValue, MmRoster.lat, MmRoster.role_count; matcher.h)
 *		when rosters are read (roster_read.c, backfill.c). String values and
 *		regions are interned to ids per read, so the matcher compares ints.
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
#include "utils/memutils.h"

/* Attribute values */

/* A string value of an attribute: a name (mm_check_name). */
static void
check_string(const MmAttrDecl *d, const char *s, int len, const char *whose)
{
	(void) whose;
	mm_check_name(psprintf("value of attribute \"%s\"", d->name), s, len);
}

void
mm_rules_check_value(const MmAttrDecl *d, JsonbValue *v, const char *whose)
{
	switch (d->type)
	{
		case MM_ATTR_NUMBER:
			if (v->type == jbvNumeric)
			{
				double		x = DatumGetFloat8(DirectFunctionCall1(numeric_float8,
																   NumericGetDatum(v->val.numeric)));

				if (isinf(x) || isnan(x))
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("attribute \"%s\" must be finite", d->name)));
				return;
			}
			break;
		case MM_ATTR_STRING:
			if (v->type == jbvString)
			{
				check_string(d, v->val.string.val, v->val.string.len, whose);
				return;
			}
			break;
		case MM_ATTR_SET:
			if (v->type == jbvBinary && JsonContainerIsArray(v->val.binary.data) &&
				!JsonContainerIsScalar(v->val.binary.data))
			{
				JsonbIterator *it;
				JsonbValue	e;
				JsonbIteratorToken tok;
				bool		ok = true;

				mm_check_list_length(psprintf("value of attribute \"%s\"", d->name),
									 JsonContainerSize(v->val.binary.data), MM_SET_VALUES_MAX);
				it = JsonbIteratorInit(v->val.binary.data);

				while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
				{
					if (tok != WJB_ELEM)
						continue;
					if (e.type != jbvString)
						ok = false;
					else
						check_string(d, e.val.string.val, e.val.string.len, whose);
				}
				if (ok)
					return;
			}
			break;
	}
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("attribute \"%s\" must be %s", d->name,
					d->type == MM_ATTR_NUMBER ? "a number" :
					d->type == MM_ATTR_STRING ? "a string" : "an array of strings"),
			 errdetail("The value is %s (%s).", v->type == jbvBinary ? "a container" :
					   v->type == jbvString ? "a string" : v->type == jbvNumeric ? "a number" :
					   v->type == jbvBool ? "a boolean" : "null", whose)));
}

/* The latencies object: region -> finite ms >= 0. */
static void
check_latencies(Jsonb *lat)
{
	JsonbIterator *it;
	JsonbValue	e;
	JsonbIteratorToken tok;
	char	   *region = NULL;

	if (!JB_ROOT_IS_OBJECT(lat))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("latencies must be a JSON object"),
				 errhint("Give the roster's latency to each region in milliseconds, such as {\"eu\": 35, \"us-east\": 110}.")));
	mm_check_list_length("latencies", JsonContainerSize(&lat->root), MM_ROSTER_REGIONS_MAX);
	it = JsonbIteratorInit(&lat->root);
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY)
		{
			mm_check_name("latencies region name", e.val.string.val, e.val.string.len);
			region = pnstrdup(e.val.string.val, e.val.string.len);
		}
		else if (tok == WJB_VALUE)
		{
			double		ms;

			if (e.type != jbvNumeric)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("latency of region \"%s\" must be a number of milliseconds", region)));
			ms = DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(e.val.numeric)));
			if (isnan(ms) || isinf(ms) || ms < 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("latency of region \"%s\" must be finite and at least 0", region),
						 errdetail("The value is %g.", ms)));
		}
	}
}

/*
 * The attributes of a roster checked against those cfg declares, with the
 * defaults filled in, and its latencies checked (mm._check_attributes).
 */
Jsonb *
mm_rules_check_attributes(const MmMatcherConfig *cfgp, Jsonb *attrs, Jsonb *lat)
{
	const MmMatcherConfig cfg = *cfgp;
	JsonbParseState *state = NULL;
	JsonbValue *res;
	JsonbIterator *it;
	JsonbValue	e;
	JsonbIteratorToken tok;

	if (!JB_ROOT_IS_OBJECT(attrs))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("attributes must be a JSON object"),
				 errhint("Give the roster's value of each attribute the queue declares, such as {\"mode\": \"ranked\"}.")));
	/* no attribute the queue does not declare */
	it = JsonbIteratorInit(&attrs->root);
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		bool		known = false;
		char	   *name;

		if (tok != WJB_KEY)
			continue;
		name = pnstrdup(e.val.string.val, e.val.string.len);
		for (int a = 0; a < cfg.nattrs; a++)
			known |= strcmp(cfg.attrs[a].name, name) == 0;
		if (!known)
		{
			StringInfoData names;

			initStringInfo(&names);
			for (int a = 0; a < cfg.nattrs; a++)
				appendStringInfo(&names, "%s%s", a ? ", " : "", cfg.attrs[a].name);
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown attribute \"%s\"", name),
					 cfg.nattrs ? errhint("The queue declares: %s.", names.data)
					 : errhint("The queue declares no attributes (config key \"attributes\").")));
		}
	}
	check_latencies(lat);
	if (cfg.latency_rule >= 0 && JB_ROOT_COUNT(lat) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("latencies must name at least one region"),
				 errdetail("The queue has latency rule \"%s\".", cfg.rules[cfg.latency_rule].name),
				 errhint("Give the roster's latency to each region in milliseconds, such as {\"eu\": 35}.")));

	(void) pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	for (int a = 0; a < cfg.nattrs; a++)
	{
		MmAttrDecl *d = &cfg.attrs[a];
		JsonbValue *v = mm_jsonb_object_get(&attrs->root, d->name);
		JsonbValue	key;

		if (v == NULL || v->type == jbvNull)
		{
			if (d->required)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("attribute \"%s\" is required", d->name),
						 errhint("Give the roster's %s, such as {\"%s\": %s}.", d->name, d->name,
								 d->type == MM_ATTR_NUMBER ? "1" : d->type == MM_ATTR_STRING ? "\"x\"" : "[\"x\"]")));
			v = d->def;
			if (v == NULL)
				continue;
		}
		else
			mm_rules_check_value(d, v, "the roster's");
		key.type = jbvString;
		key.val.string.val = d->name;
		key.val.string.len = strlen(d->name);
		(void) pushJsonbValue(&state, WJB_KEY, &key);
		(void) pushJsonbValue(&state, WJB_VALUE, v);
	}
	res = pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	return JsonbValueToJsonb(res);
}

/* Reading the attributes and latencies of rosters (roster_read.c) */

/* Intern a string to an id, per table. */
typedef struct InternEntry
{
	char		key[NAMEDATALEN];
	int			id;
} InternEntry;

HTAB *
mm_intern_create(const char *name)
{
	HASHCTL		ctl;

	ctl.keysize = NAMEDATALEN;
	ctl.entrysize = sizeof(InternEntry);
	ctl.hcxt = CurrentMemoryContext;
	return hash_create(name, 256, &ctl, HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
}

int
mm_intern(HTAB *tab, const char *s, int len, int *count, char ***names)
{
	char		key[NAMEDATALEN];
	InternEntry *e;
	bool		found;

	len = Min(len, NAMEDATALEN - 1);
	memcpy(key, s, len);
	key[len] = '\0';
	e = hash_search(tab, key, HASH_ENTER, &found);
	if (!found)
	{
		e->id = (*count)++;
		if (names)
		{
			/* in the table's memory: a kept input interns more at each tick */
			MemoryContext cxt = GetMemoryChunkContext(tab);

			*names = *names ? repalloc(*names, sizeof(char *) * (*count))
				: MemoryContextAlloc(cxt, sizeof(char *));
			(*names)[e->id] = MemoryContextStrdup(cxt, key);
		}
	}
	return e->id;
}

static int
cmp_int_asc(const void *a, const void *b)
{
	int			x = *(const int *) a;
	int			y = *(const int *) b;

	return (x > y) - (x < y);
}

/* Set one value; false if the value does not have the declared type. */
static bool
read_value(const MmAttrDecl *d, JsonbValue *v, MmAttrValue *out, MmRuleReader *rd)
{
	out->present = false;
	out->num = 0;
	out->id = -1;
	out->nset = 0;
	out->set = NULL;
	switch (d->type)
	{
		case MM_ATTR_NUMBER:
			if (v->type != jbvNumeric)
				return false;
			out->num = mm_numeric_float8(v->val.numeric);
			if (isnan(out->num) || isinf(out->num))
				return false;
			break;
		case MM_ATTR_STRING:
			if (v->type != jbvString || !mm_name_valid(v->val.string.val, v->val.string.len))
				return false;
			out->id = mm_intern(rd->values, v->val.string.val, v->val.string.len, &rd->nvalues,
								&rd->value_names);
			break;
		case MM_ATTR_SET:
			{
				JsonbIterator *it;
				JsonbValue	e;
				JsonbIteratorToken tok;
				int			cap = 4,
							n = 0;

				if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
					return false;
				out->set = palloc(sizeof(int) * cap);
				it = JsonbIteratorInit(v->val.binary.data);
				while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
				{
					if (tok != WJB_ELEM)
						continue;
					if (e.type != jbvString || !mm_name_valid(e.val.string.val, e.val.string.len))
						return false;
					if (n == cap)
					{
						cap *= 2;
						out->set = repalloc(out->set, sizeof(int) * cap);
					}
					out->set[n++] = mm_intern(rd->values, e.val.string.val, e.val.string.len,
											  &rd->nvalues, &rd->value_names);
				}
				qsort(out->set, n, sizeof(int), cmp_int_asc);
				out->nset = 0;
				for (int i = 0; i < n; i++)
					if (i == 0 || out->set[i] != out->set[i - 1])
						out->set[out->nset++] = out->set[i];
				break;
			}
	}
	out->present = true;
	return true;
}

/*
 * The region id of the k-th key of a roster's latencies. A jsonb object
 * keeps its keys sorted, so rosters with latencies to the same regions list
 * them in the same order: the k-th key is most often the region the k-th
 * key of the roster before was, which is checked before the names are
 * hashed.
 */
static int
region_of_key(MmRuleReader *rd, int k, const char *name, int len)
{
	int			id;

	if (k < MM_KEY_CACHE && rd->key_region[k] > 0)
	{
		const char *known = rd->region_names[rd->key_region[k] - 1];

		if (strncmp(known, name, len) == 0 && known[len] == '\0')
			return rd->key_region[k] - 1;
	}
	id = mm_intern(rd->regions, name, len, &rd->nregions, &rd->region_names);
	if (k < MM_KEY_CACHE)
		rd->key_region[k] = id + 1;
	return id;
}

void
mm_rules_read_roster(const MmMatcherConfig *cfg, MmRoster *x, Jsonb *attrs, Jsonb *lat,
					 bool strict, MmRuleReader *rd)
{
	x->attr = NULL;
	x->lat = NULL;
	x->nlat = 0;
	if (cfg->nattrs > 0)
	{
		x->attr = palloc(sizeof(MmAttrValue) * cfg->nattrs);
		if (attrs != NULL && !JB_ROOT_IS_OBJECT(attrs))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("rosters query column \"attributes\" must hold JSON objects"),
					 errdetail("Roster %lld has another value.", (long long) x->id)));
		for (int a = 0; a < cfg->nattrs; a++)
		{
			const MmAttrDecl *d = &cfg->attrs[a];
			JsonbValue *v = attrs ? mm_jsonb_object_get(&attrs->root, d->name) : NULL;

			if (v == NULL || v->type == jbvNull)
				v = d->def;
			if (v == NULL)
			{
				if (strict && d->required)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("attribute \"%s\" is required", d->name),
							 errdetail("Roster %lld does not give it.", (long long) x->id)));
				x->attr[a].present = false;
				continue;
			}
			if (!read_value(d, v, &x->attr[a], rd) && strict)
				mm_rules_check_value(d, v, psprintf("roster %lld", (long long) x->id));
		}
	}
	if (cfg->latency_rule >= 0 && lat != NULL)
	{
		JsonbIterator *it;
		JsonbValue	e;
		JsonbIteratorToken tok;
		int			region = -1;
		int			cap = 8;
		int			key = 0;

		if (strict)
			check_latencies(lat);
		else if (!JB_ROOT_IS_OBJECT(lat))
			return;

		x->lat_region = palloc(sizeof(int) * cap);
		x->lat = palloc(sizeof(double) * cap);
		it = JsonbIteratorInit(&lat->root);
		/* at most MM_ROSTER_REGIONS_MAX (enqueue refuses more; a row written otherwise keeps its first) */
		while (x->nlat < MM_ROSTER_REGIONS_MAX && (tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
		{
			if (tok == WJB_KEY)
				region = region_of_key(rd, key++, e.val.string.val, e.val.string.len);
			else if (tok == WJB_VALUE && e.type == jbvNumeric)
			{
				double		ms = mm_numeric_float8(e.val.numeric);

				if (isnan(ms) || ms < 0)
					continue;
				if (x->nlat == cap)
				{
					cap *= 2;
					x->lat_region = repalloc(x->lat_region, sizeof(int) * cap);
					x->lat = repalloc(x->lat, sizeof(double) * cap);
				}
				x->lat_region[x->nlat] = region;
				x->lat[x->nlat++] = ms;
			}
		}
	}
}

static char **sort_names;

/* Sort a roster's latencies by region id (insertion sort: a few dozen at most). */
static void
sort_latencies(MmRoster *x)
{
	for (int k = 1; k < x->nlat; k++)
	{
		int			region = x->lat_region[k];
		double		ms = x->lat[k];
		int			j = k - 1;

		while (j >= 0 && x->lat_region[j] > region)
		{
			x->lat_region[j + 1] = x->lat_region[j];
			x->lat[j + 1] = x->lat[j];
			j--;
		}
		x->lat_region[j + 1] = region;
		x->lat[j + 1] = ms;
	}
}

static int
cmp_region_name(const void *a, const void *b)
{
	return strcmp(sort_names[*(const int *) a], sort_names[*(const int *) b]);
}

void
mm_rules_read_finish(MmRoster *r, int n, MmRuleReader *rd)
{
	int		   *order = palloc(sizeof(int) * Max(rd->nregions, 1));
	int		   *id = palloc(sizeof(int) * Max(rd->nregions, 1));
	char	  **names = palloc(sizeof(char *) * Max(rd->nregions, 1));

	/* region ids in name order (a tie between regions goes to the first name) */
	for (int k = 0; k < rd->nregions; k++)
		order[k] = k;
	sort_names = rd->region_names;
	qsort(order, rd->nregions, sizeof(int), cmp_region_name);
	for (int k = 0; k < rd->nregions; k++)
	{
		id[order[k]] = k;
		names[k] = rd->region_names[order[k]];
	}
	rd->region_names = names;
	rd->region_id = id;
	/* each roster's latencies by region id in name order, ascending */
	for (int i = 0; i < n; i++)
	{
		if (r[i].lat == NULL)
			continue;
		for (int k = 0; k < r[i].nlat; k++)
			r[i].lat_region[k] = id[r[i].lat_region[k]];
		sort_latencies(&r[i]);
	}
}

int
mm_rules_region_id(const MmRuleReader *rd, const char *name)
{
	char		key[NAMEDATALEN];
	InternEntry *e;

	if (rd == NULL || rd->regions == NULL || rd->region_id == NULL)
		return -1;
	strlcpy(key, name, sizeof(key));
	e = hash_search(rd->regions, key, HASH_FIND, NULL);
	return e ? rd->region_id[e->id] : -1;
}

/*
 * Read a roster's attributes and latencies as those of the rosters read by
 * rd (finished). A region none of them has is left out; *unknown (when
 * not NULL) is set when there is one.
 */
static void
read_more(const MmMatcherConfig *cfg, MmRoster *x, Jsonb *attrs, Jsonb *lat, MmRuleReader *rd,
		  bool *unknown)
{
	x->attr = NULL;
	x->lat = NULL;
	x->nlat = 0;
	if (rd == NULL || rd->values == NULL)
		return;
	if (cfg->nattrs > 0)
	{
		x->attr = palloc(sizeof(MmAttrValue) * cfg->nattrs);
		for (int a = 0; a < cfg->nattrs; a++)
		{
			const MmAttrDecl *d = &cfg->attrs[a];
			JsonbValue *v = attrs && JB_ROOT_IS_OBJECT(attrs) ? mm_jsonb_object_get(&attrs->root, d->name) : NULL;

			if (v == NULL || v->type == jbvNull)
				v = d->def;
			x->attr[a].present = false;
			if (v != NULL)
				(void) read_value(d, v, &x->attr[a], rd);
		}
	}
	if (cfg->latency_rule >= 0 && lat != NULL && JB_ROOT_IS_OBJECT(lat))
	{
		JsonbIterator *it = JsonbIteratorInit(&lat->root);
		JsonbValue	e;
		JsonbIteratorToken tok;
		int			region = -1;

		int			cap = Max(Min(JsonContainerSize(&lat->root), MM_ROSTER_REGIONS_MAX), 1);

		/* the regions the rosters read know, sparse (ids ascending) */
		x->lat = palloc(sizeof(double) * cap);
		x->lat_region = palloc(sizeof(int) * cap);
		while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
		{
			if (tok == WJB_KEY)
			{
				region = mm_rules_region_id(rd, pnstrdup(e.val.string.val,
														  Min(e.val.string.len, NAMEDATALEN - 1)));
				if (region < 0 && unknown != NULL)
					*unknown = true;
			}
			else if (tok == WJB_VALUE && e.type == jbvNumeric && region >= 0 && x->nlat < cap)
			{
				double		ms = mm_numeric_float8(e.val.numeric);

				if (!isnan(ms) && ms >= 0)
				{
					x->lat_region[x->nlat] = region;
					x->lat[x->nlat++] = ms;
				}
			}
		}
		sort_latencies(x);
	}
}

void
mm_rules_read_more(const MmMatcherConfig *cfg, MmRoster *x, Jsonb *attrs, Jsonb *lat,
				   MmRuleReader *rd)
{
	read_more(cfg, x, attrs, lat, rd, NULL);
}

void
mm_rules_read_known(const MmMatcherConfig *cfg, MmRoster *x, Jsonb *attrs, Jsonb *lat,
					MmRuleReader *rd, bool *unknown)
{
	read_more(cfg, x, attrs, lat, rd, unknown);
}

void
mm_rules_add_role(const MmMatcherConfig *cfg, MmRoster *x, const char *name, bool strict)
{
	int			role = mm_role_find(cfg, name);

	if (role < 0)
	{
		if (strict)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown role \"%s\"", name),
					 errdetail("Roster %lld has it.", (long long) x->id),
					 errhint("The queue declares: %s.", mm_role_list(cfg))));
		return;
	}
	if (x->role_count == NULL)
		x->role_count = palloc0(sizeof(int) * cfg->nroles);
	x->role_count[role]++;
}

void
mm_rules_read_roles(const MmMatcherConfig *cfg, MmRoster *x, ArrayType *roles, bool strict)
{
	Datum	   *elems;
	bool	   *nulls;
	int			n;

	x->role_count = NULL;
	if (cfg->nroles == 0 || roles == NULL)
		return;
	deconstruct_array(roles, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	for (int i = 0; i < n; i++)
	{
		text	   *t;
		int			len;
		int			role;

		if (nulls[i])
			continue;
		/* the declared role of that name, compared in place */
		t = DatumGetTextPP(elems[i]);
		len = VARSIZE_ANY_EXHDR(t);
		for (role = 0; role < cfg->nroles; role++)
			if (strncmp(cfg->roles[role], VARDATA_ANY(t), len) == 0 && cfg->roles[role][len] == '\0')
				break;
		if (role == cfg->nroles)
		{
			mm_rules_add_role(cfg, x, text_to_cstring(t), strict);
			continue;
		}
		if (x->role_count == NULL)
			x->role_count = palloc0(sizeof(int) * cfg->nroles);
		x->role_count[role]++;
	}
}
