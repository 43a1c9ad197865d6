/*-------------------------------------------------------------------------
 *
 * mm.c
 *		Module entry point of the mm extension and the argument checks shared
 *		by every feature file.
 *
 * _PG_init reserves the "mm." GUC prefix, so that a misspelled mm setting
 * is reported instead of silently becoming a placeholder.
 *
 *-------------------------------------------------------------------------
 */
#include "mm.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/* Load the module: reserve the GUC prefix. */
void
_PG_init(void)
{
	MarkGUCPrefixReserved("mm");
}

void
mm_check_finite(double value, const char *what)
{
	if (isnan(value))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must not be NaN", what)));
	if (isinf(value))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be finite", what),
				 errdetail("The value is %s.", value > 0 ? "Infinity" : "-Infinity")));
}

void
mm_check_positive(double value, const char *what)
{
	mm_check_finite(value, what);
	if (value <= 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be positive", what),
				 errdetail("The value is %g.", value)));
}

void
mm_check_nonnegative(double value, const char *what)
{
	mm_check_finite(value, what);
	if (value < 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must not be negative", what),
				 errdetail("The value is %g.", value)));
}

double
mm_check_result(double value, const char *what)
{
	if (isnan(value) || isinf(value))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s is out of range", what),
				 errdetail("The computation gave %s.",
						   isnan(value) ? "NaN" : (value > 0 ? "Infinity" : "-Infinity"))));
	return value;
}

/*
 * Deconstruct a one-dimensional array of a fixed-width by-value element
 * type, refusing NULL elements. Returns the element count and the Datums.
 */
static int
deconstruct_strict(ArrayType *array, Oid elemtype, const char *what,
				   Datum **datums)
{
	int16		typlen;
	bool		typbyval;
	char		typalign;
	bool	   *nulls;
	int			n;

	if (ARR_NDIM(array) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s must be a one-dimensional array", what),
				 errdetail("The array has %d dimensions.", ARR_NDIM(array))));
	if (ARR_ELEMTYPE(array) != elemtype)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s has the wrong element type", what)));
	if (ARR_NDIM(array) == 0)
	{
		*datums = NULL;
		return 0;
	}
	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	deconstruct_array(array, elemtype, typlen, typbyval, typalign,
					  datums, &nulls, &n);
	for (int i = 0; i < n; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s must not contain NULL elements", what),
					 errdetail("Element %d is NULL.", i + 1)));
	}
	pfree(nulls);
	return n;
}

int
mm_float8_array(ArrayType *array, const char *what, double **values)
{
	Datum	   *datums;
	int			n = deconstruct_strict(array, FLOAT8OID, what, &datums);

	*values = NULL;
	if (n == 0)
		return 0;
	*values = palloc(sizeof(double) * n);
	for (int i = 0; i < n; i++)
		(*values)[i] = DatumGetFloat8(datums[i]);
	pfree(datums);
	return n;
}

int
mm_int4_array(ArrayType *array, const char *what, int32 **values)
{
	Datum	   *datums;
	int			n = deconstruct_strict(array, INT4OID, what, &datums);

	*values = NULL;
	if (n == 0)
		return 0;
	*values = palloc(sizeof(int32) * n);
	for (int i = 0; i < n; i++)
		(*values)[i] = DatumGetInt32(datums[i]);
	pfree(datums);
	return n;
}

int
mm_int8_array(ArrayType *array, const char *what, int64 **values)
{
	Datum	   *datums;
	int			n = deconstruct_strict(array, INT8OID, what, &datums);

	*values = NULL;
	if (n == 0)
		return 0;
	*values = palloc(sizeof(int64) * n);
	for (int i = 0; i < n; i++)
		(*values)[i] = DatumGetInt64(datums[i]);
	pfree(datums);
	return n;
}
