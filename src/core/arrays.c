/*-------------------------------------------------------------------------
 *
 * arrays.c
 *		The one home of mm's conversions between SQL arrays and C arrays:
 *		readers that refuse what a one-dimensional array of the right type
 *		without NULLs would not be (mm_float8_array and its siblings), and
 *		builders of one-dimensional arrays from C arrays (mm_*_array_datum,
 *		mm_id_array). Declared in mm.h.
 *
 *-------------------------------------------------------------------------
 */
#include "mm.h"

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

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

int
mm_text_array(ArrayType *array, const char *what, Datum **values)
{
	return deconstruct_strict(array, TEXTOID, what, values);
}

/* A one-dimensional array of n Datums, NULL where isnull[i] (isnull may be NULL). */
static Datum
array_datum(Datum *d, const bool *isnull, int n, Oid type, int len, bool byval, char align)
{
	int			dims[1] = {n};
	int			lbs[1] = {1};

	return PointerGetDatum(construct_md_array(d, (bool *) isnull, 1, dims, lbs,
											  type, len, byval, align));
}

Datum
mm_float8_array_datum(int n, const double *v, const bool *isnull)
{
	Datum	   *d = palloc(sizeof(Datum) * Max(n, 1));

	for (int i = 0; i < n; i++)
		d[i] = Float8GetDatum(v[i]);
	return array_datum(d, isnull, n, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE);
}

Datum
mm_int4_array_datum(int n, const int32 *v, const bool *isnull)
{
	Datum	   *d = palloc(sizeof(Datum) * Max(n, 1));

	for (int i = 0; i < n; i++)
		d[i] = Int32GetDatum(v[i]);
	return array_datum(d, isnull, n, INT4OID, 4, true, TYPALIGN_INT);
}

Datum
mm_int8_array_datum(int n, const int64 *v)
{
	Datum	   *d = palloc(sizeof(Datum) * Max(n, 1));

	for (int i = 0; i < n; i++)
		d[i] = Int64GetDatum(v[i]);
	return array_datum(d, NULL, n, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE);
}

Datum
mm_bool_array_datum(int n, const bool *v)
{
	Datum	   *d = palloc(sizeof(Datum) * Max(n, 1));

	for (int i = 0; i < n; i++)
		d[i] = BoolGetDatum(v[i]);
	return array_datum(d, NULL, n, BOOLOID, 1, true, TYPALIGN_CHAR);
}

Datum
mm_text_array_datum(int n, char *const *v)
{
	Datum	   *d = palloc(sizeof(Datum) * Max(n, 1));
	bool	   *isnull = palloc(sizeof(bool) * Max(n, 1));

	for (int i = 0; i < n; i++)
	{
		isnull[i] = v[i] == NULL;
		d[i] = isnull[i] ? (Datum) 0 : CStringGetTextDatum(v[i]);
	}
	return array_datum(d, isnull, n, TEXTOID, -1, false, TYPALIGN_INT);
}

Datum
mm_text_datums_array(int n, Datum *texts)
{
	return array_datum(texts, NULL, n, TEXTOID, -1, false, TYPALIGN_INT);
}

/* A bigint[] of n ids. */
Datum
mm_id_array(const int64 *ids, int n)
{
	return mm_int8_array_datum(n, ids);
}
