/*-------------------------------------------------------------------------
 *
 * rating_model.h
 *		The interface a rating family implements (OpenSkill, Glicko-2), and
 *		the game every family rates.
 *
 * A family is an MmRatingModel: a struct of its name, the columns of a
 * player's state and the functions that rate one game, predict one and
 * grow a state over idle time, found by name with mm_rating_model_find
 * (as PostgreSQL finds an index access method's IndexAmRoutine). Code that
 * rates a game for any family (mm.report_result's rating step, the team
 * replay of openskill_replay.c) goes through it and never names a family.
 *
 * A player's state is nstate doubles, in the order of the family's
 * columns (OpenSkill: mu, sigma; Glicko-2: rating, rd, vol), the order in
 * which rows and results hold them. A game keeps them by column: state[c]
 * is an array of column c over the game's players, so that a family reads
 * its players' mu or rating as one array.
 *
 * The parameters of a family (OpenSkill's options, Glicko-2's tau and
 * policy) are its own struct, passed through as a pointer.
 *
 *-------------------------------------------------------------------------
 */
#ifndef MM_RATING_MODEL_H
#define MM_RATING_MODEL_H

#include "mm.h"
#include "config.h"

#include "datatype/timestamp.h"
#include "utils/array.h"

/* The most columns a family's state may have. */
#define MM_RATING_MAX_STATE 3

/*
 * Games of up to this many players are built, rated and predicted without
 * allocating: their per-player and per-team arrays fit in the game and on
 * the stack (a replay rates one game per match, millions in one call).
 */
#define MM_RATING_SMALL 32

/*
 * One game: nplayers players in nteams teams. team_of[p] is player p's
 * team, 0-based, teams numbered in order of first appearance. rank and
 * score are per team (lower rank is better; score may be NULL), weight per
 * player (may be NULL). A small game's team_of and rank point into the
 * game itself: build it where it is used, do not copy it.
 */
typedef struct MmRatingGame
{
	int			nplayers;
	int			nteams;
	const int  *team_of;
	const double *rank;
	const double *score;
	const double *state[MM_RATING_MAX_STATE];	/* by column, per player */
	const double *weight;
	int			small_team_of[MM_RATING_SMALL];
	double		small_rank[MM_RATING_SMALL];
} MmRatingGame;

/* A column of a player's state, and what a valid value is. */
typedef struct MmRatingColumn
{
	const char *name;			/* named in errors */
	bool		positive;		/* > 0; otherwise any finite value */
} MmRatingColumn;

/*
 * Rate one game: out[c][p], the new value of column c of player p's
 * state, from the game's states (the game was built and checked by
 * mm_rating_build_game).
 */
typedef void (*MmRatingRateFn) (const void *params, const MmRatingGame *g,
								double *const *out);

/* Each team's probability of winning the game, in team order. */
typedef void (*MmRatingPredictFn) (const void *params, const MmRatingGame *g,
								   double *prob);

/* Grow one state over the given number of idle rating periods. */
typedef void (*MmRatingIdleFn) (const void *params, double *state,
								double periods);

/*
 * The family's parameters for mm.report_result from its options (the
 * struct its option keys were read into; the config was checked),
 * palloc'd.
 */
typedef const void *(*MmRatingQueueParamsFn) (const void *options);

/*
 * The family's scale: what a queue's matcher reads in the family's units.
 *
 * A roster (party) waits in a queue as two figures on the family's scale,
 * its rating and its deviation; the filter's range is [rating - k
 * deviation - pad, rating + k deviation + pad] and scoring and the GW2 prediction
 * compare effective ratings (rating - deviation). The family says how a
 * roster's figures come from its players' states, and how the rosters of
 * a two-team match give each team's probability of winning (the odds
 * stored with the match, and the ladder's odds).
 *
 * A queue config's scale-bound keys (filter.padding, filter.deviations
 * (k), scoring.rating_distance, prediction.rating.spread) default to null, which reads
 * the family's MmRatingScale; a number given wins.
 */

/*
 * A roster's figures from its n players' states (state[c][p], by column):
 * *rating and *deviation, on the family's scale.
 */
typedef void (*MmRatingRosterFn) (const void *params, int n,
								  const double *const *state,
								  double *rating, double *deviation);

/*
 * The red team's probability of beating the blue team, from the figures of
 * the match's n rosters (team[i] 0 red, 1 blue; players[i] players in
 * roster i), combined per team as the family combines players into a team.
 */
typedef double (*MmRatingOddsFn) (const void *params, int n, const int *team,
								  const int *players, const double *rating,
								  const double *deviation);

typedef struct MmRatingScale
{
	double		padding;		/* filter.padding: rating per second waited */
	double		deviations;		/* filter.deviations: a range's half-width
								 * before padding, in deviations */
	double		rating_distance;	/* scoring.rating_distance: points per
									 * rating of difference */
	double		rating_spread;	/* prediction.rating.spread: a difference of
								 * effective ratings that is full dominance */
	MmRatingRosterFn roster;
	MmRatingOddsFn odds;
} MmRatingScale;

/*
 * Storage: what a family declares so that mm.ratings, the result history
 * and mm.roster_rating keep and read its state without naming it.
 */

/* A new player's state under the family's options (checked). */
typedef void (*MmRatingDefaultsFn) (const void *options, double *state);

/*
 * A stored state as of a time, from the time it was last rated (at is
 * never before last_played); NULL: a stored state is read as it is.
 */
typedef void (*MmRatingReadAtFn) (double *state, TimestampTz last_played,
								  TimestampTz at);

/* A conservative rating of one state, for leaderboards (higher is better). */
typedef double (*MmRatingConservativeFn) (const double *state);

typedef struct MmRatingModel
{
	const char *name;			/* rating.model of a queue config */
	int			nstate;			/* columns of a player's state */
	const MmRatingColumn *columns;	/* nstate of them, the names of the
									 * elements of mm.ratings' state */
	/* the math */
	MmRatingRateFn rate;
	MmRatingPredictFn predict;
	MmRatingIdleFn idle;		/* NULL: a state does not change while idle */
	MmRatingQueueParamsFn queue_params;
	MmRatingScale scale;		/* the queue defaults and roster figures */
	/* the storage */
	MmRatingDefaultsFn defaults;
	MmRatingReadAtFn read_at;	/* NULL: as stored */
	MmRatingConservativeFn conservative;
	/*
	 * the options: the keys of the family's own section of a queue config,
	 * "rating.options" (checked by the config spine against these keys,
	 * read into a palloc'd struct of options_size bytes at
	 * MmRatingConfig.options); NULL: the family has none
	 */
	const struct MmConfigKey *options;
	size_t		options_size;
	/* rating.period "pending" (rating periods closed by the caller) is allowed */
	bool		rating_periods;
} MmRatingModel;

/* The families, in rating_model.c's list; mm_rating_model_find looks them up. */
extern const MmRatingModel mm_openskill_model;
extern const MmRatingModel mm_glicko2_model;
extern const MmRatingModel mm_elo_model;

/* The family of a name, or NULL. */
extern const MmRatingModel *mm_rating_model_find(const char *name);

/* The i-th family (0-based) in the list, or NULL past its end. */
extern const MmRatingModel *mm_rating_model_at(int i);

/* The names of every family, for a hint: "openskill" or "glicko2". */
extern const char *mm_rating_model_names(void);

/*
 * The stored form of a state (mm.ratings.state, the result history's
 * state_before and state_after): a one-dimensional float8[] of nstate
 * elements without NULLs, each as the family's column declares it.
 * mm_rating_state_valid says whether an array is one (mm.ratings' CHECK);
 * mm_rating_state_read reads one into state (an error if it is not);
 * mm_rating_state_datum builds one.
 */
extern bool mm_rating_state_valid(const MmRatingModel *model, ArrayType *a);
extern void mm_rating_state_read(const MmRatingModel *model, ArrayType *a,
								 double *state);
extern Datum mm_rating_state_datum(const MmRatingModel *model, const double *state);

/*
 * A queue config's "rating" section: which family rates the queue's
 * matches, under which key, its options, and what a report does beside
 * rating (ladder points, dishonor of deserters). The section's keys are
 * mm_rating_config_keys (rating_model.c); the queue config nests them.
 */
typedef struct MmRatingConfig
{
	char	   *model;			/* a family by name */
	char	   *key;			/* the key of mm.ratings rows */
	bool		ladder;			/* award ladder points */
	char	   *season_start;	/* ladder season bounds as text; NULL: none */
	bool		season_start_null;
	char	   *season_end;
	bool		season_end_null;
	char	   *desertion_reason;	/* dishonor reason; NULL: no dishonor */
	bool		desertion_reason_null;
	double		profession_ratio;	/* 0 core rating only; > 0 keeps and
									 * blends profession ratings */
	Jsonb	   *options_json;	/* rating.options as given; NULL: none */
	void	   *options;		/* the family's options, read by its keys;
								 * NULL: it has none */
	char	   *period;			/* "game": rate each game; "pending": rating periods */
	bool		pending_period; /* period = "pending" */
	int			calibration;	/* results over which a queue's odds learn
								 * their scale (odds_scale.h) */
	bool		calibration_null;	/* none: the family's own odds */
} MmRatingConfig;

extern const MmConfigKey mm_rating_config_keys[];

/*
 * Check a rating section read with mm_rating_config_keys and read its
 * options with the family's keys; "what" names the config in messages
 * ("queue config").
 */
extern void mm_rating_config_check(MmRatingConfig *rc, const char *what);

/*
 * A family's options from a JSON object of its option keys (NULL: the
 * defaults), checked by the keys and by the family; "what" and "path" name
 * the object in messages ("queue config", "rating.options"; path may be
 * NULL). NULL for a family without options.
 */
extern void *mm_rating_options_read(const MmRatingModel *model, Jsonb *given,
									const char *what, const char *path);

/*
 * Read and check the "rating" section of a queue config (the rest of the
 * config is not read; NULL or no section: the defaults).
 */
extern void mm_rating_config_read(Jsonb *queue_config, MmRatingConfig *rc);

/* The family of a checked rating section. */
extern const MmRatingModel *mm_rating_model_of(const MmRatingConfig *rc);

/*
 * Build a game from per-player arrays (team labels, ranks, scores, the
 * state's columns, weights), checking everything a user can get wrong:
 * each state column as the family declares it, finite ranks and scores,
 * one rank (score) per team, non-negative weights, two teams or more.
 * rank and score may be NULL (then every team ranks the same), weight may
 * be NULL. Arrays of games larger than MM_RATING_SMALL are palloc'd in the
 * current memory context.
 */
extern void mm_rating_build_game(MmRatingGame *g, const MmRatingModel *model,
								 int n, const int64 *label,
								 const double *rank, const double *score,
								 const double *const *state,
								 const double *weight);

#endif							/* MM_RATING_MODEL_H */
