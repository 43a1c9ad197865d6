-- Roster matcher over queue tables: queues, enqueue, leave, update, ticks,
-- preview, the tick log and the statistics view.
\set VERBOSITY default
SET timezone = 'UTC';

-- Queues
-- (ratings near 1500 are on the Glicko scale: the duel queue says so, and
-- its padding, rating_distance and prediction spread are Glicko-2's, its
-- range the GW2 wiki's one deviation)
SELECT mm.create_queue('duel', '{"team_size": 1, "filter": {"deviations": 1, "rosters": 2, "potentials_min": 1}, "rating": {"model": "glicko2"}}');
SELECT mm.create_queue('arena');
SELECT name, config FROM mm.queue ORDER BY name;
SELECT mm.create_queue('duel');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.create_queue('');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.create_queue(NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.create_queue('x', NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.create_queue('x', '{"team_size": -1}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.alter_queue('arena', '{"team_size": 3, "filter": {"potentials_min": 2}}');
SELECT config FROM mm.queue WHERE name = 'arena';
SELECT mm.alter_queue('nope', '{}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.alter_queue('arena', '{"filter": {"padding": "x"}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.alter_queue('arena', NULL);
\echo :LAST_ERROR_SQLSTATE

-- Enqueue: four duelists with deviation 10 at 12:00. 1500 and 1505
-- overlap; 1800 and 2500 overlap nobody.
SELECT mm.enqueue('duel', ARRAY[1], 1500, 10, joined_at => '2024-01-01 12:00:00+00') AS a \gset
SELECT mm.enqueue('duel', ARRAY[2], 1800, 10, joined_at => '2024-01-01 12:00:01+00') AS b \gset
SELECT mm.enqueue('duel', ARRAY[3], 1505, 10, joined_at => '2024-01-01 12:00:02+00') AS c \gset
SELECT mm.enqueue('duel', ARRAY[4], 2500, 10, rank => 3, ladder_points => 7, professions => '{thief}',
                  joined_at => '2024-01-01 12:00:03+00') AS d \gset
SELECT place, players, rating, deviation, rank, ladder_points, dishonor, professions, waited
FROM mm.list_queue('duel', '2024-01-01 12:00:10+00');
SELECT qp.player_id FROM mm.queued_player qp JOIN mm.roster r USING (queue_id, roster_id) WHERE r.match_id IS NULL ORDER BY 1;

-- Enqueue refuses
SELECT mm.enqueue('nope', ARRAY[10], 1500);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('duel', ARRAY[]::bigint[], 1500);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('duel', NULL, 1500);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('duel', ARRAY[10, 11], 1500);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('arena', ARRAY[10, 10], 1500);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('arena', ARRAY[10, NULL], 1500);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('arena', ARRAY[[10], [11]], 1500);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('arena', ARRAY[10, 3], 1500);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('arena', ARRAY[10], 'NaN');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('arena', ARRAY[10], 'Infinity');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('arena', ARRAY[10], 1500, NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('arena', ARRAY[10], 1500, -1);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('arena', ARRAY[10], 1500, rank => '-Infinity');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('arena', ARRAY[10], 1500, ladder_points => 'NaN');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('arena', ARRAY[10], 1500, dishonor => -1);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('arena', ARRAY[10, 11], 1500, professions => '{thief}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('arena', ARRAY[10], 1500, professions => ARRAY[NULL]::text[]);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('arena', ARRAY[10], 1500, joined_at => 'infinity');
\echo :LAST_ERROR_SQLSTATE

-- Dishonor is checked now, whatever joined_at says: a queue dodge 3
-- minutes ago gives 4 stacks and a timeout of 4^1.5 * 30 s = 240 s,
-- rounded to 1 min: 4 minutes, so one more minute.
SELECT stacks, timeout_until = date_trunc('minute', now() - interval '3 minutes') + interval '4 minutes' AS until_ok
FROM mm.dishonor(20, 'queue_dodge', date_trunc('minute', now() - interval '3 minutes'));
\set VERBOSITY terse
SELECT mm.enqueue('arena', ARRAY[10, 20], 1500);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('arena', ARRAY[10, 20], 1500, joined_at => '2024-01-01 12:05:00+00');
\echo :LAST_ERROR_SQLSTATE
-- joined_at may not lie in the future (a timeout is not dodged that way)
SELECT mm.enqueue('arena', ARRAY[10, 20], 1500, joined_at => now() + interval '1 hour');
\echo :LAST_ERROR_SQLSTATE
\set VERBOSITY default
-- After the timeout the player queues again; the roster's dishonor is its
-- players' current stacks.
SELECT mm.dishonor_clear(20);
SELECT stacks FROM mm.dishonor(20, 'queue_dodge', now() - interval '10 minutes');
SELECT mm.enqueue('arena', ARRAY[10, 20], 1500, joined_at => '2024-01-01 12:05:00+00') AS e \gset
SELECT r.dishonor, (SELECT stacks FROM mm.dishonor_status(20)) AS stacks_of_20
FROM mm.roster r WHERE r.roster_id = :e;
-- an explicit dishonor wins
SELECT mm.enqueue('arena', ARRAY[30], 1500, dishonor => 2, joined_at => '2024-01-01 12:05:00+00') AS f \gset
SELECT dishonor FROM mm.roster WHERE roster_id = :f;

-- Update a waiting roster: NULL keeps a value, the place in the queue stays.
SELECT mm.update_roster(:f, rating => 1600, professions => '{mesmer}');
SELECT players, rating, deviation, dishonor, professions FROM mm.list_queue('arena') ORDER BY place;
SELECT mm.update_roster(:f, deviation => -3);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.update_roster(:f, rating => 'NaN');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.update_roster(:f, professions => '{a,b}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.update_roster(NULL, rating => 1);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.update_roster(-1, rating => 1);

-- Leave: true once, then false; the players may queue again.
SELECT mm.leave(:f), mm.leave(:f), mm.leave(-1);
SELECT count(*) FROM mm.queued_player WHERE player_id = 30;
SELECT mm.leave(NULL);

-- Preview: what a tick would do at 12:00:10, nothing written. Targets are
-- the first 2 rosters (filter.rosters): 1 (1500) takes 3 (1505); 2 (1800)
-- overlaps nobody and fails; 4 is not a target.
SELECT p.match_id, r.players, p.team
FROM mm.preview('duel', '2024-01-01 12:00:10+00') p JOIN mm.list_queue('duel') r USING (roster_id)
ORDER BY 1, 3 DESC;
SELECT count(*) AS matches FROM mm.match;

-- Tick: the same match; matched rosters leave the queue and free their
-- players; the failed target 2 goes to the back, behind 4.
CREATE TEMP TABLE t AS SELECT * FROM mm.tick('duel', '2024-01-01 12:00:10+00');
SELECT mr.players, t.team FROM t JOIN mm.match_roster mr USING (match_id, roster_id) ORDER BY t.team DESC;
SELECT place, players FROM mm.list_queue('duel') ORDER BY place;
SELECT qp.player_id FROM mm.queued_player qp JOIN mm.roster r USING (queue_id, roster_id) WHERE r.match_id IS NULL ORDER BY 1;
SELECT m.prediction, m.red_odds, m.blue_odds, m.rating_spread, m.created_at
FROM mm.match m JOIN t USING (match_id) LIMIT 1;
SELECT mr.players, mr.team, mr.rating, mr.deviation, mr.waited FROM mm.match_roster mr ORDER BY mr.team DESC;
SELECT rosters_seen, matches_made, targets_failed, oldest_wait, mean_rating_spread, duration_ms >= 0 AS timed
FROM mm.tick_log ORDER BY tick_id;
-- A matched roster cannot leave. Its players may not queue again while the
-- match is not finished (requeue_while_in_match is false by default); a
-- queue that allows it lets them.
SELECT mm.leave(:a);
\set VERBOSITY sqlstate
SELECT mm.enqueue('duel', ARRAY[1], 1500, 10, joined_at => '2024-01-01 12:00:20+00') > 0 AS requeued;
\set VERBOSITY default
SELECT mm.alter_queue('duel', '{"requeue_while_in_match": true}') -> 'requeue_while_in_match' AS requeue;
SELECT mm.enqueue('duel', ARRAY[1], 1500, 10, joined_at => '2024-01-01 12:00:20+00') > 0 AS requeued;

-- At 12:04:00 rosters 4 (2500) and 2 (1800) have waited about 4 minutes:
-- padding 2100 each way, so they overlap each other and 1 (1500, just
-- queued, range [1490, 1510]). Target 4 (first now): blue is empty and
-- scored against 4's effective rating 2490: 2 (1790, waited 239 s) scores
-- 15 * 239 - 5 * 700 = 85, 1 (1490, waited 220 s) 15 * 220 - 5 * 1000 =
-- -1700: 2.
CREATE TEMP TABLE t2 AS SELECT * FROM mm.tick('duel', '2024-01-01 12:04:00+00');
SELECT r.players, t2.team FROM t2 JOIN mm.match_roster r USING (roster_id) ORDER BY t2.team DESC;
SELECT place, players FROM mm.list_queue('duel') ORDER BY place;

-- Statistics
SELECT queue, waiting_rosters, waiting_players, wait_p50 IS NOT NULL AS has_waits
FROM mm.queue_stats ORDER BY queue;
SELECT queue, ticks_last_hour, matches_last_hour FROM mm.queue_stats ORDER BY queue;

-- Tick errors
SELECT * FROM mm.tick('nope');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.tick('duel', 'infinity');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.preview('nope');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.list_queue('nope');
\echo :LAST_ERROR_SQLSTATE
-- An empty queue ticks fine and logs it.
SELECT * FROM mm.tick('arena', '2024-01-01 13:00:00+00') WHERE false;
SELECT mm.leave(roster_id) FROM mm.list_queue('arena');
SELECT count(*) FROM mm.tick('arena', '2024-01-01 13:00:00+00');
SELECT rosters_seen, matches_made, oldest_wait FROM mm.tick_log ORDER BY tick_id DESC LIMIT 1;

-- run_ticks refuses bad arguments (every below 100 ms) and a transaction block
CALL mm.run_ticks('nope', '1 second', '1 second');
\echo :LAST_ERROR_SQLSTATE
CALL mm.run_ticks('duel', '0 seconds', '1 second');
\echo :LAST_ERROR_SQLSTATE
CALL mm.run_ticks('duel', '99 milliseconds', '1 second');
\echo :LAST_ERROR_SQLSTATE
CALL mm.run_ticks('duel', '1 second', '-1 second');
\echo :LAST_ERROR_SQLSTATE
CALL mm.run_ticks('duel', '1 month', '1 second');
\echo :LAST_ERROR_SQLSTATE
CALL mm.run_ticks('duel', NULL, '1 second');
\echo :LAST_ERROR_SQLSTATE
BEGIN;
CALL mm.run_ticks('duel', '1 second', '0 seconds');
\echo :LAST_ERROR_SQLSTATE
ROLLBACK;
-- one tick of every queue (span 0), each committed; a queue whose tick
-- fails (its config broken by hand) gets a WARNING and the others go on
SELECT mm.create_queue('broken');
UPDATE mm.queue SET config = '{"team_size": 0}' WHERE name = 'broken';
CALL mm.run_ticks(NULL, '1 second', '0 seconds');
SELECT q.name, count(l.tick_id) AS log_rows, coalesce(sum(l.ticks), 0) AS ticks
FROM mm.queue q LEFT JOIN mm.tick_log l USING (queue_id)
GROUP BY q.name ORDER BY q.name;
SELECT mm.drop_queue('broken');
-- run_ticks stops after span of wall time (here 0.5 s), not after
-- span / every ticks
SELECT clock_timestamp() AS t0 \gset
CALL mm.run_ticks('duel', '100 milliseconds', '500 milliseconds');
SELECT clock_timestamp() - :'t0'::timestamptz BETWEEN interval '0.4 seconds' AND interval '3 seconds' AS bounded;

-- Drop a queue: its rosters, players, matches and ticks go with it.
SELECT mm.drop_queue('duel', keep_history => false);
SELECT mm.drop_queue('duel', keep_history => false);
\echo :LAST_ERROR_SQLSTATE
SELECT (SELECT count(*) FROM mm.roster) AS rosters, (SELECT count(*) FROM mm.queued_player) AS players,
       (SELECT count(*) FROM mm.match) AS matches, (SELECT count(*) FROM mm.match_roster) AS match_rosters;
SELECT mm.drop_queue('arena', keep_history => false);
SELECT mm.dishonor_clear(20);
DROP TABLE t, t2;
