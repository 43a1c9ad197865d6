-- 1M players with a categorical attribute (game mode) to compare.
CREATE TABLE players AS
SELECT i AS player_id, (ARRAY['Survival', 'Creative', 'Arena'])[1 + i % 3] AS mode
FROM generate_series(1, 1000000) i;
VACUUM ANALYZE players;
