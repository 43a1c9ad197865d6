-- Glicko-2 replay: re-rate a game history in rating periods or game by game.
\set VERBOSITY default

-- A history from npm glicko2 1.2.2 (test/vectors/glicko2/generate.mjs): 60
-- players, 30 daily periods, players who miss a period get its growth.
CREATE TEMP TABLE g2_history (player_id bigint, opponent_id bigint, score float8, played_at timestamptz);
\copy g2_history FROM 'test/vectors/glicko2/replay_games.tsv'
CREATE TEMP TABLE g2_expected (player_id bigint, rating float8, rd float8, vol float8);
\copy g2_expected FROM 'test/vectors/glicko2/replay_expected.tsv'
SELECT count(*) AS games, count(DISTINCT date_trunc('day', played_at, 'UTC')) AS days FROM g2_history;
SELECT count(*) AS players,
       count(*) FILTER (WHERE abs(r.rating - e.rating) > 1e-4) AS rating_mismatches,
       count(*) FILTER (WHERE abs(r.rd - e.rd) > 1e-4) AS rd_mismatches,
       count(*) FILTER (WHERE abs(r.vol - e.vol) > 1e-7) AS vol_mismatches,
       sum(r.games) AS games_counted
FROM mm.glicko2_replay('SELECT player_id, opponent_id, score, played_at FROM g2_history', '1 day') r
JOIN g2_expected e USING (player_id);

-- Period mode by hand: players 1, 2, 3; periods of one day from midnight UTC.
-- Day 1: 1 beats 2, 1 draws 3. Day 2: nobody plays. Day 3: 2 beats 3.
CREATE TEMP TABLE g2_small (player_id bigint, opponent_id bigint, score float8, played_at timestamptz);
INSERT INTO g2_small VALUES
    (1, 2, 1, '2024-05-01 10:00+00'),
    (3, 1, 0.5, '2024-05-01 23:00+00'),
    (2, 3, 1, '2024-05-03 09:00+00');
CREATE TEMP TABLE g2_day1 AS
SELECT mm.glicko2_rate((1500, 350, 0.06), '{1500,1500}', '{350,350}', '{1,0.5}') AS p1,
       mm.glicko2_rate((1500, 350, 0.06), '{1500}', '{350}', '{0}') AS p2,
       mm.glicko2_rate((1500, 350, 0.06), '{1500}', '{350}', '{0.5}') AS p3;
CREATE TEMP TABLE g2_by_hand AS
SELECT 1::bigint AS player_id, mm.glicko2_idle(p1, 2) AS r FROM g2_day1
UNION ALL
SELECT 2, mm.glicko2_rate(mm.glicko2_idle(p2, 1), ARRAY[(mm.glicko2_idle(p3, 1)).rating], ARRAY[(mm.glicko2_idle(p3, 1)).rd], '{1}') FROM g2_day1
UNION ALL
SELECT 3, mm.glicko2_rate(mm.glicko2_idle(p3, 1), ARRAY[(mm.glicko2_idle(p2, 1)).rating], ARRAY[(mm.glicko2_idle(p2, 1)).rd], '{0}') FROM g2_day1;
SELECT r.player_id, r.games, r.last_played,
       abs(r.rating - (h.r).rating) < 1e-9 AND abs(r.rd - (h.r).rd) < 1e-9 AND abs(r.vol - (h.r).vol) < 1e-12 AS as_by_hand
FROM mm.glicko2_replay('SELECT player_id, opponent_id, score, played_at FROM g2_small', '1 day') r
JOIN g2_by_hand h USING (player_id) ORDER BY 1;

-- Per-game mode: each game is its own period, rated at once; whole periods
-- of inactivity between a player's games (and to the last game) grow the deviation.
CREATE TEMP TABLE g2_games_by_hand AS
WITH g1 AS (
    SELECT mm.glicko2_rate((1500, 350, 0.06), '{1500}', '{350}', '{1}') AS p1,
           mm.glicko2_rate((1500, 350, 0.06), '{1500}', '{350}', '{0}') AS p2),
g2 AS (
    SELECT g1.p2,
           mm.glicko2_rate((1500, 350, 0.06), ARRAY[(g1.p1).rating], ARRAY[(g1.p1).rd], '{0.5}') AS p3,
           mm.glicko2_rate(g1.p1, '{1500}', '{350}', '{0.5}') AS p1
    FROM g1),
g3 AS (
    -- 2024-05-03 09:00: players 2 (47 h) and 3 (34 h) idle for 1 whole day
    SELECT g2.p1,
           mm.glicko2_rate(mm.glicko2_idle(g2.p2, 1), ARRAY[(mm.glicko2_idle(g2.p3, 1)).rating],
                           ARRAY[(mm.glicko2_idle(g2.p3, 1)).rd], '{1}') AS p2,
           mm.glicko2_rate(mm.glicko2_idle(g2.p3, 1), ARRAY[(mm.glicko2_idle(g2.p2, 1)).rating],
                           ARRAY[(mm.glicko2_idle(g2.p2, 1)).rd], '{0}') AS p3
    FROM g2)
-- player 1 last played 2024-05-01 23:00, 34 h before the end: 1 idle day
SELECT 1::bigint AS player_id, mm.glicko2_idle(p1, 1) AS r FROM g3
UNION ALL SELECT 2, p2 FROM g3
UNION ALL SELECT 3, p3 FROM g3;
SELECT r.player_id, r.games,
       abs(r.rating - (h.r).rating) < 1e-9 AND abs(r.rd - (h.r).rd) < 1e-9 AND abs(r.vol - (h.r).vol) < 1e-12 AS as_by_hand
FROM mm.glicko2_replay('SELECT player_id, opponent_id, score, played_at FROM g2_small', '1 day', per_game => true) r
JOIN g2_games_by_hand h USING (player_id) ORDER BY 1;

-- With a policy: its period (3d) and defaults, clamps after each update;
-- ratings of players last rated before reset start again from the default.
SELECT player_id, games, rating, round(rd::numeric, 6) AS rd, round(vol::numeric, 8) AS vol
FROM mm.glicko2_replay($$SELECT * FROM (VALUES
        (1::bigint, 2::bigint, 1::float8, '2014-01-30 12:00+00'::timestamptz),
        (1, 2, 1, '2014-02-02 12:00+00')) g$$,
    policy => '{"rating": {"max_change": 10}}', per_game => true)
ORDER BY 1;
SELECT player_id, games, rating
FROM mm.glicko2_replay($$SELECT * FROM (VALUES
        (1::bigint, 2::bigint, 1::float8, '2014-01-30 12:00+00'::timestamptz),
        (1, 2, 1, '2014-02-02 12:00+00')) g$$,
    policy => '{"rating": {"max_change": 10}, "reset": null}', per_game => true)
ORDER BY 1;

-- an empty history gives no rows
SELECT count(*) AS no_rows FROM mm.glicko2_replay('SELECT player_id, opponent_id, score, played_at FROM g2_small WHERE false');

-- errors: the games query (ids and scores may be of any numeric type)
SELECT * FROM mm.glicko2_replay('SELECT player_id::text, opponent_id, score, played_at FROM g2_small');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.glicko2_replay('SELECT player_id, opponent_id, score FROM g2_small');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.glicko2_replay('SELECT player_id, NULL::bigint, score, played_at FROM g2_small');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.glicko2_replay('SELECT player_id, player_id, score, played_at FROM g2_small');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.glicko2_replay('SELECT player_id, opponent_id, score * 2, played_at FROM g2_small');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.glicko2_replay('SELECT player_id, opponent_id, score, ''infinity''::timestamptz FROM g2_small');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.glicko2_replay('SELEC 1');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.glicko2_replay('CREATE TEMP TABLE g2_nothing ()');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.glicko2_replay(NULL);
\echo :LAST_ERROR_SQLSTATE
-- errors: period, tau and the policy
SELECT * FROM mm.glicko2_replay('SELECT player_id, opponent_id, score, played_at FROM g2_small', '0 days');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.glicko2_replay('SELECT player_id, opponent_id, score, played_at FROM g2_small', '1 day', policy => '{"period": "3d"}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.glicko2_replay('SELECT player_id, opponent_id, score, played_at FROM g2_small', tau => 0);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.glicko2_replay('SELECT player_id, opponent_id, score, played_at FROM g2_small', tau => 0.3,
                                policy => '{"volatility": {"system_constant": 0.6}}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.glicko2_replay('SELECT player_id, opponent_id, score, played_at FROM g2_small', policy => '{"periode": "3d"}');
\echo :LAST_ERROR_SQLSTATE
