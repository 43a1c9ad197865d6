-- Calibrated odds (docs/ratings.md, "Calibrated odds"): a queue's stored
-- odds are its rating family's with their logit times a scale the queue
-- learns from its own results. The config key; the hand-worked start of
-- the docs through a queue (tick, report, tick); every step of the worked
-- sequences of test/vectors/odds/scale.py (written apart from the C code);
-- report order; a change of model; no calibration; three teams.
\set VERBOSITY sqlstate
SET timezone = 'UTC';
-- the tests after this one count on mm's sequences: put them back at the end
\i test/support/sequences_save.sql

-- the config key: 500 results by default, null for none; a count of at
-- least 1, a whole number
SELECT mm.matcher_config('{}') -> 'rating' -> 'calibration' AS calibration;
SELECT mm.matcher_config('{"rating": {"calibration": null}}') -> 'rating' -> 'calibration' AS calibration;
SELECT mm.matcher_config('{"rating": {"calibration": 20}}') -> 'rating' -> 'calibration' AS calibration;
SELECT mm.matcher_config('{"rating": {"calibration": 0}}');
SELECT mm.matcher_config('{"rating": {"calibration": 2.5}}');
SELECT mm.matcher_config('{"rating": {"calibration": "500"}}');

-- the hand-worked start: an Elo 1v1 whose favourite has odds 0.7 (Elo's
-- expected score of 1500 + 400 log10(7/3) against 1500) loses. The first
-- tick stores the family's own odds (scale 1); the report records the
-- result; the next tick learns from it (lambda = 1 - 1/500, lapse 0.05):
--   P1 = 0.998 * 1 + 0.002 = 1, l1 = 0, z = x = ln(0.7/0.3) = 0.847298, p = 0.7
--   q = 0.025 + 0.95 * 0.7 = 0.69, q' = 0.95 * 0.7 * 0.3 * x = 0.169036
--   P' = 1 + q'^2 / (0.69 * 0.31) = 1.133582, l' = (0 - 0.69) q' / (0.69 * 0.31) / P' = -0.481031
--   scale = exp(l') = 0.618152
SELECT mm.create_queue('cal_q', '{"team_size": 1, "filter": {"potentials_min": 1}, "requeue_while_in_match": false,
                                   "rating": {"model": "elo", "key": "cal_q", "ladder": false, "desertion_reason": null}}');
INSERT INTO mm.ratings (player_id, key, model, state)
VALUES (9701, 'cal_q', 'elo', ARRAY[1500 + 400 * log(7.0 / 3), 10]), (9702, 'cal_q', 'elo', '{1500, 10}');
SELECT count(mm.enqueue('cal_q', ARRAY[p], NULL, joined_at => '2024-01-01 12:00:00+00'))
FROM unnest(ARRAY[9701, 9702]::bigint[]) p;
SELECT count(*) AS rosters_matched FROM mm.tick('cal_q', '2024-01-01 12:01:00+00');
SELECT m.odds_scale, round(greatest(m.red_odds, m.blue_odds)::numeric, 12) AS favourite_odds
FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'cal_q';
-- nothing learnt yet: no row
SELECT count(*) AS calibrations FROM mm.odds_calibration c JOIN mm.queue q USING (queue_id) WHERE q.name = 'cal_q';
-- player 9702 wins: the first team's logit and score are recorded
SELECT m.match_id AS cal_match FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'cal_q' \gset
SELECT count(*) AS rated FROM mm.report_result(:cal_match,
    (SELECT jsonb_build_object('teams', jsonb_object_agg(mr.team, jsonb_build_object('rank', CASE WHEN 9702 = ANY (mr.players) THEN 1 ELSE 2 END)))
     FROM mm.match_roster mr WHERE mr.match_id = :cal_match));
SELECT round(abs(r.logit)::numeric, 12) AS abs_logit, round(ln(7.0 / 3), 12) AS ln_7_3,
       (r.logit > 0) = (r.score = 0) AS favourite_lost
FROM mm.odds_result r JOIN mm.queue q USING (queue_id) WHERE q.name = 'cal_q';
-- the next tick learns from it and removes it
SELECT count(*) AS rosters_matched FROM mm.tick('cal_q', '2024-01-01 12:02:00+00');
SELECT round(c.scale::numeric, 12) AS scale, round(c.information::numeric, 12) AS information, c.results, c.model, c.updated_at
FROM mm.odds_calibration c JOIN mm.queue q USING (queue_id) WHERE q.name = 'cal_q';
SELECT count(*) AS pending FROM mm.odds_result r JOIN mm.queue q USING (queue_id) WHERE q.name = 'cal_q';
-- the next match's odds: Elo's expected score of the new ratings, its logit
-- times that scale
SELECT count(mm.enqueue('cal_q', ARRAY[p], NULL, joined_at => '2024-01-01 12:02:30+00'))
FROM unnest(ARRAY[9701, 9702]::bigint[]) p;
SELECT count(*) AS rosters_matched FROM mm.tick('cal_q', '2024-01-01 12:03:00+00');
SELECT m.odds_scale = c.scale AS scale_recorded,
       abs(m.red_odds - 1 / (1 + exp(-c.scale * ln(e.e / (1 - e.e))))) < 1e-12 AS red_odds_scaled,
       abs(m.red_odds + m.blue_odds - 1) < 1e-15 AS odds_add_up,
       round(e.e::numeric, 6) AS elo_odds, round(m.red_odds::numeric, 6) AS stored_odds
FROM mm.match m JOIN mm.queue q USING (queue_id) JOIN mm.odds_calibration c USING (queue_id)
CROSS JOIN LATERAL (
    SELECT 1 / (1 + 10 ^ ((b.state[1] - r.state[1]) / 400)) AS e
    FROM mm.match_roster red, mm.match_roster blue, mm.ratings r, mm.ratings b
    WHERE red.match_id = m.match_id AND red.team = 'red' AND blue.match_id = m.match_id AND blue.team = 'blue'
      AND r.key = 'cal_q' AND r.player_id = red.players[1] AND b.key = 'cal_q' AND b.player_id = blue.players[1]) e
WHERE q.name = 'cal_q' AND m.status = 'matched';

-- the worked sequences (test/vectors/odds/scale.py), one queue each with
-- the sequence's window: each result recorded as mm.report_result records
-- it (against a match of the queue written directly), then a tick; the
-- belief after every step equals the vector's to 1e-12 (relative)
CREATE TEMP TABLE odds_vec (seq int, win float8, step int, p float8, score float8, scale float8, information float8);
\copy odds_vec FROM 'test/vectors/odds/scale.tsv'
SELECT seq, max(win) AS win, count(*) AS steps FROM odds_vec GROUP BY seq ORDER BY seq;
SELECT mm.create_queue('cal_v' || seq, jsonb_build_object('team_size', 1, 'filter', jsonb_build_object('potentials_min', 1),
           'rating', jsonb_build_object('model', 'elo', 'key', 'cal_v', 'calibration', max(win))))
FROM odds_vec GROUP BY seq ORDER BY seq;
INSERT INTO mm.match (match_id, queue_id, tick_id, created_at, prediction, red_odds, blue_odds, rating_spread, teams, odds,
                      odds_scale)
SELECT 970000 + v.seq * 1000 + v.step, q.queue_id, 0, '2024-01-01 12:00:00+00', 0, 0.5, 0.5, 0, '{red,blue}', '{0.5,0.5}', 1
FROM odds_vec v JOIN mm.queue q ON q.name = 'cal_v' || v.seq;
CREATE TEMP TABLE odds_seen (seq int, step int, scale float8, information float8, results bigint);
DO $$
DECLARE
    v record;
BEGIN
    FOR v IN SELECT * FROM odds_vec ORDER BY seq, step LOOP
        INSERT INTO mm.odds_result (queue_id, match_id, model, logit, score, reported_at)
        SELECT q.queue_id, 970000 + v.seq * 1000 + v.step, 'elo', ln(v.p) - ln(1 - v.p), v.score,
               '2024-01-01 12:00:00+00'::timestamptz + v.step * interval '1 second'
        FROM mm.queue q WHERE q.name = 'cal_v' || v.seq;
        PERFORM mm.tick('cal_v' || v.seq, '2024-01-01 13:00:00+00');
        INSERT INTO odds_seen SELECT v.seq, v.step, c.scale, c.information, c.results
        FROM mm.odds_calibration c JOIN mm.queue q USING (queue_id) WHERE q.name = 'cal_v' || v.seq;
    END LOOP;
END
$$;
SELECT v.seq, count(*) AS steps,
       count(*) FILTER (WHERE abs(s.scale - v.scale) <= 1e-12 * v.scale
                          AND abs(s.information - v.information) <= 1e-12 * v.information
                          AND s.results = v.step) AS equal
FROM odds_vec v JOIN odds_seen s USING (seq, step) GROUP BY v.seq ORDER BY v.seq;
-- what they show: a few results move the scale a little (1); odds too
-- confident for their outcomes teach a scale below 1 (2), too timid above
-- 1 (3); a window of 1 keeps only the last result (4), each step at most
-- 0.5 in ln(scale); ln(scale) stops at ln 10 (5); upsets at extreme odds
-- move the scale by a bounded step (6)
SELECT seq, round(scale::numeric, 6) AS scale, round(information::numeric, 6) AS information
FROM odds_vec v WHERE step = (SELECT max(step) FROM odds_vec w WHERE w.seq = v.seq) ORDER BY seq;
SELECT count(*) AS at_the_limit FROM odds_seen WHERE seq = 5 AND abs(scale - 10) < 1e-12;
-- the prior the vectors start from is a fresh queue's
SELECT round(c.scale::numeric, 12) = round(v.scale::numeric, 12) AS first_step_from_the_prior
FROM odds_seen c JOIN odds_vec v USING (seq, step) WHERE c.seq = 1 AND c.step = 1;

-- report order: results pending together are learnt from in the order they
-- were reported (then by match id), whatever order their matches were made
-- in: sequence 2 again, all in one tick, its last two results reported in
-- step order by matches made in the other order
SELECT mm.create_queue('cal_order', '{"team_size": 1, "rating": {"model": "elo", "key": "cal_v", "calibration": 20}}');
INSERT INTO mm.match (match_id, queue_id, tick_id, created_at, prediction, red_odds, blue_odds, rating_spread, teams, odds,
                      odds_scale)
SELECT 980000 + v.step, q.queue_id, 0, '2024-01-01 12:00:00+00', 0, 0.5, 0.5, 0, '{red,blue}', '{0.5,0.5}', 1
FROM odds_vec v, mm.queue q WHERE v.seq = 2 AND q.name = 'cal_order';
INSERT INTO mm.odds_result (queue_id, match_id, model, logit, score, reported_at)
SELECT q.queue_id, 980000 + CASE v.step WHEN 59 THEN 60 WHEN 60 THEN 59 ELSE v.step END, 'elo', ln(v.p) - ln(1 - v.p), v.score,
       '2024-01-01 12:00:00+00'::timestamptz + v.step * interval '1 second'
FROM odds_vec v, mm.queue q WHERE v.seq = 2 AND q.name = 'cal_order';
SELECT count(*) AS rosters_matched FROM mm.tick('cal_order', '2024-01-01 13:00:00+00');
SELECT abs(c.scale - v.scale) <= 1e-12 * v.scale AS scale_equal, abs(c.information - v.information) <= 1e-12 * v.information AS information_equal,
       c.results
FROM mm.odds_calibration c JOIN mm.queue q USING (queue_id), odds_vec v
WHERE q.name = 'cal_order' AND v.seq = 2 AND v.step = 60;

-- a change of model: the next tick starts again from scale 1, without the
-- results pending then (their odds were the other family's)
INSERT INTO mm.odds_result (queue_id, match_id, model, logit, score, reported_at)
SELECT q.queue_id, 980001, 'elo', 1, 1, '2024-01-01 14:00:00+00' FROM mm.queue q WHERE q.name = 'cal_order';
SELECT mm.alter_queue('cal_order', '{"rating": {"model": "glicko2"}}') -> 'rating' ->> 'model' AS model;
SELECT count(*) AS rosters_matched FROM mm.tick('cal_order', '2024-01-01 14:00:01+00');
SELECT c.model, c.scale, c.information, c.results,
       (SELECT count(*) FROM mm.odds_result r WHERE r.queue_id = c.queue_id) AS pending
FROM mm.odds_calibration c JOIN mm.queue q USING (queue_id) WHERE q.name = 'cal_order';

-- no calibration ("calibration": null): the stored odds are the family's
-- (scale 1), a report records nothing, a tick learns nothing
SELECT mm.create_queue('cal_off', '{"team_size": 1, "filter": {"potentials_min": 1}, "requeue_while_in_match": false,
                                     "rating": {"model": "elo", "key": "cal_off", "ladder": false, "desertion_reason": null,
                                                "calibration": null}}');
INSERT INTO mm.ratings (player_id, key, model, state)
VALUES (9721, 'cal_off', 'elo', '{1620, 10}'), (9722, 'cal_off', 'elo', '{1500, 10}');
SELECT count(mm.enqueue('cal_off', ARRAY[p], NULL, joined_at => '2024-01-01 12:00:00+00'))
FROM unnest(ARRAY[9721, 9722]::bigint[]) p;
SELECT count(*) AS rosters_matched FROM mm.tick('cal_off', '2024-01-01 12:01:00+00');
SELECT m.odds_scale, abs(m.red_odds - 1 / (1 + 10 ^ ((b.state[1] - r.state[1]) / 400))) < 1e-15 AS elo_odds
FROM mm.match m JOIN mm.queue q USING (queue_id), mm.match_roster red, mm.match_roster blue, mm.ratings r, mm.ratings b
WHERE q.name = 'cal_off' AND red.match_id = m.match_id AND red.team = 'red' AND blue.match_id = m.match_id AND blue.team = 'blue'
  AND r.key = 'cal_off' AND r.player_id = red.players[1] AND b.key = 'cal_off' AND b.player_id = blue.players[1];
SELECT count(*) AS rated FROM mm.report_result((SELECT m.match_id FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'cal_off'),
    '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}');
SELECT count(*) AS rosters_matched FROM mm.tick('cal_off', '2024-01-01 12:02:00+00');
SELECT (SELECT count(*) FROM mm.odds_result r JOIN mm.queue q USING (queue_id) WHERE q.name = 'cal_off') AS pending,
       (SELECT count(*) FROM mm.odds_calibration c JOIN mm.queue q USING (queue_id) WHERE q.name = 'cal_off') AS calibrations;

-- three teams (a free-for-all of three players): each pairing's odds are
-- scaled, then combined as the families' predict combines them (a team's
-- odds: the sum of its scaled pairings over the 3 pairs); its results teach
-- nothing (the calibration learns from two-team matches only)
SELECT mm.create_queue('cal_ffa', '{"teams": 3, "team_size": 1, "filter": {"potentials_min": 1}, "requeue_while_in_match": false,
                                     "rating": {"model": "elo", "key": "cal_ffa", "ladder": false, "desertion_reason": null}}');
INSERT INTO mm.ratings (player_id, key, model, state)
VALUES (9711, 'cal_ffa', 'elo', '{1700, 10}'), (9712, 'cal_ffa', 'elo', '{1550, 10}'), (9713, 'cal_ffa', 'elo', '{1400, 10}');
INSERT INTO mm.odds_calibration (queue_id, model, scale, information, results, updated_at)
SELECT queue_id, 'elo', 0.5, 10, 100, '2024-01-01 12:00:00+00' FROM mm.queue WHERE name = 'cal_ffa';
SELECT count(mm.enqueue('cal_ffa', ARRAY[p], NULL, joined_at => '2024-01-01 12:00:00+00'))
FROM unnest(ARRAY[9711, 9712, 9713]::bigint[]) p;
SELECT count(*) AS rosters_matched FROM mm.tick('cal_ffa', '2024-01-01 12:01:00+00');
WITH t AS (
    SELECT mr.team, r.state[1] AS rating, array_position(m.teams, mr.team) AS k, m.odds, m.odds_scale
    FROM mm.match m JOIN mm.queue q USING (queue_id) JOIN mm.match_roster mr USING (match_id)
    JOIN mm.ratings r ON r.key = 'cal_ffa' AND r.player_id = mr.players[1]
    WHERE q.name = 'cal_ffa'),
pair AS (
    SELECT a.team, a.rating, a.odds[a.k] AS stored,
           sum(1 / (1 + exp(-0.5 * ln(1 / (1 + 10 ^ ((b.rating - a.rating) / 400)) / (1 - 1 / (1 + 10 ^ ((b.rating - a.rating) / 400))))))) / 3
               AS by_hand
    FROM t a JOIN t b ON b.team <> a.team GROUP BY a.team, a.rating, a.odds, a.k)
SELECT rating, round(stored::numeric, 6) AS odds, abs(stored - by_hand) < 1e-12 AS scaled_pairings
FROM pair ORDER BY rating DESC;
SELECT count(*) AS rated FROM mm.report_result((SELECT m.match_id FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'cal_ffa'),
    '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}, "team_3": {"rank": 3}}}');
SELECT count(*) AS pending FROM mm.odds_result r JOIN mm.queue q USING (queue_id) WHERE q.name = 'cal_ffa';

-- the tables keep their invariants: a scale and a precision positive and
-- finite, a logit finite, a score 0, 0.5 or 1, a result of a match that exists
INSERT INTO mm.odds_calibration (queue_id, model, scale, information, results, updated_at)
SELECT queue_id, 'elo', 0, 1, 0, now() FROM mm.queue WHERE name = 'cal_q'
ON CONFLICT (queue_id) DO UPDATE SET scale = 0;
UPDATE mm.odds_calibration SET information = 'Infinity' WHERE queue_id = (SELECT queue_id FROM mm.queue WHERE name = 'cal_q');
INSERT INTO mm.odds_result (queue_id, match_id, model, logit, score, reported_at)
SELECT q.queue_id, 980001, 'elo', 'Infinity', 1, now() FROM mm.queue q WHERE q.name = 'cal_order';
INSERT INTO mm.odds_result (queue_id, match_id, model, logit, score, reported_at)
SELECT q.queue_id, 980002, 'elo', 1, 0.25, now() FROM mm.queue q WHERE q.name = 'cal_order';
INSERT INTO mm.odds_result (queue_id, match_id, model, logit, score, reported_at)
SELECT q.queue_id, -1, 'elo', 1, 1, now() FROM mm.queue q WHERE q.name = 'cal_order';
UPDATE mm.match SET odds_scale = -1 WHERE match_id = 980001;

SELECT mm.drop_queue(name, keep_history => false) FROM mm.queue
WHERE name IN ('cal_q', 'cal_order', 'cal_off', 'cal_ffa') OR name LIKE 'cal_v%' ORDER BY name;
DELETE FROM mm.ratings WHERE key IN ('cal_q', 'cal_off', 'cal_ffa', 'cal_v');
SELECT (SELECT count(*) FROM mm.queue) AS queues, (SELECT count(*) FROM mm.match) AS matches,
       (SELECT count(*) FROM mm.odds_calibration) AS calibrations, (SELECT count(*) FROM mm.odds_result) AS pending,
       (SELECT count(*) FROM mm.tick_log) AS ticks, (SELECT count(*) FROM mm.ticket_event) AS events;
\i test/support/sequences_restore.sql
DROP TABLE odds_vec, odds_seen;
