-- Ticket lifecycle: status history, ticket_status, roster_status, expiry
-- by ticket_ttl, leave_player, remove_player, requeue_while_in_match; and
-- match delivery with claim_matches.
\set VERBOSITY terse
SET timezone = 'UTC';
SELECT mm.create_queue('life', '{"team_size": 2, "filter": {"potentials_min": 1}, "ticket_ttl": "10 minutes"}');
SELECT mm.matcher_config(config) -> 'ticket_ttl' AS ttl, mm.matcher_config(config) -> 'requeue_while_in_match' AS requeue
FROM mm.queue WHERE name = 'life';
SELECT mm.matcher_config('{"ticket_ttl": "1 month"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"ticket_ttl": "-5 minutes"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"ticket_ttl": "soon"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"ticket_ttl": null}') -> 'ticket_ttl' AS no_ttl;
SELECT mm.matcher_config('{"requeue_while_in_match": 1}');
\echo :LAST_ERROR_SQLSTATE

-- A party of two (1, 2) and two solos (3, 4) at 12:00; a solo (5) at 12:08.
SELECT mm.enqueue('life', ARRAY[1, 2], 1500, 10, joined_at => '2024-01-01 12:00:00+00') AS party \gset
SELECT mm.enqueue('life', ARRAY[3], 1500, 10, joined_at => '2024-01-01 12:00:00+00') AS s3 \gset
SELECT mm.enqueue('life', ARRAY[4], 1500, 10, joined_at => '2024-01-01 12:00:00+00') AS s4 \gset
SELECT mm.enqueue('life', ARRAY[5], 9000, 10, joined_at => '2024-01-01 12:08:00+00') AS s5 \gset
SELECT status, queue, roster_id = :party AS own_roster, since, match_id, reason FROM mm.ticket_status(1);
SELECT count(*) AS never_queued FROM mm.ticket_status(99);

-- remove_player: 2 leaves the party, 1 keeps waiting in the same place
SELECT mm.remove_player(:party, 2), mm.remove_player(:party, 2), mm.remove_player(:s3, 1);
SELECT place, players FROM mm.list_queue('life') ORDER BY place;
SELECT status, roster_id = :party AS own_roster, reason FROM mm.ticket_status(2);
-- player 2 may queue again at once
SELECT mm.enqueue('life', ARRAY[2], 1500, 10, joined_at => '2024-01-01 12:01:00+00') AS s2 \gset

-- leave_player takes the player's whole roster out
SELECT mm.leave_player(4) = :s4 AS left_roster, mm.leave_player(4) IS NULL AS not_waiting;
SELECT status, reason FROM mm.ticket_status(4);

-- A tick at 12:09: nobody has waited 10 minutes yet; 1, 3 and 2 are three
-- players (no 2v2) and 5 at 9000 overlaps nobody: nothing happens.
SELECT count(*) FROM mm.tick('life', '2024-01-01 12:09:00+00');
SELECT rosters_expired, matches_made, targets_failed, failed_reasons FROM mm.tick_log ORDER BY tick_id DESC LIMIT 1;
-- At 12:10:30, 1 and 3 (12:00) expire, 2 (12:01) and 5 (12:08) do not;
-- the tick then reads and tries only the two still waiting, not the
-- rosters it has just expired.
SELECT count(*) FROM mm.tick('life', '2024-01-01 12:10:30+00');
SELECT rosters_expired, rosters_seen, targets_failed FROM mm.tick_log ORDER BY tick_id DESC LIMIT 1;
SELECT players FROM mm.list_queue('life') ORDER BY place;
SELECT status, since, reason FROM mm.ticket_status(1);
SELECT status, players, match_id, reason FROM mm.roster_status(:party);

-- Matched: 2 (12:01) and three new solos make a 2v2.
SELECT count(mm.enqueue('life', ARRAY[p], 1500, 10, joined_at => '2024-01-01 12:10:00+00')) FROM unnest(ARRAY[6, 7, 8]::bigint[]) p;
CREATE TEMP TABLE made AS SELECT * FROM mm.tick('life', '2024-01-01 12:10:40+00');
SELECT count(DISTINCT match_id) AS matches, count(*) AS rosters FROM made;
SELECT t.status, t.match_id = (SELECT min(match_id) FROM made) AS own_match, t.match_status FROM mm.ticket_status(2) t;
SELECT status, players, match_id IS NOT NULL AS has_match FROM mm.roster_status(:s2);

-- requeue_while_in_match: false (the default) refuses 2 until its match is
-- finished; true would let 2 queue again while its match is played
SELECT mm.alter_queue('life', '{"team_size": 2, "filter": {"potentials_min": 1}, "ticket_ttl": "10 minutes", "requeue_while_in_match": false}') -> 'requeue_while_in_match' AS requeue;
\set VERBOSITY sqlstate
SELECT mm.enqueue('life', ARRAY[2], 1500);
SELECT mm.enqueue('life', ARRAY[99, 2], 1500);
\set VERBOSITY terse
UPDATE mm.match SET status = 'finished' WHERE match_id = (SELECT min(match_id) FROM made);
SELECT mm.enqueue('life', ARRAY[2], 1500) > 0 AS requeued_after_finish;
SELECT mm.leave_player(2) IS NOT NULL AS left;

-- claim_matches: each match once; a rollback gives it back
SELECT count(mm.enqueue('life', ARRAY[p], 1500, 10, joined_at => '2024-01-01 12:10:00+00')) FROM generate_series(11, 18) p;
SELECT count(DISTINCT match_id) AS made FROM mm.tick('life', '2024-01-01 12:10:50+00');
BEGIN;
SELECT count(DISTINCT match_id) AS claimed, count(*) AS rosters FROM mm.claim_matches('life', 2);
ROLLBACK;
SELECT count(DISTINCT match_id) AS claimed_first FROM mm.claim_matches('life', 2);
SELECT count(DISTINCT match_id) AS claimed_rest FROM mm.claim_matches('life');
SELECT count(*) AS claimed_again FROM mm.claim_matches('life');
SELECT count(*) AS undelivered FROM mm.match WHERE delivered_at IS NULL;
SELECT * FROM mm.claim_matches('life', 0);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.claim_matches('nope');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.queue_channel('life') = 'mm_queue_' || queue_id AS channel FROM mm.queue WHERE name = 'life';

SELECT mm.drop_queue('life', keep_history => false);
DROP TABLE made;
