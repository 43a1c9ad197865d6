-- mm.find_opponent per call, read only: the same 2000 queries on a pool that keeps offered entries (compare with 04)
BEGIN;
UPDATE mm.async_pools SET config = config || '{"player_remove_after_candidate_offer_threshold": null}' WHERE pool = 'bench';
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
