/*-------------------------------------------------------------------------
 *
 * results_rating.c
 *		The rating step of mm.report_result: the players' rating rows locked in
 *		player-id order, the game rated by the queue's family, ladder points,
 *		dishonor for desertions, and the ratings written.
 *
 *-------------------------------------------------------------------------
 */
#include "results.h"


#include <errno.h>
#include <math.h>

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"


/* The state a lock or rate step works on: core or profession. */
static ResState *
state_of(ResPlayer *p, bool prof)
{
	return prof ? &p->prof : &p->core;
}

/* The profession's rating key: the queue's key, a slash, the profession. */
static char *
profession_key(const MmMatcherConfig *cfg, const ResPlayer *p)
{
	return psprintf("%s/%s", cfg->rating.key, p->profession);
}


/*
 * Read a locked rating row (row "row" of the last result) into the player's
 * state before the match, as of "at".
 */
static void
read_locked(const MmRatingModel *model, ResPlayer *p, bool prof, int row, TimestampTz at)
{
	ResState   *st = state_of(p, prof);
	bool		isnull;
	Datum		d;

	if (DatumGetInt64(res_col(row, 1, &isnull)) != p->id)
		elog(ERROR, "rating rows are not in player-id order");
	mm_rating_state_read(model, DatumGetArrayTypeP(res_col(row, 2, &isnull)), st->before);
	d = res_col(row, 3, &isnull);
	if (!isnull && model->read_at != NULL && DatumGetTimestampTz(d) < at)
		model->read_at(st->before, DatumGetTimestampTz(d), at);
	d = res_col(row, 4, &isnull);
	/* ladder points are the core key's */
	if (!prof)
	{
		p->has_ladder = !isnull;
		if (!isnull)
			p->ladder = DatumGetInt32(d);
	}
}

/*
 * On Citus: mm.ratings is distributed by player, and Citus refuses a
 * SELECT ... FOR UPDATE that reaches several shards. Each row is locked by
 * a statement of its own, on its player's shard, in the same order as on a
 * single node (player id), a missing row inserted first: two reports that
 * share players wait for each other across the cluster, and never
 * deadlock.
 */
static void
lock_each(const MmRatingModel *model, ResPlayer **who, char **keys, int n, const char *key,
		  Datum defaults, TimestampTz at, bool prof)
{
	Datum		model_name = CStringGetTextDatum(model->name);

	for (int i = 0; i < n; i++)
	{
		Datum		k = CStringGetTextDatum(prof ? keys[i] : key);
		MmArgs		a;

		CHECK_FOR_INTERRUPTS();
		for (int attempt = 0; attempt < 2; attempt++)
		{
			res_args(&a, RS_LOCK_ONE);
			mm_arg(&a, "player_id", Int64GetDatum(who[i]->id));
			mm_arg(&a, "key", k);
			mm_arg(&a, "model", model_name);
			mm_execute(&a, false, 0);
			if (SPI_processed == 1 || attempt == 1)
				break;
			res_args(&a, RS_INSERT_ONE);
			mm_arg(&a, "player_id", Int64GetDatum(who[i]->id));
			mm_arg(&a, "key", k);
			mm_arg(&a, "model", model_name);
			mm_arg(&a, "state", defaults);
			mm_execute(&a, false, 0);
		}
		if (SPI_processed != 1)
			elog(ERROR, "locked %d rating rows for player " INT64_FORMAT, (int) SPI_processed, who[i]->id);
		read_locked(model, who[i], prof, 0, at);
	}
}

/*
 * Lock the players' rating rows of the queue's family in player-id order,
 * inserting missing ones first (in the same order, with the family's
 * defaults), and read each state before the match as of now (the family's
 * read_at: Glicko-2's idle deviation growth). prof: the profession rows of
 * the players whose roster names their profession (locked after every
 * core row); the others play the profession game with their core rating,
 * which is not written back.
 */
void
res_lock_ratings(ResMatch *m, const MmMatcherConfig *cfg, TimestampTz at, bool prof)
{
	const MmRatingModel *model = mm_rating_model_of(&cfg->rating);
	double		defaults[MM_RATING_MAX_STATE];
	Datum		key,
				ids_array,
				model_name;
	MmArgs		a;
	int64	   *ids = palloc(sizeof(int64) * Max(m->nplayers, 1));
	char	  **keys = palloc(sizeof(char *) * Max(m->nplayers, 1));
	ResPlayer **who = palloc(sizeof(ResPlayer *) * Max(m->nplayers, 1));
	int			n = 0;

	for (int i = 0; i < m->nplayers; i++)
	{
		ResPlayer  *p = &m->players[i];

		if (prof)
		{
			p->prof = p->core;
			p->prof.rated = false;
			if (p->profession == NULL)
				continue;
			keys[n] = profession_key(cfg, p);
		}
		ids[n] = p->id;
		who[n++] = p;
	}
	if (n == 0)
		return;
	model->defaults(cfg->rating.options, defaults);
	if (mm_queues_distributed())
	{
		lock_each(model, who, keys, n, cfg->rating.key, mm_rating_state_datum(model, defaults), at, prof);
		return;
	}
	key = prof ? mm_text_array_datum(n, keys) : CStringGetTextDatum(cfg->rating.key);
	ids_array = mm_int8_array_datum(n, ids);
	model_name = CStringGetTextDatum(model->name);
	res_args(&a, prof ? RS_INSERT_MISSING_PROFESSION : RS_INSERT_MISSING);
	mm_arg(&a, "key", key);
	mm_arg(&a, "player_ids", ids_array);
	mm_arg(&a, "model", model_name);
	mm_arg(&a, "state", mm_rating_state_datum(model, defaults));
	mm_execute(&a, false, 0);
	res_args(&a, prof ? RS_LOCK_PROFESSION : RS_LOCK);
	mm_arg(&a, "key", key);
	mm_arg(&a, "player_ids", ids_array);
	mm_arg(&a, "model", model_name);
	mm_execute(&a, false, 0);
	if ((int) SPI_processed != n)
		elog(ERROR, "locked %d rating rows for %d players", (int) SPI_processed, n);
	for (int i = 0; i < n; i++)
		read_locked(model, who[i], prof, i, at);
}

/*
 * Rate the match as one game of the queue's rating family (rating_model.h),
 * core or profession ratings: as mm.openskill_rate rates it, or for
 * Glicko-2 by its team likelihood, each player against each opposing team
 * (a 1v1 exactly as mm.glicko2_rate).
 */
void
res_rate(ResMatch *m, const MmMatcherConfig *cfg, bool prof)
{
	const MmRatingModel *model = mm_rating_model_of(&cfg->rating);
	const void *params = model->queue_params(cfg->rating.options);
	int			n = m->nplayers;
	int64	   *label = palloc(sizeof(int64) * n);
	double	   *rank = palloc(sizeof(double) * n);
	double	   *weight = palloc(sizeof(double) * n);
	double	   *in[MM_RATING_MAX_STATE];
	double	   *out[MM_RATING_MAX_STATE];
	MmRatingGame g;

	for (int c = 0; c < model->nstate; c++)
	{
		in[c] = palloc(sizeof(double) * n);
		out[c] = palloc(sizeof(double) * n);
	}
	for (int i = 0; i < n; i++)
	{
		const ResPlayer *p = &m->players[i];
		ResState   *st = state_of(&m->players[i], prof);

		/* a team's label is its place in the match's team order, from 1 (red 1, blue 2) */
		label[i] = res_team_order(m, p->team) + 1;
		rank[i] = m->teams[p->team].rank;
		weight[i] = p->weight;
		for (int c = 0; c < model->nstate; c++)
			in[c][i] = st->before[c];
	}
	mm_rating_build_game(&g, model, n, label, rank, NULL,
						 (const double *const *) in, weight);
	model->rate(params, &g, out);
	for (int i = 0; i < n; i++)
	{
		ResState   *st = state_of(&m->players[i], prof);

		st->rated = true;
		for (int c = 0; c < model->nstate; c++)
			st->after[c] = mm_check_result(out[c][i], model->columns[c].name);
	}
}

/* The ladder's season config from the queue's rating config. */
static Jsonb *
season_config(const MmMatcherConfig *cfg)
{
	StringInfoData b;
	bool		first = true;

	initStringInfo(&b);
	appendStringInfoChar(&b, '{');
	if (!cfg->rating.season_start_null)
	{
		appendStringInfoString(&b, "\"start\": ");
		escape_json(&b, cfg->rating.season_start);
		first = false;
	}
	if (!cfg->rating.season_end_null)
	{
		appendStringInfoString(&b, first ? "\"end\": " : ", \"end\": ");
		escape_json(&b, cfg->rating.season_end);
	}
	appendStringInfoChar(&b, '}');
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(b.data)));
}

/*
 * Ladder points from the match's prediction (each team's odds of victory)
 * and the team's final score; a team without a score gets none.
 */
void
res_award_ladder(ResMatch *m, const MmMatcherConfig *cfg, TimestampTz at)
{
	Jsonb	   *season = season_config(cfg);

	for (int i = 0; i < m->nplayers; i++)
	{
		ResPlayer  *p = &m->players[i];
		ResTeam    *team = &m->teams[p->team];
		const char *result = "victory";
		double		odds = m->odds[res_team_order(m, p->team)];

		if (!team->has_score)
			continue;
		for (int t = 0; t < m->nteams; t++)
			if (t != p->team && !(team->rank < m->teams[t].rank))
				result = "defeat";
		if (p->deserted)
			result = "desertion";
		mm_ladder_game(season, at, odds, team->score, result,
					   p->has_ladder ? &p->ladder : NULL, &p->awarded, &p->ladder2);
		p->awarded_set = true;
	}
}

/*
 * Dishonor for desertions, in player-id order. A reason the dishonor
 * config does not know (mm.set_dishonor_config refuses to drop one a queue
 * uses; a direct change of mm.dishonor_settings may have) gives no
 * dishonor and a WARNING: the result is still recorded.
 */
void
res_give_dishonor(ResMatch *m, const MmMatcherConfig *cfg, TimestampTz at)
{
	bool		checked = false;

	for (int i = 0; i < m->nplayers; i++)
	{
		ResPlayer  *p = &m->players[i];
		MmArgs		a;
		bool		isnull;
		Datum		d;

		if (!p->deserted)
			continue;
		if (!checked)
		{
			res_args(&a, RS_REASON_KNOWN);
			mm_arg(&a, "reason", CStringGetTextDatum(cfg->rating.desertion_reason));
			mm_execute(&a, false, 1);
			if (!DatumGetBool(res_col(0, 1, &isnull)) || isnull)
			{
				ereport(WARNING,
						(errmsg("rating.desertion_reason \"%s\" is not a known dishonor reason: the deserters of match %lld get no dishonor",
								cfg->rating.desertion_reason, (long long) m->match_id),
						 errhint("Add the reason under \"penalties\" with mm.set_dishonor_config, or change the queue's rating.desertion_reason with mm.alter_queue.")));
				return;
			}
			checked = true;
		}
		res_args(&a, RS_DISHONOR);
		mm_arg(&a, "player_id", Int64GetDatum(p->id));
		mm_arg(&a, "reason", CStringGetTextDatum(cfg->rating.desertion_reason));
		mm_arg(&a, "at", TimestampTzGetDatum(at));
		mm_execute(&a, false, 1);
		d = res_col(0, 1, &isnull);
		p->stacks_set = !isnull;
		if (!isnull)
			p->stacks = DatumGetInt32(d);
	}
}

/*
 * Write the new ratings and ladder totals, and count the game (a pending
 * period keeps the states: mm.close_rating_period rates and counts).
 */
void
res_write_ratings(ResMatch *m, const MmMatcherConfig *cfg, TimestampTz at)
{
	const MmRatingModel *model = mm_rating_model_of(&cfg->rating);
	int			n = m->nplayers;
	double	  **after = palloc(sizeof(double *) * n);
	int32	   *ladder = palloc(sizeof(int32) * n);
	bool	   *lnull = palloc(sizeof(bool) * n);
	MmArgs		a;

	for (int i = 0; i < n; i++)
	{
		after[i] = m->players[i].core.after;
		ladder[i] = m->players[i].ladder2;
		lnull[i] = !m->players[i].awarded_set;
	}
	res_args(&a, RS_UPDATE_RATINGS);
	mm_arg(&a, "key", CStringGetTextDatum(cfg->rating.key));
	mm_arg(&a, "model", CStringGetTextDatum(model->name));
	mm_arg(&a, "at", TimestampTzGetDatum(at));
	mm_arg(&a, "player_ids", res_player_ids(m));
	/* NULL in a pending period: the states stay */
	mm_arg_maybe(&a, "states", cfg->rating.pending_period ? (Datum) 0 : res_states_array(model, n, after),
				 cfg->rating.pending_period);
	mm_arg(&a, "nstate", Int32GetDatum(model->nstate));
	mm_arg(&a, "ladders", mm_int4_array_datum(n, ladder, lnull));
	mm_execute(&a, false, 0);
	if ((int) SPI_processed != n)
		elog(ERROR, "updated %d rating rows for %d players", (int) SPI_processed, n);
}

/* Write the profession ratings of the players whose roster names one. */
void
res_write_profession_ratings(ResMatch *m, const MmMatcherConfig *cfg, TimestampTz at)
{
	const MmRatingModel *model = mm_rating_model_of(&cfg->rating);
	int			n = 0;
	int64	   *ids = palloc(sizeof(int64) * Max(m->nplayers, 1));
	char	  **keys = palloc(sizeof(char *) * Max(m->nplayers, 1));
	double	  **after = palloc(sizeof(double *) * Max(m->nplayers, 1));
	MmArgs		a;

	for (int i = 0; i < m->nplayers; i++)
	{
		ResPlayer  *p = &m->players[i];

		if (p->profession == NULL)
			continue;
		ids[n] = p->id;
		keys[n] = profession_key(cfg, p);
		after[n] = p->prof.after;
		n++;
	}
	if (n == 0)
		return;
	res_args(&a, RS_UPDATE_PROFESSION);
	mm_arg(&a, "key", mm_text_array_datum(n, keys));
	mm_arg(&a, "model", CStringGetTextDatum(model->name));
	mm_arg(&a, "at", TimestampTzGetDatum(at));
	mm_arg(&a, "player_ids", mm_int8_array_datum(n, ids));
	mm_arg(&a, "states", res_states_array(model, n, after));
	mm_arg(&a, "nstate", Int32GetDatum(model->nstate));
	mm_execute(&a, false, 0);
	if ((int) SPI_processed != n)
		elog(ERROR, "updated %d profession rating rows for %d players", (int) SPI_processed, n);
}

