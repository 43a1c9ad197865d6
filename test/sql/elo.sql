-- Elo as the third rating family: its options in a queue config, the npm
-- package arpad's vectors, mm.report_result by hand (1v1, teams by mean
-- rating, draws, weights, a provisional K), roster ratings, the
-- leaderboard, and the family-neutral replay, history and calibration.
\set VERBOSITY sqlstate
SET timezone = 'UTC';
-- the tests after this one count on mm's sequences: put them back at the end
\i test/support/sequences_save.sql

-- the config: rating.options are Elo's keys, with their defaults
SELECT mm.create_queue('elo_q', '{"team_size": 1, "filter": {"potentials_min": 1}, "requeue_while_in_match": false,
                                   "rating": {"model": "elo", "key": "elo_t", "ladder": false, "desertion_reason": null}}');
SELECT mm.matcher_config(config) -> 'rating' -> 'options' AS options FROM mm.queue WHERE name = 'elo_q';
SELECT mm.matcher_config('{"rating": {"model": "elo", "options": {"k": 24, "provisional_games": 30}}}') -> 'rating' -> 'options' AS options;
-- bad options: unknown key, K not positive, a wrong type, another family's keys
SELECT mm.matcher_config('{"rating": {"model": "elo", "options": {"kfactor": 24}}}');
SELECT mm.matcher_config('{"rating": {"model": "elo", "options": {"k": 0}}}');
SELECT mm.matcher_config('{"rating": {"model": "elo", "options": {"k": "24"}}}');
SELECT mm.matcher_config('{"rating": {"model": "elo", "options": 24}}');
SELECT mm.matcher_config('{"rating": {"model": "openskill", "options": {"k": 24}}}');
-- OpenSkill's options are its own: every family's are shown with their defaults
SELECT mm.matcher_config('{"rating": {"model": "openskill", "options": {}}}') -> 'rating' -> 'options' AS openskill;

-- the npm package arpad 2.0.0 (test/vectors/elo): expected scores exactly,
-- new ratings as the package rounds them (to the nearest whole number)
CREATE TEMP TABLE elo_vec (id int, k float8, a float8, b float8, score float8, expected float8, new_a float8, new_b float8);
\copy elo_vec FROM 'test/vectors/elo/vectors.tsv'
-- each vector is a 1v1 game of the replay: player 2 id - 1 is a, 2 id is b
CREATE TEMP TABLE elo_vec_out AS
SELECT v.id, h.*
FROM elo_vec v,
     LATERAL mm.rating_history('elo',
         format('SELECT 1::bigint, p, t, r FROM (VALUES (%s::bigint, 1::bigint, %s::float8), (%s, 2, %s)) x(p, t, r)',
                2 * v.id - 1, CASE v.score WHEN 1 THEN 1 WHEN 0.5 THEN 1 ELSE 2 END,
                2 * v.id, CASE v.score WHEN 1 THEN 2 WHEN 0.5 THEN 1 ELSE 1 END),
         format('SELECT * FROM (VALUES (%s::bigint, %s::float8, 100::float8), (%s, %s, 100)) x(p, r, g)',
                2 * v.id - 1, v.a, 2 * v.id, v.b),
         jsonb_build_object('k', v.k)) h;
SELECT count(*) AS vectors,
       count(*) FILTER (WHERE abs(o.win_probability - v.expected) <= 1e-12 * greatest(v.expected, 1e-300) + 1e-15) AS expected_equal,
       count(*) FILTER (WHERE floor(o.state_after[1] + 0.5) = v.new_a) AS new_a_equal,
       count(*) FILTER (WHERE floor(p.state_after[1] + 0.5) = v.new_b) AS new_b_equal
FROM elo_vec v
JOIN elo_vec_out o ON o.id = v.id AND o.player_id = 2 * v.id - 1
JOIN elo_vec_out p ON p.id = v.id AND p.player_id = 2 * v.id;
-- the first vector by hand: 1500 beats 1500 with K 32: +16 and -16
SELECT player_id, win_probability, state_before, state_after FROM elo_vec_out WHERE id = 1 ORDER BY player_id;

-- mm.report_result: 1v1, new players at 1500, K 32: the winner 1516
SELECT count(mm.enqueue('elo_q', ARRAY[p], 1500, joined_at => '2024-01-01 12:00:00+00'))
FROM unnest(ARRAY[9601, 9602]::bigint[]) p;
SELECT DISTINCT match_id AS m1 FROM mm.tick('elo_q', '2024-01-01 12:10:00+00') \gset
SELECT player_id, team, model, state_before, state_after
FROM mm.report_result(:m1, '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}') ORDER BY player_id;
SELECT player_id, model, state, games FROM mm.ratings WHERE key = 'elo_t' ORDER BY player_id;
SELECT key, model, player_id, conservative_rating, position FROM mm.leaderboard WHERE key = 'elo_t' ORDER BY position;
-- a roster's rating: the mean rating, no deviation; players without a row count as 1500
SELECT * FROM mm.roster_rating(ARRAY[9601, 9602, 9699]::bigint[], '{"model": "elo", "key": "elo_t"}');
-- enqueue without a rating takes it from there: 1516
SELECT mm.enqueue('elo_q', ARRAY[9601], NULL) AS r1 \gset
SELECT rating, deviation FROM mm.roster WHERE roster_id = :r1;
SELECT mm.leave(:r1);

-- a draw between 1516 and 1484: the weaker gains 32 * (0.5 - E)
SELECT count(mm.enqueue('elo_q', ARRAY[p], 1500, joined_at => '2024-01-01 13:00:00+00'))
FROM unnest(ARRAY[9601, 9602]::bigint[]) p;
SELECT DISTINCT match_id AS m2 FROM mm.tick('elo_q', '2024-01-01 13:10:00+00') \gset
CREATE TEMP TABLE out2 AS SELECT * FROM mm.report_result(:m2, '{"teams": {"red": {"rank": 1}, "blue": {"rank": 1}}}');
SELECT o.player_id, o.state_before[1] AS before, round(o.state_after[1]::numeric, 6) AS rating,
       o.state_after[1] = o.state_before[1] + 32 * (0.5 - 1 / (1 + 10 ^ ((x.state_before[1] - o.state_before[1]) / 400)))
       AS by_hand
FROM out2 o JOIN out2 x ON x.player_id <> o.player_id
ORDER BY o.player_id;

-- teams by mean rating, weights and a provisional K (FIDE's: 40 for a
-- player's first games): 2v2, K 20, k_provisional 40 for fewer than 3 games
SELECT mm.alter_queue('elo_q', '{"team_size": 2, "rating": {"key": "elo_teams",
                                 "options": {"k": 20, "k_provisional": 40, "provisional_games": 3}}}') -> 'rating' -> 'options' AS options;
INSERT INTO mm.ratings (player_id, key, model, state, games) VALUES
    (9611, 'elo_teams', 'elo', '{1700, 10}', 10), (9612, 'elo_teams', 'elo', '{1500, 10}', 10),
    (9613, 'elo_teams', 'elo', '{1400, 0}', 0), (9614, 'elo_teams', 'elo', '{1600, 2}', 2);
SELECT count(mm.enqueue('elo_q', ARRAY[p], 1500, joined_at => '2024-01-01 14:00:00+00'))
FROM unnest(ARRAY[9611, 9612, 9613, 9614]::bigint[]) p;
SELECT DISTINCT match_id AS m3 FROM mm.tick('elo_q', '2024-01-01 14:10:00+00') \gset
SELECT team, array_agg(player_id ORDER BY player_id) AS players FROM mm.match_roster r, unnest(r.players) player_id
WHERE r.match_id = :m3 GROUP BY team ORDER BY team;
-- red wins; 9611 played half the match. By hand: each team's mean, its
-- expected score, each player's K (40 below 3 games, else 20) times weight
CREATE TEMP TABLE out3 AS
SELECT * FROM mm.report_result(:m3, (SELECT jsonb_build_object('teams', '{"red": {"rank": 1}, "blue": {"rank": 2}}'::jsonb,
                                                              'players', '{"9611": {"weight": 0.5}}'::jsonb)));
WITH t AS (SELECT team, avg(state_before[1]) AS mean FROM out3 GROUP BY team),
     e AS (SELECT a.team, 1 / (1 + 10 ^ ((b.mean - a.mean) / 400)) AS expected,
                  CASE a.team WHEN 'red' THEN 1 ELSE 0 END AS score
           FROM t a JOIN t b ON b.team <> a.team)
SELECT o.player_id, o.team, o.state_before, round(o.state_after[1]::numeric, 6) AS rating, o.state_after[2] AS games,
       o.state_after[1] = o.state_before[1]
           + CASE WHEN o.state_before[2] < 3 THEN 40 ELSE 20 END * o.weight * (e.score - e.expected) AS by_hand
FROM out3 o JOIN e USING (team) ORDER BY o.player_id;

-- the family-neutral replay equals the reports: the two reports of the 1v1
-- queue again, as a history replayed from new players
SELECT player_id, state, games
FROM mm.rating_replay('elo', 'SELECT * FROM (VALUES (1::bigint, 9601::bigint, 1::bigint, 1::float8), (1, 9602, 2, 2),
                                                     (2, 9601, 1, 1), (2, 9602, 2, 1)) h(m, p, t, r)')
ORDER BY player_id;
SELECT player_id, state FROM mm.ratings WHERE key = 'elo_t' ORDER BY player_id;
SELECT mm.rating_calibration('elo', 'SELECT * FROM (VALUES (1::bigint, 1::bigint, 1::bigint, 1::float8), (1, 2, 2, 2),
                                                          (2, 1, 1, 1), (2, 2, 2, 2)) h(m, p, t, r)', bins => 2) ->> 'n' AS n;
-- options of a replay: the family's options, as a queue's rating.options
SELECT player_id, state FROM mm.rating_replay('elo', 'SELECT 1::bigint, p, p, p::float8 FROM generate_series(1, 2) p',
                                              options => '{"k": 10, "initial": 1000}') ORDER BY player_id;
SELECT * FROM mm.rating_replay('elo', 'SELECT 1::bigint, 1::bigint, 1::bigint, 1::float8', options => '{"model": "elo"}');
SELECT * FROM mm.rating_replay('trueskill', 'SELECT 1::bigint, 1::bigint, 1::bigint, 1::float8');
SELECT * FROM mm.rating_replay('elo', 'SELECT 1::bigint, 1::bigint, 1::bigint, 1::float8', options => '{"k": -1}');

-- a state is Elo's: rating and games, finite
INSERT INTO mm.ratings (player_id, key, model, state) VALUES (9699, 'elo_t', 'elo', '{1500}');
INSERT INTO mm.ratings (player_id, key, model, state) VALUES (9699, 'elo_t', 'elo', '{Infinity, 0}');
SELECT mm.rating_fields('elo', '{1516, 1}');

SELECT mm.drop_queue('elo_q', keep_history => false);
DELETE FROM mm.ratings WHERE key IN ('elo_t', 'elo_teams');
DROP TABLE elo_vec, elo_vec_out, out2, out3;
\i test/support/sequences_restore.sql
