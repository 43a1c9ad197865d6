-- plain ORDER BY abs(mmr - x) LIMIT 1, same 20 queries and filters (baseline)
SELECT count(p)
FROM generate_series(1, 20) g,
     LATERAL (SELECT e.player_id AS p FROM mm.async_entries e
              WHERE e.pool = 'bench' AND e.labels = '{eu}'
                AND e.player_id <> ALL (ARRAY[g::bigint, g + 2, g + 4])
              ORDER BY abs(e.mmr - (g * 613 % 3000)) LIMIT 1) q;
