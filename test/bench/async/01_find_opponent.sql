-- mm.find_opponent, 20 queries (label eu, 2 exclusions, searcher) on 1M entries
SELECT count(f.player_id)
FROM generate_series(1, 20) g,
     LATERAL mm.find_opponent('bench', (g * 613 % 3000)::float8, '{eu}', 0,
                              ARRAY[g::bigint, g + 2], g + 4) f;
