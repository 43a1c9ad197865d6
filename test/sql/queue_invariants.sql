-- The queue tables keep their invariants themselves: keys, foreign keys
-- and CHECKs, no triggers. Direct DML cannot put a player in two waiting
-- rosters or poison a queue; TRUNCATE cannot leave players behind.
\set VERBOSITY terse
SET timezone = 'UTC';
SELECT mm.create_queue('inv', '{"team_size": 1, "filter": {"potentials_min": 1}}');
SELECT mm.create_queue('inv2', '{"team_size": 2, "filter": {"potentials_min": 1}}');
SELECT mm.enqueue('inv', ARRAY[1], 1500, 10, joined_at => '2024-01-01 12:00:00+00') AS a \gset
SELECT mm.enqueue('inv', ARRAY[2], 1505, 10, joined_at => '2024-01-01 12:00:01+00') AS b \gset
SELECT mm.enqueue('inv2', ARRAY[3, 4], 1500, 10, professions => '{thief,mesmer}') AS c \gset

-- no triggers on the queue tables
SELECT count(*) AS triggers FROM pg_trigger t
WHERE t.tgrelid IN ('mm.queue'::regclass, 'mm.roster'::regclass, 'mm.queued_player'::regclass, 'mm.match'::regclass,
                    'mm.match_roster'::regclass, 'mm.ticket_event'::regclass, 'mm.tick_log'::regclass)
  AND NOT t.tgisinternal;

-- a player is a row: a second waiting roster for player 1 is refused,
-- in the same queue or another
INSERT INTO mm.roster (roster_id, queue_id, rating) SELECT 1000, queue_id, 1500 FROM mm.queue WHERE name = 'inv2';
INSERT INTO mm.queued_player (player_id, roster_id, queue_id, seat) SELECT 1, 1000, queue_id, 1 FROM mm.queue WHERE name = 'inv2';
\echo :LAST_ERROR_SQLSTATE
-- a player row must belong to a roster of its queue
INSERT INTO mm.queued_player (player_id, roster_id, queue_id, seat) SELECT 9, :a, queue_id, 2 FROM mm.queue WHERE name = 'inv2';
\echo :LAST_ERROR_SQLSTATE
UPDATE mm.queued_player SET roster_id = 999999 WHERE player_id = 1;
\echo :LAST_ERROR_SQLSTATE
UPDATE mm.queued_player SET seat = 0 WHERE player_id = 1;
\echo :LAST_ERROR_SQLSTATE
UPDATE mm.queued_player SET profession = '' WHERE player_id = 3;
\echo :LAST_ERROR_SQLSTATE
-- a roster with no players is not waiting for anything: ticks and
-- list_queue leave it out
SELECT count(*) AS listed FROM mm.list_queue('inv2');
DELETE FROM mm.roster WHERE roster_id = 1000;

-- the numbers of a roster: finite, deviation not negative, joined_at
-- finite and not in the future
UPDATE mm.roster SET rating = 'NaN' WHERE roster_id = :a;
\echo :LAST_ERROR_SQLSTATE
UPDATE mm.roster SET rating = 'Infinity' WHERE roster_id = :a;
\echo :LAST_ERROR_SQLSTATE
UPDATE mm.roster SET deviation = -1 WHERE roster_id = :a;
\echo :LAST_ERROR_SQLSTATE
UPDATE mm.roster SET rank = '-Infinity' WHERE roster_id = :a;
\echo :LAST_ERROR_SQLSTATE
UPDATE mm.roster SET ladder_points = 'Infinity' WHERE roster_id = :a;
\echo :LAST_ERROR_SQLSTATE
UPDATE mm.roster SET dishonor = -1 WHERE roster_id = :a;
\echo :LAST_ERROR_SQLSTATE
UPDATE mm.roster SET joined_at = '-infinity' WHERE roster_id = :a;
\echo :LAST_ERROR_SQLSTATE
UPDATE mm.roster SET joined_at = 'infinity' WHERE roster_id = :a;
\echo :LAST_ERROR_SQLSTATE
UPDATE mm.roster SET joined_at = now() + interval '1 minute' WHERE roster_id = :a;
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('inv', ARRAY[5], 1500, joined_at => '-infinity');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('inv', ARRAY[5], 1500, joined_at => now() + interval '1 second');
\echo :LAST_ERROR_SQLSTATE
-- the queue still ticks
SELECT count(*) AS rows, count(DISTINCT match_id) AS matches FROM mm.tick('inv', '2024-01-01 12:01:00+00');

-- matches and their rosters: a team is red or blue, a match is matched or
-- finished, a roster is matched once, a match roster belongs to a match of
-- its queue
UPDATE mm.match SET status = 'lost';
\echo :LAST_ERROR_SQLSTATE
-- (a matched roster stays in mm.roster with its match until the match
-- ends, then moves to mm.ended_roster: mm.match_roster shows both)
UPDATE mm.roster SET team = '' WHERE match_id IS NOT NULL;
\echo :LAST_ERROR_SQLSTATE
INSERT INTO mm.roster (roster_id, queue_id, rating, match_id, team, waited)
SELECT roster_id, queue_id, rating, match_id, team, waited FROM mm.roster WHERE match_id IS NOT NULL LIMIT 1;
\echo :LAST_ERROR_SQLSTATE
UPDATE mm.roster SET match_id = match_id + 1000 WHERE match_id IS NOT NULL;
\echo :LAST_ERROR_SQLSTATE
-- a roster in a match has its team and wait, a waiting one has neither
UPDATE mm.roster SET team = NULL WHERE match_id IS NOT NULL;
\echo :LAST_ERROR_SQLSTATE
UPDATE mm.roster SET team = 'red' WHERE match_id IS NULL;
\echo :LAST_ERROR_SQLSTATE
-- a player in a match is held by its row there: it cannot be put in a
-- waiting roster too, unless that row is marked requeued
INSERT INTO mm.roster (roster_id, queue_id, rating) SELECT 2000, queue_id, 1500 FROM mm.queue WHERE name = 'inv';
INSERT INTO mm.queued_player (player_id, roster_id, queue_id, seat)
SELECT qp.player_id, 2000, qp.queue_id, 1 FROM mm.queued_player qp JOIN mm.roster r USING (queue_id, roster_id)
WHERE r.match_id IS NOT NULL LIMIT 1;
\echo :LAST_ERROR_SQLSTATE
DELETE FROM mm.roster WHERE roster_id = 2000;
-- the rosters of an ended match: the same checks
SELECT mm.abandon_match(min(match_id)) FROM mm.roster WHERE match_id IS NOT NULL;
UPDATE mm.ended_roster SET team = '';
\echo :LAST_ERROR_SQLSTATE
INSERT INTO mm.ended_roster SELECT * FROM mm.ended_roster LIMIT 1;
\echo :LAST_ERROR_SQLSTATE
UPDATE mm.ended_roster SET match_id = match_id + 1000;
\echo :LAST_ERROR_SQLSTATE
UPDATE mm.tick_log SET failed_reasons = '[]';
\echo :LAST_ERROR_SQLSTATE
UPDATE mm.ticket_event SET status = 'gone' WHERE player_id = 1;
\echo :LAST_ERROR_SQLSTATE
INSERT INTO mm.ticket_event (roster_id, player_id, status, at, queue_id)
    SELECT roster_id, player_id, 'matched', at, queue_id FROM mm.ticket_event LIMIT 1;
\echo :LAST_ERROR_SQLSTATE

-- TRUNCATE of the rosters alone is refused; with CASCADE it takes the
-- players too, and everyone may queue again
TRUNCATE mm.roster;
\echo :LAST_ERROR_SQLSTATE
TRUNCATE mm.roster CASCADE;
SELECT count(*) AS players_left FROM mm.queued_player;
SELECT mm.enqueue('inv2', ARRAY[3, 4], 1500) > 0 AS requeued;

-- deleting a roster by hand frees its players
DELETE FROM mm.roster;
SELECT count(*) AS players_left FROM mm.queued_player;

-- deleting a match by hand deletes its rosters
DELETE FROM mm.match;
SELECT count(*) AS match_rosters_left FROM mm.match_roster;

SELECT mm.drop_queue('inv', keep_history => false);
SELECT mm.drop_queue('inv2', keep_history => false);
SELECT (SELECT count(*) FROM mm.ticket_event) AS events, (SELECT count(*) FROM mm.tick_log) AS ticks;
