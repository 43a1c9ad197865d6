/*-------------------------------------------------------------------------
 *
 * queue.h
 *		The queue: its tables and the SQL side of matching. It reads a
 *		queue's config and its waiting rosters into the matcher's structs
 *		(matcher.h), runs the matcher in a tick, a backfill or a preview,
 *		and writes matches, fills and ready checks back.
 *
 * Files: queue_config.c and rules_config.c (a queue's jsonb config read
 * into MmMatcherConfig: keys, checks, rendering), roster_values.c (a
 * roster's attributes, latencies and roles read and checked), roster_read.c
 * (the rosters of a query or a queue read into an MmRosterSet, and locked),
 * roster_limits.c (the players' blocks and latency limits), tick.c
 * (mm.tick, mm.preview), explain.c, run_ticks.c, ready.c (ready
 * checks), backfill.c, queue_commit.c (the locks and notifications a tick
 * and a backfill share), citus.c (whether the queue tables are distributed
 * over Citus) and queue.c (the SQL functions of the matcher:
 * mm.match_rosters, mm.matcher_config).
 *
 *-------------------------------------------------------------------------
 */
#ifndef MM_QUEUE_H
#define MM_QUEUE_H

#include "matcher.h"

#include "datatype/timestamp.h"
#include "lib/stringinfo.h"
#include "nodes/pg_list.h"
#include "utils/array.h"
#include "utils/hsearch.h"

extern void mm_matcher_defaults(MmMatcherConfig *cfg);
extern void mm_matcher_check(MmMatcherConfig *cfg);
/* Config keys "attributes" and "rules" (MM_CONFIG_CUSTOM callbacks). */
extern void mm_attributes_parse(JsonbValue *v, void *base, const char *what, const char *path);
extern void mm_attributes_render(StringInfo buf, const void *base);
extern void mm_rules_parse(JsonbValue *v, void *base, const char *what, const char *path);
extern void mm_rules_render(StringInfo buf, const void *base);

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
	char	  **value_names;	/* by value id */
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
/* Config key "roles". */
extern void mm_roles_parse(JsonbValue *v, void *base, const char *what, const char *path);
extern void mm_roles_render(StringInfo buf, const void *base);
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
/*
 * The same, for a kept input (tick_input.c): a latency to a region none of
 * the rosters read by rd has sets *unknown (the input must be read again:
 * region ids are in name order).
 */
extern void mm_rules_read_known(const MmMatcherConfig *cfg, MmRoster *x, Jsonb *attrs, Jsonb *lat,
								MmRuleReader *rd, bool *unknown);
/* The id of a region among the rosters read by rd; -1 if none of them has it. */
extern int	mm_rules_region_id(const MmRuleReader *rd, const char *name);

/* A queue's config read into the matcher's struct, checked (queue_config.c). */
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
/*
 * The ids a reading of rosters interns (professions, attribute values,
 * regions), kept by a caller that reads rosters in batches whose ids must
 * agree (the what-if replay, whatif_record.c): each read starts from them
 * and leaves them updated. Its regions are interned, in name order, before
 * the first read, so that the latencies of every batch are dense over the
 * same ids.
 */
typedef struct MmRosterIds
{
	int			nprof;
	int			prof_cap;
	char	  **prof_names;
	MmRuleReader rd;
} MmRosterIds;
extern void mm_read_rosters_ids(TimestampTz at, MmMatcherConfig *cfg, MmRosterSet *out, MmRosterIds *ids);
struct SPITupleTable;
extern void mm_read_rosters_grouped(TimestampTz at, MmMatcherConfig *cfg, MmRosterSet *out,
									struct SPITupleTable *players, uint64 nplayers);
/*
 * roster_limits.c: what the players of the rosters read asked of their
 * matches: the blocks between the set's rosters (mm.block) and, for a
 * queue with a latency rule, their own latency limits; from the queue's
 * tables, or from the optional columns "blocks" and "max_latency" of a
 * rosters query (SPI_tuptable, just read by mm_read_rosters). And the
 * scale of a queue's calibrated odds as stored (1: none).
 */
extern void mm_roster_limits_read(int32 queue_id, TimestampTz at, const MmMatcherConfig *cfg,
								  MmRosterSet *set, List **touched);
extern void mm_roster_limits_columns(const MmMatcherConfig *cfg, MmRosterSet *set);
extern double mm_queue_stored_odds_scale(int32 queue_id, const MmMatcherConfig *cfg);
/*
 * For a kept input (tick_input.c): the same from a queue's rows with a
 * column "position", each roster's place and joined_at put in position[]
 * and joined[] (room for SPI_processed); players NULL: the rows carry their
 * players' columns (Q_READ_FIRST's form).
 */
extern void mm_read_rosters_kept(TimestampTz at, MmMatcherConfig *cfg, MmRosterSet *out,
								 struct SPITupleTable *players, uint64 nplayers,
								 int64 *position, TimestampTz *joined);
/*
 * Read more rosters of a queue (the rows of the last SPI result, the
 * players' columns in each row) as those of "base" were read: string values
 * interned with its ids, latencies by its regions, professions added to
 * its list. False when a roster has a latency to a region none of base's
 * rosters has (base must be read again).
 */
extern bool mm_read_rosters_more(TimestampTz at, MmMatcherConfig *cfg, MmRosterSet *base,
								 MmRosterSet *out, int64 *position, TimestampTz *joined);
/* Config key "team_names" (rules_config.c). */
extern void mm_team_names_parse(JsonbValue *v, void *base, const char *what, const char *path);
extern void mm_team_names_render(StringInfo buf, const void *base);
/*
 * The start of a payload of the queue's channel, {"queue_id": .. and, when
 * its JSON-escaped name takes at most 1000 bytes, "queue": ".." (every name
 * 0.2.0 accepts does; a name 0.1.0 accepted may not): the payload stays
 * under NOTIFY's limit whatever the name.
 */
extern void mm_queue_payload_head(StringInfo buf, int32 queue_id, const char *name);

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
/* Whether a plan found no open request (a tick then plans again only if it has to). */
extern bool mm_backfill_none(const MmBackfillPlan *plan);
/* The rosters an applied plan moved into their matches (*ids); returns how many. */
extern int	mm_backfill_moved(const MmBackfillPlan *plan, const MmRosterSet *set, int64 **ids);

/*
 * citus.c: whether mm.citus_distribute_queues has distributed the queue
 * tables (the caller is connected to SPI)
 */
extern bool mm_queues_distributed(void);

/*
 * ready.c: dissolve a queue's proposed matches whose ready check ended;
 * returns how many, and in *failed how many could not be dissolved
 */
extern int	mm_ready_resolve(int32 queue_id, TimestampTz at, int *failed);

/* The event feed (events.c): the events of a tick's matches and fills. */
extern void mm_events_matches(int32 queue_id, const int64 *ids, int n,
							  double accept_timeout_s, TimestampTz at);
extern void mm_events_backfilled(int32 queue_id, int64 tick_id, TimestampTz at);
/*
 * events.c: a tick of the queue numbers the events it writes (on Citus) at
 * its end, once, with mm_events_undefer: until then the queue's
 * mm.queue_event_position row is not locked by them.
 */
extern void mm_events_defer(int32 queue_id);
extern void mm_events_undefer(int32 queue_id);

#endif							/* MM_QUEUE_H */
