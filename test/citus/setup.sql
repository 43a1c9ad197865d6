-- The scale-out suite's data, loaded on the Citus coordinator: each table
-- twice, a plain table on the coordinator (the single node's answer, suffix
-- _local) and a distributed copy with the same rows.
--
--   players        2,000 players in 4 leagues and parties of 5: Glicko-2
--                  (rating, rd, vol) and OpenSkill (mu, sigma); by player_id
--   games          20,000 games of one rating period, one row per side, the
--                  opponent's rating at the start of the period in the row;
--                  by player_id, colocated with players
--   games_by_game  the same rows with the player's own rating, by game_id
--                  (grouping by player then aggregates partially)
--   results        150 finished 2v2 matches (match_id, player_id, team,
--                  rank), by player_id, colocated with players
--   league_games   the games once (player_id < opponent_id) with their
--                  time, by league: a league's history lives on one node
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SET citus.shard_count = 8;

CREATE TABLE players_local (
    player_id bigint PRIMARY KEY,
    league int NOT NULL,
    party int NOT NULL,
    rating float8 NOT NULL, rd float8 NOT NULL, vol float8 NOT NULL,
    mu float8 NOT NULL, sigma float8 NOT NULL);
INSERT INTO players_local
SELECT p, p % 4, p / 5, 1200 + (p * 7919) % 800, 50 + (p % 250), 0.06,
       20 + (p * 31 % 100) / 10.0, 3 + (p % 50) / 10.0
FROM generate_series(1, 2000) p;

-- Opponents in the same league (b = a + 4k); the score from a hash of the game.
CREATE TABLE games_local AS
WITH g AS (
    SELECT g AS game_id, 1 + (g * 104729) % 2000 AS a, (g * 13) % 5 AS s,
           '2026-01-01 00:00+00'::timestamptz + g * interval '1 minute' AS played_at
    FROM generate_series(1, 20000) g),
g2 AS (
    SELECT game_id, a, 1 + ((a - 1 + 4 * (1 + game_id % 499)) % 2000) AS b,
           CASE s WHEN 0 THEN 0.5 WHEN 1 THEN 1 WHEN 2 THEN 1 ELSE 0 END::float8 AS score, played_at
    FROM g)
SELECT g2.game_id, g2.a::bigint AS player_id, g2.b::bigint AS opponent_id, (g2.a % 4)::int AS league,
       o.rating AS opp_rating, o.rd AS opp_rd, g2.score, g2.played_at
FROM g2 JOIN players_local o ON o.player_id = g2.b
UNION ALL
SELECT g2.game_id, g2.b, g2.a, (g2.b % 4)::int, o.rating, o.rd, 1 - g2.score, g2.played_at
FROM g2 JOIN players_local o ON o.player_id = g2.a;

CREATE TABLE games_by_game_local AS
SELECT g.game_id, g.player_id, p.rating, p.rd, p.vol, g.opp_rating, g.opp_rd, g.score
FROM games_local g JOIN players_local p USING (player_id);

CREATE TABLE results_local AS
SELECT m::bigint AS match_id, (1 + (m * 4 + k) % 2000)::bigint AS player_id, 1 + k / 2 AS team,
       CASE WHEN (m + k / 2) % 3 = 0 THEN 1 ELSE 1 + k / 2 END AS rank
FROM generate_series(1, 150) m, generate_series(0, 3) k;

CREATE TABLE league_games_local AS
SELECT league, game_id, player_id, opponent_id, score, played_at
FROM games_local WHERE player_id < opponent_id;

-- The distributed copies.
CREATE TABLE players (LIKE players_local INCLUDING ALL);
SELECT create_distributed_table('players', 'player_id');
INSERT INTO players SELECT * FROM players_local;
CREATE TABLE games (LIKE games_local);
SELECT create_distributed_table('games', 'player_id', colocate_with => 'players');
INSERT INTO games SELECT * FROM games_local;
CREATE TABLE games_by_game (LIKE games_by_game_local);
SELECT create_distributed_table('games_by_game', 'game_id');
INSERT INTO games_by_game SELECT * FROM games_by_game_local;
CREATE TABLE results (LIKE results_local);
SELECT create_distributed_table('results', 'player_id', colocate_with => 'players');
INSERT INTO results SELECT * FROM results_local;
CREATE TABLE league_games (LIKE league_games_local);
SELECT create_distributed_table('league_games', 'league', shard_count => 4);
INSERT INTO league_games SELECT * FROM league_games_local;
