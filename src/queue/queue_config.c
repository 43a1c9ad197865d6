/*-------------------------------------------------------------------------
 *
 * queue_config.c
 *		A queue's config (matcher.h's MmMatcherConfig): the key tables of its
 *		groups (the GW2 wiki's <Filter> and <Scoring> blocks, the ticket's
 *		life in the queue; the prediction, rating and rules sections nest
 *		the tables of their own modules), the checks between keys, and the
 *		defaults on the rating model's scale.
 *
 *-------------------------------------------------------------------------
 */
#include "queue.h"
#include "rating_model.h"

/* Parse and check a queue configuration (NULL: defaults). */
void
mm_queue_config(Jsonb *config, MmMatcherConfig *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	mm_config_read(&mm_queue_config_kind, config, cfg);
}

#define BIG 1e15
#define MK(field) offsetof(MmMatcherConfig, field)
#define SCORE_KEY(key, field, d, text) \
	{.name = (key), .type = MM_CONFIG_FLOAT, .offset = MK(field), \
	 .min = -BIG, .max = BIG, .def = (d), .unit = "points", .doc = (text)}

/* <Filter>: which rosters are potentials of a target. */
static const MmConfigKey filter_keys[] = {
	{.name = "rosters", .type = MM_CONFIG_INT, .offset = MK(filter.rosters),
		.min = 1, .max = 1000000, .def = 50, .unit = "rosters",
	.doc = "Iteration/@rosters: targets tried per tick"},
	{.name = "limit", .type = MM_CONFIG_FLOAT, .flags = MM_CONFIG_MIN_EXCLUSIVE,
		.offset = MK(filter.limit_ms), .min = 0, .max = 3600000, .def = 50, .unit = "ms",
	.doc = "Iteration/@limit: time budget of one tick"},
	{.name = "potentials_min", .type = MM_CONFIG_INT, .flags = MM_CONFIG_NULLABLE,
		.offset = MK(filter.potentials_min), .null_offset = MK(filter.potentials_min_null),
		.min = 0, .max = 1000000, .def = 20, .def_null = true, .unit = "rosters",
	.doc = "Potentials/@min: fewest potentials for a match, until the target has waited padding_end (null: twice a match's players, 2 teams team_size, at most potentials_max; 20 at 5v5, the GW2 wiki's)"},
	{.name = "potentials_max", .type = MM_CONFIG_INT, .offset = MK(filter.potentials_max),
		.min = 1, .max = 1000000, .def = 500, .unit = "rosters",
	.doc = "Potentials/@max: most potentials looked at"},
	{.name = "padding", .type = MM_CONFIG_FLOAT, .flags = MM_CONFIG_NULLABLE,
		.offset = MK(filter.padding), .null_offset = MK(filter.padding_null),
		.min = 0, .max = BIG, .def = 10, .def_null = true, .unit = "rating/s",
	.doc = "Rating/@padding: range widening per second waited (null: the rating model's, openskill 0.25, glicko2 10)"},
	{.name = "deviations", .type = MM_CONFIG_FLOAT, .flags = MM_CONFIG_NULLABLE,
		.offset = MK(filter.deviations), .null_offset = MK(filter.deviations_null),
		.min = 0, .max = 1000, .def = 1, .def_null = true, .unit = "deviations",
	.doc = "half-width of a roster's range before padding, in its deviations (null: the rating model's, openskill 2, glicko2 2)"},
	{.name = "padding_start", .type = MM_CONFIG_FLOAT, .offset = MK(filter.padding_start),
		.min = 0, .max = BIG, .def = 30, .unit = "s",
	.doc = "Rating/@start: seconds waited before the range widens"},
	{.name = "padding_end", .type = MM_CONFIG_FLOAT, .offset = MK(filter.padding_end),
		.min = 0, .max = BIG, .def = 240, .unit = "s",
	.doc = "Rating/@end: seconds waited after which it stops widening"},
	{.name = NULL}
};

/* <Scoring>: how a potential is scored; a new rule is a row here. */
static const MmConfigKey scoring_keys[] = {
	{.name = "type", .type = MM_CONFIG_TEXT, .offset = MK(scoring.type), .def_text = "team",
	.doc = "team: professions counted per team; match: over both teams"},
	SCORE_KEY("age", scoring.age, 15, "per second the potential has waited"),
	SCORE_KEY("roster_size_distance", scoring.roster_size_distance, -500,
			  "per player of difference from the team's free seats"),
	SCORE_KEY("perfect_fit", scoring.perfect_fit, 200, "when the roster fills the team exactly"),
	SCORE_KEY("rank_distance", scoring.rank_distance, -10, "per rank of difference from the team's average"),
	{.name = "rating_distance", .type = MM_CONFIG_FLOAT, .flags = MM_CONFIG_NULLABLE,
		.offset = MK(scoring.rating_distance), .null_offset = MK(scoring.rating_distance_null),
		.min = -BIG, .max = BIG, .def = -5, .def_null = true, .unit = "points",
	.doc = "per rating point of difference from the team's average effective rating (null: the rating model's, openskill -200, glicko2 -5)"},
	SCORE_KEY("ladder_distance", scoring.ladder_distance, 0,
			  "per ladder point of difference from the team's average"),
	{.name = "profession_max", .type = MM_CONFIG_INT, .offset = MK(scoring.profession_max),
		.min = 1, .max = 1000, .def = 2, .unit = "players",
	.doc = "players of one profession before profession_common applies"},
	SCORE_KEY("profession_common", scoring.profession_common, -500,
			  "per profession past profession_max"),
	SCORE_KEY("profession_unique", scoring.profession_unique, 500,
			  "per profession new to the team"),
	SCORE_KEY("dishonor_distance", scoring.dishonor_distance, -100,
			  "per stack of difference from the team's dishonor"),
	SCORE_KEY("dishonor_stack", scoring.dishonor_stack, -50, "per dishonor stack of the roster"),
	{.name = NULL}
};

/* The queue config's keys: the GW2 wiki's <Filter> and <Scoring> blocks and mm's queue keys. */
static const MmConfigKey matcher_keys[] = {
	{.name = "team_size", .type = MM_CONFIG_INT, .offset = MK(team_size),
		.min = 1, .max = 1000, .def = 5, .unit = "players",
	.doc = "players per team"},
	{.name = "teams", .type = MM_CONFIG_INT, .flags = MM_CONFIG_GIVEN, .offset = MK(nteams),
		.given_offset = MK(nteams_given), .min = 2, .max = MM_TEAMS, .def = 2, .unit = "teams",
	.doc = "teams per match (team_size 1: a free-for-all of that many players)"},
	{.name = "team_names", .type = MM_CONFIG_CUSTOM, .parse = mm_team_names_parse,
		.render = mm_team_names_render,
	.doc = "the teams' names in team order (null: red, blue, then team_3, team_4, ...); alone it sets teams"},
	{.name = "filter", .type = MM_CONFIG_OBJECT, .keys = filter_keys},
	{.name = "scoring", .type = MM_CONFIG_OBJECT, .keys = scoring_keys},
	{.name = "prediction", .type = MM_CONFIG_OBJECT, .offset = MK(prediction),
	.keys = mm_prediction_keys},
	{.name = "ticket_ttl", .type = MM_CONFIG_DURATION,
		.flags = MM_CONFIG_NULLABLE | MM_CONFIG_MIN_EXCLUSIVE,
		.offset = MK(queue.ticket_ttl), .null_offset = MK(queue.ticket_ttl_null),
		.min = 0, .max = 1e10, .def_null = true, .unit = "s",
	.doc = "a tick expires rosters that have waited that long (null: never)"},
	{.name = "requeue_while_in_match", .type = MM_CONFIG_BOOL,
		.offset = MK(queue.requeue_while_in_match), .def = 0,
	.doc = "a player in an unfinished match may enqueue again"},
	{.name = "accept_timeout", .type = MM_CONFIG_DURATION,
		.flags = MM_CONFIG_NULLABLE | MM_CONFIG_MIN_EXCLUSIVE,
		.offset = MK(queue.accept_timeout), .null_offset = MK(queue.accept_timeout_null),
		.min = 0, .max = 86400, .def_null = true, .unit = "s",
	.doc = "a ready check: matches are proposed until every player accepts within this time (null: no ready check)"},
	{.name = "dodge_reason", .type = MM_CONFIG_TEXT, .flags = MM_CONFIG_NULLABLE,
		.offset = MK(queue.dodge_reason), .null_offset = MK(queue.dodge_reason_null),
		.def_null = true,
	.doc = "dishonor reason a player who declines or stays silent in a ready check gets (null: none)"},
	{.name = "dodge_timeout", .type = MM_CONFIG_DURATION,
		.flags = MM_CONFIG_NULLABLE | MM_CONFIG_MIN_EXCLUSIVE,
		.offset = MK(queue.dodge_timeout), .null_offset = MK(queue.dodge_timeout_null),
		.min = 0, .max = 86400, .def_null = true, .unit = "s",
	.doc = "a player who declines or stays silent in a ready check may not queue in this queue again for this long (null: no wait)"},
	{.name = "split", .type = MM_CONFIG_TEXT, .offset = MK(split_name), .def_text = "fairest",
	.doc = "how a match's chosen rosters are split into teams: fairest (the favourite's odds closest to even under the rating model, parties whole, the roles rule kept) or gw2 (the teams as the GW2 wiki's populateMatch filled them)"},
	{.name = "rating", .type = MM_CONFIG_OBJECT, .offset = MK(rating),
	.keys = mm_rating_config_keys},
	{.name = "attributes", .type = MM_CONFIG_CUSTOM, .parse = mm_attributes_parse,
		.render = mm_attributes_render,
	.doc = "the attributes a roster carries: name -> {type: number, string or string_set; default; required}"},
	{.name = "roles", .type = MM_CONFIG_CUSTOM, .parse = mm_roles_parse, .render = mm_roles_render,
	.doc = "the roles a player may carry (mm.enqueue's roles), which a roles rule counts per team"},
	{.name = "rules", .type = MM_CONFIG_CUSTOM, .parse = mm_rules_parse, .render = mm_rules_render,
	.doc = "rules (equal, distance, intersect, latency, roles, party, balance): hard, each with an optional expand schedule over the target's wait, or soft (distance, latency) with a weight in the score"},
	{.name = NULL}
};

#undef SCORE_KEY
#undef MK

static void matcher_check(void *base, const char *what);

const MmConfigKind mm_queue_config_kind = {
	.kind = "queue", .what = "queue config", .keys = matcher_keys,
	.size = sizeof(MmMatcherConfig), .check = matcher_check
};

/* Fill a configuration with the GW2 wiki's defaults. */
void
mm_matcher_defaults(MmMatcherConfig *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	mm_config_defaults(matcher_keys, cfg);
}

static void
matcher_check(void *base, const char *what)
{
	(void) what;
	mm_matcher_check(base);
}

/* Check the relations between keys that one key's range cannot express. */
void
mm_matcher_check(MmMatcherConfig *cfg)
{
	const MmRatingModel *model;

	mm_prediction_check(&cfg->prediction, "queue config");
	/* any letter case is accepted; the stored config says "spread" */
	cfg->prediction.rank.method = cfg->prediction.rating.method =
		cfg->prediction.roster.method = "spread";
	if (strcmp(cfg->scoring.type, "team") == 0)
		cfg->scoring.per_match = false;
	else if (strcmp(cfg->scoring.type, "match") == 0)
		cfg->scoring.per_match = true;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("queue config key \"scoring.type\" is invalid"),
				 errdetail("The value is \"%s\".", cfg->scoring.type),
				 errhint("Use \"team\" (professions counted per team) or \"match\" (over both teams).")));
	if (cfg->filter.padding_end < cfg->filter.padding_start)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("queue config key \"filter.padding_end\" must not be less than \"filter.padding_start\""),
				 errdetail("padding_start is %g s and padding_end is %g s.",
						   cfg->filter.padding_start, cfg->filter.padding_end)));
	/* the teams: their number, and their names given or red, blue, team_3, ... */
	if (cfg->nteam_names > 0)
	{
		if (cfg->nteams_given && cfg->nteams != cfg->nteam_names)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("queue config key \"team_names\" must name as many teams as \"teams\""),
					 errdetail("teams is %d and team_names names %d.", cfg->nteams, cfg->nteam_names),
					 errhint("Give one name per team, or leave teams out (team_names alone sets it).")));
		cfg->nteams = cfg->nteam_names;
	}
	else
	{
		cfg->team_names = palloc(sizeof(char *) * cfg->nteams);
		for (int t = 0; t < cfg->nteams; t++)
			cfg->team_names[t] = t == 0 ? "red" : t == 1 ? "blue" : psprintf("team_%d", t + 1);
	}
	/*
	 * potentials_min not given: twice the players of a match, the GW2 wiki's
	 * 20 for its 5v5 queues, in proportion for other team sizes and counts
	 * (a 20 in a 3v3 queue asks a third more of the queue than it does at
	 * 5v5)
	 */
	if (cfg->filter.potentials_min_null)
		cfg->filter.potentials_min = Min(2 * cfg->nteams * cfg->team_size, cfg->filter.potentials_max);
	if (cfg->filter.potentials_max < cfg->filter.potentials_min)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("queue config key \"filter.potentials_max\" must not be less than \"filter.potentials_min\""),
				 errdetail("potentials_min is %d and potentials_max is %d.",
						   cfg->filter.potentials_min, cfg->filter.potentials_max)));
	mm_rating_config_check(&cfg->rating, "queue config");
	model = mm_rating_model_of(&cfg->rating);
	/* the scale-bound keys not given: the rating model's (rendered as null) */
	if (cfg->filter.padding_null)
		cfg->filter.padding = model->scale.padding;
	if (cfg->filter.deviations_null)
		cfg->filter.deviations = model->scale.deviations;
	if (cfg->scoring.rating_distance_null)
		cfg->scoring.rating_distance = model->scale.rating_distance;
	if (cfg->prediction.rating.spread_null)
		cfg->prediction.rating.spread = model->scale.rating_spread;
	if (!cfg->queue.dodge_reason_null)
	{
		mm_config_check_name("queue config", "dodge_reason", cfg->queue.dodge_reason);
		if (cfg->queue.dodge_reason[0] == '\0')
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("queue config key \"dodge_reason\" must not be empty"),
					 errhint("Name a reason of the dishonor config, or null for no dishonor.")));
	}
	if (strcmp(cfg->split_name, "fairest") == 0)
		cfg->split = MM_SPLIT_FAIREST;
	else if (strcmp(cfg->split_name, "gw2") == 0)
		cfg->split = MM_SPLIT_GW2;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("queue config key \"split\" is invalid"),
				 errdetail("The value is \"%s\".", cfg->split_name),
				 errhint("Use \"fairest\" (the split of the chosen rosters whose odds are closest to even) or \"gw2\" (the teams as populated).")));
	cfg->odds_scale = 1.0;
	mm_rules_check(cfg);
	cfg->queue.ticket_ttl_s = cfg->queue.ticket_ttl_null ? 0 : cfg->queue.ticket_ttl.seconds;
	cfg->queue.accept_timeout_s = cfg->queue.accept_timeout_null ? 0 : cfg->queue.accept_timeout.seconds;
}
