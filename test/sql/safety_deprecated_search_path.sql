-- Deprecated functions keep working for a 0.1.0 caller after the upgrade:
-- one that runs a caller's query runs it with the caller's search_path, so
-- an unqualified table of the caller's is found. 0.2.0's wrapper of
-- mm.replay_openskill pinned search_path = mm, pg_catalog, pg_temp and
-- failed with 42P01. Every deprecated function (its COMMENT begins
-- "deprecated:") is called here with an unqualified table; a new one needs
-- a sample call, or this test fails.
\set VERBOSITY terse
CREATE SCHEMA game;
SET search_path = game, public;
CREATE TABLE my_games (m int, p bigint, t int, r int);
INSERT INTO my_games VALUES (1, 1, 1, 1), (1, 2, 2, 2), (2, 1, 1, 2), (2, 3, 2, 1);
CREATE TABLE my_requests (request jsonb);
INSERT INTO my_requests VALUES ('{"teams": [{"rank": 0, "team": {"teamId": "red", "players": [{"playerId": 1}]}},
                                           {"rank": 1, "team": {"teamId": "blue", "players": [{"playerId": 2}]}}]}');

CREATE TEMP TABLE deprecated_sample (fn regprocedure PRIMARY KEY, call text NOT NULL);
INSERT INTO deprecated_sample VALUES
('mm.replay_openskill(text, text, text, float8, float8, float8, boolean, float8, float8, float8, float8, float8, boolean, float8)',
 $$SELECT count(*) FROM mm.replay_openskill('SELECT m, p, t, r FROM my_games ORDER BY m')$$),
('mm.rate(jsonb)', $$SELECT count(mm.rate(request)) FROM my_requests$$);

-- every deprecated function has its sample
SELECT p.oid::regprocedure AS without_sample
FROM pg_proc p
WHERE p.pronamespace = 'mm'::regnamespace AND obj_description(p.oid, 'pg_proc') LIKE 'deprecated:%'
  AND p.oid NOT IN (SELECT fn FROM deprecated_sample);
-- each runs against the caller's unqualified table
DO $$
DECLARE
    s record;
    n bigint;
BEGIN
    FOR s IN SELECT * FROM deprecated_sample ORDER BY fn::text LOOP
        EXECUTE s.call INTO n;
        RAISE NOTICE '%: % rows', s.fn::oid::regproc, n;
    END LOOP;
END
$$;
-- the same as the name that replaces it
SELECT (SELECT array_agg(ROW(player_id, mu, sigma, matches)::text ORDER BY player_id)
        FROM mm.replay_openskill('SELECT m, p, t, r FROM my_games ORDER BY m'))
     = (SELECT array_agg(ROW(player_id, mu, sigma, games::int)::text ORDER BY player_id)
        FROM mm.openskill_replay('SELECT m, p, t, r FROM my_games ORDER BY m')) AS same;

RESET search_path;
DROP SCHEMA game CASCADE;
