-- The event feed (mm.events): every kind, written by the call that makes it
-- happen; the cursor; the argument checks; retention by mm.purge with the
-- counters of mm.queue_metrics folded, never going back.
SET client_min_messages = warning;
SET mm.event_retention = '1h';
-- the tests after this one count on mm's sequences: put them back at the end
\i test/support/sequences_save.sql

-- a queue with a ready check, one player a team, matched at once
SELECT mm.create_queue('evq', jsonb_build_object('team_size', 1, 'filter', jsonb_build_object('potentials_min', 1),
                                                'accept_timeout', '10 minutes', 'dodge_reason', 'queue_dodge'));
-- the feed of one queue, read from a cursor kept in a psql variable
SELECT 0 AS cursor \gset
CREATE FUNCTION pg_temp.feed(after bigint)
RETURNS TABLE (kind text, roster bool, players bigint[], detail jsonb, waited_a_minute bool)
LANGUAGE sql AS $$
    SELECT e.kind, e.roster_id IS NOT NULL, e.player_ids,
           e.detail - 'joined_at' - 'accept_until' - 'rosters' - 'requeued_rosters' - 'backfill_id' - 'waits',
           (SELECT bool_and(w::numeric >= 60) FROM jsonb_array_elements_text(e.detail -> 'waits') w)
    FROM mm.events('evq', after) e
$$;

-- queued, left (mm.leave, mm.remove_player, mm.leave_player)
SELECT mm.enqueue('evq', ARRAY[8101], 1500, joined_at => now() - interval '1 minute') > 0 AS queued;
SELECT mm.enqueue('evq', ARRAY[8102], 1500, joined_at => now() - interval '1 minute') > 0 AS queued;
SELECT mm.enqueue('evq', ARRAY[8103], 1500) AS r3 \gset
SELECT mm.leave(:r3);
SELECT * FROM pg_temp.feed(:cursor);
SELECT max(event_id) AS cursor FROM mm.events('evq', :cursor) \gset

-- a tick proposes; one accepts, the other declines: dissolved, the
-- accepter's roster back in the queue
SELECT count(*) AS rosters FROM mm.tick('evq');
SELECT m.match_id AS m1 FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'evq' \gset
SELECT mm.accept(:m1, 8101);
SELECT mm.decline(:m1, 8102);
SELECT * FROM pg_temp.feed(:cursor);
SELECT max(event_id) AS cursor FROM mm.events('evq', :cursor) \gset

-- another proposal, accepted by both: matched, with the rosters' waits
SELECT mm.enqueue('evq', ARRAY[8104], 1500, joined_at => now() - interval '2 minutes') > 0 AS queued;
SELECT count(*) AS rosters FROM mm.tick('evq');
SELECT m.match_id AS m2 FROM mm.match m JOIN mm.queue q USING (queue_id)
WHERE q.name = 'evq' AND m.status = 'proposed' \gset
SELECT mm.accept(:m2, 8101), mm.accept(:m2, 8104);
SELECT * FROM pg_temp.feed(:cursor);
SELECT max(event_id) AS cursor FROM mm.events('evq', :cursor) \gset

-- a backfill requested and filled; the match reported
SELECT mm.request_backfill(:m2, 'red', 1) > 0 AS requested;
SELECT mm.enqueue('evq', ARRAY[8105], 1500) > 0 AS queued;
SELECT count(*) >= 0 AS ticked FROM mm.tick('evq');
SELECT count(*) AS claimed FROM mm.claim_matches('evq');
SELECT count(*) AS rated FROM mm.report_result(:m2, '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}');
SELECT * FROM pg_temp.feed(:cursor);
SELECT max(event_id) AS cursor FROM mm.events('evq', :cursor) \gset

-- expired (ticket_ttl) and the end of a ready check (dissolved, timeout);
-- an abandoned match
SELECT mm.alter_queue('evq', '{"ticket_ttl": 60}') IS NOT NULL AS altered;
SELECT mm.enqueue('evq', ARRAY[8106], 1500) > 0 AS queued;
SELECT count(*) AS rosters FROM mm.tick('evq', now() + interval '2 minutes');
SELECT mm.alter_queue('evq', '{"ticket_ttl": null}') IS NOT NULL AS altered;
SELECT mm.enqueue('evq', ARRAY[8107], 1500, joined_at => now() - interval '1 minute') > 0 AS queued;
SELECT mm.enqueue('evq', ARRAY[8108], 1500, joined_at => now() - interval '1 minute') > 0 AS queued;
SELECT count(*) AS rosters FROM mm.tick('evq');
SELECT count(*) AS rosters FROM mm.tick('evq', now() + interval '11 minutes');
SELECT * FROM pg_temp.feed(:cursor);
SELECT max(event_id) AS cursor FROM mm.events('evq', :cursor) \gset
SELECT mm.alter_queue('evq', '{"accept_timeout": null}') IS NOT NULL AS altered;
SELECT mm.enqueue('evq', ARRAY[8109], 1500, joined_at => now() - interval '1 minute') > 0 AS queued;
SELECT mm.enqueue('evq', ARRAY[8110], 1500, joined_at => now() - interval '1 minute') > 0 AS queued;
SELECT count(*) AS rosters FROM mm.tick('evq');
SELECT m.match_id AS m3 FROM mm.match m JOIN mm.queue q USING (queue_id)
WHERE q.name = 'evq' AND m.status = 'matched' \gset
SELECT mm.abandon_match(:m3);
SELECT * FROM pg_temp.feed(:cursor);

-- the feed in id order, max_events, a cursor past the end, a wait that
-- finds nothing
SELECT bool_and(event_id > 0) AND count(*) = 3 AS three FROM mm.events('evq', 0, 3);
SELECT count(*) AS none FROM mm.events('evq', 9223372036854775806);
SELECT count(*) AS none FROM mm.events('evq', 9223372036854775806, 10, '30 ms');
SELECT (SELECT array_agg(event_id) FROM mm.events('evq', 0, 10000))
     = (SELECT array_agg(event_id ORDER BY event_id) FROM mm.queue_event e JOIN mm.queue q USING (queue_id)
        WHERE q.name = 'evq') AS in_id_order;

-- the sequence must draw one id at a time (the feed's proof needs it)
SELECT seqcache FROM pg_sequence WHERE seqrelid = 'mm.queue_event_id_seq'::regclass;

-- errors
SELECT * FROM mm.events(NULL);
SELECT * FROM mm.events('evq', NULL);
SELECT * FROM mm.events('evq', 0, 0);
SELECT * FROM mm.events('evq', 0, 10001);
SELECT * FROM mm.events('evq', 0, 10, '-1 second');
SELECT * FROM mm.events('evq', 0, 10, '11 minutes');
SELECT * FROM mm.events('no such queue');
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT * FROM mm.events('evq');
ROLLBACK;

-- metrics: the counters so far
SELECT enqueued_total, left_total, expired_total, proposed_total, dissolved_total, accepted_total, declined_total,
       matches_total, players_matched_total, backfills_requested_total, backfills_filled_total, results_total,
       abandoned_total, ticks_total > 0 AS ticked, tick_errors_total, waiting_rosters, waiting_players,
       open_matches, open_ready_checks, wait_seconds, wait_seconds_bucket, wait_seconds_count
FROM mm.queue_metrics WHERE queue = 'evq';
CREATE TEMP TABLE before AS SELECT * FROM mm.queue_metrics WHERE queue = 'evq';

-- mm.purge keeps events younger than mm.event_retention ...
SELECT mm.purge('0') >= 0 AS purged;
SELECT count(*) > 0 AS kept FROM mm.events('evq', 0, 10000);
-- ... and removes the older ones, the counters unchanged
SET mm.event_retention = 0;
SELECT mm.purge('0') > 0 AS purged;
SELECT count(*) AS left FROM mm.events('evq', 0, 10000);
SELECT count(*) AS ticks_logged FROM mm.tick_log l JOIN mm.queue q USING (queue_id) WHERE q.name = 'evq';
SELECT (to_jsonb(a) - 'oldest_wait_seconds' - 'tick_seconds_total') = (to_jsonb(b) - 'oldest_wait_seconds' - 'tick_seconds_total')
       AS counters_kept,
       abs(a.tick_seconds_total - b.tick_seconds_total) < 1e-9 AS tick_seconds_kept
FROM mm.queue_metrics a, before b WHERE a.queue = 'evq';
-- and they grow on
SELECT mm.enqueue('evq', ARRAY[8111], 1500) > 0 AS queued;
SELECT a.enqueued_total - b.enqueued_total AS one_more FROM mm.queue_metrics a, before b WHERE a.queue = 'evq';
RESET mm.event_retention;

-- a tick that mm.run_ticks sees fail is counted (its queue's stored config
-- broken behind mm's back)
UPDATE mm.queue SET config = '{"team_size": "two"}' WHERE name = 'evq';
SET client_min_messages = error;
CALL mm.run_ticks('evq', '100 ms', '50 ms');
SET client_min_messages = warning;
UPDATE mm.queue SET config = '{"team_size": 1}' WHERE name = 'evq';
SELECT a.tick_errors_total - b.tick_errors_total AS failed_ticks FROM mm.queue_metrics a, before b WHERE a.queue = 'evq';

-- who may read: the service role the feed, pg_monitor the metrics
SELECT has_function_privilege('pg_monitor', 'mm.events(text, bigint, integer, interval)', 'EXECUTE') AS monitor_feed,
       has_table_privilege('pg_monitor', 'mm.queue_metrics', 'SELECT') AS monitor_metrics,
       has_table_privilege('pg_monitor', 'mm.queue_counters', 'SELECT') AS monitor_counters;
SELECT object, roles, definer FROM mm.privileges
WHERE object LIKE 'mm.events(%' OR object IN ('mm.queue_metrics', 'mm.queue_event', 'mm.queue_counters')
ORDER BY object;

SELECT mm.drop_queue('evq', false);
SELECT count(*) AS gone FROM mm.queue_event e WHERE NOT EXISTS (SELECT FROM mm.queue q WHERE q.queue_id = e.queue_id);
SELECT count(*) AS counters_gone FROM mm.queue_counters c WHERE NOT EXISTS (SELECT FROM mm.queue q WHERE q.queue_id = c.queue_id);
SELECT count(*) FROM (SELECT mm.dishonor_clear(p) FROM generate_series(8101, 8111) p) x;
\i test/support/sequences_restore.sql
