/*-------------------------------------------------------------------------
 *
 * statement.c
 *		mm's own SQL statements with named parameters (statement.h): the
 *		names turned into $1, $2, ... once, the plan kept, the arguments
 *		given by name and checked against the statement.
 *
 *-------------------------------------------------------------------------
 */
#include "statement.h"

#include <ctype.h>

#include "executor/spi.h"
#include "nodes/parsenodes.h"
#include "utils/plancache.h"
#include "lib/stringinfo.h"
#include "nodes/params.h"

/* The index of the parameter "name" (len bytes) in st's list, or -1. */
static int
param_index(const MmStatement *st, int nparams, const char *name, size_t len)
{
	for (int k = 0; k < nparams; k++)
		if (strlen(st->params[k].name) == len && strncmp(st->params[k].name, name, len) == 0)
			return k;
	return -1;
}

static bool
ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool
ident_char(char c)
{
	return ident_start(c) || (c >= '0' && c <= '9');
}

/*
 * Prepare st and keep its plan: $name becomes $k (k its place in the
 * list); quoted literals, quoted identifiers and comments are copied as
 * they are.
 */
static void
statement_prepare(MmStatement *st)
{
	StringInfoData sql;
	Oid			types[MM_STATEMENT_MAX_ARGS];
	bool		used[MM_STATEMENT_MAX_ARGS];
	int			n = 0;
	const char *p = st->sql;
	SPIPlanPtr	plan;

	while (n < MM_STATEMENT_MAX_ARGS && st->params[n].name != NULL)
	{
		types[n] = st->params[n].type;
		used[n] = false;
		n++;
	}
	initStringInfo(&sql);
	while (*p)
	{
		if (*p == '\'' || *p == '"')
		{
			char		quote = *p;

			/* a doubled quote inside ends one literal and starts the next: the same text */
			appendStringInfoChar(&sql, *p++);
			while (*p && *p != quote)
				appendStringInfoChar(&sql, *p++);
			if (*p)
				appendStringInfoChar(&sql, *p++);
		}
		else if (p[0] == '-' && p[1] == '-')
		{
			while (*p && *p != '\n')
				appendStringInfoChar(&sql, *p++);
		}
		else if (*p == '$' && (p == st->sql || !ident_char(p[-1])))
		{
			const char *name = p + 1;
			size_t		len = 0;
			int			k;

			if (isdigit((unsigned char) *name))
				elog(ERROR, "mm statement writes a positional parameter ($%c...); name it: \"%s\"",
					 *name, st->sql);
			if (!ident_start(*name))
				elog(ERROR, "mm statement writes a $ that names no parameter: \"%s\"", st->sql);
			while (ident_char(name[len]))
				len++;
			k = param_index(st, n, name, len);
			if (k < 0)
				elog(ERROR, "mm statement uses $%.*s but does not declare it: \"%s\"",
					 (int) len, name, st->sql);
			used[k] = true;
			appendStringInfo(&sql, "$%d", k + 1);
			p = name + len;
		}
		else
			appendStringInfoChar(&sql, *p++);
	}
	for (int k = 0; k < n; k++)
		if (!used[k])
			elog(ERROR, "mm statement declares $%s but does not use it: \"%s\"",
				 st->params[k].name, st->sql);
	plan = SPI_prepare(sql.data, n, types);
	if (plan == NULL)
		elog(ERROR, "SPI_prepare failed for \"%s\": %s", sql.data, SPI_result_code_string(SPI_result));
	if (SPI_keepplan(plan) != 0)
		elog(ERROR, "SPI_keepplan failed");
	pfree(sql.data);
	st->nparams = n;
	st->plan = plan;
}

void
mm_args_begin(MmArgs *a, MmStatement *st)
{
	int			n = 0;

	while (n < MM_STATEMENT_MAX_ARGS && st->params[n].name != NULL)
		n++;
	a->st = st;
	a->nparams = n;
	memset(a->given, 0, sizeof(a->given));
	memset(a->nulls, ' ', sizeof(a->nulls));
}

void
mm_arg_maybe(MmArgs *a, const char *name, Datum value, bool isnull)
{
	int			k = param_index(a->st, a->nparams, name, strlen(name));

	if (k < 0)
		elog(ERROR, "mm statement has no parameter $%s: \"%s\"", name, a->st->sql);
	if (a->given[k])
		elog(ERROR, "mm statement's parameter $%s is given twice: \"%s\"", name, a->st->sql);
	a->given[k] = true;
	a->values[k] = isnull ? (Datum) 0 : value;
	a->nulls[k] = isnull ? 'n' : ' ';
}

void
mm_arg(MmArgs *a, const char *name, Datum value)
{
	mm_arg_maybe(a, name, value, false);
}

void
mm_arg_null(MmArgs *a, const char *name)
{
	mm_arg_maybe(a, name, (Datum) 0, true);
}

/* The statement's plan, with every argument given. */
static SPIPlanPtr
args_plan(MmArgs *a)
{
	for (int k = 0; k < a->nparams; k++)
		if (!a->given[k])
			elog(ERROR, "mm statement's parameter $%s is not given: \"%s\"",
				 a->st->params[k].name, a->st->sql);
	if (a->st->plan == NULL)
		statement_prepare(a->st);
	return a->st->plan;
}

int
mm_execute(MmArgs *a, bool read_only, long limit)
{
	SPIPlanPtr	plan = args_plan(a);
	int			ret = SPI_execute_plan(plan, a->values, a->nulls, read_only, limit);

	if (ret < 0)
		elog(ERROR, "SPI_execute_plan failed: %s, running \"%.60s\"",
			 SPI_result_code_string(ret), a->st->sql);
	return ret;
}

void
mm_run(MmArgs *a, bool read_only, int expected)
{
	int			ret = mm_execute(a, read_only, 0);

	if (ret != expected)
		elog(ERROR, "SPI_execute_plan returned %s, running \"%.60s\"",
			 SPI_result_code_string(ret), a->st->sql);
}

void
mm_stream(MmArgs *a, bool read_only, DestReceiver *dest)
{
	SPIPlanPtr	plan = args_plan(a);
	ParamListInfo params = makeParamList(a->nparams);
	SPIExecuteOptions options;
	int			ret;

	for (int k = 0; k < a->nparams; k++)
	{
		params->params[k].value = a->values[k];
		params->params[k].isnull = a->nulls[k] == 'n';
		params->params[k].pflags = PARAM_FLAG_CONST;
		params->params[k].ptype = a->st->params[k].type;
	}
	memset(&options, 0, sizeof(options));
	options.params = params;
	options.read_only = read_only;
	options.dest = dest;
	ret = SPI_execute_plan_extended(plan, &options);
	/* a SELECT into a receiver of DestNone reports SPI_OK_UTILITY */
	if (ret != SPI_OK_SELECT && ret != SPI_OK_UTILITY)
		elog(ERROR, "SPI_execute_plan_extended failed: %s, running \"%.60s\"",
			 SPI_result_code_string(ret), a->st->sql);
}

Portal
mm_open_cursor(MmArgs *a, bool read_only)
{
	SPIPlanPtr	plan = args_plan(a);
	Portal		portal = SPI_cursor_open(NULL, plan, a->values, a->nulls, read_only);

	if (portal == NULL)
		elog(ERROR, "SPI_cursor_open failed: %s, running \"%.60s\"",
			 SPI_result_code_string(SPI_result), a->st->sql);
	return portal;
}

SPIPlanPtr
mm_prepare_rows_query(const char *query, const char *what, const char *hint)
{
	SPIPlanPtr	plan = SPI_prepare(query, 0, NULL);
	List	   *sources;
	CachedPlanSource *source;
	bool		plain = false;

	if (plan == NULL)
		elog(ERROR, "SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
	if (!SPI_is_cursor_plan(plan))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a query that returns rows", what),
				 errdetail("The query is: %s", query),
				 errhint("%s", hint)));

	/*
	 * One plain SELECT (or VALUES): not a utility statement such as SHOW or
	 * EXPLAIN, no data-modifying WITH, no FOR UPDATE. The caller then runs
	 * it read-only.
	 */
	sources = SPI_plan_get_plan_sources(plan);
	if (list_length(sources) == 1)
	{
		source = (CachedPlanSource *) linitial(sources);
		if (source->commandTag == CMDTAG_SELECT && source->raw_parse_tree != NULL &&
			IsA(source->raw_parse_tree->stmt, SelectStmt) &&
			list_length(source->query_list) == 1)
		{
			Query	   *q = linitial_node(Query, source->query_list);

			plain = q->commandType == CMD_SELECT && q->utilityStmt == NULL &&
				!q->hasModifyingCTE && q->rowMarks == NIL;
		}
	}
	if (!plain)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a single plain SELECT", what),
				 errdetail("The query is: %s", query),
				 errhint("%s Data-modifying WITH, FOR UPDATE and utility statements are not accepted.", hint)));
	return plan;
}

void
mm_run_rows_query(SPIPlanPtr plan, DestReceiver *dest)
{
	SPIExecuteOptions options;
	int			ret;

	memset(&options, 0, sizeof(options));
	options.read_only = true;
	options.dest = dest;
	ret = SPI_execute_plan_extended(plan, &options);
	/* a SELECT into a receiver of DestNone reports SPI_OK_UTILITY */
	if (ret != SPI_OK_SELECT && !(dest != NULL && ret == SPI_OK_UTILITY))
		elog(ERROR, "SPI_execute_plan_extended failed: %s", SPI_result_code_string(ret));
	if (dest == NULL && SPI_tuptable == NULL)
		elog(ERROR, "a query that returns rows returned none");
}

int
mm_rows_query_columns(SPIPlanPtr plan)
{
	Portal		portal = SPI_cursor_open(NULL, plan, NULL, NULL, true);
	int			n = portal->tupDesc ? portal->tupDesc->natts : 0;

	SPI_cursor_close(portal);
	return n;
}

void
mm_run_own_text(const char *sql, bool read_only, int expected)
{
	int			ret = SPI_execute(sql, read_only, 0);

	if (ret != expected)
		elog(ERROR, "SPI_execute returned %s, running \"%.60s\"", SPI_result_code_string(ret), sql);
}
