/*-------------------------------------------------------------------------
 *
 * tick.h
 *		What tick.c shares with explain.c and run_ticks.c; internal to them.
 *
 *-------------------------------------------------------------------------
 */
#ifndef MM_TICK_H
#define MM_TICK_H

#include "queue.h"
#include "statement.h"

#define MM_TICK_LOCK	0x6d6d0001
#define MM_RUN_LOCK		0x6d6d0002


/* The shortest time between ticks run_ticks accepts, in milliseconds. */
#define MIN_EVERY_MS	100.0

/* The statements of a tick, prepared once per backend. */
enum
{
	Q_QUEUE,
	Q_READ_ROSTERS,
	Q_READ_PLAYERS,
	Q_READ_FIRST,
	Q_FITS,
	Q_OLDEST,
	Q_TICK_ID,
	Q_MOVE,
	Q_REQUEUE,
	Q_LOG,
	Q_IDLE,
	Q_LAST_TICK,
	Q_EXPIRED,
	Q_EXPIRE,
	Q_ODDS_READ,
	Q_ODDS_FOLD,
	Q_ODDS_WRITE,
	Q_COUNT
};

/* Run statement q with one argument, $queue_id; check that it did what it is for. */
extern void tick_run_queue(int q, int32 queue_id, bool read_only, int expected);
/* Read a queue's waiting rosters whole, in queue order. */
extern void tick_read_queue(int32 queue_id, TimestampTz at, MmMatcherConfig *cfg, MmRosterSet *set);
/* Try to take an advisory lock (MM_TICK_LOCK or MM_RUN_LOCK) on a queue. */
extern bool queue_try_lock(int32 key, int32 queue_id, bool session);
extern void queue_unlock(int32 key, int32 queue_id);

#endif							/* MM_TICK_H */
