-- two-sided nearest on the (pool, labels, mmr) index by hand, no buckets, same 1000 queries (read only; baseline)
SELECT count(p)
FROM generate_series(1, 1000) g,
     LATERAL (SELECT s.p FROM (
                (SELECT e.player_id AS p, e.mmr - (g * 613 % 3000) AS d FROM mm.async_entries e
                 WHERE e.pool = 'bench' AND e.labels = '{eu}' AND e.mmr >= (g * 613 % 3000)
                   AND e.player_id <> ALL (ARRAY[g::bigint, g + 2, g + 4])
                 ORDER BY e.mmr LIMIT 1)
                UNION ALL
                (SELECT e.player_id, (g * 613 % 3000) - e.mmr FROM mm.async_entries e
                 WHERE e.pool = 'bench' AND e.labels = '{eu}' AND e.mmr < (g * 613 % 3000)
                   AND e.player_id <> ALL (ARRAY[g::bigint, g + 2, g + 4])
                 ORDER BY e.mmr DESC LIMIT 1)) s
              ORDER BY s.d LIMIT 1) q;
