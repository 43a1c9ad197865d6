/*-------------------------------------------------------------------------
 *
 * rating_config.c
 *		The "rating" section of a queue config (rating_model.h's
 *		MmRatingConfig): its keys, read by the config spine, and its
 *		checks, among them the family's own options ("rating.options"),
 *		read with the keys the family declares once the family is known.
 *
 * The queue config nests this section (queue_config.c); the replays of
 * rating_replay.c and the roster ratings of rating_model.c read it alone,
 * so that no rating code needs the queue's config.
 *
 *-------------------------------------------------------------------------
 */
#include "rating_model.h"
#include "config.h"

#include "utils/builtins.h"
#include "utils/jsonb.h"

#define BIG 1e15
#define RK(field) offsetof(MmRatingConfig, field)

/*
 * "rating.options": an object kept as given here, and read by the keys of
 * the section's family when the section is checked (the family is known
 * only then).
 */
static void
rating_options_parse(JsonbValue *v, void *base, const char *what, const char *path)
{
	MmRatingConfig *rc = base;

	if (v == NULL)
	{
		rc->options_json = NULL;
		return;
	}
	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s key \"%s\" must be an object", what, path),
				 errhint("Give the rating family's options, such as {\"k\": 24} for Elo.")));
	rc->options_json = JsonbValueToJsonb(v);
}

/* The family's options with their defaults; {} for a family without any. */
static void
rating_options_render(StringInfo buf, const void *base)
{
	const MmRatingConfig *rc = base;
	const MmRatingModel *model = rc->model ? mm_rating_model_find(rc->model) : NULL;

	void	   *options = rc->options;

	if (model == NULL || model->options == NULL)
	{
		appendStringInfoString(buf, "{}");
		return;
	}
	if (options == NULL)
	{
		/* not read yet (the defaults of mm.config_keys): the family's defaults */
		options = palloc0(model->options_size);
		mm_config_defaults(model->options, options);
	}
	mm_config_render(buf, model->options, options);
}

const MmConfigKey mm_rating_config_keys[] = {
	{.name = "model", .type = MM_CONFIG_TEXT, .offset = RK(model),
		.def_text = "openskill",
	.doc = "the rating family by name (Ratings lists them)"},
	{.name = "key", .type = MM_CONFIG_TEXT, .offset = RK(key),
		.def_text = "ranked",
	.doc = "the rating_key of the mm.ratings rows"},
	{.name = "ladder", .type = MM_CONFIG_BOOL, .offset = RK(ladder), .def = 1,
	.doc = "award ladder points"},
	{.name = "season_start", .type = MM_CONFIG_TEXT, .flags = MM_CONFIG_NULLABLE,
		.offset = RK(season_start), .null_offset = RK(season_start_null),
		.def_null = true,
	.doc = "ladder season start (null: none)"},
	{.name = "season_end", .type = MM_CONFIG_TEXT, .flags = MM_CONFIG_NULLABLE,
		.offset = RK(season_end), .null_offset = RK(season_end_null),
		.def_null = true,
	.doc = "ladder season end (null: none)"},
	{.name = "desertion_reason", .type = MM_CONFIG_TEXT, .flags = MM_CONFIG_NULLABLE,
		.offset = RK(desertion_reason), .null_offset = RK(desertion_reason_null),
		.def_text = "abandon",
	.doc = "dishonor reason a deserter gets (null: no dishonor)"},
	{.name = "profession_ratio", .type = MM_CONFIG_FLOAT, .offset = RK(profession_ratio),
		.min = 0, .max = 1, .def = 0,
	.doc = "0 the core rating only; above 0 also profession ratings, blended by this ratio"},
	{.name = "options", .type = MM_CONFIG_CUSTOM,
		.parse = rating_options_parse, .render = rating_options_render,
	.doc = "the options of the rating family (rating.model): its own keys, defaults filled in"},
	{.name = "period", .type = MM_CONFIG_TEXT, .offset = RK(period),
		.def_text = "game",
	.doc = "game (each report rates its game) or pending (rating periods, for families that have them)"},
	{.name = "calibration", .type = MM_CONFIG_INT, .flags = MM_CONFIG_NULLABLE,
		.offset = RK(calibration), .null_offset = RK(calibration_null),
		.min = 1, .max = 1000000000, .def = 500, .unit = "results",
	.doc = "the odds stored with a match are the family's scaled by what the queue's last results (about this many) taught it (null: the family's own odds)"},
	{.name = NULL}
};

#undef RK

void *
mm_rating_options_read(const MmRatingModel *model, Jsonb *given, const char *what,
					   const char *path)
{
	void	   *options = NULL;
	const char *label = path ? psprintf("%s key \"%s\"", what, path) : what;

	if (given != NULL && (!JB_ROOT_IS_OBJECT(given) || JB_ROOT_IS_SCALAR(given)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a JSON object", label),
				 errhint("Give the rating family's options, such as {\"k\": 24} for Elo.")));
	if (model->options != NULL)
	{
		options = palloc0(model->options_size);
		mm_config_defaults(model->options, options);
		if (given != NULL)
		{
			JsonbValue	v;

			v.type = jbvBinary;
			v.val.binary.data = &given->root;
			v.val.binary.len = VARSIZE(given) - VARHDRSZ;
			mm_config_parse_value(&v, what, path, model->options, options);
		}
	}
	else if (given != NULL && JsonContainerSize(&given->root) > 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be empty for model \"%s\"", label, model->name),
				 errdetail("The value is %s.", JsonbToCString(NULL, &given->root, -1)),
				 errhint("The family has no options.")));
	/* the family refuses options that its keys' ranges let through */
	(void) model->queue_params(options);
	return options;
}

void
mm_rating_config_check(MmRatingConfig *rc, const char *what)
{
	const MmRatingModel *model = mm_rating_model_find(rc->model);

	if (model == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s key \"rating.model\" is invalid", what),
				 errdetail("The value is \"%s\".", rc->model),
				 errhint("Use %s.", mm_rating_model_names())));
	rc->options = mm_rating_options_read(model, rc->options_json, what, "rating.options");
	if (rc->key[0] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s key \"rating.key\" must not be empty", what),
				 errhint("Name the rating, such as \"ranked\".")));
	mm_config_check_name(what, "rating.key", rc->key);
	if (!rc->desertion_reason_null)
	{
		mm_config_check_name(what, "rating.desertion_reason", rc->desertion_reason);
		if (rc->desertion_reason[0] == '\0')
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s key \"rating.desertion_reason\" must not be empty", what),
					 errhint("Name a reason of the dishonor config, or null for no dishonor.")));
	}
	if (strcmp(rc->period, "game") != 0 && strcmp(rc->period, "pending") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s key \"rating.period\" is invalid", what),
				 errdetail("The value is \"%s\".", rc->period),
				 errhint("Use \"game\" (each result rates its game) or \"pending\" "
						 "(Glicko-2 rating periods closed by mm.close_rating_period).")));
	rc->pending_period = strcmp(rc->period, "pending") == 0;
	if (rc->pending_period && (!model->rating_periods || rc->profession_ratio > 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s key \"rating.period\" \"pending\" needs model \"glicko2\" and no profession_ratio",
						what),
				 errdetail("The model is \"%s\" and profession_ratio is %g.",
						   rc->model, rc->profession_ratio),
				 errhint("Rating periods are Glicko-2's; profession ratings are rated per game.")));
}

void
mm_rating_config_read(Jsonb *queue_config, MmRatingConfig *rc)
{
	JsonbValue *v = NULL;

	memset(rc, 0, sizeof(*rc));
	mm_config_defaults(mm_rating_config_keys, rc);
	if (queue_config != NULL && JB_ROOT_IS_OBJECT(queue_config) && !JB_ROOT_IS_SCALAR(queue_config))
		v = mm_jsonb_object_get(&queue_config->root, "rating");
	if (v != NULL)
	{
		if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("queue config key \"rating\" must be an object")));
		mm_config_parse_value(v, "queue config", "rating", mm_rating_config_keys, rc);
	}
	mm_rating_config_check(rc, "queue config");
}
