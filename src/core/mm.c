/*-------------------------------------------------------------------------
 *
 * mm.c
 *		Module entry point of the mm extension and the argument checks shared
 *		by every feature file.
 *
 * _PG_init reserves the "mm." GUC prefix, so that a misspelled mm setting
 * is reported instead of silently becoming a placeholder, and defines
 * mm.check_version. mm_check_version ties the library to the SQL objects of
 * its own version.
 *
 *-------------------------------------------------------------------------
 */
#include "mm.h"

#include <math.h>

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/dbcommands.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/plancache.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/rel.h"
#include "utils/syscache.h"

MM_MODULE_MAGIC;

void		_PG_init(void);

/* mm.tick_read_batch: rosters a tick reads first; 0: from the queue config. */
int			mm_tick_read_batch = 0;

/* mm.whatif_read_batch: arrivals a what-if replay reads at a time; 0: 4096. */
int			mm_whatif_read_batch = 0;
/* mm.event_retention: how long mm.purge keeps the queues' events (seconds). */
int			mm_event_retention_s = 3600;
/* mm.keep_tick_input and mm.check_tick_input (queue/tick_input.c) */
int			mm_keep_tick_input = MM_KEEP_INPUT_RUN_TICKS;
bool		mm_check_tick_input = false;

static const struct config_enum_entry keep_tick_input_options[] = {
	{"off", MM_KEEP_INPUT_OFF, false},
	{"run_ticks", MM_KEEP_INPUT_RUN_TICKS, false},
	{"always", MM_KEEP_INPUT_ALWAYS, false},
	{NULL, 0, false}
};

/* mm.check_version: off only to run an old version's SQL on purpose (tests). */
static bool mm_check_version_enabled = true;

/* Load the module: define mm's settings, reserve the GUC prefix. */
void
_PG_init(void)
{
	DefineCustomBoolVariable("mm.check_version",
							 "Refuses to run mm's SQL objects of another version than the library's.",
							 "Turn off only to run an older version's SQL objects on purpose, as the upgrade tests do.",
							 &mm_check_version_enabled,
							 true,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("mm.tick_read_batch",
							"Rosters a tick reads first (0: twice filter.rosters plus filter.potentials_max).",
							"A developer setting: a small value makes ticks read the queue in many steps, as the tests do.",
							&mm_tick_read_batch,
							0, 0, INT_MAX,
							PGC_SUSET,
							GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE,
							NULL, NULL, NULL);
	DefineCustomIntVariable("mm.whatif_read_batch",
							"Arrivals a what-if replay reads at a time (0: 4096).",
							"A developer setting: a small value makes a replay read its arrivals in many batches, as the tests do.",
							&mm_whatif_read_batch,
							0, 0, INT_MAX,
							PGC_SUSET,
							GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE,
							NULL, NULL, NULL);
	DefineCustomIntVariable("mm.event_retention",
							"How long mm.purge keeps the events of the queues' feeds (mm.events).",
							"Events older than this are removed by mm.purge; what they counted stays in mm.queue_metrics.",
							&mm_event_retention_s,
							3600, 0, INT_MAX,
							PGC_USERSET,
							GUC_UNIT_S,
							NULL, NULL, NULL);
	DefineCustomEnumVariable("mm.keep_tick_input",
							 "Which ticks keep a queue's waiting rosters in the backend for its next tick.",
							 "run_ticks: the ticks of mm.run_ticks; always: every mm.tick of the session; off: none (every tick reads the queue).",
							 &mm_keep_tick_input,
							 MM_KEEP_INPUT_RUN_TICKS,
							 keep_tick_input_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);
	DefineCustomBoolVariable("mm.check_tick_input",
							 "Compares every tick's kept input, and its matches, with a fresh read of the queue.",
							 "A developer setting for the tests: a difference is an error (a defect of mm).",
							 &mm_check_tick_input,
							 false,
							 PGC_SUSET,
							 GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);
	MarkGUCPrefixReserved("mm");
}

/*
 * The extversion of extension mm in this database (palloc'd), or NULL when
 * mm is not installed here; *extoid gets its OID.
 */
static char *
installed_version(Oid *extoid)
{
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;
	char	   *version = NULL;

	*extoid = InvalidOid;
	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_extension_extname, BTEqualStrategyNumber,
				F_NAMEEQ, CStringGetDatum("mm"));
	scan = systable_beginscan(rel, ExtensionNameIndexId, true, NULL, 1, &key);
	tuple = systable_getnext(scan);
	if (HeapTupleIsValid(tuple))
	{
		bool		isnull;
		Datum		d = heap_getattr(tuple, Anum_pg_extension_extversion,
									 RelationGetDescr(rel), &isnull);

		*extoid = ((Form_pg_extension) GETSTRUCT(tuple))->oid;
		if (!isnull)
			version = text_to_cstring(DatumGetTextPP(d));
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return version;
}

void
mm_check_version(void)
{
	Oid			extoid;
	char	   *installed;

	/* outside a transaction there is no catalog to read (and no SQL call) */
	if (!mm_check_version_enabled || !IsTransactionState())
		return;
	installed = installed_version(&extoid);
	/* not installed here (a bare LOAD), or its own scripts are running */
	if (installed == NULL ||
		(creating_extension && CurrentExtensionObject == extoid))
		return;
	if (strcmp(installed, MM_VERSION) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("extension mm is installed at version %s but its library is version %s",
						installed, MM_VERSION),
				 errdetail("Database \"%s\" holds the SQL objects of mm %s; the mm library loaded by the server is %s.",
						   get_database_name(MyDatabaseId), installed, MM_VERSION),
				 errhint("Run ALTER EXTENSION mm UPDATE to move the SQL objects to %s, or install the mm library of version %s.",
						 MM_VERSION, installed)));
}

void
mm_require_primary(const char *fname)
{
	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("%s must run on the primary", fname),
				 errdetail("This server is a standby in recovery (pg_is_in_recovery() is true): it cannot write."),
				 errhint("Call %s on the primary server; a standby answers read-only calls only.", fname)));
}

/*
 * mm._require_primary(fname text): the check above for SQL and PL/pgSQL
 * functions, called at their start.
 */
PG_FUNCTION_INFO_V1(mm_require_primary_sql);
Datum
mm_require_primary_sql(PG_FUNCTION_ARGS)
{
	mm_require_primary(text_to_cstring(PG_GETARG_TEXT_PP(0)));
	PG_RETURN_VOID();
}

void
mm_null_arg(const char *arg)
{
	ereport(ERROR,
			(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
			 errmsg("%s must not be null", arg),
			 errhint("Pass a value for %s: NULL has no meaning there.", arg)));
	pg_unreachable();
}

void
mm_args_not_null(FunctionCallInfo fcinfo, uint64 nullable)
{
	int			i;

	for (i = 0; i < PG_NARGS(); i++)
	{
		HeapTuple	tuple;
		Oid		   *types;
		char	  **names;
		char	   *modes;
		int			n;
		int			in = 0;
		int			k;
		char		fallback[32];

		if (!PG_ARGISNULL(i) || (i < 64 && (nullable & (UINT64CONST(1) << i))))
			continue;
		/* the error path: find the argument's name in the catalog */
		snprintf(fallback, sizeof(fallback), "argument %d", i + 1);
		if (fcinfo->flinfo == NULL || !OidIsValid(fcinfo->flinfo->fn_oid))
			mm_null_arg(fallback);
		tuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(fcinfo->flinfo->fn_oid));
		if (!HeapTupleIsValid(tuple))
			mm_null_arg(fallback);
		n = get_func_arg_info(tuple, &types, &names, &modes);
		ReleaseSysCache(tuple);
		for (k = 0; names != NULL && k < n; k++)
		{
			if (modes != NULL && (modes[k] == PROARGMODE_OUT || modes[k] == PROARGMODE_TABLE))
				continue;
			if (in++ == i)
			{
				if (names[k] != NULL && names[k][0] != '\0')
					mm_null_arg(names[k]);
				break;
			}
		}
		mm_null_arg(fallback);
	}
}

/*
 * mm._null_arg(arg text): mm_null_arg for SQL and PL/pgSQL functions,
 * called when their argument "arg" is NULL.
 */
PG_FUNCTION_INFO_V1(mm_null_arg_sql);
Datum
mm_null_arg_sql(PG_FUNCTION_ARGS)
{
	mm_null_arg(PG_ARGISNULL(0) ? "argument" : text_to_cstring(PG_GETARG_TEXT_PP(0)));
	PG_RETURN_VOID();
}

void
mm_check_finite(double value, const char *what)
{
	if (isnan(value))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must not be NaN", what)));
	if (isinf(value))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be finite", what),
				 errdetail("The value is %s.", value > 0 ? "Infinity" : "-Infinity")));
}

void
mm_check_positive(double value, const char *what)
{
	mm_check_finite(value, what);
	if (value <= 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be positive", what),
				 errdetail("The value is %g.", value)));
}

void
mm_check_nonnegative(double value, const char *what)
{
	mm_check_finite(value, what);
	if (value < 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must not be negative", what),
				 errdetail("The value is %g.", value)));
}

double
mm_check_result(double value, const char *what)
{
	if (isnan(value) || isinf(value))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s is out of range", what),
				 errdetail("The computation gave %s.",
						   isnan(value) ? "NaN" : (value > 0 ? "Infinity" : "-Infinity"))));
	return value;
}

Datum
mm_result_row(FunctionCallInfo fcinfo, Datum *values, bool *nulls)
{
	TupleDesc	tupdesc;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("function returning record called in context that cannot accept type record")));
	tupdesc = BlessTupleDesc(tupdesc);
	return HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls));
}

/*
 * The layout of a numeric, which is also its format on disk (and so cannot
 * change without breaking pg_upgrade): after the varlena header, a 16-bit
 * header whose top bits say short, special (NaN, infinities) or long; a
 * short one holds the sign and a 6-bit weight, a long one is followed by a
 * 16-bit weight; then base-10000 digits, the first of weight "weight". The
 * value is the sum of digit[i] * 10000^(weight - i).
 */
#define MM_NUMERIC_SIGN_MASK		0xC000
#define MM_NUMERIC_NEG				0x4000
#define MM_NUMERIC_SHORT			0x8000
#define MM_NUMERIC_SPECIAL			0xC000
#define MM_NUMERIC_SHORT_SIGN		0x2000
#define MM_NUMERIC_SHORT_WEIGHT_SIGN	0x0040
#define MM_NUMERIC_SHORT_WEIGHT		0x003F

/*
 * Clinger's fast path: a decimal that is an integer m <= 2^53 times 10^e,
 * |e| <= 22, is m * 10^e or m / 10^-e, one operation on two exact doubles,
 * which IEEE rounds correctly: the value strtod gives (numeric_float8 is
 * numeric_out then strtod). Anything else takes numeric_float8.
 */
double
mm_numeric_float8(struct NumericData *num)
{
	static const double pow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
		1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
	const char *p = VARDATA_ANY(num);
	int			len = VARSIZE_ANY_EXHDR(num);
	uint16		header;
	int			weight;
	bool		negative;
	int			ndigits;
	uint64		m = 0;
	int			e;

	if (len < (int) sizeof(uint16))
		goto slow;
	memcpy(&header, p, sizeof(uint16));
	if ((header & MM_NUMERIC_SIGN_MASK) == MM_NUMERIC_SPECIAL)
		goto slow;
	if ((header & MM_NUMERIC_SIGN_MASK) == MM_NUMERIC_SHORT)
	{
		negative = (header & MM_NUMERIC_SHORT_SIGN) != 0;
		weight = (header & MM_NUMERIC_SHORT_WEIGHT_SIGN) ? (int) (header | ~MM_NUMERIC_SHORT_WEIGHT)
			: (int) (header & MM_NUMERIC_SHORT_WEIGHT);
		p += sizeof(uint16);
		len -= sizeof(uint16);
	}
	else
	{
		int16		w;

		if (len < (int) (2 * sizeof(uint16)))
			goto slow;
		negative = (header & MM_NUMERIC_SIGN_MASK) == MM_NUMERIC_NEG;
		memcpy(&w, p + sizeof(uint16), sizeof(int16));
		weight = w;
		p += 2 * sizeof(uint16);
		len -= 2 * sizeof(uint16);
	}
	ndigits = len / (int) sizeof(int16);
	if (ndigits == 0)
		return 0.0;
	for (int i = 0; i < ndigits; i++)
	{
		int16		d;

		memcpy(&d, p + i * sizeof(int16), sizeof(int16));
		if (d < 0 || d > 9999 || m > (UINT64CONST(1) << 53) / 10000)
			goto slow;
		m = m * 10000 + d;
	}
	if (m > (UINT64CONST(1) << 53))
		goto slow;
	/* the value is m * 10000^(weight - ndigits + 1) */
	e = 4 * (weight - ndigits + 1);
	if (e < -22 || e > 22)
		goto slow;
	if (e >= 0)
		return negative ? -((double) m * pow10[e]) : (double) m * pow10[e];
	return negative ? -((double) m / pow10[-e]) : (double) m / pow10[-e];

slow:
	return DatumGetFloat8(DirectFunctionCall1(numeric_float8, PointerGetDatum(num)));
}
