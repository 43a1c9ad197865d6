/*-------------------------------------------------------------------------
 *
 * mm.h
 *		Shared declarations of the mm extension: game matchmaking and skill
 *		rating inside PostgreSQL.
 *
 * Feature files (one per feature, see docs/architecture.md) keep their math in plain C
 * over plain structs; the helpers declared here are the small checks that
 * every SQL-callable wrapper shares, so that errors read the same across
 * the extension.
 *
 *-------------------------------------------------------------------------
 */
#ifndef MM_H
#define MM_H

#include "postgres.h"

#include "pg_compat.h"

#include "fmgr.h"
#include "utils/array.h"
#include "utils/jsonb.h"

/*
 * Version of the C library: the Makefile passes mm.control's default_version
 * (-DMM_VERSION), so that the two cannot disagree.
 */
#ifndef MM_VERSION
#error "MM_VERSION is not defined: build mm with its Makefile"
#endif

/*
 * Refuse to serve SQL objects of another version than the library's (an
 * ALTER EXTENSION mm UPDATE forgotten after installing a new mm.so, or the
 * other way round). Cheap enough to call once per function lookup; a no-op
 * inside CREATE/ALTER EXTENSION mm, where the scripts of every version run.
 */
extern void mm_check_version(void);

/* mm.tick_read_batch (a developer setting): rosters a tick reads first, 0 automatic;
 * mm.whatif_read_batch: arrivals a what-if replay reads at a time, 0 automatic */
extern int	mm_tick_read_batch;
extern int	mm_whatif_read_batch;
/* mm.event_retention: how long mm.purge keeps the queues' events, in seconds */
extern int	mm_event_retention_s;
/* mm.keep_tick_input: which ticks keep the matcher's input for the next one */
#define MM_KEEP_INPUT_OFF		0
#define MM_KEEP_INPUT_RUN_TICKS	1
#define MM_KEEP_INPUT_ALWAYS	2
extern int	mm_keep_tick_input;
/* mm.check_tick_input (a developer setting): compare a kept input with the tables at each tick */
extern bool mm_check_tick_input;

/*
 * Every SQL-callable C function of mm is declared with PG_FUNCTION_INFO_V1.
 * fmgr calls the info function it defines once per function per backend,
 * when it first looks the function up (and again after the function is
 * replaced), and also when CREATE FUNCTION validates it. mm's version of
 * the macro checks the version there, so the check costs nothing per call
 * and covers every C function, including those added later, without a line
 * in any of them. Same as fmgr.h's definition plus the check; the function
 * itself is PGDLLEXPORT as in fmgr.h since PostgreSQL 16, whose PGXS builds
 * with -fvisibility=hidden (before 16 every symbol was visible, and the
 * mark changes nothing).
 */
#undef PG_FUNCTION_INFO_V1
#define PG_FUNCTION_INFO_V1(funcname) \
extern PGDLLEXPORT Datum funcname(PG_FUNCTION_ARGS); \
extern PGDLLEXPORT const Pg_finfo_record * CppConcat(pg_finfo_,funcname)(void); \
const Pg_finfo_record * \
CppConcat(pg_finfo_,funcname) (void) \
{ \
	static const Pg_finfo_record my_finfo = { 1 }; \
	mm_check_version(); \
	return &my_finfo; \
} \
extern int no_such_variable

/*
 * Refuse a call that writes when this server is a hot standby: "fname"
 * (such as "mm.tick") must run on the primary. SQLSTATE 25006, as
 * PostgreSQL's own read-only error, with mm's message and a hint. C
 * functions call it first; SQL and PL/pgSQL functions call its SQL form,
 * mm._require_primary(fname).
 */
extern void mm_require_primary(const char *fname);

/*
 * NULL where a value is needed (docs/conventions.md, NULL): SQLSTATE 22004
 * naming the argument. mm_null_arg raises it for "arg";
 * mm_args_not_null raises it for the first NULL argument of the call whose
 * bit is not set in "nullable" (bit i: argument i, 0-based, may be NULL),
 * naming it as the function's declaration does. SQL and PL/pgSQL functions
 * call the SQL form, mm._null_arg(arg), when an argument is NULL.
 */
pg_noreturn extern void mm_null_arg(const char *arg);
extern void mm_args_not_null(FunctionCallInfo fcinfo, uint64 nullable);

/*
 * Check that a float8 argument is finite; "what" names it in the message
 * ("sigma", "beta"...).
 */
extern void mm_check_finite(double value, const char *what);

/* Check that a float8 argument is finite and strictly positive. */
extern void mm_check_positive(double value, const char *what);

/* Check that a float8 argument is finite and not negative. */
extern void mm_check_nonnegative(double value, const char *what);

/*
 * Check a computed float8 result: finite inputs that overflow to
 * +-Infinity or produce NaN are reported as out of range, never returned.
 */
extern double mm_check_result(double value, const char *what);

/*
 * A numeric (a jsonb number, say) as a float8: exactly what numeric_float8
 * gives, without its trip through text for the values a double holds
 * exactly enough (at most 2^53 times a power of ten up to 10^22).
 */
struct NumericData;
extern double mm_numeric_float8(struct NumericData *num);

/*
 * Deconstruct a one-dimensional float8[] into a palloc'd C array, refusing
 * NULL elements and multidimensional arrays. Returns the element count; an
 * empty array gives 0 and *values = NULL. Elements are not checked for
 * finiteness: call mm_check_finite on each where that matters.
 */
extern int	mm_float8_array(ArrayType *array, const char *what, double **values);

/*
 * Same for int4[] and int8[].
 */
extern int	mm_int4_array(ArrayType *array, const char *what, int32 **values);
extern int	mm_int8_array(ArrayType *array, const char *what, int64 **values);

/* Same for text[]: the elements as text Datums (not detoasted). */
extern int	mm_text_array(ArrayType *array, const char *what, Datum **values);

/*
 * Names (names.c; docs/conventions.md, "Names mm accepts"): every name mm
 * accepts has 1 to MM_NAME_MAX bytes, as a PostgreSQL identifier, and no
 * control character (U+0000 to U+001F, U+007F, and U+0080 to U+009F in a
 * UTF-8 database). mm_check_name refuses another with SQLSTATE 22023, "kind"
 * naming it in the message ("queue name", "queue config key \"roles[2]\"");
 * mm_name_valid only tells.
 */
#define MM_NAME_MAX (NAMEDATALEN - 1)
extern void mm_check_name(const char *kind, const char *name, int len);
extern bool mm_name_valid(const char *name, int len);

/* The function's composite result row, from values and nulls. */
extern Datum mm_result_row(FunctionCallInfo fcinfo, Datum *values, bool *nulls);

/*
 * Builders of one-dimensional arrays (arrays.c, beside the readers above):
 * n values, NULL where isnull[i] (isnull may be NULL).
 */
extern Datum mm_float8_array_datum(int n, const double *v, const bool *isnull);
extern Datum mm_int4_array_datum(int n, const int32 *v, const bool *isnull);
extern Datum mm_int8_array_datum(int n, const int64 *v);
extern Datum mm_bool_array_datum(int n, const bool *v);
/* A text[] of n C strings (NULL ones are NULL elements), and of n text Datums. */
extern Datum mm_text_array_datum(int n, char *const *v);
extern Datum mm_text_datums_array(int n, Datum *texts);
/* A bigint[] Datum of n ids. */
extern Datum mm_id_array(const int64 *ids, int n);

#endif							/* MM_H */
