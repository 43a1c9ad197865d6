-- A queue's calibration learns only from results of its current rating
-- family: a match made and reported under Elo, the queue's rating.model
-- changed to Glicko-2, a match made under Elo reported under Glicko-2 and
-- one made and reported under Glicko-2, a tick: the Glicko-2 calibration
-- counts one result (it counted all three). mm.match.model records the
-- family whose odds a tick stored; mm.odds_result the family of each row.
\set VERBOSITY terse
SET timezone = 'UTC';
-- the tests after this one count on mm's sequences: put them back at the end
\i test/support/sequences_save.sql

SELECT mm.create_queue('family_q', '{"team_size": 1, "filter": {"potentials_min": 1},
    "rating": {"model": "elo", "key": "family_q", "ladder": false, "desertion_reason": null}}');
-- two matches under Elo
SELECT count(mm.enqueue('family_q', ARRAY[p], 1500, 50, joined_at => '2024-01-01 12:00:00+00'))
FROM generate_series(9911, 9914) p;
SELECT count(*) AS rosters_matched FROM mm.tick('family_q', '2024-01-01 12:01:00+00');
SELECT array_agg(match_id ORDER BY match_id) AS elo_ms FROM mm.match m JOIN mm.queue q USING (queue_id)
WHERE q.name = 'family_q' \gset
SELECT DISTINCT model FROM mm.match WHERE match_id = ANY (:'elo_ms'::bigint[]);
-- the first reported under Elo
SELECT count(*) AS rated FROM mm.report_result((:'elo_ms'::bigint[])[1], '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}');
-- the queue moves to Glicko-2; the second Elo match is reported under it
SELECT mm.alter_queue('family_q', '{"rating": {"model": "glicko2"}}') -> 'rating' ->> 'model' AS model;
SELECT count(*) AS rated FROM mm.report_result((:'elo_ms'::bigint[])[2], '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}');
-- and one made and reported under Glicko-2
SELECT count(mm.enqueue('family_q', ARRAY[p], 1500, 50, joined_at => '2024-01-01 12:02:00+00'))
FROM generate_series(9915, 9916) p;
SELECT DISTINCT match_id AS g2_m FROM mm.tick('family_q', '2024-01-01 12:03:00+00') \gset
SELECT model FROM mm.match WHERE match_id = :g2_m;
SELECT count(*) AS rated FROM mm.report_result(:g2_m, '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}');
SELECT r.model, count(*) FROM mm.odds_result r JOIN mm.queue q USING (queue_id) WHERE q.name = 'family_q'
GROUP BY r.model ORDER BY 1;
-- the tick learns from the Glicko-2 result alone
SELECT count(*) FROM mm.tick('family_q', '2024-01-01 12:04:00+00');
SELECT c.model, c.results FROM mm.odds_calibration c JOIN mm.queue q USING (queue_id) WHERE q.name = 'family_q';
SELECT count(*) AS pending FROM mm.odds_result r JOIN mm.queue q USING (queue_id) WHERE q.name = 'family_q';

SELECT mm.drop_queue('family_q', keep_history => false);
DELETE FROM mm.ratings WHERE key = 'family_q';
\i test/support/sequences_restore.sql
