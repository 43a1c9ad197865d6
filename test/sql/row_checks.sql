-- The CHECKs written as calls of internal C functions (src/queue/row_checks.c)
-- accept exactly the rows their rule in SQL accepts: each function against
-- that rule over the edge cases, then each constraint refusing a direct
-- write with its own name. A CHECK passes on NULL, so both sides compare
-- with NULL read as true.
\set VERBOSITY terse
SET timezone = 'UTC';

-- the teams of a match: 2 to 64 names, none empty, one dimension from 1,
-- no NULL
WITH c(n, t) AS (VALUES (1, '{red,blue}'::text[]), (2, '{red}'), (3, '{}'), (4, '{red,""}'), (5, '{red,NULL}'),
                        (6, '[0:1]={a,b}'), (7, '{{a,b},{c,d}}'),
                        (8, ARRAY(SELECT 'x' || g.i FROM generate_series(1, 64) g(i))),
                        (9, ARRAY(SELECT 'x' || g.i FROM generate_series(1, 65) g(i))),
                        (10, ARRAY[repeat('z', 5000), 'b']), (11, ARRAY['b', repeat('z', 5000), '']), (12, NULL))
SELECT n, coalesce(array_ndims(t) = 1 AND array_lower(t, 1) = 1 AND cardinality(t) BETWEEN 2 AND 64
                   AND array_position(t, NULL) IS NULL AND '' <> ALL (t), true) AS sql_rule,
       coalesce(mm._match_teams_valid(t), true) AS function
FROM c ORDER BY n;

-- the odds of a match: one per team, one dimension from 1, no NULL, the
-- first two equal to red_odds and blue_odds as float8 = compares them
-- (NaN equals NaN, -0 equals 0). The one row where they differ has one
-- team, which match_teams_check refuses anyway: the SQL rule reads a
-- missing odds[2] as NULL, which passes.
WITH c(n, o, t, r, b) AS (VALUES (1, '{0.5,0.5}'::float8[], '{a,b}'::text[], 0.5::float8, 0.5::float8),
                                 (2, '{0.5,0.5}', '{a,b}', 0.4, 0.5), (3, '{0.5,0.5}', '{a,b,c}', 0.5, 0.5),
                                 (4, '{NaN,0.5}', '{a,b}', 'NaN', 0.5), (5, '{0.5,NULL}', '{a,b}', 0.5, 0.5),
                                 (6, '[0:1]={0.5,0.5}', '{a,b}', 0.5, 0.5), (7, '{0.2,0.3,0.5}', '{a,b,c}', 0.2, 0.3),
                                 (8, '{-0,0.5}', '{a,b}', 0, 0.5), (9, '{{0.5,0.5}}', '{a,b}', 0.5, 0.5),
                                 (10, '{0.5}', '{a}', 0.5, 0.5))
SELECT n, coalesce(array_ndims(o) = 1 AND array_lower(o, 1) = 1 AND cardinality(o) = cardinality(t)
                   AND array_position(o, NULL) IS NULL AND r = o[1] AND b = o[2], true) AS sql_rule,
       coalesce(mm._match_odds_valid(o, t, r, b), true) AS function
FROM c ORDER BY n;

-- a team name: 1 to 63 bytes (not characters)
SELECT n, coalesce(octet_length(t) BETWEEN 1 AND 63, true) AS sql_rule, coalesce(mm._team_name_valid(t), true) AS function
FROM (VALUES (1, ''), (2, 'a'), (3, repeat('é', 31)), (4, repeat('é', 32)), (5, repeat('a', 63)), (6, repeat('a', 64)),
             (7, NULL)) v(n, t)
ORDER BY n;

-- the feed's kinds and subjects, every kind (and a few that are not) with
-- every combination of roster and match: the rows where function and rule
-- disagree (none)
WITH k(kind) AS (VALUES ('queued'), ('left'), ('expired'), ('proposed'), ('accepted'), ('declined'), ('dissolved'),
                        ('matched'), ('backfill_requested'), ('backfilled'), ('reported'), ('abandoned'), ('x'), (''),
                        ('queue'), ('queuedx'), ('Queued'), (NULL)),
     s(r, m) AS (VALUES (1::bigint, NULL::bigint), (NULL, 1), (1, 1), (NULL, NULL))
SELECT kind, r, m,
       coalesce(kind IN ('queued', 'left', 'expired', 'proposed', 'accepted', 'declined', 'dissolved', 'matched',
                         'backfill_requested', 'backfilled', 'reported', 'abandoned'), true) AS kind_rule,
       coalesce(mm._queue_event_kind_valid(kind), true) AS kind_function,
       coalesce(CASE WHEN kind IN ('queued', 'left', 'expired') THEN r IS NOT NULL AND m IS NULL
                     ELSE m IS NOT NULL END, true) AS subject_rule,
       coalesce(mm._queue_event_subject_valid(kind, r, m), true) AS subject_function
FROM k, s
WHERE coalesce(kind IN ('queued', 'left', 'expired', 'proposed', 'accepted', 'declined', 'dissolved', 'matched',
                        'backfill_requested', 'backfilled', 'reported', 'abandoned'), true)
      IS DISTINCT FROM coalesce(mm._queue_event_kind_valid(kind), true)
   OR coalesce(CASE WHEN kind IN ('queued', 'left', 'expired') THEN r IS NOT NULL AND m IS NULL
                    ELSE m IS NOT NULL END, true)
      IS DISTINCT FROM coalesce(mm._queue_event_subject_valid(kind, r, m), true);
-- how many cases were compared, and how many each side accepts
WITH k(kind) AS (VALUES ('queued'), ('left'), ('expired'), ('proposed'), ('accepted'), ('declined'), ('dissolved'),
                        ('matched'), ('backfill_requested'), ('backfilled'), ('reported'), ('abandoned'), ('x'), (''),
                        ('queue'), ('queuedx'), ('Queued'), (NULL)),
     s(r, m) AS (VALUES (1::bigint, NULL::bigint), (NULL, 1), (1, 1), (NULL, NULL))
SELECT count(*) AS cases, count(*) FILTER (WHERE coalesce(mm._queue_event_kind_valid(kind), true)) AS kind_accepted,
       count(*) FILTER (WHERE coalesce(mm._queue_event_subject_valid(kind, r, m), true)) AS subject_accepted
FROM k, s;

-- the players an event names: at least one, one dimension, no NULL (any
-- lower bound)
SELECT n, coalesce(cardinality(p) >= 1 AND array_ndims(p) = 1 AND array_position(p, NULL) IS NULL, true) AS sql_rule,
       coalesce(mm._id_list_valid(p), true) AS function
FROM (VALUES (1, '{1}'::bigint[]), (2, '{}'), (3, '{1,NULL}'), (4, '{{1},{2}}'), (5, '[5:5]={1}'), (6, NULL)) v(n, p)
ORDER BY n;

-- a ticket event's status, and the match it names
WITH k(st) AS (VALUES ('waiting'), ('proposed'), ('accepted'), ('matched'), ('expired'), ('left'), ('removed'), ('x'),
                      (''), ('Waiting'), (NULL)),
     s(m) AS (VALUES (1::bigint), (NULL))
SELECT st, m,
       coalesce(st IN ('waiting', 'proposed', 'accepted', 'matched', 'expired', 'left', 'removed'), true) AS status_rule,
       coalesce(mm._ticket_status_valid(st), true) AS status_function,
       coalesce(CASE WHEN st IN ('proposed', 'accepted', 'matched') THEN m IS NOT NULL
                     WHEN st IN ('expired', 'left') THEN m IS NULL ELSE true END, true) AS match_rule,
       coalesce(mm._ticket_match_valid(st, m), true) AS match_function
FROM k, s ORDER BY st NULLS LAST, m NULLS LAST;

-- each constraint refuses a direct write, by its own name, and nothing
-- changes. In a transaction rolled back at the end, every id given, so
-- that no sequence moves (the tests after this one print ids).
\set ON_ERROR_ROLLBACK on
BEGIN;
INSERT INTO mm.queue (queue_id, name, config) VALUES (900001, 'checks', '{"team_size": 1}');
INSERT INTO mm.match (match_id, queue_id, tick_id, created_at, prediction, red_odds, blue_odds, rating_spread, teams, odds)
VALUES (900001, 900001, 1, now(), 0, 0.5, 0.5, 0, '{red,blue}', '{0.5,0.5}');
INSERT INTO mm.roster (roster_id, queue_id, position, rating, match_id, team, waited)
VALUES (900001, 900001, 900001, 1500, 900001, 'red', '1 second');
-- mm.match: teams and odds
UPDATE mm.match SET teams = '{red,""}' WHERE match_id = 900001;
UPDATE mm.match SET teams = '{red}', odds = '{1}', blue_odds = 0 WHERE match_id = 900001;
UPDATE mm.match SET red_odds = red_odds / 2 WHERE match_id = 900001;
UPDATE mm.match SET odds = ARRAY[red_odds, NULL] WHERE match_id = 900001;
-- a team name, in each table that has one
UPDATE mm.roster SET team = '' WHERE roster_id = 900001;
INSERT INTO mm.ended_roster (match_id, roster_id, team, players, rating, deviation, rank, ladder_points, dishonor,
                             professions, joined_at, waited, queue_id)
VALUES (900001, 900002, repeat('t', 64), '{1}', 1500, 0, 0, 0, 0, '{}', now(), '1 second', 900001);
INSERT INTO mm.backfill (backfill_id, queue_id, match_id, team, players, requested_at)
VALUES (900001, 900001, 900001, '', 1, now());
-- ticket events
INSERT INTO mm.ticket_event (event_id, roster_id, player_id, status, at, queue_id)
VALUES (900001, 900001, 1, 'matched', now(), 900001);
INSERT INTO mm.ticket_event (event_id, roster_id, player_id, status, at, queue_id, match_id)
VALUES (900001, 900001, 1, 'left', now(), 900001, 900001);
INSERT INTO mm.ticket_event (event_id, roster_id, player_id, status, at, queue_id)
VALUES (900001, 900001, 1, 'gone', now(), 900001);
-- the event feed
INSERT INTO mm.queue_event (event_id, queue_id, kind, roster_id, player_ids) VALUES (900001, 900001, 'joined', 900001, '{1}');
INSERT INTO mm.queue_event (event_id, queue_id, kind, roster_id, match_id, player_ids)
VALUES (900001, 900001, 'queued', 900001, 900001, '{1}');
INSERT INTO mm.queue_event (event_id, queue_id, kind, roster_id, player_ids) VALUES (900001, 900001, 'reported', 900001, '{1}');
INSERT INTO mm.queue_event (event_id, queue_id, kind, roster_id, player_ids) VALUES (900001, 900001, 'queued', 900001, '{}');
-- nothing changed: the match and roster as written, no other row
SELECT teams, odds, red_odds, blue_odds FROM mm.match WHERE match_id = 900001;
SELECT team FROM mm.roster WHERE roster_id = 900001;
SELECT (SELECT count(*) FROM mm.ended_roster WHERE queue_id = 900001) AS ended_rosters,
       (SELECT count(*) FROM mm.backfill WHERE queue_id = 900001) AS backfills,
       (SELECT count(*) FROM mm.ticket_event WHERE queue_id = 900001) AS ticket_events,
       (SELECT count(*) FROM mm.queue_event WHERE queue_id = 900001) AS events;
-- and the rows each rule accepts go in
INSERT INTO mm.ticket_event (event_id, roster_id, player_id, status, at, queue_id, match_id)
VALUES (900001, 900001, 1, 'matched', now(), 900001, 900001);
INSERT INTO mm.queue_event (event_id, queue_id, kind, match_id, player_ids) VALUES (900001, 900001, 'matched', 900001, '{1}');
UPDATE mm.match SET teams = '{red,blue,green}', odds = '{0.5,0.25,0.25}', blue_odds = 0.25 WHERE match_id = 900001;
SELECT teams, odds, red_odds, blue_odds FROM mm.match WHERE match_id = 900001;
ROLLBACK;
\set ON_ERROR_ROLLBACK off
