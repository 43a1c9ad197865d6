-- mm.find_opponent, same 1000 queries, read only (a pool that keeps offered entries, on the same entries)
BEGIN;
UPDATE mm.async_pools SET config = config || '{"player_remove_after_candidate_offer_threshold": null}' WHERE pool = 'bench';
SELECT count(f.player_id)
FROM generate_series(1, 1000) g,
     LATERAL mm.find_opponent('bench', (g * 613 % 3000)::float8, '{eu}', 0,
                              ARRAY[g::bigint, g + 2], g + 4) f;
ROLLBACK;
