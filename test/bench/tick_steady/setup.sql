-- Queues in a steady state, as a studio's load runs them: 5v5, parties of
-- 1-5 (half solo), the default filter (50 targets per tick, potentials_max
-- 500, a 50 ms budget). Dense: ratings ~ N(1500, 250) clamped to [100,
-- 3000], deviations 30-150, waits 0-300 s (each tick makes about 45
-- matches). Sparse: ratings spread uniformly over [0, 1e8), deviation 30,
-- waits under 30 s (no padding yet): no range overlaps another, every
-- target fails. Each of 2k, 20k and 100k waiting rosters; a case ticks a
-- queue 20 times, each tick its own transaction, and refills it to its
-- size after each tick (untimed by the tick log), so that every tick sees
-- the same queue length.
CREATE SEQUENCE bench_player_seq;

CREATE FUNCTION bench_fill(qname text, n int, kind text) RETURNS void LANGUAGE sql AS $$
    WITH q AS (SELECT queue_id FROM mm.queue WHERE name = qname),
    r AS (
        SELECT i, nextval('mm.roster_id_seq') AS rid,
               CASE WHEN u < 0.50 THEN 1 WHEN u < 0.70 THEN 2 WHEN u < 0.82 THEN 3 WHEN u < 0.90 THEN 4 ELSE 5 END AS size,
               CASE WHEN kind = 'dense'
                    THEN least(3000, greatest(100, 1500 + 250 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random())))
                    ELSE floor(random() * 1e8) END AS rating,
               CASE WHEN kind = 'dense' THEN 30 + 120 * random() ELSE 30 END AS deviation,
               CASE WHEN kind = 'dense' THEN floor(random() * 300) ELSE floor(random() * 20) END AS waited
        FROM generate_series(1, n) i, LATERAL (SELECT random() AS u, i AS j) u
    ),
    ins AS (
        INSERT INTO mm.roster (roster_id, queue_id, rating, deviation, rank, joined_at)
        SELECT r.rid, q.queue_id, rating, deviation, floor(random() * 40),
               now() - waited * interval '1 second'
        FROM r, q ORDER BY waited DESC, i
    )
    INSERT INTO mm.queued_player (player_id, roster_id, queue_id, seat, profession)
    SELECT nextval('bench_player_seq'), r.rid, q.queue_id, k,
           (ARRAY['guardian','warrior','thief','ranger','engineer','necromancer','mesmer','elementalist','revenant'])[1 + floor(random() * 9)::int]
    FROM r, q, generate_series(1, r.size) k
    ORDER BY r.waited DESC, r.i, k;
$$;

-- tick a queue "ticks" times, refilling it to n rosters after each tick
CREATE PROCEDURE bench_ticks(qname text, n int, kind text, ticks int) LANGUAGE plpgsql AS $$
DECLARE
    waiting int;
BEGIN
    FOR k IN 1 .. ticks LOOP
        PERFORM count(*) FROM mm.tick(qname, clock_timestamp());
        COMMIT;
        SELECT count(*) INTO waiting FROM mm.roster r JOIN mm.queue q USING (queue_id)
        WHERE q.name = qname AND r.match_id IS NULL;
        IF waiting < n THEN
            PERFORM bench_fill(qname, n - waiting, kind);
        END IF;
        COMMIT;
    END LOOP;
END $$;

-- the figures of the ticks (report.sh)
CREATE VIEW bench_report AS
SELECT q.name AS queue, count(*) AS ticks,
       round(avg(l.duration_ms)::numeric, 1) AS mean_ms,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY l.duration_ms)::numeric, 1) AS median_ms,
       round(avg(l.matches_made), 1) AS matches_per_tick,
       round((sum(l.mean_rating_spread * l.matches_made) / nullif(sum(l.matches_made), 0))::numeric, 1) AS mean_spread,
       round(avg(l.targets_failed), 1) AS failed_per_tick,
       round(avg(l.rosters_seen)) AS rosters_seen
FROM mm.tick_log l JOIN mm.queue q USING (queue_id)
GROUP BY q.name;

SELECT setseed(0.42);
SELECT mm.create_queue(k || '_' || n, '{}'), bench_fill(k || '_' || n, s, k)
FROM (VALUES ('2k', 2000), ('20k', 20000), ('100k', 100000)) AS sizes(n, s),
     (VALUES ('dense'), ('sparse')) AS kinds(k);
VACUUM ANALYZE mm.roster;
VACUUM ANALYZE mm.queued_player;
