/*-------------------------------------------------------------------------
 *
 * placement.c
 *		The placement engine: per-place signal configurations and the ranking
 *		of a place's live servers for a joining player.
 *
 * Source: Roblox's matchmaking documentation (ServerScore = sum_i Weight_i * SignalScore_i; the Roblox
 * default configuration Friends 10, Latency 3, Occupancy 2, Play History 2,
 * Age 1, Language 1, Voice Chat 1, Device Type 0) and Roblox's matchmaking documentation (the existing
 * signals and the eight kinds of custom signals: player numeric vs the
 * joining player and vs a constant, player categorical clustering and
 * diversifying, server numeric and categorical vs the joining player and vs
 * a constant). Readings of docs/architecture.md, "How mm reads its sources": play history is
 * 1 - min(1, diff / 4.6); server numeric vs constant is
 * 1 - min(diff / max_relevant_difference, 1); ratios over an empty server
 * score 0.
 *
 * Data layout: mm.servers keeps, per server, its occupancy and the
 * aggregates of its players' attributes (mm.refresh_servers recomputes them
 * under the server's row lock whenever a player joins or leaves), so that
 * ranking reads one row per server instead of every player:
 *	 age_n/age_sum, play_history_n/play_history_sum	 built-in numerics;
 *	 stats jsonb	{attribute: {"n", "sum", "min", "max"} for numbers,
 *					 {"values": {text: count}} for strings and booleans}.
 * The Friends signal is an index lookup of the preferred players in
 * mm.server_players.
 *
 * The config parsing (placement_config.c) and scoring (placement_score.c)
 * are plain C over the structs of placement.h; this file is the SQL side:
 * the SPI reading (a DestReceiver that scores each server row as the
 * executor produces it) and the SQL functions.
 *
 *-------------------------------------------------------------------------
 */
#include "placement.h"
#include "mm_limits.h"
#include "statement.h"

#include <float.h>
#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "tcop/dest.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
typedef struct Ranked
{
	int64		server_id;
	double		score;
	int			index;			/* into the per-signal scores */
} Ranked;

/* Best first; equal scores by server id. */
static inline int
ranked_cmp(const Ranked *x, const Ranked *y)
{
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return x->server_id < y->server_id ? -1 : (x->server_id > y->server_id);
}

/* sort_ranked(Ranked *, size_t): an inlined quicksort by ranked_cmp */
#define ST_SORT sort_ranked
#define ST_ELEMENT_TYPE Ranked
#define ST_COMPARE(a, b) ranked_cmp(a, b)
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

static int
int64_cmp(const void *a, const void *b)
{
	int64		x = *(const int64 *) a;
	int64		y = *(const int64 *) b;

	return x < y ? -1 : (x > y);
}

enum
{
	P_CONFIG,
	P_FRIEND_SERVERS,
	P_SERVERS
};

static MmStatement statements[] = {
	[P_CONFIG] = {
		"SELECT config FROM mm.place_configs WHERE place OPERATOR(pg_catalog.=) $place",
		{{"place", TEXTOID}}
	},
	[P_FRIEND_SERVERS] = {
		"SELECT DISTINCT p.server_id FROM mm.server_players p"
		" WHERE p.player_id OPERATOR(pg_catalog.=) ANY ($player_ids)",
		{{"player_ids", INT8ARRAYOID}}
	},
	/* fixed-width columns first, so that their offsets are cached */
	[P_SERVERS] = {
		"SELECT s.server_id, s.capacity, s.occupancy, s.age_n,"
		" s.age_sum, s.play_history_n, s.play_history_sum,"
		" s.attributes, s.stats FROM mm.servers s"
		" WHERE s.place OPERATOR(pg_catalog.=) $place"
		" AND s.occupancy OPERATOR(pg_catalog.<) s.capacity",
		{{"place", TEXTOID}}
	},
};

/* Load a place's config jsonb; NULL when the place has none. */
static Jsonb *
load_config(text *place)
{
	MmArgs		a;
	bool		isnull;
	Datum		d;

	mm_args_begin(&a, &statements[P_CONFIG]);
	mm_arg(&a, "place", PointerGetDatum(place));
	if (mm_execute(&a, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "reading the place's config failed");
	if (SPI_processed == 0)
		return NULL;
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	return isnull ? NULL : DatumGetJsonbP(d);
}

/* Sorted ids of the servers holding any preferred player. */
static int
load_friend_servers(ArrayType *preferred, int64 **ids)
{
	MmArgs		a;
	int			n;

	mm_args_begin(&a, &statements[P_FRIEND_SERVERS]);
	mm_arg(&a, "player_ids", PointerGetDatum(preferred));
	mm_run(&a, true, SPI_OK_SELECT);
	n = (int) SPI_processed;
	*ids = palloc(sizeof(int64) * (n > 0 ? n : 1));
	for (int i = 0; i < n; i++)
	{
		bool		isnull;

		(*ids)[i] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i],
												SPI_tuptable->tupdesc, 1, &isnull));
	}
	qsort(*ids, n, sizeof(int64), int64_cmp);
	return n;
}

/*
 * Ranking state: the config, the friend servers, and the scores of the
 * servers seen so far (grown in the outer memory context).
 */
typedef struct RankState
{
	DestReceiver pub;			/* scores rows as the executor sends them */
	PlaceConfig *pc;
	int64	   *friends;		/* sorted ids of servers with a friend */
	int			nfriends;
	bool		need_stats;		/* some signal reads the stats jsonb */
	int			nsig;			/* Max(signals, 1): stride of scores */
	Ranked	   *ranked;
	double	   *scores;			/* nsig per server, in arrival order */
	int			nrows;
	int			allocated;
	MemoryContext outer;
	MemoryContext rowcxt;		/* reset after each server */
} RankState;

/* Score one server row, as read by the query in scan_servers. */
static bool
rank_receive(TupleTableSlot *slot, DestReceiver *self)
{
	RankState  *st = (RankState *) self;
	PlaceConfig *pc = st->pc;
	Datum	   *values;
	bool	   *isnull;
	ServerRow	row;
	MemoryContext old;
	double		total = 0.0;
	int			r;

	CHECK_FOR_INTERRUPTS();
	if (st->nrows >= st->allocated)
	{
		st->allocated = Max(st->allocated * 2, 1024);
		st->ranked = repalloc_huge(st->ranked, sizeof(Ranked) * st->allocated);
		st->scores = repalloc_huge(st->scores,
								   sizeof(double) * st->allocated * st->nsig);
	}
	r = st->nrows++;

	slot_getallattrs(slot);
	values = slot->tts_values;
	isnull = slot->tts_isnull;
	for (int i = 0; i < 9; i++)
		if (isnull[i])
			elog(ERROR, "mm.servers row has a NULL in column %d", i + 1);

	old = MemoryContextSwitchTo(st->rowcxt);
	row.server_id = DatumGetInt64(values[0]);
	row.capacity = DatumGetInt32(values[1]);
	row.occupancy = DatumGetInt32(values[2]);
	row.age_n = DatumGetInt32(values[3]);
	row.age_sum = DatumGetFloat8(values[4]);
	row.play_history_n = DatumGetInt32(values[5]);
	row.play_history_sum = DatumGetFloat8(values[6]);
	row.attributes = &DatumGetJsonbP(values[7])->root;
	row.stats = st->need_stats ? &DatumGetJsonbP(values[8])->root : NULL;
	row.has_friend = st->nfriends > 0 &&
		bsearch(&row.server_id, st->friends, st->nfriends, sizeof(int64),
				int64_cmp) != NULL;

	for (int i = 0; i < pc->nsignals; i++)
	{
		double		sc = mm_place_score_signal(&pc->signals[i], &row);

		st->scores[(size_t) r * st->nsig + i] = sc;
		total += pc->signals[i].weight * sc;
	}
	st->ranked[r].server_id = row.server_id;
	st->ranked[r].score = total;
	st->ranked[r].index = r;
	MemoryContextSwitchTo(old);
	MemoryContextReset(st->rowcxt);
	return true;
}

/* Nothing to set up or tear down: the state lives in RankState. */
static void
rank_startup(DestReceiver *self pg_attribute_unused(),
			 int operation pg_attribute_unused(),
			 TupleDesc typeinfo pg_attribute_unused())
{
}

static void
rank_noop(DestReceiver *self pg_attribute_unused())
{
}

/*
 * Score every non-full server of the place. The query's rows go straight
 * to rank_receive (no copy into an SPI tuple table).
 */
static void
scan_servers(RankState *st, text *place)
{
	MmArgs		a;

	st->pub.receiveSlot = rank_receive;
	st->pub.rStartup = rank_startup;
	st->pub.rShutdown = rank_noop;
	st->pub.rDestroy = rank_noop;
	st->pub.mydest = DestNone;

	mm_args_begin(&a, &statements[P_SERVERS]);
	mm_arg(&a, "place", PointerGetDatum(place));
	mm_stream(&a, true, &st->pub);
}

/* SQL wrappers */

PG_FUNCTION_INFO_V1(mm_check_place_config);
PG_FUNCTION_INFO_V1(mm_rank_servers);

/*
 * mm.place_config(config jsonb) → jsonb: the config checked and complete,
 * as mm.set_place_config stores it (every key, every signal given with
 * every key its kind takes, numbers in their shortest round-trip form).
 */
PG_FUNCTION_INFO_V1(mm_place_config);
Datum
mm_place_config(PG_FUNCTION_ARGS)
{
	PG_RETURN_JSONB_P(mm_place_config_complete(PG_GETARG_JSONB_P(0)));
}

/* mm.check_place_config(config jsonb): true, or an error saying what is wrong */
Datum
mm_check_place_config(PG_FUNCTION_ARGS)
{
	mm_place_parse_config(PG_GETARG_JSONB_P(0));
	PG_RETURN_BOOL(true);
}

/*
 * mm.rank_servers(place text, player jsonb, preferred bigint[] DEFAULT '{}')
 *	 RETURNS TABLE(server_id bigint, score float8, signals text[],
 *				   signal_scores float8[])
 */
Datum
mm_rank_servers(PG_FUNCTION_ARGS)
{
	text	   *place;
	Jsonb	   *player;
	ArrayType  *preferred;
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	RankState	st;
	int64	   *pref;
	int			npref;
	Datum	   *names;
	ArrayType  *names_array;
	bool		has_friends = false;

	mm_args_not_null(fcinfo, 0);
	place = PG_GETARG_TEXT_PP(0);
	player = PG_GETARG_JSONB_P(1);
	preferred = PG_GETARG_ARRAYTYPE_P(2);

	InitMaterializedSRF(fcinfo, 0);
	npref = mm_int8_array(preferred, "preferred", &pref);
	mm_check_list_length("preferred", npref, MM_CALL_IDS_MAX);

	memset(&st, 0, sizeof(st));
	st.outer = CurrentMemoryContext;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");

	/* the config and the player's values live in the outer context */
	{
		Jsonb	   *config = load_config(place);
		MemoryContext spi = MemoryContextSwitchTo(st.outer);

		if (config != NULL)
			config = (Jsonb *) PG_DETOAST_DATUM_COPY(JsonbPGetDatum(config));
		st.pc = mm_place_parse_config(config);
		mm_place_read_player(st.pc, player);
		st.nsig = Max(st.pc->nsignals, 1);
		st.allocated = 1024;
		st.ranked = palloc_extended(sizeof(Ranked) * st.allocated, MCXT_ALLOC_HUGE);
		st.scores = palloc_extended(sizeof(double) * st.allocated * st.nsig,
									MCXT_ALLOC_HUGE);
		MemoryContextSwitchTo(spi);
	}
	for (int i = 0; i < st.pc->nsignals; i++)
	{
		SignalKind	k = st.pc->signals[i].kind;

		if (k == SIG_FRIENDS)
			has_friends = true;
		else if (k == SIG_LANGUAGE || k == SIG_VOICE_CHAT || k == SIG_DEVICE_TYPE ||
				 (k >= SIG_PLAYER_NUMERIC_JOINING &&
				  k <= SIG_PLAYER_CATEGORICAL_DIVERSIFYING))
			st.need_stats = true;
	}
	if (has_friends && npref > 0)
		st.nfriends = load_friend_servers(preferred, &st.friends);

	st.rowcxt = AllocSetContextCreate(CurrentMemoryContext, "mm rank_servers row",
									  ALLOCSET_DEFAULT_SIZES);
	scan_servers(&st, place);
	SPI_finish();

	if (st.nrows > 1)
		sort_ranked(st.ranked, st.nrows);

	names = palloc(sizeof(Datum) * st.nsig);
	for (int i = 0; i < st.pc->nsignals; i++)
		names[i] = CStringGetTextDatum(st.pc->signals[i].name);
	names_array = DatumGetArrayTypeP(mm_text_datums_array(st.pc->nsignals, names));

	for (int r = 0; r < st.nrows; r++)
	{
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};
		const double *sc = &st.scores[(size_t) st.ranked[r].index * st.nsig];
		ArrayType  *sa = DatumGetArrayTypeP(mm_float8_array_datum(st.pc->nsignals, sc, NULL));

		values[0] = Int64GetDatum(st.ranked[r].server_id);
		values[1] = Float8GetDatum(st.ranked[r].score);
		values[2] = PointerGetDatum(names_array);
		values[3] = PointerGetDatum(sa);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		pfree(sa);
	}
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(mm_place_signals);

/*
 * mm.place_signals(place text)
 *	 RETURNS TABLE(signal text, kind text, weight float8)
 * The signals a place scores servers with (its config, or the Roblox
 * default configuration), defaults filled in, weight-0 signals left out, in
 * the order rank_servers reports them.
 */
Datum
mm_place_signals(PG_FUNCTION_ARGS)
{
	text	   *place;
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MemoryContext outer;
	PlaceConfig *pc;
	Jsonb	   *config;

	mm_args_not_null(fcinfo, 0);
	place = PG_GETARG_TEXT_PP(0);

	InitMaterializedSRF(fcinfo, 0);
	outer = CurrentMemoryContext;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	config = load_config(place);
	{
		MemoryContext spi = MemoryContextSwitchTo(outer);

		if (config != NULL)
			config = (Jsonb *) PG_DETOAST_DATUM_COPY(JsonbPGetDatum(config));
		pc = mm_place_parse_config(config);
		MemoryContextSwitchTo(spi);
	}
	SPI_finish();

	for (int i = 0; i < pc->nsignals; i++)
	{
		Datum		values[3];
		bool		nulls[3] = {false, false, false};

		values[0] = CStringGetTextDatum(pc->signals[i].name);
		values[1] = CStringGetTextDatum(place_kinds[pc->signals[i].kind].name);
		values[2] = Float8GetDatum(pc->signals[i].weight);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
