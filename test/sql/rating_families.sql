-- Any rating family by name: mm.rating_replay, mm.rating_history and
-- mm.rating_calibration equal each family's own replay; their options are
-- a queue config's "rating" section; a family's rating.options.
\set VERBOSITY sqlstate
CREATE TEMP TABLE fam_games AS
SELECT m AS match_id, p AS player_id, CASE WHEN p % 2 = 0 THEN 1 ELSE 2 END::bigint AS team,
       CASE WHEN (p + m) % 3 = 0 THEN 1 ELSE 2 END::float8 AS rank
FROM generate_series(1, 40) m, generate_series(1 + (m % 5), 6 + (m % 5)) p;
-- red and blue need different ranks within a match: rank by team
UPDATE fam_games SET rank = CASE WHEN (match_id + team) % 2 = 0 THEN 1 ELSE 2 END;
-- OpenSkill: the same final ratings as mm.openskill_replay, to the bit
SELECT count(*) AS players,
       count(*) FILTER (WHERE g.state = ARRAY[o.mu, o.sigma] AND g.games = o.games) AS equal
FROM mm.rating_replay('openskill', 'SELECT * FROM fam_games ORDER BY match_id') g
JOIN mm.openskill_replay('SELECT * FROM fam_games ORDER BY match_id') o USING (player_id);
-- the history and the calibration too
SELECT count(*) AS rows,
       count(*) FILTER (WHERE g.win_probability = o.win_probability
                        AND g.state_before = ARRAY[o.mu_before, o.sigma_before]
                        AND g.state_after = ARRAY[o.mu_after, o.sigma_after]) AS equal
FROM mm.rating_history('openskill', 'SELECT * FROM fam_games ORDER BY match_id') g
JOIN mm.openskill_history('SELECT * FROM fam_games ORDER BY match_id') o USING (game, player_id);
SELECT mm.rating_calibration('openskill', 'SELECT * FROM fam_games ORDER BY match_id')
     = mm.openskill_calibration('SELECT * FROM fam_games ORDER BY match_id') AS same_calibration;
-- options: a queue config's rating section (a new player's mu and sigma, beta)
SELECT count(*) FILTER (WHERE g.state = ARRAY[o.mu, o.sigma]) AS equal_with_options
FROM mm.rating_replay('openskill', 'SELECT * FROM fam_games ORDER BY match_id',
                      options => '{"mu": 30, "sigma": 5, "beta": 3}') g
JOIN mm.openskill_replay('SELECT * FROM fam_games ORDER BY match_id', mu => 30, sigma => 5, beta => 3) o USING (player_id);
-- initial states: player_id, then the family's columns
SELECT player_id, state FROM mm.rating_replay('glicko2', 'SELECT * FROM fam_games WHERE match_id = 1',
                                              'SELECT 2::bigint, 1700::float8, 50::float8, 0.06::float8')
ORDER BY player_id LIMIT 2;
-- bad arguments
SELECT * FROM mm.rating_replay('trueskill', 'SELECT * FROM fam_games');
SELECT * FROM mm.rating_replay('openskill', 'SELECT * FROM fam_games', options => '{"model": "glicko2"}');
SELECT * FROM mm.rating_replay('openskill', 'SELECT * FROM fam_games', options => '[]');
SELECT * FROM mm.rating_replay('openskill', 'SELECT * FROM fam_games', options => '{"sigma": 0}');
SELECT * FROM mm.rating_replay(NULL, 'SELECT * FROM fam_games');
-- rating.options: {} for a family without options, which takes none
SELECT mm.matcher_config('{}') -> 'rating' -> 'options' AS options;
SELECT mm.matcher_config('{"rating": {"model": "glicko2", "options": {"k": 1}}}');
SELECT mm.matcher_config('{"rating": {"options": 1}}');
DROP TABLE fam_games;
