-- 10,000 live servers of one place with 30 players each (300,000 players),
-- Roblox default configuration (the place has no config row), and 20
-- joining players with 3 preferred players each.
SELECT setseed(0.5);
INSERT INTO mm.servers (server_id, place, capacity, attributes)
SELECT i, 'bench', 50,
       jsonb_build_object('region', (ARRAY['eu', 'us-east', 'us-west', 'asia', 'sa'])[1 + i % 5])
FROM generate_series(1, 10000) i;
INSERT INTO mm.server_players (player_id, server_id, attributes)
SELECT i, 1 + (i - 1) / 30,
       jsonb_build_object('age', 8 + (i * 7919) % 50,
                          'language', (ARRAY['en', 'pt', 'es', 'de', 'ja', 'fr'])[1 + (i * 31) % 6],
                          'voice_chat', (i * 13) % 3 = 0,
                          'device_type', (ARRAY['pc', 'phone', 'tablet', 'console'])[1 + (i * 17) % 4],
                          'play_history', round((random() * 4.6)::numeric, 2))
FROM generate_series(1::bigint, 300000) i;
SELECT mm.refresh_servers('bench');
CREATE TABLE bench_joiners AS
SELECT j AS joiner,
       jsonb_build_object('age', 10 + j * 2, 'language', (ARRAY['en', 'pt', 'es'])[1 + j % 3],
                          'voice_chat', j % 2 = 0, 'device_type', 'pc',
                          'play_history', (j % 5) * 0.9,
                          'latency', jsonb_build_object('eu', 20 + j, 'us-east', 90, 'us-west', 140,
                                                        'asia', 260, 'sa', 180)) AS player,
       ARRAY[(j * 104729) % 300000 + 1, (j * 7331) % 300000 + 1, 999999999]::bigint[] AS preferred
FROM generate_series(1, 20) j;
VACUUM ANALYZE mm.servers;
VACUUM ANALYZE mm.server_players;
VACUUM ANALYZE bench_joiners;
CHECKPOINT;
