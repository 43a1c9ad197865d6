-- Team shapes: any number of teams ("teams", "team_names"), worked by hand
-- on small queues with mm.match_rosters.
\set VERBOSITY default
SET timezone = 'UTC';

CREATE TEMP TABLE r (pos int, roster_id bigint, players bigint[], rating float8,
    deviation float8 DEFAULT 0, rank float8 DEFAULT 0, ladder_points float8 DEFAULT 0,
    dishonor int DEFAULT 0, professions text[] DEFAULT '{}', joined_at timestamptz);

-- Each team of each match on one line, in the order mm.match_rosters
-- names them: its rosters, its players and its odds. The teams are filled
-- as the GW2 wiki's populateMatch fills them ("split": "gw2"), which this
-- file works through; the fairest split (the default) is match_split.sql's.
CREATE FUNCTION shape(config jsonb)
RETURNS TABLE (match_no int, team text, rosters text, players int, odds numeric)
LANGUAGE sql AS $$
    SELECT x.match_no, x.team, string_agg(x.roster_id::text, ',' ORDER BY x.roster_id),
           sum(cardinality(r.players))::int, round(min(x.odds)::numeric, 6)
    FROM mm.match_rosters('SELECT * FROM r ORDER BY pos',
                          mm._jsonb_merge('{"split": "gw2", "rating": {"model": "elo"}, "filter": {"potentials_min": 1, "padding_start": 60, "padding_end": 60}}', config),
                          '2024-01-01 00:01:00+00') x
    JOIN r USING (roster_id)
    GROUP BY x.match_no, x.team
    ORDER BY x.match_no, min(x.roster_id)
$$;

-- The config: teams and their names.
SELECT c -> 'teams' AS teams, c -> 'team_names' AS team_names
FROM mm.matcher_config('{"teams": 4, "team_size": 4}') c;
SELECT c -> 'teams' AS teams, c -> 'team_names' AS team_names
FROM mm.matcher_config('{"team_names": ["north", "east", "south"]}') c;
-- refused: too few or too many teams, names that do not match the count,
-- twice the same name, a name that is not a string
SELECT mm.matcher_config('{"teams": 1}');
SELECT mm.matcher_config('{"teams": 65}');
SELECT mm.matcher_config('{"teams": 3, "team_names": ["a", "b"]}');
SELECT mm.matcher_config('{"team_names": ["a", "a"]}');
SELECT mm.matcher_config('{"team_names": ["a", 2]}');
SELECT mm.matcher_config('{"team_names": ["a"]}');
SELECT mm.matcher_config('{"team_names": "a"}');

-- Sixteen solos, roster k (k = 1..16) rated 1400 + 10k + 50 with deviation
-- 50 (effective rating 1400 + 10k), waiting 60 - k s, no padding yet; Elo
-- reads a range of two deviations, so every roster's range overlaps
-- every other's. Each pick is the first roster left in queue order: its
-- age term (15 per second) and its distance to any team's average
-- effective rating (-5 per point, every roster left being above every
-- team's average) both fall with k.
INSERT INTO r (pos, roster_id, players, rating, deviation, joined_at)
SELECT k, k, ARRAY[k], 1450 + 10 * k, 50, '2024-01-01 00:00:00+00'::timestamptz + k * interval '1 second'
FROM generate_series(1, 16) k;

-- A free-for-all of 8 (teams 8, team_size 1): target 1 on red, then each
-- empty team in team order takes the next roster: blue 2, team_3 3, ...,
-- team_8 8. Target 9 is next: its match of 9..16 likewise. The odds are
-- Elo's pairwise expected scores, each team's mean over its 7 pairings
-- times 2 / 8: they add up to one, rising with the rating.
SELECT * FROM shape('{"teams": 8, "team_size": 1}');
-- the odds, by the formula in SQL: team i's 2 / (k (k - 1)) sum over j != i
-- of 1 / (1 + 10^((r_j - r_i) / 400))
SELECT x.roster_id, round(x.odds::numeric, 6) AS odds,
       round((2.0 / 56 * (SELECT sum(1 / (1 + 10 ^ ((o.rating - me.rating) / 400)))
                           FROM r o WHERE o.roster_id BETWEEN 1 AND 8 AND o.roster_id <> me.roster_id))::numeric, 6) AS by_formula
FROM mm.match_rosters('SELECT * FROM r ORDER BY pos',
                      '{"teams": 8, "team_size": 1, "rating": {"model": "elo"}, "filter": {"potentials_min": 1, "padding_start": 60, "padding_end": 60}}',
                      '2024-01-01 00:01:00+00') x
JOIN r me USING (roster_id)
WHERE x.match_no = 1 ORDER BY x.roster_id;

-- Four teams of four, every roster a solo. Red holds target 1; blue,
-- team_3 and team_4 are empty and take 2, 3, 4. Then the team of lowest
-- average effective rating picks (a tie goes to the later team):
--   red 1410, blue 1420, team_3 1430, team_4 1440: red takes 5 (red 1430)
--   blue 1420 is lowest: blue takes 6 (blue 1440)
--   red and team_3 tie at 1430: team_3 takes 7 (team_3 1450)
--   red 1430: red takes 8 (red 1446.67)
--   blue and team_4 tie at 1440: team_4 takes 9 (team_4 1465)
--   blue 1440: blue takes 10 (blue 1460)
--   red 1446.67: red takes 11, red is full (4 players)
--   team_3 1450: team_3 takes 12 (team_3 1473.33)
--   blue 1460: blue takes 13, blue is full
--   team_4 1465: team_4 takes 14 (team_4 1490)
--   team_3 1473.33: team_3 takes 15, full; team_4 takes 16, full.
SELECT * FROM shape('{"teams": 4, "team_size": 4}');
-- the same with names
SELECT * FROM shape('{"team_names": ["north", "east", "south", "west"], "team_size": 4}');

-- Two teams are GW2's rule: blue is empty and takes 2; red (1410) is
-- below blue (1420) and takes 3, red is full; blue takes 4.
SELECT * FROM shape('{"team_size": 2}') WHERE match_no = 1;

-- Parties: three teams of 3 from rosters of 2 and 1, every effective
-- rating 1450. Red holds target 1 (2 players); the empty blue and team_3
-- take the best scores: the pairs 3 and 5 (perfect fit +200 beside the
-- target's size; a solo is 1 player off, -500). All three average 1450:
-- the tie goes to the last team not full, team_3, which takes the oldest
-- solo, 2; then blue (tied with red, later) 4, and red 6.
TRUNCATE r;
INSERT INTO r (pos, roster_id, players, rating, deviation, joined_at) VALUES
    (1, 1, '{1, 2}', 1500, 50, '2024-01-01 00:00:01+00'),
    (2, 2, '{3}', 1500, 50, '2024-01-01 00:00:02+00'),
    (3, 3, '{4, 5}', 1500, 50, '2024-01-01 00:00:03+00'),
    (4, 4, '{6}', 1500, 50, '2024-01-01 00:00:04+00'),
    (5, 5, '{7, 8}', 1500, 50, '2024-01-01 00:00:05+00'),
    (6, 6, '{9}', 1500, 50, '2024-01-01 00:00:06+00');
SELECT * FROM shape('{"teams": 3, "team_size": 3}');
-- one player short: no match (every team needs exactly 3 players)
DELETE FROM r WHERE roster_id = 6;
SELECT * FROM shape('{"teams": 3, "team_size": 3}');
SELECT roster_id, outcome, reason FROM mm._match_rosters('SELECT * FROM r ORDER BY pos',
    '{"teams": 3, "team_size": 3, "rating": {"model": "elo"}, "filter": {"potentials_min": 1, "padding_start": 60, "padding_end": 60}}',
    '2024-01-01 00:01:00+00', false) ORDER BY roster_id;

-- A queue of three teams: matches, their teams and odds as stored, a result
-- by team name rated by the queue's model (OpenSkill), a backfill of the
-- third team.
-- the tests after this one count on mm's sequences: put them back at the end
\i test/support/sequences_save.sql
-- match ids from 1001 here (the messages below name them)
SELECT setval('mm.match_id_seq', 1000) AS match_ids_from;
SELECT mm.create_queue('tri3', '{"teams": 3, "team_size": 1, "filter": {"potentials_min": 1}}');
-- 9101 is the target (red); blue and team_3 are empty and take the best
-- scores in turn: 9102 (waited longest), then 9103
SELECT count(mm.enqueue('tri3', ARRAY[p], 25, 4, joined_at => '2024-01-01 12:00:00+00'::timestamptz + (p - 9100) * interval '1 second'))
FROM unnest(ARRAY[9101, 9102, 9103]::bigint[]) p;
SELECT DISTINCT match_id AS t3 FROM mm.tick('tri3', '2024-01-01 12:00:10+00') \gset
SELECT teams, cardinality(odds) AS nodds, round(odds[1]::numeric, 6) = round(red_odds::numeric, 6) AS red_is_first,
       round((SELECT sum(o) FROM unnest(odds) o)::numeric, 12) AS odds_sum
FROM mm.match WHERE match_id = :t3;
-- equal ratings: every team's odds are a third
SELECT round(o::numeric, 6) AS odds FROM mm.match m, unnest(m.odds) o WHERE m.match_id = :t3;
SELECT r.team, array_agg(p ORDER BY p) AS players
FROM mm.match_roster r, unnest(r.players) p, mm.match m
WHERE r.match_id = :t3 AND m.match_id = r.match_id
GROUP BY r.team, m.teams ORDER BY array_position(m.teams, r.team);
-- a delivered match names its teams in team order
SELECT team, players FROM mm.claim_matches('tri3');
-- results name every team: one missing, or one the match does not have, is refused
\set VERBOSITY default
SELECT mm.report_result(:t3, '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}');
SELECT mm.report_result(:t3, '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}, "team_3": {"rank": 3}, "team_4": {"rank": 4}}}');
-- a backfill of a team the match does not have
SELECT mm.request_backfill(:t3, 'team_4', 1);
\set VERBOSITY sqlstate
-- blue wins, team_3 second, red last: rated as OpenSkill rates the game of
-- three teams in team order (labels 1, 2, 3) by mm.openskill_rate
CREATE TEMP TABLE out3 AS
SELECT * FROM mm.report_result(:t3, '{"teams": {"red": {"rank": 3}, "blue": {"rank": 1}, "team_3": {"rank": 2}}}');
SELECT player_id, team, rank, round(state_after[1]::numeric, 6) AS mu_after, round(state_after[2]::numeric, 6) AS sigma_after
FROM out3 ORDER BY player_id;
SELECT count(*) AS equal_to_openskill_rate
FROM out3 o
JOIN mm.openskill_rate(ARRAY[1, 2, 3], ARRAY[3, 1, 2]::float8[], ARRAY[25, 25, 25]::float8[],
                       ARRAY[25.0 / 3, 25.0 / 3, 25.0 / 3]) r
  ON r.idx = o.player_id - 9100
WHERE o.state_after = ARRAY[r.mu, r.sigma];

-- A running match of three teams of two: team_3 loses a player and the
-- next tick fills its seat.
SELECT mm.create_queue('tri6', '{"teams": 3, "team_size": 2, "filter": {"potentials_min": 1}}');
SELECT count(mm.enqueue('tri6', ARRAY[p], 25, 4, joined_at => '2024-01-01 12:00:00+00'::timestamptz + (p - 9200) * interval '1 second'))
FROM unnest(ARRAY[9201, 9202, 9203, 9204, 9205, 9206]::bigint[]) p;
SELECT DISTINCT match_id AS t6 FROM mm.tick('tri6', '2024-01-01 12:00:10+00') \gset
SELECT count(*) AS claimed FROM mm.claim_matches('tri6');
SELECT r.team, sum(cardinality(r.players)) AS players FROM mm.match_roster r, mm.match m
WHERE r.match_id = :t6 AND m.match_id = r.match_id GROUP BY r.team, m.teams ORDER BY array_position(m.teams, r.team);
SELECT mm.request_backfill(:t6, 'team_3', 1) > 0 AS requested;
SELECT count(mm.enqueue('tri6', ARRAY[9207::bigint], 25, 4, joined_at => '2024-01-01 12:00:20+00'));
SELECT count(*) AS ticked FROM mm.tick('tri6', '2024-01-01 12:00:30+00');
SELECT team, players, kind FROM mm.claim_matches('tri6');
SELECT b.team, b.status FROM mm.backfill b WHERE b.match_id = :t6;
-- A roster's team is one of its match's teams as mm writes it; the table
-- checks only its name. Written otherwise, mm.report_result refuses the
-- match (55000, naming the team and the match's teams), and changes nothing.
UPDATE mm.roster SET team = 'green' WHERE match_id = :t6 AND team = 'team_3' AND backfill_id IS NULL;
\set VERBOSITY default
SELECT count(*) FROM mm.report_result(:t6, '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}, "team_3": {"rank": 3}, "green": {"rank": 4}}}');
\echo :LAST_ERROR_SQLSTATE
\set VERBOSITY sqlstate
SELECT status FROM mm.match WHERE match_id = :t6;

SELECT mm.drop_queue('tri3', keep_history => false);
SELECT mm.drop_queue('tri6', keep_history => false);
DELETE FROM mm.ratings WHERE player_id > 9100 AND player_id < 9300;
DROP TABLE out3;
\i test/support/sequences_restore.sql
