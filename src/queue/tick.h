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
	Q_MATCH_IDS,
	Q_MOVE,
	Q_MOVE_ROSTERS,
	Q_MOVE_EVENTS,
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
/*
 * The matcher's input kept between ticks (tick_input.c). mm.run_ticks sets
 * mm_tick_keeps_input around each of its ticks; such a tick opens the
 * queue's kept input under its lock (brought up to date, or read whole),
 * matches from it, tells it what it wrote and closes it. Every other tick
 * takes the queue's changes out of the log (tick_input_plain).
 */
typedef struct KeptInput KeptInput;
extern bool mm_tick_keeps_input;
/*
 * The kept input of a queue, current: its rosters in *set (queue order,
 * their waits at "at"; the array is the input's own, which the matcher may
 * write its results into), their regions' count in *nregions. Under a
 * snapshot taken now, which stays the active one for a fresh read to
 * compare with until tick_input_pop.
 */
extern KeptInput *tick_input_open(int32 queue_id, Jsonb *config, const MmMatcherConfig *cfg,
								  TimestampTz at, MmRosterSet *set, int *nregions);
extern void tick_input_pop(void);
/* Whether the input's last tick matched all of it (not decided by its first rosters). */
extern bool tick_input_whole(const KeptInput *k);
extern void tick_input_set_whole(KeptInput *k, bool whole);
/* The tick's writes: rosters gone into matches, failed targets moved to new places. */
extern void tick_input_written(KeptInput *k, const int64 *gone, int ngone, const int64 *moved,
							   const int64 *moved_to, int nmoved);
/* The tick is done with it ("wrote": it wrote rosters of the queue). */
extern void tick_input_close(KeptInput *k, int64 tick_id, bool wrote);
/*
 * A tick that keeps no input: the queue's changes taken out of the log and
 * the queue marked (every kept input of it is read whole next time).
 */
extern void tick_input_plain(int32 queue_id, int64 tick_id);
/* mm.check_tick_input: a kept input against a fresh read, inputs and matches (errors when they differ). */
extern void tick_input_compare(const MmRosterSet *kept, int kept_regions, const MmRosterSet *fresh,
							   int fresh_regions, const MmMatcherConfig *cfg, const char *queue);
extern void tick_input_compare_runs(const MmRosterSet *a, const MmMatcherResult *ra,
									const MmRosterSet *b, const MmMatcherResult *rb, const char *queue);

/* Try to take an advisory lock (MM_TICK_LOCK or MM_RUN_LOCK) on a queue. */
extern bool queue_try_lock(int32 key, int32 queue_id, bool session);
extern void queue_unlock(int32 key, int32 queue_id);

#endif							/* MM_TICK_H */
