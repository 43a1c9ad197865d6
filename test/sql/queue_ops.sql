-- Operations: alter_queue merges (replace for a full replace) and removes
-- rosters a smaller team_size cannot hold; drop_queue keeps the history by
-- default; purge trims history in bounded batches; queue_stats.
\set VERBOSITY terse
SET timezone = 'UTC';
SELECT mm.create_queue('ops', '{"team_size": 3, "filter": {"potentials_min": 1, "padding": 5}, "scoring": {"age": 1}}');

-- merge: nested objects merge key by key
SELECT mm.alter_queue('ops', '{"filter": {"rosters": 10}}');
SELECT mm.alter_queue('ops', '{"scoring": {"age": 2}, "ticket_ttl": "1 hour"}');
-- replace
SELECT mm.alter_queue('ops', '{"team_size": 3, "filter": {"potentials_min": 1}}', replace => true);
-- a bad merged config is refused and nothing changes
SELECT mm.alter_queue('ops', '{"filter": {"potentials_max": 0}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.alter_queue('ops', NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.alter_queue('nope', '{}');
\echo :LAST_ERROR_SQLSTATE
SELECT config FROM mm.queue WHERE name = 'ops';

-- a smaller team_size removes the rosters it cannot hold (recorded)
SELECT mm.enqueue('ops', ARRAY[1, 2, 3], 1500) AS trio \gset
SELECT mm.enqueue('ops', ARRAY[4, 5], 1500) AS duo \gset
SELECT mm.enqueue('ops', ARRAY[6], 1500) AS solo \gset
SELECT mm.alter_queue('ops', '{"team_size": 2}');
SELECT players FROM mm.list_queue('ops') ORDER BY place;
SELECT status, reason FROM mm.ticket_status(1);

-- queue_stats: waits now, and time to match over the last hour
SELECT mm.enqueue('ops', ARRAY[7], 1500, joined_at => now() - interval '90 seconds');
SELECT mm.enqueue('ops', ARRAY[8, 9], 1500, joined_at => now() - interval '30 seconds');
SELECT count(DISTINCT match_id) AS matches FROM mm.tick('ops');
SELECT queue, waiting_rosters, waiting_players, matches_last_hour,
       time_to_match_p50 > interval '0' AS has_p50, time_to_match_p99 >= time_to_match_p50 AS ordered,
       estimated_wait = time_to_match_p50 AS estimate
FROM mm.queue_stats WHERE queue = 'ops';

-- drop_queue keeps the history by default: rosters go (recorded), the
-- matches, ticket history and tick log stay, the name is free again
SELECT mm.enqueue('ops', ARRAY[10], 1500) AS late \gset
SELECT mm.drop_queue('ops');
-- (the rosters of its matches stay with them, in mm.roster, until each
-- match is reported or abandoned)
SELECT (SELECT count(*) FROM mm.roster WHERE match_id IS NULL) AS rosters,
       (SELECT count(*) FROM mm.queued_player qp JOIN mm.roster r USING (queue_id, roster_id) WHERE r.match_id IS NULL) AS players,
       (SELECT count(*) FROM mm.match) AS matches, (SELECT count(*) FROM mm.tick_log) > 0 AS ticks,
       (SELECT status FROM mm.ticket_status(10)) AS late_status;
SELECT count(*) AS listed FROM mm.queue_stats WHERE queue = 'ops';
SELECT mm.drop_queue('ops');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('ops', ARRAY[11], 1500);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.create_queue('ops');
SELECT count(*) AS queues_named_ops FROM mm.queue WHERE name = 'ops';
-- keep_history => false deletes it all
SELECT mm.enqueue('ops', ARRAY[12], 1500) > 0 AS queued;
SELECT mm.drop_queue('ops', keep_history => false);
SELECT count(*) AS queues_named_ops FROM mm.queue WHERE name = 'ops';

-- purge: nothing is older than a day; everything is older than 0 s, taken
-- in batches of at most max_rows; a match nobody claimed nor finished
-- stays while its queue is live (the dropped queue's match goes)
SELECT mm.purge('1 day');
SELECT mm.purge('0 seconds', max_rows => 3) AS first_batch;
SELECT sum(n) > 0 AS more FROM (SELECT mm.purge('0 seconds', max_rows => 3) AS n FROM generate_series(1, 20)) s;
SELECT (SELECT count(*) FROM mm.match) AS matches, (SELECT count(*) FROM mm.match_roster) AS match_rosters,
       (SELECT count(*) FROM mm.tick_log) AS ticks, (SELECT count(*) FROM mm.ticket_event) AS events,
       (SELECT count(*) FROM mm.queue WHERE name = 'ops') AS queues;
SELECT mm.create_queue('live', '{"team_size": 1, "filter": {"potentials_min": 1}}');
SELECT count(mm.enqueue('live', ARRAY[p], 1500, 10, joined_at => now() - interval '1 minute')) FROM generate_series(31, 32) p;
SELECT count(*) FROM mm.tick('live', now() - interval '1 second');
SELECT mm.purge('0 seconds', max_rows => 100) >= 0 AS purged;
SELECT count(*) AS live_undelivered_kept FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'live';
SELECT count(*) FROM mm.claim_matches('live');
SELECT mm.drop_queue('live', keep_history => false);
SELECT mm.purge('-1 day');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.purge('1 day', 0);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.purge(NULL);
\echo :LAST_ERROR_SQLSTATE

-- A player removed from a party before the party matched is not in its
-- match: its last ticket ended "removed", its partner's "matched" (read
-- from the match's roster row, the tick writes no event per player); with
-- requeue_while_in_match false the removed player may queue again while
-- its former partner may not.
SELECT mm.create_queue('ops_removed', '{"team_size": 2, "filter": {"potentials_min": 1}, "requeue_while_in_match": false}');
SELECT mm.enqueue('ops_removed', ARRAY[21, 22], 1500, 10, joined_at => now() - interval '1 minute') AS p21 \gset
SELECT count(mm.enqueue('ops_removed', ARRAY[p], 1500, 10, joined_at => now() - interval '1 minute'))
FROM unnest(ARRAY[23, 24, 25]::bigint[]) p;
SELECT mm.remove_player(:p21, 22);
SELECT count(DISTINCT match_id) AS made, count(*) AS rosters FROM mm.tick('ops_removed') \gset
SELECT :made AS made, :rosters AS rosters;
SELECT p AS player, t.status, t.match_id IS NOT NULL AS has_match, t.reason
FROM unnest(ARRAY[21, 22]::bigint[]) p, mm.ticket_status(p) t ORDER BY p;
SELECT status, players, match_id IS NOT NULL AS has_match, reason FROM mm.roster_status(:p21);
SELECT count(*) AS matched_events FROM mm.ticket_event e JOIN mm.queue q USING (queue_id)
WHERE q.name = 'ops_removed' AND e.status = 'matched';
SELECT mm.enqueue('ops_removed', ARRAY[22], 1500) > 0 AS removed_player_queued;
\set VERBOSITY sqlstate
SELECT mm.enqueue('ops_removed', ARRAY[21], 1500);
\set VERBOSITY terse
SELECT mm.drop_queue('ops_removed', keep_history => false);
