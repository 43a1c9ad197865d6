-- Queues over Citus workers, on a single node: the queue-id forms of tick,
-- enqueue, claim_matches and leave do what the queue-name forms do;
-- mm.waiting_player stays empty (mm.queued_player's key keeps a player in
-- one waiting roster); mm.citus_distribute_queues refuses without Citus.
\set VERBOSITY terse
SET timezone = 'UTC';
SELECT mm.create_queue('by_id', '{"team_size": 1, "filter": {"potentials_min": 1}}');
SELECT queue_id AS qid FROM mm.queue WHERE name = 'by_id' AND dropped_at IS NULL \gset
SELECT mm.enqueue(:qid, '{701}', 1500, 50, joined_at => now() - interval '1 minute') AS r1 \gset
SELECT mm.enqueue(:qid, '{702}', 1510, 50, joined_at => now() - interval '1 minute') AS r2 \gset
SELECT mm.enqueue(:qid, '{703}', 1900, 50) AS r3 \gset
-- the same checks as by name: already queued
SELECT mm.enqueue(:qid, '{701}', 1500, 50);
\echo :LAST_ERROR_SQLSTATE
SELECT player_id, roster_id = :r1 AS first FROM mm.queued_player WHERE player_id = 701;
-- an unknown or dropped queue id
SELECT mm.enqueue(-1, '{704}', 1500, 50);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.tick(NULL::int);
\echo :LAST_ERROR_SQLSTATE
-- a tick by id matches 701 with 702; claimed once
SELECT count(*) AS rosters, count(DISTINCT match_id) AS matches,
       bool_and(roster_id IN (:r1, :r2)) AS the_two FROM mm.tick(:qid);
SELECT count(*) AS rosters FROM mm.claim_matches(:qid);
SELECT count(*) AS rosters FROM mm.claim_matches(:qid);
SELECT mm.claim_matches(:qid, 0);
\echo :LAST_ERROR_SQLSTATE
-- leave by queue id: only a roster of that queue
SELECT mm.create_queue('other', '{"team_size": 1}');
SELECT mm.leave((SELECT queue_id FROM mm.queue WHERE name = 'other'), :r3) AS other_queue,
       mm.leave(:qid, :r3) AS left_queue;
SELECT mm.leave(:qid, :r3) AS again;
SELECT status, reason FROM mm.roster_status(:r3) ORDER BY at, status;
-- the unquoted literal still picks the queue-name form
SELECT count(*) FROM mm.tick('by_id');
-- a single node holds players in mm.queued_player, not in mm.waiting_player
SELECT count(*) AS waiting_player_rows FROM mm.waiting_player;
SELECT mm._queues_distributed() AS distributed;
-- the DBA's Citus step, without Citus
SELECT * FROM mm.citus_distribute_queues();
\echo :LAST_ERROR_SQLSTATE
\set VERBOSITY default
SELECT * FROM mm.citus_distribute_queues();
SELECT mm.drop_queue('by_id', keep_history => false);
SELECT mm.drop_queue('other', keep_history => false);

-- every queue-id form returns what its queue-name form returns, column for column
SELECT n.proname, pg_catalog.pg_get_function_result(n.oid) = pg_catalog.pg_get_function_result(t.oid) AS same_result
FROM pg_catalog.pg_proc n
JOIN pg_catalog.pg_proc t ON t.proname = n.proname AND t.pronamespace = n.pronamespace
WHERE n.pronamespace = 'mm'::regnamespace
  AND n.proargtypes[0] = 'int4'::regtype AND t.proargtypes[0] = 'text'::regtype
  AND n.proname IN ('tick', 'enqueue', 'claim_matches')
ORDER BY 1;

-- report_result by the queue's id rates a match of that queue as by the
-- match id alone, and refuses a match of another queue
\set VERBOSITY terse
SELECT mm.create_queue('by_id_rep', '{"team_size": 1, "filter": {"potentials_min": 1}}');
SELECT queue_id AS rq FROM mm.queue WHERE name = 'by_id_rep' AND dropped_at IS NULL \gset
SELECT count(mm.enqueue(:rq, ARRAY[p]::bigint[], 1500, 50, joined_at => now() - interval '1 minute'))
FROM generate_series(711, 714) p;
SELECT count(*) AS rosters FROM mm.tick(:rq);
SELECT min(match_id) AS m1, max(match_id) AS m2 FROM mm.match WHERE queue_id = :rq \gset
SELECT player_id, team, rank, state_after IS NOT NULL AS rated
FROM mm.report_result(:rq, :m1, '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}') ORDER BY player_id;
-- the same report by match id alone returns the first outcome
SELECT count(*) AS same_outcome FROM mm.report_result(:m1, '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}');
-- (the messages name match ids: their SQLSTATEs only)
\set VERBOSITY sqlstate
SELECT * FROM mm.report_result(:rq + 1000, :m2, '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.report_result(NULL::int, :m2, '{}');
\echo :LAST_ERROR_SQLSTATE
\set VERBOSITY terse
-- the match of the other report stays open
SELECT status FROM mm.match WHERE match_id = :m2;
SELECT mm.drop_queue('by_id_rep', keep_history => false);
