-- The cost of the fairest split: the matcher bench's 10k queue of 5v5
-- rosters (party sizes 1-5, half solo; ratings ~ N(1500, 250); deviations
-- 30-150; waits 0-300 s), every roster a target, matched with the GW2
-- wiki's teams (split gw2, the baseline) and with the fairest split of each
-- match's rosters (the default): the C matcher alone (mm.match_rosters)
-- and a whole tick (rolled back, so every run sees the same queue).
SELECT setseed(0.42);
SELECT mm.create_queue('q10k', '{"rating": {"model": "glicko2"}, "filter": {"rosters": 10000, "limit": 600000}}');
SELECT mm.create_queue('q10k_gw2', '{"split": "gw2", "rating": {"model": "glicko2"}, "filter": {"rosters": 10000, "limit": 600000}}');

CREATE FUNCTION fill_queue(qname text, n int, first_player bigint) RETURNS void LANGUAGE sql AS $$
    WITH q AS (SELECT queue_id FROM mm.queue WHERE name = qname),
    r AS (
        SELECT i, nextval('mm.roster_id_seq') AS rid,
               CASE WHEN u < 0.50 THEN 1 WHEN u < 0.70 THEN 2 WHEN u < 0.82 THEN 3 WHEN u < 0.90 THEN 4 ELSE 5 END AS size,
               least(3000, greatest(100, 1500 + 250 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()))) AS rating,
               30 + 120 * random() AS deviation, floor(random() * 300) AS waited
        FROM generate_series(1, n) i, LATERAL (SELECT random() AS u, i AS j) u
    ),
    ins AS (
        INSERT INTO mm.roster (roster_id, queue_id, rating, deviation, rank, joined_at)
        SELECT r.rid, q.queue_id, rating, deviation, floor(random() * 40),
               '2024-01-01 00:05:00+00'::timestamptz - waited * interval '1 second'
        FROM r, q ORDER BY waited DESC, i
    )
    INSERT INTO mm.queued_player (player_id, roster_id, queue_id, seat, profession)
    SELECT first_player + i * 5 + k, r.rid, q.queue_id, k,
           (ARRAY['guardian','warrior','thief','ranger','engineer','necromancer','mesmer','elementalist','revenant'])[1 + floor(random() * 9)::int]
    FROM r, q, generate_series(1, r.size) k
    ORDER BY r.waited DESC, r.i, k;
$$;
-- the same rosters in both queues (setseed again), other players
SELECT fill_queue('q10k', 10000, 0);
SELECT setseed(0.42);
SELECT fill_queue('q10k_gw2', 10000, 100000000);
VACUUM ANALYZE mm.roster;
VACUUM ANALYZE mm.queued_player;
