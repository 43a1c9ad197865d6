-- Privileges: who may call what, in one place.
--
-- mm.privileges lists every function, procedure, aggregate, table, view and
-- sequence of schema mm with the roles that may use it:
--   public   everyone (EXECUTE to PUBLIC): pure functions only (math,
--            signals, predictions, config checks);
--   service  the game backend: enqueue, leave, tick, find opponents, join
--            servers, report dishonor;
--   admin    operations: create, alter and drop queues, pools, placement
--            and dishonor configs; ticks; reads;
--   analyst  reads every table and view, runs replays and previews; writes
--            nothing.
-- An empty list is internal: only the extension's owner, and functions
-- running with the owner's rights, use it. definer marks the functions that
-- run with the owner's rights (SECURITY DEFINER, search_path pinned): those
-- a service or admin role calls to change or read mm's tables, to which the
-- roles have no direct rights. Functions that run SQL a caller passes
-- (match_rosters, the replays) are never definer.
--
-- mm._apply_privileges() applies the public and definer columns (run below
-- and by every upgrade script); mm.grant_roles() creates the three roles
-- when asked to and grants them what the list says. A test fails when an
-- object of schema mm is missing from the list: a new function needs one
-- row here. The generated upgrade script replaces the stored list with
-- these rows (sql/generate.pl).

CREATE TABLE mm.privileges (
    object  text PRIMARY KEY,
    kind    text NOT NULL CHECK (kind IN ('function', 'relation')),
    roles   text[] NOT NULL DEFAULT '{}'
            CHECK (roles <@ ARRAY['public', 'service', 'admin', 'analyst']
                   AND array_position(roles, NULL) IS NULL),
    definer boolean NOT NULL DEFAULT false,
    CHECK (NOT definer OR kind = 'function'),
    CHECK (NOT definer OR NOT 'public' = ANY (roles)),
    CHECK (kind = 'function' OR NOT 'public' = ANY (roles))
);
COMMENT ON TABLE mm.privileges IS
    'every function, table, view and sequence of schema mm with the roles that may use it (public, service, admin, analyst; empty: internal) and whether it runs with the owner''s rights; applied by mm._apply_privileges and mm.grant_roles';

CREATE FUNCTION mm._apply_privileges()
RETURNS void
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    r mm.privileges;
BEGIN
    EXECUTE 'GRANT USAGE ON SCHEMA mm TO PUBLIC';
    EXECUTE 'REVOKE ALL ON ALL ROUTINES IN SCHEMA mm FROM PUBLIC';
    FOR r IN SELECT * FROM mm.privileges p WHERE p.kind = 'function' ORDER BY p.object LOOP
        IF 'public' = ANY (r.roles) THEN
            EXECUTE format('GRANT EXECUTE ON ROUTINE %s TO PUBLIC', r.object::regprocedure);
        END IF;
        IF r.definer THEN
            EXECUTE format('ALTER ROUTINE %s SECURITY DEFINER SET search_path = mm, pg_catalog, pg_temp',
                           r.object::regprocedure);
        END IF;
    END LOOP;
END
$$;
COMMENT ON FUNCTION mm._apply_privileges() IS
    'internal (install and upgrade scripts): grant PUBLIC what mm.privileges marks public, make its definer functions SECURITY DEFINER with search_path pinned';

CREATE FUNCTION mm.grant_roles(service name DEFAULT 'mm_service', admin name DEFAULT 'mm_admin',
                               analyst name DEFAULT 'mm_analyst')
RETURNS TABLE (role name, created boolean, functions int, relations int)
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    kinds text[] := ARRAY['service', 'admin', 'analyst'];
    names name[] := ARRAY[service, admin, analyst];
    r mm.privileges;
BEGIN
    IF service IS NULL THEN PERFORM mm._null_arg('service'); END IF;
    IF admin IS NULL THEN PERFORM mm._null_arg('admin'); END IF;
    IF analyst IS NULL THEN PERFORM mm._null_arg('analyst'); END IF;
    IF service = admin OR service = analyst OR admin = analyst THEN
        RAISE EXCEPTION 'the three roles must have different names'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('service %s, admin %s, analyst %s.', service, admin, analyst);
    END IF;
    FOR i IN 1 .. 3 LOOP
        grant_roles.role := names[i];
        grant_roles.created := NOT EXISTS (SELECT FROM pg_catalog.pg_roles x WHERE x.rolname = names[i]);
        IF grant_roles.created THEN
            EXECUTE format('CREATE ROLE %I NOLOGIN', names[i]);
            EXECUTE format('COMMENT ON ROLE %I IS %L', names[i],
                           format('mm %s role (mm.grant_roles): grant it to login roles', kinds[i]));
        END IF;
        -- start from nothing, so that a second run leaves exactly the list
        EXECUTE format('REVOKE ALL ON ALL ROUTINES IN SCHEMA mm FROM %I', names[i]);
        EXECUTE format('REVOKE ALL ON ALL TABLES IN SCHEMA mm FROM %I', names[i]);
        EXECUTE format('REVOKE ALL ON ALL SEQUENCES IN SCHEMA mm FROM %I', names[i]);
        EXECUTE format('GRANT USAGE ON SCHEMA mm TO %I', names[i]);
        grant_roles.functions := 0;
        grant_roles.relations := 0;
        FOR r IN SELECT * FROM mm.privileges p WHERE kinds[i] = ANY (p.roles) ORDER BY p.object LOOP
            IF r.kind = 'function' THEN
                EXECUTE format('GRANT EXECUTE ON ROUTINE %s TO %I', r.object::regprocedure, names[i]);
                grant_roles.functions := grant_roles.functions + 1;
            ELSE
                EXECUTE format('GRANT SELECT ON %s TO %I', r.object::regclass, names[i]);
                grant_roles.relations := grant_roles.relations + 1;
            END IF;
        END LOOP;
        RETURN NEXT;
    END LOOP;
END
$$;
COMMENT ON FUNCTION mm.grant_roles(name, name, name) IS
    'the documented admin step: create the service, admin and analyst roles (NOLOGIN) when missing and grant each exactly what mm.privileges lists; idempotent; run it again after ALTER EXTENSION mm UPDATE';

-- The list. Functions by signature, relations by name.
INSERT INTO mm.privileges (object, kind, roles, definer) VALUES
-- musigma and OpenSkill: pure
('mm.ordinal(float8, float8, float8)', 'function', '{public}', false),
('mm.openskill_rate(int[], float8[], float8[], float8[], text, float8, float8, float8, boolean, float8[], float8, float8, float8, boolean, float8, float8[], float8)', 'function', '{public}', false),
('mm.openskill_predict_win(int[], float8[], float8[], float8)', 'function', '{public}', false),
('mm.openskill_predict_draw(int[], float8[], float8[], float8)', 'function', '{public}', false),
('mm.openskill_predict_rank(int[], float8[], float8[], float8)', 'function', '{public}', false),
('mm.normal_quantile(float8)', 'function', '{public}', false),
('mm.rate(jsonb)', 'function', '{public}', false),
('mm.ims_rate(jsonb)', 'function', '{public}', false),
('mm.party_rating(float8[], float8[], float8, float8, float8)', 'function', '{public}', false),
('mm.party_rating_agg(float8, float8, float8, float8, float8)', 'function', '{public}', false),
('mm.party_rating_agg(float8, float8)', 'function', '{public}', false),
('mm.musigma_beta(interval, float8, int, interval)', 'function', '{public}', false),
('mm.musigma_data_point(float8[], float8, float8, float8)', 'function', '{public}', false),
-- replays run the caller's query with the caller's rights
('mm.openskill_replay(text, text, text, float8, float8, float8, boolean, float8, float8, float8, float8, float8, boolean, float8)', 'function', '{admin,analyst}', false),
('mm.replay_openskill(text, text, text, float8, float8, float8, boolean, float8, float8, float8, float8, float8, boolean, float8)', 'function', '{admin,analyst}', false),
-- Glicko-2: pure
('mm.glicko2_rate(mm.glicko, float8[], float8[], float8[], float8, jsonb)', 'function', '{public}', false),
('mm.glicko2_idle(mm.glicko, float8, jsonb)', 'function', '{public}', false),
('mm.glicko2_expect(float8, float8, float8, float8)', 'function', '{public}', false),
('mm.glicko2_effective(mm.glicko)', 'function', '{public}', false),
('mm.glicko2_policy(jsonb)', 'function', '{public}', false),
('mm.glicko2_rating_at(mm.glicko, timestamptz, timestamptz, jsonb)', 'function', '{public}', false),
('mm.glicko2_blend(mm.glicko, mm.glicko, jsonb)', 'function', '{public}', false),
('mm.glicko2_period_step(float8[], float8, float8, float8, float8, float8, float8)', 'function', '{public}', false),
('mm.glicko2_period_step(float8[], float8, float8, float8, float8, float8, float8, float8)', 'function', '{public}', false),
('mm.glicko2_period_combine(float8[], float8[])', 'function', '{public}', false),
('mm.glicko2_period_final(float8[])', 'function', '{public}', false),
('mm.glicko2_period(float8, float8, float8, float8, float8, float8)', 'function', '{public}', false),
('mm.glicko2_period(float8, float8, float8, float8, float8, float8, float8)', 'function', '{public}', false),
('mm.glicko2_replay(text, interval, float8, jsonb, boolean)', 'function', '{admin,analyst}', false),
-- signals and server scoring: pure
('mm.numeric_signal(float8, float8, float8)', 'function', '{public}', false),
('mm.ratio_signal(float8, float8)', 'function', '{public}', false),
('mm.age_signal(float8, float8, float8)', 'function', '{public}', false),
('mm.latency_signal(float8, float8)', 'function', '{public}', false),
('mm.occupancy_signal(int, int)', 'function', '{public}', false),
('mm.play_history_signal(float8, float8, float8)', 'function', '{public}', false),
('mm.friends_signal(bigint)', 'function', '{public}', false),
('mm.categorical_signal(anyelement, anyelement)', 'function', '{public}', false),
('mm.share_accum(float8[], anyelement, anyelement)', 'function', '{public}', false),
('mm.share_combine(float8[], float8[])', 'function', '{public}', false),
('mm.share_final(float8[])', 'function', '{public}', false),
('mm.share(anyelement, anyelement)', 'function', '{public}', false),
('mm.weighted_score_accum(float8[], float8, float8)', 'function', '{public}', false),
('mm.weighted_score_combine(float8[], float8[])', 'function', '{public}', false),
('mm.weighted_score_final(float8[])', 'function', '{public}', false),
('mm.weighted_score(float8, float8)', 'function', '{public}', false),
('mm.check_place_config(jsonb)', 'function', '{public}', false),
('mm.place_config(jsonb)', 'function', '{public}', false),
('mm.server_breakdown(text[], float8[])', 'function', '{public}', false),
-- placement: servers come and go with the fleet (service); configs are admin's
('mm.refresh_servers(bigint[])', 'function', '{service,admin}', true),
('mm.refresh_servers(text)', 'function', '{service,admin}', true),
('mm.add_server(text, int, jsonb)', 'function', '{service,admin}', true),
('mm.set_place_config(text, jsonb)', 'function', '{admin}', true),
('mm.rank_servers(text, jsonb, bigint[])', 'function', '{service,admin,analyst}', true),
('mm.place_player(bigint, bigint, jsonb)', 'function', '{service,admin}', true),
('mm.join_server(text, bigint, jsonb, bigint[])', 'function', '{service,admin}', true),
('mm.leave_server(bigint)', 'function', '{service,admin}', true),
('mm.get_server_attribute(bigint, text)', 'function', '{service,admin,analyst}', true),
('mm.set_server_attribute(bigint, text, jsonb)', 'function', '{service,admin}', true),
-- dishonor
('mm.dishonor_config_resolve(jsonb)', 'function', '{public}', false),
('mm.dishonor_config_defaults()', 'function', '{public}', false),
('mm.dishonor_config()', 'function', '{service,admin,analyst}', true),
('mm.set_dishonor_config(jsonb)', 'function', '{admin}', true),
('mm.dishonor_timeout(int, jsonb)', 'function', '{public}', false),
('mm.dishonor_decay(int, interval, jsonb)', 'function', '{public}', false),
('mm.dishonor_penalty(text, jsonb)', 'function', '{public}', false),
('mm.dishonor_apply(int, timestamptz, timestamptz, text, timestamptz, jsonb)', 'function', '{public}', false),
('mm.dishonor_current(int, timestamptz, timestamptz, jsonb)', 'function', '{public}', false),
('mm.dishonor(bigint, text, timestamptz)', 'function', '{service,admin}', true),
('mm.dishonor_statuses(bigint[], timestamptz)', 'function', '{service,admin,analyst}', true),
('mm.dishonor_status(bigint, timestamptz)', 'function', '{service,admin,analyst}', true),
('mm.dishonor_clear(bigint)', 'function', '{admin}', true),
-- GW2 prediction and ladder: pure
('mm.prediction_config_defaults()', 'function', '{public}', false),
('mm.match_prediction_teams(float8, float8, float8, float8, float8, float8, jsonb)', 'function', '{public}', false),
('mm.match_prediction_teams(float8[], float8[], float8[], jsonb)', 'function', '{public}', false),
('mm.match_prediction(text[], float8[], float8[], float8[], int[], jsonb, text[])', 'function', '{public}', false),
('mm.odds_of_victory(float8, text)', 'function', '{public}', false),
('mm.ladder_config_resolve(jsonb)', 'function', '{public}', false),
('mm.ladder_config_defaults()', 'function', '{public}', false),
('mm.ladder_points(float8, float8, text, jsonb, timestamptz)', 'function', '{public}', false),
('mm.ladder_apply(int, int, jsonb)', 'function', '{public}', false),
-- roster matcher
('mm.matcher_config(jsonb)', 'function', '{public}', false),
('mm.config_keys(text)', 'function', '{public}', false),
('mm.matcher_padding(jsonb, float8)', 'function', '{public}', false),
('mm.rating_scales()', 'function', '{public}', false),
('mm.match_rosters(text, jsonb, timestamptz)', 'function', '{service,admin,analyst}', false),
('mm._match_rosters(text, jsonb, timestamptz, boolean)', 'function', '{}', false),
('mm._check_attributes(jsonb, jsonb, jsonb)', 'function', '{}', false),
('mm.create_queue(text, jsonb)', 'function', '{admin}', true),
('mm._queue(text)', 'function', '{}', false),
('mm._check_roster(float8, float8, float8, float8, int, text[], int)', 'function', '{}', false),
('mm._check_roles(jsonb, text, text[], int, text)', 'function', '{}', false),
('mm.enqueue(text, bigint[], float8, float8, float8, float8, int, text[], timestamptz, jsonb, jsonb, text[])', 'function', '{service,admin}', true),
('mm.leave(bigint)', 'function', '{service,admin}', true),
('mm.report_result(bigint, jsonb)', 'function', '{service,admin}', true),
('mm.abandon_match(bigint)', 'function', '{service,admin}', true),
('mm.close_rating_period(text, timestamptz)', 'function', '{service,admin}', true),
('mm._rating_state_valid(text, float8[])', 'function', '{public}', false),
('mm.rating_fields(text, float8[])', 'function', '{public}', false),
('mm.rating_conservative(text, float8[], timestamptz, timestamptz)', 'function', '{public}', false),
('mm._rating_state_at(text, float8[], timestamptz, timestamptz)', 'function', '{public}', false),
('mm._rating_defaults(jsonb)', 'function', '{public}', false),
('mm._roster_rating(jsonb, timestamptz, float8, float8[], timestamptz[], float8[], timestamptz[])', 'function', '{public}', false),
('mm.roster_rating(bigint[], jsonb, timestamptz, text[])', 'function', '{service,admin,analyst}', true),
('mm.update_roster(bigint, float8, float8, float8, float8, int, text[], jsonb, jsonb, text[])', 'function', '{service,admin}', true),
('mm.list_queue(text, timestamptz)', 'function', '{service,admin,analyst}', true),
('mm.tick(text, timestamptz)', 'function', '{service,admin}', true),
('mm.preview(text, timestamptz)', 'function', '{service,admin,analyst}', true),
-- a procedure that commits cannot be SECURITY DEFINER: it calls mm.tick
('mm.run_ticks(text, interval, interval)', 'function', '{service,admin}', false),
-- async opponents
('mm.async_config(jsonb)', 'function', '{public}', false),
('mm.async_bucket(jsonb, float8)', 'function', '{public}', false),
('mm.async_bucket_bounds(jsonb, int, int)', 'function', '{public}', false),
('mm.async_search(jsonb, float8, int)', 'function', '{public}', false),
('mm.async_labels(text[])', 'function', '{public}', false),
('mm._async_pool_config(text)', 'function', '{}', false),
('mm._async_capacity(text, text[], int, jsonb)', 'function', '{}', false),
('mm._async_check_ids(bigint[], text)', 'function', '{}', false),
('mm._async_check_query(float8, text[], int)', 'function', '{}', false),
('mm.create_pool(text, jsonb)', 'function', '{admin}', true),
('mm.alter_pool(text, jsonb, boolean)', 'function', '{admin}', true),
('mm.drop_pool(text)', 'function', '{admin}', true),
('mm.pool_buckets(text)', 'function', '{service,admin,analyst}', true),
('mm.put_entry(text, bigint, float8, text[], jsonb)', 'function', '{service,admin}', true),
('mm.remove_entry(bigint)', 'function', '{service,admin}', true),
('mm.remove_entries(text, bigint)', 'function', '{service,admin}', true),
('mm.offer_entry(bigint)', 'function', '{service,admin}', true),
('mm._async_query(text, float8, text[], int, bigint[], bigint)', 'function', '{}', false),
('mm.find_opponent(text, float8, text[], int, bigint[], bigint)', 'function', '{service,admin}', true),
('mm._async_candidates(text, float8, text[], int, bigint[], bigint, int)', 'function', '{}', false),
('mm.find_candidates(text, float8, text[], int, bigint[], bigint, int)', 'function', '{service,admin,analyst}', true),
('mm.rebalance_pool(text)', 'function', '{admin}', true),
-- privileges
('mm._apply_privileges()', 'function', '{}', false),
('mm.grant_roles(name, name, name)', 'function', '{}', false),
-- tables and views: analysts and admins read them; nobody writes them but
-- through functions. The service role reads mm.queue, the list of queues
-- and their configs, which mm.run_ticks (a procedure that commits, so it
-- runs with the caller's rights) reads to find the queues to tick.
('mm.place_configs', 'relation', '{admin,analyst}', false),
('mm.servers', 'relation', '{admin,analyst}', false),
('mm.server_players', 'relation', '{admin,analyst}', false),
('mm.dishonor_settings', 'relation', '{admin,analyst}', false),
('mm.dishonor_players', 'relation', '{admin,analyst}', false),
('mm.queue', 'relation', '{service,admin,analyst}', false),
('mm.roster', 'relation', '{admin,analyst}', false),
('mm.queued_player', 'relation', '{admin,analyst}', false),
('mm.match', 'relation', '{admin,analyst}', false),
('mm.match_roster', 'relation', '{admin,analyst}', false),
('mm.ended_roster', 'relation', '{admin,analyst}', false),
('mm.ratings', 'relation', '{admin,analyst}', false),
('mm.match_result', 'relation', '{admin,analyst}', false),
('mm.match_result_player', 'relation', '{admin,analyst}', false),
('mm.rating_period_game', 'relation', '{admin,analyst}', false),
('mm.odds_calibration', 'relation', '{admin,analyst}', false),
('mm.odds_result', 'relation', '{admin,analyst}', false),
('mm.leaderboard', 'relation', '{service,admin,analyst}', false),
('mm.tick_log', 'relation', '{admin,analyst}', false),
('mm.queue_stats', 'relation', '{service,admin,analyst}', false),
('mm.async_pools', 'relation', '{admin,analyst}', false),
('mm.async_entries', 'relation', '{admin,analyst}', false),
('mm.async_bucket_sizes', 'relation', '{admin,analyst}', false),
('mm.privileges', 'relation', '{admin,analyst}', false),
-- sequences: only the functions that insert use them
('mm.server_id_seq', 'relation', '{}', false),
('mm.queue_id_seq', 'relation', '{}', false),
('mm.roster_id_seq', 'relation', '{}', false),
('mm.roster_position_seq', 'relation', '{}', false),
('mm.match_id_seq', 'relation', '{}', false),
('mm.tick_id_seq', 'relation', '{}', false),
-- rows added with the queue engine, the async pool, placement and analytics
('mm.party_rating_accum(internal, float8, float8, float8, float8, float8)', 'function', '{public}', false),
('mm.party_rating_accum(internal, float8, float8)', 'function', '{public}', false),
('mm.party_rating_combine(internal, internal)', 'function', '{public}', false),
('mm.party_rating_final(internal)', 'function', '{public}', false),
('mm.party_rating_serialize(internal)', 'function', '{public}', false),
('mm.party_rating_deserialize(bytea, internal)', 'function', '{public}', false),
('mm._end_rosters(bigint[], text, text, boolean, timestamptz, int)', 'function', '{}', false),
('mm._end_match_rosters(int, bigint)', 'function', '{}', false),
('mm._jsonb_merge(jsonb, jsonb)', 'function', '{}', false),
('mm._rosters(int)', 'function', '{}', false),
('mm.alter_queue(text, jsonb, boolean)', 'function', '{admin}', true),
('mm.drop_queue(text, boolean)', 'function', '{admin}', true),
('mm.purge(interval, int)', 'function', '{admin}', true),
('mm.claim_matches(text, int)', 'function', '{service,admin}', true),
('mm.request_backfill(bigint, text, int, text[])', 'function', '{service,admin}', true),
('mm.cancel_backfill(bigint)', 'function', '{service,admin}', true),
('mm.backfill', 'relation', '{admin,analyst}', false),
('mm.backfill_id_seq', 'relation', '{}', false),
('mm.leave_player(bigint)', 'function', '{service,admin}', true),
('mm.remove_player(bigint, bigint)', 'function', '{service,admin}', true),
('mm.explain(bigint, timestamptz)', 'function', '{service,admin,analyst}', true),
('mm.ticket_status(bigint)', 'function', '{service,admin,analyst}', true),
('mm.roster_status(bigint)', 'function', '{service,admin,analyst}', true),
('mm.queue_channel(text)', 'function', '{service,admin,analyst}', true),
('mm._dissolve_match(bigint, bigint[], text, timestamptz)', 'function', '{}', false),
('mm._resolve_proposals(int, timestamptz)', 'function', '{}', false),
('mm._ready_match(bigint, bigint)', 'function', '{}', false),
('mm.accept(bigint, bigint)', 'function', '{service,admin}', true),
('mm.decline(bigint, bigint)', 'function', '{service,admin}', true),
('mm.match_accept', 'relation', '{admin,analyst}', false),
('mm._async_fill(text, text[], float8, float8, int)', 'function', '{}', false),
('mm.join_party(text, bigint[], jsonb[], bigint[])', 'function', '{service,admin}', true),
('mm.set_player_attributes(bigint, jsonb)', 'function', '{service,admin}', true),
('mm.remove_server(bigint)', 'function', '{service,admin}', true),
('mm.place_signals(text)', 'function', '{service,admin,analyst}', true),
('mm.server_breakdown_weighted(text, text[], float8[])', 'function', '{service,admin,analyst}', true),
('mm.calibration(float8, float8)', 'function', '{public}', false),
('mm.calibration(float8, float8, int)', 'function', '{public}', false),
('mm.calibration_step(float8[], float8, float8)', 'function', '{public}', false),
('mm.calibration_step(float8[], float8, float8, int)', 'function', '{public}', false),
('mm.calibration_combine(float8[], float8[])', 'function', '{public}', false),
('mm.calibration_final(float8[])', 'function', '{public}', false),
('mm.reliability(jsonb)', 'function', '{public}', false),
('mm.ims_beta(float8, boolean)', 'function', '{public}', false),
('mm.ims_beta_step(float8[], float8, boolean)', 'function', '{public}', false),
('mm.ims_beta_combine(float8[], float8[])', 'function', '{public}', false),
('mm.ims_beta_final(float8[])', 'function', '{public}', false),
('mm.openskill_history(text, text, text, float8, float8, float8, boolean, float8, float8, float8, float8, float8, boolean, float8)', 'function', '{admin,analyst}', false),
('mm.rating_replay(text, text, text, jsonb)', 'function', '{admin,analyst}', false),
('mm.rating_history(text, text, text, jsonb)', 'function', '{admin,analyst}', false),
('mm.rating_calibration(text, text, text, jsonb, int)', 'function', '{admin,analyst}', false),
('mm.openskill_calibration(text, text, text, float8, float8, float8, boolean, float8, float8, float8, float8, float8, boolean, float8, int)', 'function', '{admin,analyst}', false),
('mm.openskill_fit(text, text, float8[], float8, float8, int, text, text)', 'function', '{admin,analyst}', false),
('mm.glicko2_history(text, interval, float8, jsonb, boolean)', 'function', '{admin,analyst}', false),
('mm.glicko2_calibration(text, interval, float8, jsonb, boolean, int, float8)', 'function', '{admin,analyst}', false),
('mm.glicko2_fit(text, text, float8[], float8, float8, int, interval, boolean)', 'function', '{admin,analyst}', false),
('mm.glicko2_team_replay(text, interval, float8, jsonb, boolean, text)', 'function', '{admin,analyst}', false),
('mm.async_samples', 'relation', '{admin,analyst}', false),
('mm.async_samples_sample_id_seq', 'relation', '{}', false),
('mm.ticket_event', 'relation', '{admin,analyst}', false),
('mm.ticket_event_id_seq', 'relation', '{}', false),
('mm._require_primary(text)', 'function', '{}', false),
('mm._null_arg(text)', 'function', '{public}', false),
('mm.waiting_player', 'relation', '{admin,analyst}', false),
('mm._queues_distributed()', 'function', '{}', false),
('mm._queue_name(int)', 'function', '{}', false),
('mm._hold_players(int, bigint, bigint[])', 'function', '{}', false),
('mm.tick(int, timestamptz)', 'function', '{service,admin}', true),
('mm.enqueue(int, bigint[], float8, float8, float8, float8, int, text[], timestamptz, jsonb, jsonb, text[])', 'function', '{service,admin}', true),
('mm.claim_matches(int, int)', 'function', '{service,admin}', true),
('mm.leave(int, bigint)', 'function', '{service,admin}', true),
('mm.citus_distribute_queues(int)', 'function', '{}', false),
('mm.async_entries_entry_id_seq', 'relation', '{}', false),
-- one vocabulary; async fill bounds
('mm.async_fill_bounds', 'relation', '{}', false),
('mm._async_entry_seq()', 'function', '{}', false),
('mm._async_fill_bound(text, text[], int, float8, float8)', 'function', '{}', false),
('mm.glicko2_expect(mm.glicko, mm.glicko)', 'function', '{public}', false),
('mm.ordinal(mm.rating, float8)', 'function', '{public}', false),
('mm._glicko2_period_policy_check(mm.glicko2_period_state, boolean)', 'function', '{public}', false),
('mm._glicko2_period_policy_merge(mm.glicko2_period_state, mm.glicko2_period_state)', 'function', '{public}', false),
('mm.glicko2_period_policy_step(mm.glicko2_period_state, float8, float8, float8, float8, float8, float8, float8, jsonb)', 'function', '{public}', false),
('mm.glicko2_period_policy_combine(mm.glicko2_period_state, mm.glicko2_period_state)', 'function', '{public}', false),
('mm.glicko2_period_policy_final(mm.glicko2_period_state)', 'function', '{public}', false),
('mm.glicko2_period(float8, float8, float8, float8, float8, float8, float8, jsonb)', 'function', '{public}', false),
-- names and dishonor reasons checked where they meet
('mm._check_name(text, text)', 'function', '{}', false),
('mm._queue_reasons(jsonb)', 'function', '{}', false),
('mm._dishonor_reason_known(text)', 'function', '{}', false),
('mm._dishonor_reasons()', 'function', '{}', false),
('mm._check_queue_reasons(text, jsonb)', 'function', '{}', false),
('mm._dodge_reason_warning(int, bigint[])', 'function', '{}', false),
-- what a backend sees of its matches; a retry of the same outcome
('mm.match_players(bigint[])', 'function', '{service,admin,analyst}', true),
('mm.open_matches(text)', 'function', '{service,admin,analyst}', true),
('mm.estimate_wait(text, float8, int, timestamptz)', 'function', '{service,admin,analyst}', true),
('mm.estimate_roster_wait(bigint, timestamptz)', 'function', '{service,admin,analyst}', true),
('mm._estimate_wait(int, float8, int, interval, timestamptz)', 'function', '{}', false),
('mm._notify_dissolved(int, bigint[], text)', 'function', '{}', false),
('mm._result_outcome(jsonb)', 'function', '{}', false),
('mm.queue_dodge', 'relation', '{admin,analyst}', false);

SELECT mm._apply_privileges();
