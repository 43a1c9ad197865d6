-- Checks run in the database upgraded from 0.1.0 (after fill-0.1.0.sql):
-- the data is still there and the functions still work on it. Each check
-- raises an error when it fails.
\set ON_ERROR_STOP 1
DO $$
BEGIN
    IF (SELECT count(*) FROM mm.queue) <> 5 THEN   -- ranked, duel, wide, deep and one named by control characters
        RAISE EXCEPTION 'queues lost: %', (SELECT count(*) FROM mm.queue);
    END IF;
    IF (SELECT count(*) FROM mm.match) <> 3 THEN
        RAISE EXCEPTION 'matches lost: %', (SELECT count(*) FROM mm.match);
    END IF;
    -- 0.1.0's matches are red against blue, with the odds they had
    IF (SELECT count(*) FROM mm.match
        WHERE teams = '{red,blue}' AND odds = ARRAY[red_odds, blue_odds] AND cardinality(odds) = 2) <> 3
       OR (SELECT count(*) FROM mm.match_roster WHERE team NOT IN ('red', 'blue')) > 0 THEN
        RAISE EXCEPTION 'match teams not carried over: %', (SELECT array_agg(teams) FROM mm.match);
    END IF;
    IF (SELECT count(*) FROM mm.async_entries WHERE pool = 'arena') <> 30 THEN
        RAISE EXCEPTION 'pool entries lost: %', (SELECT count(*) FROM mm.async_entries WHERE pool = 'arena');
    END IF;
    IF (SELECT stacks FROM mm.dishonor_status(42, '2026-01-01 12:00+00')) <> 10 THEN
        RAISE EXCEPTION 'dishonor lost';
    END IF;
END
$$;
-- the waiting rosters still match: 3 parties of 2 make one 2v2 match in ranked
SELECT count(DISTINCT match_id) = 1 AS ranked_matched FROM mm.tick('ranked', '2026-01-01 12:10+00') \gset
\if :ranked_matched
\else
    \echo 'waiting rosters of ranked did not match after the upgrade'
    SELECT 1/0;
\endif
SELECT count(*) = 1 AS found FROM mm.find_opponent('arena', 1100, '{eu}') WHERE result = 'success' \gset
\if :found
\else
    SELECT 1/0;
\endif

-- async pools: the per-bucket counter rows are gone; fill is counted from
-- the entries, the rebalancing sample of a pool that rebalances carried
-- over, and rebalancing gives the sizes 0.1.0 gave
DO $$
DECLARE
    got text;
BEGIN
    IF to_regclass('mm.async_buckets') IS NOT NULL THEN
        RAISE EXCEPTION 'mm.async_buckets still exists';
    END IF;
    SELECT string_agg(format('%s:%s:%s', bucket, fill, inserts), ' ' ORDER BY bucket) INTO got
    FROM mm.pool_buckets('ladder');
    IF got <> '0:2:2 1:3:3 2:3:3 3:3:3 4:3:3 5:3:3 6:3:3' THEN
        RAISE EXCEPTION 'ladder buckets after the upgrade: %', got;
    END IF;
    SELECT string_agg(format('%s:%s', bucket, capacity), ' ' ORDER BY bucket) INTO got
    FROM mm.rebalance_pool('ladder');
    IF got <> '0:10 1:15 2:15 3:15 4:15 5:15 6:15' THEN
        RAISE EXCEPTION 'ladder sizes after the upgrade: %', got;
    END IF;
    -- arena (no player_cache_size) keeps no sample; of its 30 entries
    -- (1010 .. 1300) the find above took 1100: 18 in bucket 3, 11 in 4
    SELECT string_agg(format('%s:%s:%s', bucket, fill, inserts), ' ' ORDER BY bucket) INTO got
    FROM mm.pool_buckets('arena');
    IF got <> '3:18:0 4:11:0' THEN
        RAISE EXCEPTION 'arena buckets after the upgrade: %', got;
    END IF;
    -- puts count the fill from the entries: a new player lands in bucket 3
    PERFORM mm.put_entry('arena', 1000, 1150, '{eu}');
    IF (SELECT fill FROM mm.pool_buckets('arena') WHERE bucket = 3) <> 19 THEN
        RAISE EXCEPTION 'arena put after the upgrade not counted';
    END IF;
    -- a put into a sampled pool adds to its sample
    PERFORM mm.put_entry('ladder', 1000, 150);
    IF (SELECT sum(inserts) FROM mm.async_samples WHERE pool = 'ladder') <> 21 THEN
        RAISE EXCEPTION 'ladder sample after the upgrade: %',
            (SELECT sum(inserts) FROM mm.async_samples WHERE pool = 'ladder');
    END IF;
END
$$;

-- placement on 0.1.0's servers: a player without attributes is placed, a
-- seated player's attributes change, a party joins, a server is removed
DO $$
DECLARE
    sid bigint := (SELECT min(server_id) FROM mm.servers WHERE place = 'obby');
BEGIN
    IF mm.join_server('obby', 8, '{}') IS DISTINCT FROM sid THEN
        RAISE EXCEPTION 'join_server with no attributes after the upgrade';
    END IF;
    -- (each check reads in its own statement, after the call's changes)
    IF NOT mm.set_player_attributes(7, '{"age": 21}') THEN
        RAISE EXCEPTION 'set_player_attributes after the upgrade: player 7 not seated';
    END IF;
    IF (SELECT age_sum FROM mm.servers WHERE server_id = sid) <> 21 THEN
        RAISE EXCEPTION 'set_player_attributes after the upgrade: aggregates not refreshed';
    END IF;
    IF mm.join_party('obby', '{9, 10}') IS DISTINCT FROM sid THEN
        RAISE EXCEPTION 'join_party after the upgrade';
    END IF;
    IF (SELECT occupancy FROM mm.servers WHERE server_id = sid) <> 4 THEN
        RAISE EXCEPTION 'join_party after the upgrade: occupancy';
    END IF;
    IF NOT mm.remove_server(sid) THEN
        RAISE EXCEPTION 'remove_server after the upgrade';
    END IF;
    IF EXISTS (SELECT 1 FROM mm.server_players WHERE player_id = 7) THEN
        RAISE EXCEPTION 'remove_server after the upgrade: players left';
    END IF;
END
$$;

-- queue engine: players are rows, the bad 0.1.0 roster is gone and
-- recorded, the orphaned player is free, waiting players cannot queue
-- twice, history and tick log carried over
DO $$
DECLARE
    ok boolean;
BEGIN
    IF (SELECT count(*) FROM mm.queued_player WHERE player_id = 50) <> 1 THEN
        RAISE EXCEPTION 'waiting duel player 50 lost';
    END IF;
    IF EXISTS (SELECT FROM mm.queued_player WHERE player_id IN (900, 901)) THEN
        RAISE EXCEPTION 'bad roster or orphaned player carried over';
    END IF;
    IF (SELECT status FROM mm.ticket_event WHERE player_id = 900) IS DISTINCT FROM 'removed' THEN
        RAISE EXCEPTION 'removed roster not recorded';
    END IF;
    -- 3 duels of 0.1.0 (6 players) carry the matched events the upgrade
    -- wrote; the 2v2 ranked tick above (4 players) records its rosters in
    -- mm.match_roster only; all 10 players read as matched to their match
    IF (SELECT count(*) FROM mm.ticket_event WHERE status = 'matched') <> 6 THEN
        RAISE EXCEPTION 'matched history: %', (SELECT count(*) FROM mm.ticket_event WHERE status = 'matched');
    END IF;
    IF (SELECT count(*) FROM mm.match_roster mr, unnest(mr.players) p, mm.ticket_status(p) t
        WHERE t.status = 'matched' AND t.match_id = mr.match_id) <> 10 THEN
        RAISE EXCEPTION 'matched ticket status: %', (SELECT count(*) FROM mm.match_roster mr, unnest(mr.players) p,
            mm.ticket_status(p) t WHERE t.status = 'matched' AND t.match_id = mr.match_id);
    END IF;
    IF (SELECT count(*) FROM mm.match_roster WHERE queue_id IS NULL) > 0
       OR (SELECT count(*) FROM mm.match WHERE status <> 'matched') > 0
       -- 0.1.0's matches count as delivered; the ranked match above is new
       OR (SELECT count(*) FROM mm.match WHERE delivered_at IS NULL) <> 1 THEN
        RAISE EXCEPTION 'matches not migrated';
    END IF;
    IF (SELECT count(*) FROM mm.tick_log) < 1 THEN
        RAISE EXCEPTION 'tick log lost';
    END IF;
    BEGIN
        PERFORM mm.enqueue('duel', ARRAY[50::bigint], 1500);
        ok := false;
    EXCEPTION WHEN unique_violation THEN
        ok := true;
    END;
    IF NOT ok THEN
        RAISE EXCEPTION 'a waiting player queued twice after the upgrade';
    END IF;
    PERFORM mm.enqueue('duel', ARRAY[901::bigint], 1400);
    IF NOT mm.leave((SELECT roster_id FROM mm.queued_player WHERE player_id = 901)) THEN
        RAISE EXCEPTION 'leave failed after the upgrade';
    END IF;
END
$$;
-- the migrated duel roster still ticks: player 50 and a newcomer
SELECT mm.enqueue('duel', ARRAY[51::bigint], 1400) > 0 AS queued \gset
SELECT count(*) = 2 AS duel_matched FROM mm.tick('duel') \gset
\if :duel_matched
\else
    \echo 'migrated duel roster did not match after the upgrade'
    SELECT 1/0;
\endif

-- privileges after the upgrade: PUBLIC keeps only pure functions, the
-- roles of mm.grant_roles work on the data carried over
DO $$
BEGIN
    IF has_function_privilege('public', 'mm.enqueue(text, bigint[], float8, float8, float8, float8, int, text[], timestamptz, jsonb, jsonb, text[], float8)', 'EXECUTE')
       OR NOT has_function_privilege('public', 'mm.ordinal(float8, float8, float8)', 'EXECUTE') THEN
        RAISE EXCEPTION 'PUBLIC privileges not applied by the upgrade';
    END IF;
    IF NOT (SELECT prosecdef FROM pg_proc WHERE oid = 'mm.tick(text, timestamptz)'::regprocedure) THEN
        RAISE EXCEPTION 'mm.tick is not SECURITY DEFINER after the upgrade';
    END IF;
END
$$;
SELECT count(*) FROM mm.grant_roles('mm_up_service', 'mm_up_admin', 'mm_up_analyst');
SET ROLE mm_up_service;
SELECT count(*) = 2 AS queued FROM (SELECT mm.enqueue('duel', ARRAY[p::bigint], 1400 + p, 10, joined_at => '2026-01-01 12:02+00')
                                    FROM generate_series(52, 53) p) e \gset
SELECT count(*) = 2 AS duel_matched FROM mm.tick('duel', '2026-01-01 12:10+00') \gset
SELECT count(*) = 1 AS service_found FROM mm.find_opponent('arena', 1200, '{eu}') WHERE result = 'success' \gset
RESET ROLE;
\if :duel_matched
\else
    \echo 'a service role could not tick the carried-over duel queue'
    SELECT 1/0;
\endif
\if :service_found
\else
    SELECT 1/0;
\endif
DROP OWNED BY mm_up_service, mm_up_admin, mm_up_analyst;
DROP ROLE mm_up_service, mm_up_admin, mm_up_analyst;

-- a match 0.1.0 made is reported after the upgrade: its players are rated
-- once (mm.ratings, the queue's default rating config) and it is finished
SELECT count(*) = 2 AS reported
FROM mm.report_result((SELECT min(m.match_id) FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'duel'),
                      '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}') \gset
SELECT (SELECT m.status FROM mm.match m WHERE m.match_id = (SELECT max(r.match_id) FROM mm.match_result r)) = 'finished'
       AND (SELECT sum(games) FROM mm.ratings WHERE key = 'ranked') = 2 AS finished \gset
\if :reported
\else
    \echo 'a 0.1.0 match could not be reported after the upgrade'
    SELECT 1/0;
\endif
\if :finished
\else
    \echo 'a reported 0.1.0 match is not finished or its players not rated once'
    SELECT 1/0;
\endif
-- 0.1.0's three matches carry no calibration scale (their odds came from the
-- GW2 prediction), the matches 0.2.0's ticks made above have scale 1 (their
-- queues have learnt nothing yet); the 0.1.0 match's result teaches the
-- queue's calibration nothing
SELECT (SELECT count(*) FROM mm.match WHERE odds_scale IS NULL) = 3
       AND (SELECT count(*) FROM mm.match WHERE odds_scale = 1) = (SELECT count(*) FROM mm.match) - 3
       AND (SELECT count(*) FROM mm.match) > 3
       AND NOT EXISTS (SELECT FROM mm.odds_result) AS uncalibrated \gset
\if :uncalibrated
\else
    \echo 'the calibration of odds learnt from a 0.1.0 match, or 0.1.0 matches got a scale'
    SELECT 1/0;
\endif

-- stored configs are normalised: a queue's config is complete, numbers in
-- their shortest form; a dishonor duration given in months (30 days each in
-- 0.1.0) is now that many seconds
DO $$
BEGIN
    IF (SELECT config #> '{scoring,age}' FROM mm.queue WHERE name = 'ranked') <> '0.1'::jsonb
       OR (SELECT config #>> '{scoring,age}' FROM mm.queue WHERE name = 'ranked') <> '0.1'
       OR (SELECT config #> '{filter,padding}' FROM mm.queue WHERE name = 'ranked') <> '10'::jsonb THEN
        RAISE EXCEPTION 'queue config not normalised: %', (SELECT config FROM mm.queue WHERE name = 'ranked');
    END IF;
    -- every stored queue and pool config, not only the one looked at above
    IF EXISTS (SELECT FROM mm.queue q WHERE q.config <> mm.matcher_config(q.config)) THEN
        RAISE EXCEPTION 'a queue config is not stored normalised after the upgrade';
    END IF;
    -- (but pool "kept", whose config 0.2.0 refuses: kept as it was, below)
    IF EXISTS (SELECT FROM mm.async_pools p WHERE p.pool <> 'kept' AND p.config <> mm.async_config(p.config)) THEN
        RAISE EXCEPTION 'a pool config is not stored normalised after the upgrade';
    END IF;
    -- queues carried from 0.1.0 keep letting players queue again while in
    -- a match (0.1.0's matches can never finish); new queues do not
    IF EXISTS (SELECT FROM mm.queue q WHERE NOT (q.config -> 'requeue_while_in_match')::boolean) THEN
        RAISE EXCEPTION 'a queue carried from 0.1.0 lost requeue_while_in_match true';
    END IF;
    IF (mm.matcher_config('{}') -> 'requeue_while_in_match')::boolean THEN
        RAISE EXCEPTION 'a new queue''s requeue_while_in_match defaults to true';
    END IF;
    IF mm.dishonor_config() -> 'timeout_rounding' <> '2592060'::jsonb
       OR mm.dishonor_config() -> 'stack_duration' <> '"10m"'::jsonb THEN
        RAISE EXCEPTION 'dishonor durations not migrated: %', mm.dishonor_config();
    END IF;
END
$$;

-- a running match 0.1.0 made is backfilled after the upgrade: the next tick
-- fills the open seat, the roster is delivered as a backfill of that match
SELECT mm.request_backfill((SELECT min(m.match_id) FROM mm.match m JOIN mm.queue q USING (queue_id)
                            WHERE q.name = 'duel' AND m.status = 'matched'), 'blue', 1) AS upgraded_request \gset
SELECT mm.enqueue('duel', ARRAY[60::bigint], 1500) > 0 AS queued \gset
SELECT count(*) FROM mm.tick('duel');
SELECT (SELECT b.status FROM mm.backfill b WHERE b.backfill_id = :upgraded_request) = 'filled'
       AND (SELECT count(*) FROM mm.claim_matches('duel') c
            WHERE c.kind = 'backfill' AND c.backfill_id = :upgraded_request AND c.players = '{60}') = 1 AS backfilled \gset
\if :backfilled
\else
    \echo 'a 0.1.0 match could not be backfilled after the upgrade'
    SELECT 1/0;
\endif

-- ready check after the upgrade: 0.1.0's matches had none (no end of a
-- ready check, their rosters no queue place), accept returns their status
-- (matched, or finished once reported) and decline is refused; a queue
-- given an accept_timeout proposes, and a declined match gives the other
-- roster back (its ticket waits a second time in the history)
DO $$
DECLARE
    first_duel bigint := (SELECT min(m.match_id) FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'duel');
    last_duel bigint := (SELECT max(m.match_id) FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'duel'
                         AND m.created_at < '2026-01-02');
    p1 bigint;
    m bigint;
    ok boolean;
BEGIN
    IF EXISTS (SELECT FROM mm.match WHERE accept_until IS NOT NULL OR status NOT IN ('matched', 'finished')) THEN
        RAISE EXCEPTION 'a 0.1.0 match is in a ready check after the upgrade';
    END IF;
    SELECT u.p INTO p1 FROM mm.match_roster mr, unnest(mr.players) u(p) WHERE mr.match_id = first_duel LIMIT 1;
    IF mm.accept(first_duel, p1) <> 'finished' THEN
        RAISE EXCEPTION 'accept of a reported 0.1.0 match: %', mm.accept(first_duel, p1);
    END IF;
    SELECT u.p INTO p1 FROM mm.match_roster mr, unnest(mr.players) u(p) WHERE mr.match_id = last_duel LIMIT 1;
    IF mm.accept(last_duel, p1) <> 'matched' THEN
        RAISE EXCEPTION 'accept of a 0.1.0 match: %', mm.accept(last_duel, p1);
    END IF;
    BEGIN
        PERFORM mm.decline(last_duel, p1);
        ok := false;
    EXCEPTION WHEN object_not_in_prerequisite_state THEN
        ok := true;
    END;
    IF NOT ok THEN
        RAISE EXCEPTION 'a 0.1.0 match was declined after the upgrade';
    END IF;
    PERFORM mm.alter_queue('duel', '{"accept_timeout": "30 seconds"}');
    PERFORM mm.enqueue('duel', ARRAY[p::bigint], 1500, joined_at => now() - interval '1 minute')
    FROM generate_series(61, 62) p;
    SELECT DISTINCT t.match_id INTO m FROM mm.tick('duel') t;
    IF (SELECT status FROM mm.match WHERE match_id = m) <> 'proposed' THEN
        RAISE EXCEPTION 'no ready check after the upgrade';
    END IF;
    PERFORM mm.accept(m, 61);
    IF NOT mm.decline(m, 62) THEN
        RAISE EXCEPTION 'decline after the upgrade';
    END IF;
    IF (SELECT count(*) FROM mm.ticket_event WHERE player_id = 61 AND status = 'waiting') <> 2
       OR NOT EXISTS (SELECT FROM mm.queued_player WHERE player_id = 61) THEN
        RAISE EXCEPTION 'a roster of a dissolved match did not wait again after the upgrade';
    END IF;
END
$$;

-- Place configs are stored complete after the upgrade, meaning what they meant.
DO $$
BEGIN
    IF EXISTS (SELECT FROM mm.place_configs c WHERE c.config <> mm.place_config(c.config)) THEN
        RAISE EXCEPTION 'a place config is not stored complete after the upgrade';
    END IF;
    IF (SELECT c.config FROM mm.place_configs c WHERE c.place = 'normalized') <>
       '{"voice_chat": true, "include_defaults": false, "signals": {"friends": {"kind": "friends", "weight": 2.5}, "elo": {"kind": "player_numeric_joining", "weight": 1, "attribute": "Elo", "aggregation": "average", "max_relevant_difference": 1500}}}'::jsonb THEN
        RAISE EXCEPTION 'place config not normalized: %', (SELECT c.config FROM mm.place_configs c WHERE c.place = 'normalized');
    END IF;
    IF (SELECT c.config ->> 'voice_chat' FROM mm.place_configs c WHERE c.place = 'obby') <> 'false' THEN
        RAISE EXCEPTION 'place config obby lost its voice_chat';
    END IF;
    -- a weight over 0.2.0's cap was clamped to it
    IF (SELECT c.config #> '{signals,friends,weight}' FROM mm.place_configs c WHERE c.place = 'heavy') <> '1000000000000'::jsonb THEN
        RAISE EXCEPTION 'place config heavy not clamped: %', (SELECT c.config FROM mm.place_configs c WHERE c.place = 'heavy');
    END IF;
    IF (SELECT weight FROM mm.place_signals('heavy') WHERE signal = 'friends') <> 1e12 THEN
        RAISE EXCEPTION 'place heavy scores friends with weight %',
            (SELECT weight FROM mm.place_signals('heavy') WHERE signal = 'friends');
    END IF;
END
$$;

-- Configs out of 0.2.0's ranges: clamped (a queue key, a dishonor duration
-- written in days), or kept as they were (a pool config with a key no
-- version takes); the upgrade did not stop on them.
DO $$
BEGIN
    IF (SELECT config #> '{filter,rosters}' FROM mm.queue WHERE name = 'duel') <> '1000000'::jsonb
       OR (SELECT config FROM mm.queue WHERE name = 'duel') <> mm.matcher_config((SELECT config FROM mm.queue WHERE name = 'duel')) THEN
        RAISE EXCEPTION 'queue duel config not clamped: %', (SELECT config FROM mm.queue WHERE name = 'duel');
    END IF;
    IF mm.dishonor_config() -> 'timeout_duration' <> '10000000000'::jsonb THEN
        RAISE EXCEPTION 'dishonor timeout_duration not clamped: %', mm.dishonor_config();
    END IF;
    IF (SELECT config -> 'bucket_count' FROM mm.async_pools WHERE pool = 'kept') <> '4'::jsonb THEN
        RAISE EXCEPTION 'pool config kept not kept: %', (SELECT config FROM mm.async_pools WHERE pool = 'kept');
    END IF;
END
$$;

-- A roster rated out of the range of 0.2.0 was clamped into it, and ticks.
DO $$
BEGIN
    IF (SELECT (r.rating, r.deviation) FROM mm.roster r JOIN mm.queued_player qp USING (roster_id)
        WHERE qp.player_id = 80) IS DISTINCT FROM (-1e9::float8, 1e9::float8) THEN
        RAISE EXCEPTION 'roster of player 80 not clamped';
    END IF;
    IF (SELECT (r.rank, r.ladder_points) FROM mm.roster r JOIN mm.queued_player qp USING (roster_id)
        WHERE qp.player_id = 83) IS DISTINCT FROM (1e9::float8, -1e9::float8) THEN
        RAISE EXCEPTION 'rank of player 83 not clamped';
    END IF;
    PERFORM mm.enqueue('wide', ARRAY[81::bigint], 1e9, 1e9, joined_at => now() - interval '1 minute');
    IF (SELECT m.rating_spread FROM mm.tick('wide') t JOIN mm.match m USING (match_id) LIMIT 1) <> 2e9 THEN
        RAISE EXCEPTION 'clamped roster did not match with a finite spread';
    END IF;
END
$$;
