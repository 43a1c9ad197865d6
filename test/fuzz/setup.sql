-- Fixtures of the fuzz suite: mm with a queue, a place with servers and an
-- async pool that the fuzzed calls can reach, and fuzz.call, which runs one
-- call in a subtransaction that is always rolled back.
CREATE EXTENSION mm;
CREATE SCHEMA fuzz;
CREATE TABLE fuzz.victim (x int);
INSERT INTO fuzz.victim VALUES (1);

SELECT mm.create_queue('q', '{}');
SELECT mm.enqueue('q', ARRAY[i::bigint], 1500 + i, 50) FROM generate_series(1, 20) i;
SELECT mm.add_server('p', 10, '{"region": "eu"}') FROM generate_series(1, 3);
SELECT mm.create_pool('pool', '{}');
SELECT mm.put_entry('pool', i, 1000 + 10 * i, '{}', '{}') FROM generate_series(1, 20) i;

-- The targets of the stateful pass (fuzz.py): queues a service, an admin
-- and the fuzzer change for real, then checked to still tick and match.
-- fz_duel: 1v1; fz_rules: 2v2 with a mode, a latency and a roles rule;
-- fz_ready: 1v1 with a ready check; fz_party: 3v3; fz_alter: the queue the
-- fuzzed alter_queue calls change.
SELECT mm.create_queue('fz_duel', '{"team_size": 1, "filter": {"potentials_min": 1}, "requeue_while_in_match": true}');
SELECT mm.create_queue('fz_rules', $${"team_size": 2, "filter": {"potentials_min": 1}, "requeue_while_in_match": true,
    "attributes": {"mode": {"type": "string", "default": "ranked"}}, "roles": ["tank", "damage"],
    "rules": [{"type": "equal", "attribute": "mode"}, {"type": "latency", "max": 100},
              {"type": "roles", "counts": {"tank": 1, "damage": 1}}]}$$);
SELECT mm.create_queue('fz_ready', '{"team_size": 1, "filter": {"potentials_min": 1}, "accept_timeout": 30,
    "requeue_while_in_match": true}');
SELECT mm.create_queue('fz_party', '{"team_size": 3, "filter": {"potentials_min": 1}, "requeue_while_in_match": true}');
SELECT mm.create_queue('fz_alter', '{"team_size": 2, "filter": {"potentials_min": 1}}');
SELECT mm.enqueue('fz_duel', ARRAY[100 + i::bigint], 1500 + i, 50) FROM generate_series(1, 10) i;
SELECT mm.enqueue('fz_rules', ARRAY[200 + i::bigint], 1500 + i, 50, latencies => '{"eu": 20}',
                  roles => ARRAY[CASE WHEN i % 2 = 0 THEN 'tank' ELSE 'damage' END]) FROM generate_series(1, 12) i;
SELECT mm.enqueue('fz_ready', ARRAY[300 + i::bigint], 1500 + i, 50) FROM generate_series(1, 6) i;
SELECT mm.enqueue('fz_party', ARRAY[400 + 3 * i::bigint, 401 + 3 * i::bigint], 1500 + i, 50) FROM generate_series(1, 4) i;
SELECT mm.enqueue('fz_party', ARRAY[450 + i::bigint], 1500 + i, 50) FROM generate_series(1, 8) i;
SELECT mm.enqueue('fz_alter', ARRAY[500 + i::bigint], 1500 + i, 50) FROM generate_series(1, 6) i;
-- matches in every state: proposed, matched (claimed or not), finished
SELECT count(*) FROM unnest(ARRAY['fz_duel', 'fz_rules', 'fz_ready', 'fz_party']) q CROSS JOIN LATERAL mm.tick(q) t;
SELECT count(*) FROM mm.claim_matches('fz_duel', 2);
SELECT count(*) FROM mm.report_result((SELECT min(m.match_id) FROM mm.match m JOIN mm.queue q USING (queue_id)
                                       WHERE q.name = 'fz_duel'), '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}');

-- 10^6-element arrays and a 10^5-key object, built once (passing one costs
-- a read, not its construction under the call's statement_timeout)
CREATE TABLE fuzz.big (k text PRIMARY KEY, f float8[], i int[], b bigint[], t text[], j jsonb);
INSERT INTO fuzz.big (k, f, i, b, t)
SELECT 'big', array_agg((g % 7)::float8), array_agg(g), array_agg(g::bigint), array_agg(g::text)
FROM generate_series(1, 1000000) g;
UPDATE fuzz.big SET j = (SELECT jsonb_object_agg('k' || g, g) FROM generate_series(1, 100000) g);

-- One line per call: id, ok / err / timeout, milliseconds, SQLSTATE, text.
-- keep: the call's changes stay (the stateful pass); else always rolled back.
CREATE FUNCTION fuzz.call(id int, q text, keep boolean DEFAULT false) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    r text;
    t0 timestamptz := clock_timestamp();
    state text;
    msg text;
    ms text;
BEGIN
    BEGIN
        EXECUTE q INTO r;
        IF keep THEN
            ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
            RETURN concat_ws(E'\t', id, 'ok', ms, '', replace(replace(coalesce(r, '<NULL>'), E'\n', ' '), E'\t', ' '));
        END IF;
        -- roll the call back, carrying its result out
        RAISE EXCEPTION USING ERRCODE = 'MMFZ0', MESSAGE = coalesce(r, '<NULL>');
    EXCEPTION
        WHEN query_canceled THEN
            state := SQLSTATE; msg := SQLERRM;
            ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
            RETURN concat_ws(E'\t', id, 'timeout', ms, state, '');
        WHEN OTHERS THEN
            state := SQLSTATE; msg := SQLERRM;
            ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
            IF state = 'MMFZ0' THEN
                RETURN concat_ws(E'\t', id, 'ok', ms, '', replace(replace(msg, E'\n', ' '), E'\t', ' '));
            END IF;
            RETURN concat_ws(E'\t', id, 'err', ms, state, replace(replace(msg, E'\n', ' '), E'\t', ' '));
    END;
END
$$;

-- For the harness's self-test: a NaN result and an internal error, which it
-- must report (with a lost connection) when MM_FUZZ_SELFTEST is set.
CREATE FUNCTION fuzz.selftest_nan() RETURNS float8
LANGUAGE sql AS $$ SELECT 'NaN'::float8 $$;
CREATE FUNCTION fuzz.selftest_xx000() RETURNS void
LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected' USING ERRCODE = 'XX000'; END $$;
-- and a raw constraint violation (a CHECK of mm's table, not mm's refusal)
CREATE FUNCTION fuzz.selftest_constraint() RETURNS void
LANGUAGE sql AS $$ INSERT INTO mm.queue (name) VALUES ('') $$;
-- and a queue that no longer ticks (a config no version takes, written directly)
SELECT mm.create_queue('fz_broken', '{"team_size": 1}');
UPDATE mm.queue SET config = config || '{"no_such_key": 1}' WHERE name = 'fz_broken';

-- After the stateful pass: does a queue still tick, and match fresh
-- players (a full match of solos with the values its rules want, rated
-- wide enough to meet anyone)? 'ok', or what went wrong.
CREATE FUNCTION fuzz.queue_check(q text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    size int;
    base bigint;
    matched int;
BEGIN
    BEGIN
        PERFORM mm.tick(q);
    EXCEPTION WHEN OTHERS THEN
        RETURN 'a tick failed: ' || SQLSTATE || ' ' || SQLERRM;
    END;
    IF q = 'fz_alter' THEN
        RETURN 'ok';
    END IF;
    size := (mm.matcher_config((SELECT config FROM mm.queue WHERE name = q AND dropped_at IS NULL)) ->> 'team_size')::int;
    base := 900000 + 1000 * (SELECT queue_id FROM mm.queue WHERE name = q AND dropped_at IS NULL);
    BEGIN
        FOR i IN 1 .. 2 * size LOOP
            IF q = 'fz_rules' THEN
                PERFORM mm.enqueue(q, ARRAY[base + i], 1500, 1e6, attributes => '{"mode": "ranked"}',
                                   latencies => '{"eu": 20}',
                                   roles => ARRAY[CASE WHEN i % 2 = 0 THEN 'tank' ELSE 'damage' END]);
            ELSE
                PERFORM mm.enqueue(q, ARRAY[base + i], 1500, 1e6);
            END IF;
        END LOOP;
        PERFORM mm.tick(q);
        PERFORM mm.tick(q);
    EXCEPTION WHEN OTHERS THEN
        RETURN 'fresh players could not queue or be ticked: ' || SQLSTATE || ' ' || SQLERRM;
    END;
    SELECT count(*) INTO matched
    FROM generate_series(1, 2 * size) i CROSS JOIN LATERAL mm.ticket_status(base + i) t
    WHERE t.status IN ('matched', 'proposed', 'accepted');
    IF matched = 0 THEN
        RETURN 'no fresh player was matched';
    END IF;
    RETURN 'ok';
END
$$;
