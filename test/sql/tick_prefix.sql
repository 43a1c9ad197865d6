-- A tick reads the queue in queue order only as far as its targets need
-- (the first mm.tick_read_batch rosters, then, if a target's outcome
-- could change with more, the whole queue). Its
-- matches, failed targets, their
-- reasons and their order must be those of the matcher over the whole
-- queue: mm._match_rosters over the same waiting rosters. Random queues
-- (sizes, parties, ratings, waits, professions, rosters without players)
-- and random configs (every filter and scoring key, and half of them the
-- hard rules with the region a match is played in), each ticked with a
-- read batch of 1, 2, 5 or the default, and previewed with another.
\set VERBOSITY terse
SET timezone = 'UTC';
SELECT setseed(0.25);

CREATE SEQUENCE pg_temp.player_seq START 700000000;

-- n rosters in queue order; parties of 1..max_party (0 players now and
-- then), ratings spread over "spread" points, waits up to max_wait
CREATE FUNCTION pg_temp.fill(qname text, n int, max_party int, spread float8, max_wait float8,
                             at timestamptz) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    qid int := (SELECT queue_id FROM mm.queue WHERE name = qname);
    rid bigint;
    size int;
BEGIN
    FOR i IN 1 .. n LOOP
        size := CASE WHEN random() < 0.02 THEN 0 ELSE 1 + floor(random() * max_party)::int END;
        INSERT INTO mm.roster (queue_id, rating, deviation, rank, ladder_points, dishonor, joined_at,
                               attributes, latencies)
        VALUES (qid, 1500 + spread * (random() - 0.5), floor(random() * 60), floor(random() * 40),
                floor(random() * 500), floor(random() * 3), at - random() * max_wait * interval '1 second',
                jsonb_build_object('mode', (ARRAY['ctf', 'arena', 'duel'])[1 + floor(random() * 3)::int],
                                   'tier', floor(random() * 6)),
                jsonb_build_object('eu', floor(random() * 120), 'us', floor(random() * 120)))
        RETURNING roster_id INTO rid;
        INSERT INTO mm.queued_player (player_id, roster_id, queue_id, seat, profession)
        SELECT nextval('pg_temp.player_seq'), rid, qid, k,
               CASE WHEN random() < 0.2 THEN NULL
                    ELSE (ARRAY['guardian', 'warrior', 'thief', 'ranger', 'mesmer', 'necromancer'])[1 + floor(random() * 6)::int] END
        FROM generate_series(1, size) k;
    END LOOP;
END $$;

-- a random config: every filter and scoring key, and half of the time the
-- hard rules (equal on a mode, distance on a tier, latency, each but equal
-- with an expansion)
CREATE FUNCTION pg_temp.config() RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
    pmax int := 1 + floor(random() * 25)::int;
    pstart float8 := floor(random() * 60);
BEGIN
    RETURN jsonb_build_object(
        'team_size', 1 + floor(random() * 5)::int,
        'rating', jsonb_build_object('model', CASE WHEN random() < 0.5 THEN 'openskill' ELSE 'glicko2' END),
        'filter', jsonb_build_object(
            'rosters', 1 + floor(random() * 30)::int,
            'limit', 600000,
            'potentials_min', floor(random() * (pmax + 1))::int,
            'potentials_max', pmax,
            'padding', floor(random() * 20),
            'padding_start', pstart,
            'padding_end', pstart + floor(random() * 200),
            'deviations', floor(random() * 4)),
        'scoring', jsonb_build_object(
            'type', CASE WHEN random() < 0.5 THEN 'team' ELSE 'match' END,
            'age', floor(random() * 40) - 10,
            'roster_size_distance', floor(random() * 1000) - 800,
            'perfect_fit', floor(random() * 400),
            'rank_distance', floor(random() * 40) - 30,
            'rating_distance', floor(random() * 20) - 15,
            'ladder_distance', floor(random() * 4) - 2,
            'profession_max', 1 + floor(random() * 3)::int,
            'profession_common', floor(random() * 1000) - 800,
            'profession_unique', floor(random() * 1000) - 200,
            'dishonor_distance', floor(random() * 200) - 150,
            'dishonor_stack', floor(random() * 100) - 80))
        || CASE WHEN random() < 0.5 THEN '{}'::jsonb ELSE jsonb_build_object(
            'attributes', '{"mode": {"type": "string"}, "tier": {"type": "number"}}'::jsonb,
            'rules', jsonb_build_array(
                '{"type": "equal", "attribute": "mode"}'::jsonb,
                jsonb_build_object('type', 'distance', 'attribute', 'tier', 'max', floor(random() * 3),
                                   'expand', jsonb_build_array(jsonb_build_object('after', 30, 'max', 4))),
                jsonb_build_object('type', 'latency', 'max', 20 + floor(random() * 60),
                                   'expand', jsonb_build_array(jsonb_build_object('after', 60, 'max', 150))))) END;
END $$;

-- the matcher over the whole queue, as a rosters query in queue order
CREATE FUNCTION pg_temp.whole(qid int) RETURNS text
LANGUAGE sql AS $$
    SELECT format('SELECT r.roster_id, array_agg(qp.player_id ORDER BY qp.seat) AS players, r.rating, '
                  'r.deviation, r.rank, r.ladder_points, r.dishonor, '
                  'array_agg(qp.profession) FILTER (WHERE qp.profession IS NOT NULL) AS professions, r.joined_at, '
                  'r.attributes, r.latencies, array_agg(qp.role) FILTER (WHERE qp.role IS NOT NULL) AS roles '
                  'FROM mm.roster r JOIN mm.queued_player qp ON qp.queue_id = r.queue_id AND qp.roster_id = r.roster_id '
                  'WHERE r.queue_id = %s GROUP BY r.roster_id, r.queue_id ORDER BY min(r.position)', qid)
$$;

-- Tick (and preview) queue qname at "at" with read batches tick_batch and
-- preview_batch, and compare with the matcher over the whole queue: the
-- matches (rosters, teams, in order), the failed targets (their reasons,
-- and their order at the back of the queue). Returns the differences (none
-- expected) and how many rosters the tick read.
CREATE FUNCTION pg_temp.compare(qname text, at timestamptz, tick_batch int, preview_batch int,
                                OUT differences int, OUT seen int, OUT matched int, OUT reasons jsonb)
LANGUAGE plpgsql AS $$
DECLARE
    qid int := (SELECT queue_id FROM mm.queue WHERE name = qname);
    cfg jsonb := (SELECT config FROM mm.queue WHERE name = qname);
    last_position bigint := (SELECT coalesce(max(position), 0) FROM mm.roster WHERE queue_id = qid);
BEGIN
    CREATE TEMP TABLE expected ON COMMIT DROP AS
        SELECT * FROM mm._match_rosters(pg_temp.whole(qid), cfg, at);
    CREATE TEMP TABLE expected_regions ON COMMIT DROP AS
        SELECT DISTINCT e.match_no::bigint, e.region FROM mm.match_rosters(pg_temp.whole(qid), cfg, at) e;
    PERFORM set_config('mm.tick_read_batch', preview_batch::text, true);
    CREATE TEMP TABLE previewed ON COMMIT DROP AS SELECT * FROM mm.preview(qname, at);
    PERFORM set_config('mm.tick_read_batch', tick_batch::text, true);
    CREATE TEMP TABLE ticked ON COMMIT DROP AS SELECT * FROM mm.tick(qname, at);
    -- matches: number, roster, team
    SELECT count(*) INTO differences FROM (
        (SELECT e.match_no::bigint, e.roster_id, e.team FROM expected e WHERE e.outcome = 'matched'
         EXCEPT ALL SELECT p.match_id, p.roster_id, p.team FROM previewed p)
        UNION ALL
        (SELECT p.match_id, p.roster_id, p.team FROM previewed p
         EXCEPT ALL SELECT e.match_no, e.roster_id, e.team FROM expected e WHERE e.outcome = 'matched')
        UNION ALL
        (SELECT e.match_no::bigint, e.roster_id, e.team FROM expected e WHERE e.outcome = 'matched'
         EXCEPT ALL SELECT dense_rank() OVER (ORDER BY t.match_id), t.roster_id, t.team FROM ticked t)
        UNION ALL
        (SELECT dense_rank() OVER (ORDER BY t.match_id), t.roster_id, t.team FROM ticked t
         EXCEPT ALL SELECT e.match_no, e.roster_id, e.team FROM expected e WHERE e.outcome = 'matched')) d;
    -- what the tick stored: each matched roster's row has the match and team
    -- the tick returned for it, and no other roster is in those matches
    differences := differences + (SELECT count(*) FROM (
        (SELECT t.match_id, t.roster_id, t.team FROM ticked t
         EXCEPT ALL SELECT r.match_id, r.roster_id, r.team FROM mm.roster r
         WHERE r.queue_id = qid AND r.match_id IN (SELECT t.match_id FROM ticked t))
        UNION ALL
        (SELECT r.match_id, r.roster_id, r.team FROM mm.roster r
         WHERE r.queue_id = qid AND r.match_id IN (SELECT t.match_id FROM ticked t)
         EXCEPT ALL SELECT t.match_id, t.roster_id, t.team FROM ticked t)) d);
    -- the region each match is played in (the latency rule's; NULL without)
    differences := differences + (SELECT count(*) FROM (
        (SELECT e.match_no, e.region FROM expected_regions e
         EXCEPT SELECT dense_rank() OVER (ORDER BY m.match_id), m.region
         FROM mm.match m WHERE m.match_id IN (SELECT t.match_id FROM ticked t))
        UNION ALL
        (SELECT dense_rank() OVER (ORDER BY m.match_id), m.region
         FROM mm.match m WHERE m.match_id IN (SELECT t.match_id FROM ticked t)
         EXCEPT SELECT e.match_no, e.region FROM expected_regions e)) d);
    -- failed targets: at the back of the queue in the order they failed
    differences := differences + (SELECT count(*) FROM (
        (SELECT e.roster_id, e.failed_no::bigint FROM expected e WHERE e.outcome = 'failed'
         EXCEPT ALL SELECT r.roster_id, row_number() OVER (ORDER BY r.position) FROM mm.roster r
         WHERE r.queue_id = qid AND r.position > last_position)
        UNION ALL
        (SELECT r.roster_id, row_number() OVER (ORDER BY r.position) FROM mm.roster r
         WHERE r.queue_id = qid AND r.position > last_position
         EXCEPT ALL SELECT e.roster_id, e.failed_no FROM expected e WHERE e.outcome = 'failed')) d);
    -- the tick log's reasons
    SELECT l.rosters_seen, l.matches_made, l.failed_reasons INTO seen, matched, reasons
    FROM mm.tick_log l WHERE l.queue_id = qid ORDER BY l.tick_id DESC LIMIT 1;
    IF reasons IS DISTINCT FROM (SELECT coalesce(jsonb_object_agg(x.reason, x.n), '{}')
                                 FROM (SELECT e.reason, count(*) AS n FROM expected e
                                       WHERE e.outcome = 'failed' GROUP BY e.reason) x) THEN
        differences := differences + 1;
    END IF;
    IF matched IS DISTINCT FROM (SELECT count(DISTINCT e.match_no)::int FROM expected e WHERE e.outcome = 'matched') THEN
        differences := differences + 1;
    END IF;
    DROP TABLE expected, expected_regions, previewed, ticked;
END $$;

-- random queues
CREATE TEMP TABLE cases (no int, n int, batch int, differences int, seen int, matched int, reasons jsonb);
DO $$
DECLARE
    at timestamptz := '2024-01-01 00:10:00+00';
    c record;
    n int;
    batch int;
BEGIN
    FOR k IN 1 .. 120 LOOP
        PERFORM mm.create_queue('prefix_' || k, pg_temp.config());
        n := (ARRAY[0, 1, 3, 10, 40, 120, 250])[1 + floor(random() * 7)::int];
        PERFORM pg_temp.fill('prefix_' || k, n, 1 + floor(random() * 5)::int,
                             (ARRAY[50, 300, 2000, 20000])[1 + floor(random() * 4)::int],
                             (ARRAY[10, 100, 600])[1 + floor(random() * 3)::int], at);
        batch := (ARRAY[1, 2, 5, 0])[1 + floor(random() * 4)::int];
        c := pg_temp.compare('prefix_' || k, at, batch, (ARRAY[1, 3, 0])[1 + floor(random() * 3)::int]);
        INSERT INTO cases VALUES (k, n, batch, c.differences, c.seen, c.matched, c.reasons);
    END LOOP;
END $$;

-- no differences; most ticks made matches or failed targets, many read
-- the queue in several steps
SELECT count(*) AS cases, sum(differences) AS differences,
       count(*) FILTER (WHERE matched > 0) AS with_matches,
       count(*) FILTER (WHERE reasons <> '{}') AS with_failures,
       count(*) FILTER (WHERE batch > 0 AND seen > batch) AS read_in_steps,
       count(*) FILTER (WHERE seen < n - 5) AS read_part
FROM cases;
SELECT r.key AS reason, sum(r.value::int) AS targets
FROM cases, jsonb_each_text(reasons) r GROUP BY r.key ORDER BY r.key;
SELECT no, n, batch, differences FROM cases WHERE differences > 0;

-- Role queues: the random configs above with the players' roles (a fifth
-- without one), a roles rule (counts of 0 or 1 per role, relaxed to any
-- role after 60 s), a party rule (for teams of 2 or more, relaxed after
-- 45 s) and soft rules (distance on the tier; latency when there is no
-- hard latency rule). The tick reads roles by the seat key for a prefix of
-- the queue and in one scan for the whole queue; mm._match_rosters reads
-- them from the rosters query.
CREATE FUNCTION pg_temp.role_config() RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
    cfg jsonb := pg_temp.config();
    ts int := (cfg ->> 'team_size')::int;
    t int := least(floor(random() * 2)::int, ts);
    d int;
    s int;
    rules jsonb := coalesce(cfg -> 'rules', '[]');
BEGIN
    d := least(floor(random() * 2)::int, ts - t);
    s := least(floor(random() * 2)::int, ts - t - d);
    rules := rules || jsonb_build_array(
        jsonb_build_object('type', 'roles', 'counts', jsonb_build_object('tank', t, 'damage', d, 'support', s),
                           'expand', jsonb_build_array(jsonb_build_object('after', 60, 'flex', ts))),
        jsonb_build_object('type', 'distance', 'attribute', 'tier', 'name', 'soft_tier', 'soft', true,
                           'weight', floor(random() * 50)));
    IF ts >= 2 THEN
        rules := rules || jsonb_build_array(jsonb_build_object(
            'type', 'party', 'premade', 2 + floor(random() * (ts - 1))::int, 'min', floor(random() * (ts + 1)),
            'expand', jsonb_build_array(jsonb_build_object('after', 45, 'min', 0))));
    END IF;
    IF cfg -> 'rules' IS NULL THEN
        rules := rules || jsonb_build_array(jsonb_build_object('type', 'latency', 'soft', true,
                                                               'weight', floor(random() * 3)));
    END IF;
    RETURN cfg || jsonb_build_object(
        'attributes', '{"mode": {"type": "string"}, "tier": {"type": "number"}}'::jsonb,
        'roles', '["tank", "damage", "support"]'::jsonb, 'rules', rules);
END $$;
CREATE TEMP TABLE role_cases (no int, n int, batch int, differences int, seen int, matched int, reasons jsonb);
DO $$
DECLARE
    at timestamptz := '2024-01-01 00:10:00+00';
    c record;
    n int;
    batch int;
BEGIN
    FOR k IN 1 .. 60 LOOP
        PERFORM mm.create_queue('prefix_roles_' || k, pg_temp.role_config());
        n := (ARRAY[0, 3, 10, 40, 120, 250])[1 + floor(random() * 6)::int];
        PERFORM pg_temp.fill('prefix_roles_' || k, n, 1 + floor(random() * 5)::int,
                             (ARRAY[50, 300, 2000])[1 + floor(random() * 3)::int],
                             (ARRAY[10, 100, 600])[1 + floor(random() * 3)::int], at);
        UPDATE mm.queued_player qp
        SET role = CASE WHEN random() < 0.2 THEN NULL
                        ELSE (ARRAY['tank', 'damage', 'support'])[1 + floor(random() * 3)::int] END
        WHERE qp.queue_id = (SELECT queue_id FROM mm.queue WHERE name = 'prefix_roles_' || k);
        batch := (ARRAY[1, 2, 5, 0])[1 + floor(random() * 4)::int];
        c := pg_temp.compare('prefix_roles_' || k, at, batch, (ARRAY[1, 3, 0])[1 + floor(random() * 3)::int]);
        INSERT INTO role_cases VALUES (k, n, batch, c.differences, c.seen, c.matched, c.reasons);
    END LOOP;
END $$;
SELECT count(*) AS cases, sum(differences) AS differences,
       count(*) FILTER (WHERE matched > 0) AS with_matches,
       count(*) FILTER (WHERE reasons <> '{}') AS with_failures,
       count(*) FILTER (WHERE batch > 0 AND seen > batch) AS read_in_steps
FROM role_cases;
SELECT r.key AS reason, sum(r.value::int) AS targets
FROM role_cases, jsonb_each_text(reasons) r GROUP BY r.key ORDER BY r.key;
SELECT no, n, batch, differences FROM role_cases WHERE differences > 0;

-- One case per outcome, reading two rosters first: when the roster that
-- decides the target's outcome is further back, the tick reads the whole
-- queue (20 rosters).
-- rosters in queue order: 20 of one player rated 5000, but those given
-- as "rating:players" at places 1, 2, ... (an empty string: the default)
CREATE FUNCTION pg_temp.queue(qname text, config jsonb, VARIADIC rosters text[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    qid int;
    rid bigint;
    spec text;
BEGIN
    PERFORM mm.create_queue(qname, config);
    qid := (SELECT queue_id FROM mm.queue WHERE name = qname);
    FOR k IN 1 .. 20 LOOP
        spec := coalesce(nullif(rosters[k], ''), '5000:1');
        INSERT INTO mm.roster (queue_id, rating, joined_at)
        VALUES (qid, split_part(spec, ':', 1)::float8, '2024-01-01 00:00:00+00') RETURNING roster_id INTO rid;
        INSERT INTO mm.queued_player (player_id, roster_id, queue_id, seat)
        SELECT nextval('pg_temp.player_seq'), rid, qid, s FROM generate_series(1, split_part(spec, ':', 2)::int) s;
    END LOOP;
END $$;
-- the target (first) meets the rosters rated 1000, the last of them at place 20
SELECT pg_temp.queue('reason_matched', '{"team_size": 1, "filter": {"rosters": 1, "potentials_min": 1, "potentials_max": 1}}',
                     '1000:1', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '1000:1');
SELECT pg_temp.queue('reason_too_large', '{"team_size": 1, "filter": {"rosters": 1, "potentials_min": 1, "potentials_max": 1}}',
                     '1000:2', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '1000:1');
SELECT pg_temp.queue('reason_no_potentials', '{"team_size": 1, "filter": {"rosters": 1, "potentials_min": 1, "potentials_max": 1}}',
                     '1000:1');
SELECT pg_temp.queue('reason_potentials_min', '{"team_size": 1, "filter": {"rosters": 1, "potentials_min": 3, "potentials_max": 3, "padding_end": 100000}}',
                     '1000:1', '1000:1', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '1000:1');
-- teams of 2: a solo target, a solo and (last) a pair: red fills, blue cannot
SELECT pg_temp.queue('reason_incomplete', '{"team_size": 2, "filter": {"rosters": 1, "potentials_min": 1, "potentials_max": 3}}',
                     '1000:1', '1000:1', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '1000:2');
-- the same, but (last) two solos: a match, found at the end
SELECT pg_temp.queue('reason_matched_last', '{"team_size": 2, "filter": {"rosters": 1, "potentials_min": 1, "potentials_max": 3}}',
                     '1000:1', '1000:1', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '1000:1', '1000:1');
-- decided early: the target's one potential is second, within the first read
SELECT pg_temp.queue('reason_matched_early', '{"team_size": 1, "filter": {"rosters": 1, "potentials_min": 1, "potentials_max": 1}}',
                     '1000:1', '1000:1');
-- the oldest wait is the queue's, not only that of the rosters read: the
-- last roster of the queue (a failed target put back, say) waited longest
SELECT pg_temp.queue('reason_matched_oldest_far', '{"team_size": 1, "filter": {"rosters": 1, "potentials_min": 1, "potentials_max": 1}}',
                     '1000:1', '1000:1');
UPDATE mm.roster SET joined_at = '2023-12-31 23:00:00+00'
WHERE roster_id = (SELECT max(r.roster_id) FROM mm.roster r JOIN mm.queue q USING (queue_id)
                   WHERE q.name = 'reason_matched_oldest_far');
SET mm.tick_read_batch = 2;
SELECT q.name, (SELECT count(*) FROM mm.tick(q.name, '2024-01-01 00:01:00+00')) AS rosters_matched
FROM mm.queue q WHERE q.name LIKE 'reason_%' ORDER BY q.name;
RESET mm.tick_read_batch;
-- rosters_seen: what the tick read (2 when decided there; 20, the whole queue)
SELECT q.name, l.rosters_seen, l.matches_made, l.failed_reasons, l.oldest_wait,
       (SELECT count(*) FROM mm.roster r WHERE r.queue_id = q.queue_id AND r.match_id IS NULL) AS left_waiting
FROM mm.queue q JOIN mm.tick_log l USING (queue_id) WHERE q.name LIKE 'reason_%' ORDER BY q.name;
