-- 5v5 matches to report: 30,000 matches of 10 players drawn from 10,000
-- (a few clients rarely wait for each other), each one roster per team.
-- The baseline's tables: the same players' rating rows and a history table.
SELECT mm.create_queue('bench', '{"team_size": 5, "rating": {"key": "bench"}}');
CREATE TABLE plan AS
SELECT m, ARRAY(SELECT (m * 7919 + k * 104729) % 10000 + 1 FROM generate_series(0, 9) k)::bigint[] AS players
FROM generate_series(1, 30000) m;
ALTER TABLE plan ADD PRIMARY KEY (m);
INSERT INTO mm.match (match_id, queue_id, tick_id, created_at, prediction, red_odds, blue_odds, rating_spread, teams, odds)
SELECT m, q.queue_id, 1, now(), 0, 0.5, 0.5, 0, '{red,blue}', '{0.5,0.5}' FROM plan, mm.queue q WHERE q.name = 'bench';
-- a match's rosters are rows of mm.roster in their match, their players
-- rows of mm.queued_player (a player in several open matches holds only
-- its first: the others' rows are marked requeued)
INSERT INTO mm.roster (roster_id, queue_id, rating, joined_at, match_id, team, waited)
SELECT m * 2 + t, q.queue_id, 1500, now(), m, CASE t WHEN 0 THEN 'red' ELSE 'blue' END, '0'
FROM plan, generate_series(0, 1) t, mm.queue q WHERE q.name = 'bench';
INSERT INTO mm.queued_player (player_id, roster_id, queue_id, seat, requeued)
SELECT u.p, m * 2 + t, q.queue_id, u.o, row_number() OVER (PARTITION BY u.p ORDER BY m) > 1
FROM plan, generate_series(0, 1) t, mm.queue q, unnest(players[t * 5 + 1 : t * 5 + 5]) WITH ORDINALITY AS u(p, o)
WHERE q.name = 'bench';
SELECT setval('mm.match_id_seq', 30000);
-- every player has a rating row, as after their first game
INSERT INTO mm.ratings (player_id, key, model, state, games)
SELECT p, 'bench', 'openskill', ARRAY[25, 25.0 / 3], 0 FROM generate_series(1, 10000) p;
CREATE TABLE base_ratings (player_id bigint PRIMARY KEY, mu float8 NOT NULL, sigma float8 NOT NULL,
                           games int NOT NULL, last_played timestamptz);
INSERT INTO base_ratings SELECT p, 25, 25.0 / 3, 0 FROM generate_series(1, 10000) p;
CREATE TABLE base_history (match_id bigint, player_id bigint, mu_before float8, mu_after float8,
                           PRIMARY KEY (match_id, player_id));
CREATE SEQUENCE todo_report;
CREATE SEQUENCE todo_base;
VACUUM ANALYZE;
