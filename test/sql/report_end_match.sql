-- A reported match ends in the statement that reads its rosters (on a
-- single node): its rosters move from mm.roster to mm.ended_roster exactly
-- as they were (mm.match_roster shows the same rows before and after: team,
-- players, professions and roles in party order, data when matched), their
-- players' rows go with them (they may queue again), the match is finished
-- and its feed gets one "reported" event naming every player by roster id
-- and party order. An error later in the report undoes all of it.
\set VERBOSITY terse
SET timezone = 'UTC';
-- the tests after this one count on mm's sequences: put them back at the end
\i test/support/sequences_save.sql

SELECT mm.create_queue('end_q', '{"team_size": 3, "filter": {"potentials_min": 1}}');
-- two parties of two with professions, two solos (one without)
SELECT mm.enqueue('end_q', ARRAY[9962, 9961], 25, professions => ARRAY['thief', 'ranger']) > 0 AS party1;
SELECT mm.enqueue('end_q', ARRAY[9964, 9963], 25, professions => ARRAY['guardian', 'mesmer']) > 0 AS party2;
SELECT mm.enqueue('end_q', ARRAY[9965], 25, professions => ARRAY['warrior']) > 0 AS solo1;
SELECT mm.enqueue('end_q', ARRAY[9966], 25) > 0 AS solo2;
SELECT DISTINCT match_id AS m FROM mm.tick('end_q') \gset
CREATE TEMP TABLE open_rosters AS SELECT * FROM mm.match_roster WHERE match_id = :m;
SELECT count(*) AS rosters, sum(cardinality(players)) AS players FROM open_rosters;

-- a report that fails after the rosters were read (a player who is not in
-- the match) leaves everything as it was (here in a block that catches the
-- error, which undoes what the report did before it)
CREATE FUNCTION pg_temp.try_report(m bigint, r jsonb) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    PERFORM count(*) FROM mm.report_result(m, r);
    RETURN 'reported';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE;
END $$;
SELECT pg_temp.try_report(:m, '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}, "players": {"1": {"deserted": true}}}');
SELECT count(*) AS still_in_roster FROM mm.roster WHERE match_id = :m;
SELECT count(*) AS ended FROM mm.ended_roster WHERE match_id = :m;
SELECT status FROM mm.match WHERE match_id = :m;

SELECT count(*) AS rated FROM mm.report_result(:m, '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}');
-- the same rows, now from mm.ended_roster
SELECT count(*) AS differ
FROM ((TABLE open_rosters EXCEPT ALL SELECT * FROM mm.match_roster WHERE match_id = :m)
      UNION ALL (SELECT * FROM mm.match_roster WHERE match_id = :m EXCEPT ALL TABLE open_rosters)) d;
SELECT count(*) AS ended FROM mm.ended_roster WHERE match_id = :m;
SELECT count(*) AS rosters_left FROM mm.roster WHERE match_id = :m;
SELECT count(*) AS players_left FROM mm.queued_player WHERE player_id BETWEEN 9961 AND 9966;
SELECT status FROM mm.match WHERE match_id = :m;
-- one event, every player by roster id and party order
SELECT e.player_ids = (SELECT array_agg(u.p ORDER BY r.roster_id, u.o)
                       FROM open_rosters r, unnest(r.players) WITH ORDINALITY u(p, o)) AS event_players
FROM mm.queue_event e WHERE e.match_id = :m AND e.kind = 'reported';
SELECT count(*) AS events FROM mm.queue_event WHERE match_id = :m AND kind IN ('reported', 'abandoned');
-- the players may queue again; a second report of the same result returns the first outcome
SELECT mm.enqueue('end_q', ARRAY[9961, 9962], 25) > 0 AS queued_again;
SELECT count(*) AS repeated FROM mm.report_result(:m, '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}');
SELECT count(*) AS ended FROM mm.ended_roster WHERE match_id = :m;

SELECT mm.drop_queue('end_q', keep_history => false);
DELETE FROM mm.ratings WHERE player_id BETWEEN 9961 AND 9966;
\i test/support/sequences_restore.sql
