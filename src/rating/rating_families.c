/*-------------------------------------------------------------------------
 *
 * rating_families.c
 *		The list of rating families (rating_model.h), where mm looks a
 *		family up by name; a new family is one line here.
 *
 *-------------------------------------------------------------------------
 */
#include "rating_model.h"

#include "lib/stringinfo.h"

/* Every family; a new one is one line here. */
static const MmRatingModel *const rating_models[] = {
	&mm_openskill_model,
	&mm_glicko2_model,
	&mm_elo_model,
};

const MmRatingModel *
mm_rating_model_find(const char *name)
{
	for (size_t i = 0; i < lengthof(rating_models); i++)
		if (strcmp(rating_models[i]->name, name) == 0)
			return rating_models[i];
	return NULL;
}

const MmRatingModel *
mm_rating_model_at(int i)
{
	return i >= 0 && i < (int) lengthof(rating_models) ? rating_models[i] : NULL;
}

const char *
mm_rating_model_names(void)
{
	StringInfoData b;

	initStringInfo(&b);
	for (size_t i = 0; i < lengthof(rating_models); i++)
		appendStringInfo(&b, "%s\"%s\"",
						 i == 0 ? "" : (i + 1 < lengthof(rating_models) ? ", " : " or "),
						 rating_models[i]->name);
	return b.data;
}

const MmRatingModel *
mm_rating_model_of(const MmRatingConfig *rc)
{
	const MmRatingModel *model = mm_rating_model_find(rc->model);

	if (model == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("rating model \"%s\" is unknown", rc->model),
				 errhint("Use %s.", mm_rating_model_names())));
	return model;
}
