/*-------------------------------------------------------------------------
 *
 * matcher.h
 *		The GW2 PvP roster matcher (the Guild Wars 2 wiki's PvP matchmaking page) over an in-memory array of
 *		rosters: plain C structs, no fmgr. roster_read.c reads rosters from
 *		SQL; mm.match_rosters (queue.c) and a tick (tick.c) call
 *		mm_matcher_run, and a tick writes the results back.
 *
 *-------------------------------------------------------------------------
 */
#ifndef MM_MATCHER_H
#define MM_MATCHER_H

#include "mm.h"
#include "config.h"
#include "gw2.h"
#include "rating_model.h"
#include "rules.h"
#include "datatype/timestamp.h"
#include "utils/array.h"
#include "utils/hsearch.h"

/* <Filter>: which rosters are a target's potentials ("filter" keys). */
typedef struct MmFilterConfig
{
	int			rosters;		/* Iteration/@rosters: targets per tick */
	double		limit_ms;		/* Iteration/@limit, milliseconds */
	int			potentials_min; /* Potentials/@min */
	bool		potentials_min_null;	/* not given: 2 teams team_size */
	int			potentials_max; /* Potentials/@max */
	double		padding;		/* Rating/@padding, rating per second */
	bool		padding_null;	/* not given: the rating model's scale */
	double		deviations;		/* range half-width in deviations (GW2: 1) */
	bool		deviations_null;	/* not given: the rating model's scale */
	double		padding_start;	/* Rating/@start, seconds */
	double		padding_end;	/* Rating/@end, seconds */
} MmFilterConfig;

/* <Scoring>: how a potential is scored against a team ("scoring" keys). */
typedef struct MmScoringConfig
{
	char	   *type;			/* "team" or "match" */
	bool		per_match;		/* type = "match" */
	double		age;			/* Age/@seconds, per second waited */
	double		roster_size_distance;
	double		perfect_fit;
	double		rank_distance;
	double		rating_distance;
	bool		rating_distance_null;	/* not given: the rating model's scale */
	double		ladder_distance;
	int			profession_max;
	double		profession_common;
	double		profession_unique;
	double		dishonor_distance;
	double		dishonor_stack;
} MmScoringConfig;

/*
 * A ticket's life in the queue (mm.tick and mm.enqueue read these root
 * keys; mm.match_rosters ignores them).
 */
typedef struct MmQueueLifecycle
{
	MmDuration	ticket_ttl;		/* a duration; null: never expire */
	bool		ticket_ttl_null;
	double		ticket_ttl_s;	/* ticket_ttl in seconds; 0: never */
	bool		requeue_while_in_match;
	MmDuration	accept_timeout; /* ready check: a duration; null: none */
	bool		accept_timeout_null;
	double		accept_timeout_s;	/* accept_timeout in seconds; 0: none */
	char	   *dodge_reason;	/* dishonor reason of a dodged ready check; NULL: none */
	bool		dodge_reason_null;
	MmDuration	dodge_timeout;	/* a dodger may not queue here again for this long */
	bool		dodge_timeout_null;
} MmQueueLifecycle;

/*
 * Configuration of one queue: its groups, each read by the config spine
 * from its own key table and used by the module that owns it (the filter
 * and scoring by the matcher, the prediction by gw2_prediction.c, the
 * lifecycle by the queue's SQL side, the rating section by the rating
 * layer, the rules by rules.c).
 */
typedef struct MmMatcherConfig
{
	int			team_size;		/* players per team */
	int			nteams;			/* "teams": teams per match (2: red and blue) */
	bool		nteams_given;
	int			nteam_names;	/* "team_names" as given (0: null) */
	char	  **team_names;		/* every team's name, in team order (given or default) */
	MmFilterConfig filter;
	MmScoringConfig scoring;
	MmPredictionConfig prediction;	/* gw2.h: the <Prediction> block */
	MmQueueLifecycle queue;
	/* "rating": how mm.report_result rates a match of the queue */
	MmRatingConfig rating;
	/* not a config key: scan the whole queue for potentials (tests) */
	bool		naive_search;

	/*
	 * Not a config key: the rosters are only the first ones of the queue (a
	 * tick reads the queue in growing prefixes). mm_matcher_run then stops at
	 * the first target whose outcome more rosters could change, and
	 * mm_matcher_backfill marks such a request, "undecided" in their results.
	 */
	bool		prefix;
	/* "attributes" and "rules" (rules.h) */
	int			nattrs;
	MmAttrDecl *attrs;
	int			nrules;
	MmRule	   *rules;
	int			latency_rule;	/* index of the latency rule; -1: none */
	int			nroles;			/* "roles": the roles a player may carry */
	char	  **roles;
	/* not config keys */
	int			nregions;		/* regions of the rosters read (mm_read_rosters) */
} MmMatcherConfig;

/*
 * The range of a roster's rating ([-MM_RATING_MAX, MM_RATING_MAX]) and
 * deviation ([0, MM_RATING_MAX]): far beyond any rating scale (Glicko-2
 * near 1500, OpenSkill near 25), and small enough that every figure derived
 * from them (effective ratings, ranges, spreads, team sums of up to 1000
 * players) stays finite. mm.roster's CHECKs hold the same range.
 */
#define MM_RATING_MAX 1e9

/* Roster states after a run. */
#define MM_ROSTER_WAITING	0	/* not a target, not matched */
#define MM_ROSTER_MATCHED	1	/* in match "match", team "team" */
#define MM_ROSTER_FAILED	2	/* a target no match was found for */

/* Why a target failed. */
typedef enum MmFailReason
{
	MM_FAIL_NONE = 0,
	MM_FAIL_TOO_LARGE,			/* the roster has more players than a team */
	MM_FAIL_NO_POTENTIALS,		/* no waiting roster's range overlaps */
	MM_FAIL_POTENTIALS,			/* fewer potentials than potentials_min */
	MM_FAIL_INCOMPLETE,			/* the potentials could not fill both teams */
	MM_FAIL_RULE				/* a rule left no potentials, or kept the teams from filling */
} MmFailReason;

#define MM_FAIL_REASONS 6

extern const char *const mm_fail_reason_names[MM_FAIL_REASONS];

/* One roster (party) in queue order. */
typedef struct MmRoster
{
	int64		id;
	int			players;
	double		rating;
	double		deviation;
	double		rank;			/* average rank of its players */
	double		ladder;			/* average ladder points */
	double		dishonor;		/* dishonor stacks of all its players */
	double		age;			/* seconds waited */
	int			nprof;			/* distinct professions */
	int		   *prof;			/* profession ids */
	int		   *prof_count;		/* players with each */
	MmAttrValue *attr;			/* per declared attribute; NULL: none declared */
	double	   *lat;			/* latency per region id (Inf: not given); NULL: none */
	int		   *lat_region;		/* while reading: the region of each lat */
	int			nlat;
	int		   *role_count;		/* per declared role: its players; NULL: none given */
	/* derived by mm_matcher_run */
	int			part;			/* its bucket: rosters equal on every equal rule */
	double		rating_low;		/* effective rating: rating - deviation */
	double		lo;				/* padded rating range */
	double		hi;
	/* results */
	int			state;
	int			match;			/* 0-based match number */
	int			team;			/* its team's index in team order (0 red, 1 blue, ...) */
	int			fail_order;		/* 0-based order among failed targets */
	MmFailReason fail_reason;
	int			fail_rule;		/* MM_FAIL_RULE: the rule's index */
	int			npotentials;	/* as a target: potentials found; -1 if not tried */
} MmRoster;

/* One match made: its rosters and the teams' summaries (per team, in team order). */
typedef struct MmMatch
{
	int			nmembers;
	int		   *members;		/* roster indexes */
	double	   *avg_rank;		/* per team: players' average rank */
	double	   *avg_rating_low; /* players' average effective rating */
	int		   *max_roster_size;
	double		rating_spread;	/* max - min effective rating of rosters */
	int			region;			/* the latency rule's region; -1: none */
	double		worst_latency;	/* the largest latency to it */
} MmMatch;

typedef struct MmMatcherResult
{
	int			nmatches;
	MmMatch    *matches;
	int			nfailed;
	int			failed_by_reason[MM_FAIL_REASONS];
	int		   *failed_by_rule; /* per rule (MM_FAIL_RULE) */
	int			targets_tried;
	bool		stopped_by_limit;
	bool		undecided;		/* cfg->prefix: a target needs more of the queue */
} MmMatcherResult;

/*
 * The matcher's phases as one interface, as MmRatingModel is for rating
 * families: filter (a target's potentials: gatherPotentials), populate
 * (fill its teams: populateMatch, shouldPopulateRed, pickRoster) and score
 * (a potential for a team: scoreRoster). GW2's, in matcher_gw2.c, is the
 * one mm_matcher_run (matcher.c) and mm_matcher_backfill
 * (matcher_backfill.c) run; its state (MmMatcherRun, matcher_run.h) is
 * private to those files. The rules (rules.h) plug into these phases: hard
 * rules' admit into filter, their fits into populate, soft rules' measure
 * into score; mm.explain names the rule that blocked a target.
 */
typedef struct MmMatcherRun MmMatcherRun;
struct MmTeamFigures;

typedef struct MmMatcherModel
{
	const char *name;
	/* the target's potentials, in queue order, into the run */
	void		(*filter) (MmMatcherRun *run, const MmRoster *target);
	/* fill every team around the target; false: they could not be filled */
	bool		(*populate) (MmMatcherRun *run, int target);
	/* how well roster i fits team "side" (higher is better) */
	double		(*score) (const MmMatcherRun *run, int i, int side, const struct MmTeamFigures *team,
						  double max_ladder, int max_roster_size);
} MmMatcherModel;

extern const MmMatcherModel mm_matcher_gw2;

extern void mm_matcher_defaults(MmMatcherConfig *cfg);
extern void mm_matcher_check(MmMatcherConfig *cfg);
extern double mm_matcher_padding(const MmMatcherConfig *cfg, double age);
extern void mm_matcher_run(MmRoster *rosters, int n, int nprofessions,
						   const MmMatcherConfig *cfg,
						   MmMatcherResult *result);

/*
 * A team of a running match with open seats (a backfill request), as the
 * matcher sees it: the figures of the rosters it was made of, summed or
 * averaged over their players like a team being populated.
 */
typedef struct MmBackfillTeam
{
	int			open;			/* seats to fill */
	int			present;		/* players still on the team: team_size - open */
	double		rating;			/* players' mean rating */
	double		deviation;		/* players' mean deviation */
	double		rank;			/* players' mean rank */
	double		dishonor;		/* the team's total stacks */
	double		max_ladder;		/* highest ladder points of the match's rosters */
	int			max_roster_size;	/* largest roster of the match */
	double		age;			/* seconds since the request: widens its range
								 * and relaxes the rules' parameters */
	int		   *prof_count[2];	/* per profession id: this team's players, the other teams' */
	/* for the queue's rules (none: nmatch 0) */
	int			side;			/* the team's index in the match */
	int			nmatch;			/* the match's rosters, every team's, each */
	MmRoster   *match;			/* with its team, players, attributes,
								 * latencies and roles */
	int			region;			/* the match's region id; -1: none recorded;
								 * MM_REGION_ABSENT: none of the rosters read has it */
	int		   *left;			/* per role id: the roles of the players who
								 * left (the request's); NULL: not given */
	/* results */
	int			npicked;
	int		   *picked;			/* roster indexes, in the order picked */
	MmFailReason fail_reason;	/* MM_FAIL_NONE when filled */
	int			fail_rule;		/* MM_FAIL_RULE: the rule's index */
	bool		undecided;		/* cfg->prefix: the fill needs more of the queue */
} MmBackfillTeam;

extern void mm_matcher_backfill(MmRoster *rosters, int n, int nprofessions,
								const MmMatcherConfig *cfg, MmBackfillTeam *team,
								bool *taken);

/* The rosters read from a query (roster_read.c). */
typedef struct MmRosterSet
{
	MmRoster   *r;
	int			n;
	int			nprof;			/* distinct professions */
	char	  **prof_names;		/* their names, by profession id */
	char	  **region_names;	/* by region id (cfg->nregions) */
	struct MmRuleReader *reader;	/* how their values were read (rules); NULL: none */
} MmRosterSet;

/* Interning of the attribute values and regions of the rosters read. */
typedef struct MmRuleReader
{
	HTAB	   *values;
	int			nvalues;
	HTAB	   *regions;
	int			nregions;
	char	  **region_names;
	int		   *region_id;		/* once finished: a region's id by the order it was read in */
#define MM_KEY_CACHE 16
	int			key_region[MM_KEY_CACHE];	/* per key position: the region it was last, + 1 */
} MmRuleReader;

extern HTAB *mm_intern_create(const char *name);
extern int	mm_intern(HTAB *tab, const char *s, int len, int *count, char ***names);
extern void mm_rules_check(MmMatcherConfig *cfg);
/*
 * A roster's attributes checked against those cfg declares, defaults
 * filled in, and its latencies checked (22023 naming what is wrong).
 */
extern Jsonb *mm_rules_check_attributes(const MmMatcherConfig *cfg, Jsonb *attrs, Jsonb *lat);
/* Refuse a value that does not fit an attribute's declaration; "whose" names it. */
extern void mm_rules_check_value(const MmAttrDecl *d, JsonbValue *v, const char *whose);
/* Config key "roles"; a role's id (-1: not declared); the roles for messages. */
extern void mm_roles_parse(JsonbValue *v, void *base, const char *what, const char *path);
extern void mm_roles_render(StringInfo buf, const void *base);
extern int	mm_role_find(const MmMatcherConfig *cfg, const char *name);
extern char *mm_role_list(const MmMatcherConfig *cfg);
/*
 * Read a roster's roles (a text[] of its players' roles, NULL: none);
 * strict refuses a role the queue does not declare, otherwise it counts as
 * none.
 */
extern void mm_rules_read_roles(const MmMatcherConfig *cfg, MmRoster *x, ArrayType *roles, bool strict);
/* Count one player's role on a roster (strict: an undeclared role is an error). */
extern void mm_rules_add_role(const MmMatcherConfig *cfg, MmRoster *x, const char *name, bool strict);
/*
 * Read a roster's attributes and latencies (either NULL: not given);
 * strict refuses values that do not fit the declarations (a rosters query),
 * otherwise they count as missing (the queue tables, checked at enqueue).
 */
extern void mm_rules_read_roster(const MmMatcherConfig *cfg, MmRoster *x, Jsonb *attrs, Jsonb *lat,
								 bool strict, MmRuleReader *rd);
extern void mm_rules_read_finish(MmRoster *r, int n, MmRuleReader *rd);
/*
 * Read another roster's attributes and latencies as those of the rosters
 * read by rd (finished): string values get the same ids, latencies the same
 * regions (a region none of them has is left out). rd may be NULL (the
 * queue reads neither).
 */
extern void mm_rules_read_more(const MmMatcherConfig *cfg, MmRoster *x, Jsonb *attrs, Jsonb *lat,
							   MmRuleReader *rd);
/* The id of a region among the rosters read by rd; -1 if none of them has it. */
extern int	mm_rules_region_id(const MmRuleReader *rd, const char *name);

/* SQL side (roster_read.c, queue_commit.c, tick.c, backfill.c): these use SPI and fmgr. */
extern void mm_queue_config(Jsonb *config, MmMatcherConfig *cfg);

/* Order int64 values (for qsort and bsearch). */
extern int	mm_cmp_int64(const void *a, const void *b);

/* A roster id and its index in a roster set; lookups are sorted by id. */
typedef struct MmRosterIndex
{
	int64		id;
	int			index;
} MmRosterIndex;

/*
 * The lookup of the rosters set->r[which[k]] (k < n), or of every roster
 * of the set when which is NULL (n ignored); *nout gets its length.
 */
extern MmRosterIndex *mm_roster_lookup(const MmRosterSet *set, const int *which, int n,
									   int *nout);

/* The set index of roster "id" in a lookup of n, or -1. */
extern int	mm_roster_find(const MmRosterIndex *lookup, int n, int64 id);

/*
 * Lock the waiting rosters set->r[which[k]] (k < n) of a queue, skipping
 * those another session holds (FOR UPDATE SKIP LOCKED), then count their
 * players in a new snapshot, so that a player removed meanwhile shows.
 * Returns per set index whether the roster is held with all the players
 * the set read: a match or a fill of rosters not all whole is dropped.
 */
extern bool *mm_lock_rosters(int32 queue_id, const MmRosterSet *set, const int *which, int n);
extern void mm_read_rosters(TimestampTz at, bool counts, MmMatcherConfig *cfg, MmRosterSet *out);
struct SPITupleTable;
extern void mm_read_rosters_grouped(TimestampTz at, MmMatcherConfig *cfg, MmRosterSet *out,
									struct SPITupleTable *players, uint64 nplayers);
extern double mm_matcher_prediction(const MmMatch *mt, const MmMatcherConfig *cfg);

/*
 * Each team's odds of a match (its probability of winning), in team order,
 * into odds[cfg->nteams], under the queue's rating model from the figures
 * of its rosters (match_odds.c), each pairing's odds scaled by the queue's
 * calibration (scale 1: the family's own; odds_scale.h): at two teams the
 * family's two-team odds; with more, the mean over a team's pairings, as
 * the families' predict does.
 */
extern void mm_matcher_odds(const MmMatch *mt, const MmRoster *rosters,
							const MmMatcherConfig *cfg, double scale, double *odds);
/* Config key "team_names" (rules.c). */
extern void mm_team_names_parse(JsonbValue *v, void *base, const char *what, const char *path);
extern void mm_team_names_render(StringInfo buf, const void *base);
/*
 * NOTIFY a queue's channel (mm_queue_<queue id>) with match ids under
 * "key" (ids <= 0 skipped), split so that no payload exceeds NOTIFY's
 * limit; sent when the transaction commits.
 */
extern void mm_queue_notify(int32 queue_id, const char *name, const int64 *ids, int n,
							const char *key);
/*
 * backfill.c: a tick fills the open backfill requests of its queue in two
 * steps, planned in memory over the rosters read (again if the tick reads
 * more of the queue), then written
 */
typedef struct MmBackfillPlan MmBackfillPlan;
extern bool mm_backfill_plan(int32 queue_id, TimestampTz at, const MmMatcherConfig *cfg,
							 const MmRosterSet *set, MmBackfillPlan **plan, MmRosterSet *rest);
extern int	mm_backfill_apply(int32 queue_id, const char *name, int64 tick_id, TimestampTz at,
							  const MmRosterSet *set, const MmBackfillPlan *plan);

/*
 * ready.c: dissolve a queue's proposed matches whose ready check ended;
 * returns how many, and in *failed how many could not be dissolved
 */
extern int	mm_ready_resolve(int32 queue_id, TimestampTz at, int *failed);

#endif							/* MM_MATCHER_H */
