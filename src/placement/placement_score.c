/*-------------------------------------------------------------------------
 *
 * placement_score.c
 *		The score of one server for a joining player (placement.h): the
 *		player's values read once per ranking, then each signal's score
 *		from the server's row and its players' aggregates, as Roblox's
 *		matchmaking documentation defines them.
 *
 *-------------------------------------------------------------------------
 */
#include "placement.h"

#include <float.h>
#include <math.h>

#include "utils/builtins.h"
#include "utils/jsonb.h"

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
			s->region_ms[k] = place_numeric(&v);
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
void
mm_place_read_player(PlaceConfig *pc, Jsonb *player)
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
		v = place_json_get(&player->root, s->player_attribute, palloc(sizeof(JsonbValue)));
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
				s->player_num = place_numeric(v);
				break;
			case SIG_SERVER_CATEGORICAL_JOINING:
				if (!place_cat_read(v, &s->player_cat))
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

/* The stats of one player attribute on a server; NULL if no one has it. */
static JsonbContainer *
attr_stats(ServerRow *row, const char *attr)
{
	JsonbValue	buf;
	JsonbValue *v = place_json_get(row->stats, attr, &buf);

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
	v = place_json_get(st, "values", &buf);
	if (v == NULL || v->type != jbvBinary)
		return 0.0;
	v = place_json_get(v->val.binary.data, value, &buf);
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
	JsonbValue *v = place_json_get(st, key, &buf);

	if (v == NULL || v->type != jbvNumeric)
		return false;
	*out = place_numeric(v);
	return true;
}

static double
clamp_signal(double diff, double max)
{
	double		d = fabs(diff) / max;

	return 1.0 - (d < 1.0 ? d : 1.0);
}

/* Score one signal on one server: a number in [0, 1]. */
double
mm_place_score_signal(const Signal *s, ServerRow *row)
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
			v = place_json_get(row->attributes, "region", &buf);
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
			v = place_json_get(row->attributes, s->attribute, &buf);
			if (v == NULL || v->type != jbvNumeric)
				return 0.0;
			return clamp_signal(place_numeric(v) -
								(s->kind == SIG_SERVER_NUMERIC_JOINING ?
								 s->player_num : s->constant), s->maxdiff);
		case SIG_SERVER_CATEGORICAL_JOINING:
		case SIG_SERVER_CATEGORICAL_CONSTANT:
			v = place_json_get(row->attributes, s->attribute, &buf);
			if (v == NULL)
				return 0.0;
			return place_cat_equal(s->kind == SIG_SERVER_CATEGORICAL_JOINING ?
							 &s->player_cat : &s->cat_constant, v) ? 1.0 : 0.0;
	}
	return 0.0;
}
