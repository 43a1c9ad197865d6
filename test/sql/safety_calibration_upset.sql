-- One upset no longer collapses a queue's calibration of its odds
-- (docs/ratings.md, "Calibrated odds"): Elo 2700 against 1500 (the
-- favourite's odds 0.999), the favourite loses, a tick. The plain logistic
-- step took ln(scale) to its limit (scale 0.0067: every later match a coin
-- flip). With the lapse rate (a result is a coin flip with probability
-- 0.05) the result teaches little, each result moves ln(scale) by at most
-- 0.5, and the scale stays within [0.1, 10] whatever the results.
\set VERBOSITY terse
SET timezone = 'UTC';
-- the tests after this one count on mm's sequences: put them back at the end
\i test/support/sequences_save.sql

SELECT mm.create_queue('upset_q', '{"team_size": 1, "filter": {"potentials_min": 1},
    "rating": {"model": "elo", "key": "upset_q", "ladder": false, "desertion_reason": null}}');
INSERT INTO mm.ratings (player_id, key, model, state)
VALUES (9901, 'upset_q', 'elo', '{2700, 10}'), (9902, 'upset_q', 'elo', '{1500, 10}');
-- (deviations wide enough for the two to meet)
SELECT count(mm.enqueue('upset_q', ARRAY[p], r, 1000, joined_at => '2024-01-01 12:00:00+00'))
FROM (VALUES (9901::bigint, 2700::float8), (9902, 1500)) v(p, r);
SELECT DISTINCT match_id AS um FROM mm.tick('upset_q', '2024-01-01 12:01:00+00') \gset
SELECT round(greatest(red_odds, blue_odds)::numeric, 3) AS favourite_odds FROM mm.match WHERE match_id = :um;
-- the underdog wins
SELECT count(*) AS rated FROM mm.report_result(:um,
    (SELECT jsonb_build_object('teams', jsonb_object_agg(mr.team, jsonb_build_object('rank', CASE WHEN 9902 = ANY (mr.players) THEN 1 ELSE 2 END)))
     FROM mm.match_roster mr WHERE mr.match_id = :um));
SELECT count(*) FROM mm.tick('upset_q', '2024-01-01 12:02:00+00');
SELECT c.results, c.scale > 0.7 AND c.scale < 1 AS scale_moved_a_little, round(c.scale::numeric, 3) AS scale
FROM mm.odds_calibration c JOIN mm.queue q USING (queue_id) WHERE q.name = 'upset_q';

-- bounded: thirty such upsets in a row, each learnt by its own tick: every
-- step of ln(scale) at most 0.5, the scale never below 0.1
CREATE TEMP TABLE upset_scales (k int, scale float8);
INSERT INTO upset_scales SELECT 0, c.scale FROM mm.odds_calibration c JOIN mm.queue q USING (queue_id) WHERE q.name = 'upset_q';
INSERT INTO mm.match (match_id, queue_id, tick_id, created_at, prediction, red_odds, blue_odds, rating_spread, teams, odds,
                      odds_scale, model)
SELECT 990000 + k, q.queue_id, 0, '2024-01-01 12:00:00+00', 0, 0.5, 0.5, 0, '{red,blue}', '{0.5,0.5}', 1, 'elo'
FROM mm.queue q, generate_series(1, 30) k WHERE q.name = 'upset_q';
DO $$
BEGIN
    FOR k IN 1 .. 30 LOOP
        INSERT INTO mm.odds_result (queue_id, match_id, model, logit, score, reported_at)
        SELECT q.queue_id, 990000 + k, 'elo', ln(0.999 / 0.001), 0, '2024-01-01 13:00:00+00'::timestamptz + k * interval '1 second'
        FROM mm.queue q WHERE q.name = 'upset_q';
        PERFORM mm.tick('upset_q', '2024-01-01 14:00:00+00');
        INSERT INTO upset_scales SELECT k, c.scale FROM mm.odds_calibration c JOIN mm.queue q USING (queue_id) WHERE q.name = 'upset_q';
    END LOOP;
END
$$;
SELECT max(abs(ln(b.scale) - ln(a.scale))) <= 0.5 + 1e-12 AS each_step_bounded, min(b.scale) >= 0.1 - 1e-12 AS within_the_limit
FROM upset_scales a JOIN upset_scales b ON b.k = a.k + 1;

SELECT mm.drop_queue('upset_q', keep_history => false);
DELETE FROM mm.ratings WHERE key = 'upset_q';
\i test/support/sequences_restore.sql
