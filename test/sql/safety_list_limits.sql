-- Lists (docs/operations.md, "Limits"): every list mm accepts has a limit
-- checked where it is given (SQLSTATE 54000), and a tick's memory is the
-- queue's rosters times those limits. 1,000 enqueues with 50 distinct
-- regions each into a latency-rule queue, then one tick, grew the
-- backend's peak memory by 409 MB: every roster's latencies were a row
-- over every region of the queue. They are each roster's own list now.
\set VERBOSITY terse
SET timezone = 'UTC';
-- the tests after this one count on mm's sequences: put them back at the end
-- (a table that outlives the new connection below)
CREATE TABLE saved_sequences (seq regclass, last_value bigint, is_called boolean);
DO $$
DECLARE
    c regclass;
BEGIN
    FOR c IN SELECT oid FROM pg_class WHERE relnamespace = 'mm'::regnamespace AND relkind = 'S' LOOP
        EXECUTE format('INSERT INTO saved_sequences SELECT %L, last_value, is_called FROM %s', c, c);
    END LOOP;
END
$$;

-- regions per roster: 64
SELECT mm.create_queue('lists_lat', '{"team_size": 1, "filter": {"potentials_min": 1}, "rules": [{"type": "latency", "max": 100}]}');
SELECT mm.enqueue('lists_lat', ARRAY[9301], 1500,
                  latencies => (SELECT jsonb_object_agg('r' || i, 50) FROM generate_series(1, 65) i));
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('lists_lat', ARRAY[9301], 1500,
                  latencies => (SELECT jsonb_object_agg('r' || i, 50) FROM generate_series(1, 100000) i));
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('lists_lat', ARRAY[9301], 1500,
                  latencies => (SELECT jsonb_object_agg('r' || i, 50) FROM generate_series(1, 64) i)) > 0 AS queued;
SELECT mm.update_roster(roster_id, latencies => (SELECT jsonb_object_agg('r' || i, 50) FROM generate_series(1, 65) i))
FROM mm.queued_player WHERE player_id = 9301;
\echo :LAST_ERROR_SQLSTATE
-- the rules of a queue (32), the steps of a rule's expansion (32), the
-- attributes (32) and roles (32) it declares, its teams (64)
SELECT mm.matcher_config(jsonb_build_object('attributes', '{"a": {"type": "number", "default": 0}}'::jsonb, 'rules',
    (SELECT jsonb_agg(jsonb_build_object('type', 'distance', 'attribute', 'a', 'name', 'd' || i, 'max', 5)) FROM generate_series(1, 33) i)));
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config(jsonb_build_object('rules', jsonb_build_array(jsonb_build_object('type', 'latency', 'max', 50,
    'expand', (SELECT jsonb_agg(jsonb_build_object('after', i, 'max', 50 + i)) FROM generate_series(1, 33) i)))));
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config(jsonb_build_object('attributes',
    (SELECT jsonb_object_agg('a' || i, '{"type": "number"}'::jsonb) FROM generate_series(1, 33) i)));
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config(jsonb_build_object('roles', (SELECT jsonb_agg('r' || i) FROM generate_series(1, 33) i)));
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config(jsonb_build_object('team_names', (SELECT jsonb_agg('t' || i) FROM generate_series(1, 65) i)));
\echo :LAST_ERROR_SQLSTATE
-- at the limits they are taken
SELECT jsonb_array_length(mm.matcher_config(jsonb_build_object('rules',
    (SELECT jsonb_agg(jsonb_build_object('type', 'latency', 'name', 'l' || i, 'max', 50)) FROM generate_series(1, 1) i)
    || (SELECT jsonb_agg(jsonb_build_object('type', 'distance', 'attribute', 'a' || i, 'max', 5)) FROM generate_series(1, 31) i),
    'attributes', (SELECT jsonb_object_agg('a' || i, '{"type": "number", "default": 0}'::jsonb) FROM generate_series(1, 32) i),
    'roles', (SELECT jsonb_agg('r' || i) FROM generate_series(1, 32) i))) -> 'rules') AS rules;
-- a set attribute's values per roster (64); a party's size is its team's (at most 1000)
SELECT mm.create_queue('lists_set', '{"team_size": 1, "attributes": {"langs": {"type": "string_set"}},
    "rules": [{"type": "intersect", "attribute": "langs"}]}');
SELECT mm.enqueue('lists_set', ARRAY[9302], 1500,
                  attributes => jsonb_build_object('langs', (SELECT jsonb_agg('l' || i) FROM generate_series(1, 65) i)));
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('lists_set', ARRAY(SELECT i::bigint FROM generate_series(9400, 9401) i), 1500);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"team_size": 1001}');
\echo :LAST_ERROR_SQLSTATE
-- ids per call (10,000)
SELECT count(*) FROM mm.match_players(ARRAY(SELECT i::bigint FROM generate_series(1, 10001) i));
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM mm.dishonor_statuses(ARRAY(SELECT i::bigint FROM generate_series(1, 10001) i));
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM mm.dishonor_statuses(ARRAY(SELECT i::bigint FROM generate_series(1, 10000) i));

-- a tick's memory: 1,000 rosters of a latency-rule queue, each with 50
-- regions of its own (50,000 distinct regions between them), then one
-- tick in a new backend: its peak memory (VmHWM) grows by far less than
-- the 409 MB a row per region of the queue took
SELECT mm.create_queue('lists_mem', '{"team_size": 1, "filter": {"potentials_min": 1}, "rules": [{"type": "latency", "max": 100}]}');
SELECT count(mm.enqueue('lists_mem', ARRAY[100000 + r::bigint], 1500,
                        latencies => (SELECT jsonb_object_agg('r' || r || '_' || i, 50) FROM generate_series(1, 50) i)))
FROM generate_series(1, 1000) r;
\c
CREATE TEMP TABLE hwm AS
SELECT (regexp_match(pg_read_file('/proc/self/status'), 'VmHWM:\s+(\d+) kB'))[1]::bigint AS kb;
SELECT count(*) AS matched FROM mm.tick('lists_mem');
SELECT (regexp_match(pg_read_file('/proc/self/status'), 'VmHWM:\s+(\d+) kB'))[1]::bigint - kb < 64 * 1024
       AS peak_grew_less_than_64_mb
FROM hwm;
SELECT rosters_seen, targets_failed FROM mm.tick_log l JOIN mm.queue q USING (queue_id) WHERE q.name = 'lists_mem';

SELECT mm.drop_queue(x, keep_history => false) FROM unnest(ARRAY['lists_lat', 'lists_set', 'lists_mem']) x;
\i test/support/sequences_restore.sql
