/*-------------------------------------------------------------------------
 *
 * replay.c
 *		The streaming replay driver (see replay.h): a cursor over the
 *		user's ordered query, one call per match, bounded memory.
 *
 *-------------------------------------------------------------------------
 */
#include "replay.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/portal.h"

#define REPLAY_BATCH 10000

/* State of one run. */
typedef struct Replay
{
	const MmReplaySpec *spec;
	int			ncolumns;		/* columns after the key in the query */
	Oid			types[MM_REPLAY_MAX_COLUMNS + 1];
	bool		int_key;
	Oid			key_out;
	HTAB	   *seen;			/* keys of the matches already handed over */
	MemoryContext keep;			/* the seen keys and the rows array */
	MemoryContext matchcxt;		/* reset after each match */
	MmReplayRow *rows;
	int			nrows;
	int			maxrows;
	MmReplayMatch m;
	char	   *key_text;		/* current key (in keep) */
	bool		have_key;
	int64		row;			/* rows read */
} Replay;

static void replay_type_error(Oid type, const char *what, const char *cast);

/* String keys of the seen set: the entry is a pointer to the text. */
static uint32
seen_text_hash(const void *key, Size keysize pg_attribute_unused())
{
	const char *s = *(const char *const *) key;

	return string_hash(s, strlen(s) + 1);
}

static int
seen_text_match(const void *a, const void *b, Size keysize pg_attribute_unused())
{
	return strcmp(*(const char *const *) a, *(const char *const *) b);
}

HTAB *
mm_replay_players(const char *name, Size entrysize)
{
	HASHCTL		ctl;

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(int64);
	ctl.entrysize = entrysize;
	ctl.hcxt = CurrentMemoryContext;
	return hash_create(name, 1024, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
}

static int
replay_id_cmp(const void *a, const void *b)
{
	int64		x = **(int64 *const *) a;
	int64		y = **(int64 *const *) b;

	return x < y ? -1 : (x > y ? 1 : 0);
}

void	  **
mm_replay_sorted(HTAB *players, long *count)
{
	long		n = hash_get_num_entries(players);
	void	  **all = palloc(sizeof(void *) * Max(n, 1));
	HASH_SEQ_STATUS seq;
	void	   *e;

	n = 0;
	hash_seq_init(&seq, players);
	while ((e = hash_seq_search(&seq)) != NULL)
		all[n++] = e;
	qsort(all, n, sizeof(void *), replay_id_cmp);
	*count = n;
	return all;
}

int
mm_replay_query_columns(SPIPlanPtr plan)
{
	Portal		portal = SPI_cursor_open(NULL, plan, NULL, NULL, true);
	int			n = portal->tupDesc ? portal->tupDesc->natts : 0;

	SPI_cursor_close(portal);
	return n;
}

static bool
replay_is_integer(Oid type)
{
	return type == INT2OID || type == INT4OID || type == INT8OID;
}

static bool
replay_is_number(Oid type)
{
	return replay_is_integer(type) || type == FLOAT4OID ||
		type == FLOAT8OID || type == NUMERICOID;
}

/* Check the query's columns against the spec, once. */
static void
replay_check_columns(Replay *r, TupleDesc desc)
{
	const MmReplaySpec *spec = r->spec;
	int			first = spec->keyed ? 1 : 0;
	int			n = desc->natts - first;

	if (n < spec->nrequired || n > spec->ncolumns)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s query must return %s", spec->what, spec->shape),
				 errdetail("It returns %d columns.", desc->natts)));
	r->ncolumns = n;
	if (spec->keyed)
	{
		Oid			kt = SPI_gettypeid(desc, 1);
		bool		varlena;

		r->int_key = replay_is_integer(kt);
		getTypeOutputInfo(kt, &r->key_out, &varlena);
	}
	for (int c = 0; c < n; c++)
	{
		const MmReplayColumn *col = &spec->columns[c];
		Oid			t = SPI_gettypeid(desc, first + c + 1);

		r->types[c] = t;
		if (col->type == MM_REPLAY_TIME && t != TIMESTAMPTZOID)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("column %s must be of type timestamptz", col->name),
					 errdetail("It is of type %s.", format_type_be(t)),
					 errhint("Cast it, e.g. %s::timestamptz.", col->name)));
		if (col->type != MM_REPLAY_TIME && !replay_is_number(t))
			replay_type_error(t, col->name,
							  col->type == MM_REPLAY_WHOLE ? "bigint" : "float8");
	}
}

static void
replay_type_error(Oid type, const char *what, const char *cast)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("column %s must be of a numeric type", what),
			 errdetail("It is of type %s.", format_type_be(type)),
			 errhint("Cast it, e.g. %s::%s.", what, cast)));
}

double
mm_replay_number(Datum d, Oid type, const char *what)
{
	switch (type)
	{
		case INT2OID:
			return DatumGetInt16(d);
		case INT4OID:
			return DatumGetInt32(d);
		case INT8OID:
			return (double) DatumGetInt64(d);
		case FLOAT4OID:
			return DatumGetFloat4(d);
		case FLOAT8OID:
			return DatumGetFloat8(d);
		case NUMERICOID:
			return DatumGetFloat8(DirectFunctionCall1(numeric_float8, d));
	}
	replay_type_error(type, what, "float8");
	return 0.0;					/* not reached */
}

int64
mm_replay_whole(Datum d, Oid type, const char *what, int64 row)
{
	double		x;

	switch (type)
	{
		case INT2OID:
			return DatumGetInt16(d);
		case INT4OID:
			return DatumGetInt32(d);
		case INT8OID:
			return DatumGetInt64(d);
		case FLOAT4OID:
		case FLOAT8OID:
		case NUMERICOID:
			break;
		default:
			replay_type_error(type, what, "bigint");
	}
	x = mm_replay_number(d, type, what);
	if (!(x == floor(x) && x >= -9.2e18 && x <= 9.2e18))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("column %s must hold whole numbers", what),
				 errdetail("Row " INT64_FORMAT " has %s %g.", row, what, x)));
	return (int64) x;
}

/* Read one column of a row into out. */
static void
replay_value(Replay *r, HeapTuple tup, TupleDesc desc, int c, MmReplayRow *out)
{
	const MmReplayColumn *col = &r->spec->columns[c];
	int			attno = (r->spec->keyed ? 2 : 1) + c;
	Oid			t = r->types[c];
	bool		isnull;
	Datum		d = SPI_getbinval(tup, desc, attno, &isnull);

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("column %s of the %s must not be NULL", col->name, r->spec->what),
				 errdetail("Row " INT64_FORMAT " has a NULL %s.", r->row, col->name),
				 errhint("Filter such rows out of the %s query.", r->spec->what)));
	switch (col->type)
	{
		case MM_REPLAY_TIME:
			out->ival[c] = DatumGetTimestampTz(d);
			if (TIMESTAMP_NOT_FINITE(out->ival[c]))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("column %s must be finite", col->name),
						 errdetail("Row " INT64_FORMAT " has %sinfinity.", r->row,
								   TIMESTAMP_IS_NOBEGIN(out->ival[c]) ? "-" : "")));
			break;
		case MM_REPLAY_WHOLE:
			out->ival[c] = mm_replay_whole(d, t, col->name, r->row);
			out->fval[c] = (double) out->ival[c];
			break;
		case MM_REPLAY_NUMBER:
			out->fval[c] = mm_replay_number(d, t, col->name);
			break;
	}
}

/* Hand the collected match over and start a new one. */
static void
replay_flush(Replay *r)
{
	MemoryContext old;

	if (r->nrows == 0)
		return;
	r->m.number++;
	r->m.ncolumns = r->ncolumns;
	r->m.nrows = r->nrows;
	r->m.rows = r->rows;
	r->m.int_key = r->int_key;
	r->m.key_text = r->key_text;
	old = MemoryContextSwitchTo(r->matchcxt);
	r->spec->match(r->spec->arg, &r->m);
	MemoryContextSwitchTo(old);
	MemoryContextReset(r->matchcxt);
	r->nrows = 0;
	if ((r->m.number & 0x3FF) == 0)
		CHECK_FOR_INTERRUPTS();
}

/* A new key starts a match: refuse a key seen before. */
static void
replay_new_key(Replay *r, const void *key)
{
	bool		found;

	hash_search(r->seen, key, HASH_ENTER, &found);
	if (found)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the rows of a match must be consecutive in the %s", r->spec->what),
				 errdetail("Row " INT64_FORMAT " starts match %s again after other matches.",
						   r->row, r->int_key ? psprintf(INT64_FORMAT, r->m.key_int) :
						   *(const char *const *) key),
				 errhint("Order the %s query by the match key (after the time, if any), "
						 "e.g. ORDER BY played_at, match_id.", r->spec->what)));
}

/* Read the key of a row; flush the match if it starts a new one. */
static void
replay_key(Replay *r, HeapTuple tup, TupleDesc desc, Oid keytype)
{
	bool		isnull;
	Datum		d = SPI_getbinval(tup, desc, 1, &isnull);

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("column match key of the %s must not be NULL", r->spec->what),
				 errdetail("Row " INT64_FORMAT " has a NULL match key.", r->row),
				 errhint("Filter such rows out of the %s query.", r->spec->what)));
	if (r->int_key)
	{
		int64		k = keytype == INT8OID ? DatumGetInt64(d) :
		(keytype == INT4OID ? DatumGetInt32(d) : DatumGetInt16(d));

		if (r->have_key && k == r->m.key_int)
			return;
		replay_flush(r);
		r->m.key_int = k;
		replay_new_key(r, &k);
	}
	else
	{
		char	   *s = OidOutputFunctionCall(r->key_out, d);
		MemoryContext old;

		if (r->have_key && strcmp(s, r->key_text) == 0)
		{
			pfree(s);
			return;
		}
		replay_flush(r);
		old = MemoryContextSwitchTo(r->keep);
		r->key_text = pstrdup(s);
		MemoryContextSwitchTo(old);
		pfree(s);
		replay_new_key(r, &r->key_text);
	}
	r->have_key = true;
}

static void
replay_init(Replay *r, const MmReplaySpec *spec)
{
	HASHCTL		ctl;

	Assert(spec->ncolumns <= MM_REPLAY_MAX_COLUMNS);
	memset(r, 0, sizeof(*r));
	r->spec = spec;
	r->keep = AllocSetContextCreate(CurrentMemoryContext, "mm replay keys",
									ALLOCSET_DEFAULT_SIZES);
	r->matchcxt = AllocSetContextCreate(CurrentMemoryContext, "mm replay match",
										ALLOCSET_DEFAULT_SIZES);
	r->maxrows = 16;
	r->rows = MemoryContextAlloc(r->keep, sizeof(MmReplayRow) * r->maxrows);
	memset(&ctl, 0, sizeof(ctl));
	ctl.hcxt = r->keep;
	ctl.keysize = sizeof(int64);	/* an int64 or a char * */
	ctl.entrysize = sizeof(int64);
	if (spec->keyed)
		r->seen = hash_create("mm replay seen keys", 1024, &ctl,
							  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
}

/* Switch the seen set to text keys (a non-integer key column). */
static void
replay_text_keys(Replay *r)
{
	HASHCTL		ctl;

	memset(&ctl, 0, sizeof(ctl));
	ctl.hcxt = r->keep;
	ctl.keysize = sizeof(char *);
	ctl.entrysize = sizeof(char *);
	ctl.hash = seen_text_hash;
	ctl.match = seen_text_match;
	hash_destroy(r->seen);
	r->seen = hash_create("mm replay seen keys", 1024, &ctl,
						  HASH_ELEM | HASH_FUNCTION | HASH_COMPARE | HASH_CONTEXT);
}

int64
mm_replay_run(const MmReplaySpec *spec, SPIPlanPtr plan, int *ncolumns)
{
	Replay		r;
	Portal		portal;
	bool		checked = false;
	Oid			keytype = InvalidOid;
	MemoryContext caller = CurrentMemoryContext;

	replay_init(&r, spec);
	portal = SPI_cursor_open(NULL, plan, NULL, NULL, true);
	for (;;)
	{
		TupleDesc	desc;

		SPI_cursor_fetch(portal, true, REPLAY_BATCH);
		if (SPI_processed == 0)
			break;
		desc = SPI_tuptable->tupdesc;
		MemoryContextSwitchTo(caller);
		if (!checked)
		{
			replay_check_columns(&r, desc);
			if (spec->keyed)
			{
				keytype = SPI_gettypeid(desc, 1);
				if (!r.int_key)
					replay_text_keys(&r);
			}
			checked = true;
		}
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			HeapTuple	tup = SPI_tuptable->vals[i];
			MmReplayRow *row;

			r.row++;
			if (spec->row_column >= 0)
			{
				bool		isnull;
				Datum		d = SPI_getbinval(tup, desc, (spec->keyed ? 2 : 1) + spec->row_column,
											  &isnull);

				if (!isnull)
					r.row = DatumGetInt64(d);
			}
			if (spec->keyed)
				replay_key(&r, tup, desc, keytype);
			if (r.nrows == r.maxrows)
			{
				r.maxrows *= 2;
				r.rows = repalloc(r.rows, sizeof(MmReplayRow) * r.maxrows);
			}
			row = &r.rows[r.nrows++];
			row->row = r.row;
			/* what reading a value allocates (numeric) goes with the match */
			MemoryContextSwitchTo(r.matchcxt);
			for (int c = 0; c < r.ncolumns; c++)
				replay_value(&r, tup, desc, c, row);
			MemoryContextSwitchTo(caller);
			if (!spec->keyed)
				replay_flush(&r);
			if (spec->stop && *spec->stop)
				break;
		}
		SPI_freetuptable(SPI_tuptable);
		if (spec->stop && *spec->stop)
			break;
	}
	if (!(spec->stop && *spec->stop))
		replay_flush(&r);
	SPI_cursor_close(portal);
	MemoryContextDelete(r.keep);
	MemoryContextDelete(r.matchcxt);
	*ncolumns = checked ? r.ncolumns : 0;
	return r.m.number;
}
