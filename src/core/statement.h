/*-------------------------------------------------------------------------
 *
 * statement.h
 *		The one way mm's C code runs SQL of its own: a statement written once,
 *		with named parameters, prepared on first use and kept for the
 *		backend's life; its arguments given by name.
 *
 * A statement's text names each parameter as $name (a lower-case letter or
 * "_", then letters, digits or "_"), and its parameter list gives each
 * name's type once:
 *
 *		static MmStatement find_queue = {
 *			"SELECT q.queue_id FROM mm.queue q WHERE q.name = $name",
 *			{{"name", TEXTOID}}
 *		};
 *
 *		MmArgs		a;
 *
 *		mm_args_begin(&a, &find_queue);
 *		mm_arg(&a, "name", CStringGetTextDatum(name));
 *		mm_run(&a, true, SPI_OK_SELECT);
 *
 * On first use the names become $1, $2, ... in list order and the
 * statement is prepared and kept (SPI_keepplan); a name the text uses but
 * the list does not declare, a declared name the text does not use, a
 * positional $n, an argument not given, or one given twice is an internal
 * error (a defect of mm, not of the caller's input), so a statement and
 * its callers cannot drift apart silently. Inside SPI_connect.
 *
 * A query a user passes as text (a history to replay, rosters to match)
 * is the other kind of SQL mm runs: mm_prepare_rows_query checks that it
 * is one plain SELECT, and mm_run_rows_query runs it read-only; it takes
 * no parameters.
 *
 *-------------------------------------------------------------------------
 */
#ifndef MM_STATEMENT_H
#define MM_STATEMENT_H

#include "postgres.h"

#include "tcop/dest.h"

#define MM_STATEMENT_MAX_ARGS 24

/* One named parameter of a statement. */
typedef struct MmParam
{
	const char *name;			/* as the text writes it, without the $ */
	Oid			type;
} MmParam;

/*
 * One of mm's own statements. A file keeps its statements in static
 * (writable) storage: the plan is kept in the statement itself.
 */
typedef struct MmStatement
{
	const char *sql;			/* parameters as $name */
	MmParam		params[MM_STATEMENT_MAX_ARGS];	/* up to the first without a name */
	struct _SPI_plan *plan;		/* prepared on first use, kept */
	int			nparams;		/* counted when prepared */
} MmStatement;

/* The arguments of one execution of a statement, by name. */
typedef struct MmArgs
{
	MmStatement *st;
	int			nparams;
	Datum		values[MM_STATEMENT_MAX_ARGS];
	char		nulls[MM_STATEMENT_MAX_ARGS];	/* 'n': NULL, ' ': a value */
	bool		given[MM_STATEMENT_MAX_ARGS];
} MmArgs;

/* Start the arguments of an execution of st (none given yet). */
extern void mm_args_begin(MmArgs *a, MmStatement *st);

/* Give the parameter "name" a value, or NULL. */
extern void mm_arg(MmArgs *a, const char *name, Datum value);
extern void mm_arg_null(MmArgs *a, const char *name);
/* A value, or NULL when isnull. */
extern void mm_arg_maybe(MmArgs *a, const char *name, Datum value, bool isnull);

/*
 * Run the statement with every argument given; its rows in SPI_tuptable.
 * mm_execute returns SPI_execute_plan's result (a failure, < 0, is an
 * internal error) and stops after "limit" rows (0: no limit); mm_run
 * wants exactly the result "expected".
 */
extern int	mm_execute(MmArgs *a, bool read_only, long limit);
extern void mm_run(MmArgs *a, bool read_only, int expected);

/* Run it with its rows sent to dest, not kept (a scan too large to copy). */
extern void mm_stream(MmArgs *a, bool read_only, DestReceiver *dest);

/*
 * Open a cursor over its rows, to be read in batches (SPI_cursor_fetch, each
 * batch in SPI_tuptable) and closed with SPI_cursor_close: a read too large
 * to hold, whose rows each need more than a receiver's one look.
 */
struct PortalData;
extern struct PortalData *mm_open_cursor(MmArgs *a, bool read_only);

/*
 * Prepare a query a user passed as text (a history to replay, rosters to
 * match), which must be a single plain SELECT (or VALUES) returning rows;
 * "what" names it in the error, "hint" says what it should return.
 */
extern struct _SPI_plan *mm_prepare_rows_query(const char *query, const char *what,
											   const char *hint);

/*
 * Run a user's query, read-only: its rows in SPI_tuptable (dest NULL) or
 * sent to dest one at a time, not kept. mm_rows_query_columns: how many
 * columns its rows have, without running it.
 */
extern void mm_run_rows_query(struct _SPI_plan *plan, DestReceiver *dest);
extern int	mm_rows_query_columns(struct _SPI_plan *plan);

/*
 * Run SQL text that mm composed itself (0.1.0's tick passes its own query
 * to this library), planned for this one run; it must give "expected".
 */
extern void mm_run_own_text(const char *sql, bool read_only, int expected);

#endif							/* MM_STATEMENT_H */
