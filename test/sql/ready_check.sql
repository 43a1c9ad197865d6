-- Ready check: a queue's accept_timeout makes a tick's matches proposed;
-- mm.accept, mm.decline; a match is claimable only once every player
-- accepted; a decline or the end of the ready check dissolves it: rosters
-- without a dodger go back to the queue in their old place, dodgers get
-- the queue's dodge_reason dishonor (computed by hand below from the
-- default dishonor config: stack_duration 15m, timeout_duration 30s,
-- timeout_exponent 1.5, timeout_rounding 1m; queue_dodge 4, abandon 10).
\set VERBOSITY terse
SET timezone = 'UTC';
-- match ids in messages are this test's own; restored at the end
SELECT last_value AS seq_value, is_called AS seq_called FROM mm.match_id_seq \gset
SELECT setval('mm.match_id_seq', 9000) AS match_ids_from;

-- config keys
SELECT mm.matcher_config('{}') -> 'accept_timeout' AS no_ready_check,
       mm.matcher_config('{}') -> 'dodge_reason' AS dodge_reason;
SELECT mm.matcher_config('{"accept_timeout": "20 seconds", "dodge_reason": null}') - 'filter' - 'scoring' - 'prediction' - 'rating' AS cfg;
SELECT mm.matcher_config('{"accept_timeout": "2 days"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"accept_timeout": "-5 seconds"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"accept_timeout": 30}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"dodge_reason": ""}');
\echo :LAST_ERROR_SQLSTATE

SELECT mm.create_queue('rc', '{"team_size": 1, "filter": {"potentials_min": 1}, "accept_timeout": "30 seconds", "dodge_reason": "queue_dodge"}');

-- 1. Everyone accepts. 9101 and 9102 (1500) make a match; 9103 (9000)
-- overlaps nobody and stays waiting.
SELECT mm.enqueue('rc', ARRAY[9101], 1500, joined_at => now() - interval '10 minutes') AS r1 \gset
SELECT mm.enqueue('rc', ARRAY[9102], 1500, joined_at => now() - interval '9 minutes') AS r2 \gset
SELECT mm.enqueue('rc', ARRAY[9103], 9000, joined_at => now() - interval '8 minutes') AS r3 \gset
SELECT DISTINCT match_id AS m1 FROM mm.tick('rc') \gset
SELECT status, accept_until - created_at AS ready_check, delivered_at FROM mm.match WHERE match_id = :m1;
-- a proposed match is neither claimable nor in the queue
SELECT count(*) AS claimed FROM mm.claim_matches('rc');
SELECT players FROM mm.list_queue('rc');
SELECT status, match_id = :m1 AS own_match, match_status FROM mm.ticket_status(9101);
-- nor may its players queue elsewhere
SELECT mm.enqueue('rc', ARRAY[9101], 1500);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.accept(:m1, 9101) AS first_accept;
SELECT mm.accept(:m1, 9101) AS again;
SELECT status, match_status FROM mm.ticket_status(9101);
SELECT status FROM mm.ticket_status(9102);
SELECT count(*) AS claimed FROM mm.claim_matches('rc');
SELECT mm.accept(:m1, 9103);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.accept(-1, 9101);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.accept(NULL, 9101);
\echo :LAST_ERROR_SQLSTATE
-- the last accept makes it matched: claimable, and its players are matched
SELECT mm.accept(:m1, 9102) AS last_accept;
SELECT status, accept_until FROM mm.match WHERE match_id = :m1;
SELECT team, players FROM mm.claim_matches('rc') ORDER BY team DESC;
SELECT status, match_status FROM mm.ticket_status(9102);
SELECT status, players, match_id = :m1 AS own_match FROM mm.roster_status(:r1);
SELECT player_id FROM mm.match_accept WHERE match_id = :m1 ORDER BY player_id;
SELECT mm.accept(:m1, 9101) AS after_ready;
SELECT mm.decline(:m1, 9101);
\echo :LAST_ERROR_SQLSTATE

-- 2. One declines. 9111 (joined 10 minutes ago) accepts, 9112 declines:
-- 9111 goes back to the queue with its old place and joined_at, ahead of
-- 9113, who joined after the match was made; 9112 is removed and gets
-- queue_dodge: 4 stacks, timeout roundInterval(4^1.5 * 30 s, 1 min) = 4 min.
SELECT mm.enqueue('rc', ARRAY[9111], 1500, joined_at => now() - interval '10 minutes') AS r11 \gset
SELECT mm.enqueue('rc', ARRAY[9112], 1500, joined_at => now() - interval '9 minutes') AS r12 \gset
SELECT joined_at AS j11 FROM mm.roster WHERE roster_id = :r11 \gset
SELECT DISTINCT match_id AS m2 FROM mm.tick('rc') \gset
SELECT mm.enqueue('rc', ARRAY[9113], 1520) AS r13 \gset
SELECT place, players FROM mm.list_queue('rc') ORDER BY place;
SELECT mm.accept(:m2, 9111);
BEGIN;
SELECT mm.decline(:m2, 9112) AS declined;
SELECT stacks, timeout_until - now() AS timeout FROM mm.dishonor_status(9112);
COMMIT;
SELECT status, delivered_at, accept_until FROM mm.match WHERE match_id = :m2;
SELECT count(*) AS rosters_left FROM mm.match_roster WHERE match_id = :m2;
SELECT place, players, roster_id = :r11 AS same_roster, joined_at = :'j11' AS same_joined_at FROM mm.list_queue('rc') ORDER BY place;
SELECT stacks, timeout_until FROM mm.dishonor_status(9111);
SELECT status, roster_id = :r12 AS own_roster, match_id = :m2 AS own_match, match_status, reason FROM mm.ticket_status(9112);
SELECT status, roster_id = :r11 AS own_roster, since = :'j11' AS since_joined FROM mm.ticket_status(9111);
SELECT status, players, match_id = :m2 AS own_match, reason FROM mm.roster_status(:r11);
SELECT mm.decline(:m2, 9112) AS declined_again;
SELECT mm.accept(:m2, 9111);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('rc', ARRAY[9112], 1500);
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) AS claimed FROM mm.claim_matches('rc');

-- 3. One is silent until the end of the ready check. A tick 20 s in the
-- past proposes 9111 vs 9113 until 10 s from now; 9111 accepts; a tick a
-- minute from now dissolves it: 9111 goes back (same roster), 9113 is
-- removed with queue_dodge at that tick's time (timeout 4 min after it).
SELECT DISTINCT match_id AS m3 FROM mm.tick('rc', now() - interval '20 seconds') \gset
SELECT mm.accept(:m3, 9111);
SELECT count(*) FROM mm.tick('rc', now() - interval '5 seconds');   -- before its end: stays proposed
SELECT status FROM mm.match WHERE match_id = :m3;
BEGIN;
SELECT count(*) AS matched FROM mm.tick('rc', now() + interval '1 minute');
SELECT stacks, timeout_until - now() AS timeout FROM mm.dishonor_status(9113);
COMMIT;
SELECT status FROM mm.match WHERE match_id = :m3;
SELECT place, players, roster_id = :r11 AS same_roster, joined_at = :'j11' AS same_joined_at FROM mm.list_queue('rc') ORDER BY place;
SELECT status, match_id = :m3 AS own_match, match_status, reason FROM mm.ticket_status(9113);
SELECT mm.accept(:m3, 9113);
\echo :LAST_ERROR_SQLSTATE

-- 4. Accept after the end: refused; a decline after the end dissolves the
-- match with every player who did not accept as a dodger.
SELECT mm.enqueue('rc', ARRAY[9114], 1500, joined_at => now() - interval '2 minutes') AS r14 \gset
SELECT DISTINCT match_id AS m4 FROM mm.tick('rc', now() - interval '1 minute') \gset
SELECT mm.accept(:m4, 9111);
\echo :LAST_ERROR_SQLSTATE
SELECT status FROM mm.match WHERE match_id = :m4;
SELECT mm.decline(:m4, 9114) AS declined_late;
SELECT player_id, stacks FROM mm.dishonor_statuses(ARRAY[9111, 9114]::bigint[]) ORDER BY player_id;
SELECT count(*) AS waiting FROM mm.list_queue('rc');

-- 5. Parties: only the decliner gets dishonor, the whole party is removed;
-- the other party, which had not answered yet, goes back. The reason is
-- the queue's: abandon (10 stacks, timeout roundInterval(10^1.5 * 30 s,
-- 1 min) = 16 min); null gives none.
SELECT mm.create_queue('rc2', '{"team_size": 2, "filter": {"potentials_min": 1}, "accept_timeout": "1 minute", "dodge_reason": "abandon"}');
SELECT mm.enqueue('rc2', ARRAY[9121, 9122], 1500, joined_at => now() - interval '3 minutes') AS p1 \gset
SELECT mm.enqueue('rc2', ARRAY[9123, 9124], 1500, joined_at => now() - interval '2 minutes') AS p2 \gset
SELECT DISTINCT match_id AS m5 FROM mm.tick('rc2') \gset
SELECT mm.accept(:m5, 9121), mm.accept(:m5, 9123);
BEGIN;
SELECT mm.decline(:m5, 9122) AS declined;
SELECT player_id, stacks, timeout_until - now() AS timeout FROM mm.dishonor_statuses(ARRAY[9121, 9122, 9123]::bigint[]) ORDER BY player_id;
COMMIT;
SELECT players, roster_id = :p2 AS same_roster FROM mm.list_queue('rc2');
SELECT player_id, status, reason FROM unnest(ARRAY[9121, 9122, 9123]::bigint[]) AS p(player_id), mm.ticket_status(p.player_id) ORDER BY player_id;
SELECT mm.alter_queue('rc2', '{"dodge_reason": null}') -> 'dodge_reason' AS dodge_reason;
SELECT mm.enqueue('rc2', ARRAY[9125, 9126], 1500) AS p3 \gset
SELECT DISTINCT match_id AS m6 FROM mm.tick('rc2') \gset
SELECT mm.decline(:m6, 9125) AS declined;
SELECT player_id, stacks FROM mm.dishonor_statuses(ARRAY[9125, 9126]::bigint[]) ORDER BY player_id;

-- No ready check: matches are matched at once, as before.
SELECT mm.alter_queue('rc2', '{"accept_timeout": null}') -> 'accept_timeout' AS accept_timeout;
SELECT mm.enqueue('rc2', ARRAY[9127, 9128], 1500) AS p4 \gset
SELECT DISTINCT match_id AS m7 FROM mm.tick('rc2') \gset
SELECT status, accept_until FROM mm.match WHERE match_id = :m7;
SELECT mm.accept(:m7, 9127) AS accept_without_ready_check;

-- 6. A player whose ready check has ended may queue elsewhere before a
-- tick dissolves the match (9131); the next tick of the queue dissolves
-- it: 9131 and 9132 never accepted and dodged, and 9131's roster does not
-- come back (9131 is waiting in rc4). Dropping a queue dissolves its ready
-- checks without dishonor, and their players are free.
SELECT mm.create_queue('rc3', '{"team_size": 1, "filter": {"potentials_min": 1}, "accept_timeout": "30 seconds", "dodge_reason": "queue_dodge"}');
SELECT mm.create_queue('rc4', '{"team_size": 1, "filter": {"potentials_min": 1}, "requeue_while_in_match": true}');
SELECT count(mm.enqueue('rc3', ARRAY[p], 1500)) FROM unnest(ARRAY[9131, 9132]::bigint[]) p;
SELECT DISTINCT match_id AS m8 FROM mm.tick('rc3', now() - interval '1 minute') \gset
SELECT mm.enqueue('rc4', ARRAY[9131], 1500) > 0 AS queued_elsewhere;
SELECT count(mm.enqueue('rc3', ARRAY[p], 1500)) FROM unnest(ARRAY[9133, 9134]::bigint[]) p;
SELECT DISTINCT match_id AS m9 FROM mm.tick('rc3') \gset
SELECT mm.accept(:m9, 9133);
SELECT mm.enqueue('rc4', ARRAY[9134], 1500);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.drop_queue('rc3');
SELECT match_id = :m8 AS m8, status FROM mm.match WHERE match_id IN (:m8, :m9) ORDER BY match_id;
SELECT player_id, t.status, t.reason, t.match_status, d.stacks
FROM unnest(ARRAY[9131, 9132, 9133, 9134]::bigint[]) AS p(player_id), mm.ticket_status(p.player_id) t,
     mm.dishonor_status(p.player_id) d ORDER BY player_id;
SELECT count(mm.enqueue('rc4', ARRAY[p], 1500)) AS queued_after_drop FROM unnest(ARRAY[9133, 9134]::bigint[]) p;
SELECT mm.drop_queue('rc4', keep_history => false);
DELETE FROM mm.ticket_event e USING mm.queue q
WHERE q.queue_id = e.queue_id AND q.name = 'rc3' AND q.dropped_at IS NOT NULL;
DELETE FROM mm.queue q WHERE q.name = 'rc3' AND q.dropped_at IS NOT NULL;

-- 7. The tick that dissolves a match matches the rosters it gives back:
-- 9141 accepted, 9142 did not; 9143 joined meanwhile. The tick a minute on
-- dissolves the first match, then proposes 9141 (its old place first)
-- against 9143: the same roster is proposed a second time.
SELECT mm.create_queue('rc5', '{"team_size": 1, "filter": {"potentials_min": 1}, "accept_timeout": "30 seconds"}');
SELECT mm.enqueue('rc5', ARRAY[9141], 1500, joined_at => now() - interval '5 minutes') AS r41 \gset
SELECT mm.enqueue('rc5', ARRAY[9142], 1500, joined_at => now() - interval '5 minutes') AS r42 \gset
SELECT DISTINCT match_id AS m10 FROM mm.tick('rc5', now() - interval '20 seconds') \gset
SELECT mm.accept(:m10, 9141);
SELECT mm.enqueue('rc5', ARRAY[9143], 1500) AS r43 \gset
SELECT roster_id = :r41 AS r41, roster_id = :r43 AS r43, team, match_id > :m10 AS new_match
FROM mm.tick('rc5', now() + interval '1 minute') ORDER BY team DESC;
SELECT status, match_id = :m10 AS first_match, reason FROM mm.roster_status(:r41);
SELECT mm.drop_queue('rc5', keep_history => false);

SELECT mm.drop_queue('rc', keep_history => false);
SELECT mm.drop_queue('rc2', keep_history => false);
SELECT count(*) FROM (SELECT mm.dishonor_clear(p) FROM generate_series(9100, 9150) p) x;
SELECT setval('mm.match_id_seq', :seq_value, :'seq_called') = :seq_value AS restored;
