-- Server scoring: ranking live servers for a joining player (Roblox weighted-sum model)
\set ECHO none
\set QUIET on
SELECT mm.add_server('obby', 8, '{"region": "eu"}') AS eu_busy \gset
SELECT mm.add_server('obby', 8, '{"region": "eu"}') AS eu_quiet \gset
SELECT mm.add_server('obby', 8, '{"region": "us"}') AS us_friend \gset
INSERT INTO mm.server_players (player_id, server_id, attributes)
SELECT i, :eu_busy, jsonb_build_object('age', 12 + i % 4, 'language', 'en', 'voice_chat', true, 'play_history', 2.5)
FROM generate_series(1, 6) i;
INSERT INTO mm.server_players (player_id, server_id, attributes) VALUES
    (7, :eu_quiet, '{"age": 35, "language": "de", "voice_chat": false, "play_history": 0.5}'),
    (8, :us_friend, '{"age": 13, "language": "en", "voice_chat": true, "play_history": 3}');
SELECT mm.refresh_servers('obby');
CREATE TEMP TABLE server_names (server_id bigint, name text);
INSERT INTO server_names VALUES (:eu_busy, 'eu busy'), (:eu_quiet, 'eu quiet'), (:us_friend, 'us, friend inside');
\set QUIET off
\set ECHO queries

-- The signals: each turns attributes into a score in [0, 1].
SELECT mm.occupancy_signal(6, 8) AS occupancy, mm.age_signal(14, 12) AS age,
       mm.latency_signal(60) AS latency_60ms, mm.play_history_signal(2.5, 2.0) AS play_history;

-- A 13-year-old English speaker in Europe joins (Roblox default weights:
-- Friends 10, Latency 3, Occupancy 2, Play History 2, Age 1, Language 1, Voice Chat 1).
SELECT n.name, round(r.score::numeric, 2) AS score,
       mm.server_breakdown(r.signals, (SELECT array_agg(round(x::numeric, 2)::float8) FROM unnest(r.signal_scores) x)) AS signals
FROM mm.rank_servers('obby', '{"age": 13, "language": "en", "voice_chat": true, "play_history": 2.4,
                              "latency": {"eu": 30, "us": 140}}') r
JOIN server_names n USING (server_id) ORDER BY r.score DESC;

-- Player 8 is a friend: Friends outweighs every other signal together.
SELECT n.name, round(r.score::numeric, 2) AS score
FROM mm.rank_servers('obby', '{"age": 13, "language": "en", "voice_chat": true, "play_history": 2.4,
                              "latency": {"eu": 30, "us": 140}}', '{8}') r
JOIN server_names n USING (server_id) ORDER BY r.score DESC;

-- Joining takes the best slot atomically (never above capacity).
WITH joined AS (
    SELECT mm.join_server('obby', 100, '{"age": 13, "language": "en", "voice_chat": true,
                          "play_history": 2.4, "latency": {"eu": 30, "us": 140}}', '{8}') AS server_id
)
SELECT n.name AS joined FROM joined JOIN server_names n USING (server_id);
SELECT n.name, s.occupancy, s.capacity FROM mm.servers s JOIN server_names n USING (server_id) ORDER BY n.name;

-- A place can weigh its own custom signals, e.g. keep skill levels together.
SELECT mm.set_place_config('obby', '{"include_defaults": false, "signals": {
    "skill": {"kind": "player_numeric_joining", "attribute": "play_history", "max_relevant_difference": 1, "weight": 5},
    "occupancy": {"weight": 1}}}');
SELECT n.name, round(r.score::numeric, 2) AS score
FROM mm.rank_servers('obby', '{"play_history": 0.6}') r JOIN server_names n USING (server_id)
ORDER BY r.score DESC;
