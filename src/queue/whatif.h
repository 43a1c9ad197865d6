/*-------------------------------------------------------------------------
 *
 * whatif.h
 *		The what-if replay of a queue's recorded traffic (mm.whatif,
 *		mm.whatif_compare, mm.whatif_matches); internal to the whatif files.
 *
 * whatif_record.c reads the record of a window (the queue, its config
 * with the caller's merged in, the tick times, the live matches and their
 * ready checks, and the arrivals, in batches, through the queue's roster
 * reader); whatif.c replays it through the matcher in memory; whatif_sql.c
 * is the SQL functions and the figures per segment. docs/whatif.md says
 * what the replay reproduces and what it cannot.
 *
 *-------------------------------------------------------------------------
 */
#ifndef MM_WHATIF_H
#define MM_WHATIF_H

#include "queue.h"

#include "common/pg_prng.h"
#include "utils/portal.h"

/* What became of a roster in the replay. */
typedef enum WhatifState
{
	WI_ARRIVING = 0,			/* read, not yet in the queue */
	WI_WAITING,					/* in the queue */
	WI_PROPOSED,				/* in a match in its ready check */
	WI_MATCHED,
	WI_LEFT,					/* left (as recorded, or queued again elsewhere) */
	WI_EXPIRED,					/* the replayed config's ticket_ttl */
	WI_DODGED,					/* removed by its ready check */
	WI_BACKFILLED,				/* taken by a live backfill, as recorded */
	WI_STATES
} WhatifState;

/* A live match of the window: its rosters and, with a ready check, its outcome. */
typedef struct WhatifLive
{
	int64		match_id;
	TimestampTz created_at;
	int			nrosters;
	int64	   *rosters;		/* sorted */
	bool		ready;			/* it had a ready check */
	bool		accepted;		/* its ready check: every player accepted */
	TimestampTz dissolved_at;	/* when it dissolved (not accepted) */
	int			nremoved;
	int64	   *removed;		/* the rosters it removed (a dodger), sorted */
	bool		used;			/* a replay's match took its outcome */
} WhatifLive;

/* The record of a window, read once per replay (whatif_record.c). */
typedef struct WhatifRecord
{
	char	   *queue;
	int32		queue_id;
	Jsonb	   *given;			/* the config given, as given */
	MmMatcherConfig cfg;		/* the queue's config with it merged in */
	char	   *mode_attr;		/* the mode: the current config's first equal rule's attribute */
	double		odds_scale;		/* the queue's calibration of its odds, 1 without */
	TimestampTz since;
	TimestampTz until;
	TimestampTz lookback;		/* arrivals from here may still wait at since */
	int			nticks;
	TimestampTz *ticks;			/* the recorded ticks; NULL at a cadence */
	int64		every;			/* a cadence's step (microseconds); 0: recorded */
	int			nlive;
	WhatifLive *live;
	HTAB	   *live_by_set;	/* roster set hash -> first live match index */
	int		   *live_next;		/* the next live match of the same hash */
	double		accept_rate;	/* drawn ready checks: a player's chance to accept */
	/* the arrivals, read through a cursor */
	Portal		cursor;
	MmRosterIds ids;
	MemoryContext keep;			/* what lives as long as the replay */
	MemoryContext batch;		/* one batch of arrivals as read */
	int			npreseeded;		/* regions interned before the first read */
	int			nregion_names;	/* regions for the region segment (best latency) */
	char	  **region_names;
	HTAB	   *region_ids;
	int			nmodes;
	char	  **mode_names;
	HTAB	   *mode_ids;
} WhatifRecord;

/* A roster of the replay, from its arrival until it is resolved. */
typedef struct WhatifRoster
{
	MmRoster	r;				/* as read; its arrays in this allocation */
	TimestampTz arrived_at;
	TimestampTz joined_at;
	TimestampTz exit_at;		/* left as recorded (DT_NOEND: never) */
	TimestampTz backfill_at;	/* taken by a live backfill (DT_NOEND: never) */
	int64		key;			/* queue order: (key, sub) ascending */
	int64		sub;
	int			nplayers;
	int64	   *players;
	int			state;
	bool		exit_pending;	/* left while proposed: leaves when given back */
	int			region;			/* its best region (segment), -1 none */
	int			mode;			/* its mode (segment), -1 none */
	int			proposal;		/* while proposed */
	int			refs;			/* held by the queue, an event, a ready check */
} WhatifRoster;

/* One resolved roster, for the figures. */
typedef struct WhatifOutcome
{
	double		rating;
	double		wait;			/* matched: seconds waited */
	double		latency;		/* matched: to its match's region; NaN none */
	int32		match;			/* matched: the replay's match; -1 */
	int16		players;
	int8		state;
	int32		region;
	int32		mode;
} WhatifOutcome;

/* A replay's results. */
typedef struct WhatifResult
{
	int			noutcomes;
	int			cap;
	WhatifOutcome *outcomes;
	int			nmatches;		/* matches made (played) */
	int			match_cap;
	double	   *favourite;		/* per match: the favourite's odds */
	/* mm.whatif_matches: the rows, when wanted */
	Tuplestorestate *rows;
	TupleDesc	rows_desc;
	int			proposals;		/* match numbers given so far */
} WhatifResult;

/* whatif_record.c */
extern void mm_whatif_record(WhatifRecord *rec, const char *queue, Jsonb *config,
							 TimestampTz since, TimestampTz until, Interval *every,
							 bool accept_rate_given, double accept_rate);
/* The next batch of arrivals (arrived_at order); 0 at the end. */
extern int	mm_whatif_arrivals(WhatifRecord *rec, WhatifRoster ***out);
extern void mm_whatif_record_end(WhatifRecord *rec);
/* The live matches made of exactly these rosters (sorted), in time order; -1 none. */
extern int	mm_whatif_live_find(const WhatifRecord *rec, const int64 *rosters, int n, bool unused);

/* whatif.c */
extern void mm_whatif_replay(WhatifRecord *rec, uint64 seed, const char *label, WhatifResult *res);

#endif							/* MM_WHATIF_H */
