-- Data a 0.1.0 database holds before ALTER EXTENSION mm UPDATE: queues with
-- waiting rosters, matches and a tick log; an async pool with entries;
-- placement servers with players and a place config; dishonor settings and
-- players. Written against the 0.1.0 API only.
\set ON_ERROR_STOP 1
SELECT mm.create_queue('ranked', '{"team_size": 2, "filter": {"potentials_min": 1}, "scoring": {"age": 0.1}}');
SELECT mm.create_queue('duel', '{"team_size": 1, "filter": {"potentials_min": 1}}');
SELECT mm.enqueue('duel', ARRAY[p::bigint], 1500 + p, 40, joined_at => '2026-01-01 12:00+00')
FROM generate_series(1, 6) p;
SELECT count(*) FROM mm.tick('duel', '2026-01-01 12:05+00');
SELECT mm.enqueue('ranked', ARRAY[100 + p, 200 + p]::bigint[], 1600 + p, 30, joined_at => '2026-01-01 12:00+00')
FROM generate_series(1, 3) p;
SELECT mm.enqueue('duel', ARRAY[50::bigint], 1400, 10, joined_at => '2026-01-01 12:01+00');
-- a roster rated far beyond any scale (0.1.0 took any finite rating): the
-- upgrade clamps it into the range of 0.2.0 and names it in a WARNING
SELECT mm.create_queue('wide', '{"team_size": 1}');
SELECT mm.enqueue('wide', ARRAY[80::bigint], -1.7e308, 1e308, joined_at => '2026-01-01 12:00+00');
-- and one ranked 1e308 (a backfill's team figures would overflow): clamped too
SELECT mm.create_queue('deep', '{"team_size": 1}');
SELECT mm.enqueue('deep', ARRAY[83::bigint], 1500, 10, rank => 1e308, ladder_points => -1e308,
                  joined_at => '2026-01-01 12:00+00');
-- a queue named by 1,900 control characters (0.1.0 accepted any name): its
-- JSON takes 11,402 bytes, beyond NOTIFY's limit; after the update its
-- ticks, accepts and dissolves notify without the name (upgrade.sh)
SELECT mm.create_queue(repeat(E'\x01', 1900), '{"team_size": 1, "filter": {"potentials_min": 1}}');
SELECT mm.enqueue(repeat(E'\x01', 1900), ARRAY[p::bigint], 1500, 40, joined_at => '2026-01-01 12:00+00')
FROM generate_series(7001, 7002) p;

SELECT mm.create_pool('arena', '{"mmr_bucket_count": 10, "enable_fake_opponents": true}');
SELECT mm.put_entry('arena', p, 1000 + 10 * p, '{eu}', jsonb_build_object('defence', p)) FROM generate_series(1, 30) p;
-- a rebalancing pool: 20 puts over buckets 0..6 (2, then 3 each), sized
SELECT mm.create_pool('ladder', '{"player_cache_size": 100, "bucket_min_size": 1, "bucket_initial_size": 50}');
SELECT mm.put_entry('ladder', p, 100 * p) FROM generate_series(1, 20) p;
SELECT mm.rebalance_pool('ladder');

SELECT mm.set_place_config('obby', '{"voice_chat": false}');
SELECT mm.add_server('obby', 8, '{"region": "eu"}');
SELECT mm.place_player((SELECT min(server_id) FROM mm.servers), 7, '{"age": 20, "language": "en"}');

SELECT mm.set_dishonor_config('{"stack_duration": "10m"}');
SELECT mm.dishonor(42, 'abandon', '2026-01-01 12:00+00');
-- a roster 0.1.0 accepted by direct INSERT that 0.2.0's CHECKs refuse, and
-- players whose roster was truncated away
INSERT INTO mm.roster (queue_id, players, rating, joined_at)
SELECT queue_id, ARRAY[900::bigint], 1500, '-infinity' FROM mm.queue WHERE name = 'duel';
INSERT INTO mm.queued_player (player_id, roster_id) VALUES (901, 999999);

-- last, as the 0.2.0 library in use here refuses months and minus signs:
-- 0.1.0 read a month as 30 days in a dishonor duration and stored the text
UPDATE mm.dishonor_settings SET config = config || '{"timeout_rounding": "1 mon 2 min -60 sec"}';
-- 0.1.0 took any positive duration; 0.2.0 at most 1e10 s: the upgrade
-- clamps this one, with a WARNING
UPDATE mm.dishonor_settings SET config = config || '{"timeout_duration": "100000000 days"}';
-- a place config as given (0.2.0 stores it complete)
SELECT mm.set_place_config('normalized', '{"include_defaults": false, "signals": {"friends": {"weight": 2.50}, "elo": {"kind": "player_numeric_joining", "attribute": "Elo", "max_relevant_difference": 1.5e3, "weight": 1}}}');

-- Configs 0.1.0 accepted that 0.2.0 refuses: the upgrade clamps a value out
-- of its new range (with a WARNING naming the row and key) and keeps a
-- config it cannot repair as it was (with a WARNING naming it).
-- 0.1.0's own library took any signal weight (mm.set_place_config('heavy',
-- ...) succeeded); the 0.2.0 library in use here caps it at 1e12, so its
-- check is set aside while the row is written, as 0.1.0 wrote it.
CREATE OR REPLACE FUNCTION mm.check_place_config(config jsonb) RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS 'SELECT true';
SELECT mm.set_place_config('heavy', '{"signals": {"friends": {"weight": 1e13}}}');
CREATE OR REPLACE FUNCTION mm.check_place_config(config jsonb) RETURNS boolean
AS '$libdir/mm', 'mm_check_place_config' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- written directly (0.1.0 kept configs in plain jsonb columns): a queue
-- key out of its range, and a pool config no version takes
UPDATE mm.queue SET config = jsonb_set(config, '{filter,rosters}', '5000000') WHERE name = 'duel';
SELECT mm.create_pool('kept');
UPDATE mm.async_pools SET config = config || '{"bucket_count": 4}' WHERE pool = 'kept';
