/*-------------------------------------------------------------------------
 *
 * rules.c
 *		The rules of a queue inside the matcher: the list of rule types
 *		(each in its own file, rule_<type>.c, behind MmRuleOps, rules.h), the
 *		steps of a rule's expansion and the declared roles. The queue reads
 *		the config keys "attributes", "roles" and "rules"
 *		(src/queue/rules_config.c) and each roster's values
 *		(src/queue/roster_values.c) into the structs of matcher.h.
 *
 * The rules (hard: a filter on a target's potentials, and a check on every
 * roster that joins its match or one of its teams; distance and latency
 * may instead be soft, "soft": true with a "weight": no filter, a score):
 *	- equal: every roster of the match has the same value of a number or
 *	  string attribute (game mode, platform). The matcher buckets the queue
 *	  on it, so a target only ever looks at its own bucket. No parameter.
 *	- distance: the largest difference of a number attribute within the
 *	  match is at most "max".
 *	- intersect: the rosters of the match share at least "min" values of a
 *	  string_set attribute (default 1: a common language).
 *	- latency: the match is played in one region where every roster's
 *	  latency is at most "max" ms; the match records the region of the
 *	  lowest worst latency.
 *	- roles: each team has the given number of players per declared role
 *	  ("counts"); "flex" of a team's counted seats may take any role.
 *	- party: a match holding a party of "premade" players has at least
 *	  "min" players in parties on each team.
 *	- balance: the favourite's odds of the match (teams filled and split)
 *	  are at most "max_favourite".
 * "expand" relaxes the parameter with the target's wait: a list of steps
 * {"after": duration, <parameter>: value}, each looser than the one before.
 *
 *-------------------------------------------------------------------------
 */
#include "rules.h"

#include "lib/stringinfo.h"
#include "utils/memutils.h"

/* The rule types, each in its own file (rule_<type>.c). */
const MmRuleType *const mm_rule_types[] = {
	&mm_rule_equal, &mm_rule_distance, &mm_rule_intersect, &mm_rule_latency, &mm_rule_roles,
	&mm_rule_party, &mm_rule_balance, NULL
};

const MmRuleType *
mm_rule_type_find(const char *type)
{
	for (int t = 0; mm_rule_types[t]; t++)
		if (strcmp(mm_rule_types[t]->type, type) == 0)
			return mm_rule_types[t];
	return NULL;
}

const char *
mm_rule_type_names(void)
{
	static char *names = NULL;

	if (names == NULL)
	{
		StringInfoData b;
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		initStringInfo(&b);
		for (int t = 0; mm_rule_types[t]; t++)
			appendStringInfo(&b, "%s%s", t ? ", " : "", mm_rule_types[t]->type);
		names = b.data;
		MemoryContextSwitchTo(old);
	}
	return names;
}

double
mm_rule_limit(const MmRule *rule, double age)
{
	return mm_rule_level_limit(rule, mm_rule_level(rule, age));
}

int
mm_rule_level(const MmRule *rule, double age)
{
	int			level = 0;

	while (level < rule->nsteps && rule->steps[level].after.seconds <= age)
		level++;
	return level;
}

double
mm_rule_level_limit(const MmRule *rule, int level)
{
	return level == 0 ? rule->value : rule->steps[level - 1].value;
}

double
mm_rule_next_step(const MmRule *rule, double age, double *value)
{
	for (int s = 0; s < rule->nsteps; s++)
		if (rule->steps[s].after.seconds > age)
		{
			*value = rule->steps[s].value;
			return rule->steps[s].after.seconds;
		}
	return -1;
}

/* The id of a declared role; -1: not declared. */
int
mm_role_find(const MmMatcherConfig *cfg, const char *name)
{
	for (int k = 0; k < cfg->nroles; k++)
		if (strcmp(cfg->roles[k], name) == 0)
			return k;
	return -1;
}

/* The declared roles, for messages. */
char *
mm_role_list(const MmMatcherConfig *cfg)
{
	StringInfoData b;

	initStringInfo(&b);
	for (int k = 0; k < cfg->nroles; k++)
		appendStringInfo(&b, "%s%s", k ? ", " : "", cfg->roles[k]);
	if (cfg->nroles == 0)
		appendStringInfoString(&b, "no roles");
	return b.data;
}
