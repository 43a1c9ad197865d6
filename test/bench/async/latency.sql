-- Per-call latency of mm.find_opponent and of the plain query (p50, p95),
-- measured inside the server, call by call. Not a timed case itself: run it on the bench
-- database, or let 05_latency.sh do it (see README, async section).
CREATE TEMP TABLE lat (what text, ms float8);
DO $$
DECLARE
    t0 timestamptz;
    x float8;
    r record;
BEGIN
    FOR g IN 1..1000 LOOP
        x := (g * 613 % 3000)::float8;
        t0 := clock_timestamp();
        SELECT * INTO r FROM mm.find_opponent('bench', x, '{eu}', 0, ARRAY[g::bigint, g + 2], g + 4);
        INSERT INTO lat VALUES ('find_opponent', extract(epoch FROM clock_timestamp() - t0) * 1000);
    END LOOP;
    FOR g IN 1..10 LOOP
        x := (g * 613 % 3000)::float8;
        t0 := clock_timestamp();
        SELECT e.player_id INTO r FROM mm.async_entries e
        WHERE e.pool = 'bench' AND e.labels = '{eu}'
          AND e.player_id <> ALL (ARRAY[g::bigint, g + 2, g + 4])
        ORDER BY abs(e.mmr - x) LIMIT 1;
        INSERT INTO lat VALUES ('plain ORDER BY abs', extract(epoch FROM clock_timestamp() - t0) * 1000);
    END LOOP;
END
$$;
SELECT what, count(*) AS calls,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 3) AS p50_ms,
       round(percentile_cont(0.95) WITHIN GROUP (ORDER BY ms)::numeric, 3) AS p95_ms
FROM lat GROUP BY what ORDER BY what;
SELECT round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE what <> 'find_opponent')
       / percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE what = 'find_opponent'))::numeric, 1)
       AS p50_ratio
FROM lat;
