/*-------------------------------------------------------------------------
 *
 * replay.h
 *		The streaming replay driver shared by the rating replays and
 *		histories (OpenSkill and Glicko-2).
 *
 * A replay runs a user's query once and hands the rating family one match
 * at a time: the consecutive rows that share a match key (or, for a query
 * without a key column, each row on its own). Memory is bounded by the
 * largest match plus what the caller keeps (its players' ratings) and the
 * seen keys below; each match is handled in a memory context that is reset
 * after it.
 *
 * One typing rule for every column: numbers may be of any numeric type
 * (smallint, integer, bigint, real, double precision, numeric); columns
 * that hold ids or team labels must hold whole numbers; times are
 * timestamptz; the match key may be of any type. Errors name the column
 * and the row (counted from 1 in the query's order).
 *
 * The rows of a match must be consecutive: a key that comes back after
 * another key is refused, naming the row. To know that, the driver keeps
 * the keys it has seen: for integer keys 8 bytes per match while they
 * ascend (a sorted array, nothing to look up), and from the first key out
 * of order on an open-addressing table (at most half full, 16-byte
 * slots); for other keys their text in a hash table.
 *
 * The query's rows go straight from the executor to the driver (a
 * DestReceiver): no row is copied, none is kept after its match.
 *
 *-------------------------------------------------------------------------
 */
#ifndef MM_REPLAY_H
#define MM_REPLAY_H

#include "mm.h"
#include "statement.h"

#include "executor/spi.h"
#include "utils/hsearch.h"
#include "utils/timestamp.h"

#define MM_REPLAY_MAX_COLUMNS 8

typedef enum MmReplayType
{
	MM_REPLAY_WHOLE,			/* any numeric type, whole numbers: ival */
	MM_REPLAY_NUMBER,			/* any numeric type: fval */
	MM_REPLAY_TIME				/* timestamptz, finite: ival */
} MmReplayType;

typedef struct MmReplayColumn
{
	const char *name;			/* named in errors */
	MmReplayType type;
} MmReplayColumn;

/* One row of a match, its columns after the key in query order. */
typedef struct MmReplayRow
{
	int64		row;			/* row number in the query, from 1 */
	int64		ival[MM_REPLAY_MAX_COLUMNS];
	double		fval[MM_REPLAY_MAX_COLUMNS];
} MmReplayRow;

/* The match handed to the rating family. */
typedef struct MmReplayMatch
{
	int64		number;			/* matches so far, this one included */
	int			ncolumns;		/* columns after the key in the query */
	int			nrows;
	const MmReplayRow *rows;
	bool		int_key;		/* the key is of an integer type */
	int64		key_int;		/* the key, if int_key */
	const char *key_text;		/* the key's text, if not int_key */
} MmReplayMatch;

typedef void (*MmReplayMatchFn) (void *arg, const MmReplayMatch *m);

typedef struct MmReplaySpec
{
	const char *what;			/* "history", "games": named in errors */
	const char *shape;			/* the columns it must return, for errors */
	bool		keyed;			/* the first column is the match key */
	const MmReplayColumn *columns;	/* the columns after the key */
	int			ncolumns;		/* all of them */
	int			nrequired;		/* the first nrequired must be present */
	int			row_column;		/* -1, or the bigint column after the key
								 * that numbers the rows for errors (a
								 * query the replay wrapped to sort it) */
	MmReplayMatchFn match;
	void	   *arg;
	bool	   *stop;			/* if set, the match function sets *stop to
								 * end the run early */
} MmReplaySpec;

/*
 * Run a replay over a prepared query (inside SPI_connect). Calls
 * spec->match once per match, in the query's order, in a memory context
 * reset after each match. The match function runs inside the executor's
 * run of the query (from the receiver of its rows): it must not use SPI. Returns the number of columns the query had
 * after the key (to tell optional columns apart) through *ncolumns, and
 * the number of matches.
 */
extern int64 mm_replay_run(const MmReplaySpec *spec, SPIPlanPtr plan,
						   int *ncolumns);

/*
 * One value by the typing rule, for callers reading other queries: any
 * numeric type as double; whole numbers as int64 ("row" is named in the
 * error when the value is not whole).
 */
extern double mm_replay_number(Datum d, Oid type, const char *what);
extern int64 mm_replay_whole(Datum d, Oid type, const char *what, int64 row);

/*
 * An open-addressing table (linear probing, at most half full) from int64
 * ids to dense indexes 0, 1, 2... in order of first insertion: the
 * replays' players and the driver's seen match keys. The caller keeps its
 * entries in an array by index; a lookup costs a hash and, mostly, one
 * cache line.
 */
typedef struct MmReplayIdSlot
{
	int64		id;
	int64		index;			/* the id's index + 1; 0: an empty slot */
} MmReplayIdSlot;

typedef struct MmReplayIds
{
	MmReplayIdSlot *slots;
	uint64		mask;			/* number of slots - 1 (a power of two - 1) */
	int64		count;			/* ids held */
	MemoryContext cxt;			/* where the slots live */
} MmReplayIds;

/* An empty table in the current memory context. */
extern void mm_replay_ids_init(MmReplayIds *t);

/* Double the slots (when an insertion would fill more than half). */
extern void mm_replay_ids_grow(MmReplayIds *t);

/* A hash of an id for open addressing: the murmur3 64-bit finalizer. */
static inline uint64
mm_replay_hash_id(int64 id)
{
	uint64		h = (uint64) id;

	h ^= h >> 33;
	h *= UINT64CONST(0xff51afd7ed558ccd);
	h ^= h >> 33;
	h *= UINT64CONST(0xc4ceb9fe1a85ec53);
	h ^= h >> 33;
	return h;
}

/* The first slot to probe for an id. */
static inline uint64
mm_replay_ids_slot(const MmReplayIds *t, int64 id)
{
	return mm_replay_hash_id(id) & t->mask;
}

/*
 * The index of id; a missing id is inserted with the next index (count
 * before the call). *found says which.
 */
static inline int64
mm_replay_ids_get(MmReplayIds *t, int64 id, bool *found)
{
	uint64		i;

	if ((uint64) (t->count + 1) * 2 > t->mask + 1)
		mm_replay_ids_grow(t);
	for (i = mm_replay_ids_slot(t, id);; i = (i + 1) & t->mask)
	{
		MmReplayIdSlot *s = &t->slots[i];

		if (s->index == 0)
		{
			s->id = id;
			s->index = ++t->count;
			*found = false;
			return s->index - 1;
		}
		if (s->id == id)
		{
			*found = true;
			return s->index - 1;
		}
	}
}

/*
 * A hash table of players keyed by int64 id (the entry's first field),
 * entries of entrysize bytes, in the current memory context.
 */
extern HTAB *mm_replay_players(const char *name, Size entrysize);

/*
 * The entries of a players table sorted by id: the one output order of
 * every replay. Returns a palloc'd array of *count entry pointers.
 */
extern void **mm_replay_sorted(HTAB *players, long *count);

#endif							/* MM_REPLAY_H */
