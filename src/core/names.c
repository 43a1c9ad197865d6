/*-------------------------------------------------------------------------
 *
 * names.c
 *		The one rule for every name mm accepts (docs/conventions.md, "Names
 *		mm accepts"): queues, pools, rules, attributes and their string
 *		values, roles, regions, teams, rating keys, dishonor reasons,
 *		professions, places and signals. A name has 1 to MM_NAME_MAX (63)
 *		bytes, as a PostgreSQL identifier, and no control character (C0,
 *		DEL, and in UTF-8 the C1 controls U+0080 to U+009F), so that it
 *		fits any key, index or NOTIFY payload that carries it and prints as
 *		it is in a message or a JSON document. Every check goes through
 *		mm_check_name: the config spine (mm_config_check_name), the queue's
 *		config readers and roster values, and SQL through mm._check_name.
 *		And the one check of a list's length against its limit
 *		(mm_limits.h).
 *
 *-------------------------------------------------------------------------
 */
#include "mm.h"
#include "mm_limits.h"

#include "mb/pg_wchar.h"
#include "utils/builtins.h"

/*
 * The byte offset of the first control character of name, or -1; *cp gets
 * its code point.
 */
static int
control_at(const char *name, int len, int *cp)
{
	bool		utf8 = GetDatabaseEncoding() == PG_UTF8;

	for (int i = 0; i < len; i++)
	{
		unsigned char c = (unsigned char) name[i];

		if (c < 0x20 || c == 0x7f)
		{
			*cp = c;
			return i;
		}
		/* U+0080 to U+009F: 0xC2 0x80 to 0xC2 0x9F */
		if (utf8 && c == 0xc2 && i + 1 < len &&
			(unsigned char) name[i + 1] >= 0x80 && (unsigned char) name[i + 1] <= 0x9f)
		{
			*cp = (unsigned char) name[i + 1];
			return i;
		}
	}
	return -1;
}

bool
mm_name_valid(const char *name, int len)
{
	int			cp;

	return len >= 1 && len <= MM_NAME_MAX && control_at(name, len, &cp) < 0;
}

void
mm_check_name(const char *kind, const char *name, int len)
{
	int			cp;
	int			at;

	if (len == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must not be empty", kind),
				 errhint("Names have 1 to %d bytes and no control characters.", MM_NAME_MAX)));
	if (len > MM_NAME_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s is too long", kind),
				 errdetail("It has %d bytes; names have at most %d.", len, MM_NAME_MAX),
				 errhint("Names have 1 to %d bytes and no control characters.", MM_NAME_MAX)));
	at = control_at(name, len, &cp);
	if (at >= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must not contain control characters", kind),
				 errdetail("It has U+%04X at byte %d.", cp, at + 1),
				 errhint("Names have 1 to %d bytes and no control characters (U+0000 to U+001F, U+007F to U+009F).",
						 MM_NAME_MAX)));
}

PG_FUNCTION_INFO_V1(mm_check_name_sql);

/*
 * mm._check_name(kind text, name text): the rule above for PL/pgSQL
 * callers; "kind" names the name in the message ("queue name").
 */
Datum
mm_check_name_sql(PG_FUNCTION_ARGS)
{
	text	   *name;

	mm_args_not_null(fcinfo, 0);
	name = PG_GETARG_TEXT_PP(1);
	mm_check_name(text_to_cstring(PG_GETARG_TEXT_PP(0)), VARDATA_ANY(name), VARSIZE_ANY_EXHDR(name));
	PG_RETURN_VOID();
}

void
mm_check_list_length(const char *what, int64 n, int64 max)
{
	if (n > max)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s has too many elements", what),
				 errdetail("It has " INT64_FORMAT "; the limit is " INT64_FORMAT ".", n, max),
				 errhint("The limits of every list mm takes are in the Limits table of the operations documentation.")));
}

PG_FUNCTION_INFO_V1(mm_check_list_length_sql);

/* mm._check_list_length(what text, n bigint, max bigint): the check above for SQL. */
Datum
mm_check_list_length_sql(PG_FUNCTION_ARGS)
{
	mm_args_not_null(fcinfo, 0);
	mm_check_list_length(text_to_cstring(PG_GETARG_TEXT_PP(0)), PG_GETARG_INT64(1), PG_GETARG_INT64(2));
	PG_RETURN_VOID();
}
