-- Two queues of 10k waiting rosters (5v5) with the same rosters: party
-- sizes 1-5 (half solo), ratings ~ N(1500, 250) clamped to [100, 3000],
-- deviations 30-150, waits 0-300 s at the benchmark's "at"
-- (2024-01-01 00:05:00), nine professions. Queue "bf" also has 20 running
-- 5v5 matches of solos rated 1500, each with an open backfill request for
-- one seat of red: a tick of "bf" fills the 20 requests, then matches the
-- rest; a tick of "plain" only matches.
SELECT mm.create_queue('plain', '{"filter": {"rosters": 10000, "limit": 600000}}');
SELECT mm.create_queue('bf', '{"filter": {"rosters": 10000, "limit": 600000}}');

-- the 20 matches of "bf", made by a tick, then their requests
SELECT count(mm.enqueue('bf', ARRAY[p::bigint], 1500, 50, joined_at => '2024-01-01 00:00:00+00'))
FROM generate_series(900000001, 900000200) p;
SELECT count(DISTINCT match_id) AS matches FROM mm.tick('bf', '2024-01-01 00:04:30+00');
SELECT count(mm.request_backfill(m.match_id, 'red', 1)) AS requests
FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'bf';

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
    FROM r, q, generate_series(1, r.size) k;
$$;
SELECT setseed(0.42);
SELECT fill_queue('plain', 10000, 0);
SELECT setseed(0.42);
SELECT fill_queue('bf', 10000, 100000000);
VACUUM ANALYZE mm.roster;
VACUUM ANALYZE mm.queued_player;
VACUUM ANALYZE mm.backfill;
VACUUM ANALYZE mm.ended_roster;
