/*-------------------------------------------------------------------------
 *
 * rating_replay.h
 *		The replay of a team-match history with any rating family
 *		(rating_model.h), on the streaming replay driver (replay.h).
 *
 * The history query yields (match key, player_id, team, rank[, weight]) in
 * play order; the rows of a match are consecutive. The optional initial
 * query yields (player_id, then the family's state columns); players
 * missing from it start at the replay's initial state. Each match is one
 * game rated by the family's rate function (so replaying equals rating
 * the matches one by one) and, for a history or a calibration, predicted
 * first by its predict function.
 *
 * The caller (a family's SQL wrappers, such as openskill_replay.c) reads
 * its arguments into the family's parameters, fills the fields above
 * "private", runs the replay and emits the result.
 *
 *-------------------------------------------------------------------------
 */
#ifndef MM_RATING_REPLAY_H
#define MM_RATING_REPLAY_H

#include "mm.h"
#include "analytics.h"
#include "rating_model.h"

#include "funcapi.h"

typedef enum MmRatingReplayMode
{
	MM_RATING_REPLAY_FINAL,		/* final ratings */
	MM_RATING_REPLAY_HISTORY,	/* rows per player per match */
	MM_RATING_REPLAY_CALIBRATION	/* calibration of the predictions */
} MmRatingReplayMode;

/* A player's slot: its id, matches and state (the family's nstate doubles). */
typedef struct MmRatingReplayPlayer
{
	int64		id;
	int32		matches;
	bool		used;			/* the slot holds a player */
	double		state[FLEXIBLE_ARRAY_MEMBER];
} MmRatingReplayPlayer;

typedef struct MmRatingReplay
{
	const MmRatingModel *model;
	const void *params;			/* the family's parameters */
	MmRatingReplayMode mode;
	bool		packed;			/* a state is one float8[] column (the
								 * family-neutral mm.rating_replay), not
								 * one column per element */
	bool		games_int4;		/* the games column is int (0.1.0's
								 * mm.replay_openskill), not bigint */
	double		initial[MM_RATING_MAX_STATE];	/* a new player's state */
	ReturnSetInfo *rsinfo;		/* history: where rows go */
	MmCalibration cal;			/* calibration */

	/* private: the players, in slots of stride bytes */
	char	   *players;
	Size		stride;
	uint64		nslots;			/* a power of two */
	bool		direct;			/* the slot of id is players[id] */
	int64		nplayers;		/* slots used */
	/* per match, by row: grown to the largest match, reused */
	int			maxrows;
	MmRatingReplayPlayer **player;
	int64	   *id;
	int64	   *team;
	double	   *rank;
	double	   *weight;
	double	   *in[MM_RATING_MAX_STATE];
	double	   *out[MM_RATING_MAX_STATE];
	double	   *prob;			/* per team */
} MmRatingReplay;

/*
 * Check a replay's initial state (each column as the family declares it,
 * errors naming the column).
 */
extern void mm_rating_replay_check_initial(const MmRatingReplay *rp);

/* Run the replay of a history query; initial may be NULL. */
extern void mm_rating_replay_run(MmRatingReplay *rp, const char *history,
								 const char *initial);

/* The final ratings, by player id: (player_id, state..., matches). */
extern void mm_rating_replay_final(MmRatingReplay *rp, ReturnSetInfo *rsinfo);

/* Free what a run allocated. */
extern void mm_rating_replay_free(MmRatingReplay *rp);

#endif							/* MM_RATING_REPLAY_H */
