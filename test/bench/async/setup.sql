-- A pool of 1M offline opponents: 30 MMR buckets over [0, 3000), two hard
-- labels (eu, us), offered entries removed (the default threshold 0).
SELECT mm.create_pool('bench', '{"mmr_bucket_count": 30, "bucket_initial_size": 1000000}');
INSERT INTO mm.async_entries (pool, player_id, mmr, labels)
SELECT 'bench', i, (i::bigint * 7919 % 300000) / 100.0,
       CASE WHEN i % 2 = 0 THEN '{eu}'::text[] ELSE '{us}'::text[] END
FROM generate_series(1, 1000000) i;
VACUUM ANALYZE mm.async_entries;
