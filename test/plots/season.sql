-- The data behind the analytics plots: a simulated season of 3000 3v3
-- matches among 200 players with a hidden skill (normal, mean 25, sd 4).
-- A team's performance is the sum of its players' skills plus N(0, 3 * 4^2)
-- noise (a performance deviation of 4 per player); the better performance wins.
-- Slot s (0-5) of match m is player (m * 7919 + s * 1009) % 200 + 1.
\set QUIET on
SELECT setseed(0.7) \g /dev/null
CREATE TABLE plot_skill AS
SELECT p AS player_id, 25 + 4 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()) AS skill
FROM generate_series(1, 200) p;
CREATE TABLE plot_season AS
WITH slots AS (
    SELECT m AS match_id, (m * 7919 + s * 1009) % 200 + 1 AS player_id, s / 3 + 1 AS team
    FROM generate_series(1, 3000) m, generate_series(0, 5) s),
perf AS (
    SELECT match_id, team, sum(k.skill) + 4 * sqrt(3) * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()) AS perf
    FROM slots JOIN plot_skill k USING (player_id) GROUP BY match_id, team)
SELECT s.match_id, s.player_id, s.team,
       CASE WHEN p.perf >= o.perf THEN 1 ELSE 2 END AS rank
FROM slots s
JOIN perf p ON p.match_id = s.match_id AND p.team = s.team
JOIN perf o ON o.match_id = s.match_id AND o.team <> s.team;
CREATE TABLE plot_history AS
SELECT * FROM mm.openskill_history('SELECT * FROM public.plot_season ORDER BY match_id, team, player_id');
