/*-------------------------------------------------------------------------
 *
 * whatif_sql.c
 *		The SQL functions of the what-if replay: mm.whatif (the figures per
 *		segment of one config), mm.whatif_compare (several configs over the
 *		same window, the queue's own first) and mm.whatif_matches (the
 *		replay's matches, beside the live ones).
 *
 * The figures of a segment are over the rosters of the replay that belong
 * to it (those that arrived in the window, and those the live queue still
 * held when it began): how many, the matches they were in and the players
 * matched, the waits of the matched ones (percentile_cont, as
 * mm.queue_stats), those that left, expired or were removed by a ready
 * check before a match, those still waiting at the end, the favourite's
 * mean odds over their matches, and their mean latency to the region their
 * match was played in (with a latency rule). Segments: all; rating_decile
 * (tenths of the window's rosters by rating, 1 the lowest); party_size;
 * region (a roster's lowest latency); mode (its value of the attribute of
 * the queue's first equal rule).
 *
 *-------------------------------------------------------------------------
 */
#include "whatif.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/timestamp.h"

PG_FUNCTION_INFO_V1(mm_whatif);
PG_FUNCTION_INFO_V1(mm_whatif_compare);
PG_FUNCTION_INFO_V1(mm_whatif_matches);

#define NFIGURES 12

/* The arguments every what-if function takes after its config(s). */
typedef struct WhatifArgs
{
	char	   *queue;
	TimestampTz since;
	TimestampTz until;
	Interval   *every;			/* NULL: the recorded ticks */
	bool		rate_given;
	double		accept_rate;
	uint64		seed;
} WhatifArgs;

static void
whatif_args(FunctionCallInfo fcinfo, WhatifArgs *a)
{
	/* every (4) and accept_rate (5) may be NULL */
	mm_args_not_null(fcinfo, (1 << 4) | (1 << 5));
	a->queue = text_to_cstring(PG_GETARG_TEXT_PP(0));
	a->since = PG_GETARG_TIMESTAMPTZ(1);
	a->until = PG_GETARG_TIMESTAMPTZ(2);
	if (TIMESTAMP_NOT_FINITE(a->since) || TIMESTAMP_NOT_FINITE(a->until))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("since and until must be finite")));
	if (a->since >= a->until)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("since must be before until"),
				 errdetail("since is %s and until is %s.", pstrdup(timestamptz_to_str(a->since)),
						   pstrdup(timestamptz_to_str(a->until))),
				 errhint("Give the window to replay, such as since => now() - interval '1 hour', until => now().")));
	a->every = PG_ARGISNULL(4) ? NULL : PG_GETARG_INTERVAL_P(4);
	a->rate_given = !PG_ARGISNULL(5);
	a->accept_rate = a->rate_given ? PG_GETARG_FLOAT8(5) : 1.0;
	if (a->rate_given && !(a->accept_rate >= 0 && a->accept_rate <= 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("accept_rate must be between 0 and 1"),
				 errdetail("The value is %g.", a->accept_rate),
				 errhint("Give a player's chance to accept a ready check, or NULL for the recorded rate.")));
	a->seed = (uint64) PG_GETARG_INT64(6);
}

/* A config must be a JSON object. */
static Jsonb *
check_config(Jsonb *config, const char *what)
{
	if (!JB_ROOT_IS_OBJECT(config))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a JSON object", what),
				 errhint("Give the keys to change, such as '{\"filter\": {\"padding\": 20}}', or '{}' for the queue's config.")));
	return config;
}

static Datum
interval_of(double seconds)
{
	Interval   *iv = palloc0(sizeof(Interval));

	iv->time = (int64) llround(seconds * USECS_PER_SEC);
	return IntervalPGetDatum(iv);
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a;
	double		y = *(const double *) b;

	return (x > y) - (x < y);
}

/* percentile_cont of sorted values */
static double
percentile(const double *v, int n, double p)
{
	double		pos = p * (n - 1);
	int			lo = (int) floor(pos);
	int			hi = (int) ceil(pos);

	return v[lo] + (pos - lo) * (v[hi] - v[lo]);
}

/* The figures of one segment (outcomes "which", n of them) into values[2..]. */
static void
segment_figures(const WhatifResult *res, const int *which, int n, int *stamp, int group,
				double *waits, Datum *values, bool *nulls)
{
	int64		matches = 0,
				players = 0,
				gone = 0,
				waiting = 0;
	int			nwaits = 0,
				nlat = 0;
	double		fav = 0,
				lat = 0;

	for (int k = 0; k < n; k++)
	{
		const WhatifOutcome *o = &res->outcomes[which[k]];

		switch (o->state)
		{
			case WI_MATCHED:
				players += o->players;
				waits[nwaits++] = o->wait;
				if (!isnan(o->latency))
				{
					lat += o->latency;
					nlat++;
				}
				if (stamp[o->match] != group)
				{
					stamp[o->match] = group;
					matches++;
					fav += res->favourite[o->match];
				}
				break;
			case WI_LEFT:
			case WI_EXPIRED:
			case WI_DODGED:
				gone++;
				break;
			case WI_WAITING:
			case WI_PROPOSED:
				waiting++;
				break;
			default:
				break;
		}
	}
	qsort(waits, nwaits, sizeof(double), cmp_double);
	values[2] = Int64GetDatum(n);
	values[3] = Int64GetDatum(matches);
	values[4] = Int64GetDatum(players);
	nulls[5] = nulls[6] = nulls[7] = nwaits == 0;
	if (nwaits > 0)
	{
		values[5] = interval_of(percentile(waits, nwaits, 0.5));
		values[6] = interval_of(percentile(waits, nwaits, 0.9));
		values[7] = interval_of(percentile(waits, nwaits, 0.99));
	}
	values[8] = Int64GetDatum(gone);
	values[9] = Int64GetDatum(waiting);
	nulls[10] = matches == 0;
	values[10] = Float8GetDatum(matches > 0 ? fav / matches : 0);
	nulls[11] = nlat == 0;
	values[11] = Float8GetDatum(nlat > 0 ? lat / nlat : 0);
}

/* The kinds of segment, in the order their rows come. */
enum
{
	SEG_ALL,
	SEG_DECILE,
	SEG_PARTY,
	SEG_REGION,
	SEG_MODE,
	SEG_KINDS
};

static const char *const segment_names[SEG_KINDS] = {
	"all", "rating_decile", "party_size", "region", "mode"
};

static const WhatifOutcome *sort_outcomes;

static int
cmp_rating(const void *a, const void *b)
{
	double		x = sort_outcomes[*(const int *) a].rating;
	double		y = sort_outcomes[*(const int *) b].rating;

	if (x != y)
		return x < y ? -1 : 1;
	return (*(const int *) a > *(const int *) b) - (*(const int *) a < *(const int *) b);
}

/* Per kind of segment, each outcome's group (-1: none) and each group's value. */
static int
segment_keys(const WhatifRecord *rec, const WhatifResult *res, int kind, int *key, char ***labels)
{
	int			n = res->noutcomes;
	int			ngroups = 0;

	switch (kind)
	{
		case SEG_ALL:
			for (int i = 0; i < n; i++)
				key[i] = 0;
			*labels = palloc0(sizeof(char *));
			return 1;
		case SEG_DECILE:
			{
				int		   *order = palloc(sizeof(int) * Max(n, 1));

				for (int i = 0; i < n; i++)
					order[i] = i;
				sort_outcomes = res->outcomes;
				qsort(order, n, sizeof(int), cmp_rating);
				for (int r = 0; r < n; r++)
					key[order[r]] = (int) ((int64) r * 10 / n);
				*labels = palloc(sizeof(char *) * 10);
				for (int d = 0; d < 10; d++)
					(*labels)[d] = psprintf("%d", d + 1);
				return 10;
			}
		case SEG_PARTY:
			for (int i = 0; i < n; i++)
			{
				key[i] = res->outcomes[i].players - 1;
				ngroups = Max(ngroups, key[i] + 1);
			}
			*labels = palloc(sizeof(char *) * Max(ngroups, 1));
			for (int g = 0; g < ngroups; g++)
				(*labels)[g] = psprintf("%d", g + 1);
			return ngroups;
		case SEG_REGION:
		case SEG_MODE:
			{
				int			nnames = kind == SEG_REGION ? rec->nregion_names : rec->nmodes;
				char	  **names = kind == SEG_REGION ? rec->region_names : rec->mode_names;
				int		   *order = palloc(sizeof(int) * Max(nnames, 1));
				int		   *rank = palloc(sizeof(int) * Max(nnames, 1));

				/* groups in name order */
				for (int g = 0; g < nnames; g++)
					order[g] = g;
				for (int i = 1; i < nnames; i++)
					for (int j = i; j > 0 && strcmp(names[order[j - 1]], names[order[j]]) > 0; j--)
					{
						int			t = order[j];

						order[j] = order[j - 1];
						order[j - 1] = t;
					}
				*labels = palloc(sizeof(char *) * Max(nnames, 1));
				for (int g = 0; g < nnames; g++)
				{
					rank[order[g]] = g;
					(*labels)[g] = names[order[g]];
				}
				for (int i = 0; i < n; i++)
				{
					int			v = kind == SEG_REGION ? res->outcomes[i].region : res->outcomes[i].mode;

					key[i] = v < 0 ? -1 : rank[v];
				}
				return nnames;
			}
	}
	return 0;
}

/* Put the rows of every segment of one replay; "prefix" values go first. */
static void
put_segments(ReturnSetInfo *rsinfo, const WhatifRecord *rec, const WhatifResult *res,
			 int nprefix, Datum *prefix)
{
	int			n = res->noutcomes;
	int		   *key = palloc(sizeof(int) * Max(n, 1));
	int		   *stamp = palloc(sizeof(int) * Max(res->nmatches, 1));
	double	   *waits = palloc(sizeof(double) * Max(n, 1));
	int			group = 0;

	for (int m = 0; m < res->nmatches; m++)
		stamp[m] = -1;
	for (int kind = 0; kind < SEG_KINDS; kind++)
	{
		char	  **labels;
		int			ngroups = segment_keys(rec, res, kind, key, &labels);
		int		   *count = palloc0(sizeof(int) * (ngroups + 1));
		int		   *which = palloc(sizeof(int) * Max(n, 1));

		/* the outcomes of each group side by side (a counting sort) */
		for (int i = 0; i < n; i++)
			if (key[i] >= 0)
				count[key[i] + 1]++;
		for (int g = 0; g < ngroups; g++)
			count[g + 1] += count[g];
		{
			int		   *fill = palloc(sizeof(int) * Max(ngroups, 1));

			memcpy(fill, count, sizeof(int) * ngroups);
			for (int i = 0; i < n; i++)
				if (key[i] >= 0)
					which[fill[key[i]]++] = i;
			pfree(fill);
		}
		for (int g = 0; g < ngroups; g++)
		{
			Datum		values[NFIGURES + 2];
			bool		nulls[NFIGURES + 2];
			int			size = count[g + 1] - count[g];

			CHECK_FOR_INTERRUPTS();
			if (size == 0 && kind != SEG_ALL)
				continue;
			memset(nulls, 0, sizeof(nulls));
			for (int k = 0; k < nprefix; k++)
				values[k] = prefix[k];
			values[nprefix] = CStringGetTextDatum(segment_names[kind]);
			nulls[nprefix + 1] = labels[g] == NULL;
			if (labels[g] != NULL)
				values[nprefix + 1] = CStringGetTextDatum(labels[g]);
			segment_figures(res, which + count[g], size, stamp, group++, waits,
							values + nprefix, nulls + nprefix);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	}
}

/* Replay one config and put its rows (or, with "rows", its matches). */
static void
run_one(ReturnSetInfo *rsinfo, const WhatifArgs *a, Jsonb *config, const char *label,
		int nprefix, Datum *prefix, bool matches)
{
	WhatifRecord rec;
	WhatifResult res;

	memset(&res, 0, sizeof(res));
	if (matches)
	{
		res.rows = rsinfo->setResult;
		res.rows_desc = rsinfo->setDesc;
	}
	mm_whatif_record(&rec, a->queue, config, a->since, a->until, a->every, a->rate_given, a->accept_rate);
	mm_whatif_replay(&rec, a->seed, label, &res);
	mm_whatif_record_end(&rec);
	if (!matches)
		put_segments(rsinfo, &rec, &res, nprefix, prefix);
	MemoryContextDelete(rec.keep);
}

/* mm.whatif(queue, since, until, config, every, accept_rate, seed) */
Datum
mm_whatif(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	WhatifArgs	a;
	Jsonb	   *config;

	whatif_args(fcinfo, &a);
	config = check_config(PG_GETARG_JSONB_P(3), "config");
	InitMaterializedSRF(fcinfo, 0);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	run_one(rsinfo, &a, config, psprintf("of queue \"%s\"", a.queue), 0, NULL, false);
	SPI_finish();
	return (Datum) 0;
}

/* mm.whatif_matches(queue, since, until, config, every, accept_rate, seed) */
Datum
mm_whatif_matches(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	WhatifArgs	a;
	Jsonb	   *config;

	whatif_args(fcinfo, &a);
	config = check_config(PG_GETARG_JSONB_P(3), "config");
	InitMaterializedSRF(fcinfo, 0);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	run_one(rsinfo, &a, config, psprintf("of queue \"%s\"", a.queue), 0, NULL, true);
	SPI_finish();
	return (Datum) 0;
}

/* mm.whatif_compare(queue, since, until, configs, every, accept_rate, seed) */
Datum
mm_whatif_compare(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	WhatifArgs	a;
	ArrayType  *arr;
	Datum	   *elems;
	bool	   *elem_nulls;
	int			n;
	Jsonb	   *current;

	whatif_args(fcinfo, &a);
	arr = PG_GETARG_ARRAYTYPE_P(3);
	if (ARR_NDIM(arr) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("configs must be a one-dimensional array")));
	deconstruct_array(arr, JSONBOID, -1, false, TYPALIGN_INT, &elems, &elem_nulls, &n);
	for (int i = 0; i < n; i++)
	{
		if (elem_nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("configs must not contain nulls"),
					 errhint("Give '{}' for the queue's own config.")));
		(void) check_config(DatumGetJsonbP(elems[i]), "each config");
	}
	current = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum("{}")));
	InitMaterializedSRF(fcinfo, 0);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	for (int i = 0; i <= n; i++)
	{
		Jsonb	   *config = i == 0 ? current : DatumGetJsonbP(elems[i - 1]);
		Datum		prefix[2];

		prefix[0] = Int32GetDatum(i);
		prefix[1] = JsonbPGetDatum(config);
		run_one(rsinfo, &a, config,
				psprintf("of queue \"%s\", config %d of %d", a.queue, i, n), 2, prefix, false);
	}
	SPI_finish();
	return (Datum) 0;
}
