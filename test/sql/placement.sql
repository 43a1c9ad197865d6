-- The placement engine: place configs, rank_servers, join/leave, server
-- attributes; Roblox's documentation's configurations and Roblox's documentation's custom-signal
-- examples run through the engine.
-- Errors show their message, detail and hint; the SQLSTATE is echoed after each.
\set VERBOSITY default
-- server ids appear in some messages below: start them at 1
ALTER SEQUENCE mm.server_id_seq RESTART;

-- Roblox's matchmaking documentation, configurations 1, 2, 5, 6 through the engine: two servers of
-- capacity 8, A with 2 players (one a friend of the joiner), B with 6.
SELECT mm.add_server('roblox', 8, '{"name": "A"}') AS a \gset
SELECT mm.add_server('roblox', 8, '{"name": "B"}') AS b \gset
INSERT INTO mm.server_players (player_id, server_id)
SELECT i, CASE WHEN i <= 2 THEN :a ELSE :b END FROM generate_series(1, 8) i;
SELECT mm.refresh_servers('roblox') AS refreshed;
SELECT mm.set_place_config('roblox', '{"include_defaults": false, "signals": {"friends": {"weight": 1}, "occupancy": {"weight": 5}}}');
SELECT mm.get_server_attribute(server_id, 'name') AS server, round(score::numeric, 12) AS score,
       mm.server_breakdown(signals, signal_scores) AS breakdown
FROM mm.rank_servers('roblox', '{}', '{1}');
SELECT mm.set_place_config('roblox', '{"include_defaults": false, "signals": {"friends": {"weight": 3}, "occupancy": {"weight": 5}}}');
SELECT mm.get_server_attribute(server_id, 'name') AS server, round(score::numeric, 12) AS score
FROM mm.rank_servers('roblox', '{}', '{1}');
SELECT mm.set_place_config('roblox', '{"include_defaults": false, "signals": {"friends": {"weight": 10000}, "occupancy": {"weight": 15000}}}');
SELECT mm.get_server_attribute(server_id, 'name') AS server, round(score::numeric, 12) AS score
FROM mm.rank_servers('roblox', '{}', '{1}');
SELECT mm.set_place_config('roblox', '{"include_defaults": false, "signals": {"friends": {"weight": 0.01}, "occupancy": {"weight": 0.05}}}');
SELECT mm.get_server_attribute(server_id, 'name') AS server, round(score::numeric, 12) AS score
FROM mm.rank_servers('roblox', '{}', '{1}');
-- without preferred players no server has friends
SELECT mm.get_server_attribute(server_id, 'name') AS server, round(score::numeric, 12) AS score
FROM mm.rank_servers('roblox', '{}');

-- Roblox's documentation's custom signals, all eight kinds, on one server of 19 players:
-- Elo averages 2000, PowerLevel sums to 4500, 15 share the Guild and the
-- RpgClass of the joiner; server Level 4500, GameTime 500, GameMode
-- Survival, GameNotStarted true.
SELECT mm.add_server('custom', 20, '{"Level": 4500, "GameTime": 500, "GameMode": "Survival", "GameNotStarted": true}') AS c \gset
INSERT INTO mm.server_players (player_id, server_id, attributes)
SELECT 100 + i, :c, jsonb_build_object(
    'Elo', 2000 + CASE i WHEN 1 THEN -100 WHEN 2 THEN 100 ELSE 0 END,
    'PowerLevel', CASE WHEN i = 1 THEN 4500 ELSE 0 END,
    'Guild', CASE WHEN i <= 15 THEN 'Red' ELSE 'Blue' END,
    'RpgClass', CASE WHEN i <= 15 THEN 'Mage' ELSE 'Rogue' END)
FROM generate_series(1, 19) i;
SELECT mm.refresh_servers('custom') AS refreshed;
SELECT stats -> 'Elo' AS elo_stats, stats -> 'PowerLevel' AS power_stats, stats -> 'Guild' AS guild_stats
FROM mm.servers WHERE server_id = :c;
SELECT mm.set_place_config('custom', $${"include_defaults": false, "signals": {
  "elo":      {"kind": "player_numeric_joining", "attribute": "Elo", "aggregation": "average", "max_relevant_difference": 1500, "weight": 1},
  "power":    {"kind": "player_numeric_constant", "attribute": "PowerLevel", "aggregation": "sum", "constant": 5000, "max_relevant_difference": 1500, "weight": 1},
  "guild":    {"kind": "player_categorical_clustering", "attribute": "Guild", "weight": 1},
  "rpg":      {"kind": "player_categorical_diversifying", "attribute": "RpgClass", "weight": 1},
  "level":    {"kind": "server_numeric_joining", "attribute": "Level", "max_relevant_difference": 1500, "weight": 1},
  "time":     {"kind": "server_numeric_constant", "attribute": "GameTime", "constant": 1000, "max_relevant_difference": 1000, "weight": 1},
  "mode":     {"kind": "server_categorical_joining", "attribute": "GameMode", "player_attribute": "PreferredGameMode", "weight": 1},
  "fresh":    {"kind": "server_categorical_constant", "attribute": "GameNotStarted", "constant": true, "weight": 1}}}$$);
CREATE TEMP TABLE joiner AS SELECT
  '{"Elo": 1000, "PowerLevel": 9901, "Guild": "Red", "RpgClass": "Mage", "Level": 9000, "PreferredGameMode": "Survival"}'::jsonb AS p;
-- expected: elo 1/3, power 0, guild 15/19, rpg 4/19, level 0, time 0.5, mode 1, fresh 1
SELECT u.signal, round(u.score::numeric, 12) AS score
FROM joiner, mm.rank_servers('custom', joiner.p) r, unnest(r.signals, r.signal_scores) u(signal, score);
SELECT round(r.score::numeric, 12) AS server_score,
       round((1.0 / 3 + 0 + 15.0 / 19 + 4.0 / 19 + 0 + 0.5 + 1 + 1)::numeric, 12) AS expected
FROM joiner, mm.rank_servers('custom', joiner.p) r;
-- the other aggregations and mismatches
SELECT mm.set_place_config('custom', $${"include_defaults": false, "signals": {
  "elo_min":  {"kind": "player_numeric_joining", "attribute": "Elo", "aggregation": "min", "max_relevant_difference": 1000, "weight": 1},
  "elo_max":  {"kind": "player_numeric_joining", "attribute": "Elo", "aggregation": "max", "max_relevant_difference": 2000, "weight": 1},
  "elo_sum":  {"kind": "player_numeric_joining", "attribute": "Elo", "aggregation": "sum", "max_relevant_difference": 100000, "weight": 1},
  "power_avg": {"kind": "player_numeric_constant", "attribute": "PowerLevel", "aggregation": "average", "constant": 700, "max_relevant_difference": 1000, "weight": 1},
  "mode":     {"kind": "server_categorical_joining", "attribute": "GameMode", "player_attribute": "PreferredGameMode", "weight": 1},
  "started":  {"kind": "server_categorical_constant", "attribute": "GameNotStarted", "constant": false, "weight": 1},
  "missing":  {"kind": "server_numeric_constant", "attribute": "NoSuchAttribute", "constant": 1, "max_relevant_difference": 1, "weight": 1}}}$$);
-- elo min 1900 vs 1000 -> 0.1; max 2100 vs 1000 -> 0.45; sum 38000 vs 1000 -> 0.63;
-- power average (4500 + 9901) / 20 = 720.05 vs 700 -> 0.97995
SELECT u.signal, round(u.score::numeric, 12) AS score
FROM mm.rank_servers('custom', '{"Elo": 1000, "PowerLevel": 9901, "PreferredGameMode": "Creative"}') r,
     unnest(r.signals, r.signal_scores) u(signal, score);
DROP TABLE joiner;
-- categorical equality is typed: 1 equals 1.0, the string "true" is not true
SELECT mm.add_server('typed', 4, '{"Tier": 1.0, "Flag": "true", "Mode": "duel"}') AS ty \gset
SELECT mm.set_place_config('typed', $${"include_defaults": false, "signals": {
  "tier":      {"kind": "server_categorical_constant", "attribute": "Tier", "constant": 1, "weight": 1},
  "flag":      {"kind": "server_categorical_constant", "attribute": "Flag", "constant": true, "weight": 1},
  "flag_text": {"kind": "server_categorical_constant", "attribute": "Flag", "constant": "true", "weight": 1},
  "my_tier":   {"kind": "server_categorical_joining", "attribute": "Tier", "weight": 1},
  "my_mode":   {"kind": "server_categorical_joining", "attribute": "Mode", "weight": 1}}}$$);
SELECT u.signal, u.score
FROM mm.rank_servers('typed', '{"Tier": 1, "Mode": "Duel"}') r, unnest(r.signals, r.signal_scores) u(signal, score);
-- a categorical share needs a string or a boolean from the joining player
SELECT mm.set_place_config('typed', '{"include_defaults": false, "signals": {"guild": {"kind": "player_categorical_clustering", "attribute": "Guild", "weight": 1}}}');
SELECT * FROM mm.rank_servers('typed', '{"Guild": 7}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.rank_servers('typed', '{"Guild": null}');
\echo :LAST_ERROR_SQLSTATE

-- The Roblox default configuration applies to a place without a config:
-- Friends 10, Latency 3, Occupancy 2, Play History 2, Age 1, Language 1,
-- Voice Chat 1 (Device Type 0 is dropped).
SELECT mm.add_server('default', 4, '{"region": "eu"}') AS d1 \gset
SELECT mm.add_server('default', 4, '{"region": "us"}') AS d2 \gset
SELECT mm.add_server('default', 4, '{"region": "eu"}') AS d3 \gset
SELECT mm.place_player(:d1, 201, '{"age": 12, "language": "en", "voice_chat": true, "device_type": "pc", "play_history": 2}');
SELECT mm.place_player(:d1, 202, '{"age": 20, "language": "pt", "voice_chat": false, "device_type": "phone", "play_history": 3}');
SELECT mm.place_player(:d2, 203, '{"age": 30, "language": "en", "voice_chat": true, "device_type": "pc", "play_history": 1}');
CREATE TEMP TABLE joiner AS SELECT
  '{"age": 14, "language": "en", "voice_chat": true, "device_type": "pc", "play_history": 2.5, "latency": {"eu": 50, "us": 200}}'::jsonb AS p;
-- d1: friends 0, latency 0.8, occupancy 0.5, play history 1, age 1 - 2/25, language 0.5, voice 0.5
-- d2: latency 0.2, occupancy 0.25, play history 1 - 1.5/4.6, age 1 - 16/25, language 1, voice 1
-- d3 (empty): latency 0.8, the rest 0
SELECT r.server_id = :d1 AS is_d1, r.server_id = :d2 AS is_d2, round(r.score::numeric, 12) AS score,
       mm.server_breakdown(r.signals, r.signal_scores) AS breakdown
FROM joiner, mm.rank_servers('default', joiner.p) r;
SELECT round((3 * 0.8 + 2 * 0.5 + 2 * 1 + 1 * (1 - 2.0 / 25) + 0.5 + 0.5)::numeric, 12) AS d1_expected,
       round((3 * 0.2 + 2 * 0.25 + 2 * (1 - 1.5 / 4.6) + (1 - 16.0 / 25) + 1 + 1)::numeric, 12) AS d2_expected;
-- a friend on d2 outweighs everything else (Friends 10 > the sum of the rest)
SELECT r.server_id = :d2 AS friend_server_first
FROM joiner, mm.rank_servers('default', joiner.p, '{203}') r LIMIT 1;
-- a place with voice chat off drops the voice chat signal; device type
-- can be weighted; the age normalizing factor can be changed
SELECT mm.set_place_config('default', '{"voice_chat": false, "signals": {"device_type": {"weight": 4}, "age": {"weight": 1, "max_relevant_difference": 100}}}');
SELECT r.server_id = :d1 AS is_d1, mm.server_breakdown(r.signals, r.signal_scores) AS breakdown
FROM joiner, mm.rank_servers('default', joiner.p) r;
-- with a weight of 0 the signal is dropped and its attribute not needed
SELECT mm.set_place_config('default', '{"signals": {"latency": {"weight": 0}, "age": {"weight": 0}, "play_history": {"weight": 0}, "language": {"weight": 0}, "voice_chat": {"weight": 0}}}');
SELECT r.server_id = :d1 AS is_d1, r.server_id = :d2 AS is_d2, r.signals, round(r.score::numeric, 12) AS score
FROM mm.rank_servers('default', '{}') r;
DELETE FROM mm.place_configs WHERE place = 'default';

-- join_server puts the player on the best server with a free slot
SELECT mm.join_server('default', 204, joiner.p) = :d1 AS joined_d1 FROM joiner;
SELECT occupancy, age_n, age_sum, stats -> 'language' AS language FROM mm.servers WHERE server_id = :d1;
-- full servers are not ranked; join_server moves on to the next best
SELECT mm.join_server('default', 205, joiner.p) = :d1 AS joined_d1 FROM joiner;
SELECT count(*) FILTER (WHERE r.server_id = :d1) AS d1_ranked, count(*) AS ranked
FROM joiner, mm.rank_servers('default', joiner.p) r;
SELECT mm.join_server('default', 206, joiner.p) = :d2 AS joined_d2 FROM joiner;
-- leave_server frees the slot and updates the aggregates
SELECT mm.leave_server(205) AS left_server, mm.leave_server(205) AS again;
SELECT occupancy, age_n, stats -> 'language' AS language FROM mm.servers WHERE server_id = :d1;
-- every server full: join_server returns NULL
SELECT mm.add_server('tiny', 1) AS t1 \gset
SELECT mm.join_server('tiny', 301, '{"age": 1, "language": "en", "voice_chat": true, "play_history": 1, "latency": {}}') = :t1 AS first;
SELECT mm.join_server('tiny', 302, '{"age": 1, "language": "en", "voice_chat": true, "play_history": 1, "latency": {}}') IS NULL AS none_free;
-- equal scores rank by server id
SELECT mm.add_server('ties', 4) AS ta \gset
SELECT mm.add_server('ties', 4) AS tb \gset
SELECT array_agg(r.server_id ORDER BY ord) = ARRAY[:ta, :tb]::bigint[] AS by_id
FROM mm.rank_servers('ties', '{"age": 1, "language": "en", "voice_chat": true, "play_history": 1, "latency": {}}') WITH ORDINALITY r(server_id, score, signals, signal_scores, ord);
DROP TABLE joiner;

-- Server attributes: get and set (MatchmakingService)
SELECT mm.set_server_attribute(:c, 'Level', '"Advanced"');
SELECT mm.set_server_attribute(:c, 'Elo', '123.456');
SELECT mm.set_server_attribute(:c, 'TrainingMode', 'true');
SELECT mm.get_server_attribute(:c, 'Level') AS level, mm.get_server_attribute(:c, 'Elo') AS elo,
       mm.get_server_attribute(:c, 'TrainingMode') AS training;

-- The configuration tables are dumped with the data.
SELECT c.relname FROM pg_extension e, unnest(e.extconfig) t(oid) JOIN pg_class c ON c.oid = t.oid
WHERE e.extname = 'mm' AND c.relname IN ('servers', 'server_players', 'place_configs', 'server_id_seq')
ORDER BY 1;

-- errors: configurations
SELECT mm.set_place_config('bad', '{"signals": {"friends": {"weight": -1}}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.set_place_config('bad', '{"signals": {"elo": {"kind": "player_numeric_elo", "weight": 1}}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.set_place_config('bad', '{"signals": {"elo": {"weight": 1}}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.set_place_config('bad', '{"signals": {"elo": {"kind": "player_numeric_joining", "weight": 1, "max_relevant_difference": 10}}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.set_place_config('bad', '{"signals": {"elo": {"kind": "player_numeric_joining", "attribute": "Elo", "weight": 1}}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.set_place_config('bad', '{"signals": {"elo": {"kind": "player_numeric_joining", "attribute": "Elo", "max_relevant_difference": 10}}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.set_place_config('bad', '{"signals": {"elo": {"kind": "player_numeric_joining", "attribute": "Elo", "weight": 1, "max_relevant_difference": 0}}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.set_place_config('bad', '{"signals": {"elo": {"kind": "player_numeric_joining", "attribute": "Elo", "weight": 1, "max_relevant_difference": 10, "aggregation": "median"}}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.set_place_config('bad', '{"signals": {"p": {"kind": "player_numeric_constant", "attribute": "P", "weight": 1, "max_relevant_difference": 10}}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.set_place_config('bad', '{"signals": {"g": {"kind": "player_categorical_clustering", "attribute": "Guild", "weight": 1, "constant": 3}}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.set_place_config('bad', '{"signals": {"s": {"kind": "server_categorical_constant", "attribute": "Mode", "weight": 1}}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.set_place_config('bad', '{"signals": {"s": {"kind": "server_categorical_constant", "attribute": "Mode", "weight": 1, "constant": [1]}}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.set_place_config('bad', '{"signals": {"friends": {"weight": "10"}}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.set_place_config('bad', '{"signals": {"friends": 10}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.set_place_config('bad', '{"signals": {"friends": {"kind": 1}}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.set_place_config('bad', '{"signals": [{"friends": 10}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.set_place_config('bad', '{"signal": {}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.set_place_config('bad', '{"voice_chat": "off"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.set_place_config('bad', '{"include_defaults": 0}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.set_place_config('bad', '[]');
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) AS bad_configs_stored FROM mm.place_configs WHERE place = 'bad';

-- errors: the joining player (a missing built-in attribute is not one:
-- placement_finish.sql)
SELECT * FROM mm.rank_servers('default', '{"age": "twelve", "language": "en", "voice_chat": true, "play_history": 1, "latency": {}}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.rank_servers('default', '{"age": 12, "language": ["en"], "voice_chat": true, "play_history": 1, "latency": {}}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.rank_servers('default', '{"age": 12, "language": "en", "voice_chat": true, "play_history": 1, "latency": 40}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.rank_servers('default', '{"age": 12, "language": "en", "voice_chat": true, "play_history": 1, "latency": {"eu": "fast"}}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.rank_servers('default', '{"age": 12, "language": "en", "voice_chat": true, "play_history": 1, "latency": {"eu": -5}}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.rank_servers('default', '[1, 2]');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.rank_servers('default', '{"age": 12, "language": "en", "voice_chat": true, "play_history": 1, "latency": {}}', '{1,NULL}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.rank_servers('custom', '{"Elo": 1000, "PowerLevel": 1}');
\echo :LAST_ERROR_SQLSTATE

-- errors: placing players and server attributes
SELECT mm.place_player(:t1, 303, '{}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.place_player(-1, 303, '{}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.place_player(:d3, 201, '{}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.join_server('default', 201, '{}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.add_server('zero', 0);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.add_server('list', 4, '[1]');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.get_server_attribute(:c, 'NoSuchAttribute');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.get_server_attribute(-1, 'Level');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.set_server_attribute(:c, 'Level', '{"a": 1}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.set_server_attribute(-1, 'Level', '1');
\echo :LAST_ERROR_SQLSTATE
-- writing past capacity behind the engine's back is refused on refresh
INSERT INTO mm.server_players (player_id, server_id) VALUES (304, :t1);
SELECT mm.refresh_servers(ARRAY[:t1]::bigint[]);
\echo :LAST_ERROR_SQLSTATE
DELETE FROM mm.server_players WHERE player_id = 304;

-- dropping a server takes its players with it
DELETE FROM mm.servers WHERE place = 'roblox';
SELECT count(*) AS seed_players_left FROM mm.server_players WHERE player_id <= 8;
DELETE FROM mm.servers;
DELETE FROM mm.place_configs;

-- Place configs are stored complete, as mm.place_config returns them: every
-- key, each signal with its kind and every key its kind takes (defaults
-- written out), numbers in their shortest round-trip form; a stored config
-- reads back the same.
SELECT mm.set_place_config('stored', $${"voice_chat": false, "signals": {
  "latency": {}, "friends": {"weight": 2.50},
  "elo": {"kind": "player_numeric_joining", "attribute": "Elo", "max_relevant_difference": 1.5e3, "weight": 0.1},
  "power": {"kind": "player_numeric_constant", "attribute": "PowerLevel", "constant": 5000, "max_relevant_difference": 1500, "weight": 1},
  "mode": {"kind": "server_categorical_joining", "attribute": "GameMode", "weight": 1},
  "fresh": {"kind": "server_categorical_constant", "attribute": "GameNotStarted", "constant": true, "weight": 1},
  "tier": {"kind": "server_categorical_constant", "attribute": "Tier", "constant": 2.0, "weight": 1e0},
  "age": {"weight": 0}}}$$);
SELECT jsonb_pretty(config) FROM mm.place_configs WHERE place = 'stored';
SELECT config = mm.place_config(config) AS same_again, mm.check_place_config(config) AS valid
FROM mm.place_configs WHERE place = 'stored';
SELECT mm.place_config('{}');
SELECT mm.place_config('{"include_defaults": false, "signals": {"nope": {"weight": 1}}}');
\echo :LAST_ERROR_SQLSTATE
DELETE FROM mm.place_configs;
