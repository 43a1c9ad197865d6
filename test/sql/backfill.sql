-- Backfill: mm.request_backfill, the tick filling open seats before new
-- matches with the matcher's scoring against the team, delivery through
-- mm.claim_matches, mm.cancel_backfill, expiry with report_result and
-- abandon_match, errors, and what the tables refuse.
\set VERBOSITY terse
SET timezone = 'UTC';

-- The default scoring weights (the Guild Wars 2 wiki's): age +15 per
-- second waited, rating_distance -5 per point of effective rating (rating -
-- deviation) from the team's mean, roster_size_distance -500 per player of
-- difference from the largest roster of the match, perfect_fit +200 when a
-- roster is as large as that, dishonor_distance -100 per stack of
-- difference from the team's total, dishonor_stack -50 per stack. Padding:
-- 10 rating per second waited after 30 s.

-- A 5v5 missing one player
--
-- Ten solos rated 1500, deviation 50, make a match. Red's mean effective
-- rating is 1450, its dishonor 0, the largest roster of the match 1. The
-- request has just been made: no padding, red's range is [1450, 1550].
-- Waiting (rating/deviation, waited):
--   A 7101  1510/50, 10 s        range [1460, 1560]: a potential
--           score 15*10 - 5*|1450 - 1460| + 200            =  300
--   B 7102  1530/50, 60 s        pad 300: a potential
--           score 15*60 - 5*|1450 - 1480| + 200            =  950
--   C 7103  1500/50, 60 s, 4 dishonor stacks: a potential
--           score 15*60 - 0 + 200 - 100*4 - 50*4           =  500
--   D 7104+7105, a pair, 300 s: two players for one seat, not a potential
--   E 7106  1800/0, 45 s         pad 150, range [1650, 1950]: outside
--           red's range, not a potential (15*45 - 5*350 + 200 = -875)
-- B scores best and joins red; A, C, D and E keep waiting.
SELECT mm.create_queue('bf', '{"team_size": 5, "filter": {"deviations": 1, "potentials_min": 1}, "rating": {"model": "glicko2"}}');
SELECT count(mm.enqueue('bf', ARRAY[p::bigint], 1500, 50)) AS queued FROM generate_series(7001, 7010) p;
SELECT count(DISTINCT match_id) AS matches, count(*) AS rosters FROM mm.tick('bf');
SELECT match_id AS m1 FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'bf' \gset
SELECT mm.request_backfill(:m1, 'red', 1) AS b1 \gset
SELECT status, players, team, ended_at IS NULL AS open FROM mm.backfill WHERE backfill_id = :b1;
SELECT mm.enqueue('bf', ARRAY[7101], 1510, 50, joined_at => now() - interval '10 s') AS a,
       mm.enqueue('bf', ARRAY[7102], 1530, 50, joined_at => now() - interval '60 s') AS b,
       mm.enqueue('bf', ARRAY[7103], 1500, 50, dishonor => 4, joined_at => now() - interval '60 s') AS c,
       mm.enqueue('bf', ARRAY[7104, 7105], 1500, 50, joined_at => now() - interval '300 s') AS d,
       mm.enqueue('bf', ARRAY[7106], 1800, 0, joined_at => now() - interval '45 s') AS e \gset
-- the tick fills the seat and makes no new match (five players wait)
SELECT count(*) AS new_match_rows FROM mm.tick('bf');
SELECT b.status, b.tick_id = (SELECT max(tick_id) FROM mm.tick_log) AS by_last_tick
FROM mm.backfill b WHERE b.backfill_id = :b1;
SELECT mr.roster_id = :b AS is_b, mr.players, mr.team, mr.backfill_id = :b1 AS of_request
FROM mm.match_roster mr WHERE mr.backfill_id IS NOT NULL;
SELECT string_agg(players::text, ' ' ORDER BY place) AS still_waiting FROM mm.list_queue('bf');
-- B's ticket is matched to the running match
SELECT status, match_id = :m1 AS same_match, match_status FROM mm.ticket_status(7102);
SELECT status, match_id = :m1 AS same_match FROM mm.roster_status(:b) ORDER BY at, status;

-- delivery: the match, then the backfill, each claimed once
SELECT kind, count(*) AS rosters, count(DISTINCT match_id) AS matches, bool_and(match_id = :m1) AS m1,
       max(backfill_id) = :b1 AS request, string_agg(players::text, ' ') FILTER (WHERE kind = 'backfill') AS joined
FROM mm.claim_matches('bf') GROUP BY kind ORDER BY kind;
SELECT count(*) AS claimed_again FROM mm.claim_matches('bf');
SELECT delivered_at IS NOT NULL AS delivered FROM mm.backfill WHERE backfill_id = :b1;

-- A missing pair: two solos or a pair, as the size rules say
--
-- In a match of solos the largest roster is 1: a solo scores
-- 15*60 + 200 = 1100, a pair 15*60 - 500*|1 - 2| = 400. The first solo is
-- picked (ties go to the earlier in queue), then, one seat left, the second.
SELECT mm.create_queue('bf2', '{"team_size": 5, "filter": {"deviations": 1, "potentials_min": 1}, "rating": {"model": "glicko2"}}');
SELECT count(mm.enqueue('bf2', ARRAY[p::bigint], 1500, 50)) AS queued FROM generate_series(7201, 7210) p;
SELECT count(DISTINCT match_id) AS matches FROM mm.tick('bf2');
SELECT match_id AS m2 FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'bf2' \gset
SELECT mm.request_backfill(:m2, 'blue', 2) AS b2 \gset
SELECT mm.enqueue('bf2', ARRAY[7211, 7212], 1500, 50, joined_at => now() - interval '60 s') AS pair,
       mm.enqueue('bf2', ARRAY[7213], 1500, 50, joined_at => now() - interval '60 s') AS solo1,
       mm.enqueue('bf2', ARRAY[7214], 1500, 50, joined_at => now() - interval '60 s') AS solo2 \gset
SELECT count(*) AS new_match_rows FROM mm.tick('bf2');
SELECT string_agg(players::text, ' ' ORDER BY roster_id) AS joined_blue, min(team) AS team
FROM mm.match_roster WHERE backfill_id = :b2;
SELECT string_agg(players::text, ' ' ORDER BY place) AS still_waiting FROM mm.list_queue('bf2');
SELECT mm.drop_queue('bf2', keep_history => false);

-- In a match made with pairs the largest roster is 2: a pair scores
-- 15*60 + 200 = 1100, a solo 15*60 - 500 = 400: the pair joins.
SELECT mm.create_queue('bf2', '{"team_size": 5, "filter": {"deviations": 1, "potentials_min": 1}, "rating": {"model": "glicko2"}}');
SELECT count(*) AS queued FROM (VALUES (mm.enqueue('bf2', ARRAY[7221, 7222], 1500, 50)),
                                      (mm.enqueue('bf2', ARRAY[7223, 7224], 1500, 50))) v;
SELECT count(mm.enqueue('bf2', ARRAY[p::bigint], 1500, 50)) AS queued FROM generate_series(7225, 7230) p;
SELECT count(DISTINCT match_id) AS matches, count(*) AS rosters FROM mm.tick('bf2');
SELECT match_id AS m2 FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'bf2' \gset
SELECT mm.request_backfill(:m2, 'red', 2) AS b2 \gset
SELECT mm.enqueue('bf2', ARRAY[7231], 1500, 50, joined_at => now() - interval '60 s') AS solo1,
       mm.enqueue('bf2', ARRAY[7232], 1500, 50, joined_at => now() - interval '60 s') AS solo2,
       mm.enqueue('bf2', ARRAY[7233, 7234], 1500, 50, joined_at => now() - interval '60 s') AS pair \gset
SELECT count(*) AS new_match_rows FROM mm.tick('bf2');
SELECT string_agg(players::text, ' ' ORDER BY roster_id) AS joined_red FROM mm.match_roster WHERE backfill_id = :b2;
SELECT string_agg(players::text, ' ' ORDER BY place) AS still_waiting FROM mm.list_queue('bf2');
SELECT mm.drop_queue('bf2', keep_history => false);

-- Sizes add up exactly
--
-- A match of trios and pairs (largest roster 3); three seats open. The
-- pair waited long: 15*200 - 500*|3 - 2| = 2500; the trio 15*10 + 200 =
-- 350. Picking the pair would leave one seat that no waiting roster fits,
-- so the pair is passed over and the trio fills the three seats.
SELECT mm.create_queue('bf3', '{"team_size": 5, "filter": {"deviations": 1, "potentials_min": 1}, "rating": {"model": "glicko2"}}');
SELECT count(*) AS queued FROM (VALUES (mm.enqueue('bf3', ARRAY[7301, 7302, 7303], 1500, 50)),
                                      (mm.enqueue('bf3', ARRAY[7304, 7305], 1500, 50)),
                                      (mm.enqueue('bf3', ARRAY[7306, 7307, 7308], 1500, 50)),
                                      (mm.enqueue('bf3', ARRAY[7309, 7310], 1500, 50))) v;
SELECT count(DISTINCT match_id) AS matches, count(*) AS rosters FROM mm.tick('bf3');
SELECT match_id AS m3 FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'bf3' \gset
SELECT mm.request_backfill(:m3, 'red', 3) AS b3 \gset
SELECT mm.enqueue('bf3', ARRAY[7311, 7312], 1500, 50, joined_at => now() - interval '200 s') AS pair,
       mm.enqueue('bf3', ARRAY[7313, 7314, 7315], 1500, 50, joined_at => now() - interval '10 s') AS trio \gset
SELECT count(*) AS new_match_rows FROM mm.tick('bf3');
SELECT string_agg(players::text, ' ' ORDER BY roster_id) AS joined_red FROM mm.match_roster WHERE backfill_id = :b3;
-- with a solo waiting too, the pair and the solo fill the seats (the pair
-- first: it scores best and one seat is left that the solo fits)
SELECT mm.request_backfill(:m3, 'blue', 3) AS b3 \gset
SELECT mm.enqueue('bf3', ARRAY[7316], 1500, 50, joined_at => now() - interval '10 s') AS solo \gset
SELECT count(*) AS new_match_rows FROM mm.tick('bf3');
SELECT string_agg(players::text, ' ' ORDER BY roster_id) AS joined_blue FROM mm.match_roster WHERE backfill_id = :b3;
-- no exact fill: a pair for one seat stays open
SELECT mm.request_backfill(:m3, 'red', 1) AS b3 \gset
SELECT mm.enqueue('bf3', ARRAY[7317, 7318], 1500, 50) AS pair2 \gset
SELECT count(*) AS new_match_rows FROM mm.tick('bf3');
SELECT status FROM mm.backfill WHERE backfill_id = :b3;
SELECT mm.drop_queue('bf3', keep_history => false);

-- Professions count against the team, as in scoreRoster
--
-- A 2v2 of solos with professions (queue order 7501 guardian, 7502 thief,
-- 7503 guardian, 7504 mesmer, equal ratings): red holds 7501, blue is
-- populated first and takes 7502 and 7503 (ties go to the earlier), red
-- gets 7504: red is guardian + mesmer. Red asks for one player; waiting:
--   X 7505 guardian, 60 s: red would have 2 guardians, at profession_max 2:
--          (2 - (2 - 1)) * -500 = -500; score 900 + 200 - 500 = 600
--   Y 7506 thief, 40 s: 1 thief, under the max: (2 - 1) * 500 = +500;
--          score 600 + 200 + 500 = 1300
-- Y joins red (without the profession rule X, 1100, would beat Y, 800).
SELECT mm.create_queue('bfprof', '{"team_size": 2, "filter": {"deviations": 1, "potentials_min": 1}, "rating": {"model": "glicko2"}}');
SELECT count(*) AS queued FROM (VALUES (mm.enqueue('bfprof', ARRAY[7501], 1500, 50, professions => '{guardian}')),
                                      (mm.enqueue('bfprof', ARRAY[7502], 1500, 50, professions => '{thief}')),
                                      (mm.enqueue('bfprof', ARRAY[7503], 1500, 50, professions => '{guardian}')),
                                      (mm.enqueue('bfprof', ARRAY[7504], 1500, 50, professions => '{mesmer}'))) v;
SELECT count(*) AS new_match_rows FROM mm.tick('bfprof');
SELECT match_id AS mp FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'bfprof' \gset
SELECT team, string_agg(players::text || professions::text, ' ' ORDER BY roster_id) AS rosters
FROM mm.match_roster WHERE match_id = :mp GROUP BY team ORDER BY team DESC;
SELECT mm.request_backfill(:mp, 'red', 1) AS bp \gset
SELECT count(*) AS queued
FROM (VALUES (mm.enqueue('bfprof', ARRAY[7505], 1500, 50, professions => '{guardian}', joined_at => now() - interval '60 s')),
             (mm.enqueue('bfprof', ARRAY[7506], 1500, 50, professions => '{thief}', joined_at => now() - interval '40 s'))) v;
SELECT count(*) AS new_match_rows FROM mm.tick('bfprof');
SELECT players, professions, team FROM mm.match_roster WHERE backfill_id = :bp;
SELECT mm.drop_queue('bfprof', keep_history => false);

-- A roster is never both backfilled and matched in one tick
--
-- Duels (team_size 1). Red (7401) left its match and queued again; it has
-- waited longest but is never put back into the match it left. 7403 has
-- waited longer than 7404 and 7405: it fills red's seat; the new match of
-- the same tick is made from the rest (7401 with 7404), and 7405 waits.
SELECT mm.create_queue('bfduel', '{"team_size": 1, "filter": {"deviations": 1, "potentials_min": 1}, "rating": {"model": "glicko2"}, "requeue_while_in_match": true}');
SELECT count(*) AS queued FROM (VALUES (mm.enqueue('bfduel', ARRAY[7401], 1500, 50)),
                                      (mm.enqueue('bfduel', ARRAY[7402], 1500, 50))) v;
SELECT count(*) AS new_match_rows FROM mm.tick('bfduel');
SELECT match_id AS m4 FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'bfduel' \gset
SELECT string_agg(players::text || ':' || team, ' ' ORDER BY team DESC) AS first_match
FROM mm.match_roster WHERE match_id = :m4;
SELECT mm.request_backfill(:m4, 'red', 1) AS b4 \gset
SELECT count(*) AS queued FROM (VALUES (mm.enqueue('bfduel', ARRAY[7401], 1500, 50, joined_at => now() - interval '120 s')),
                                      (mm.enqueue('bfduel', ARRAY[7403], 1500, 50, joined_at => now() - interval '60 s')),
                                      (mm.enqueue('bfduel', ARRAY[7404], 1500, 50, joined_at => now() - interval '10 s')),
                                      (mm.enqueue('bfduel', ARRAY[7405], 1500, 50, joined_at => now() - interval '5 s'))) v;
SELECT count(*) AS new_match_rows FROM mm.tick('bfduel');
SELECT string_agg(r.players::text || ':' || r.team, ' ' ORDER BY r.team DESC) AS new_match
FROM mm.match_roster r
WHERE r.match_id = (SELECT max(m.match_id) FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'bfduel');
SELECT string_agg(players::text, ' ') AS backfilled FROM mm.match_roster WHERE backfill_id = :b4;
SELECT count(*) AS rosters, count(DISTINCT roster_id) AS distinct_rosters
FROM mm.match_roster r JOIN mm.queue q USING (queue_id) WHERE q.name = 'bfduel';
SELECT string_agg(players::text, ' ' ORDER BY place) AS still_waiting FROM mm.list_queue('bfduel');
-- the backfilled player plays the match: mm.report_result rates the three
-- (the leaver as a deserter of red)
SELECT count(*) AS rated, count(*) FILTER (WHERE deserted) AS deserters
FROM mm.report_result(:m4, '{"teams": {"red": {"rank": 1, "desertions": [7401]}, "blue": {"rank": 2}}}');

-- The range widens while a request waits
SELECT count(*) AS queued FROM (VALUES (mm.enqueue('bfduel', ARRAY[7406], 1500, 0)),
                                      (mm.enqueue('bfduel', ARRAY[7407], 1500, 0))) v;
SELECT mm.leave(roster_id) FROM mm.queued_player WHERE player_id = 7405;
SELECT count(*) AS new_match_rows FROM mm.tick('bfduel');
SELECT match_id AS m5 FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'bfduel'
ORDER BY match_id DESC LIMIT 1 \gset
SELECT mm.request_backfill(:m5, 'blue', 1) AS b5 \gset
SELECT mm.enqueue('bfduel', ARRAY[7408], 2500, 0) AS far \gset
-- now: [1500, 1500] against [2500, 2500], no potential
SELECT count(*) AS new_match_rows FROM mm.tick('bfduel');
SELECT status FROM mm.backfill WHERE backfill_id = :b5;
-- four minutes on, both ranges are padded by (240 - 30) * 10 = 2100
SELECT count(*) AS new_match_rows FROM mm.tick('bfduel', now() + interval '4 minutes');
SELECT b.status, r.players FROM mm.backfill b JOIN mm.match_roster r USING (backfill_id) WHERE b.backfill_id = :b5;

-- Cancel
SELECT mm.request_backfill(:m5, 'red', 1) AS b6 \gset
SELECT mm.cancel_backfill(:b6) AS cancelled, mm.cancel_backfill(:b6) AS cancelled_again;
SELECT mm.enqueue('bfduel', ARRAY[7409], 1500, 0) AS waiting \gset
SELECT count(*) AS new_match_rows FROM mm.tick('bfduel');
SELECT status, ended_at IS NOT NULL AS ended, tick_id FROM mm.backfill WHERE backfill_id = :b6;
SELECT string_agg(players::text, ' ' ORDER BY place) AS still_waiting FROM mm.list_queue('bfduel');
-- a filled request cannot be cancelled
SELECT mm.cancel_backfill(:b5) AS cancel_filled;

-- Expiry: report_result and abandon_match end the open requests
SELECT mm.request_backfill(:m5, 'red', 1) AS b7 \gset
SELECT count(*) AS rated FROM mm.report_result(:m5, '{"teams": {"red": {"rank": 2}, "blue": {"rank": 1}}}');
SELECT status, ended_at IS NOT NULL AS ended FROM mm.backfill WHERE backfill_id = :b7;
SELECT mm.cancel_backfill(:b7) AS cancel_expired;
SELECT count(*) AS new_match_rows FROM mm.tick('bfduel');
SELECT string_agg(players::text, ' ' ORDER BY place) AS still_waiting FROM mm.list_queue('bfduel');
SELECT mm.enqueue('bfduel', ARRAY[7410], 1500, 0) IS NOT NULL AS queued;
SELECT count(*) AS new_match_rows FROM mm.tick('bfduel');
SELECT match_id AS m6 FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'bfduel'
ORDER BY match_id DESC LIMIT 1 \gset
SELECT mm.request_backfill(:m6, 'blue', 1) AS b8 \gset
SELECT mm.abandon_match(:m6);
SELECT status FROM mm.backfill WHERE backfill_id = :b8;

-- Errors (match ids in messages masked: they depend on the tests before)
CREATE FUNCTION pg_temp.refused(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE q;
    RETURN 'not refused';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || regexp_replace(SQLERRM, 'match [0-9]+', 'match N', 'g');
END
$$;
SELECT pg_temp.refused(format('SELECT mm.request_backfill(%s, %L, 1)', :m6, 'red'));
SELECT pg_temp.refused(format('SELECT mm.request_backfill(%s, %L, 1)', :m1, 'green'));
SELECT pg_temp.refused(format('SELECT mm.request_backfill(%s, %L, 0)', :m1, 'red'));
SELECT pg_temp.refused(format('SELECT mm.request_backfill(%s, %L, 6)', :m1, 'red'));
SELECT mm.request_backfill(:m1, 'red', 3) AS b9 \gset
SELECT pg_temp.refused(format('SELECT mm.request_backfill(%s, %L, 3)', :m1, 'red'));
SELECT mm.request_backfill(:m1, 'red', 2) IS NOT NULL AS fits_the_room;
SELECT mm.request_backfill(-1, 'red', 1);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.request_backfill(:m1, NULL, 1);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.cancel_backfill(-1);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.cancel_backfill(NULL);
\echo :LAST_ERROR_SQLSTATE
-- nothing was written by the refused calls
SELECT b.match_id = :m1 AS m1, b.team, b.players, b.status FROM mm.backfill b
WHERE b.match_id IN (:m1, :m6) ORDER BY b.backfill_id;

-- What the tables refuse
SELECT queue_id AS qid FROM mm.queue WHERE name = 'bf' \gset
INSERT INTO mm.backfill (queue_id, match_id, team, players) VALUES (:qid, :m1, 'red', 0);
\echo :LAST_ERROR_SQLSTATE
INSERT INTO mm.backfill (queue_id, match_id, team, players) VALUES (:qid, :m1, '', 1);
\echo :LAST_ERROR_SQLSTATE
INSERT INTO mm.backfill (queue_id, match_id, team, players) VALUES (:qid, -1, 'red', 1);
\echo :LAST_ERROR_SQLSTATE
INSERT INTO mm.backfill (queue_id, match_id, team, players, status) VALUES (:qid, :m1, 'red', 1, 'filled');
\echo :LAST_ERROR_SQLSTATE
UPDATE mm.backfill SET delivered_at = now() WHERE backfill_id = :b9;
\echo :LAST_ERROR_SQLSTATE
-- a backfilled roster belongs to its request's match and team
UPDATE mm.roster SET team = 'blue' WHERE backfill_id = :b1;
\echo :LAST_ERROR_SQLSTATE
-- the requests go with their match
SELECT count(*) AS requests_of_bf FROM mm.backfill WHERE queue_id = :qid;
SELECT mm.drop_queue('bf', keep_history => false);
SELECT count(*) AS requests_of_bf FROM mm.backfill WHERE queue_id = :qid;
SELECT mm.drop_queue('bfduel', keep_history => false);
SELECT count(*) AS requests_left FROM mm.backfill;
