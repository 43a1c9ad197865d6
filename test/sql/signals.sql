-- Signals and server scoring: the signal functions and aggregates, against
-- every worked example of Roblox's matchmaking documentation.
-- Errors show their message, detail and hint; the SQLSTATE is echoed after each.
\set VERBOSITY default

-- Roblox's matchmaking documentation, occupancy table: servers of capacity 8 with 2 and 6 players.
SELECT server, players, mm.occupancy_signal(players, 8) AS occupancy_score
FROM (VALUES ('A', 2), ('B', 6)) v(server, players) ORDER BY server;

-- Roblox's matchmaking documentation, weighted occupancy table: Occupancy weight 2 gives 0.5 and 1.5.
SELECT server, mm.weighted_score(mm.occupancy_signal(players, 8), 2) AS weighted
FROM (VALUES ('A', 2), ('B', 6)) v(server, players) GROUP BY server ORDER BY server;

-- Roblox's matchmaking documentation, configurations 1, 2, 5 and 6: Friends and Occupancy weights;
-- server A has a friend and 2 of 8 players, server B no friend and 6 of 8.
CREATE TEMP TABLE configs (config int, friends_w float8, occupancy_w float8);
INSERT INTO configs VALUES (1, 1, 5), (2, 3, 5), (5, 10000, 15000), (6, 0.01, 0.05);
CREATE TEMP TABLE seed_servers (server text, preferred int, players int);
INSERT INTO seed_servers VALUES ('A', 1, 2), ('B', 0, 6);
SELECT c.config, s.server,
       round(mm.weighted_score(x.score, x.weight)::numeric, 12) AS total_score
FROM configs c CROSS JOIN seed_servers s
CROSS JOIN LATERAL (VALUES (mm.friends_signal(s.preferred), c.friends_w),
                           (mm.occupancy_signal(s.players, 8), c.occupancy_w)) x(score, weight)
GROUP BY c.config, s.server
ORDER BY c.config, s.server;
-- the winner per configuration: B, A, A, B
SELECT DISTINCT ON (c.config) c.config, s.server AS winner
FROM configs c CROSS JOIN seed_servers s
ORDER BY c.config, c.friends_w * mm.friends_signal(s.preferred)
                   + c.occupancy_w * mm.occupancy_signal(s.players, 8) DESC;
DROP TABLE configs, seed_servers;

-- Roblox's matchmaking documentation, the age table: normalizing factors 100 and 25.
SELECT age_difference,
       round(mm.age_signal(age_difference, 0, 100)::numeric, 12) AS factor_100,
       round(mm.age_signal(age_difference, 0, 25)::numeric, 12) AS factor_25,
       mm.age_signal(age_difference, 0) = mm.age_signal(age_difference, 0, 25) AS default_is_25
FROM (VALUES (50), (25), (12), (5), (0)) v(age_difference)
ORDER BY age_difference DESC;
-- the difference is absolute: a younger server is as far as an older one
SELECT mm.age_signal(10, 22) AS younger, mm.age_signal(34, 22) AS older;

-- Roblox's matchmaking documentation, latency: 1 - min(250, ping) / 250
SELECT ping, round(mm.latency_signal(ping)::numeric, 12) AS latency
FROM (VALUES (0), (50), (125), (250), (400)) v(ping) ORDER BY ping;
SELECT mm.latency_signal(100, 200) AS custom_max;

-- Roblox's matchmaking documentation, play history: 1 - min(1, diff / 4.6) (DESIGN 5: the text's min(4.6, ...) is a slip)
SELECT diff, round(mm.play_history_signal(2 + diff, 2)::numeric, 12) AS play_history
FROM (VALUES (0), (1.15), (2.3), (4.6), (9.2)) v(diff) ORDER BY diff;

-- Roblox's matchmaking documentation, friends: min(# preferred players, 1) / 1
SELECT n, mm.friends_signal(n) FROM generate_series(0, 3) n;

-- Roblox's matchmaking documentation, custom player numeric vs the joining player: Elo average 2000,
-- joining 1000, max relevant difference 1500 -> 1 - 1000/1500
SELECT round(mm.numeric_signal(2000, 1000, 1500)::numeric, 12) AS elo;
-- vs a constant: server sum 4500 + joining 9901 vs 5000, max 1500 -> 0
SELECT mm.numeric_signal(4500 + 9901, 5000, 1500) AS power_level;
-- server numeric vs the joining player: Level 4500 vs 9000, max 1500 -> 0
SELECT mm.numeric_signal(4500, 9000, 1500) AS level;
-- server numeric vs a constant: GameTime 500 vs 1000, max 1000 -> 0.5
SELECT mm.numeric_signal(500, 1000, 1000) AS game_time;
-- server categorical vs the joining player and vs a constant
SELECT mm.categorical_signal('Survival'::text, 'Survival') AS game_mode,
       mm.categorical_signal('Creative'::text, 'Survival') AS other_mode,
       mm.categorical_signal(true, true) AS game_not_started,
       mm.categorical_signal(false, true) AS started;

-- Roblox's matchmaking documentation, player categorical clustering and diversifying: 15 of 19
-- players share the joining player's Guild / RpgClass.
CREATE TEMP TABLE on_server (guild text, rpg_class text);
INSERT INTO on_server
SELECT CASE WHEN i <= 15 THEN 'Red' ELSE 'Blue' END,
       CASE WHEN i <= 15 THEN 'Mage' ELSE 'Rogue' END
FROM generate_series(1, 19) i;
SELECT round(mm.share(guild, 'Red')::numeric, 12) AS clustering,
       round((15.0 / 19)::numeric, 12) AS seed_15_of_19,
       round((1 - mm.share(rpg_class, 'Mage'))::numeric, 12) AS diversifying
FROM on_server;
-- share is the ratio signal: equal to ratio_signal over the counts
SELECT mm.share(guild, 'Red') = mm.ratio_signal(count(*) FILTER (WHERE guild = 'Red'), count(*)) AS same
FROM on_server;
-- language / device / voice chat shares with other types
SELECT mm.share(v, true) AS voice_on
FROM (VALUES (true), (false), (true), (true)) x(v);
SELECT mm.share(v, 3) AS int_share FROM (VALUES (1), (3), (3)) x(v);
-- a NULL value is a player without the attribute: counted, never equal;
-- a NULL target matches no one; no players scores 0 (DESIGN 5)
SELECT mm.share(v, 'en') AS with_null FROM (VALUES ('en'), (NULL), ('pt'), ('en')) x(v);
SELECT mm.share(v, NULL::text) AS null_target FROM (VALUES ('en'), ('pt')) x(v);
SELECT mm.share(guild, 'Red') AS empty_server FROM on_server WHERE false;
-- share in parallel: same as serial
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
CREATE TABLE signals_many AS SELECT i % 7 AS v FROM generate_series(1, 20000) i;
ANALYZE signals_many;
EXPLAIN (COSTS OFF) SELECT mm.share(v, 3), mm.weighted_score(0.5, 2) FROM signals_many;
SELECT round(mm.share(v, 3)::numeric, 12) AS share_parallel,
       round((count(*) FILTER (WHERE v = 3)::numeric / count(*)), 12) AS expected,
       round(mm.weighted_score(0.5, 2)::numeric, 6) AS weighted_parallel
FROM signals_many;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
DROP TABLE signals_many, on_server;

-- ratio_signal: clamped to [0, 1]; an empty whole scores 0
SELECT mm.ratio_signal(3, 4) AS r, mm.ratio_signal(5, 4) AS clamped, mm.ratio_signal(0, 0) AS empty;
-- occupancy over capacity clamps to 1
SELECT mm.occupancy_signal(0, 8) AS empty, mm.occupancy_signal(8, 8) AS full;

-- weighted_score: a weight of 0 drops the signal, even a NULL or bad score;
-- no signals scores 0
SELECT mm.weighted_score(s, w) AS zero_weight_dropped
FROM (VALUES (0.5::float8, 2::float8), (NULL, 0), (7, 0)) x(s, w);
SELECT mm.weighted_score(s, w) AS no_signals FROM (VALUES (0.5::float8, 2::float8)) x(s, w) WHERE false;

-- the functions are immutable, strict and parallel safe
SELECT p.oid::regprocedure AS fn, provolatile, proparallel, proisstrict
FROM pg_proc p
WHERE pronamespace = 'mm'::regnamespace AND proname LIKE '%signal'
ORDER BY p.oid::regprocedure::text;

-- errors
SELECT mm.numeric_signal(1, 2, 0);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.numeric_signal(1, 2, -5);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.numeric_signal('NaN', 2, 5);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.numeric_signal(1, 'Infinity', 5);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.age_signal(10, 12, 'NaN');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.latency_signal(-1);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.play_history_signal(1, 2, 0);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ratio_signal(-1, 4);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ratio_signal(1, 'Infinity');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.occupancy_signal(2, 0);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.occupancy_signal(-1, 8);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.friends_signal(-1);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.weighted_score(0.5, -1);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.weighted_score(1.5, 1);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.weighted_score(-0.1, 1);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.weighted_score(NULL, 1);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.weighted_score(0.5, NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.weighted_score('NaN', 1);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.weighted_score(0.5, 'Infinity');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.weighted_score(1, 1e308) FROM generate_series(1, 2);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.share(v, v) FROM (VALUES (point(1, 2))) x(v);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.share_final('{1}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.share_final('{3,2}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.weighted_score_final('{1,NULL}');
\echo :LAST_ERROR_SQLSTATE
