-- Per-call latency (p50, p95), measured inside the server, call by call:
-- mm.find_opponent (removing the offered entry, as the pool says), the
-- two-sided nearest query on the same index deleting the entry it finds (the
-- same work) and the same query read only, interleaved query by query so
-- that load on the machine falls on all alike; then the plain
-- ORDER BY abs(mmr - x); and, for scale, the call of a C function that
-- returns one row and reads nothing. Not a timed case itself: run it on the bench
-- database, or let 05_latency.sh do it (see docs/async.md).
CREATE TEMP TABLE lat (what text, ms float8);
DO $$
DECLARE
    t0 timestamptz;
    x float8;
    r record;
    what text;
    cfg jsonb := mm.async_config('{}');
BEGIN
    FOR g IN 1..2000 LOOP
        x := (g * 613 % 3000)::float8;
        -- the three in turn, each first in a third of the queries: the first
        -- to touch the pages of a query's MMR pays for bringing them in
        FOR k IN 0..2 LOOP
            t0 := clock_timestamp();
            CASE (g + k) % 3
            WHEN 0 THEN
                SELECT * INTO r FROM mm.find_opponent('bench', x, '{eu}', 0, ARRAY[g::bigint, g + 2], g + 4);
                what := 'find_opponent';
            WHEN 1 THEN
                SELECT s.p INTO r FROM (
                    (SELECT e.player_id AS p, e.mmr - x AS d FROM mm.async_entries e
                     WHERE e.pool = 'bench' AND e.labels = '{eu}' AND e.mmr >= x
                       AND e.player_id <> ALL (ARRAY[g::bigint, g + 2, g + 4])
                     ORDER BY e.mmr LIMIT 1)
                    UNION ALL
                    (SELECT e.player_id, x - e.mmr FROM mm.async_entries e
                     WHERE e.pool = 'bench' AND e.labels = '{eu}' AND e.mmr < x
                       AND e.player_id <> ALL (ARRAY[g::bigint, g + 2, g + 4])
                     ORDER BY e.mmr DESC LIMIT 1)) s
                ORDER BY s.d LIMIT 1;
                what := 'two-sided index query';
            ELSE
                WITH n AS (
                    SELECT s.id FROM (
                        (SELECT e.entry_id AS id, e.mmr - x AS d FROM mm.async_entries e
                         WHERE e.pool = 'bench' AND e.labels = '{eu}' AND e.mmr >= x
                           AND e.player_id <> ALL (ARRAY[g::bigint, g + 2, g + 4])
                         ORDER BY e.mmr LIMIT 1)
                        UNION ALL
                        (SELECT e.entry_id, x - e.mmr FROM mm.async_entries e
                         WHERE e.pool = 'bench' AND e.labels = '{eu}' AND e.mmr < x
                           AND e.player_id <> ALL (ARRAY[g::bigint, g + 2, g + 4])
                         ORDER BY e.mmr DESC LIMIT 1)) s
                    ORDER BY s.d LIMIT 1)
                DELETE FROM mm.async_entries e USING n WHERE e.entry_id = n.id
                RETURNING e.player_id INTO r;
                what := 'two-sided index query deleting';
            END CASE;
            INSERT INTO lat VALUES (what, extract(epoch FROM clock_timestamp() - t0) * 1000);
        END LOOP;
        -- what any call of a C function returning a row costs here, for scale
        t0 := clock_timestamp();
        SELECT * INTO r FROM mm.async_search(cfg, x, 0);
        INSERT INTO lat VALUES ('a C function call (async_search)', extract(epoch FROM clock_timestamp() - t0) * 1000);
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
-- find_opponent against the two-sided query (above 1: find_opponent is
-- faster): deleting what it finds (the same work), and read only
SELECT round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE what = 'two-sided index query deleting')
       / percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE what = 'find_opponent'))::numeric, 2)
       AS p50_ratio_vs_two_sided_deleting,
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE what = 'two-sided index query')
       / percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE what = 'find_opponent'))::numeric, 2)
       AS p50_ratio_vs_two_sided_read_only,
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE what = 'plain ORDER BY abs')
       / percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE what = 'find_opponent'))::numeric, 1)
       AS p50_ratio_vs_plain
FROM lat;
