-- Roster attributes, latencies and the queue's hard rules (equal,
-- distance, intersect, latency), each with and without its expansion over
-- the target's wait; mm.explain names the rule that keeps a roster
-- waiting, and the tick log counts failed targets per rule.
\set VERBOSITY terse
SET timezone = 'UTC';

-- Config: attributes and rules are rendered complete; mistakes are refused.
SELECT mm.matcher_config('{}') -> 'attributes' AS attributes, mm.matcher_config('{}') -> 'rules' AS rules;
SELECT jsonb_pretty(mm.matcher_config($${
    "attributes": {"mode": {"type": "string", "required": true}, "tier": {"type": "number", "default": 0},
                   "languages": {"type": "string_set", "default": ["en"]}},
    "rules": [{"type": "equal", "attribute": "mode"},
              {"type": "distance", "attribute": "tier", "max": 1, "expand": [{"after": "1 minute", "max": 3}]},
              {"name": "language", "type": "intersect", "attribute": "languages"},
              {"type": "latency", "max": 50, "expand": [{"after": 30, "max": 100}]}]}$$)
       - ARRAY['filter', 'scoring', 'rating', 'prediction']);
SELECT mm.matcher_config('{"rules": [{"type": "nearby"}]}');
SELECT mm.matcher_config('{"rules": [{"type": "equal", "attribute": "mode"}]}');
SELECT mm.matcher_config('{"attributes": {"m": {"type": "string_set"}}, "rules": [{"type": "equal", "attribute": "m"}]}');
SELECT mm.matcher_config('{"attributes": {"m": {"type": "text"}}}');
SELECT mm.matcher_config('{"attributes": {"m": {"type": "number", "default": "x"}}}');
SELECT mm.matcher_config('{"attributes": {"m": {"type": "number", "default": 1, "required": true}}}');
SELECT mm.matcher_config('{"attributes": {"m": {"type": "string"}}, "rules": [{"type": "equal", "attribute": "m", "expand": [{"after": 10, "max": 1}]}]}');
SELECT mm.matcher_config('{"rules": [{"type": "latency"}]}');
SELECT mm.matcher_config('{"rules": [{"type": "latency", "max": 50, "expand": [{"after": 30, "max": 40}]}]}');
SELECT mm.matcher_config('{"rules": [{"type": "latency", "max": 50, "expand": [{"after": 30, "max": 60}, {"after": 20, "max": 70}]}]}');
SELECT mm.matcher_config('{"rules": [{"type": "latency", "max": 50, "expand": [{"max": 60}]}]}');
SELECT mm.matcher_config('{"rules": [{"type": "latency", "max": 50}, {"type": "latency", "max": 60}]}');
SELECT mm.matcher_config('{"attributes": {"t": {"type": "number"}}, "rules": [{"type": "distance", "attribute": "t", "max": 1}, {"type": "distance", "attribute": "t", "max": 2}]}');
SELECT mm.matcher_config('{"rules": [{"type": "latency", "max": 50, "min": 1}]}');
SELECT mm.matcher_config('{"rules": [{"type": "latency", "max": 50, "attribute": "x"}]}');

-- Attributes are checked at enqueue (every form), defaults filled in.
SELECT mm.create_queue('modes', $${"team_size": 1, "filter": {"potentials_min": 0},
    "attributes": {"mode": {"type": "string", "required": true}, "tier": {"type": "number", "default": 0},
                   "languages": {"type": "string_set", "default": ["en"]}},
    "rules": [{"type": "equal", "attribute": "mode"}]}$$);
SELECT mm.enqueue('modes', ARRAY[1], 1500, joined_at => '2024-01-01 12:00+00');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('modes', ARRAY[1], 1500, attributes => '{"mode": 3}');
SELECT mm.enqueue('modes', ARRAY[1], 1500, attributes => '{"mode": "ctf", "tier": "high"}');
SELECT mm.enqueue('modes', ARRAY[1], 1500, attributes => '{"mode": "ctf", "languages": "en"}');
SELECT mm.enqueue('modes', ARRAY[1], 1500, attributes => '{"mode": "ctf", "languages": ["en", 1]}');
SELECT mm.enqueue('modes', ARRAY[1], 1500, attributes => '{"mode": ""}');
SELECT mm.enqueue('modes', ARRAY[1], 1500, attributes => '{"mode": "ctf", "map": "x"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('modes', ARRAY[1], 1500, attributes => '["ctf"]');
SELECT mm.enqueue('modes', ARRAY[1], 1500, attributes => NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('modes', ARRAY[1], 1500, attributes => '{"mode": "ctf"}', latencies => '{"eu": -1}');
SELECT mm.enqueue('modes', ARRAY[1], 1500, attributes => '{"mode": "ctf"}', latencies => '{"eu": "fast"}');
SELECT mm.enqueue((SELECT queue_id FROM mm.queue WHERE name = 'modes'), ARRAY[1], 1500,
                  attributes => '{"mode": "ctf", "tier": "x"}');
SELECT count(*) AS nothing_queued FROM mm.roster r JOIN mm.queue q USING (queue_id) WHERE q.name = 'modes';
SELECT mm.enqueue('modes', ARRAY[1], 1500, joined_at => '2024-01-01 12:00+00', attributes => '{"mode": "ctf"}') AS r1 \gset
SELECT mm.enqueue((SELECT queue_id FROM mm.queue WHERE name = 'modes'), ARRAY[2], 1500,
                  joined_at => '2024-01-01 12:00+00', attributes => '{"mode": "dm", "tier": 2, "languages": ["fr", "de"]}') AS r2 \gset
SELECT roster_id = :r1 AS first, attributes, latencies FROM mm.roster WHERE roster_id IN (:r1, :r2) ORDER BY roster_id;

-- equal: a ctf roster and a dm roster never meet; explain names the rule.
SELECT outcome, detail FROM mm.explain(:r1, '2024-01-01 12:10+00');
SELECT count(*) FROM mm.tick('modes', '2024-01-01 12:10+00');
SELECT targets_failed, failed_reasons FROM mm.tick_log l JOIN mm.queue q USING (queue_id)
WHERE q.name = 'modes' ORDER BY tick_id DESC LIMIT 1;
SELECT mm.enqueue('modes', ARRAY[3], 1500, joined_at => '2024-01-01 12:00+00', attributes => '{"mode": "dm"}') AS r3 \gset
SELECT team, roster_id = :r2 AS is_r2, roster_id = :r3 AS is_r3 FROM mm.tick('modes', '2024-01-01 12:10+00') ORDER BY team DESC;
SELECT mr.attributes FROM mm.match_roster mr WHERE mr.roster_id IN (:r2, :r3) ORDER BY mr.roster_id;

-- distance: tiers 0 and 2 are 2 apart, more than 1 until 60 s of waiting,
-- when the rule expands to 3.
SELECT mm.create_queue('tiers', $${"team_size": 1, "filter": {"potentials_min": 0},
    "attributes": {"tier": {"type": "number", "required": true}},
    "rules": [{"type": "distance", "attribute": "tier", "max": 1, "expand": [{"after": 60, "max": 3}]}]}$$);
SELECT mm.enqueue('tiers', ARRAY[11], 1500, joined_at => '2024-01-01 12:00+00', attributes => '{"tier": 0}') AS t1 \gset
SELECT mm.enqueue('tiers', ARRAY[12], 1500, joined_at => '2024-01-01 12:00:30+00', attributes => '{"tier": 2}') AS t2 \gset
SELECT outcome, detail FROM mm.explain(:t1, '2024-01-01 12:00:50+00');
SELECT count(*) FROM mm.tick('tiers', '2024-01-01 12:00:50+00');
SELECT failed_reasons FROM mm.tick_log l JOIN mm.queue q USING (queue_id) WHERE q.name = 'tiers' ORDER BY tick_id DESC LIMIT 1;
-- the target's wait counts: at 12:01:10 t1 (70 s) relaxes, t2 (40 s) not yet;
-- failed targets go to the back, so t2 is tried first and fails, then t1 matches
SELECT outcome FROM mm.explain(:t2, '2024-01-01 12:01:10+00');
SELECT outcome FROM mm.explain(:t1, '2024-01-01 12:01:10+00');
SELECT count(*) AS rosters_matched FROM mm.tick('tiers', '2024-01-01 12:01:10+00');
-- without the expansion the two never meet
SELECT count(*) AS without_expand
FROM mm.match_rosters('SELECT * FROM (VALUES (1::bigint, ''{1}''::bigint[], 1500::float8, ''{"tier": 0}''::jsonb),
                                             (2, ''{2}'', 1500, ''{"tier": 2}'')) AS r(roster_id, players, rating, attributes)',
                      '{"team_size": 1, "filter": {"potentials_min": 0}, "attributes": {"tier": {"type": "number"}},
                        "rules": [{"type": "distance", "attribute": "tier", "max": 1}]}');
-- the whole match counts: tiers 0 and 2 are each within 1 of the target
-- (tier 1), but 2 apart: the 2v2 takes the target, the two other tier 1
-- rosters and only one of them
SELECT roster_id, match_no
FROM mm.match_rosters('SELECT * FROM (VALUES (1::bigint, ''{1}''::bigint[], 1500::float8, ''{"tier": 1}''::jsonb),
                                             (2, ''{2}'', 1500, ''{"tier": 0}''), (3, ''{3}'', 1500, ''{"tier": 2}''),
                                             (4, ''{4}'', 1500, ''{"tier": 1}''), (5, ''{5}'', 1500, ''{"tier": 1}''))
                             AS r(roster_id, players, rating, attributes)',
                      '{"team_size": 2, "filter": {"potentials_min": 0}, "attributes": {"tier": {"type": "number"}},
                        "rules": [{"type": "distance", "attribute": "tier", "max": 1}]}')
ORDER BY roster_id;

-- intersect: the rosters share at least one language, until 120 s when
-- the rule asks for none.
SELECT mm.create_queue('langs', $${"team_size": 1, "filter": {"potentials_min": 0},
    "attributes": {"languages": {"type": "string_set", "required": true}},
    "rules": [{"type": "intersect", "attribute": "languages", "expand": [{"after": 120, "min": 0}]}]}$$);
SELECT mm.enqueue('langs', ARRAY[21], 1500, joined_at => '2024-01-01 12:00+00', attributes => '{"languages": ["en", "fr"]}') AS l1 \gset
SELECT mm.enqueue('langs', ARRAY[22], 1500, joined_at => '2024-01-01 12:00+00', attributes => '{"languages": ["de"]}') AS l2 \gset
SELECT outcome, detail FROM mm.explain(:l1, '2024-01-01 12:01+00');
SELECT count(*) FROM mm.preview('langs', '2024-01-01 12:01+00');
SELECT mm.enqueue('langs', ARRAY[23], 1500, joined_at => '2024-01-01 12:00+00', attributes => '{"languages": ["fr", "de"]}') AS l3 \gset
SELECT roster_id = :l1 AS is_l1, roster_id = :l3 AS is_l3 FROM mm.preview('langs', '2024-01-01 12:01+00') ORDER BY team DESC;
SELECT count(*) AS after_expansion FROM mm.preview('langs', '2024-01-01 12:03+00');

-- latency: no region suits both rosters at 50 ms (eu: the second has no
-- server; us: the first is at 90 ms) until the rule expands to 100 ms
-- after 30 s; then the match is played in us, and recorded so.
SELECT mm.create_queue('lat', $${"team_size": 1, "filter": {"potentials_min": 0},
    "rules": [{"type": "latency", "max": 50, "expand": [{"after": 30, "max": 100}]}]}$$);
SELECT mm.enqueue('lat', ARRAY[31], 1500, joined_at => '2024-01-01 12:00+00', latencies => '{"eu": 30, "us": 90}') AS a1 \gset
SELECT mm.enqueue('lat', ARRAY[32], 1500, joined_at => '2024-01-01 12:00+00', latencies => '{"us": 45}') AS a2 \gset
SELECT mm.enqueue('lat', ARRAY[33], 1500, attributes => '{}');
SELECT outcome, detail FROM mm.explain(:a1, '2024-01-01 12:00:10+00');
SELECT count(*) FROM mm.tick('lat', '2024-01-01 12:00:10+00');
SELECT failed_reasons FROM mm.tick_log l JOIN mm.queue q USING (queue_id) WHERE q.name = 'lat' ORDER BY tick_id DESC LIMIT 1;
-- mm.match_rosters over the same rosters gives what the tick gives
SELECT match_no, roster_id = :a1 AS is_a1, team, region
FROM mm.match_rosters('SELECT r.roster_id, array_agg(qp.player_id) AS players, r.rating, r.joined_at, r.latencies
                       FROM mm.roster r JOIN mm.queued_player qp USING (roster_id) JOIN mm.queue q ON q.queue_id = r.queue_id
                       WHERE q.name = ''lat'' GROUP BY r.roster_id, r.queue_id ORDER BY min(r.position)',
                      (SELECT config FROM mm.queue WHERE name = 'lat'), '2024-01-01 12:00:40+00')
ORDER BY team DESC;
SELECT roster_id = :a1 AS is_a1, team FROM mm.tick('lat', '2024-01-01 12:00:40+00') ORDER BY team DESC;
SELECT m.region, m.rating_spread FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'lat';
SELECT mr.latencies FROM mm.match_roster mr JOIN mm.queue q USING (queue_id) WHERE q.name = 'lat' ORDER BY mr.roster_id;
-- the lowest worst latency wins among the regions within the limit
SELECT region FROM mm.match_rosters('SELECT * FROM (VALUES (1::bigint, ''{1}''::bigint[], 1500::float8, ''{"eu": 40, "us": 30, "ap": 20}''::jsonb),
                                                    (2, ''{2}'', 1500, ''{"eu": 35, "us": 45, "ap": 50}'')) AS r(roster_id, players, rating, latencies)',
                                    '{"team_size": 1, "filter": {"potentials_min": 0}, "rules": [{"type": "latency", "max": 60}]}')
LIMIT 1;

-- A rosters query is checked against the declarations too.
SELECT * FROM mm.match_rosters('SELECT 1::bigint AS roster_id, ''{1}''::bigint[] AS players, 1500::float8 AS rating, ''{"tier": "x"}''::jsonb AS attributes',
                               '{"attributes": {"tier": {"type": "number"}}}');
SELECT * FROM mm.match_rosters('SELECT 1::bigint AS roster_id, ''{1}''::bigint[] AS players, 1500::float8 AS rating',
                               '{"attributes": {"tier": {"type": "number", "required": true}}}');

-- Without rules the GW2 results are unchanged, and with rules the three
-- searches for potentials (naive scan, band, live list) agree: a queue of
-- 600 rosters over 3 modes with latencies to 3 regions.
CREATE TEMP TABLE rq AS
SELECT i::bigint AS roster_id, ARRAY[i]::bigint[] AS players, 1500 + (i * 7919 % 400)::float8 AS rating,
       (i * 31 % 80)::float8 AS deviation,
       '2024-01-01 12:00+00'::timestamptz - (i * 13 % 300) * interval '1 second' AS joined_at,
       jsonb_build_object('mode', 'm' || (i % 3), 'tier', i % 5) AS attributes,
       jsonb_build_object('eu', 20 + i * 37 % 120, 'us', 20 + i * 53 % 120, 'ap', 20 + i * 71 % 120) AS latencies
FROM generate_series(1, 600) i;
\set rules_cfg '{"team_size": 3, "filter": {"rosters": 600, "potentials_max": 40, "potentials_min": 5}, "attributes": {"mode": {"type": "string"}, "tier": {"type": "number"}}, "rules": [{"type": "equal", "attribute": "mode"}, {"type": "distance", "attribute": "tier", "max": 2}, {"type": "latency", "max": 60, "expand": [{"after": 120, "max": 90}]}]}'
CREATE TEMP TABLE fast AS SELECT * FROM mm._match_rosters('SELECT * FROM rq ORDER BY roster_id', :'rules_cfg', '2024-01-01 12:00+00', false);
CREATE TEMP TABLE naive AS SELECT * FROM mm._match_rosters('SELECT * FROM rq ORDER BY roster_id', :'rules_cfg', '2024-01-01 12:00+00', true);
SELECT (SELECT count(*) FROM (TABLE fast EXCEPT TABLE naive) a) + (SELECT count(*) FROM (TABLE naive EXCEPT TABLE fast) b) AS differences;
SELECT outcome, coalesce(reason, '-') AS reason, count(*) FROM fast GROUP BY 1, 2 ORDER BY 1, 2;
-- every match keeps the rules: one mode, tiers within 2, a region within
-- the limit of its target's wait
SELECT count(*) AS matches,
       count(*) FILTER (WHERE modes = 1 AND tiers <= 2 AND worst <= 90) AS keeping_the_rules
FROM (SELECT m.match_no, count(DISTINCT rq.attributes ->> 'mode') AS modes,
             max((rq.attributes ->> 'tier')::int) - min((rq.attributes ->> 'tier')::int) AS tiers,
             max((rq.latencies ->> m.region)::float8) AS worst
      FROM mm.match_rosters('SELECT * FROM rq ORDER BY roster_id', :'rules_cfg', '2024-01-01 12:00+00') m
      JOIN rq USING (roster_id) GROUP BY m.match_no) x;

-- leave nothing behind for the tests that follow
SELECT count(mm.drop_queue(name, keep_history => false)) AS dropped
FROM mm.queue WHERE name IN ('modes', 'tiers', 'langs', 'lat') AND dropped_at IS NULL;
