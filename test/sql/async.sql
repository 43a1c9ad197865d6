-- Async opponents (Metaplay's async matchmaker documentation): pool config, buckets, find_opponent, candidates.
\set VERBOSITY default

-- Config: every key with its default; unknown keys and bad values refused.
SELECT jsonb_pretty(mm.async_config('{}'));
SELECT mm.async_config('{"mmr_bucket_count": 4, "min_mmr": -100, "player_cache_size": null}')
       ->> 'mmr_bucket_count' AS count;
SELECT mm.async_config('{"bucket_count": 4}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.async_config('{"mmr_bucket_count": 0}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.async_config('{"mmr_bucket_count": 2.5}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.async_config('{"enable_fake_opponents": "yes"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.async_config('{"player_remove_after_candidate_offer_threshold": 1.5}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.async_config('{"min_mmr": 10, "max_mmr": 10}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.async_config('{"bucket_initial_size": 5}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.async_config('{"player_cache_size": 5}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.async_config('[1]');
\echo :LAST_ERROR_SQLSTATE

-- Bucket assignment at the MMR edges: 10 buckets over [0, 3000).
SELECT x AS mmr, mm.async_bucket('{}', x) AS bucket
FROM unnest(ARRAY[-1e9, -0.001, 0, 299.9999, 300, 300.0001, 1500, 2699.99, 2700, 2999.99, 3000, 1e9]::float8[]) x;
-- Every MMR lies inside the bounds of its bucket, also on the bounds of
-- ranges whose division rounds (0.1 .. 0.7 in 7 buckets).
WITH cfg(c) AS (VALUES ('{"min_mmr": 0.1, "max_mmr": 0.7, "mmr_bucket_count": 7}'::jsonb)),
     xs(x) AS (SELECT 0.1 + 0.6 * i / 7 FROM generate_series(-2, 9) i
               UNION ALL SELECT 0.1 + i / 10000.0 FROM generate_series(-100, 7100) i)
SELECT count(*) AS checked,
       bool_and(x >= coalesce(r.lower_mmr, '-Infinity') AND x < coalesce(r.upper_mmr, 'Infinity')) AS inside_bounds,
       count(DISTINCT mm.async_bucket(c, x)) AS buckets_used
FROM cfg, xs, LATERAL mm.async_bucket_bounds(c, mm.async_bucket(c, x), mm.async_bucket(c, x)) r;
SELECT * FROM mm.async_bucket_bounds('{}', 0, 0);
SELECT * FROM mm.async_bucket_bounds('{}', 3, 5);
SELECT * FROM mm.async_bucket_bounds('{}', 9, 10);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.async_bucket('{}', 'NaN');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.async_bucket('{}', '-Infinity');
\echo :LAST_ERROR_SQLSTATE

-- Search order: own bucket, the adjacent one on the query's side, then
-- alternately outwards; every retry widens by buckets_per_retry per side.
SELECT x AS mmr, s.*
FROM unnest(ARRAY[1010, 1190, 0, 2999]::float8[]) x, LATERAL mm.async_search('{}', x, 0) s;
SELECT r AS retries, s.buckets, s.lower_mmr, s.upper_mmr
FROM generate_series(0, 5) r, LATERAL mm.async_search('{}', 1190, r) s;
SELECT s.buckets FROM mm.async_search('{"buckets_per_retry": 2}', 1190, 1) s;
SELECT s.buckets FROM mm.async_search('{"buckets_per_retry": 0}', 1190, 3) s;
SELECT s.buckets FROM mm.async_search('{"mmr_bucket_count": 1}', 1190, 3) s;
SELECT * FROM mm.async_search('{}', 1190, -1);
\echo :LAST_ERROR_SQLSTATE

-- Hard labels are a set.
SELECT mm.async_labels('{ranked,eu,ranked}'), mm.async_labels('{}');
SELECT mm.async_labels('{eu,NULL}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.async_labels('{eu,""}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.async_labels('{{eu},{us}}');
\echo :LAST_ERROR_SQLSTATE

-- Pools
SELECT mm.create_pool('arena', '{"bucket_initial_size": 3, "bucket_min_size": 1}');
SELECT mm.create_pool('arena');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.create_pool('');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.create_pool('bad', '{"mmr_buckets": 3}');
\echo :LAST_ERROR_SQLSTATE
SELECT config ->> 'bucket_initial_size' AS size, config ->> 'mmr_bucket_count' AS buckets
FROM mm.async_pools WHERE pool = 'arena';

-- Replacement in a full bucket: capacity 3, the fourth entry replaces the oldest.
SELECT mm.put_entry('arena', 100 + i, 900 + 50 * i, '{eu}') IS NOT NULL AS stored
FROM generate_series(1, 4) i;
SELECT player_id, mmr FROM mm.async_entries WHERE pool = 'arena' ORDER BY mmr;
SELECT labels, bucket, lower_mmr, upper_mmr, fill, capacity, inserts FROM mm.pool_buckets('arena');
-- An update of a player already in the bucket replaces nothing.
SELECT mm.put_entry('arena', 103, 1060, '{eu}', '{"hero": "mage"}') AS entry_id;
SELECT player_id, mmr, model FROM mm.async_entries WHERE pool = 'arena' ORDER BY mmr;

-- find_opponent: the nearest MMR in the searched buckets, with its quality
-- (max_difference 300 - |delta|).
SELECT mm.alter_pool('arena', '{"player_remove_after_candidate_offer_threshold": null}')
       ->> 'player_remove_after_candidate_offer_threshold' AS remove_threshold;
SELECT * FROM mm.find_opponent('arena', 1040, '{eu}');
-- never the searcher himself, nor an excluded player
SELECT * FROM mm.find_opponent('arena', 1040, '{eu}', searcher => 103);
SELECT * FROM mm.find_opponent('arena', 1040, '{eu}', exclude => '{103,104}');
SELECT * FROM mm.find_opponent('arena', 1040, '{eu}', exclude => '{102,104}', searcher => 103);
-- hard labels must match exactly (as a set)
SELECT result, player_id FROM mm.find_opponent('arena', 1040, '{us}');
SELECT result, player_id FROM mm.find_opponent('arena', 1040);
SELECT result, player_id FROM mm.find_opponent('arena', 1040, '{eu,eu}');
SELECT mm.put_entry('arena', 200, 1041, '{ranked,eu}') IS NOT NULL AS stored;
SELECT result, player_id FROM mm.find_opponent('arena', 1040, '{eu,ranked}');
SELECT result, player_id FROM mm.find_opponent('arena', 1040, '{eu}');

-- Alternating between two adjacent buckets: bucket 3 is [900, 1200),
-- bucket 4 [1200, 1500). A query in the upper half of bucket 3 sees bucket 4.
SELECT mm.create_pool('edge', '{"player_remove_after_candidate_offer_threshold": null}');
SELECT mm.put_entry('edge', 1, 1000), mm.put_entry('edge', 2, 1230), mm.put_entry('edge', 3, 1500);
SELECT result, player_id, mmr, quality FROM mm.find_opponent('edge', 1190);
-- the lower half of bucket 3 searches buckets 3 and 2: 1230 is out of reach
SELECT result, player_id, mmr FROM mm.find_opponent('edge', 1010, exclude => '{1}');
-- the middle of a bucket counts as its upper half
SELECT result, player_id, mmr FROM mm.find_opponent('edge', 1050, exclude => '{1}');
-- retries widen the search: bucket 4 is reached with one retry, bucket 5 with two
SELECT r AS retries, f.result, f.player_id
FROM generate_series(0, 2) r,
     LATERAL mm.find_opponent('edge', 1010 + 0 * r, '{}', r, '{1,2}') f;
-- ... and the nearest wins across the edge of bucket 3 and 4 even when the
-- own bucket has an entry
SELECT result, player_id FROM mm.find_opponent('edge', 1160, exclude => '{}');

-- Remove after offer: threshold 0 removes every offered entry.
SELECT mm.alter_pool('edge', '{"player_remove_after_candidate_offer_threshold": 0}') IS NOT NULL AS altered;
SELECT result, player_id FROM mm.find_opponent('edge', 1190);
SELECT result, player_id FROM mm.find_opponent('edge', 1190);
SELECT result, player_id FROM mm.find_opponent('edge', 1190);
SELECT player_id FROM mm.async_entries WHERE pool = 'edge' ORDER BY player_id;
-- threshold 0.5 of capacity 4: entries are removed only while the bucket
-- holds at least 2
SELECT mm.create_pool('half', '{"bucket_initial_size": 4, "bucket_min_size": 1,
                                "player_remove_after_candidate_offer_threshold": 0.5}');
SELECT mm.put_entry('half', i, 1000 + i) IS NOT NULL FROM generate_series(1, 3) i;
SELECT player_id FROM mm.find_opponent('half', 1000);
SELECT count(*) AS left_after FROM mm.async_entries WHERE pool = 'half';
SELECT player_id FROM mm.find_opponent('half', 1000);
SELECT count(*) AS left_after FROM mm.async_entries WHERE pool = 'half';
SELECT player_id FROM mm.find_opponent('half', 1000);
SELECT count(*) AS left_after FROM mm.async_entries WHERE pool = 'half';
SELECT player_id FROM mm.find_opponent('half', 1000);

-- Fake opponents when nobody is found.
SELECT mm.alter_pool('edge', '{"enable_fake_opponents": true}') IS NOT NULL AS altered;
SELECT * FROM mm.find_opponent('edge', 1190);
SELECT * FROM mm.find_opponent('edge', 1190, '{nobody}');

-- min_quality: a candidate too far away is not offered.
SELECT mm.create_pool('strict', '{"min_quality": 250, "player_remove_after_candidate_offer_threshold": null}');
SELECT mm.put_entry('strict', 1, 1100);
SELECT result, player_id, quality FROM mm.find_opponent('strict', 1060);
SELECT result, player_id, quality FROM mm.find_opponent('strict', 1040);
-- return_model_in_query_response false leaves the model out
SELECT mm.put_entry('strict', 2, 1050, '{}', '{"deck": 7}') IS NOT NULL AS stored;
SELECT result, player_id, model FROM mm.find_opponent('strict', 1040);
SELECT mm.alter_pool('strict', '{"return_model_in_query_response": false}') IS NOT NULL AS altered;
SELECT result, player_id, model FROM mm.find_opponent('strict', 1040);

-- Multiple entries per player: at most one per bucket; off, an entry moves.
SELECT mm.create_pool('multi', '{"allow_multiple_entries_per_player": true}');
SELECT mm.put_entry('multi', 7, 1000, '{}', '{"team": "a"}') = mm.put_entry('multi', 7, 1100, '{}', '{"team": "b"}') AS same_bucket_same_entry;
SELECT mm.put_entry('multi', 7, 2000, '{}', '{"team": "c"}') IS NOT NULL AS stored;
SELECT mm.put_entry('multi', 7, 1000, '{pve}', '{"team": "d"}') IS NOT NULL AS stored;
SELECT player_id, mmr, labels, model FROM mm.async_entries WHERE pool = 'multi' ORDER BY mmr, labels;
SELECT mm.create_pool('single');
SELECT mm.put_entry('single', 7, 1000) IS NOT NULL, mm.put_entry('single', 7, 2000) IS NOT NULL;
SELECT player_id, mmr FROM mm.async_entries WHERE pool = 'single';
SELECT labels, bucket, fill FROM mm.pool_buckets('single');
SELECT mm.remove_entries('multi', 7) AS removed, mm.remove_entries('multi', 7) AS again;

-- Ignore-update-insert threshold: a new player is not added to a bucket
-- that is full to the threshold; a player already there is still updated.
SELECT mm.create_pool('busy', '{"bucket_initial_size": 2, "bucket_min_size": 1,
                                "player_ignore_update_insert_threshold": 1}');
SELECT mm.put_entry('busy', 1, 1000) IS NOT NULL, mm.put_entry('busy', 2, 1001) IS NOT NULL;
SELECT mm.put_entry('busy', 3, 1002) AS ignored;
SELECT mm.put_entry('busy', 1, 1003) IS NOT NULL AS updated;
SELECT player_id, mmr FROM mm.async_entries WHERE pool = 'busy' ORDER BY player_id;

-- Candidates for the game's own quality (Metaplay's documentation's CheckPossibleMatchForQuery):
-- the caller ranks them with its own SQL and claims one with offer_entry.
SELECT mm.create_pool('guilds');
SELECT mm.put_entry('guilds', i, 1000 + 10 * i, '{}', jsonb_build_object('guild', i % 3))
       IS NOT NULL FROM generate_series(1, 6) i;
SELECT player_id, mmr, bucket, quality, model FROM mm.find_candidates('guilds', 1035, max_candidates => 4);
SELECT player_id, quality + CASE WHEN model ->> 'guild' = '2' THEN 100 ELSE 0 END AS game_quality
FROM mm.find_candidates('guilds', 1035)
WHERE model ->> 'guild' <> '0'
ORDER BY game_quality DESC, player_id LIMIT 1;
SELECT mm.offer_entry(entry_id) AS offered FROM mm.async_entries WHERE pool = 'guilds' AND player_id = 5;
SELECT count(*) AS left FROM mm.async_entries WHERE pool = 'guilds' AND player_id = 5;
SELECT mm.offer_entry(-1) AS offered;
SELECT count(*) FROM mm.find_candidates('guilds', 1035, max_candidates => 0);
\echo :LAST_ERROR_SQLSTATE

-- Dynamic bucket sizing: capacity = max(bucket_min_size, player_cache_size * share of inserts).
SELECT mm.create_pool('dyn', '{"bucket_initial_size": 50, "bucket_min_size": 2, "player_cache_size": 20}');
SELECT count(mm.put_entry('dyn', i, CASE WHEN i <= 30 THEN 100 ELSE 1000 END + i)) FROM generate_series(1, 40) i;
SELECT * FROM mm.rebalance_pool('dyn');
SELECT labels, bucket, fill, capacity, inserts FROM mm.pool_buckets('dyn');
-- the newest entries stayed
SELECT min(player_id) FROM mm.async_entries WHERE pool = 'dyn' AND mmr < 300;
SELECT * FROM mm.rebalance_pool('arena');
\echo :LAST_ERROR_SQLSTATE

-- A new bucket layout re-buckets the entries.
SELECT mm.alter_pool('dyn', '{"mmr_bucket_count": 2}') ->> 'mmr_bucket_count' AS buckets;
SELECT labels, bucket, fill, capacity FROM mm.pool_buckets('dyn');

-- Fill is counted from the entries, so it follows direct changes too.
DELETE FROM mm.async_entries WHERE pool = 'dyn' AND mmr < 300;
UPDATE mm.async_entries SET mmr = mmr + 2000 WHERE pool = 'dyn' AND player_id = 40;
SELECT labels, bucket, fill FROM mm.pool_buckets('dyn');
SELECT b.bucket, b.fill = (SELECT count(*) FROM mm.async_entries e
                           WHERE e.pool = 'dyn' AND mm.async_bucket(p.config, e.mmr) = b.bucket) AS counted
FROM mm.pool_buckets('dyn') b, mm.async_pools p WHERE p.pool = 'dyn';

-- Error paths.
SELECT * FROM mm.find_opponent('nope', 1000);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.find_opponent(NULL, 1000);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.find_opponent('arena', 'NaN');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.find_opponent('arena', 'Infinity');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.find_opponent('arena', NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.find_opponent('arena', 1000, '{eu}', -1);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.find_opponent('arena', 1000, '{eu}', 0, '{1,NULL}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.find_opponent('arena', 1000, '{eu}', 0, NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.find_opponent('arena', 1000, '{eu,NULL}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.put_entry('arena', NULL, 1000);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.put_entry('arena', 1, '-Infinity');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.put_entry('nope', 1, 1000);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.alter_pool('arena', '{"max_mmr": -5}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.alter_pool('arena', '{"surprise": 1}');
\echo :LAST_ERROR_SQLSTATE

-- Fill is counted from the entries when a decision needs it, so nothing
-- leaves it stale: not TRUNCATE, not rows written with triggers off. A full
-- bucket (capacity 1) ignores a new player; after TRUNCATE it takes him.
SELECT mm.create_pool('tiny', '{"bucket_initial_size": 1, "bucket_min_size": 1, "player_ignore_update_insert_threshold": 1}');
SELECT mm.put_entry('tiny', 1, 100) IS NOT NULL AS stored,
       mm.put_entry('tiny', 2, 110) IS NOT NULL AS second_stored;
TRUNCATE mm.async_entries;
SELECT mm.put_entry('tiny', 2, 110) IS NOT NULL AS stored_after_truncate;
SET session_replication_role = replica;
INSERT INTO mm.async_entries (pool, player_id, mmr) VALUES ('tiny', 3, 120);
RESET session_replication_role;
SELECT labels, bucket, fill, capacity FROM mm.pool_buckets('tiny');
SELECT mm.put_entry('tiny', 4, 130) IS NOT NULL AS stored_when_full;

-- A put counts its bucket only when the bound (the last count plus the
-- entry ids handed out since) reaches a threshold: capacity 3, the first
-- put counts an empty bucket, the next two are below the bound and count
-- nothing, the fourth counts and replaces the oldest.
SELECT mm.create_pool('bnd', '{"bucket_initial_size": 3, "bucket_min_size": 1}');
TRUNCATE mm.async_entries RESTART IDENTITY;
SELECT mm.put_entry('bnd', p, 100 + p) FROM generate_series(1, 3) p;
SELECT bucket, fill, entry_seq FROM mm.async_fill_bounds WHERE pool = 'bnd';
SELECT mm._async_fill_bound('bnd', '{}', 0, '-Infinity', 300) AS bound;
-- a row of another bucket layout (another MMR range) serves nobody
SELECT mm._async_fill_bound('bnd', '{}', 0, '-Infinity', 250) AS other_layout;
SELECT mm.put_entry('bnd', 4, 104);
SELECT bucket, fill FROM mm.pool_buckets('bnd');
SELECT array_agg(player_id ORDER BY player_id) AS players FROM mm.async_entries WHERE pool = 'bnd';
-- A bound row that stays too high (entries removed) only costs a count.
DELETE FROM mm.async_entries WHERE pool = 'bnd';
SELECT mm.put_entry('bnd', p, 100 + p) IS NOT NULL AS stored FROM generate_series(5, 7) p;
SELECT bucket, fill FROM mm.pool_buckets('bnd');
-- TRUNCATE ... RESTART IDENTITY resets the sequence: the bound of an empty
-- bucket counted at id 4 must not let three entries added with ids 1..3
-- (and three more elsewhere, so that the sequence is past 4 again) pass as
-- at most two.
TRUNCATE mm.async_entries RESTART IDENTITY;
INSERT INTO mm.async_entries (pool, player_id, mmr) SELECT 'bnd', p, 2000 + p FROM generate_series(1, 4) p;
SELECT mm.put_entry('bnd', 10, 110);
SELECT fill, entry_seq FROM mm.async_fill_bounds WHERE pool = 'bnd' AND bucket = 0;
TRUNCATE mm.async_entries RESTART IDENTITY;
INSERT INTO mm.async_entries (pool, player_id, mmr)
SELECT 'bnd', p, CASE WHEN p <= 3 THEN 100 + p ELSE 2000 + p END FROM generate_series(1, 6) p;
SELECT mm._async_fill_bound('bnd', '{}', 0, '-Infinity', 300) AS bound_after_restart;
SELECT mm.put_entry('bnd', 11, 111) IS NOT NULL AS stored;
SELECT bucket, fill, capacity FROM mm.pool_buckets('bnd') WHERE bucket = 0;
-- a new bucket layout forgets the bounds
SELECT mm.alter_pool('bnd', '{"mmr_bucket_count": 5}') ->> 'mmr_bucket_count' AS buckets;
SELECT count(*) AS bounds FROM mm.async_fill_bounds WHERE pool = 'bnd';
SELECT mm.drop_pool('bnd');

-- find_opponent keeps a pool's config between its calls in one statement
-- and reads it again when it changed: each call sees the max_difference the
-- previous row set; a pool dropped meanwhile is an error.
SELECT mm.create_pool('stale', '{"player_remove_after_candidate_offer_threshold": null}');
SELECT mm.put_entry('stale', 1, 1000) IS NOT NULL AS stored;
SELECT g, (SELECT f.quality FROM mm.find_opponent('stale', 1010 + 0 * g) f) AS quality,
       mm.alter_pool('stale', jsonb_build_object('max_difference', 100 * g)) ->> 'max_difference' AS set_to
FROM generate_series(1, 3) g;
SELECT g, (SELECT f.result FROM mm.find_opponent('stale', 1010 + 0 * g) f) AS result,
       CASE WHEN g = 1 THEN mm.drop_pool('stale') END AS dropped
FROM generate_series(1, 2) g;
\echo :LAST_ERROR_SQLSTATE
SELECT mm.drop_pool('stale');

-- find_opponent runs with the owner's rights (see mm.privileges): a role
-- without EXECUTE on it is refused, whatever it may read; with the owner's
-- rights its own SELECT and row level security checks see the owner.
CREATE ROLE regress_mm_async;
GRANT USAGE ON SCHEMA mm TO regress_mm_async;
SET ROLE regress_mm_async;
SELECT * FROM mm.find_opponent('arena', 1000);
\echo :LAST_ERROR_SQLSTATE
RESET ROLE;
GRANT SELECT ON mm.async_pools, mm.async_entries TO regress_mm_async;
ALTER TABLE mm.async_entries ENABLE ROW LEVEL SECURITY;
SET ROLE regress_mm_async;
SELECT * FROM mm.find_opponent('arena', 1000);
\echo :LAST_ERROR_SQLSTATE
RESET ROLE;
ALTER TABLE mm.async_entries DISABLE ROW LEVEL SECURITY;
REVOKE ALL ON mm.async_pools, mm.async_entries FROM regress_mm_async;
REVOKE USAGE ON SCHEMA mm FROM regress_mm_async;
DROP ROLE regress_mm_async;

-- find_opponent scans each side of the query in windows that widen outwards
-- from it (sized from the last distance found): the nearest is found whether
-- the pool is dense or sparse around the query, alternately, with the
-- nearest entries excluded, and below only as far as the entry found above.
SELECT mm.create_pool('windows', '{"mmr_bucket_count": 1, "player_remove_after_candidate_offer_threshold": null}');
INSERT INTO mm.async_entries (pool, player_id, mmr)
SELECT 'windows', i, i / 10.0 FROM generate_series(1, 400) i
UNION ALL VALUES ('windows', 501, 5000), ('windows', 502, -3000), ('windows', 503, 20.0),
                 ('windows', 504, 1e9), ('windows', 505, -1e9);
WITH q(n, x, ex) AS (
    VALUES (1, 20.0::float8, '{}'::bigint[]), (2, 2500, '{}'), (3, 20.04, '{}'), (4, -2999.5, '{}'),
           (5, 20.0, '{200,503,199,201,198,202}'), (6, 4e8, '{}'), (7, 0, '{}'), (8, 41, '{}'),
           (9, 41, (SELECT array_agg(i) FROM generate_series(300, 400) i)),
           (10, -1e12, '{}'), (11, 1e12, '{504}'), (12, 3000, '{501}'), (13, 20.05, '{}'))
SELECT q.n, f.player_id IS NOT NULL AS found,
       abs(f.mmr - q.x) = (SELECT min(abs(e.mmr - q.x)) FROM mm.async_entries e
                           WHERE e.pool = 'windows' AND e.player_id <> ALL (q.ex)) AS nearest
FROM q, LATERAL mm.find_opponent('windows', q.x, '{}', 0, q.ex) f
ORDER BY q.n;
SELECT mm.drop_pool('windows');

-- Pools, entries, sizing model and sample are dumped with the extension's
-- data.
SELECT c::regclass AS dumped
FROM pg_extension, unnest(extconfig) c
WHERE extname = 'mm' AND c::regclass::text LIKE 'mm.async%'
ORDER BY c::regclass::text;

-- Dropping a pool drops its entries and buckets.
SELECT mm.drop_pool(pool) FROM mm.async_pools ORDER BY pool;
SELECT mm.drop_pool('arena');
SELECT (SELECT count(*) FROM mm.async_entries) AS entries, (SELECT count(*) FROM mm.async_samples) AS samples,
       (SELECT count(*) FROM mm.async_bucket_sizes) AS sizes;
