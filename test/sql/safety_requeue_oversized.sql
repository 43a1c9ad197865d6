-- A roster that could never match is not requeued: during a ready check,
-- mm.alter_queue to a smaller team_size, then a decline: the party larger
-- than a team now is removed (ticket removed, reason team_size; the
-- dissolved match lists it as not requeued) instead of waiting for ever as
-- "waiting" with no reason.
\set VERBOSITY terse
SET timezone = 'UTC';
-- the tests after this one count on mm's sequences: put them back at the end
\i test/support/sequences_save.sql

SELECT mm.create_queue('requeue_q', '{"team_size": 2, "filter": {"potentials_min": 1}, "accept_timeout": 60}');
SELECT mm.enqueue('requeue_q', ARRAY[9801, 9802], 1500) > 0 AS a, mm.enqueue('requeue_q', ARRAY[9803, 9804], 1500) > 0 AS b;
SELECT DISTINCT match_id AS rm FROM mm.tick('requeue_q') \gset
SELECT mm.accept(:rm, 9803);
-- teams of one from now on (the waiting rosters it removes: none)
SELECT mm.alter_queue('requeue_q', '{"team_size": 1}') ->> 'team_size' AS team_size;
-- 9801 declines: its party is removed (declined); the other party, of two,
-- can never match in teams of one: removed with the reason team_size
SELECT mm.decline(:rm, 9801);
SELECT status, reason, match_id = :rm AS in_match FROM mm.ticket_status(9803);
SELECT status, reason FROM mm.ticket_status(9801);
SELECT players, requeued FROM mm.match_players(ARRAY[:rm]::bigint[]) ORDER BY players;
SELECT count(*) AS waiting FROM mm.list_queue('requeue_q');
-- at the end of a ready check (a tick dissolves it) the same
SELECT mm.alter_queue('requeue_q', '{"team_size": 2}') ->> 'team_size' AS team_size;
SELECT mm.enqueue('requeue_q', ARRAY[9811, 9812], 1500) > 0 AS a, mm.enqueue('requeue_q', ARRAY[9813, 9814], 1500) > 0 AS b;
SELECT DISTINCT match_id AS tm FROM mm.tick('requeue_q') \gset
SELECT count(mm.accept(:tm, p)) FROM unnest(ARRAY[9811, 9812]::bigint[]) p;
SELECT mm.alter_queue('requeue_q', '{"team_size": 1}') ->> 'team_size' AS team_size;
SELECT count(*) FROM mm.tick('requeue_q', now() + interval '61 seconds');
SELECT status, reason FROM mm.ticket_status(9811);
SELECT count(*) AS waiting FROM mm.list_queue('requeue_q');
SELECT mm.enqueue('requeue_q', ARRAY[9811], 1500) > 0 AS may_queue_again;

SELECT mm.drop_queue('requeue_q', keep_history => false);
\i test/support/sequences_restore.sql
