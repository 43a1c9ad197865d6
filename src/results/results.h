/*-------------------------------------------------------------------------
 *
 * result_match.h
 *		The match being reported, as the parts of mm.report_result share it:
 *		checking a result against its match (results_check.c), rating it
 *		with the ladder and dishonor steps (results_rating.c), and reading
 *		and writing the match (results.c); their statements and helpers are
 *		result_match.c. Internal to those files.
 *
 *-------------------------------------------------------------------------
 */
#ifndef MM_RESULT_MATCH_H
#define MM_RESULT_MATCH_H

#include "mm.h"
#include "gw2.h"
#include "queue.h"
#include "rating_model.h"
#include "statement.h"

#include "funcapi.h"

/* A match has at most MM_TEAMS teams of 1000 players. */
#define RESULT_MAX_PLAYERS (MM_TEAMS * 1000)

/* The prepared statements, kept for the backend's life. */
typedef enum ResultStatement
{
	RS_MATCH_QUEUE,
	RS_LOCK_MATCH,
	RS_PREVIOUS,
	RS_OUTCOME,
	RS_CONFIG,
	RS_ROSTERS,
	RS_INSERT_MISSING,
	RS_LOCK,
	RS_LOCK_ONE,
	RS_INSERT_ONE,
	RS_INSERT_MISSING_PROFESSION,
	RS_LOCK_PROFESSION,
	RS_UPDATE_PROFESSION,
	RS_DISHONOR,
	RS_REASON_KNOWN,
	RS_UPDATE_RATINGS,
	RS_INSERT_PENDING,
	RS_INSERT_ODDS,
	RS_INSERT_RESULT,
	RS_INSERT_PLAYERS,
	RS_FINISH,
	RS_END_ROSTERS,
	RS_END_MATCH,
	RS_EXPIRE_BACKFILL,
	RS_COUNT
} ResultStatement;

/* A player's rating under one key: the family's state before and after the match. */
typedef struct ResState
{
	double		before[MM_RATING_MAX_STATE];
	double		after[MM_RATING_MAX_STATE];
	bool		rated;
} ResState;

/* One player of the match. */
typedef struct ResPlayer
{
	int64		id;
	int			team;			/* index into the teams */
	double		weight;
	bool		has_score;
	double		score;
	bool		deserted;
	char	   *profession;		/* NULL: the roster names none */
	char	   *role;			/* NULL: the roster gave none */
	ResState	core;			/* the queue's rating key */
	ResState	prof;			/* the profession's key (profession_ratio > 0) */
	bool		has_ladder;
	int32		ladder;
	bool		awarded_set;
	int32		awarded;
	int32		ladder2;
	bool		stacks_set;
	int32		stacks;
} ResPlayer;

/* One team of the match. */
typedef struct ResTeam
{
	char	   *name;
	JsonbContainer *obj;		/* the team's object in the result */
	bool		has_rank;
	double		given_rank;
	bool		has_score;
	double		score;
	double		rank;			/* the rank used: given, or from the scores */
} ResTeam;

typedef struct ResMatch
{
	int64		match_id;
	int32		queue_id;
	int			nmteams;		/* the match's teams (mm.match.teams), in team order */
	char	  **mteams;
	double	   *odds;			/* each one's odds, in team order */
	bool		has_odds_scale; /* the tick's calibration scale is known */
	double		odds_scale;		/* the scale of the stored odds */
	char	   *model;			/* the family whose odds they are; NULL: unknown */
	int			nteams;
	ResTeam    *teams;
	int			nplayers;
	ResPlayer  *players;		/* ascending player id */
} ResMatch;


/* result_match.c: the statements and the match's helpers */

/*
 * Start the arguments of statement s (statement.h: mm_arg, then
 * mm_execute(a, false, limit)); res_run_match runs one whose only
 * arguments are $queue_id and $match_id (the match's). Each returns SPI's
 * result code.
 */
extern void res_args(MmArgs *a, ResultStatement s);
extern int	res_run_match(ResultStatement s, const ResMatch *m, long limit);
/* Column i (1-based) of row r of the last result. */
extern Datum res_col(int r, int i, bool *isnull);
/* Order players by id (qsort, bsearch). */
extern int	res_player_cmp(const void *a, const void *b);
/* The player with an id, or NULL. */
extern ResPlayer *res_find_player(ResMatch *m, int64 id);
/* Team t's place in the match's team order. */
extern int	res_team_order(const ResMatch *m, int t);
/* The match's teams for a message: "red", "blue" and "team_3". */
extern char *res_team_list(const ResMatch *m);
/* The players' ids, ascending, as a bigint[]. */
extern Datum res_player_ids(const ResMatch *m);
/* A flat float8[] of n states of the family: nstate elements each. */
extern Datum res_states_array(const MmRatingModel *model, int n, double *const *st);

/* results_check.c: the result checked against the match, its teams and players filled in */
extern void res_parse_result(ResMatch *m, Jsonb *result);

/* results_rating.c: the rating step */
extern void res_lock_ratings(ResMatch *m, const MmMatcherConfig *cfg, TimestampTz at, bool prof);
extern void res_rate(ResMatch *m, const MmMatcherConfig *cfg, bool prof);
extern void res_award_ladder(ResMatch *m, const MmMatcherConfig *cfg, TimestampTz at);
extern void res_give_dishonor(ResMatch *m, const MmMatcherConfig *cfg, TimestampTz at);
extern void res_write_ratings(ResMatch *m, const MmMatcherConfig *cfg, TimestampTz at);
extern void res_write_profession_ratings(ResMatch *m, const MmMatcherConfig *cfg, TimestampTz at);

#endif							/* MM_RESULT_MATCH_H */
