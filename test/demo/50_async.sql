-- Async opponents: find who to attack from a pool of offline defences
\set QUIET on
SELECT mm.create_pool('arena', '{"mmr_bucket_count": 10, "enable_fake_opponents": true}');
SELECT count(mm.put_entry('arena', id, mmr, '{eu}', jsonb_build_object('defence', name)))
FROM (VALUES (1, 'Ada', 1020), (2, 'Bo', 1150), (3, 'Cy', 1240),
             (4, 'Di', 1900), (5, 'Ed', 1210)) AS p(id, name, mmr);
SELECT mm.put_entry('arena', 6, 1195, '{us}', '{"defence": "Fay"}');
\set QUIET off

-- Ten MMR buckets of 300 over [0, 3000). A query searches its own bucket and
-- the adjacent one on its side, alternating between the two.
SELECT bucket, lower_mmr, upper_mmr, fill FROM mm.pool_buckets('arena') WHERE labels = '{eu}';

-- Player 99 (MMR 1190, region eu) attacks: the nearest eu defence wins,
-- even across the bucket edge at 1200 (Fay, at 1195, is in region us).
-- Quality is 300 - |delta MMR|.
SELECT * FROM mm.find_opponent('arena', 1190, '{eu}', searcher => 99);

-- Ed was offered, so he left the pool. Excluding Bo (the game could not
-- reach him) gives the next best.
SELECT * FROM mm.find_opponent('arena', 1190, '{eu}', exclude => '{2}', searcher => 99);

-- Far up the ladder (MMR 2500) buckets 8 and 7 are empty: with nobody
-- eligible the pool hands out a fake opponent ...
SELECT * FROM mm.find_opponent('arena', 2500, '{eu}');
-- ... and on the game's retry the search widens by a bucket on each side.
SELECT * FROM mm.find_opponent('arena', 2500, '{eu}', retries => 1);

-- The game's own quality (Metaplay's documentation's CheckPossibleMatchForQuery): rank the
-- candidates in SQL, here preferring Ada's defence, then claim the pick.
SELECT player_id, mmr, quality,
       quality + CASE WHEN model ->> 'defence' = 'Ada' THEN 200 ELSE 0 END AS game_quality
FROM mm.find_candidates('arena', 1190, '{eu}')
ORDER BY game_quality DESC;
SELECT mm.offer_entry(entry_id) AS claimed
FROM mm.find_candidates('arena', 1190, '{eu}') WHERE model ->> 'defence' = 'Ada';
