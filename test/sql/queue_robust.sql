-- Nothing stops a queue: configs are checked against each other where they
-- meet (a queue's dishonor reasons and the dishonor config), a tick that
-- cannot dissolve one match goes on with the rest, names and keys have
-- limits checked where they are created, and ratings have a finite range.
\set VERBOSITY terse
SET timezone = 'UTC';
-- match ids in messages are this test's own; restored at the end
SELECT last_value AS seq_value, is_called AS seq_called FROM mm.match_id_seq \gset
SELECT setval('mm.match_id_seq', 9500) AS match_ids_from;

-- 1. A queue's dodge_reason and rating.desertion_reason must be reasons of
-- the dishonor config; the dishonor config keeps every reason a queue uses.
SELECT mm.create_queue('rb', '{"team_size": 1, "filter": {"potentials_min": 1}, "accept_timeout": 1, "dodge_reason": "queue_dodge"}');
-- drops queue_dodge, which rb uses
SELECT mm.set_dishonor_config('{"penalties": {"abandon": 10, "afk": 5}}');
\echo :LAST_ERROR_SQLSTATE
\set VERBOSITY default
SELECT mm.set_dishonor_config('{"penalties": {"queue_dodge": 4, "afk": 5}}');
\set VERBOSITY terse
SELECT mm.dishonor_config() -> 'penalties' AS unchanged;
-- a typo, and a reason the config does not have
SELECT mm.create_queue('rb_typo', '{"dodge_reason": "queue_dodg"}');
\echo :LAST_ERROR_SQLSTATE
\set VERBOSITY default
SELECT mm.alter_queue('rb', '{"rating": {"desertion_reason": "afk"}}');
\set VERBOSITY terse
SELECT count(*) AS typo_queues FROM mm.queue WHERE name = 'rb_typo';
SELECT mm.alter_queue('rb', '{}') -> 'rating' ->> 'desertion_reason' AS desertion_reason;
-- a new reason first, then the queue may use it; null needs no reason
SELECT mm.set_dishonor_config('{"penalties": {"abandon": 10, "queue_dodge": 4, "banned": 1000000, "afk": 5}}') -> 'penalties' AS penalties;
SELECT mm.alter_queue('rb', '{"dodge_reason": "afk", "rating": {"desertion_reason": null}}') ->> 'dodge_reason' AS dodge_reason;
-- queue_dodge and abandon are free to go now; afk is not
SELECT mm.set_dishonor_config('{"penalties": {"afk": 5}}') -> 'penalties' AS penalties;
SELECT mm.set_dishonor_config('{"penalties": {"banned": 1000000}}');
\echo :LAST_ERROR_SQLSTATE
-- a dropped queue holds no reason
SELECT mm.drop_queue('rb');
SELECT mm.set_dishonor_config('{}') -> 'penalties' AS penalties;

-- 1b. At depth: a reason that is gone anyway (a direct change of the
-- dishonor config's table) gives no dishonor and a WARNING; the tick,
-- mm.decline and mm.report_result go on.
SELECT mm.create_queue('rb2', '{"team_size": 1, "filter": {"potentials_min": 1}, "accept_timeout": "1 minute", "dodge_reason": "queue_dodge"}');
SELECT count(mm.enqueue('rb2', ARRAY[p::bigint], 1500, joined_at => now() - interval '1 minute'))
FROM generate_series(9501, 9506) p;
SELECT count(*) AS proposed FROM mm.tick('rb2');
SELECT mm.create_queue('rb3', '{"team_size": 1, "filter": {"potentials_min": 1}}');
SELECT count(mm.enqueue('rb3', ARRAY[p::bigint], 1500, joined_at => now() - interval '1 minute'))
FROM generate_series(9507, 9508) p;
SELECT count(*) AS matched FROM mm.tick('rb3');
UPDATE mm.dishonor_settings SET config = jsonb_set(config, '{penalties}', '{"banned": 1000000}');
-- 9501 accepts and declines nobody; 9503 declines its match
SELECT mm.accept(mr.match_id, 9501) FROM mm.match_roster mr WHERE 9501 = ANY (mr.players);
SELECT mm.decline(mr.match_id, 9503) FROM mm.match_roster mr WHERE 9503 = ANY (mr.players);
-- the third match: one of its rosters cannot go back to the queue (a
-- constraint added here refuses its row as a waiting roster; a matched
-- roster stays in mm.roster, whose own CHECKs it always meets): that
-- match fails, gets a WARNING and stays proposed; the tick dissolves the
-- others and goes on
SELECT qp.roster_id AS stuck FROM mm.queued_player qp WHERE qp.player_id = 9505 \gset
ALTER TABLE mm.roster ADD CONSTRAINT roster_stuck CHECK (match_id IS NOT NULL OR roster_id <> :stuck) NOT VALID;
SELECT mm.accept(mr.match_id, 9505) FROM mm.match_roster mr WHERE 9505 = ANY (mr.players);
\set VERBOSITY default
SELECT count(*) AS tick_rows FROM mm.tick('rb2', now() + interval '1 hour');
\set VERBOSITY terse
SELECT l.matches_made, l.dissolves_failed FROM mm.tick_log l JOIN mm.queue q USING (queue_id)
WHERE q.name = 'rb2' ORDER BY l.tick_id;
SELECT p AS player, t.status, t.reason, (mm.dishonor_status(p)).stacks
FROM generate_series(9501, 9506) p, mm.ticket_status(p) t ORDER BY p;
-- the next tick tries it again, and dissolves it once it can
SELECT count(*) AS tick_rows FROM mm.tick('rb2', now() + interval '1 hour');
ALTER TABLE mm.roster DROP CONSTRAINT roster_stuck;
SELECT count(*) AS tick_rows FROM mm.tick('rb2', now() + interval '1 hour');
SELECT l.matches_made, l.dissolves_failed FROM mm.tick_log l JOIN mm.queue q USING (queue_id)
WHERE q.name = 'rb2' ORDER BY l.tick_id;
SELECT p AS player, t.status, t.reason FROM generate_series(9505, 9506) p, mm.ticket_status(p) t ORDER BY p;
-- a result with a desertion when abandon is gone: rated, no dishonor
\set VERBOSITY default
SELECT r.player_id, r.deserted, r.dishonor_stacks, r.state_after <> r.state_before AS rated
FROM (SELECT mr.match_id, jsonb_build_object('teams', jsonb_object_agg(mr.team, jsonb_build_object(
          'rank', CASE mr.team WHEN 'red' THEN 1 ELSE 2 END, 'desertions', to_jsonb(mr.players)))) AS result
      FROM mm.match_roster mr JOIN mm.queue q USING (queue_id) WHERE q.name = 'rb3' GROUP BY mr.match_id) x,
     mm.report_result(x.match_id, x.result) r
ORDER BY r.player_id;
\set VERBOSITY terse
DELETE FROM mm.dishonor_settings;
SELECT mm.drop_queue('rb2', keep_history => false);
SELECT mm.drop_queue('rb3', keep_history => false);
SELECT count(*) FROM (SELECT mm.dishonor_clear(p) FROM generate_series(9501, 9508) p) x;

-- 6. Names and keys: 1 to 63 bytes, no control characters, checked where
-- they are created.
SELECT mm.create_queue(repeat('q', 9000), '{"accept_timeout": 60}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.create_queue(repeat('q', 64));
\echo :LAST_ERROR_SQLSTATE
SELECT mm.create_queue(E'tab\there');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.create_queue(repeat('é', 31) || 'q');   -- 63 bytes
SELECT mm.drop_queue(repeat('é', 31) || 'q', keep_history => false);
SELECT mm.create_queue('rk', jsonb_build_object('rating', jsonb_build_object('key', repeat('k', 6400))));
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config(jsonb_build_object('rating', jsonb_build_object('key', repeat('k', 63)))) -> 'rating' ->> 'key' = repeat('k', 63) AS key_63;
SELECT mm.matcher_config(jsonb_build_object('dodge_reason', repeat('r', 64)));
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config(jsonb_build_object('rating', jsonb_build_object('desertion_reason', E'a\nb')));
\echo :LAST_ERROR_SQLSTATE
SELECT mm.set_dishonor_config(jsonb_build_object('penalties', jsonb_build_object('abandon', 10, 'queue_dodge', 4, repeat('r', 64), 1)));
\echo :LAST_ERROR_SQLSTATE
SELECT mm.create_pool(repeat('p', 64));
\echo :LAST_ERROR_SQLSTATE
SELECT mm.create_queue('rn', '{"team_size": 1, "filter": {"potentials_min": 1}, "accept_timeout": 60}');
SELECT mm.enqueue('rn', ARRAY[9511::bigint], 1500, professions => ARRAY[repeat('p', 64)]);
\echo :LAST_ERROR_SQLSTATE
-- a queue whose name came from before the limit (0.1.0 took any length):
-- its ready check still completes (the NOTIFY leaves out a name that long)
UPDATE mm.queue SET name = repeat('q', 9000) WHERE name = 'rn';
SELECT count(mm.enqueue(repeat('q', 9000), ARRAY[p::bigint], 1500, joined_at => now() - interval '1 minute'))
FROM generate_series(9511, 9512) p;
SELECT count(*) AS proposed FROM mm.tick(repeat('q', 9000));
SELECT mm.accept(mr.match_id, p) AS status
FROM mm.match_roster mr, unnest(mr.players) p WHERE mr.players && ARRAY[9511, 9512]::bigint[] ORDER BY p;
SELECT mm.drop_queue(repeat('q', 9000), keep_history => false);

-- 7. Ratings and deviations lie in [-1e9, 1e9] and [0, 1e9]: the figures
-- derived from them stay finite.
SELECT mm.create_queue('rr', '{"team_size": 1, "filter": {"potentials_min": 1}}');
SELECT mm.enqueue('rr', ARRAY[9521::bigint], -1.7e308, 1e308);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('rr', ARRAY[9522::bigint], -1e308, 0);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('rr', ARRAY[9521::bigint], -1e9, 1e9, joined_at => now() - interval '1 minute') > 0 AS queued;
SELECT mm.enqueue('rr', ARRAY[9522::bigint], 1e9, 1e9, joined_at => now() - interval '1 minute') AS r2 \gset
SELECT mm.update_roster(:r2, rating => 1e10);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.update_roster(:r2, deviation => 2e9);
\echo :LAST_ERROR_SQLSTATE
-- direct writes are held to the same range by the table's CHECKs
INSERT INTO mm.roster (queue_id, rating, deviation) SELECT queue_id, -1.7e308, 1e308 FROM mm.queue WHERE name = 'rr';
\echo :LAST_ERROR_SQLSTATE
UPDATE mm.roster SET deviation = 1e308 WHERE roster_id = :r2;
\echo :LAST_ERROR_SQLSTATE
-- the widest rosters still give a finite spread, in the match, the tick
-- log and the queue's statistics
SELECT count(*) AS tick_rows FROM mm.tick('rr');
SELECT m.rating_spread, l.mean_rating_spread, s.mean_rating_spread AS stats_spread
FROM mm.match m JOIN mm.tick_log l USING (tick_id) JOIN mm.queue q ON q.queue_id = m.queue_id
JOIN mm.queue_stats s ON s.queue = q.name WHERE q.name = 'rr';
-- the matcher over a query refuses what a queue would
SELECT * FROM mm.match_rosters($$SELECT * FROM (VALUES (1::bigint, ARRAY[1::bigint], -1.7e308::float8, 1e308::float8),
                                                       (2, ARRAY[2::bigint], -1e308, 0)) v(roster_id, players, rating, deviation)$$,
                               '{"team_size": 1, "filter": {"potentials_min": 1}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.drop_queue('rr', keep_history => false);

SELECT setval('mm.match_id_seq', :seq_value, :'seq_called') >= 1 AS match_ids_restored;
