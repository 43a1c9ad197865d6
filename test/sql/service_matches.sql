-- What a game backend sees of its matches with the service role alone: who
-- is in a match (mm.match_players, for the ids of a notification), the
-- matches it claimed and never reported or abandoned (mm.open_matches),
-- wait estimates (mm.estimate_wait, mm.estimate_roster_wait), queue_stats
-- with matches played apart from proposals dissolved. The defaults a studio
-- expects: requeue_while_in_match false, no dodge dishonor unless the queue
-- asks for it. A retry of a result written with other rank numbers. The
-- message of mm.request_backfill for a match that is not being played.
\set VERBOSITY terse
SET timezone = 'UTC';
SELECT count(*) AS roles FROM mm.grant_roles('regress_svc_service', 'regress_svc_admin', 'regress_svc_analyst');
-- match ids in messages are this test's own; restored at the end
SELECT last_value AS seq_value, is_called AS seq_called FROM mm.match_id_seq \gset
SELECT setval('mm.match_id_seq', 9500) AS match_ids_from;
-- why mm.request_backfill refuses a match, with times left out
CREATE FUNCTION pg_temp.backfill_refusal(match_id bigint) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    msg text;
    detail text;
    hint text;
BEGIN
    PERFORM mm.request_backfill(match_id, 'red', 1);
    RETURN 'accepted';
EXCEPTION WHEN object_not_in_prerequisite_state THEN
    GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
    RETURN msg || ' | ' || regexp_replace(detail, ' at [^;]*(;|\.$)', ' at T\1') || ' | ' || hint;
END
$$;

-- defaults
SELECT mm.matcher_config('{}') -> 'requeue_while_in_match' AS requeue_while_in_match,
       mm.matcher_config('{}') -> 'dodge_reason' AS dodge_reason;

-- 1. A ready check: the backend learns who is in the proposed matches with
-- one call for all the ids of the notification.
SELECT mm.create_queue('svc', '{"team_size": 1, "filter": {"potentials_min": 1}, "accept_timeout": "30 seconds"}');
SELECT count(mm.enqueue('svc', ARRAY[p::bigint], 1500 + p, 0, joined_at => now() - interval '1 minute'))
FROM generate_series(9501, 9504) p;
CREATE TEMP TABLE proposed AS SELECT DISTINCT match_id FROM mm.tick('svc');
SELECT min(match_id) AS m1, max(match_id) AS m2, count(*) AS proposed FROM proposed \gset
SELECT :proposed AS proposed;
GRANT SELECT ON proposed TO regress_svc_service;
SET ROLE regress_svc_service;
SELECT match_id - :m1 AS match_no, status, accept_until > now() AS in_ready_check, team, players, accepted, backfill_id
FROM mm.match_players(ARRAY[:m2, :m1]::bigint[]);
SELECT mm.accept(:m1, players[1]) FROM mm.match_players(ARRAY[:m1]::bigint[]) WHERE team = 'red';
SELECT team, players, accepted FROM mm.match_players(ARRAY[:m1]::bigint[]);
SELECT mm.accept(:m1, players[1]) FROM mm.match_players(ARRAY[:m1]::bigint[]) WHERE team = 'blue';
SELECT status, accept_until, team, players, accepted FROM mm.match_players(ARRAY[:m1]::bigint[]);
-- the second match: its red player declines; the match gave its rosters
-- up: the decliner's is removed, the other one waits again
SELECT mm.decline(:m2, players[1]) FROM mm.match_players(ARRAY[:m2]::bigint[]) WHERE team = 'red';
SELECT status, team, players, accepted, requeued FROM mm.match_players(ARRAY[:m2]::bigint[]);
-- bad calls
SELECT * FROM mm.match_players(NULL::bigint[]);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_players(ARRAY[:m1, NULL]::bigint[]);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_players(ARRAY[:m1, -1]::bigint[]);
\echo :LAST_ERROR_SQLSTATE

-- 2. No dodge dishonor by default: the decliner (9503) may queue again at
-- once, in this queue or any other; the Guild Wars 2 wiki's QueueDodge is
-- one setting away ("dodge_reason": "queue_dodge", see ready_check).
RESET ROLE;
SELECT player_id, stacks, timeout_until FROM mm.dishonor_statuses(ARRAY[9503, 9504]::bigint[]);
SELECT status, reason FROM mm.ticket_status(9503);
SET ROLE regress_svc_service;
SELECT mm.enqueue('svc', ARRAY[9503::bigint], 1500) > 0 AS decliner_queued;

-- A lighter penalty scoped to the queue: "dodge_timeout" keeps a dodger out
-- of this queue only, for that long, without stacks
RESET ROLE;
SELECT mm.matcher_config('{}') -> 'dodge_timeout' AS default_dodge_timeout;
SELECT mm.create_queue('svcd', '{"team_size": 1, "filter": {"potentials_min": 1}, "accept_timeout": 30, "dodge_timeout": "1 minute"}');
SELECT mm.create_queue('svco', '{"team_size": 1, "filter": {"potentials_min": 1}}');
SELECT count(mm.enqueue('svcd', ARRAY[p::bigint], 1500)) FROM generate_series(9511, 9512) p;
SELECT DISTINCT match_id AS md FROM mm.tick('svcd') \gset
SELECT mm.decline(:md, 9511);
SELECT player_id, until - now() BETWEEN interval '50 seconds' AND interval '1 minute' AS kept_out_a_minute FROM mm.queue_dodge ORDER BY player_id;
SELECT mm.enqueue('svcd', ARRAY[9511::bigint], 1500);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('svco', ARRAY[9511::bigint], 1500) > 0 AS queued_elsewhere;
SELECT player_id, stacks FROM mm.dishonor_statuses(ARRAY[9511]::bigint[]);
SELECT mm.matcher_config('{"dodge_timeout": 0}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"dodge_timeout": "2 days"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.drop_queue('svcd', keep_history => false);
SELECT mm.drop_queue('svco', keep_history => false);
SELECT count(*) AS dodges_left FROM mm.queue_dodge;
SET ROLE regress_svc_service;

-- 3. requeue_while_in_match is false by default: a player of the matched
-- match may not queue until it is reported
SELECT mm.enqueue('svc', ARRAY[9501::bigint], 1500);
\echo :LAST_ERROR_SQLSTATE

-- 4. Recovery after a crash: mm.open_matches lists the matches claimed and
-- neither reported nor abandoned, with their rosters as delivered.
SELECT count(*) AS open_before_claim FROM mm.open_matches('svc');
BEGIN;
SELECT match_id - :m1 AS match_no, team, players FROM mm.claim_matches('svc');
COMMIT;
SELECT match_id - :m1 AS match_no, claimed_at >= created_at AS claimed_after_made, team, players, backfill_id
FROM mm.open_matches('svc');
SELECT * FROM mm.open_matches(NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.open_matches('no_such_queue');
\echo :LAST_ERROR_SQLSTATE

-- 5. A proposed match cannot be backfilled: the message says why
SELECT mm.enqueue('svc', ARRAY[9505::bigint], 1500) > 0 AS queued;
SELECT DISTINCT match_id AS m3 FROM mm.tick('svc') \gset
SELECT pg_temp.backfill_refusal(:m3) AS proposed_match;
-- and a dissolved one, and a reported one (below)
SELECT mm.decline(:m3, players[1]) FROM mm.match_players(ARRAY[:m3]::bigint[]) WHERE team = 'blue';
SELECT pg_temp.backfill_refusal(:m3) AS dissolved_match;

-- 6. A retry of the same outcome with other rank numbers returns the first
-- outcome; a different outcome is refused
SELECT count(*) AS rated FROM mm.report_result(:m1, '{"teams": {"red": {"rank": 0}, "blue": {"rank": 1}}}');
SELECT count(*) AS retried FROM mm.report_result(:m1, '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}');
SELECT count(*) AS retried FROM mm.report_result(:m1, '{"teams": {"blue": {"rank": 20}, "red": {"rank": 10.0}}}');
SELECT count(*) FROM mm.report_result(:m1, '{"teams": {"red": {"rank": 2}, "blue": {"rank": 1}}}');
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM mm.report_result(:m1, '{"teams": {"red": {"rank": 1}, "blue": {"rank": 1}}}');
\echo :LAST_ERROR_SQLSTATE
SELECT pg_temp.backfill_refusal(:m1) AS reported_match;
-- reported: no longer open; its players may queue again
SELECT count(*) AS open_after_report FROM mm.open_matches('svc');
SELECT mm.enqueue('svc', ARRAY[9501::bigint], 1500) > 0 AS queued_after_report;

-- 7. queue_stats (readable by the service): matches played apart from
-- proposals dissolved (m2 and m3)
SELECT matches_last_hour, dissolved_last_hour FROM mm.queue_stats WHERE queue = 'svc';

-- 8. Wait estimates, at fixed times: 20 solos rated 1000 waited 4
-- minutes, 20 rated 2000 waited 1 minute
RESET ROLE;
SELECT mm.create_queue('svcw', '{"team_size": 1, "filter": {"potentials_min": 1, "rosters": 100}}');
SELECT count(mm.enqueue('svcw', ARRAY[p::bigint], CASE WHEN p < 9620 THEN 1000 ELSE 2000 END, 0,
                        joined_at => CASE WHEN p < 9620 THEN timestamptz '2020-01-01 12:00+00'
                                          ELSE timestamptz '2020-01-01 12:03+00' END))
FROM generate_series(9600, 9639) p;
SELECT count(DISTINCT match_id) AS matches FROM mm.tick('svcw', '2020-01-01 12:04+00');
SELECT string_agg(DISTINCT (mr.rating::int || ':' || mr.waited), ' ') AS rating_waited
FROM mm.match_roster mr JOIN mm.queue q USING (queue_id) WHERE q.name = 'svcw';
SET ROLE regress_svc_service;
SELECT mm.estimate_wait('svcw', 1000, at => '2020-01-01 12:30+00') AS low,
       mm.estimate_wait('svcw', 2000, at => '2020-01-01 12:30+00') AS high,
       mm.estimate_wait('svcw', 1900, 2, '2020-01-01 12:30+00') AS high_pair,
       mm.estimate_wait('svcw', 1000) AS nothing_in_the_last_hour;
-- waiting rosters: what is left of the median of those that waited as long
SELECT mm.enqueue('svcw', ARRAY[9650::bigint], 2000, 0, joined_at => '2020-01-01 12:28:20+00') AS r50 \gset
SELECT mm.enqueue('svcw', ARRAY[9651::bigint], 2000, 0, joined_at => '2020-01-01 12:29:30+00') AS r51 \gset
SELECT mm.enqueue('svcw', ARRAY[9652::bigint], 2000, 0, joined_at => '2020-01-01 12:20+00') AS r52 \gset
SELECT mm.estimate_roster_wait(:r50, '2020-01-01 12:30+00') AS waited_100s_left,
       mm.estimate_roster_wait(:r51, '2020-01-01 12:30+00') AS waited_30s_left,
       mm.estimate_roster_wait(:r52, '2020-01-01 12:30+00') AS longer_than_anyone;
SELECT mm.estimate_wait('svcw', NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.estimate_wait('svcw', 'NaN');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.estimate_wait('svcw', 1000, 0);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.estimate_wait('nope', 1000);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.estimate_roster_wait(-1);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.estimate_roster_wait(NULL);
\echo :LAST_ERROR_SQLSTATE
RESET ROLE;

-- clean up
SELECT mm.drop_queue('svc', keep_history => false);
SELECT mm.drop_queue('svcw', keep_history => false);
DELETE FROM mm.ratings WHERE player_id BETWEEN 9500 AND 9660;
DROP TABLE proposed;
SELECT setval('mm.match_id_seq', :seq_value, :'seq_called') = :seq_value AS restored;
DROP OWNED BY regress_svc_service, regress_svc_admin, regress_svc_analyst;
DROP ROLE regress_svc_service, regress_svc_admin, regress_svc_analyst;
