-- Roster matcher (the Guild Wars 2 wiki's PvP matchmaking page): the algorithm on small hand-made queues.
\set VERBOSITY default
SET timezone = 'UTC';

-- Rosters of the hand-made queues: queue order is pos.
CREATE TEMP TABLE r (pos int, roster_id bigint, players bigint[], rating float8,
    deviation float8 DEFAULT 0, rank float8 DEFAULT 0, ladder_points float8 DEFAULT 0,
    dishonor int DEFAULT 0, professions text[] DEFAULT '{}', joined_at timestamptz);

-- Teams of each match as one line: match, red rosters, blue rosters. The
-- rosters' ratings here are on the Glicko scale (near 1500), so the queue
-- reads them with rating model glicko2: the Guild Wars 2 wiki's padding
-- 10, rating_distance -5 and spread 200, and its range of one deviation;
-- red_odds is Glicko-2's team likelihood: E of red's mean rating against
-- blue's, with every player's deviation. The teams are the GW2 wiki's, as
-- populateMatch fills them ("split": "gw2"); the fairest split of the
-- chosen rosters (the default) is tested in match_split.sql.
CREATE FUNCTION teams(config jsonb, at timestamptz DEFAULT '2024-01-01 00:01:00+00')
RETURNS TABLE (match_no int, red text, blue text, prediction numeric, red_odds numeric, spread float8)
LANGUAGE sql AS $$
    SELECT match_no,
           string_agg(roster_id::text, ',' ORDER BY roster_id) FILTER (WHERE team = 'red'),
           string_agg(roster_id::text, ',' ORDER BY roster_id) FILTER (WHERE team = 'blue'),
           round(min(prediction)::numeric, 6),
           round(min(odds) FILTER (WHERE team = 'red')::numeric, 6),
           min(rating_spread)
    FROM mm.match_rosters('SELECT * FROM r ORDER BY pos',
                          mm._jsonb_merge('{"split": "gw2", "rating": {"model": "glicko2"}, "filter": {"deviations": 1}}', config), at)
    GROUP BY match_no ORDER BY match_no
$$;

-- 1. Nine solo rosters 10 apart (roster k: rating 1500 + 10k, deviation 20,
-- waited 60 - k s), teams of 2, no padding yet (padding_start 60). Target 1
-- (range [1490, 1530]) overlaps 2..5. Blue is empty and goes first, scored
-- against the match's average effective rating 1490: roster k scores
-- 15 * (60 - k) - 5 * 10 * (k - 1) + 200 (perfect fit): 2 wins. Red (1490)
-- is below blue (1500): red picks the roster closest to 1490: 3. Red is
-- full: blue picks the closest to 1500: 4. Target 5 likewise takes 6, 7, 8;
-- target 9 finds nobody left and fails.
INSERT INTO r (pos, roster_id, players, rating, deviation, joined_at)
SELECT i, i, ARRAY[i], 1500 + 10 * i, 20, '2024-01-01 00:00:00+00'::timestamptz + i * interval '1 second'
FROM generate_series(1, 9) i;
SELECT * FROM teams('{"team_size": 2, "filter": {"potentials_min": 1, "padding_start": 60, "padding_end": 60}}');
-- prediction: red averages 1500, blue 1510: (10/200 * 5) / 8 = 0.03125
-- With a potentials_min above what the filter finds, nothing matches.
SELECT * FROM teams('{"team_size": 2, "filter": {"potentials_min": 5, "padding_start": 60, "padding_end": 60}}');
-- Only the first 4 rosters are targets (filter.rosters): 1's match is made,
-- 5 is not a target.
SELECT * FROM teams('{"team_size": 2, "filter": {"rosters": 4, "potentials_min": 1, "padding_start": 60, "padding_end": 60}}');
-- The GW2 wiki's filter with deviation 0 and no padding yet: ranges are points,
-- nobody overlaps, no match.
UPDATE r SET deviation = 0;
SELECT * FROM teams('{"team_size": 2, "filter": {"potentials_min": 1, "padding_start": 60, "padding_end": 60}}');

-- 2. Padding: by default the rating model's, per second after 30 s, at
-- most until 240 s: OpenSkill (the default model) 0.25 mu per second,
-- Glicko-2 10 rating points per second (the Guild Wars 2 wiki's).
SELECT w, mm.matcher_padding('{}', w) AS openskill,
       mm.matcher_padding('{"rating": {"model": "glicko2"}}', w) AS glicko2
FROM unnest(ARRAY[0, 30, 31, 100, 240, 1000]) w;
SELECT mm.matcher_padding('{"filter": {"padding": 2, "padding_start": 5, "padding_end": 10}}', 60);
-- Two solo rosters 100 apart, deviation 0, teams of 1: at 34 s (pad 40:
-- [1460, 1540] and [1560, 1640]) no match; at 35 s (pad 50: they touch at
-- 1550) a match.
TRUNCATE r;
INSERT INTO r (pos, roster_id, players, rating, joined_at) VALUES
    (1, 1, '{1}', 1500, '2024-01-01 00:00:00+00'), (2, 2, '{2}', 1600, '2024-01-01 00:00:00+00');
SELECT * FROM teams('{"team_size": 1, "filter": {"potentials_min": 1}}', '2024-01-01 00:00:34+00');
SELECT * FROM teams('{"team_size": 1, "filter": {"potentials_min": 1}}', '2024-01-01 00:00:35+00');
-- A roster that waited long gets padding, one that just joined none: the
-- ranges overlap only by the waiting roster's padding (at 35 s: [1450,
-- 1550] against 1550).
UPDATE r SET rating = 1550, joined_at = '2024-01-01 00:00:35+00' WHERE roster_id = 2;
SELECT * FROM teams('{"team_size": 1, "filter": {"potentials_min": 1}}', '2024-01-01 00:00:35+00');
UPDATE r SET rating = 1551 WHERE roster_id = 2;
SELECT * FROM teams('{"team_size": 1, "filter": {"potentials_min": 1}}', '2024-01-01 00:00:35+00');

-- 3. Professions: teams of 2, equal ratings and waits; queue order T(1)
-- guardian, A(2) guardian, B(3) guardian, C(4) thief, D(5) thief.
-- Per team (type team): blue first, every candidate adds a first of its
-- profession (+500): tie, A (first). Blue again (equal ratings): B would
-- make 2 guardians (-500), C is unique (+500): C. Red (T guardian): B -500,
-- D +500: D. red 1,5 blue 2,4.
TRUNCATE r;
INSERT INTO r (pos, roster_id, players, rating, deviation, professions, joined_at) VALUES
    (1, 1, '{1}', 1500, 10, '{guardian}', '2024-01-01 00:00:00+00'),
    (2, 2, '{2}', 1500, 10, '{guardian}', '2024-01-01 00:00:00+00'),
    (3, 3, '{3}', 1500, 10, '{guardian}', '2024-01-01 00:00:00+00'),
    (4, 4, '{4}', 1500, 10, '{thief}', '2024-01-01 00:00:00+00'),
    (5, 5, '{5}', 1500, 10, '{thief}', '2024-01-01 00:00:00+00');
SELECT * FROM teams('{"team_size": 2, "filter": {"potentials_min": 1}}');
-- Without profession scores every pick ties and queue order decides:
-- blue 2, blue 3, red 4.
SELECT * FROM teams('{"team_size": 2, "filter": {"potentials_min": 1}, "scoring": {"profession_common": 0, "profession_unique": 0}}');
-- Type match counts professions over both teams: blue first: A and B
-- would be a second guardian in the match (-500), C unique: C. Blue again:
-- A -500, B -500, D (second thief) -500: A. Red: B third guardian
-- (-1000), D -500: D. red 1,5 blue 2,4... with blue = C, A.
SELECT * FROM teams('{"team_size": 2, "filter": {"potentials_min": 1}, "scoring": {"type": "match"}}');
-- profession_max 3: a second guardian still counts as unique (+500 * 1).
-- blue: A +1000 (3-1), ties: A. blue: B +500 (3-2), C +1000: C. red: B
-- +500, D +1000: D.
SELECT * FROM teams('{"team_size": 2, "filter": {"potentials_min": 1}, "scoring": {"profession_max": 3}}');

-- 4. Dishonor: teams of 1; target 1 has 10 stacks; 2 is clean, 3 has 10.
-- Blue is empty: the match's dishonor is 10. 2: |10-0| * -100 = -1000;
-- 3: 0 + 10 * -50 = -500: 3 joins the dishonored target.
TRUNCATE r;
INSERT INTO r (pos, roster_id, players, rating, deviation, dishonor, joined_at) VALUES
    (1, 1, '{1}', 1500, 10, 10, '2024-01-01 00:00:00+00'),
    (2, 2, '{2}', 1500, 10, 0, '2024-01-01 00:00:00+00'),
    (3, 3, '{3}', 1500, 10, 10, '2024-01-01 00:00:00+00');
SELECT * FROM teams('{"team_size": 1, "filter": {"potentials_min": 1}}');
-- A clean target gets the clean roster.
UPDATE r SET dishonor = 0 WHERE roster_id = 1;
SELECT * FROM teams('{"team_size": 1, "filter": {"potentials_min": 1}}');

-- 5. Ladder (default weight 0) and rank: teams of 1.
TRUNCATE r;
INSERT INTO r (pos, roster_id, players, rating, deviation, rank, ladder_points, joined_at) VALUES
    (1, 1, '{1}', 1500, 10, 20, 100, '2024-01-01 00:00:00+00'),
    (2, 2, '{2}', 1500, 10, 0, 0, '2024-01-01 00:00:00+00'),
    (3, 3, '{3}', 1500, 10, 30, 90, '2024-01-01 00:00:00+00');
-- rank: 2 is 20 away (-200), 3 is 10 away (-100): 3
SELECT * FROM teams('{"team_size": 1, "filter": {"potentials_min": 1}}');
-- without rank, ladder 0: a tie, queue order: 2
SELECT * FROM teams('{"team_size": 1, "filter": {"potentials_min": 1}, "scoring": {"rank_distance": 0}}');
-- ladder -1: 2 is 100 below the max (-100), 3 is 10 below (-10): 3
SELECT * FROM teams('{"team_size": 1, "filter": {"potentials_min": 1}, "scoring": {"rank_distance": 0, "ladder_distance": -1}}');
-- prediction: rank spread (30 - 20) / 40 * 1 = 0.25, /8 = 0.03125
SELECT * FROM teams('{"team_size": 1, "filter": {"potentials_min": 1}}');

-- 6. Roster sizes: teams of 3; target 1 is a duo; potentials: solos 2, 3,
-- 4, a duo 5 and a trio 6. Blue first, max roster size 2: a solo scores
-- -500 (size distance 1), the duo +200 (perfect fit), the trio -500: 5.
-- Equal ratings: blue again (needs 1): solos tie at -500: 2. Red (needs 1):
-- 3. red 1,3 blue 2,5.
TRUNCATE r;
INSERT INTO r (pos, roster_id, players, rating, deviation, joined_at) VALUES
    (1, 1, '{1,11}', 1500, 10, '2024-01-01 00:00:00+00'),
    (2, 2, '{2}', 1500, 10, '2024-01-01 00:00:00+00'),
    (3, 3, '{3}', 1500, 10, '2024-01-01 00:00:00+00'),
    (4, 4, '{4}', 1500, 10, '2024-01-01 00:00:00+00'),
    (5, 5, '{5,15}', 1500, 10, '2024-01-01 00:00:00+00'),
    (6, 6, '{6,16,26}', 1500, 10, '2024-01-01 00:00:00+00');
SELECT * FROM teams('{"team_size": 3, "filter": {"potentials_min": 1}}');

-- 7. Team sizes are always exact: 400 random parties of 1..5, teams of 5.
TRUNCATE r;
INSERT INTO r (pos, roster_id, players, rating, deviation, professions, joined_at)
SELECT i, i, (SELECT array_agg(i * 10 + k)::bigint[] FROM generate_series(1, s) k), 1500 + 300 * sin(i * 7.1), 30 + (i % 50),
       (SELECT array_agg((ARRAY['guardian','warrior','thief','ranger','engineer','necromancer','mesmer','elementalist','revenant'])[1 + (i * 3 + k * 5) % 9]) FROM generate_series(1, s) k),
       '2024-01-01 00:00:00+00'::timestamptz + (i % 300) * interval '1 second'
FROM generate_series(1, 400) i, LATERAL (SELECT 1 + (i * 13) % 5 AS s) s;
CREATE TEMP TABLE m AS
SELECT x.*, cardinality(r.players) AS n
FROM mm.match_rosters('SELECT * FROM r ORDER BY pos', '{"filter": {"rosters": 400, "limit": 60000}}', '2024-01-01 00:06:00+00') x
JOIN r USING (roster_id);
SELECT count(DISTINCT match_no) > 20 AS many_matches,
       bool_and(red = 5 AND blue = 5) AS exact_teams
FROM (SELECT match_no, sum(n) FILTER (WHERE team = 'red') AS red, sum(n) FILTER (WHERE team = 'blue') AS blue
      FROM m GROUP BY match_no) t;
SELECT count(*) = count(DISTINCT roster_id) AS each_roster_once FROM m;
-- filter.limit: a tick stops trying new targets once the limit has passed
-- (checked before each target after the first). With a limit of 1 ns only
-- the first target is tried; with 60 s, many.
SELECT count(DISTINCT match_no) FILTER (WHERE outcome = 'matched') + count(*) FILTER (WHERE outcome = 'failed') AS targets_tried
FROM mm._match_rosters('SELECT * FROM r ORDER BY pos', '{"filter": {"rosters": 400, "limit": 0.000001}}', '2024-01-01 00:06:00+00');
SELECT count(DISTINCT match_no) FILTER (WHERE outcome = 'matched') + count(*) FILTER (WHERE outcome = 'failed') > 20 AS many_tried
FROM mm._match_rosters('SELECT * FROM r ORDER BY pos', '{"filter": {"rosters": 400, "limit": 60000}}', '2024-01-01 00:06:00+00');

-- 8. The binary search finds the potentials the GW2 wiki's scan finds: the
-- same matches over 3000 rosters with the search and with the scan.
TRUNCATE r;
INSERT INTO r (pos, roster_id, players, rating, deviation, professions, joined_at)
SELECT i, i, (SELECT array_agg(i * 10 + k)::bigint[] FROM generate_series(1, s) k), 1500 + 400 * sin(i * 3.7) * cos(i * 0.13), 20 + (i % 80),
       (SELECT array_agg((ARRAY['guardian','warrior','thief','ranger','engineer','necromancer','mesmer','elementalist','revenant'])[1 + (i + k * 4) % 9]) FROM generate_series(1, s) k),
       '2024-01-01 00:00:00+00'::timestamptz + (i % 400) * interval '1 second'
FROM generate_series(1, 3000) i, LATERAL (SELECT 1 + (i * 7) % 5 AS s) s;
CREATE TEMP TABLE fast AS SELECT * FROM mm._match_rosters('SELECT * FROM r ORDER BY pos', '{"filter": {"rosters": 3000, "limit": 600000, "potentials_max": 60}}', '2024-01-01 00:08:00+00', false);
CREATE TEMP TABLE naive AS SELECT * FROM mm._match_rosters('SELECT * FROM r ORDER BY pos', '{"filter": {"rosters": 3000, "limit": 600000, "potentials_max": 60}}', '2024-01-01 00:08:00+00', true);
SELECT (SELECT count(*) FROM fast WHERE outcome = 'matched') > 500 AS many_matched,
       (SELECT count(*) FROM fast WHERE outcome = 'failed') > 10 AS some_failed,
       NOT EXISTS (SELECT * FROM fast EXCEPT SELECT * FROM naive)
       AND NOT EXISTS (SELECT * FROM naive EXCEPT SELECT * FROM fast) AS same_as_scan;

-- 9. Configuration: every default, overrides, and errors.
SELECT jsonb_pretty(mm.matcher_config());
SELECT mm.matcher_config('{"team_size": 3, "filter": {"padding": 2.5}, "scoring": {"type": "match"}, "prediction": {"rank": {"enabled": false}}}') #> '{filter,padding}' AS padding;
SELECT mm.matcher_config('[]');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"team_sizes": 5}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"filter": {"roster": 5}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"scoring": {"profession": 5}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"prediction": {"ranks": {}}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"team_size": 0}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"team_size": 2.5}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"team_size": "5"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"filter": 5}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"filter": {"rosters": 0}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"filter": {"limit": 0}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"filter": {"potentials_min": -1}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"filter": {"potentials_max": 0}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"filter": {"potentials_min": 30, "potentials_max": 20}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"filter": {"padding": -1}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"filter": {"padding_start": -1}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"filter": {"padding_end": -1}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"filter": {"padding_start": 100, "padding_end": 50}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"scoring": {"type": "Team"}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"scoring": {"type": 1}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"scoring": {"age": "15"}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"scoring": {"roster_size_distance": null}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"scoring": {"perfect_fit": true}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"scoring": {"rank_distance": []}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"scoring": {"rating_distance": {}}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"scoring": {"ladder_distance": "x"}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"scoring": {"profession_max": 0}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"scoring": {"profession_common": "x"}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"scoring": {"profession_unique": "x"}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"scoring": {"dishonor_distance": "x"}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"scoring": {"dishonor_stack": "x"}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"prediction": {"rating": {"spread": 0}}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_padding('{}', -1);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_padding('{}', 'NaN');
\echo :LAST_ERROR_SQLSTATE

-- 10. Errors of the rosters query.
SELECT * FROM mm.match_rosters('SELECT 1 AS id');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_rosters('SELECT 1::bigint AS roster_id, ARRAY[1]::bigint[] AS players');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_rosters('SELECT 1::bigint AS roster_id, ARRAY[1]::bigint[] AS players, ''x''::text AS rating');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_rosters('SELECT 1::bigint AS roster_id, 1 AS players, 1500 AS rating');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_rosters('SELECT 1::bigint AS roster_id, ARRAY[1]::bigint[] AS players, NULL::float8 AS rating');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_rosters('SELECT 1::bigint AS roster_id, ARRAY[1]::bigint[] AS players, ''NaN''::float8 AS rating');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_rosters('SELECT 1::bigint AS roster_id, ARRAY[1]::bigint[] AS players, 1500 AS rating, -1 AS deviation');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_rosters('SELECT NULL::bigint AS roster_id, ARRAY[1]::bigint[] AS players, 1500 AS rating');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_rosters('SELECT 1::bigint AS roster_id, ARRAY[]::bigint[] AS players, 1500 AS rating');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_rosters('SELECT 1::bigint AS roster_id, NULL::bigint[] AS players, 1500 AS rating');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_rosters('SELECT 1::bigint AS roster_id, ARRAY[1]::bigint[] AS players, 1500 AS rating, ARRAY[NULL]::text[] AS professions');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_rosters('SELECT 1::bigint AS roster_id, ARRAY[1]::bigint[] AS players, 1500 AS rating, 1 AS professions');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_rosters('CREATE TABLE x (a int)');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_rosters('SELECT roster_id, players, rating FROM r', '{"bogus": 1}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_rosters('SELECT roster_id, players, rating FROM r', '{}', 'infinity');
\echo :LAST_ERROR_SQLSTATE
-- an empty queue makes no match
SELECT * FROM mm.match_rosters('SELECT roster_id, players, rating FROM r WHERE false');

DROP FUNCTION teams(jsonb, timestamptz);
DROP TABLE r, m, fast, naive;

-- The rosters query must be one plain SELECT, each roster and player once
CREATE TEMP TABLE victim (x int);
INSERT INTO victim VALUES (1);
SELECT * FROM mm.match_rosters('WITH d AS (DELETE FROM victim RETURNING 1) SELECT 1::bigint AS roster_id, ARRAY[1]::bigint[] AS players, 1500 AS rating FROM d');
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) AS victim_rows FROM victim;
SELECT * FROM mm.match_rosters('show all');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_rosters('explain select 1');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_rosters('SELECT 1::bigint AS roster_id, ARRAY[1]::bigint[] AS players, 1500 AS rating FROM victim FOR UPDATE');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_rosters('SELECT 1; SELECT 2');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_rosters($$SELECT * FROM (VALUES (1::bigint, ARRAY[1]::bigint[], 1500), (1, ARRAY[2]::bigint[], 1500)) AS v(roster_id, players, rating)$$,
    '{"team_size": 1, "filter": {"potentials_min": 1}}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_rosters($$SELECT * FROM (VALUES (1::bigint, ARRAY[7]::bigint[], 1500), (2, ARRAY[7]::bigint[], 1500)) AS v(roster_id, players, rating)$$,
    '{"team_size": 1, "filter": {"potentials_min": 1}}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_rosters($$SELECT 1::bigint AS roster_id, ARRAY[7, 7]::bigint[] AS players, 1500 AS rating$$);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_rosters($$SELECT 1::bigint AS roster_id, ARRAY[NULL]::bigint[] AS players, 1500 AS rating$$);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_rosters($$SELECT 1::bigint AS roster_id, ARRAY[1]::bigint[] AS players, 1500 AS rating, '-infinity'::timestamptz AS joined_at$$);
\echo :LAST_ERROR_SQLSTATE
DROP TABLE victim;
