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

-- The queue's rules against the match
--
-- A backfill takes only rosters that keep the running match within the
-- queue's hard rules, at the parameters of the request's wait, loosened to
-- what the match already has where it is beyond them; soft rules score.
-- All rosters below are rated 1500 with deviation 50 (effective 1450, the
-- team's mean), so a roster scores 15 per second waited + 200 (perfect fit,
-- a solo in a match of solos), and without rules the longest wait wins.
-- (errors: match ids in messages masked, they depend on the tests before)
CREATE FUNCTION pg_temp.refused(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE q;
    RETURN 'not refused';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || regexp_replace(SQLERRM, 'match [0-9]+', 'match N', 'g');
END
$$;
CREATE FUNCTION pg_temp.filled(b bigint) RETURNS text LANGUAGE sql AS $$
    SELECT coalesce((SELECT string_agg(mr.players::text, ' ' ORDER BY mr.roster_id)
                     FROM mm.match_roster mr WHERE mr.backfill_id = b), '-')
           || ' ' || (SELECT status FROM mm.backfill WHERE backfill_id = b)
$$;

-- equal and latency: the match's mode, and the region it is played in.
-- Four solos of mode ctf make a 2v2 in eu (the one region where all four
-- are within 50 ms). Red asks for one player. Waiting:
--   A 7611  koth, eu 10, 60 s     score 1100: another mode
--   B 7612  ctf, eu 80, us 10, 50 s  score 950: 80 ms to eu, over 50
--   C 7613  ctf, eu 40, 10 s      score 350: the only one the rules take
SELECT mm.create_queue('bfr', $${"team_size": 2, "filter": {"deviations": 1, "potentials_min": 1},
    "rating": {"model": "glicko2"},
    "attributes": {"mode": {"type": "string", "required": true}},
    "rules": [{"type": "equal", "attribute": "mode"},
              {"type": "latency", "max": 50, "expand": [{"after": 120, "max": 100}]}]}$$);
SELECT count(mm.enqueue('bfr', ARRAY[p], 1500, 50, attributes => '{"mode": "ctf"}', latencies => l))
FROM (VALUES (7601::bigint, '{"eu": 20, "us": 200}'::jsonb), (7602, '{"eu": 30}'),
             (7603, '{"eu": 40}'), (7604, '{"eu": 45, "us": 5}')) v(p, l);
SELECT count(DISTINCT match_id) AS matches FROM mm.tick('bfr');
SELECT match_id AS mr1, region FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'bfr' \gset
SELECT :'region' AS region;
SELECT mm.request_backfill(:mr1, 'red', 1) AS r1 \gset
SELECT count(*) FROM (VALUES
    (mm.enqueue('bfr', ARRAY[7611], 1500, 50, joined_at => now() - interval '60 s',
                attributes => '{"mode": "koth"}', latencies => '{"eu": 10}')),
    (mm.enqueue('bfr', ARRAY[7612], 1500, 50, joined_at => now() - interval '50 s',
                attributes => '{"mode": "ctf"}', latencies => '{"eu": 80, "us": 10}')),
    (mm.enqueue('bfr', ARRAY[7613], 1500, 50, joined_at => now() - interval '10 s',
                attributes => '{"mode": "ctf"}', latencies => '{"eu": 40}'))) v;
SELECT count(*) AS new_match_rows FROM mm.tick('bfr');
SELECT pg_temp.filled(:r1) AS red_filled;
-- blue asks too: A (another mode) and B (80 ms) wait; the request stays open
-- until it has waited 120 s, when its latency limit is 100 ms and B joins
SELECT mm.request_backfill(:mr1, 'blue', 1) AS r2 \gset
SELECT count(*) AS new_match_rows FROM mm.tick('bfr');
SELECT pg_temp.filled(:r2) AS blue_now;
SELECT count(*) AS new_match_rows FROM mm.tick('bfr', now() + interval '130 s');
SELECT pg_temp.filled(:r2) AS blue_after_130_s;
SELECT string_agg(players::text, ' ' ORDER BY place) AS still_waiting FROM mm.list_queue('bfr');
-- The match's own worst latency loosens a fresh request's limit: four solos
-- that waited 130 s (limit 100 ms) make a match in eu with a roster at
-- 90 ms. A fresh request (limit 50) takes up to 90 ms: E (70 ms) joins,
-- D (95 ms, waited longer) does not.
SELECT count(mm.leave(roster_id)) AS left FROM mm.list_queue('bfr');
SELECT count(mm.enqueue('bfr', ARRAY[p], 1500, 50, joined_at => now() - interval '130 s',
                        attributes => '{"mode": "ctf"}', latencies => l))
FROM (VALUES (7621::bigint, '{"eu": 20}'::jsonb), (7622, '{"eu": 30}'), (7623, '{"eu": 40}'),
             (7624, '{"eu": 90}')) v(p, l);
SELECT count(DISTINCT match_id) AS matches FROM mm.tick('bfr');
SELECT max(match_id) AS mr2 FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'bfr' \gset
SELECT region FROM mm.match WHERE match_id = :mr2;
SELECT mm.request_backfill(:mr2, 'red', 1) AS r3 \gset
SELECT count(*) FROM (VALUES
    (mm.enqueue('bfr', ARRAY[7625], 1500, 50, joined_at => now() - interval '60 s',
                attributes => '{"mode": "ctf"}', latencies => '{"eu": 95}')),
    (mm.enqueue('bfr', ARRAY[7626], 1500, 50, joined_at => now() - interval '10 s',
                attributes => '{"mode": "ctf"}', latencies => '{"eu": 70}'))) v;
SELECT count(*) AS new_match_rows FROM mm.tick('bfr');
SELECT pg_temp.filled(:r3) AS red_filled;
SELECT mm.drop_queue('bfr', keep_history => false);

-- distance and intersect over the whole match. A 2v2 of tiers 1, 1, 2, 2
-- whose rosters all speak en (the one language they share); distance max 1
-- (3 after 120 s), intersect min 1. Red asks for one player:
--   X 7641  tier 3, en, 60 s      spread 3 - 1 = 2, over 1
--   Y 7642  tier 2, de, 50 s      shares no language with the match
--   Z 7643  tier 1, en fr, 10 s   joins
SELECT mm.create_queue('bfd', $${"team_size": 2, "filter": {"deviations": 1, "potentials_min": 1},
    "rating": {"model": "glicko2"},
    "attributes": {"tier": {"type": "number", "required": true},
                   "languages": {"type": "string_set", "default": ["en"]}},
    "rules": [{"type": "distance", "attribute": "tier", "max": 1, "expand": [{"after": 120, "max": 3}]},
              {"type": "intersect", "attribute": "languages"}]}$$);
SELECT count(mm.enqueue('bfd', ARRAY[p], 1500, 50, attributes => a))
FROM (VALUES (7631::bigint, '{"tier": 1, "languages": ["en", "fr"]}'::jsonb), (7632, '{"tier": 1}'),
             (7633, '{"tier": 2, "languages": ["en", "de"]}'), (7634, '{"tier": 2}')) v(p, a);
SELECT count(DISTINCT match_id) AS matches FROM mm.tick('bfd');
SELECT match_id AS md1 FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'bfd' \gset
SELECT mm.request_backfill(:md1, 'red', 1) AS d1 \gset
SELECT count(*) FROM (VALUES
    (mm.enqueue('bfd', ARRAY[7641], 1500, 50, joined_at => now() - interval '60 s', attributes => '{"tier": 3}')),
    (mm.enqueue('bfd', ARRAY[7642], 1500, 50, joined_at => now() - interval '50 s',
                attributes => '{"tier": 2, "languages": ["de"]}')),
    (mm.enqueue('bfd', ARRAY[7643], 1500, 50, joined_at => now() - interval '10 s',
                attributes => '{"tier": 1, "languages": ["en", "fr"]}'))) v;
SELECT count(*) AS new_match_rows FROM mm.tick('bfd');
SELECT pg_temp.filled(:d1) AS red_filled;
SELECT mm.drop_queue('bfd', keep_history => false);
-- A match made at max 3 (tiers 0 to 3, its targets waited 130 s): a fresh
-- request (max 1) takes a roster that keeps the spread at 3 (V, tier 3), not
-- one that widens it (U, tier 4, waited longer).
SELECT mm.create_queue('bfd', $${"team_size": 2, "filter": {"deviations": 1, "potentials_min": 1},
    "rating": {"model": "glicko2"},
    "attributes": {"tier": {"type": "number", "required": true}},
    "rules": [{"type": "distance", "attribute": "tier", "max": 1, "expand": [{"after": 120, "max": 3}]}]}$$);
SELECT count(mm.enqueue('bfd', ARRAY[7650 + t], 1500, 50, joined_at => now() - interval '130 s',
                        attributes => jsonb_build_object('tier', t)))
FROM generate_series(0, 3) t;
SELECT count(DISTINCT match_id) AS matches FROM mm.tick('bfd');
SELECT match_id AS md2 FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'bfd' \gset
SELECT mm.request_backfill(:md2, 'blue', 1) AS d2 \gset
SELECT count(*) FROM (VALUES
    (mm.enqueue('bfd', ARRAY[7661], 1500, 50, joined_at => now() - interval '60 s', attributes => '{"tier": 4}')),
    (mm.enqueue('bfd', ARRAY[7662], 1500, 50, joined_at => now() - interval '10 s', attributes => '{"tier": 3}'))) v;
SELECT count(*) AS new_match_rows FROM mm.tick('bfd');
SELECT pg_temp.filled(:d2) AS blue_filled;
SELECT mm.drop_queue('bfd', keep_history => false);

-- roles: the seats the team lacks. A 2v2 of a tank and a damage player per
-- team (roles rule: 1 tank, 1 damage). Red's damage player left: asked with
-- roles => '{damage}', red lacks a damage player, and the tank T (waited
-- longer) is passed over for the damage player D. Blue's player left
-- without its role given: blue counts the roles of all its players, lacks
-- none, and any role fills the seat (T).
SELECT mm.create_queue('bfroles', $${"team_size": 2, "filter": {"deviations": 1, "potentials_min": 1},
    "rating": {"model": "glicko2"}, "roles": ["tank", "damage"],
    "rules": [{"type": "roles", "counts": {"tank": 1, "damage": 1}}]}$$);
SELECT count(mm.enqueue('bfroles', ARRAY[p], 1500, 50, roles => ARRAY[r]))
FROM (VALUES (7671::bigint, 'tank'), (7672, 'damage'), (7673, 'tank'), (7674, 'damage')) v(p, r);
SELECT count(DISTINCT match_id) AS matches FROM mm.tick('bfroles');
SELECT match_id AS mq FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'bfroles' \gset
SELECT team, string_agg(players::text || (SELECT array_agg(qp.role ORDER BY qp.seat) FROM mm.queued_player qp
                                          WHERE qp.roster_id = mr.roster_id)::text, ' ' ORDER BY roster_id) AS rosters
FROM mm.match_roster mr WHERE match_id = :mq GROUP BY team ORDER BY team DESC;
SELECT mm.request_backfill(:mq, 'red', 1, roles => '{damage}') AS q1 \gset
SELECT count(*) FROM (VALUES
    (mm.enqueue('bfroles', ARRAY[7681], 1500, 50, joined_at => now() - interval '60 s', roles => '{tank}')),
    (mm.enqueue('bfroles', ARRAY[7682], 1500, 50, joined_at => now() - interval '10 s', roles => '{damage}'))) v;
SELECT count(*) AS new_match_rows FROM mm.tick('bfroles');
SELECT pg_temp.filled(:q1) AS red_filled;
SELECT mm.request_backfill(:mq, 'blue', 1) AS q2 \gset
SELECT count(*) AS new_match_rows FROM mm.tick('bfroles');
SELECT pg_temp.filled(:q2) AS blue_filled;
-- the leavers' roles are checked as mm.enqueue checks roles
SELECT pg_temp.refused(format('SELECT mm.request_backfill(%s, %L, 1, %L)', :mq, 'red', '{healer}'));
SELECT pg_temp.refused(format('SELECT mm.request_backfill(%s, %L, 1, %L)', :mq, 'red', '{tank,damage}'));
SELECT pg_temp.refused(format('SELECT mm.request_backfill(%s, %L, 1, NULL)', :mq, 'red'));
SELECT count(*) AS requests FROM mm.backfill WHERE match_id = :mq;
-- and the table holds it
SELECT queue_id AS rqid FROM mm.queue WHERE name = 'bfroles' \gset
INSERT INTO mm.backfill (queue_id, match_id, team, players, roles) VALUES (:rqid, :mq, 'red', 2, '{tank}');
\echo :LAST_ERROR_SQLSTATE
INSERT INTO mm.backfill (queue_id, match_id, team, players, roles) VALUES (:rqid, :mq, 'red', 1, '{NULL}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.drop_queue('bfroles', keep_history => false);

-- party: in a match of solos (no premade, premade 2 in a 3v3, min 2), a
-- duo would bring a premade against a team with no players in parties. Two
-- seats: the duo scores 15*200 - 500*|1 - 2| = 2500 (the largest roster of
-- the match is 1), the solos 15*20 + 200 = 500 and 350; the rule leaves the
-- seats to the two solos.
SELECT mm.create_queue('bfparty', $${"team_size": 3, "filter": {"deviations": 1, "potentials_min": 1},
    "rating": {"model": "glicko2"},
    "rules": [{"type": "party", "min": 2, "premade": 2}]}$$);
SELECT count(mm.enqueue('bfparty', ARRAY[p::bigint], 1500, 50)) FROM generate_series(7691, 7696) p;
SELECT count(DISTINCT match_id) AS matches FROM mm.tick('bfparty');
SELECT match_id AS mp2 FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'bfparty' \gset
SELECT mm.request_backfill(:mp2, 'red', 2) AS p1 \gset
SELECT count(*) FROM (VALUES
    (mm.enqueue('bfparty', ARRAY[7697, 7698], 1500, 50, joined_at => now() - interval '200 s')),
    (mm.enqueue('bfparty', ARRAY[7699], 1500, 50, joined_at => now() - interval '20 s')),
    (mm.enqueue('bfparty', ARRAY[7700], 1500, 50, joined_at => now() - interval '10 s'))) v;
SELECT count(*) AS new_match_rows FROM mm.tick('bfparty');
SELECT pg_temp.filled(:p1) AS red_filled;
SELECT mm.drop_queue('bfparty', keep_history => false);

-- A soft latency rule scores the roster's latency to the match's region
-- (weight 10 a ms): F (10 ms, 20 s: 300 + 200 - 100 = 400) beats E (40 ms,
-- 30 s: 450 + 200 - 400 = 250).
SELECT mm.create_queue('bfsoft', $${"team_size": 1, "filter": {"deviations": 1, "potentials_min": 1},
    "rating": {"model": "glicko2"},
    "rules": [{"type": "latency", "soft": true, "weight": 10}]}$$);
SELECT count(mm.enqueue('bfsoft', ARRAY[p], 1500, 50, latencies => l))
FROM (VALUES (7711::bigint, '{"eu": 20, "us": 90}'::jsonb), (7712, '{"eu": 30, "us": 80}')) v(p, l);
SELECT count(DISTINCT match_id) AS matches FROM mm.tick('bfsoft');
SELECT match_id AS ms, region FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'bfsoft' \gset
SELECT :'region' AS region;
SELECT mm.request_backfill(:ms, 'blue', 1) AS s1 \gset
SELECT count(*) FROM (VALUES
    (mm.enqueue('bfsoft', ARRAY[7713], 1500, 50, joined_at => now() - interval '30 s', latencies => '{"eu": 40, "us": 5}')),
    (mm.enqueue('bfsoft', ARRAY[7714], 1500, 50, joined_at => now() - interval '20 s', latencies => '{"eu": 10}'))) v;
SELECT count(*) AS new_match_rows FROM mm.tick('bfsoft');
SELECT pg_temp.filled(:s1) AS blue_filled;
SELECT mm.drop_queue('bfsoft', keep_history => false);

-- Errors (match ids in messages masked: they depend on the tests before)
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

-- One tick fills requests of two matches, the rosters of each interleaved
-- by id: the fills are written as arrays in roster id order, each roster
-- taking its own request's match, team and id. Two 2v2 matches of solos;
-- match A's red asks for 2 players, then match B's blue for 1. Waiting, by
-- id: 7711 (60 s), 7712 (10 s), 7713 (50 s), all alike but for their wait:
-- A, the older request, takes the two longest waits (7711 and 7713), B
-- takes 7712.
SELECT mm.create_queue('bfmulti', '{"team_size": 2, "filter": {"deviations": 1, "potentials_min": 1},
    "rating": {"model": "glicko2"}}') IS NOT NULL AS created;
SELECT count(mm.enqueue('bfmulti', ARRAY[p], 1500, 50, joined_at => now() - interval '30 s'))
FROM generate_series(7701, 7708) p;
SELECT count(DISTINCT match_id) AS matches FROM mm.tick('bfmulti');
SELECT min(match_id) AS ma, max(match_id) AS mb FROM mm.match m JOIN mm.queue q USING (queue_id)
WHERE q.name = 'bfmulti' \gset
SELECT mm.request_backfill(:ma, 'red', 2) AS ba \gset
SELECT mm.request_backfill(:mb, 'blue', 1) AS bb \gset
SELECT count(*) AS queued FROM (VALUES
    (mm.enqueue('bfmulti', ARRAY[7711], 1500, 50, joined_at => now() - interval '60 s')),
    (mm.enqueue('bfmulti', ARRAY[7712], 1500, 50, joined_at => now() - interval '10 s')),
    (mm.enqueue('bfmulti', ARRAY[7713], 1500, 50, joined_at => now() - interval '50 s'))) v;
SELECT count(*) AS new_match_rows FROM mm.tick('bfmulti');
SELECT r.players, CASE r.match_id WHEN :ma THEN 'A' WHEN :mb THEN 'B' END AS match, r.team,
       CASE r.backfill_id WHEN :ba THEN 'A' WHEN :bb THEN 'B' END AS request, r.waited > interval '0' AS waited
FROM mm.match_roster r WHERE r.backfill_id IN (:ba, :bb) ORDER BY r.roster_id;
SELECT e.player_id, CASE e.match_id WHEN :ma THEN 'A' WHEN :mb THEN 'B' END AS match
FROM mm.ticket_event e WHERE e.player_id IN (7711, 7712, 7713) AND e.status = 'matched' ORDER BY e.player_id;
SELECT CASE backfill_id WHEN :ba THEN 'A' ELSE 'B' END AS request, status, tick_id IS NOT NULL AS by_a_tick
FROM mm.backfill WHERE backfill_id IN (:ba, :bb) ORDER BY backfill_id;
SELECT count(*) AS still_waiting FROM mm.list_queue('bfmulti');
SELECT mm.drop_queue('bfmulti', keep_history => false);

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
