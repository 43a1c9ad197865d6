-- the two-sided nearest query per call, read only: the same 2000 queries, one statement each (compare with 03)
DO $$
DECLARE
    r record;
    x float8;
BEGIN
    FOR g IN 1..2000 LOOP
        x := (g * 613 % 3000)::float8;
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
    END LOOP;
END
$$;
