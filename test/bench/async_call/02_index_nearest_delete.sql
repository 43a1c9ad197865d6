-- the two-sided nearest query on the (pool, labels, mmr) index deleting the entry it finds, per call: the same 2000 queries, one statement each (rolled back; baseline)
BEGIN;
DO $$
DECLARE
    r record;
    x float8;
BEGIN
    FOR g IN 1..2000 LOOP
        x := (g * 613 % 3000)::float8;
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
        RETURNING e.player_id, e.mmr, e.model INTO r;
    END LOOP;
END
$$;
ROLLBACK;
