-- mm.abandon_match answers every state of a match: matched (claimed or
-- not) is abandoned (true), abandoned already gives false; a reported
-- match, a match in its ready check (whether or not the check has ended)
-- and a dissolved match are refused with 55000 and stay as they are; an
-- unknown match is 42704. Before, a proposed match raised a raw 23514
-- (match_accept_until_check) and a dissolved one was marked finished.
\set VERBOSITY terse
SET timezone = 'UTC';
-- the tests after this one count on mm's sequences: put them back at the end
\i test/support/sequences_save.sql

SELECT mm.create_queue('abandon_q', '{"team_size": 1, "filter": {"potentials_min": 1}, "accept_timeout": 30}');
SELECT count(mm.enqueue('abandon_q', ARRAY[p], 1500)) FROM generate_series(9701, 9706) p;
SELECT count(DISTINCT match_id) AS proposed FROM mm.tick('abandon_q');
SELECT array_agg(DISTINCT m.match_id ORDER BY m.match_id) AS ms FROM mm.match m JOIN mm.queue q USING (queue_id)
WHERE q.name = 'abandon_q' \gset
-- proposed, its ready check running
SELECT mm.abandon_match((:'ms'::bigint[])[1]);
\echo :LAST_ERROR_SQLSTATE
-- proposed, its ready check ended (the next tick dissolves it)
UPDATE mm.match SET accept_until = now() - interval '1 second' WHERE match_id = (:'ms'::bigint[])[2];
SELECT mm.abandon_match((:'ms'::bigint[])[2]);
\echo :LAST_ERROR_SQLSTATE
SELECT match_id = ANY (:'ms'::bigint[]) AS same, status FROM mm.match WHERE match_id IN ((:'ms'::bigint[])[1], (:'ms'::bigint[])[2]) ORDER BY match_id;
-- dissolved: refused, and it stays dissolved
SELECT mm.decline((:'ms'::bigint[])[1], p) FROM (SELECT players[1] AS p FROM mm.match_roster WHERE match_id = (:'ms'::bigint[])[1] LIMIT 1) x;
SELECT mm.abandon_match((:'ms'::bigint[])[1]);
\echo :LAST_ERROR_SQLSTATE
SELECT status FROM mm.match WHERE match_id = (:'ms'::bigint[])[1];
SELECT count(*) AS results FROM mm.match_result WHERE match_id = (:'ms'::bigint[])[1];
-- matched, not claimed: abandoned; again: false
SELECT count(mm.accept((:'ms'::bigint[])[3], p)) FROM mm.match_roster mr, unnest(mr.players) p WHERE mr.match_id = (:'ms'::bigint[])[3];
SELECT mm.abandon_match((:'ms'::bigint[])[3]);
SELECT mm.abandon_match((:'ms'::bigint[])[3]);
SELECT status FROM mm.match WHERE match_id = (:'ms'::bigint[])[3];
-- reported: refused
SELECT count(mm.enqueue('abandon_q', ARRAY[p], 1500)) FROM generate_series(9707, 9708) p;
SELECT DISTINCT match_id AS r FROM mm.tick('abandon_q') \gset
SELECT count(mm.accept(:r, p)) FROM mm.match_roster mr, unnest(mr.players) p WHERE mr.match_id = :r;
SELECT count(*) AS rated FROM mm.report_result(:r, '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}');
SELECT mm.abandon_match(:r);
\echo :LAST_ERROR_SQLSTATE
-- unknown
SELECT mm.abandon_match(-1);
\echo :LAST_ERROR_SQLSTATE

SELECT mm.drop_queue('abandon_q', keep_history => false);
DELETE FROM mm.ratings WHERE player_id BETWEEN 9701 AND 9708;
\i test/support/sequences_restore.sql
