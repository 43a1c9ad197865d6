-- mm.find_opponent per call: 2000 queries, one statement each (label eu, 2 exclusions, searcher; the offered entry removed, rolled back)
BEGIN;
DO $$
DECLARE
    r record;
    x float8;
BEGIN
    FOR g IN 1..2000 LOOP
        x := (g * 613 % 3000)::float8;
        SELECT * INTO r FROM mm.find_opponent('bench', x, '{eu}', 0, ARRAY[g::bigint, g + 2], g + 4);
    END LOOP;
END
$$;
ROLLBACK;
