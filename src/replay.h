/*-------------------------------------------------------------------------
 *
 * replay.h
 *		The streaming replay driver shared by the rating replays and
 *		histories (OpenSkill and Glicko-2).
 *
 * A replay reads a user's query through a cursor in batches and hands the
 * rating family one match at a time: the consecutive rows that share a
 * match key (or, for a query without a key column, each row on its own).
 * Memory is bounded by the largest match plus what the caller keeps (its
 * players in a hash table); each match is handled in a memory context that
 * is reset after it.
 *
 * One typing rule for every column: numbers may be of any numeric type
 * (smallint, integer, bigint, real, double precision, numeric); columns
 * that hold ids or team labels must hold whole numbers; times are
 * timestamptz; the match key may be of any type. Errors name the column
 * and the row (counted from 1 in the query's order).
 *
 * The rows of a match must be consecutive: a key that comes back after
 * another key is refused, naming the row. To know that, the driver keeps
 * the keys it has seen (8 bytes and a hash entry per match for integer
 * keys, the key's text for others).
 *
 *-------------------------------------------------------------------------
 */
#ifndef MM_REPLAY_H
#define MM_REPLAY_H

#include "mm.h"

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
 * reset after each match. Returns the number of columns the query had
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

/* The column count a query returns, without running it. */
extern int	mm_replay_query_columns(SPIPlanPtr plan);

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
