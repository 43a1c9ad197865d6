-- mm.find_opponent, 1000 queries (label eu, 2 exclusions, searcher; offered entries removed, rolled back) on 1M entries
BEGIN;
SELECT count(f.player_id)
FROM generate_series(1, 1000) g,
     LATERAL mm.find_opponent('bench', (g * 613 % 3000)::float8, '{eu}', 0,
                              ARRAY[g::bigint, g + 2], g + 4) f;
ROLLBACK;
