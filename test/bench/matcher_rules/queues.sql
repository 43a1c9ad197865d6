-- The queues of the matcher_rules benchmarks: three queues of 100k waiting
-- rosters (5v5), drawn as in the matcher benchmark (party sizes 1-5, half
-- solo; ratings ~ N(1500, 250) clamped to [100, 3000]; deviations 30-150;
-- waits 0-300 s at the benchmark's "at", 2024-01-01 00:05:00; nine
-- professions), each trying :targets targets a tick (filter.rosters: the
-- including setup.sql sets it):
--   single   one game mode, no rules: the 100k single-mode tick, the baseline;
--   rules    the same draw over 20 game modes (attribute "mode", an equal
--            rule) and 6 regions: each roster has a home region at 15-60 ms
--            and the other five at 70-250 ms; a latency rule of 80 ms that
--            expands to 120 ms after 60 s and to 200 ms after 180 s; and
--            roles: each player a tank (1 in 5), damage or support (2 in 5
--            each), a roles rule of 1 tank, 2 damage and 2 support per team
--            that any role may fill after 120 s;
--   latency  drawn as the rules queue (its players' roles too), with its rules
--            without the roles rule.
-- All three rate with Glicko-2 (rating.model), the scale the ratings are
-- drawn on, so that the filter's ranges and padding are in the ratings'
-- units, and keep the GW2 defaults otherwise (potentials_min 20,
-- potentials_max 500).
SELECT setseed(0.42);
SELECT mm.create_queue('single', jsonb_build_object('rating', '{"model": "glicko2"}'::jsonb,
    'filter', jsonb_build_object('rosters', :targets, 'limit', 600000)));
SELECT mm.create_queue('rules', jsonb_build_object('filter', jsonb_build_object('rosters', :targets, 'limit', 600000)) || $${
    "rating": {"model": "glicko2"},
    "attributes": {"mode": {"type": "string", "required": true}},
    "roles": ["tank", "damage", "support"],
    "rules": [{"type": "equal", "attribute": "mode"},
              {"type": "latency", "max": 80, "expand": [{"after": 60, "max": 120}, {"after": 180, "max": 200}]},
              {"type": "roles", "counts": {"tank": 1, "damage": 2, "support": 2},
               "expand": [{"after": 120, "flex": 5}]}]
}$$);
SELECT mm.create_queue('latency', jsonb_build_object('filter', jsonb_build_object('rosters', :targets, 'limit', 600000)) || $${
    "rating": {"model": "glicko2"},
    "attributes": {"mode": {"type": "string", "required": true}},
    "roles": ["tank", "damage", "support"],
    "rules": [{"type": "equal", "attribute": "mode"},
              {"type": "latency", "max": 80, "expand": [{"after": 60, "max": 120}, {"after": 180, "max": 200}]}]
}$$);

CREATE FUNCTION fill_queue(qname text, n int, first_player bigint, modes int) RETURNS void LANGUAGE sql AS $$
    WITH q AS (SELECT queue_id FROM mm.queue WHERE name = qname),
    r AS (
        SELECT i, nextval('mm.roster_id_seq') AS rid,
               CASE WHEN u < 0.50 THEN 1 WHEN u < 0.70 THEN 2 WHEN u < 0.82 THEN 3 WHEN u < 0.90 THEN 4 ELSE 5 END AS size,
               least(3000, greatest(100, 1500 + 250 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()))) AS rating,
               30 + 120 * random() AS deviation, floor(random() * 300) AS waited,
               1 + floor(random() * modes)::int AS mode, floor(random() * 6)::int AS home
        FROM generate_series(1, n) i, LATERAL (SELECT random() AS u, i AS j) u
    ),
    ins AS (
        INSERT INTO mm.roster (roster_id, queue_id, rating, deviation, rank, joined_at, attributes, latencies)
        SELECT r.rid, q.queue_id, rating, deviation, floor(random() * 40),
               '2024-01-01 00:05:00+00'::timestamptz - waited * interval '1 second',
               CASE WHEN modes > 1 THEN jsonb_build_object('mode', 'm' || r.mode) ELSE '{}' END,
               CASE WHEN modes > 1 THEN
                   (SELECT jsonb_object_agg('r' || k, round((CASE WHEN k = r.home THEN 15 + 45 * random()
                                                                  ELSE 70 + 180 * random() END)::numeric, 1))
                    FROM generate_series(0, 5) k)
               ELSE '{}' END
        FROM r, q ORDER BY waited DESC, i
    )
    INSERT INTO mm.queued_player (player_id, roster_id, queue_id, seat, profession)
    SELECT first_player + i * 5 + k, r.rid, q.queue_id, k,
           (ARRAY['guardian','warrior','thief','ranger','engineer','necromancer','mesmer','elementalist','revenant'])[1 + floor(random() * 9)::int]
    FROM r, q, generate_series(1, r.size) k
    ORDER BY r.waited DESC, r.i, k;
$$;
SELECT fill_queue('single', 100000, 0, 1);
SELECT fill_queue('rules', 100000, 100000000, 20);
SELECT fill_queue('latency', 100000, 200000000, 20);
UPDATE mm.queued_player qp
SET role = CASE WHEN u < 0.2 THEN 'tank' WHEN u < 0.6 THEN 'damage' ELSE 'support' END
FROM (SELECT player_id, random() AS u FROM mm.queued_player) x
WHERE x.player_id = qp.player_id AND qp.queue_id IN (SELECT queue_id FROM mm.queue WHERE name IN ('rules', 'latency'));
VACUUM ANALYZE mm.roster;
VACUUM ANALYZE mm.queued_player;
