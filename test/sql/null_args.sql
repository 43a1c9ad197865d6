-- NULL arguments across the whole public surface (docs/conventions.md, NULL):
-- a NULL where a value is needed is refused with 22004 naming the argument,
-- unless the function documents what NULL means (and then it means *none*,
-- never "the defaults"); pure math functions are STRICT (NULL in, NULL out).
--
-- The test walks the catalog: every function and aggregate of schema mm
-- whose name does not start with "_", that is not a support function of an
-- aggregate or a type and whose COMMENT does not begin with "internal:".
-- A STRICT function must be IMMUTABLE (pure math); any other is called once
-- per argument, with a valid value for the others (the sample table below;
-- arguments left out take their declared default) and NULL for that one,
-- each call in its own subtransaction that is rolled back, and must fail
-- with 22004 unless the (function, argument) pair is in the allow-list.
-- A function without a sample, a sample that cannot run, a STRICT function
-- that is not IMMUTABLE, and an allow-list entry that refuses NULL after all
-- are reported too: the lists below must stay empty.
\set VERBOSITY sqlstate
SET timezone = 'UTC';
-- sequences are not rolled back: put them back at the end
CREATE TEMP TABLE null_saved_sequences (seq regclass, last_value bigint, is_called boolean);
DO $$
DECLARE
    c regclass;
BEGIN
    FOR c IN SELECT oid FROM pg_class WHERE relnamespace = 'mm'::regnamespace AND relkind = 'S' LOOP
        EXECUTE format('INSERT INTO null_saved_sequences SELECT %L, last_value, is_called FROM %s', c, c);
    END LOOP;
END
$$;

BEGIN;
-- Fixtures: a queue with a ready check (a proposed match), one without (a
-- delivered match and a backfill), a waiting roster, a place with a seated
-- server, a pool with an entry, histories for the replays.
SELECT mm.create_queue('nq_ready', '{"team_size": 1, "filter": {"potentials_min": 1}, "accept_timeout": 30}');
SELECT mm.create_queue('nq', '{"team_size": 2, "filter": {"potentials_min": 1}, "requeue_while_in_match": false}');
SELECT count(mm.enqueue('nq_ready', ARRAY[p], 1500, joined_at => '2024-01-01 12:00+00'))
FROM unnest(ARRAY[97001, 97002]::bigint[]) p;
SELECT DISTINCT match_id AS proposed FROM mm.tick('nq_ready') \gset
SELECT count(mm.enqueue('nq', ARRAY[p], 1500, joined_at => '2024-01-01 12:00+00'))
FROM unnest(ARRAY[97011, 97012, 97013, 97014]::bigint[]) p;
SELECT DISTINCT match_id AS delivered FROM mm.tick('nq', '2024-01-01 12:10+00') \gset
SELECT mm.request_backfill(:delivered, 'red', 1) AS backfill \gset
SELECT mm.enqueue('nq', ARRAY[97021, 97022]::bigint[], 1500) AS roster \gset
SELECT (SELECT queue_id FROM mm.queue WHERE name = 'nq') AS queue_id \gset
SELECT mm.add_server('np', 10) AS server \gset
SELECT mm.place_player(:server, 97031);
SELECT mm.set_server_attribute(:server, 'Level', '1');
SELECT mm.create_pool('npool', '{"player_cache_size": 1000}');
SELECT mm.put_entry('npool', 97041, 1000) AS entry \gset
CREATE TEMP TABLE null_fix AS
SELECT :proposed::bigint AS proposed, :delivered::bigint AS delivered, :backfill::bigint AS backfill,
       :roster::bigint AS roster, :queue_id::int AS queue_id, :server::bigint AS server, :entry::bigint AS entry;
CREATE TEMP TABLE null_history (match_id int, player_id bigint, team int, rank int);
INSERT INTO null_history VALUES (1, 1, 1, 1), (1, 2, 2, 2), (2, 1, 1, 2), (2, 2, 2, 1);
CREATE TEMP TABLE null_games (player_id bigint, opponent_id bigint, score float8, played_at timestamptz);
INSERT INTO null_games VALUES (1, 2, 1, '2024-01-01'), (2, 1, 0, '2024-01-01'), (1, 2, 0, '2024-01-03'), (2, 1, 1, '2024-01-03');
CREATE TEMP TABLE null_team_games (match int, player_id bigint, team int, rank int, played_at timestamptz);
INSERT INTO null_team_games VALUES (1, 1, 1, 1, '2024-01-01'), (1, 2, 2, 2, '2024-01-01');
CREATE TEMP TABLE null_rosters (pos int, roster_id bigint, players bigint[], rating float8, joined_at timestamptz);
INSERT INTO null_rosters VALUES (1, 1, '{1}', 1500, '2024-01-01 12:00+00'), (2, 2, '{2}', 1500, '2024-01-01 12:00+00');

-- Valid arguments per function, as SQL expressions in argument order; the
-- arguments after the last given take their declared defaults.
CREATE TEMP TABLE null_sample (fn regprocedure PRIMARY KEY, args text[] NOT NULL);
INSERT INTO null_sample VALUES
-- ratings
('mm.openskill_rate(int[], float8[], float8[], float8[], text, float8, float8, float8, boolean, float8[], float8, float8, float8, boolean, float8, float8[], float8)',
 '{"''{1,2}''", "''{1,2}''", "''{25,25}''", "''{8,8}''"}'),
('mm.openskill_replay(text, text, text, float8, float8, float8, boolean, float8, float8, float8, float8, float8, boolean, float8)',
 '{"''SELECT * FROM null_history ORDER BY match_id''"}'),
-- deprecated: mm.openskill_replay's 0.1.0 name
('mm.replay_openskill(text, text, text, float8, float8, float8, boolean, float8, float8, float8, float8, float8, boolean, float8)',
 '{"''SELECT * FROM null_history ORDER BY match_id''"}'),
('mm.openskill_history(text, text, text, float8, float8, float8, boolean, float8, float8, float8, float8, float8, boolean, float8)',
 '{"''SELECT * FROM null_history ORDER BY match_id''"}'),
('mm.openskill_calibration(text, text, text, float8, float8, float8, boolean, float8, float8, float8, float8, float8, boolean, float8, int)',
 '{"''SELECT * FROM null_history ORDER BY match_id''"}'),
('mm.openskill_fit(text, text, float8[], float8, float8, int, text, text)',
 '{"''SELECT * FROM null_history ORDER BY match_id''", "''beta''", "''{2,4}''"}'),
('mm.party_rating_agg(float8, float8)', '{25, 8}'),
('mm.party_rating_agg(float8, float8, float8, float8, float8)', '{25, 8, 2, 1, 3}'),
('mm.ims_beta(float8, boolean)', '{1, true}'),
('mm.calibration(float8, float8)', '{0.6, 1}'),
('mm.calibration(float8, float8, int)', '{0.6, 1, 10}'),
('mm.config_keys(text)', '{"''queue''"}'),
('mm.glicko2_rate(mm.glicko, float8[], float8[], float8[], float8, jsonb)',
 '{"''(1500,200,0.06)''", "''{1400}''", "''{30}''", "''{1}''"}'),
('mm.glicko2_idle(mm.glicko, float8, jsonb)', '{"''(1500,200,0.06)''", 2}'),
('mm.glicko2_policy(jsonb)', '{"''{}''"}'),
('mm.glicko2_rating_at(mm.glicko, timestamptz, timestamptz, jsonb)',
 '{"''(1500,200,0.06)''", "''2024-01-01''", "''2024-01-10''"}'),
('mm.glicko2_blend(mm.glicko, mm.glicko, jsonb)', '{"''(1600,60,0.05)''", "''(1400,200,0.07)''"}'),
('mm.glicko2_replay(text, interval, float8, jsonb, boolean)', '{"''SELECT * FROM null_games''", "''1 day''"}'),
('mm.glicko2_history(text, interval, float8, jsonb, boolean)', '{"''SELECT * FROM null_games''", "''1 day''"}'),
('mm.glicko2_team_replay(text, interval, float8, jsonb, boolean, text)', '{"''SELECT * FROM null_team_games''", "''1 day''"}'),
('mm.glicko2_calibration(text, interval, float8, jsonb, boolean, int, float8)', '{"''SELECT * FROM null_games''", "''1 day''"}'),
('mm.glicko2_fit(text, text, float8[], float8, float8, int, interval, boolean)',
 '{"''SELECT * FROM null_games''", "''tau''", "''{0.3,0.6}''", NULL, NULL, 20, "''1 day''"}'),
('mm.glicko2_period(float8, float8, float8, float8, float8, float8)', '{1500, 200, 0.06, 1400, 30, 1}'),
('mm.glicko2_period(float8, float8, float8, float8, float8, float8, float8)', '{1500, 200, 0.06, 1400, 30, 1, 0.5}'),
('mm.glicko2_period(float8, float8, float8, float8, float8, float8, float8, jsonb)', '{1500, 200, 0.06, 1400, 30, 1, 0.5, "''{}''"}'),
-- signals and placement
('mm.share(anyelement, anyelement)', '{3, 3}'),
('mm.weighted_score(float8, float8)', '{0.5, 2}'),
('mm.rank_servers(text, jsonb, bigint[])', '{"''np''", "''{}''", "''{}''"}'),
('mm.get_server_attribute(bigint, text)', '{"(SELECT server FROM null_fix)", "''Level''"}'),
('mm.place_signals(text)', '{"''np''"}'),
('mm.server_breakdown_weighted(text, text[], float8[])', '{"''np''", "''{occupancy}''", "''{1}''"}'),
('mm.refresh_servers(bigint[])', '{"ARRAY[(SELECT server FROM null_fix)]"}'),
('mm.refresh_servers(text)', '{"''np''"}'),
('mm.add_server(text, int, jsonb)', '{"''np''", 10, "''{}''"}'),
('mm.set_place_config(text, jsonb)', '{"''np''", "''{}''"}'),
('mm.place_player(bigint, bigint, jsonb)', '{"(SELECT server FROM null_fix)", 97032, "''{}''"}'),
('mm.join_server(text, bigint, jsonb, bigint[])', '{"''np''", 97033, "''{}''", "''{}''"}'),
('mm.join_party(text, bigint[], jsonb[], bigint[])', '{"''np''", "''{97034,97035}''"}'),
('mm.leave_server(bigint)', '{97031}'),
('mm.set_server_attribute(bigint, text, jsonb)', '{"(SELECT server FROM null_fix)", "''Level''", "''1''"}'),
('mm.remove_server(bigint)', '{"(SELECT server FROM null_fix)"}'),
('mm.set_player_attributes(bigint, jsonb)', '{97031, "''{\"age\": 30}''"}'),
-- dishonor and ladder
('mm.dishonor_config_defaults()', '{}'),
('mm.dishonor_config()', '{}'),
('mm.set_dishonor_config(jsonb)', '{"''{}''"}'),
('mm.dishonor_apply(int, timestamptz, timestamptz, text, timestamptz, jsonb)',
 '{0, NULL, NULL, "''abandon''", "''2026-01-01''"}'),
('mm.dishonor(bigint, text, timestamptz)', '{97051, "''abandon''"}'),
('mm.dishonor_statuses(bigint[], timestamptz)', '{"''{97051}''"}'),
('mm.dishonor_status(bigint, timestamptz)', '{97051}'),
('mm.dishonor_clear(bigint)', '{97051}'),
('mm.prediction_config_defaults()', '{}'),
('mm.ladder_config_resolve(jsonb)', '{"''{}''"}'),
('mm.ladder_config_defaults()', '{}'),
('mm.ladder_points(float8, float8, text, jsonb, timestamptz)', '{0.5, 500, "''victory''", "''{}''"}'),
('mm.ladder_apply(int, int, jsonb)', '{100, 10, "''{}''"}'),
-- queues
('mm.create_queue(text, jsonb)', '{"''nq_new''"}'),
('mm.alter_queue(text, jsonb, boolean)', '{"''nq''", "''{}''"}'),
('mm.drop_queue(text, boolean)', '{"''nq''"}'),
('mm.enqueue(text, bigint[], float8, float8, float8, float8, int, text[], timestamptz, jsonb, jsonb, text[], float8)',
 '{"''nq''", "''{97061}''", 1500}'),
('mm.enqueue(int, bigint[], float8, float8, float8, float8, int, text[], timestamptz, jsonb, jsonb, text[], float8)',
 '{"(SELECT queue_id FROM null_fix)", "''{97061}''", 1500}'),
('mm.update_roster(bigint, float8, float8, float8, float8, int, text[], jsonb, jsonb, text[])', '{"(SELECT roster FROM null_fix)", 1600}'),
('mm.list_queue(text, timestamptz)', '{"''nq''"}'),
('mm.block(bigint, bigint, timestamptz)', '{97071, 97072}'),
('mm.unblock(bigint, bigint)', '{97071, 97072}'),
('mm.player_blocks(bigint, timestamptz)', '{97071}'),
('mm.tick(text, timestamptz)', '{"''nq''"}'),
('mm.tick(int, timestamptz)', '{"(SELECT queue_id FROM null_fix)"}'),
('mm.preview(text, timestamptz)', '{"''nq''"}'),
('mm.explain(bigint, timestamptz)', '{"(SELECT roster FROM null_fix)"}'),
('mm.claim_matches(text, int)', '{"''nq''"}'),
('mm.events(text, bigint, int, interval)', '{"''nq''"}'),
('mm.claim_matches(int, int)', '{"(SELECT queue_id FROM null_fix)"}'),
('mm.queue_channel(text)', '{"''nq''"}'),
('mm.match_players(bigint[])', '{"ARRAY[(SELECT delivered FROM null_fix)]"}'),
('mm.open_matches(text)', '{"''nq''"}'),
('mm.estimate_wait(text, float8, int, timestamptz)', '{"''nq''", 1500}'),
('mm.estimate_roster_wait(bigint, timestamptz)', '{"(SELECT roster FROM null_fix)"}'),
('mm.match_rosters(text, jsonb, timestamptz)',
 '{"''SELECT * FROM null_rosters ORDER BY pos''", "''{\"team_size\": 1, \"filter\": {\"potentials_min\": 1}}''", "''2024-01-01 12:10+00''"}'),
('mm.ticket_status(bigint)', '{97021}'),
('mm.roster_status(bigint)', '{"(SELECT roster FROM null_fix)"}'),
('mm.leave(bigint)', '{"(SELECT roster FROM null_fix)"}'),
('mm.leave(int, bigint)', '{"(SELECT queue_id FROM null_fix)", "(SELECT roster FROM null_fix)"}'),
('mm.leave_player(bigint)', '{97021}'),
('mm.remove_player(bigint, bigint)', '{"(SELECT roster FROM null_fix)", 97021}'),
-- (CALLed here inside a transaction block, it refuses to run: 2D000)
('mm.run_ticks(text, interval, interval)', '{"''nq''", "''1 second''", "''0 seconds''"}'),
('mm.purge(interval, int, interval)', '{"''1 day''"}'),
('mm.whatif(text, timestamptz, timestamptz, jsonb, interval, float8, bigint)',
 '{"''nq''", "''2024-01-01 12:00+00''", "''2024-01-01 12:01+00''", "''{}''", "''10 seconds''"}'),
('mm.whatif_compare(text, timestamptz, timestamptz, jsonb[], interval, float8, bigint)',
 '{"''nq''", "''2024-01-01 12:00+00''", "''2024-01-01 12:01+00''", "''{}''", "''10 seconds''"}'),
('mm.whatif_matches(text, timestamptz, timestamptz, jsonb, interval, float8, bigint)',
 '{"''nq''", "''2024-01-01 12:00+00''", "''2024-01-01 12:01+00''", "''{}''", "''10 seconds''"}'),
('mm.accept(bigint, bigint)', '{"(SELECT proposed FROM null_fix)", 97001}'),
('mm.decline(bigint, bigint)', '{"(SELECT proposed FROM null_fix)", 97001}'),
('mm.request_backfill(bigint, text, int, text[])', '{"(SELECT delivered FROM null_fix)", "''blue''", 1}'),
('mm.cancel_backfill(bigint)', '{"(SELECT backfill FROM null_fix)"}'),
('mm.roster_rating(bigint[], jsonb, timestamptz, text[])', '{"''{97071}''", "''{}''"}'),
('mm.rating_replay(text, text, text, jsonb)', '{"''openskill''", "''SELECT * FROM null_history ORDER BY match_id''"}'),
('mm.bayes_fit(text, float8, float8)', '{"''SELECT * FROM null_history ORDER BY match_id''"}'),
('mm.bayes_refit(text, float8, float8)', '{"''ranked''"}'),
('mm.rating_history(text, text, text, jsonb)', '{"''openskill''", "''SELECT * FROM null_history ORDER BY match_id''"}'),
('mm.rating_calibration(text, text, text, jsonb, int)', '{"''openskill''", "''SELECT * FROM null_history ORDER BY match_id''"}'),
('mm.rating_conservative(text, float8[], timestamptz, timestamptz)', '{"''glicko2''", "''{1500, 350, 0.06}''", "''2024-01-01 00:00+00''", "''2024-06-01 00:00+00''"}'),
('mm.close_rating_period(text, timestamptz)', '{"''nq_key''"}'),
('mm.report_result(bigint, jsonb)', '{"(SELECT delivered FROM null_fix)", "''{\"teams\": {\"red\": {\"rank\": 1}, \"blue\": {\"rank\": 2}}}''"}'),
('mm.report_result(int, bigint, jsonb)', '{"(SELECT queue_id FROM null_fix)", "(SELECT delivered FROM null_fix)", "''{\"teams\": {\"red\": {\"rank\": 1}, \"blue\": {\"rank\": 2}}}''"}'),
('mm.abandon_match(bigint)', '{"(SELECT delivered FROM null_fix)"}'),
-- async pools
('mm.create_pool(text, jsonb)', '{"''npool_new''"}'),
('mm.alter_pool(text, jsonb, boolean)', '{"''npool''", "''{}''"}'),
('mm.drop_pool(text)', '{"''npool''"}'),
('mm.pool_buckets(text)', '{"''npool''"}'),
('mm.put_entry(text, bigint, float8, text[], jsonb)', '{"''npool''", 97042, 1000}'),
('mm.remove_entry(bigint)', '{"(SELECT entry FROM null_fix)"}'),
('mm.remove_entries(text, bigint)', '{"''npool''", 97041}'),
('mm.offer_entry(bigint)', '{"(SELECT entry FROM null_fix)"}'),
('mm.find_opponent(text, float8, text[], int, bigint[], bigint)', '{"''npool''", 1000}'),
('mm.find_candidates(text, float8, text[], int, bigint[], bigint, int)', '{"''npool''", 1000}'),
('mm.rebalance_pool(text)', '{"''npool''"}'),
-- scale-out and roles (without Citus, mm.citus_distribute_queues and
-- mm.citus_prepare_nodes refuse to run: 0A000)
('mm.citus_distribute_queues(int)', '{32}'),
('mm.citus_prepare_nodes()', '{}'),
('mm.grant_roles(name, name, name)', '{"''mm_service''", "''mm_admin''", "''mm_analyst''"}');

-- The documented meanings of NULL: (function, argument, what NULL means, as
-- the function's page says). Nothing else may accept a NULL.
CREATE TEMP TABLE null_allowed (fn regprocedure, arg text, meaning text NOT NULL, PRIMARY KEY (fn, arg));
INSERT INTO null_allowed VALUES
('mm.openskill_rate(int[], float8[], float8[], float8[], text, float8, float8, float8, boolean, float8[], float8, float8, float8, boolean, float8, float8[], float8)',
 'weight', 'no weights: every player counts fully'),
('mm.openskill_rate(int[], float8[], float8[], float8[], text, float8, float8, float8, boolean, float8[], float8, float8, float8, boolean, float8, float8[], float8)',
 'score', 'no scores: the ranks decide'),
('mm.openskill_replay(text, text, text, float8, float8, float8, boolean, float8, float8, float8, float8, float8, boolean, float8)',
 'initial', 'no initial ratings: every player starts new'),
('mm.replay_openskill(text, text, text, float8, float8, float8, boolean, float8, float8, float8, float8, float8, boolean, float8)',
 'initial', 'no initial ratings: every player starts new'),
('mm.openskill_history(text, text, text, float8, float8, float8, boolean, float8, float8, float8, float8, float8, boolean, float8)',
 'initial', 'no initial ratings: every player starts new'),
('mm.openskill_calibration(text, text, text, float8, float8, float8, boolean, float8, float8, float8, float8, float8, boolean, float8, int)',
 'initial', 'no initial ratings: every player starts new'),
('mm.openskill_fit(text, text, float8[], float8, float8, int, text, text)', 'initial', 'no initial ratings: every player starts new'),
('mm.openskill_fit(text, text, float8[], float8, float8, int, text, text)', 'grid', 'none: golden-section search over [lo, hi] instead'),
('mm.openskill_fit(text, text, float8[], float8, float8, int, text, text)', 'lo', 'none: the grid is searched instead'),
('mm.openskill_fit(text, text, float8[], float8, float8, int, text, text)', 'hi', 'none: the grid is searched instead'),
('mm.glicko2_fit(text, text, float8[], float8, float8, int, interval, boolean)', 'grid', 'none: golden-section search over [lo, hi] instead'),
('mm.glicko2_fit(text, text, float8[], float8, float8, int, interval, boolean)', 'lo', 'none: the grid is searched instead'),
('mm.glicko2_fit(text, text, float8[], float8, float8, int, interval, boolean)', 'hi', 'none: the grid is searched instead'),
('mm.glicko2_fit(text, text, float8[], float8, float8, int, interval, boolean)', 'period', 'none given: rating periods of 3 days'),
('mm.config_keys(text)', 'kind', 'no kind: the keys of every config'),
('mm.whatif(text, timestamptz, timestamptz, jsonb, interval, float8, bigint)', 'every', 'none: the recorded tick times'),
('mm.whatif(text, timestamptz, timestamptz, jsonb, interval, float8, bigint)', 'accept_rate', 'none: the recorded accept rate'),
('mm.whatif_compare(text, timestamptz, timestamptz, jsonb[], interval, float8, bigint)', 'every', 'none: the recorded tick times'),
('mm.whatif_compare(text, timestamptz, timestamptz, jsonb[], interval, float8, bigint)', 'accept_rate', 'none: the recorded accept rate'),
('mm.whatif_matches(text, timestamptz, timestamptz, jsonb, interval, float8, bigint)', 'every', 'none: the recorded tick times'),
('mm.whatif_matches(text, timestamptz, timestamptz, jsonb, interval, float8, bigint)', 'accept_rate', 'none: the recorded accept rate'),
('mm.glicko2_rate(mm.glicko, float8[], float8[], float8[], float8, jsonb)', 'tau', 'no tau given: the policy''s system constant, 0.5 without a policy'),
('mm.glicko2_rate(mm.glicko, float8[], float8[], float8[], float8, jsonb)', 'policy', 'no policy: plain Glicko-2'),
('mm.glicko2_idle(mm.glicko, float8, jsonb)', 'policy', 'no policy: plain Glicko-2'),
('mm.glicko2_rating_at(mm.glicko, timestamptz, timestamptz, jsonb)', 'policy', 'no policy: plain Glicko-2 over 3-day periods'),
('mm.glicko2_replay(text, interval, float8, jsonb, boolean)', 'period', 'no period given: the policy''s, 3 days without a policy'),
('mm.glicko2_replay(text, interval, float8, jsonb, boolean)', 'tau', 'no tau given: the policy''s system constant, 0.5 without a policy'),
('mm.glicko2_replay(text, interval, float8, jsonb, boolean)', 'policy', 'no policy: plain Glicko-2'),
('mm.glicko2_history(text, interval, float8, jsonb, boolean)', 'period', 'no period given: the policy''s, 3 days without a policy'),
('mm.glicko2_history(text, interval, float8, jsonb, boolean)', 'tau', 'no tau given: the policy''s system constant, 0.5 without a policy'),
('mm.glicko2_history(text, interval, float8, jsonb, boolean)', 'policy', 'no policy: plain Glicko-2'),
('mm.glicko2_team_replay(text, interval, float8, jsonb, boolean, text)', 'period', 'no period given: the policy''s, 3 days without a policy'),
('mm.glicko2_team_replay(text, interval, float8, jsonb, boolean, text)', 'tau', 'no tau given: the policy''s system constant, 0.5 without a policy'),
('mm.glicko2_team_replay(text, interval, float8, jsonb, boolean, text)', 'policy', 'no policy: plain Glicko-2'),
('mm.glicko2_calibration(text, interval, float8, jsonb, boolean, int, float8)', 'period', 'no period given: the policy''s, 3 days without a policy'),
('mm.glicko2_calibration(text, interval, float8, jsonb, boolean, int, float8)', 'tau', 'no tau given: the policy''s system constant, 0.5 without a policy'),
('mm.glicko2_calibration(text, interval, float8, jsonb, boolean, int, float8)', 'policy', 'no policy: plain Glicko-2'),
('mm.glicko2_calibration(text, interval, float8, jsonb, boolean, int, float8)', 'initial_rd', 'none given: new players start at 350, or the policy''s default'),
('mm.glicko2_period(float8, float8, float8, float8, float8, float8, float8, jsonb)', 'tau', 'no tau given: the policy''s system constant, 0.5 without a policy'),
('mm.glicko2_period(float8, float8, float8, float8, float8, float8, float8, jsonb)', 'policy', 'no policy: plain Glicko-2'),
-- aggregates whose NULL rows are skipped, as sum() skips them
('mm.share(anyelement, anyelement)', 'value', 'a player without the attribute: counted, never equal'),
('mm.share(anyelement, anyelement)', 'target', 'the joining player has no such attribute: matches no one'),
('mm.calibration(float8, float8)', 'probability', 'a row without a prediction is not counted'),
('mm.calibration(float8, float8)', 'outcome', 'a row without an outcome is not counted'),
('mm.calibration(float8, float8, int)', 'probability', 'a row without a prediction is not counted'),
('mm.calibration(float8, float8, int)', 'outcome', 'a row without an outcome is not counted'),
('mm.ims_beta(float8, boolean)', 'delta', 'a row without a game is not counted'),
('mm.ims_beta(float8, boolean)', 'favoured_won', 'a row without a game is not counted'),
-- pure functions that take a policy cannot be STRICT (a NULL policy is no
-- policy); their other arguments are NULL in, NULL out, as a STRICT one's
('mm.glicko2_rate(mm.glicko, float8[], float8[], float8[], float8, jsonb)', 'player', 'pure: NULL in, NULL out'),
('mm.glicko2_rate(mm.glicko, float8[], float8[], float8[], float8, jsonb)', 'opp_rating', 'pure: NULL in, NULL out'),
('mm.glicko2_rate(mm.glicko, float8[], float8[], float8[], float8, jsonb)', 'opp_rd', 'pure: NULL in, NULL out'),
('mm.glicko2_rate(mm.glicko, float8[], float8[], float8[], float8, jsonb)', 'score', 'pure: NULL in, NULL out'),
('mm.glicko2_idle(mm.glicko, float8, jsonb)', 'player', 'pure: NULL in, NULL out'),
('mm.glicko2_idle(mm.glicko, float8, jsonb)', 'periods', 'pure: NULL in, NULL out'),
('mm.glicko2_rating_at(mm.glicko, timestamptz, timestamptz, jsonb)', 'player', 'pure: NULL in, NULL out'),
('mm.glicko2_rating_at(mm.glicko, timestamptz, timestamptz, jsonb)', 'updated_at', 'pure: NULL in, NULL out'),
('mm.glicko2_rating_at(mm.glicko, timestamptz, timestamptz, jsonb)', 'at', 'pure: NULL in, NULL out'),
('mm.glicko2_blend(mm.glicko, mm.glicko, jsonb)', 'core', 'pure: NULL in, NULL out'),
('mm.glicko2_blend(mm.glicko, mm.glicko, jsonb)', 'profession', 'pure: NULL in, NULL out'),
-- ladder: a player without a total yet starts at the config's "default"
('mm.ladder_apply(int, int, jsonb)', 'current', 'no total yet'),
-- placement
('mm.join_party(text, bigint[], jsonb[], bigint[])', 'players', 'no attributes given for the party''s players'),
-- dishonor: a player without stacks
('mm.dishonor_apply(int, timestamptz, timestamptz, text, timestamptz, jsonb)', 'stacks_at', 'none: the stacks are counted at at'),
('mm.dishonor_apply(int, timestamptz, timestamptz, text, timestamptz, jsonb)', 'timeout_until', 'no timeout'),
-- queues
('mm.enqueue(text, bigint[], float8, float8, float8, float8, int, text[], timestamptz, jsonb, jsonb, text[], float8)', 'rating', 'no rating given: the queue''s rating config forms it from the players'''),
('mm.enqueue(text, bigint[], float8, float8, float8, float8, int, text[], timestamptz, jsonb, jsonb, text[], float8)', 'dishonor', 'no dishonor given: the players'' current stacks'),
('mm.enqueue(int, bigint[], float8, float8, float8, float8, int, text[], timestamptz, jsonb, jsonb, text[], float8)', 'rating', 'no rating given: the queue''s rating config forms it from the players'''),
('mm.enqueue(text, bigint[], float8, float8, float8, float8, int, text[], timestamptz, jsonb, jsonb, text[], float8)', 'max_latency', 'no latency limit of the players'' own'),
('mm.enqueue(int, bigint[], float8, float8, float8, float8, int, text[], timestamptz, jsonb, jsonb, text[], float8)', 'max_latency', 'no latency limit of the players'' own'),
('mm.block(bigint, bigint, timestamptz)', 'until', 'a block that lasts until mm.unblock'),
('mm.enqueue(int, bigint[], float8, float8, float8, float8, int, text[], timestamptz, jsonb, jsonb, text[], float8)', 'dishonor', 'no dishonor given: the players'' current stacks'),
('mm.update_roster(bigint, float8, float8, float8, float8, int, text[], jsonb, jsonb, text[])', 'rating', 'unchanged'),
('mm.update_roster(bigint, float8, float8, float8, float8, int, text[], jsonb, jsonb, text[])', 'deviation', 'unchanged'),
('mm.update_roster(bigint, float8, float8, float8, float8, int, text[], jsonb, jsonb, text[])', 'rank', 'unchanged'),
('mm.update_roster(bigint, float8, float8, float8, float8, int, text[], jsonb, jsonb, text[])', 'ladder_points', 'unchanged'),
('mm.update_roster(bigint, float8, float8, float8, float8, int, text[], jsonb, jsonb, text[])', 'dishonor', 'unchanged'),
('mm.update_roster(bigint, float8, float8, float8, float8, int, text[], jsonb, jsonb, text[])', 'professions', 'unchanged'),
('mm.update_roster(bigint, float8, float8, float8, float8, int, text[], jsonb, jsonb, text[])', 'attributes', 'unchanged'),
('mm.update_roster(bigint, float8, float8, float8, float8, int, text[], jsonb, jsonb, text[])', 'latencies', 'unchanged'),
('mm.update_roster(bigint, float8, float8, float8, float8, int, text[], jsonb, jsonb, text[])', 'roles', 'unchanged'),
('mm.roster_rating(bigint[], jsonb, timestamptz, text[])', 'professions', 'no professions: every player''s core rating'),
('mm.rating_replay(text, text, text, jsonb)', 'initial', 'every player starts at the defaults'),
('mm.rating_history(text, text, text, jsonb)', 'initial', 'every player starts at the defaults'),
('mm.rating_calibration(text, text, text, jsonb, int)', 'initial', 'every player starts at the defaults'),
('mm.rating_conservative(text, float8[], timestamptz, timestamptz)', 'last_played', 'the state as stored'),
('mm.rating_conservative(text, float8[], timestamptz, timestamptz)', 'at', 'the state as stored'),
('mm.run_ticks(text, interval, interval)', 'queue', 'every queue'),
-- async pools
('mm.put_entry(text, bigint, float8, text[], jsonb)', 'model', 'no model stored with the entry'),
('mm.find_opponent(text, float8, text[], int, bigint[], bigint)', 'searcher', 'no searcher: nobody''s own entries are left out'),
('mm.find_candidates(text, float8, text[], int, bigint[], bigint, int)', 'searcher', 'no searcher: nobody''s own entries are left out');

-- The walk.
CREATE FUNCTION pg_temp.null_try(call text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    BEGIN
        EXECUTE call;
        RAISE EXCEPTION 'rolled back' USING ERRCODE = 'MMT01';
    EXCEPTION WHEN OTHERS THEN
        IF SQLSTATE = 'MMT01' THEN
            RETURN 'ok';
        END IF;
        RETURN SQLSTATE || ' ' || SQLERRM;
    END;
END
$$;

CREATE TEMP TABLE null_checked AS
WITH support AS (
    SELECT unnest(ARRAY[aggtransfn, aggfinalfn, aggcombinefn, aggserialfn, aggdeserialfn,
                        aggmtransfn, aggminvtransfn, aggmfinalfn])::oid AS f FROM pg_aggregate
    UNION SELECT unnest(ARRAY[typinput, typoutput, typreceive, typsend, typmodin, typmodout, typanalyze])::oid FROM pg_type
)
SELECT p.oid::regprocedure AS fn, p.prokind, p.proisstrict, p.provolatile, p.pronargs
FROM pg_proc p
WHERE p.pronamespace = 'mm'::regnamespace
  AND p.proname !~ '^_'
  AND p.oid NOT IN (SELECT f FROM support)
  AND coalesce(obj_description(p.oid, 'pg_proc'), '') NOT LIKE 'internal:%';

CREATE TEMP TABLE null_outcome (fn regprocedure, arg text, argpos int, outcome text, message text);
-- (the what-if replays say how far they are with NOTICEs)
SET client_min_messages = warning;
DO $$
DECLARE
    f record;
    s text[];
    vals text[];
    names text[];
    types text[];
    i int;
    j int;
    call text;
    head text;
BEGIN
    FOR f IN SELECT c.*, n.args FROM null_checked c JOIN null_sample n USING (fn)
             WHERE NOT (c.proisstrict AND c.provolatile = 'i') ORDER BY c.fn::text LOOP
        s := f.args;
        vals := ARRAY[]::text[];
        names := ARRAY[]::text[];
        types := ARRAY[]::text[];
        FOR i IN 1 .. f.pronargs LOOP
            types := types || format_type((SELECT proargtypes[i - 1] FROM pg_proc WHERE oid = f.fn), NULL);
            names := names || coalesce((SELECT a.name FROM pg_proc p,
                                               unnest(p.proargnames, coalesce(p.proargmodes, array_fill('i'::"char", ARRAY[cardinality(p.proargnames)])))
                                               WITH ORDINALITY a(name, mode, ord)
                                        WHERE p.oid = f.fn AND a.mode IN ('i', 'b', 'v')
                                        ORDER BY a.ord OFFSET i - 1 LIMIT 1), '$' || i);
            IF i <= coalesce(cardinality(s), 0) THEN
                vals := vals || coalesce(s[i], 'NULL');
            ELSE
                vals := vals || pg_get_function_arg_default(f.fn, i);
            END IF;
        END LOOP;
        head := CASE f.prokind WHEN 'p' THEN 'CALL ' WHEN 'a' THEN 'SELECT ' ELSE 'SELECT * FROM ' END
                || f.fn::oid::regproc::text;
        FOR j IN 0 .. f.pronargs LOOP
            call := '';
            FOR i IN 1 .. f.pronargs LOOP
                call := call || CASE WHEN i > 1 THEN ', ' ELSE '' END
                    || CASE WHEN types[i] IN ('anyelement', 'anyarray', 'anynonarray', 'anycompatible') THEN
                                CASE WHEN i = j THEN format('(CASE WHEN false THEN %s END)', vals[i]) ELSE vals[i] END
                            WHEN i = j THEN format('NULL::%s', types[i])
                            ELSE format('(%s)::%s', vals[i], types[i]) END;
            END LOOP;
            call := head || '(' || call || ')';
            INSERT INTO null_outcome
            SELECT f.fn, CASE WHEN j = 0 THEN NULL ELSE names[j] END, j, split_part(r, ' ', 1), substr(r, 7)
            FROM pg_temp.null_try(call) r;
        END LOOP;
    END LOOP;
END
$$;
RESET client_min_messages;

SELECT count(*) AS functions, count(*) FILTER (WHERE proisstrict AND provolatile = 'i') AS pure_strict,
       (SELECT count(*) FROM null_outcome WHERE argpos > 0) AS null_calls
FROM null_checked;
-- functions without a sample (none: a new function needs one)
SELECT fn FROM null_checked c
WHERE NOT (proisstrict AND provolatile = 'i') AND NOT EXISTS (SELECT FROM null_sample s WHERE s.fn = c.fn)
ORDER BY fn::text;
-- samples that do not run: none but the three that cannot run here (Citus
-- is not installed; mm.run_ticks refuses a transaction block)
SELECT fn, outcome FROM null_outcome WHERE argpos = 0 AND outcome <> 'ok' ORDER BY fn::text;
-- NULL arguments that are not refused with 22004 naming the argument, and
-- not documented (none)
SELECT o.fn, o.arg, o.outcome, o.message FROM null_outcome o
WHERE o.argpos > 0 AND (o.outcome <> '22004' OR o.message !~ ('\m' || o.arg || '\M'))
  AND NOT EXISTS (SELECT FROM null_allowed a WHERE a.fn = o.fn AND a.arg = o.arg)
ORDER BY o.fn::text, o.argpos;
-- allow-list entries that refuse NULL after all, or name no argument (none)
SELECT a.fn, a.arg, o.outcome FROM null_allowed a LEFT JOIN null_outcome o ON o.fn = a.fn AND o.arg = a.arg
WHERE o.outcome IS NULL OR o.outcome = '22004'
ORDER BY a.fn::text, a.arg;
ROLLBACK;
SELECT count(*) > 0 AS sequences_restored
FROM (SELECT setval(seq, last_value, is_called) FROM null_saved_sequences) s;
DROP TABLE null_saved_sequences;

-- The cases found by hand, with their messages: each names the argument.
\set VERBOSITY default
\set SHOW_CONTEXT never
SELECT mm.join_server('p', 600, '{}', NULL);
SELECT mm.add_server('p', NULL);
SELECT mm.place_player(1, 601, NULL);
SELECT mm.set_server_attribute(1, 'x', NULL);
SELECT mm.leave(NULL);
SELECT mm.leave_player(NULL);
SELECT * FROM mm.dishonor_status(4242, NULL);
SELECT mm.enqueue(NULL, ARRAY[1]::bigint[], 1500);
SELECT * FROM mm.tick('q', NULL);
SELECT * FROM mm.preview('q', NULL);
SELECT * FROM mm.explain(1, NULL);
SELECT * FROM mm.roster_rating(ARRAY[1]::bigint[], NULL);
SELECT * FROM mm.roster_rating(NULL, '{}');
SELECT mm.create_pool('p', NULL);
-- a NULL policy is no policy: its resolution is NULL too
SELECT mm.glicko2_policy(NULL) IS NULL AS no_policy;
