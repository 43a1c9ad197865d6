/*-------------------------------------------------------------------------
 *
 * replay.c
 *		The streaming replay driver (see replay.h): one executor run of
 *		the user's ordered query, its rows handed straight to the driver
 *		(a DestReceiver), one call per match, bounded memory.
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

/* State of one run; the executor hands it the query's rows. */
typedef struct Replay
{
	DestReceiver pub;			/* first: the executor's view of it */
	const MmReplaySpec *spec;
	int			ncolumns;		/* columns after the key in the query */
	Oid			types[MM_REPLAY_MAX_COLUMNS + 1];
	bool		checked;		/* the columns were checked (first row) */
	bool		int_key;
	Oid			keytype;
	Oid			key_out;
	/*
	 * Integer keys of the matches handed over: while each key is greater
	 * than the one before (a history ordered by its key), only the last is
	 * needed, as none before it can come again unseen; the first key out
	 * of order starts keeping them all, from the keys array, in seen_ints.
	 */
	int64	   *keys;			/* the keys in order, while ascending */
	int64		nkeys;
	int64		maxkeys;
	bool		ascending;		/* every key so far greater than the last */
	MmReplayIds seen_ints;
	HTAB	   *seen_texts;		/* other keys, by their text */
	MemoryContext caller;		/* the context mm_replay_run was called in */
	ErrorContextCallback *outer_context;	/* the caller's error context */
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

void
mm_replay_ids_init(MmReplayIds *t)
{
	t->cxt = CurrentMemoryContext;
	t->mask = 1023;
	t->count = 0;
	t->slots = MemoryContextAllocZero(t->cxt, sizeof(MmReplayIdSlot) * (t->mask + 1));
}

void
mm_replay_ids_grow(MmReplayIds *t)
{
	MmReplayIdSlot *old = t->slots;
	uint64		nold = t->mask + 1;

	t->mask = 2 * nold - 1;
	t->slots = MemoryContextAllocExtended(t->cxt, sizeof(MmReplayIdSlot) * 2 * nold,
										  MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	for (uint64 j = 0; j < nold; j++)
	{
		uint64		i;

		if (old[j].index == 0)
			continue;
		for (i = mm_replay_ids_slot(t, old[j].id); t->slots[i].index != 0; i = (i + 1) & t->mask)
			;
		t->slots[i] = old[j];
	}
	pfree(old);
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

/* An integer-typed value as int64 (false for other types). */
static bool
replay_integer(Datum d, Oid type, int64 *v)
{
	switch (type)
	{
		case INT2OID:
			*v = DatumGetInt16(d);
			return true;
		case INT4OID:
			*v = DatumGetInt32(d);
			return true;
		case INT8OID:
			*v = DatumGetInt64(d);
			return true;
	}
	return false;
}

double
mm_replay_number(Datum d, Oid type, const char *what)
{
	int64		v;

	if (replay_integer(d, type, &v))
		return (double) v;
	switch (type)
	{
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
	int64		v;

	if (replay_integer(d, type, &v))
		return v;
	switch (type)
	{
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
replay_value(Replay *r, Datum d, bool isnull, int c, MmReplayRow *out)
{
	const MmReplayColumn *col = &r->spec->columns[c];
	Oid			t = r->types[c];

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
			/* the common case without a call */
			out->ival[c] = t == INT8OID ? DatumGetInt64(d) :
				(t == INT4OID ? DatumGetInt32(d) : mm_replay_whole(d, t, col->name, r->row));
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

/* Whether an integer key was seen before; remember it. */
static bool
replay_seen_int(Replay *r, int64 k)
{
	bool		found;

	if (r->ascending && (r->nkeys == 0 || k > r->keys[r->nkeys - 1]))
	{
		if (r->nkeys == r->maxkeys)
		{
			r->maxkeys *= 2;
			r->keys = repalloc_huge(r->keys, sizeof(int64) * r->maxkeys);
		}
		r->keys[r->nkeys++] = k;
		return false;
	}
	if (r->ascending)
	{
		/* the first key out of order: from now on, keep them all */
		MemoryContext old = MemoryContextSwitchTo(r->keep);

		mm_replay_ids_init(&r->seen_ints);
		MemoryContextSwitchTo(old);
		for (int64 i = 0; i < r->nkeys; i++)
			(void) mm_replay_ids_get(&r->seen_ints, r->keys[i], &found);
		pfree(r->keys);
		r->keys = NULL;
		r->ascending = false;
	}
	(void) mm_replay_ids_get(&r->seen_ints, k, &found);
	return found;
}

/* A new key starts a match: refuse a key seen before. */
static void
replay_new_key(Replay *r, const void *key)
{
	bool		found;

	if (r->int_key)
		found = replay_seen_int(r, *(const int64 *) key);
	else
		hash_search(r->seen_texts, key, HASH_ENTER, &found);
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
replay_key(Replay *r, Datum d, bool isnull)
{
	Oid			keytype = r->keytype;

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

/* The first row: check the columns against the spec, once. */
static void
replay_first(Replay *r, TupleDesc desc)
{
	HASHCTL		ctl;

	replay_check_columns(r, desc);
	if (r->spec->keyed)
	{
		r->keytype = SPI_gettypeid(desc, 1);
		if (r->int_key)
		{
			r->ascending = true;
			r->maxkeys = 1024;
			r->keys = MemoryContextAllocHuge(r->keep, sizeof(int64) * r->maxkeys);
		}
		else
		{
			memset(&ctl, 0, sizeof(ctl));
			ctl.hcxt = r->keep;
			ctl.keysize = sizeof(char *);
			ctl.entrysize = sizeof(char *);
			ctl.hash = seen_text_hash;
			ctl.match = seen_text_match;
			r->seen_texts = hash_create("mm replay seen keys", 1024, &ctl,
										HASH_ELEM | HASH_FUNCTION | HASH_COMPARE | HASH_CONTEXT);
		}
	}
	r->checked = true;
}

/* One row of the query, as the executor produced it. */
static bool
replay_receive(TupleTableSlot *slot, DestReceiver *self)
{
	Replay	   *r = (Replay *) self;
	const MmReplaySpec *spec = r->spec;
	int			first = spec->keyed ? 1 : 0;
	MemoryContext old = MemoryContextSwitchTo(r->caller);
	ErrorContextCallback *executor = error_context_stack;
	MmReplayRow *row;

	/*
	 * Errors about a row name it and its column: they are the caller's
	 * errors, without SPI's "SQL statement" context line (the query's own
	 * errors keep it). An error longjmps to a handler that restores the
	 * stack.
	 */
	error_context_stack = r->outer_context;

	if (!r->checked)
		replay_first(r, slot->tts_tupleDescriptor);
	slot_getallattrs(slot);
	r->row++;
	if (spec->row_column >= 0 && !slot->tts_isnull[first + spec->row_column])
		r->row = DatumGetInt64(slot->tts_values[first + spec->row_column]);
	if (spec->keyed)
		replay_key(r, slot->tts_values[0], slot->tts_isnull[0]);
	if (r->nrows == r->maxrows)
	{
		r->maxrows *= 2;
		r->rows = repalloc(r->rows, sizeof(MmReplayRow) * r->maxrows);
	}
	row = &r->rows[r->nrows++];
	row->row = r->row;
	/* what reading a value allocates (numeric) goes with the match */
	MemoryContextSwitchTo(r->matchcxt);
	for (int c = 0; c < r->ncolumns; c++)
		replay_value(r, slot->tts_values[first + c], slot->tts_isnull[first + c], c, row);
	MemoryContextSwitchTo(r->caller);
	if (!spec->keyed)
		replay_flush(r);
	MemoryContextSwitchTo(old);
	error_context_stack = executor;
	/* false ends the executor's run */
	return !(spec->stop && *spec->stop);
}

static void
replay_startup(DestReceiver *self pg_attribute_unused(), int operation pg_attribute_unused(),
			   TupleDesc typeinfo pg_attribute_unused())
{
}

static void
replay_shutdown(DestReceiver *self pg_attribute_unused())
{
}

int64
mm_replay_run(const MmReplaySpec *spec, SPIPlanPtr plan, int *ncolumns)
{
	Replay		r;
	Assert(spec->ncolumns <= MM_REPLAY_MAX_COLUMNS);
	memset(&r, 0, sizeof(r));
	r.pub.receiveSlot = replay_receive;
	r.pub.rStartup = replay_startup;
	r.pub.rShutdown = replay_shutdown;
	r.pub.rDestroy = replay_shutdown;
	r.pub.mydest = DestNone;	/* SPI keeps none of the rows */
	r.spec = spec;
	r.caller = CurrentMemoryContext;
	r.outer_context = error_context_stack;
	r.keep = AllocSetContextCreate(CurrentMemoryContext, "mm replay keys",
								   ALLOCSET_DEFAULT_SIZES);
	r.matchcxt = AllocSetContextCreate(CurrentMemoryContext, "mm replay match",
									   ALLOCSET_DEFAULT_SIZES);
	r.maxrows = 16;
	r.rows = MemoryContextAlloc(r.keep, sizeof(MmReplayRow) * r.maxrows);

	mm_run_rows_query(plan, &r.pub);
	if (!(spec->stop && *spec->stop))
		replay_flush(&r);
	MemoryContextSwitchTo(r.caller);
	MemoryContextDelete(r.keep);
	MemoryContextDelete(r.matchcxt);
	*ncolumns = r.checked ? r.ncolumns : 0;
	return r.m.number;
}
