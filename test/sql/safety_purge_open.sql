-- Purge never loses a result: a match still open -- proposed, claimed and
-- not reported, or waiting to be claimed in a live queue -- is kept
-- whatever its age, also of a dropped queue, until abandon_after (default a
-- day) has passed since it was made; then purge abandons it (as
-- mm.abandon_match) before removing it. Purge says what it kept and what it
-- ended, and keeps everything mm.open_matches lists. Before, a claimed match
-- whose result was not reported yet was removed by mm.purge('0 seconds'),
-- and its report failed with 42704.
\set VERBOSITY default
SET timezone = 'UTC';
-- the tests after this one count on mm's sequences: put them back at the end
\i test/support/sequences_save.sql

SELECT mm.create_queue('purge_q', '{"team_size": 1, "filter": {"potentials_min": 1}}');
SELECT count(mm.enqueue('purge_q', ARRAY[p], 1500, joined_at => now() - interval '1 minute'))
FROM generate_series(9601, 9606) p;
SELECT count(DISTINCT match_id) AS made FROM mm.tick('purge_q');
-- two claimed, one left unclaimed
SELECT count(DISTINCT match_id) AS claimed FROM mm.claim_matches('purge_q', 2);
CREATE TEMP TABLE open_before AS SELECT DISTINCT match_id FROM mm.open_matches('purge_q');
SELECT count(*) AS open_claimed FROM open_before;
SELECT mm.purge('0 seconds') AS deleted;
-- every match kept, and every one mm.open_matches listed
SELECT count(*) AS matches FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'purge_q';
SELECT count(*) AS still_listed FROM open_before b WHERE b.match_id IN (SELECT match_id FROM mm.open_matches('purge_q'));
-- the result of a claimed match is still reported
SELECT count(*) AS rated FROM mm.report_result((SELECT min(match_id) FROM open_before),
    '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}');

-- a dropped queue's match being played: kept too, and reported
SELECT mm.drop_queue('purge_q');
-- (the unclaimed match nobody can claim any more goes)
SELECT mm.purge('0 seconds') AS deleted;
SELECT count(*) AS listed FROM mm.open_matches('purge_q');
SELECT count(*) AS rated FROM mm.report_result((SELECT max(match_id) FROM open_before),
    '{"teams": {"red": {"rank": 2}, "blue": {"rank": 1}}}');
-- once reported, it goes with the rest of the dropped queue's history
SELECT mm.purge('0 seconds') AS deleted;
SELECT m.status, count(*) FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'purge_q'
GROUP BY m.status ORDER BY 1;

-- abandon_after: a match claimed two days ago and never reported is
-- abandoned first (its players free again), then removed with its history
SELECT mm.create_queue('purge_old', '{"team_size": 1, "filter": {"potentials_min": 1}}');
SELECT count(mm.enqueue('purge_old', ARRAY[p], 1500, joined_at => now() - interval '3 days'))
FROM generate_series(9611, 9612) p;
SELECT count(*) AS rosters_matched FROM mm.tick('purge_old', now() - interval '2 days');
SELECT count(*) AS claimed FROM mm.claim_matches('purge_old');
SELECT mm.purge('1 day', abandon_after => '3 days') AS deleted;   -- kept: not 3 days old
SELECT mm.purge('1 day') AS deleted;                              -- abandoned, then deleted
SELECT count(*) AS matches FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'purge_old';
SELECT mm.enqueue('purge_old', ARRAY[9611], 1500) > 0 AS queues_again;
-- abandon_after is at least a minute
SELECT mm.purge('1 day', abandon_after => '0 seconds');
SELECT mm.purge('1 day', abandon_after => NULL);

SELECT mm.drop_queue('purge_old', keep_history => false);
-- the dropped queue's history, all of it, and the ratings the reports wrote
DELETE FROM mm.ratings WHERE player_id BETWEEN 9601 AND 9612;
DELETE FROM mm.ticket_event WHERE queue_id IN (SELECT queue_id FROM mm.queue WHERE name = 'purge_q');
DELETE FROM mm.queue WHERE name = 'purge_q';
\i test/support/sequences_restore.sql
