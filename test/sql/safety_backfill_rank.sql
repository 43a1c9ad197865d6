-- Numbers whose arithmetic overflows: two parties ranked 1e308 made a match;
-- a backfill request for it made every later tick fail with 22003 (the
-- team's mean rank summed 1e308s), and new solos never matched. A roster's
-- rank and ladder points lie in [-1e9, 1e9] now, as its rating does: refused
-- at the door (22023), held by the table's CHECKs, and every figure a tick
-- or a backfill forms from up to 1000 players stays finite.
\set VERBOSITY terse
SET timezone = 'UTC';
-- the tests after this one count on mm's sequences: put them back at the end
\i test/support/sequences_save.sql

SELECT mm.create_queue('rank_bf', '{"team_size": 2, "filter": {"potentials_min": 1}}');
SELECT mm.enqueue('rank_bf', ARRAY[9501, 9502], 1500, 50, rank => 1e308);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('rank_bf', ARRAY[9501, 9502], 1500, 50, ladder_points => -1e308);
\echo :LAST_ERROR_SQLSTATE
-- the boundary is taken
SELECT mm.enqueue('rank_bf', ARRAY[9501, 9502], 1500, 50, rank => 1e9, ladder_points => -1e9) > 0 AS queued;
SELECT mm.enqueue('rank_bf', ARRAY[9503, 9504], 1500, 50, rank => 1e9, ladder_points => 1e9) > 0 AS queued;
SELECT mm.update_roster(roster_id, rank => 1e308) FROM mm.queued_player WHERE player_id = 9501;
\echo :LAST_ERROR_SQLSTATE
SELECT DISTINCT match_id AS bf_m FROM mm.tick('rank_bf') \gset
SELECT mm.request_backfill(:bf_m, 'red', 1) > 0 AS requested;
-- every later tick works, and fills the seat and matches new solos
SELECT mm.enqueue('rank_bf', ARRAY[9505], 1500, 50) > 0 AS queued;
SELECT count(*) AS new_match_rows FROM mm.tick('rank_bf');
SELECT status FROM mm.backfill WHERE match_id = :bf_m;
SELECT count(mm.enqueue('rank_bf', ARRAY[p], 1500, 50)) FROM generate_series(9506, 9509) p;
SELECT count(*) AS new_match_rows FROM mm.tick('rank_bf');
-- the table holds the range against a direct write (the CHECK, 23514)
UPDATE mm.roster SET rank = 1e308 WHERE queue_id = (SELECT queue_id FROM mm.queue WHERE name = 'rank_bf');
\echo :LAST_ERROR_SQLSTATE
-- the matcher over any query's rows refuses them too
SELECT count(*) FROM mm.match_rosters('SELECT 1 AS roster_id, ARRAY[1]::bigint[] AS players, 1500 AS rating, 1e308 AS rank');
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM mm.match_rosters('SELECT 1 AS roster_id, ARRAY[1]::bigint[] AS players, 1500 AS rating, -1e308 AS ladder_points');
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM mm.match_rosters('SELECT 1 AS roster_id, ARRAY[1]::bigint[] AS players, 1500 AS rating, 1e308 AS dishonor');
\echo :LAST_ERROR_SQLSTATE

SELECT mm.drop_queue('rank_bf', keep_history => false);
\i test/support/sequences_restore.sql
