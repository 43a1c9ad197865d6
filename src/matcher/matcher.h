/*-------------------------------------------------------------------------
 *
 * matcher.h
 *		The matcher: the whole of its interface.
 *
 * The matcher is mm's pure computation: the Guild Wars 2 wiki's PvP
 * roster matcher (createMatches, gatherPotentials, populateMatch,
 * scoreRoster) over an in-memory array of rosters, the queue's rules
 * (attributes, latencies, roles, parties), the search of a backfill and a
 * match's odds. It works on the plain C structs below and nothing else: it
 * reads no table, runs no SQL and parses no jsonb. The queue (src/queue/)
 * reads a queue's config and its rosters into these structs before it
 * calls mm_matcher_run or mm_matcher_backfill, and writes their results
 * back; mm.match_rosters runs it over any query's rows; the results
 * (src/results/) read a match's rating config. make test's layout suite
 * fails if a file of src/matcher/ uses SPI, opens a relation, reads a
 * catalog or includes a header of the queue or the results.
 *
 * Files: matcher.c (createMatches: the run over the targets, buckets),
 * matcher_gw2.c (the GW2 wiki's phases), matcher_backfill.c (a running
 * match's open seats), match_odds.c (a match's prediction and odds),
 * rules.c and rule_<type>.c (the rules' phases, one file per type);
 * matcher_run.h and rules.h are private to them.
 *
 *-------------------------------------------------------------------------
 */
#ifndef MM_MATCHER_H
#define MM_MATCHER_H

#include "mm.h"
#include "config.h"
#include "gw2.h"
#include "rating_model.h"

/* Attributes, roles and rules */

typedef enum MmAttrType
{
	MM_ATTR_NUMBER,
	MM_ATTR_STRING,
	MM_ATTR_SET					/* a set of strings */
} MmAttrType;

/* One declared attribute (config key "attributes"). */
typedef struct MmAttrDecl
{
	char	   *name;
	MmAttrType	type;
	char	   *type_name;		/* as given */
	bool		required;
	struct JsonbValue *def;		/* the default; NULL: none */
} MmAttrDecl;

/* A roster's value of one attribute, strings interned to ids. */
typedef struct MmAttrValue
{
	bool		present;		/* false: missing (declared after it was queued) */
	double		num;			/* number */
	int			id;				/* string */
	int			nset;			/* string_set: sorted distinct ids */
	int		   *set;
} MmAttrValue;

/* One step of an expansion: from "after" seconds of the target's wait. */
typedef struct MmExpandStep
{
	MmDuration	after;
	double		value;
} MmExpandStep;

#define MM_ATTR_BIT(t) (1 << (t))

/* A rule's phases in the matcher: private to it (rules.h). */
struct MmRuleOps;

/*
 * A type of rule, as the config reader sees it: its name, its parameter
 * (key, range, default, which way relaxes), the attribute types it takes,
 * whether it buckets the queue, may be soft or reads the queue's roles.
 * Each type is one file of the matcher, rule_<type>.c.
 */
typedef struct MmRuleType
{
	const char *type;
	const char *param;			/* its parameter's key; NULL: none */
	double		param_min;		/* its range */
	double		param_max;
	bool		param_required;
	double		param_default;
	bool		relax_up;		/* a larger parameter is looser */
	int			attr_types;		/* bit per MmAttrType allowed; 0: no attribute */
	bool		partitions;		/* the queue is bucketed on it (equal) */
	const char *unit;			/* of the parameter, in messages */
	bool		soft;			/* it may be soft (scored, not filtered) */
	bool		soft_filters;	/* soft, it still filters by its admit and fits
								 * (latency: the rosters' own limits) */
	bool		teams;			/* it reads the queue's roles (roles) */
	bool		odds;			/* it reads a complete match's odds (balance) */
	const struct MmRuleOps *ops;	/* its phases */
} MmRuleType;

/* The rule types, in the order the docs list them; NULL ends the list. */
extern const MmRuleType *const mm_rule_types[];

/* The type of that name; NULL: none. */
extern const MmRuleType *mm_rule_type_find(const char *type);

/* The rule types' names, for messages ("equal, distance, ..."). */
extern const char *mm_rule_type_names(void);

/* One rule of a queue (config key "rules"). */
typedef struct MmRule
{
	const MmRuleType *kind;		/* its type */
	const struct MmRuleOps *ops;	/* kind->ops */
	char	   *name;			/* unique in the queue; default: its type and attribute */
	char	   *type;
	char	   *attribute;		/* NULL: none (latency) */
	int			attr;			/* index of the attribute; -1: none */
	double		value;			/* its parameter before any expansion */
	int			nsteps;
	MmExpandStep *steps;		/* by "after", ascending */
	bool		soft;			/* scored, not filtered (distance, latency) */
	double		weight;			/* soft: score points per unit of its measure */
	int			team_size;		/* the queue's (set by mm_rules_check) */
	int			nteams;			/* the queue's teams (set by mm_rules_check) */
	/* roles: players needed per role, by name as given and per role id */
	int			ncounts;
	char	  **count_names;
	int		   *count_values;
	int			nroles;			/* the queue's declared roles */
	int		   *need;			/* per role id */
	int			premade;		/* party: the party size that brings the rule in */
} MmRule;

/*
 * Teams of a match: the queue's "teams", at most MM_TEAMS. The rules that
 * look at teams (roles, party) keep their state per team, indexed by side,
 * and loop over the queue's teams (MmRule.nteams).
 */
#define MM_TEAMS 64

/* The match records a region that no roster read has a latency to. */
#define MM_REGION_ABSENT (-2)

/*
 * How a match's chosen rosters are split into its teams (config key
 * "split"): the fairest split, whose favourite's odds are closest to even
 * under the queue's rating model (match_split.c), or the teams as the GW2
 * wiki's populateMatch filled them.
 */
typedef enum MmSplit
{
	MM_SPLIT_FAIREST,
	MM_SPLIT_GW2
} MmSplit;

/* A match of at most this many rosters is split exactly (by enumeration). */
#define MM_SPLIT_EXACT 10

/* The queue's config */

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
	/* "split": how the chosen rosters are split into teams */
	char	   *split_name;
	MmSplit		split;

	/*
	 * Not a config key: the scale of the queue's calibrated odds
	 * (odds_scale.h) the odds are compared and stored with; 1: the family's
	 * own. The queue sets it before a run (mm_queue_config leaves 1).
	 */
	double		odds_scale;
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
	MM_FAIL_RULE,				/* a rule left no potentials, or kept the teams from filling */
	MM_FAIL_BLOCKS				/* the players' blocks did (mm.block) */
} MmFailReason;

#define MM_FAIL_REASONS 7

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
	/*
	 * latencies: nlat of them, to the regions lat_region (ids ascending,
	 * at most MM_ROSTER_REGIONS_MAX); a region not listed: none given. lat
	 * NULL: no latencies at all
	 */
	double	   *lat;
	int		   *lat_region;
	int			nlat;
	int		   *role_count;		/* per declared role: its players; NULL: none given */
	double		max_latency;	/* its players' own latency limit, ms; 0: none */
	int			nblocks;		/* rosters it may not share a match with (its */
	int64	   *blocks;			/* players blocked theirs or were blocked):
								 * their ids, ascending */

	/*
	 * The rules' filter bits of the roster, as mm_matcher_roster_bits gave
	 * them under the queue's config and region count; NULL: each run
	 * computes them. A caller that keeps its rosters from one run to the
	 * next (the queue's kept input) may keep these with them.
	 */
	const uint64 *rule_bits;
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
	int			fail_kept;		/* MM_FAIL_RULE: the rosters it kept out of
								 * the potentials, when that is why the
								 * teams could not be filled; else 0 */
	int			npotentials;	/* as a target: potentials found; -1 if not tried */
	double		fail_favourite; /* a rule that reads odds refused its match:
								 * the favourite's odds of that match */
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
	int		   *failed;			/* the failed targets' indexes, in fail order */
	int			failed_by_reason[MM_FAIL_REASONS];
	int		   *failed_by_rule; /* per rule (MM_FAIL_RULE) */
	int			targets_tried;
	bool		stopped_by_limit;
	bool		undecided;		/* cfg->prefix: a target needs more of the queue */
} MmMatcherResult;


extern double mm_matcher_padding(const MmMatcherConfig *cfg, double age);

/*
 * Words of a roster's rule_bits under cfg (with its nregions); 0: no rule
 * filters as bits. mm_matcher_roster_bits fills them (false: a rule cannot
 * give them, and the roster keeps rule_bits NULL).
 */
extern int	mm_matcher_bits_words(const MmMatcherConfig *cfg);
extern bool mm_matcher_roster_bits(const MmMatcherConfig *cfg, const MmRoster *r, uint64 *bits);
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
	double		made_favourite; /* the favourite's odds when the match was
								 * made (a balance rule holds a fill to no
								 * less); 0: unknown */
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

/*
 * The same for any rosters and teams: rosters r[0..n-1], team_of[x] the
 * team index of r[x] (0 to nteams - 1), under "model" with its queue
 * parameters "params"; iws and dws hold 2 n ints and 2 n doubles of
 * workspace. Returns the favourite's odds (the largest).
 */
extern double mm_split_odds(const MmRatingModel *model, const void *params, int nteams, int n,
							const MmRoster *const *r, const int *team_of, double scale,
							double *odds, int *iws, double *dws);

/* Whether rosters a and b may not share a match (a player of one blocked one of the other). */
extern bool mm_rosters_blocked(const MmRoster *a, const MmRoster *b);

/* The parameter of a rule after the target has waited "age" seconds. */
extern double mm_rule_limit(const MmRule *rule, double age);

/* Its level: 0 for the rule's value, s + 1 from expansion step s on. */
extern int	mm_rule_level(const MmRule *rule, double age);

/* The parameter of a rule at a level. */
extern double mm_rule_level_limit(const MmRule *rule, int level);

/* The wait (seconds) of the rule's next expansion step after "age"; -1: none. */
extern double mm_rule_next_step(const MmRule *rule, double age, double *value);

/* A declared role's id (-1: not declared); the declared roles, for messages. */
extern int	mm_role_find(const MmMatcherConfig *cfg, const char *name);
extern char *mm_role_list(const MmMatcherConfig *cfg);

#endif							/* MM_MATCHER_H */
