/*-------------------------------------------------------------------------
 *
 * gw2_common.c
 *		Small helpers shared by the GW2 files (prediction, ladder, dishonor):
 *		jsonb lookups for the config parts that mm_config_parse cannot read
 *		(arrays, free-form objects), text settings read by a type's input
 *		function, and composite result rows.
 *
 *-------------------------------------------------------------------------
 */
#include "gw2.h"

#include "access/htup_details.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"

JsonbValue *
mm_gw2_object_get(JsonbContainer *container, const char *name)
{
	JsonbValue	key;

	if (!JsonContainerIsObject(container))
		return NULL;
	key.type = jbvString;
	key.val.string.val = (char *) name;
	key.val.string.len = strlen(name);
	return findJsonbValueFromContainer(container, JB_FOBJECT, &key);
}

Jsonb *
mm_gw2_jsonb_without(Jsonb *object, const char *name)
{
	return DatumGetJsonbP(DirectFunctionCall2(jsonb_delete, JsonbPGetDatum(object),
											  CStringGetTextDatum(name)));
}

/* Error context naming the config key whose text is being read. */
static void
text_setting_context(void *arg)
{
	errcontext("%s", (const char *) arg);
}

Datum
mm_gw2_text_setting(PGFunction input, const char *text, const char *what,
					const char *key)
{
	ErrorContextCallback ctx;
	Datum		result;

	ctx.callback = text_setting_context;
	ctx.arg = psprintf("%s key \"%s\"", what, key);
	ctx.previous = error_context_stack;
	error_context_stack = &ctx;
	result = DirectFunctionCall3(input, CStringGetDatum(text),
								 ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
	error_context_stack = ctx.previous;
	return result;
}

Datum
mm_gw2_result_row(FunctionCallInfo fcinfo, Datum *values, bool *nulls)
{
	TupleDesc	tupdesc;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("function returning record called in context that cannot accept type record")));
	tupdesc = BlessTupleDesc(tupdesc);
	return HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls));
}
