-- The fairest split of a match's chosen rosters ("split": "fairest", the
-- default): worked by hand, against a brute force over every split of
-- random small matches, with parties, roles and more than two teams; the
-- heuristic beyond ten rosters; and the balance rule.
\set VERBOSITY default
SET timezone = 'UTC';

-- the tests after this one count on mm's sequences: put them back at the end
CREATE TEMP TABLE saved_sequences_split (seq regclass, last_value bigint, is_called boolean);
DO $$
DECLARE
    c regclass;
BEGIN
    FOR c IN SELECT oid FROM pg_class WHERE relnamespace = 'mm'::regnamespace AND relkind = 'S' LOOP
        EXECUTE format('INSERT INTO saved_sequences_split SELECT %L, last_value, is_called FROM %s', c, c);
    END LOOP;
END
$$;

CREATE TEMP TABLE r (pos int, roster_id bigint, players bigint[], rating float8,
    deviation float8 DEFAULT 0, roles text[] DEFAULT '{}', joined_at timestamptz DEFAULT '2024-01-01 00:00:00+00');

-- Every roster's team and its odds, the match on one line per team. The
-- ratings are Elo's (a team plays as its players' mean rating; red's odds
-- 1 / (1 + 10^((blue - red) / 400))), every range covers every roster and
-- any potentials make a match.
CREATE FUNCTION split(config jsonb)
RETURNS TABLE (match_no int, team text, rosters text, players int, mean numeric, odds numeric)
LANGUAGE sql AS $$
    SELECT x.match_no, x.team, string_agg(x.roster_id::text, ',' ORDER BY x.roster_id),
           sum(cardinality(r.players))::int,
           round((sum(r.rating * cardinality(r.players)) / sum(cardinality(r.players)))::numeric, 2),
           round(min(x.odds)::numeric, 6)
    FROM mm.match_rosters('SELECT * FROM r ORDER BY pos',
                          mm._jsonb_merge('{"rating": {"model": "elo"}, "filter": {"potentials_min": 0, "padding": 1000, "padding_start": 0}}', config),
                          '2024-01-01 00:01:00+00') x
    JOIN r USING (roster_id)
    GROUP BY x.match_no, x.team
    ORDER BY x.match_no, min(x.roster_id)
$$;

-- 1. Six solos rated 1440, 1480, ..., 1640 (40 apart), 3v3. GW2's
-- populateMatch: blue (empty) takes 2 (1480, the closest to the target's
-- 1440), red (1440 < 1480) takes 3, blue 4, red 5, blue 6: red 1,3,5 (mean
-- 1520) against blue 2,4,6 (1560), red's odds 1 / (1 + 10^(40/400)) =
-- 0.4427. In units of 40 the ratings are 36 to 41, 231 in all: no split
-- has 115.5 a side, so the fairest are 1 apart: red 1,3,6 (36+38+41 = 115)
-- against 2,4,5 (116), means 1533.33 and 1546.67, odds 0.4808.
INSERT INTO r (pos, roster_id, players, rating)
SELECT k, k, ARRAY[k], 1400 + 40 * k FROM generate_series(1, 6) k;
SELECT * FROM split('{"team_size": 3, "split": "gw2"}');
SELECT * FROM split('{"team_size": 3}');
-- the stored form: the default is the fairest
SELECT mm.matcher_config('{}') ->> 'split' AS split, mm.matcher_config('{"split": "gw2"}') ->> 'split' AS given;
SELECT mm.matcher_config('{"split": "best"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"split": 1}');
\echo :LAST_ERROR_SQLSTATE

-- 2. Parties stay whole: a duo of 1600s with solos 1400, 1500, 1500, 1700.
-- A team is the duo and one solo, or three solos: duo + 1400 is 1533.33
-- against 1566.67 (1500, 1500, 1700), duo + 1500 the mirror of it (1566.67
-- against 1533.33), duo + 1700 1633.33 against 1466.67. The fairest is 33.33
-- apart. GW2's filling puts the duo on blue with a 1500 (roster 3): one of
-- the fairest, so the teams stay as populated.
TRUNCATE r;
INSERT INTO r (pos, roster_id, players, rating) VALUES
    (1, 1, '{11}', 1400), (2, 2, '{21, 22}', 1600), (3, 3, '{31}', 1500), (4, 4, '{41}', 1500),
    (5, 5, '{51}', 1700);
SELECT * FROM split('{"team_size": 3, "split": "gw2"}');
SELECT * FROM split('{"team_size": 3}');

-- 3. The roles rule holds for the split: two tanks (1700, 1300) and two
-- damage (1500, 1500), one of each per team. Without the rule the fairest
-- split is the two tanks (1500) against the two damage (1500), odds 0.5;
-- with it each team has a tank, 1600 against 1400 at best.
TRUNCATE r;
INSERT INTO r (pos, roster_id, players, rating, roles) VALUES
    (1, 1, '{1}', 1700, '{tank}'), (2, 2, '{2}', 1300, '{tank}'), (3, 3, '{3}', 1500, '{damage}'),
    (4, 4, '{4}', 1500, '{damage}');
SELECT * FROM split('{"team_size": 2}');
SELECT * FROM split('{"team_size": 2, "roles": ["tank", "damage"],
                      "rules": [{"type": "roles", "counts": {"tank": 1, "damage": 1}}]}');

-- 4. More teams: three teams of two from six solos 1400, 1450, ..., 1650.
-- Team i's odds are the mean of its pairwise odds times 2/3; the fairest
-- split pairs the ends (1400 + 1650, 1450 + 1600, 1500 + 1550): every mean
-- 1525, every odds 1/3. GW2's filling gives each empty team the best roster
-- left in turn, then the lowest average picks.
TRUNCATE r;
INSERT INTO r (pos, roster_id, players, rating)
SELECT k, k, ARRAY[k], 1350 + 50 * k FROM generate_series(1, 6) k;
SELECT * FROM split('{"teams": 3, "team_size": 2, "split": "gw2"}');
SELECT * FROM split('{"teams": 3, "team_size": 2}');
-- a free-for-all of solos: one roster per team, nothing to split
SELECT * FROM split('{"teams": 6, "team_size": 1}');

-- 5. Exactness: random matches of two teams (team_size 2 to 5, parties of
-- 1 to 3 players, exactly a match's players in the query, so the match
-- holds every roster), Elo and OpenSkill; the split made against every
-- split of the same rosters, by the family's formula written here in SQL:
-- Elo's odds of the teams' mean ratings; OpenSkill's (Plackett-Luce)
-- 1 / (1 + exp(-(mu_red - mu_blue) / c)), c the same for every split
-- (both teams' sigma^2 and 2 beta^2), so the fairest split is the one of
-- least |mu_red - mu_blue|, a team's mu the sum over its players.
CREATE FUNCTION pg_temp.elo_odds(red float8, blue float8) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$ SELECT 1 / (1 + 10 ^ ((blue - red) / 400)) $$;
CREATE TEMP TABLE exact (model text, case_no int, team_size int, rosters int, made float8, best float8,
                         odds_formula float8, odds_stored float8);
DO $$
DECLARE
    c int;
    ts int;
    n int;
    left_players int;
    s int;
    m text;
    cfg jsonb;
BEGIN
    PERFORM setseed(0.39);
    FOR c IN 1 .. 240 LOOP
        m := CASE WHEN c % 2 = 0 THEN 'elo' ELSE 'openskill' END;
        ts := 2 + (c % 4);
        TRUNCATE r;
        left_players := 2 * ts;
        n := 0;
        WHILE left_players > 0 LOOP
            s := least(left_players, 1 + floor(random() * 3)::int);
            n := n + 1;
            INSERT INTO r (pos, roster_id, players, rating, deviation)
            SELECT n, n, ARRAY(SELECT n * 10 + k FROM generate_series(1, s) k),
                   CASE m WHEN 'elo' THEN round(1300 + 400 * random()) ELSE round((15 + 20 * random())::numeric, 2) END,
                   CASE m WHEN 'elo' THEN 0 ELSE round((1 + 5 * random())::numeric, 2) END;
            left_players := left_players - s;
        END LOOP;
        cfg := jsonb_build_object('team_size', ts, 'rating', jsonb_build_object('model', m),
                                  'filter', '{"potentials_min": 0, "padding": 1000, "padding_start": 0}'::jsonb);
        INSERT INTO exact
        WITH made AS (SELECT x.roster_id, x.team, x.odds FROM mm.match_rosters('SELECT * FROM r ORDER BY pos', cfg,
                                                                             '2024-01-01 00:01:00+00') x),
             teams AS (SELECT r.*, (made.team = 'red') AS red, made.odds FROM r JOIN made USING (roster_id)),
             -- every split: a bit per roster, red when set, red's players team_size
             splits AS (SELECT mask FROM generate_series(0, (1 << n) - 1) mask
                        WHERE (SELECT sum(cardinality(r.players)) FROM r WHERE mask & (1 << (r.pos - 1)) <> 0) = ts),
             value AS (SELECT mask,
                              CASE m WHEN 'elo' THEN
                                  abs(pg_temp.elo_odds(sum(r.rating * cardinality(r.players)) FILTER (WHERE mask & (1 << (r.pos - 1)) <> 0) / ts,
                                                       sum(r.rating * cardinality(r.players)) FILTER (WHERE mask & (1 << (r.pos - 1)) = 0) / ts) - 0.5)
                              ELSE abs(sum(r.rating * cardinality(r.players)) FILTER (WHERE mask & (1 << (r.pos - 1)) <> 0)
                                       - sum(r.rating * cardinality(r.players)) FILTER (WHERE mask & (1 << (r.pos - 1)) = 0)) END AS v
                       FROM splits, r GROUP BY mask)
        SELECT m, c, ts, n,
               CASE m WHEN 'elo' THEN
                   abs(pg_temp.elo_odds(sum(t.rating * cardinality(t.players)) FILTER (WHERE t.red) / ts,
                                        sum(t.rating * cardinality(t.players)) FILTER (WHERE NOT t.red) / ts) - 0.5)
               ELSE abs(sum(t.rating * cardinality(t.players)) FILTER (WHERE t.red)
                        - sum(t.rating * cardinality(t.players)) FILTER (WHERE NOT t.red)) END,
               (SELECT min(v) FROM value),
               CASE m WHEN 'elo' THEN pg_temp.elo_odds(sum(t.rating * cardinality(t.players)) FILTER (WHERE t.red) / ts,
                                                       sum(t.rating * cardinality(t.players)) FILTER (WHERE NOT t.red) / ts) END,
               CASE m WHEN 'elo' THEN min(t.odds) FILTER (WHERE t.red) END
        FROM teams t HAVING count(*) > 0;
    END LOOP;
END
$$;
-- every match made holds every roster; none is less fair than the best split
SELECT model, count(*) AS matches, min(rosters) AS fewest_rosters, max(rosters) AS most_rosters,
       count(*) FILTER (WHERE made > best + 1e-9) AS less_fair_than_best,
       count(*) FILTER (WHERE made < best - 1e-9) AS fairer_than_best
FROM exact GROUP BY model ORDER BY model;
-- the odds stored are the family's odds of that split
SELECT count(*) AS elo_matches, max(abs(odds_formula - odds_stored)) < 1e-12 AS stored_is_formula
FROM exact WHERE model = 'elo';

-- 6. Exactness with three teams: six solos (Elo), every assignment of them
-- to three teams of two against the split made, by the favourite's odds.
CREATE FUNCTION pg_temp.favourite3(m1 float8, m2 float8, m3 float8) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$
    SELECT greatest(pg_temp.elo_odds(m1, m2) + pg_temp.elo_odds(m1, m3),
                    pg_temp.elo_odds(m2, m1) + pg_temp.elo_odds(m2, m3),
                    pg_temp.elo_odds(m3, m1) + pg_temp.elo_odds(m3, m2)) / 3
$$;
CREATE TEMP TABLE exact3 (case_no int, made float8, best float8);
DO $$
DECLARE
    c int;
BEGIN
    PERFORM setseed(0.77);
    FOR c IN 1 .. 40 LOOP
        TRUNCATE r;
        INSERT INTO r (pos, roster_id, players, rating)
        SELECT k, k, ARRAY[k], round(1300 + 400 * random()) FROM generate_series(1, 6) k;
        INSERT INTO exact3
        WITH made AS (SELECT x.team, avg(r.rating) AS mean
                      FROM mm.match_rosters('SELECT * FROM r ORDER BY pos',
                                            '{"teams": 3, "team_size": 2, "rating": {"model": "elo"},
                                              "filter": {"potentials_min": 0, "padding": 1000, "padding_start": 0}}',
                                            '2024-01-01 00:01:00+00') x JOIN r USING (roster_id)
                      GROUP BY x.team),
             -- team of roster k: digit k - 1 of a in base 3
             assign AS (SELECT a FROM generate_series(0, 728) a
                        WHERE (SELECT bool_and(cnt = 2) FROM (SELECT count(*) AS cnt FROM r GROUP BY (a / (3 ^ (r.pos - 1))::int) % 3) g)
                          AND (SELECT count(DISTINCT (a / (3 ^ (r.pos - 1))::int) % 3) FROM r) = 3),
             means AS (SELECT a, array_agg(avg_r ORDER BY t) AS m
                       FROM (SELECT a, (a / (3 ^ (r.pos - 1))::int) % 3 AS t, avg(r.rating) AS avg_r
                             FROM assign, r GROUP BY a, t) x GROUP BY a)
        SELECT c,
               (SELECT pg_temp.favourite3(m[1], m[2], m[3]) FROM (SELECT array_agg(mean) AS m FROM made) y),
               (SELECT min(pg_temp.favourite3(m[1], m[2], m[3])) FROM means);
    END LOOP;
END
$$;
SELECT count(*) AS matches, count(*) FILTER (WHERE made > best + 1e-12) AS less_fair_than_best
FROM exact3 WHERE made IS NOT NULL;

-- 7. Beyond ten rosters, swaps: twelve solos in two teams of six (Elo,
-- ratings 1300 to 1700 at random). The heuristic's split is never less
-- fair than GW2's filling, and here within a rating point per player of
-- the best (the brute force over the 462 splits holding roster 1 on red;
-- the teams' sums within 6 points).
CREATE TEMP TABLE heuristic (case_no int, gw2 float8, made float8, best float8);
DO $$
DECLARE
    c int;
BEGIN
    PERFORM setseed(0.51);
    FOR c IN 1 .. 20 LOOP
        TRUNCATE r;
        INSERT INTO r (pos, roster_id, players, rating)
        SELECT k, k, ARRAY[k], round(1300 + 400 * random()) FROM generate_series(1, 12) k;
        INSERT INTO heuristic
        WITH g AS (SELECT abs(sum(r.rating) FILTER (WHERE x.team = 'red') - sum(r.rating) FILTER (WHERE x.team = 'blue')) AS d
                   FROM mm.match_rosters('SELECT * FROM r ORDER BY pos',
                                         '{"team_size": 6, "split": "gw2", "rating": {"model": "elo"},
                                           "filter": {"potentials_min": 0, "padding": 1000, "padding_start": 0}}',
                                         '2024-01-01 00:01:00+00') x JOIN r USING (roster_id)),
             f AS (SELECT abs(sum(r.rating) FILTER (WHERE x.team = 'red') - sum(r.rating) FILTER (WHERE x.team = 'blue')) AS d
                   FROM mm.match_rosters('SELECT * FROM r ORDER BY pos',
                                         '{"team_size": 6, "rating": {"model": "elo"},
                                           "filter": {"potentials_min": 0, "padding": 1000, "padding_start": 0}}',
                                         '2024-01-01 00:01:00+00') x JOIN r USING (roster_id)),
             b AS (SELECT min(abs(2 * (SELECT sum(r.rating) FROM r WHERE mask & (1 << (r.pos - 1)) <> 0)
                                  - (SELECT sum(rating) FROM r))) AS d
                   FROM generate_series(0, 4095) mask
                   WHERE mask & 1 = 1 AND (SELECT count(*) FROM r WHERE mask & (1 << (r.pos - 1)) <> 0) = 6)
        SELECT c, g.d, f.d, b.d FROM g, f, b;
    END LOOP;
END
$$;
SELECT count(*) AS matches, count(*) FILTER (WHERE made > gw2) AS less_fair_than_gw2,
       count(*) FILTER (WHERE made < gw2) AS fairer_than_gw2,
       count(*) FILTER (WHERE made = best) AS best_found,
       max(made - best) <= 6 AS within_a_rating_point_per_player
FROM heuristic;

-- 8. The balance rule: no match whose favourite's odds pass max_favourite.
-- Four solos 1500, 1500, 1500, 1900 (Elo, 2v2): the fairest split is 1900
-- + 1500 against 1500 + 1500, 1700 against 1500, odds 1 / (1 + 10^(-0.5))
-- = 0.7597. At 0.75 the target fails, its reason the rule; after 60 s its
-- expansion (0.8) lets the match be made.
TRUNCATE r;
INSERT INTO r (pos, roster_id, players, rating) VALUES
    (1, 1, '{1}', 1500), (2, 2, '{2}', 1500), (3, 3, '{3}', 1500), (4, 4, '{4}', 1900);
SELECT * FROM split('{"team_size": 2}');
SELECT roster_id, outcome, reason
FROM mm._match_rosters('SELECT * FROM r ORDER BY pos',
                       '{"team_size": 2, "rating": {"model": "elo"}, "filter": {"potentials_min": 0, "padding": 1000, "padding_start": 0},
                         "rules": [{"type": "balance", "max_favourite": 0.75, "expand": [{"after": 60, "max_favourite": 0.8}]}]}',
                       '2024-01-01 00:00:30+00')
WHERE roster_id = 1;
SELECT roster_id, outcome, reason
FROM mm._match_rosters('SELECT * FROM r ORDER BY pos',
                       '{"team_size": 2, "rating": {"model": "elo"}, "filter": {"potentials_min": 0, "padding": 1000, "padding_start": 0},
                         "rules": [{"type": "balance", "max_favourite": 0.75, "expand": [{"after": 60, "max_favourite": 0.8}]}]}',
                       '2024-01-01 00:01:00+00')
ORDER BY roster_id;
-- GW2's teams are held to it too (1900 + 1500 is also GW2's here)
SELECT count(*) AS matched
FROM mm.match_rosters('SELECT * FROM r ORDER BY pos',
                      '{"team_size": 2, "split": "gw2", "rating": {"model": "elo"}, "filter": {"potentials_min": 0, "padding": 1000, "padding_start": 0},
                        "rules": [{"type": "balance", "max_favourite": 0.76}]}',
                      '2024-01-01 00:00:30+00');
-- the config: rendered with its steps; refused: no max_favourite, out of
-- range, below 1/teams (it could never be met), a tightening step, an
-- attribute, soft
SELECT mm.matcher_config('{"rules": [{"type": "balance", "max_favourite": 0.65, "expand": [{"after": "1 minute", "max_favourite": 0.75}]}]}') -> 'rules';
SELECT mm.matcher_config('{"rules": [{"type": "balance"}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"rules": [{"type": "balance", "max_favourite": 1.5}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"teams": 4, "team_size": 1, "rules": [{"type": "balance", "max_favourite": 0.2}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"rules": [{"type": "balance", "max_favourite": 0.7, "expand": [{"after": 30, "max_favourite": 0.6}]}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"rules": [{"type": "balance", "max_favourite": 0.7, "attribute": "mode"}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"rules": [{"type": "balance", "soft": true}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"rules": [{"type": "latency", "max_favourite": 0.7}]}');
\echo :LAST_ERROR_SQLSTATE

-- In a queue: explain names the rule, the favourite's odds of the match a
-- tick would make and when the expansion relaxes it; the tick refuses the
-- match, then makes it once the expansion allows.
SELECT mm.create_queue('balance_q', '{"team_size": 2, "rating": {"model": "elo", "calibration": null},
    "filter": {"potentials_min": 0, "padding": 1000, "padding_start": 0},
    "rules": [{"type": "balance", "max_favourite": 0.75, "expand": [{"after": 60, "max_favourite": 0.8}]}]}');
SELECT count(mm.enqueue('balance_q', players, rating, joined_at => joined_at)) AS queued FROM r ORDER BY 1;
SELECT e.outcome, e.detail
FROM mm.list_queue('balance_q') l, mm.explain(l.roster_id, '2024-01-01 00:00:30+00') e WHERE l.place = 1;
SELECT count(*) AS matched FROM mm.tick('balance_q', '2024-01-01 00:00:30+00');
SELECT failed_reasons FROM mm.tick_log l JOIN mm.queue q USING (queue_id)
WHERE q.name = 'balance_q' ORDER BY l.tick_id DESC LIMIT 1;
SELECT count(*) AS matched FROM mm.tick('balance_q', '2024-01-01 00:01:10+00');
SELECT round(red_odds::numeric, 4) AS red_odds, round(blue_odds::numeric, 4) AS blue_odds
FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'balance_q';
SELECT mm.drop_queue('balance_q', keep_history => false);

-- A backfill honours the rule: a 2v2 of four 1500s (Elo, GW2's teams);
-- one seat of red is asked for. Waiting: W1 rated 1800, queued 300 s
-- before, and W2 rated 1550, just queued. GW2's scoring prefers W1 (age
-- 15 x 300 less 5 x 300 points from red's mean: 3000, against 150 - 250
-- for W2). With W1 red's mean is 1600 against 1500 (Elo's odds 0.640, the
-- match's players counted as they are), above max_favourite 0.6: W2 fills
-- the seat (1516.67 against 1500, 0.524). Without the rule W1 does.
CREATE FUNCTION pg_temp.bf_fill(cfg jsonb) RETURNS bigint[]
LANGUAGE plpgsql AS $$
DECLARE
    m bigint;
    b bigint;
    p bigint[];
BEGIN
    PERFORM mm.create_queue('bal_bf', cfg);
    PERFORM mm.enqueue('bal_bf', ARRAY[k]::bigint[], 1500, joined_at => now() - interval '10 minutes')
    FROM generate_series(9601, 9604) k;
    PERFORM count(*) FROM mm.tick('bal_bf', now());
    SELECT x.match_id INTO m FROM mm.match x JOIN mm.queue q USING (queue_id) WHERE q.name = 'bal_bf';
    b := mm.request_backfill(m, 'red', 1);
    PERFORM mm.enqueue('bal_bf', ARRAY[9605]::bigint[], 1800, joined_at => now() - interval '300 seconds');
    PERFORM mm.enqueue('bal_bf', ARRAY[9606]::bigint[], 1550, joined_at => now());
    PERFORM count(*) FROM mm.tick('bal_bf', now() + interval '10 seconds');
    SELECT mr.players INTO p FROM mm.match_roster mr WHERE mr.backfill_id = b;
    PERFORM mm.drop_queue('bal_bf', keep_history => false);
    RETURN p;
END
$$;
SELECT pg_temp.bf_fill('{"team_size": 2, "split": "gw2", "rating": {"model": "elo", "calibration": null},
                         "filter": {"potentials_min": 0, "padding": 1000, "padding_start": 0},
                         "rules": [{"type": "balance", "max_favourite": 0.6}]}') AS filled_with_the_rule,
       pg_temp.bf_fill('{"team_size": 2, "split": "gw2", "rating": {"model": "elo", "calibration": null},
                         "filter": {"potentials_min": 0, "padding": 1000, "padding_start": 0}}') AS filled_without;

DROP TABLE exact, exact3, heuristic;
DROP FUNCTION split(jsonb);
DROP TABLE r;

SELECT count(*) > 0 AS sequences_restored
FROM (SELECT setval(seq, last_value, is_called) FROM saved_sequences_split) s;
DROP TABLE saved_sequences_split;
