/*-------------------------------------------------------------------------
 *
 * rules.h
 *		Roster attributes and the declarative rules of a queue: the config
 *		keys "attributes" and "rules", the values a roster carries, and the
 *		interface through which a rule plugs into the matcher's phases.
 *
 * A queue declares its attributes (name -> type number, string or
 * string_set; a default; whether required). A roster carries their values
 * (mm.roster.attributes) and its latency per region (mm.roster.latencies).
 * A rule is hard: it filters the potentials of a target (admit, pairwise
 * against the target) and keeps a match being populated consistent (start,
 * fits, add, over every roster of the match). Each rule has at most one
 * parameter (a distance's "max", an intersection's "min", a latency's
 * "max"), which an "expand" schedule relaxes step by step with the target's
 * wait. The GW2 rating filter and scoring stay the matcher's own; a queue
 * without rules matches exactly as before.
 *
 * A new rule is one MmRuleOps in rules.c (its type, its parameter and the
 * four phase functions), plus its documentation.
 *
 *-------------------------------------------------------------------------
 */
#ifndef MM_RULES_H
#define MM_RULES_H

#include "config.h"

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
	JsonbValue *def;			/* the default; NULL: none */
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

struct MmRuleOps;

/* One rule of a queue (config key "rules"). */
typedef struct MmRule
{
	const struct MmRuleOps *ops;
	char	   *name;			/* unique in the queue; default: its type and attribute */
	char	   *type;
	char	   *attribute;		/* NULL: none (latency) */
	int			attr;			/* index of the attribute; -1: none */
	double		value;			/* its parameter before any expansion */
	int			nsteps;
	MmExpandStep *steps;		/* by "after", ascending */
} MmRule;

/* What a match being populated holds, per rule. */
typedef struct MmRuleState
{
	double		lo;				/* distance: smallest and largest value */
	double		hi;
	int			nids;			/* intersect: values shared by every roster */
	int		   *ids;
	double	   *worst;			/* latency: per region, the worst latency */
} MmRuleState;

struct MmRoster;

typedef struct MmRuleOps
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
	/* once per run, before the targets (NULL: nothing to prepare) */
	void		(*prepare) (const MmRule *rule, struct MmRoster *r, int n, int nregions);
	/* filter: may p be a potential of target? */
	bool		(*admit) (const MmRule *rule, double limit, const struct MmRoster *target,
						  const struct MmRoster *p, int nregions);
	/* populate: a match holding only the target */
	void		(*start) (MmRuleState *st, const MmRule *rule, const struct MmRoster *target,
						  int nregions);
	/* may r join the match? */
	bool		(*fits) (const MmRuleState *st, const MmRule *rule, double limit,
						 const struct MmRoster *r, int nregions);
	/* r joins the match */
	void		(*add) (MmRuleState *st, const MmRule *rule, const struct MmRoster *r, int nregions);
} MmRuleOps;

/*
 * A latency rule with at most this many parameters (its value and its
 * expansion steps) over at most 64 regions keeps, per roster, a bit mask
 * of the regions within each parameter: the filter is then one AND.
 */
#define MM_LAT_LEVELS 4

/* The parameter of a rule after the target has waited "age" seconds. */
extern double mm_rule_limit(const MmRule *rule, double age);

/* The wait (seconds) of the rule's next expansion step after "age"; -1: none. */
extern double mm_rule_next_step(const MmRule *rule, double age, double *value);

/* Config keys "attributes" and "rules" (MM_CONFIG_CUSTOM callbacks). */
extern void mm_attributes_parse(JsonbValue *v, void *base, const char *what, const char *path);
extern void mm_attributes_render(StringInfo buf, const void *base);
extern void mm_rules_parse(JsonbValue *v, void *base, const char *what, const char *path);
extern void mm_rules_render(StringInfo buf, const void *base);

/*
 * The region of the lowest worst latency of a match's latency state within
 * "limit" (ties to the lower id: region ids are in name order); -1: none.
 */
extern int	mm_rule_region(const MmRuleState *st, double limit, int nregions);

#endif							/* MM_RULES_H */
