-- A player's own latency limit on the ticket (mm.enqueue's max_latency, a
-- rosters query's max_latency column): the latency rule holds a roster to
-- the lower of its "max" and the roster's own limit, and the match is
-- played in a region within every roster's limit; a soft latency rule too.
\set VERBOSITY terse
SET timezone = 'UTC';

-- the tests after this one count on mm's sequences: put them back at the end
CREATE TEMP TABLE saved_sequences_latency (seq regclass, last_value bigint, is_called boolean);
DO $$
DECLARE
    c regclass;
BEGIN
    FOR c IN SELECT oid FROM pg_class WHERE relnamespace = 'mm'::regnamespace AND relkind = 'S' LOOP
        EXECUTE format('INSERT INTO saved_sequences_latency SELECT %L, last_value, is_called FROM %s', c, c);
    END LOOP;
END
$$;

CREATE TEMP TABLE lr (pos int, roster_id bigint, players bigint[], rating float8, latencies jsonb,
                      max_latency float8, joined_at timestamptz DEFAULT '2024-01-01 00:00:00+00');
CREATE FUNCTION pairs(config jsonb, at timestamptz DEFAULT '2024-01-01 00:00:10+00')
RETURNS TABLE (match_no int, rosters text, region text)
LANGUAGE sql AS $$
    SELECT match_no, string_agg(roster_id::text, ',' ORDER BY roster_id), min(region)
    FROM mm.match_rosters('SELECT * FROM lr ORDER BY pos',
                          mm._jsonb_merge('{"team_size": 1, "filter": {"potentials_min": 0}}', config), at)
    GROUP BY match_no ORDER BY match_no
$$;

-- 1. Hard rule, max 100 ms. A: eu 30, us 80; B: eu 90, us 40. Both regions
-- are within 100 for both: the match is played where the worse latency is
-- lower, us (80 against eu's 90). A's own limit of 50 ms rules us out for
-- A: the match is played in eu.
INSERT INTO lr VALUES (1, 1, '{1}', 1500, '{"eu": 30, "us": 80}', NULL), (2, 2, '{2}', 1500, '{"eu": 90, "us": 40}', NULL);
SELECT * FROM pairs('{"rules": [{"type": "latency", "max": 100}]}');
UPDATE lr SET max_latency = 50 WHERE roster_id = 1;
SELECT * FROM pairs('{"rules": [{"type": "latency", "max": 100}]}');
-- B at 120 ms to eu: no region suits both at 100 ms (eu is too far for B,
-- us for A's own limit), and the target fails by the rule; after 20 s the
-- rule's expansion (200 ms) lets B play in eu, and the match is made
-- there, not in us (worst 80 ms): the expansion never lifts A's own limit
UPDATE lr SET latencies = '{"eu": 120, "us": 40}' WHERE roster_id = 2;
SELECT roster_id, outcome, reason
FROM mm._match_rosters('SELECT * FROM lr ORDER BY pos',
                       '{"team_size": 1, "filter": {"potentials_min": 0}, "rules": [{"type": "latency", "max": 100, "expand": [{"after": 20, "max": 200}]}]}',
                       '2024-01-01 00:00:10+00')
ORDER BY roster_id;
SELECT * FROM pairs('{"rules": [{"type": "latency", "max": 100, "expand": [{"after": 20, "max": 200}]}]}', '2024-01-01 00:00:30+00');
-- without A's limit the match is played in us
UPDATE lr SET max_latency = NULL;
SELECT * FROM pairs('{"rules": [{"type": "latency", "max": 100, "expand": [{"after": 20, "max": 200}]}]}', '2024-01-01 00:00:30+00');

-- 2. A limit larger than the rule's max changes nothing: the rule is the lower
UPDATE lr SET latencies = '{"eu": 30, "us": 80}', max_latency = 500 WHERE roster_id = 1;
UPDATE lr SET latencies = '{"eu": 90, "us": 40}' WHERE roster_id = 2;
SELECT * FROM pairs('{"rules": [{"type": "latency", "max": 100}]}');

-- 3. A soft rule scores latencies and filters nothing, but a roster's own
-- limit still holds: A (limit 50) plays in eu only. With B at 120 ms to
-- eu the soft rule would have picked us (worst 80); it plays eu (worst
-- 120). With B having no eu server, A and B do not meet; a third roster C
-- (eu 45) meets A.
UPDATE lr SET max_latency = 50 WHERE roster_id = 1;
UPDATE lr SET latencies = '{"eu": 120, "us": 40}' WHERE roster_id = 2;
SELECT * FROM pairs('{"rules": [{"type": "latency", "soft": true}]}');
UPDATE lr SET max_latency = NULL;
SELECT * FROM pairs('{"rules": [{"type": "latency", "soft": true}]}');
UPDATE lr SET max_latency = 50 WHERE roster_id = 1;
UPDATE lr SET latencies = '{"us": 40}' WHERE roster_id = 2;
SELECT * FROM pairs('{"rules": [{"type": "latency", "soft": true}]}');
INSERT INTO lr VALUES (3, 3, '{3}', 1500, '{"eu": 45, "us": 10}', NULL);
SELECT * FROM pairs('{"rules": [{"type": "latency", "soft": true}]}');

-- 4. Refused in a rosters query: a limit out of range, or without a latency rule
SELECT * FROM mm.match_rosters('SELECT 1::bigint AS roster_id, ''{1}''::bigint[] AS players, 1500::float8 AS rating, 0::float8 AS max_latency',
                               '{"rules": [{"type": "latency", "max": 100}]}');
SELECT * FROM mm.match_rosters('SELECT 1::bigint AS roster_id, ''{1}''::bigint[] AS players, 1500::float8 AS rating, 50::float8 AS max_latency');
SELECT * FROM mm.match_rosters('SELECT 1::bigint AS roster_id, ''{1}''::bigint[] AS players, 1500::float8 AS rating, 50 AS max_latency',
                               '{"rules": [{"type": "latency", "max": 100}]}');

-- 5. In a queue: mm.enqueue's max_latency, shown by mm.list_queue, held by
-- the tick and named by mm.explain
SELECT mm.create_queue('lat_q', '{"team_size": 1, "filter": {"potentials_min": 0},
    "rules": [{"type": "latency", "max": 100, "expand": [{"after": 120, "max": 200}]}]}');
SELECT mm.enqueue('lat_q', ARRAY[9501]::bigint[], 1500, joined_at => '2024-01-01 00:00:00+00',
                  latencies => '{"eu": 30, "us": 80}', max_latency => 50) AS a \gset
SELECT mm.enqueue('lat_q', ARRAY[9502]::bigint[], 1500, joined_at => '2024-01-01 00:00:00+00',
                  latencies => '{"eu": 120, "us": 40}') AS b \gset
SELECT place, players, latencies, max_latency FROM mm.list_queue('lat_q') ORDER BY place;
SELECT outcome, detail FROM mm.explain(:a, '2024-01-01 00:01:00+00');
SELECT count(*) AS matched FROM mm.tick('lat_q', '2024-01-01 00:01:00+00');
-- a third player, 45 ms to eu: A and C meet in eu
SELECT mm.enqueue('lat_q', ARRAY[9503]::bigint[], 1500, joined_at => '2024-01-01 00:00:00+00',
                  latencies => '{"eu": 45, "us": 10}') AS c \gset
SELECT count(*) AS matched FROM mm.tick('lat_q', '2024-01-01 00:01:01+00');
SELECT m.region, string_agg(mr.players[1]::text, ',' ORDER BY mr.players[1]) AS players
FROM mm.match m JOIN mm.queue q USING (queue_id) JOIN mm.match_roster mr USING (match_id)
WHERE q.name = 'lat_q' GROUP BY m.match_id, m.region;
-- refused: out of range, and in a queue without a latency rule
SELECT mm.enqueue('lat_q', ARRAY[9504]::bigint[], 1500, latencies => '{"eu": 45}', max_latency => 0);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('lat_q', ARRAY[9504]::bigint[], 1500, latencies => '{"eu": 45}', max_latency => 'NaN');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('lat_q', ARRAY[9504]::bigint[], 1500, latencies => '{"eu": 45}', max_latency => 4000000);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.create_queue('lat_none', '{"team_size": 1}');
SELECT mm.enqueue('lat_none', ARRAY[9505]::bigint[], 1500, max_latency => 80);
\echo :LAST_ERROR_SQLSTATE
-- the table holds the range too
UPDATE mm.roster SET max_latency = -1 WHERE roster_id = :b;
\echo :LAST_ERROR_SQLSTATE
SELECT mm.drop_queue('lat_q', keep_history => false), mm.drop_queue('lat_none', keep_history => false);

DROP FUNCTION pairs(jsonb, timestamptz);
DROP TABLE lr;

SELECT count(*) > 0 AS sequences_restored
FROM (SELECT setval(seq, last_value, is_called) FROM saved_sequences_latency) s;
DROP TABLE saved_sequences_latency;
