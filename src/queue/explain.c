/*-------------------------------------------------------------------------
 *
 * explain.c
 *		mm.explain: why a waiting roster waits, with the rule that blocks it and
 *		when its expansion next relaxes it, from the tick's own read and matcher.
 *
 *-------------------------------------------------------------------------
 */
#include "tick.h"

#include <math.h>

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "storage/latch.h"
#include "storage/lock.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

/* explain */

static MmStatement roster_queue_statement = {
	.sql = "SELECT q.queue_id, q.name, q.config FROM mm.roster r "
		"JOIN mm.queue q ON q.queue_id = r.queue_id WHERE r.roster_id = $roster_id AND r.match_id IS NULL",
	.params = {{"roster_id", INT8OID}}
};

/* The queue of a waiting roster: its id, name and config; or an error. */
static int32
roster_queue(int64 roster_id, char **name, MmMatcherConfig *cfg)
{
	MmArgs		a;
	bool		isnull;
	int32		id;

	mm_args_begin(&a, &roster_queue_statement);
	mm_arg(&a, "roster_id", Int64GetDatum(roster_id));
	mm_run(&a, true, SPI_OK_SELECT);
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("roster %lld is not waiting", (long long) roster_id),
				 errhint("mm.roster_status tells what became of it.")));
	id = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	*name = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);
	mm_queue_config(DatumGetJsonbP(SPI_getbinval(SPI_tuptable->vals[0],
												 SPI_tuptable->tupdesc, 3, &isnull)), cfg);
	return id;
}

/* What a tick trying roster "x" first would find, in words. */
static char *
explain_detail(const MmRoster *x, const MmMatcherConfig *cfg, TimestampTz joined)
{
	switch (x->state == MM_ROSTER_MATCHED ? MM_FAIL_NONE : x->fail_reason)
	{
		case MM_FAIL_NONE:
			return psprintf("a tick trying it first would match it with %d potentials", x->npotentials);
		case MM_FAIL_TOO_LARGE:
			return psprintf("the roster has %d players and teams have %d", x->players, cfg->team_size);
		case MM_FAIL_NO_POTENTIALS:
			return psprintf("no other waiting roster's rating range overlaps [%g, %g]", x->lo, x->hi);
		case MM_FAIL_POTENTIALS:
			return psprintf("%d potentials, fewer than potentials_min %d; that rule stops at padding_end, at %s",
							x->npotentials, cfg->filter.potentials_min,
							timestamptz_to_str(joined + (int64) (cfg->filter.padding_end * USECS_PER_SEC)));
		case MM_FAIL_INCOMPLETE:
			return psprintf("the %d potentials cannot fill two teams of %d players (their party sizes do not fit)",
							x->npotentials, cfg->team_size);
		case MM_FAIL_RULE:
			{
				const MmRule *rule = &cfg->rules[x->fail_rule];
				StringInfoData b;
				double		next_value;
				double		next;

				initStringInfo(&b);
				if (rule->kind->odds)
					appendStringInfo(&b, "rule \"%s\" (%s) refuses the match a tick would make of it: its favourite's odds are %.3f%s",
									 rule->name, rule->type, x->fail_favourite,
									 cfg->split == MM_SPLIT_FAIREST ? " in the fairest split of its rosters" : "");
				else if (x->npotentials == 0)
					appendStringInfo(&b, "rule \"%s\" (%s) leaves no potentials", rule->name, rule->type);
				else if (x->fail_kept > 0)
					appendStringInfo(&b, "rule \"%s\" (%s) keeps %d waiting rosters out of the potentials, and the %d left cannot fill the teams",
									 rule->name, rule->type, x->fail_kept, x->npotentials);
				else
					appendStringInfo(&b, "rule \"%s\" (%s) keeps the %d potentials from filling two teams",
									 rule->name, rule->type, x->npotentials);
				if (rule->kind->param == NULL)
				{
					appendStringInfoString(&b, "; it does not expand");
					return b.data;
				}
				appendStringInfo(&b, " at %s %g%s", rule->kind->param, mm_rule_limit(rule, x->age),
								 rule->kind->unit);
				next = mm_rule_next_step(rule, x->age, &next_value);
				if (next < 0)
					appendStringInfoString(&b, "; it does not expand further");
				else
					appendStringInfo(&b, "; its expansion relaxes it to %s %g%s at %s",
									 rule->kind->param, next_value, rule->kind->unit,
									 timestamptz_to_str(joined + (int64) (next * USECS_PER_SEC)));
				return b.data;
			}
		case MM_FAIL_BLOCKS:
			if (x->npotentials == 0)
				return pstrdup("blocks (mm.block) between its players and those of every roster in its range leave no potentials");
			return psprintf("blocks (mm.block) between the players of its %d potentials keep them from filling the teams",
							x->npotentials);
	}
	return NULL;
}

PG_FUNCTION_INFO_V1(mm_explain);

/*
 * mm.explain(roster_id bigint, at timestamptz): why a waiting roster has
 * (not) matched. Runs the matcher over the queue as a tick would at "at",
 * with the roster as the first and only target, and reports its rating
 * range, the potentials it finds, and the outcome.
 */
Datum
mm_explain(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int64		roster_id;
	TimestampTz at;
	MmMatcherConfig cfg;
	MmMatcherResult res;
	MmRosterSet set;
	char	   *name;
	int32		queue_id;
	int			place = -1;
	MmRoster	x;
	TimestampTz joined;
	double		pad_start;
	double		pad_end;
	Datum		values[14];
	bool		nulls[14] = {0};

	mm_args_not_null(fcinfo, 0);
	if (TIMESTAMP_NOT_FINITE(PG_GETARG_TIMESTAMPTZ(1)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("at must be finite")));
	roster_id = PG_GETARG_INT64(0);
	at = PG_GETARG_TIMESTAMPTZ(1);
	InitMaterializedSRF(fcinfo, 0);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	queue_id = roster_queue(roster_id, &name, &cfg);
	tick_read_queue(queue_id, at, &cfg, &set);
	mm_roster_limits_read(queue_id, at, &cfg, &set, NULL);
	cfg.odds_scale = mm_queue_stored_odds_scale(queue_id, &cfg);
	for (int i = 0; i < set.n && place < 0; i++)
		if (set.r[i].id == roster_id)
			place = i;
	if (place < 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("roster %lld has no players", (long long) roster_id),
				 errhint("A roster without players is not waiting for anything; mm.leave takes it out.")));
	/* the roster first, the rest in queue order */
	x = set.r[place];
	memmove(&set.r[1], &set.r[0], sizeof(MmRoster) * place);
	set.r[0] = x;
	cfg.filter.rosters = 1;
	cfg.filter.limit_ms = 3600000;
	mm_matcher_run(set.r, set.n, set.nprof, &cfg, &res);
	x = set.r[0];
	joined = at - (int64) (x.age * USECS_PER_SEC);
	pad_start = cfg.filter.padding_start;
	pad_end = cfg.filter.padding_end;

	values[0] = Int64GetDatum(roster_id);
	values[1] = CStringGetTextDatum(name);
	values[2] = Int32GetDatum(place + 1);
	values[3] = Float8GetDatum(x.age);
	values[4] = Float8GetDatum(x.rating_low);
	values[5] = Float8GetDatum(x.lo);
	values[6] = Float8GetDatum(x.hi);
	/* the range widens from padding_start to padding_end of waiting */
	if (x.age >= pad_end || cfg.filter.padding == 0)
		nulls[7] = nulls[8] = true;
	else
	{
		values[7] = TimestampTzGetDatum(x.age < pad_start ?
										joined + (int64) (pad_start * USECS_PER_SEC) : at);
		values[8] = TimestampTzGetDatum(joined + (int64) (pad_end * USECS_PER_SEC));
	}
	values[9] = Int32GetDatum(Max(x.npotentials, 0));
	values[10] = Int32GetDatum(cfg.filter.potentials_min);
	values[11] = BoolGetDatum(x.age < pad_end);
	values[12] = CStringGetTextDatum(x.state == MM_ROSTER_MATCHED ? "match" :
									 x.fail_reason == MM_FAIL_RULE ?
									 psprintf("rule:%s", cfg.rules[x.fail_rule].name) :
									 mm_fail_reason_names[x.fail_reason]);
	values[13] = CStringGetTextDatum(explain_detail(&x, &cfg, joined));
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	SPI_finish();
	return (Datum) 0;
}

