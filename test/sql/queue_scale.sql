-- Queue defaults on the rating model's own scale: filter.padding,
-- scoring.rating_distance and prediction.rating.spread default to null, the
-- model's (mm.rating_scales); a roster's figures come from its players'
-- states as the model forms them; the odds stored with a match are the
-- model's probability that red beats blue; a number given wins.
\set VERBOSITY default
SET timezone = 'UTC';

-- 1. The scales side by side, and what a config leaves null
SELECT * FROM mm.rating_scales() ORDER BY model;
SELECT mm.matcher_config('{}') #> '{filter,padding}' AS padding,
       mm.matcher_config('{}') #> '{filter,deviations}' AS deviations,
       mm.matcher_config('{}') #> '{scoring,rating_distance}' AS rating_distance,
       mm.matcher_config('{}') #> '{prediction,rating,spread}' AS spread;
SELECT key, "default" FROM mm.config_keys('queue')
WHERE key IN ('filter.padding', 'filter.deviations', 'scoring.rating_distance', 'prediction.rating.spread') ORDER BY key;
-- padding after 100 s (70 s of widening): 0.25 * 70 for OpenSkill, 10 * 70 for Glicko-2
SELECT mm.matcher_padding('{}', 100) AS openskill,
       mm.matcher_padding('{"rating": {"model": "glicko2"}}', 100) AS glicko2;
-- a number given wins, whatever the model; null asks for the model's again
SELECT mm.matcher_padding('{"filter": {"padding": 3}}', 100) AS given_openskill,
       mm.matcher_padding('{"filter": {"padding": 3}, "rating": {"model": "glicko2"}}', 100) AS given_glicko2,
       mm.matcher_padding('{"filter": {"padding": null}}', 100) AS null_openskill;
SELECT mm.matcher_config('{"filter": {"padding": 3}}') #> '{filter,padding}' AS kept;
-- the prediction config on its own (no queue, no model) keeps the GW2 wiki's 200
SELECT * FROM mm.match_prediction(ARRAY['red', 'blue'], ARRAY[1500, 1600], ARRAY[0, 0],
                                  ARRAY[0, 0], ARRAY[1, 1]);

-- 2. An OpenSkill queue: a roster's range comes from its players' mu and
-- sigma. Players 1-3 (a trio) and 4-6 (solos) have rows in mm.ratings.
INSERT INTO mm.ratings (player_id, key, model, state) VALUES
    (1, 'scale', 'openskill', '{30, 2}'), (2, 'scale', 'openskill', '{26, 4}'), (3, 'scale', 'openskill', '{22, 6}'),
    (4, 'scale', 'openskill', '{27, 3}'), (5, 'scale', 'openskill', '{24, 3}'), (6, 'scale', 'openskill', '{23, 5}');
SELECT mm.create_queue('os3', '{"team_size": 3, "filter": {"potentials_min": 1}, "rating": {"key": "scale"}}');
SELECT queue_id AS os3 FROM mm.queue WHERE name = 'os3' \gset
SELECT mm.enqueue('os3', ARRAY[1, 2, 3], NULL, joined_at => '2024-01-01 12:00:00+00') AS trio \gset
-- rating: the mean mu (26); deviation: sqrt((4 + 16 + 36) / 3) = 4.320494
SELECT rating, round(deviation::numeric, 6) AS deviation FROM mm.roster WHERE roster_id = :trio;
-- at 60 s the range is [26 - 2 * 4.320494 - 0.25 * 30, 26 + 2 * 4.320494 + 0.25 * 30]
-- (two deviations, OpenSkill's filter.deviations); the effective rating is 26 - 4.320494
SELECT round(range_low::numeric, 6) AS range_low, round(range_high::numeric, 6) AS range_high,
       round(rating_low::numeric, 6) AS rating_low
FROM mm.explain(:trio, '2024-01-01 12:01:00+00');
SELECT count(mm.enqueue('os3', ARRAY[p]::bigint[], NULL, joined_at => '2024-01-01 12:00:00+00')) AS solos
FROM generate_series(4, 6) p;

-- 3. The odds stored with the match are the model's: Plackett-Luce's
-- two-team likelihood 1 / (1 + exp(-(mu_red - mu_blue) / c)), the teams'
-- sums of mu and sigma^2 + tau^2 (the dynamics the update adds before the
-- game), c = sqrt(s2_red + s2_blue + 2 beta^2)
SELECT count(DISTINCT match_id) AS matches FROM mm.tick('os3', '2024-01-01 12:00:10+00');
SELECT team, players FROM mm.match_roster WHERE queue_id = :os3 ORDER BY team DESC, roster_id;
WITH t AS (
    SELECT mr.team, sum(r.state[1]) AS mu, sum(r.state[2] ^ 2 + (25.0 / 300) ^ 2) AS s2
    FROM mm.match_roster mr, unnest(mr.players) u(p)
    JOIN mm.ratings r ON r.player_id = u.p AND r.key = 'scale' AND r.model = 'openskill'
    WHERE mr.queue_id = :os3
    GROUP BY mr.team),
by_hand AS (
    SELECT 1 / (1 + exp(-(red.mu - blue.mu) / sqrt(red.s2 + blue.s2 + 2 * (25.0 / 6) ^ 2))) AS red_odds
    FROM t red, t blue WHERE red.team = 'red' AND blue.team = 'blue')
SELECT round(m.red_odds::numeric, 12) AS red_odds, round(h.red_odds::numeric, 12) AS by_hand,
       abs(m.red_odds - h.red_odds) < 1e-12 AS equal, abs(m.red_odds + m.blue_odds - 1) < 1e-15 AS sum_one
FROM mm.match m, by_hand h WHERE m.queue_id = :os3;
-- mm.match_rosters gives the same odds for the same rosters
SELECT round(odds::numeric, 12) AS red_odds
FROM mm.match_rosters($$SELECT roster_id, players, rating, deviation, joined_at FROM mm.match_roster WHERE queue_id = $$ || :os3 || $$ ORDER BY roster_id$$,
                      '{"team_size": 3, "filter": {"potentials_min": 1}}', '2024-01-01 12:00:10+00')
WHERE team = 'red';

-- Thurstone-Mosteller queues put Phi over the same c
SELECT round(odds::numeric, 12) AS red_odds_tm,
       -- the trio (mu 78, sigma^2 56) against the solos (74, 43), each team as
       -- one player, with three players' tau^2 added to each team's sigma^2
       round((SELECT probability FROM mm.openskill_predict_win(ARRAY[1, 2], ARRAY[78, 74],
              ARRAY[sqrt(56 + 3 * (25.0 / 300) ^ 2), sqrt(43 + 3 * (25.0 / 300) ^ 2)]) WHERE team = 1)::numeric, 12)
           AS predict_win_same_c
FROM mm.match_rosters($$SELECT roster_id, players, rating, deviation, joined_at FROM mm.match_roster WHERE queue_id = $$ || :os3 || $$ ORDER BY roster_id$$,
                      '{"team_size": 3, "filter": {"potentials_min": 1}, "rating": {"options": {"model": "thurstone_mosteller_full"}}}',
                      '2024-01-01 12:00:10+00')
WHERE team = 'red';

-- 4. A Glicko-2 queue: a roster is its players' mean rating and mean
-- deviation; the odds are Glickman's expected score of red's mean rating
-- against blue's, with each team's root mean square deviation
INSERT INTO mm.ratings (player_id, key, model, state) VALUES
    (11, 'g', 'glicko2', '{1700, 60, 0.06}'), (12, 'g', 'glicko2', '{1500, 100, 0.06}'), (13, 'g', 'glicko2', '{1550, 80, 0.06}');
SELECT mm.create_queue('g1', '{"team_size": 1, "filter": {"potentials_min": 1, "padding": 50}, "rating": {"model": "glicko2", "key": "g"}}');
SELECT count(mm.enqueue('g1', ARRAY[p]::bigint[], NULL, joined_at => '2024-01-01 12:00:00+00')) AS queued
FROM generate_series(11, 12) p;
SELECT count(DISTINCT match_id) AS matches FROM mm.tick('g1', '2024-01-01 12:01:00+00');
SELECT round(m.red_odds::numeric, 12) AS red_odds,
       round(mm.glicko2_expect(red.rating, red.deviation, blue.rating, blue.deviation)::numeric, 12) AS by_hand
FROM mm.match m JOIN mm.queue q USING (queue_id)
JOIN mm.match_roster red ON red.match_id = m.match_id AND red.team = 'red'
JOIN mm.match_roster blue ON blue.match_id = m.match_id AND blue.team = 'blue'
WHERE q.name = 'g1';
-- the queue's explicit padding (50 rating per second) is the one used: at
-- 40 s, 1550 -+ (2 * 80 + 50 * 10)
SELECT mm.enqueue('g1', ARRAY[13]::bigint[], NULL, joined_at => '2024-01-01 12:00:00+00') AS g13 \gset
SELECT range_low, range_high FROM mm.explain(:g13, '2024-01-01 12:00:40+00');

-- 5. Changing the model: the keys left null follow it, a number stays
SELECT mm.alter_queue('os3', '{"rating": {"model": "glicko2"}}') #> '{filter,padding}' AS still_null;
SELECT mm.matcher_padding(config, 100) AS glicko2_padding FROM mm.queue WHERE name = 'os3';
SELECT mm.alter_queue('os3', '{"filter": {"padding": 1}, "rating": {"model": "openskill"}}') #> '{filter,padding}' AS given;

-- 6. mm.roster_rating forms a roster as the queue does: OpenSkill's mean mu
-- and root mean square sigma (new players: 25 and 25/3), Glicko-2's mean
-- rating and mean deviation
SELECT round(rating::numeric, 6) AS rating, round(deviation::numeric, 6) AS deviation
FROM mm.roster_rating(ARRAY[900001, 900002]::bigint[], '{"key": "scale_none"}', '2024-01-01 12:00:00+00');
SELECT round(rating::numeric, 6) AS rating, round(deviation::numeric, 6) AS deviation
FROM mm.roster_rating(ARRAY[900001, 900002]::bigint[], '{"key": "scale_none", "model": "glicko2"}', '2024-01-01 12:00:00+00');

-- 7. potentials_min null: twice a match's players (4 team_size, at most
-- potentials_max), the GW2 wiki's 20 at 5v5; a number given is kept
SELECT mm.create_queue('pm3', '{"team_size": 3}');
SELECT mm.create_queue('pm5', '{"team_size": 5}');
SELECT mm.create_queue('pm3_gw2', '{"team_size": 3, "filter": {"potentials_min": 20}}');
SELECT mm.create_queue('pm3_small', '{"team_size": 3, "filter": {"potentials_max": 7}}');
SELECT count(mm.enqueue(name, ARRAY[100 + queue_id]::bigint[], 1500, 50,
                        joined_at => '2024-01-01 12:00:00+00')) AS enqueued
FROM mm.queue WHERE name LIKE 'pm%';
SELECT q.name, q.config #> '{filter,potentials_min}' AS stored, e.potentials_min, e.outcome
FROM mm.queue q JOIN mm.roster r USING (queue_id),
     LATERAL mm.explain(r.roster_id, '2024-01-01 12:00:10+00') e
WHERE q.name LIKE 'pm%' ORDER BY q.name;
SELECT mm.drop_queue(name, keep_history => false) FROM mm.queue WHERE name LIKE 'pm%' ORDER BY name;

SELECT mm.drop_queue('os3', keep_history => false), mm.drop_queue('g1', keep_history => false);
DELETE FROM mm.ratings WHERE key IN ('scale', 'g');
