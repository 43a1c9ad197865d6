-- The offline Bayesian fit (mm.bayes_fit, mm.bayes_refit): against
-- reference values computed apart from the C code (test/vectors/bayes_fit:
-- Newton's method on the whole Hessian, in Python), over 1v1s, 3v3s with
-- weights and free-for-alls with ties; a key's reported matches; errors.
\set VERBOSITY terse
SET timezone = 'UTC';

-- the tests after this one count on mm's sequences: put them back at the end
\i test/support/sequences_save.sql

CREATE TEMP TABLE bf_games (name text, m int, player_id bigint, team int, rank float8, weight float8);
CREATE TEMP TABLE bf_expected (name text, prior_sd float8, beta float8, player_id bigint, rating float8,
                               deviation float8, games bigint);
\copy bf_games FROM 'test/vectors/bayes_fit/histories.tsv'
\copy bf_expected FROM 'test/vectors/bayes_fit/expected.tsv'

-- every player's mode and deviation within 1e-9 of the reference
SELECT e.name, e.prior_sd, e.beta, count(*) AS players,
       max(abs(f.rating - e.rating)) < 1e-9 AS ratings_agree,
       max(abs(f.deviation - e.deviation)) < 1e-9 AS deviations_agree,
       bool_and(f.games = e.games) AS games_agree
FROM (SELECT DISTINCT name, prior_sd, beta FROM bf_expected) c
CROSS JOIN LATERAL mm.bayes_fit(format('SELECT m, player_id, team, rank, weight FROM bf_games WHERE name = %L ORDER BY m', c.name),
                                c.prior_sd, c.beta) f
JOIN bf_expected e ON e.name = c.name AND e.prior_sd = c.prior_sd AND e.beta = c.beta AND e.player_id = f.player_id
GROUP BY e.name, e.prior_sd, e.beta ORDER BY e.name, e.prior_sd;

-- worked by hand: one 1v1, prior N(0, 1), beta 1. The mode has theta_1 =
-- -theta_2 = x, where the gradient of log sigma(2x) - x^2 is 0:
-- x = 1 - sigma(2x) = 0.3374 (iterated below); the negative Hessian is
-- [[1 + q, -q], [-q, 1 + q]], q = p (1 - p) with p = sigma(2x), so each
-- deviation is sqrt((1 + q) / ((1 + q)^2 - q^2)) = 0.9195
SELECT player_id, round(rating::numeric, 4) AS rating, round(deviation::numeric, 4) AS deviation, games
FROM mm.bayes_fit('SELECT * FROM (VALUES (1, 1, 1, 1), (1, 2, 2, 2)) g(m, p, t, r)')
ORDER BY player_id;
WITH RECURSIVE it(k, x) AS (SELECT 0, 0::float8 UNION ALL SELECT k + 1, 1 - 1 / (1 + exp(-2 * x)) FROM it WHERE k < 100)
SELECT round(x::numeric, 4) AS x, round(sqrt((1 + q) / ((1 + q) ^ 2 - q ^ 2))::numeric, 4) AS deviation
FROM (SELECT x FROM it WHERE k = 100) a, LATERAL (SELECT (1 / (1 + exp(-2 * x))) * (1 - 1 / (1 + exp(-2 * x))) AS q) b;
-- a draw of two equal teams moves nobody; a player's estimate shrinks
-- toward 0 as prior_sd narrows
SELECT player_id, rating, games FROM mm.bayes_fit('SELECT * FROM (VALUES (1, 1, 1, 1), (1, 2, 2, 1)) g(m, p, t, r)') ORDER BY 1;
SELECT round(a.rating::numeric, 4) AS wide, round(b.rating::numeric, 4) AS narrow
FROM mm.bayes_fit('SELECT * FROM (VALUES (1, 1, 1, 1), (1, 2, 2, 2)) g(m, p, t, r)', 3) a
JOIN mm.bayes_fit('SELECT * FROM (VALUES (1, 1, 1, 1), (1, 2, 2, 2)) g(m, p, t, r)', 0.3) b USING (player_id)
WHERE player_id = 1;
-- no games: no rows
SELECT count(*) FROM mm.bayes_fit('SELECT 1 AS m, 1 AS p, 1 AS t, 1 AS r WHERE false');

-- Beyond 1000 players the mode comes from the coordinate steps alone and a
-- deviation from the player's own curvature: 1100 players, 3000 random
-- 1v1s. At the mode the gradient of the log posterior is 0, for player i
-- sum over its games of (won - p) / beta - theta_i / prior_sd^2, p its
-- pre-game odds sigma((theta_i - theta_opponent) / beta); the deviation is
-- 1 / sqrt(sum of p (1 - p) / beta^2 + 1 / prior_sd^2).
SELECT setseed(0.6);
CREATE TEMP TABLE bf_big AS
SELECT m, a, b FROM (SELECT m, 1 + floor(random() * 1100)::int AS a, 1 + floor(random() * 1100)::int AS b
                     FROM generate_series(1, 3000) m) x WHERE a <> b;
CREATE TEMP TABLE bf_big_fit AS
SELECT * FROM mm.bayes_fit('SELECT m, a AS p, 1 AS t, 1 AS r FROM bf_big UNION ALL SELECT m, b, 2, 2 FROM bf_big ORDER BY 1', 1, 2);
SELECT count(*) AS players, max(abs(grad)) < 1e-8 AS gradient_zero, max(abs(deviation - 1 / sqrt(curv + 1))) < 1e-12 AS deviation_own_curvature
FROM (SELECT f.player_id, f.deviation,
             sum(CASE WHEN g.a = f.player_id THEN 1 - p ELSE -(1 - p) END) / 2 - min(f.rating) AS grad,
             sum(p * (1 - p)) / 4 AS curv
      FROM bf_big_fit f
      JOIN bf_big g ON f.player_id IN (g.a, g.b)
      JOIN bf_big_fit fa ON fa.player_id = g.a JOIN bf_big_fit fb ON fb.player_id = g.b
      CROSS JOIN LATERAL (SELECT 1 / (1 + exp(-(fa.rating - fb.rating) / 2)) AS p) o
      GROUP BY f.player_id, f.deviation) x;
DROP TABLE bf_big, bf_big_fit;

-- A key's reported matches: mm.bayes_refit fits them in report order
SELECT mm.create_queue('bf_q', '{"team_size": 1, "filter": {"potentials_min": 0}, "rating": {"model": "elo", "key": "bf_key"}}');
DO $$
DECLARE
    m bigint;
BEGIN
    FOR k IN 1 .. 6 LOOP
        PERFORM mm.enqueue('bf_q', ARRAY[9701]::bigint[], 1500, joined_at => now() - interval '1 minute');
        PERFORM mm.enqueue('bf_q', ARRAY[9702 + k % 2]::bigint[], 1500, joined_at => now() - interval '1 minute');
        SELECT DISTINCT t.match_id INTO m FROM mm.tick('bf_q') t;
        -- 9701 beats 9702, loses to 9703
        PERFORM mm.report_result(m, (SELECT jsonb_build_object('teams', jsonb_object_agg(mr.team,
                    jsonb_build_object('rank', CASE WHEN (9701 = ANY (mr.players)) = (k % 2 = 0) THEN 1 ELSE 2 END)))
                FROM mm.match_roster mr WHERE mr.match_id = m));
    END LOOP;
END
$$;
SELECT r.player_id, round(r.rating::numeric, 9) = round(f.rating::numeric, 9) AS same_as_bayes_fit, r.games
FROM mm.bayes_refit('bf_key', 1, 2) r
JOIN mm.bayes_fit($$SELECT r.match_id, r.player_id, CASE WHEN r.team = 'red' THEN 1 ELSE 2 END, r.rank
                   FROM mm.match_result_player r WHERE r.key = 'bf_key' ORDER BY r.match_id$$, 1, 2) f USING (player_id)
ORDER BY r.player_id;
SELECT player_id, round(rating::numeric, 3) AS rating FROM mm.bayes_refit('bf_key', 1, 2) ORDER BY rating DESC;
SELECT count(*) AS players FROM mm.bayes_refit('no such key');
SELECT mm.drop_queue('bf_q', keep_history => false);
DELETE FROM mm.ratings WHERE key = 'bf_key';

-- Errors
SELECT * FROM mm.bayes_fit('SELECT * FROM (VALUES (1, 1, 1, 1), (1, 2, 2, 2)) g(m, p, t, r)', 0);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.bayes_fit('SELECT * FROM (VALUES (1, 1, 1, 1), (1, 2, 2, 2)) g(m, p, t, r)', 1, 'NaN');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.bayes_fit(NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.bayes_fit('SELECT * FROM (VALUES (1, 1, 1, 1), (1, 2, 1, 1)) g(m, p, t, r)');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.bayes_fit('SELECT * FROM (VALUES (1, 1, 1, 1), (1, 2, 1, 2), (1, 3, 2, 2)) g(m, p, t, r)');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.bayes_fit('SELECT * FROM (VALUES (1, 1, 1, 1), (1, 1, 2, 2)) g(m, p, t, r)');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.bayes_fit('SELECT * FROM (VALUES (1, 1, 1, 1, 1), (1, 2, 2, 2, -1)) g(m, p, t, r, w)');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.bayes_fit('SELECT * FROM (VALUES (1, 1, 1, ''Infinity''::float8), (1, 2, 2, 2)) g(m, p, t, r)');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.bayes_fit('SELECT * FROM (VALUES (1, 1, 1, 1), (1, 2, 2, 2), (2, 1, 1, 1), (2, 2, 2, 2), (1, 3, 1, 1), (1, 4, 2, 2)) g(m, p, t, r)');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.bayes_fit('DELETE FROM bf_games');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.bayes_refit(NULL);
\echo :LAST_ERROR_SQLSTATE

DROP TABLE bf_games, bf_expected;

\i test/support/sequences_restore.sql
