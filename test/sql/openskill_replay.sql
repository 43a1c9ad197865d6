-- mm.openskill_replay: re-rate a whole match history in one call; it must
-- equal rating the matches one by one with mm.openskill_rate.
\set VERBOSITY default

-- 300 matches among 40 players: 2-4 teams of 1-3 players, ties
SELECT setseed(0.42);
CREATE TABLE os_history (match_id int, player_id bigint, team int, rank int, weight float8);
DO $$
DECLARE
    pool bigint[];
    nteams int;
    size int;
    k int;
BEGIN
    FOR m IN 1..300 LOOP
        SELECT array_agg(p ORDER BY random()) INTO pool FROM generate_series(1, 40) p;
        nteams := 2 + floor(random() * 3)::int;
        size := 1 + floor(random() * 3)::int;
        k := 1;
        FOR t IN 1..nteams LOOP
            INSERT INTO os_history
            SELECT m, pool[k + j], t, 1 + floor(random() * nteams)::int, round((random() * 10)::numeric, 2)
            FROM generate_series(0, size - 1) j;
            k := k + size;
        END LOOP;
    END LOOP;
END $$;
UPDATE os_history h SET rank = x.rank FROM (SELECT DISTINCT ON (match_id, team) match_id, team, rank FROM os_history ORDER BY match_id, team, player_id) x
WHERE h.match_id = x.match_id AND h.team = x.team;
SELECT count(DISTINCT match_id) AS matches, count(DISTINCT player_id) AS players, count(*) AS rows FROM os_history;

-- rating one by one: the reference the replay must equal
CREATE FUNCTION os_one_by_one(p_model text, p_beta float8, p_weighted bool, p_initial bool)
RETURNS TABLE(player_id bigint, mu float8, sigma float8, games bigint) LANGUAGE plpgsql AS $$
DECLARE
    m record;
BEGIN
    CREATE TEMP TABLE os_r (player_id bigint PRIMARY KEY, mu float8, sigma float8, games bigint) ON COMMIT DROP;
    IF p_initial THEN
        INSERT INTO os_r SELECT i, 20 + i % 10, 3 + i % 4, 0 FROM generate_series(1, 20) i;
    END IF;
    FOR m IN SELECT match_id FROM os_history GROUP BY match_id ORDER BY match_id LOOP
        INSERT INTO os_r SELECT h.player_id, 25, 25.0 / 3, 0 FROM os_history h
        WHERE h.match_id = m.match_id ON CONFLICT DO NOTHING;
        WITH g AS (
            SELECT array_agg(h.player_id ORDER BY h.team, h.player_id) AS ids,
                   array_agg(h.team ORDER BY h.team, h.player_id) AS team,
                   array_agg(h.rank::float8 ORDER BY h.team, h.player_id) AS rank,
                   array_agg(h.weight ORDER BY h.team, h.player_id) AS weight,
                   array_agg(r.mu ORDER BY h.team, h.player_id) AS mu,
                   array_agg(r.sigma ORDER BY h.team, h.player_id) AS sigma
            FROM os_history h JOIN os_r r USING (player_id) WHERE h.match_id = m.match_id)
        UPDATE os_r r SET mu = n.mu, sigma = n.sigma, games = r.games + 1
        FROM g, mm.openskill_rate(g.team, g.rank, g.mu, g.sigma, model => p_model, beta => p_beta,
                                  weight => CASE WHEN p_weighted THEN g.weight END) n
        WHERE r.player_id = g.ids[n.idx];
    END LOOP;
    RETURN QUERY SELECT * FROM os_r ORDER BY 1;
    DROP TABLE os_r;
END $$;

-- defaults
SELECT count(*) AS players, count(*) FILTER (WHERE a.mu = b.mu AND a.sigma = b.sigma AND a.games = b.games) AS identical
FROM mm.openskill_replay('SELECT match_id, player_id, team, rank FROM os_history ORDER BY match_id, team, player_id') a
FULL JOIN os_one_by_one('plackett_luce', 25.0 / 6, false, false) b USING (player_id);
-- every model, another beta, weights as a fifth column, initial ratings
SELECT m AS model,
       (SELECT count(*) FILTER (WHERE a.mu = b.mu AND a.sigma = b.sigma AND a.games = b.games)
        FROM mm.openskill_replay('SELECT match_id, player_id, team, rank, weight FROM os_history ORDER BY match_id, team, player_id',
                                 'SELECT i, 20 + i % 10, 3 + i % 4 FROM generate_series(1, 20) i', model => m, beta => 4) a
        FULL JOIN os_one_by_one(m, 4, true, true) b USING (player_id)) AS identical_of_40
FROM unnest(ARRAY['plackett_luce', 'bradley_terry_full', 'bradley_terry_part',
                  'thurstone_mosteller_full', 'thurstone_mosteller_part']) m;
-- a player of the initial ratings who never plays keeps them with 0 games
SELECT * FROM mm.openskill_replay('SELECT 1, 1, 1, 1 UNION ALL SELECT 1, 2, 2, 2',
                                  'SELECT 99::bigint, 30.0::float8, 5.0::float8') WHERE player_id = 99;

-- the analyst's question: what would the top of the ladder be with beta 4?
SELECT player_id, round(mu::numeric, 6) AS mu, round(sigma::numeric, 6) AS sigma, games,
       round(mm.ordinal(mu, sigma)::numeric, 6) AS ordinal
FROM mm.openskill_replay('SELECT match_id, player_id, team, rank FROM os_history ORDER BY match_id, team, player_id', beta => 4)
ORDER BY mm.ordinal(mu, sigma) DESC LIMIT 5;

-- match keys of any type; other numeric types for ids, teams and ranks
SELECT (SELECT array_agg(mu ORDER BY player_id) FROM mm.openskill_replay(
          'SELECT ''m'' || lpad(match_id::text, 4, ''0''), player_id::int, team::smallint, rank::numeric FROM os_history ORDER BY match_id, team, player_id'))
     = (SELECT array_agg(mu ORDER BY player_id) FROM mm.openskill_replay(
          'SELECT match_id::bigint, player_id, team, rank::float4 FROM os_history ORDER BY match_id, team, player_id')) AS key_and_types_free;
-- an empty history returns no players (only the initial ratings, if any)
SELECT count(*) AS players FROM mm.openskill_replay('SELECT 1, 1, 1, 1 WHERE false');

-- however the ids are spread, the ratings are the same and come out by id:
-- serial (the ratings indexed by id), scaled by 1000 (indexed, grown),
-- negative, one far id (indexed until player 40 first plays, in the match
-- below, then hashed), all far apart (hashed from the start)
SELECT min(match_id) AS player_40_first_plays_in FROM os_history WHERE player_id = 40;
WITH base AS (
    SELECT array_agg(ARRAY[mu, sigma, games] ORDER BY player_id) AS ratings
    FROM mm.openskill_replay('SELECT match_id, player_id, team, rank FROM os_history ORDER BY match_id, team, player_id'))
SELECT spread,
       array_agg(ARRAY[r.mu, r.sigma, r.games] ORDER BY r.n) = base.ratings AS same_ratings,
       array_agg(r.player_id ORDER BY r.n) = array_agg(r.player_id ORDER BY r.player_id) AS by_id
FROM base, unnest(ARRAY['player_id', 'player_id * 1000', 'player_id - 1000',
                        'CASE WHEN player_id = 40 THEN 1099511627776 ELSE player_id END',
                        'player_id * 1000000007']) spread,
     mm.openskill_replay(format('SELECT match_id, %s, team, rank FROM os_history ORDER BY match_id, team, player_id', spread))
         WITH ORDINALITY r(player_id, mu, sigma, games, n)
GROUP BY spread, base.ratings ORDER BY spread;
-- 40,000 players of even ids (the indexed table grows past 65,536 slots),
-- each in two matches, rate as the same players hashed
SELECT count(*) AS players,
       bool_and(a.mu = b.mu AND a.sigma = b.sigma AND a.games = b.games) AS same_ratings
FROM mm.openskill_replay('SELECT k, g, g % 4, g % 4 FROM (SELECT (g - 2) / 4 AS k, g FROM generate_series(2, 80000, 2) g
                          UNION ALL SELECT 20000 + (g % 80000) / 4, g FROM generate_series(2, 80000, 2) g) s ORDER BY k, g') a
JOIN mm.openskill_replay('SELECT k, g::numeric * 1000000007, g % 4, g % 4 FROM (SELECT (g - 2) / 4 AS k, g FROM generate_series(2, 80000, 2) g
                          UNION ALL SELECT 20000 + (g % 80000) / 4, g FROM generate_series(2, 80000, 2) g) s ORDER BY k, g') b
  ON b.player_id = a.player_id * 1000000007;
-- match keys need not ascend, only not come back: descending keys, and one
-- key out of order halfway, rate as the ascending history
SELECT (SELECT array_agg(ARRAY[mu, sigma] ORDER BY player_id) FROM mm.openskill_replay(
          'SELECT 1000 - match_id, player_id, team, rank FROM os_history ORDER BY match_id, team, player_id'))
     = (SELECT array_agg(ARRAY[mu, sigma] ORDER BY player_id) FROM mm.openskill_replay(
          'SELECT match_id, player_id, team, rank FROM os_history ORDER BY match_id, team, player_id')) AS descending_keys,
       (SELECT array_agg(ARRAY[mu, sigma] ORDER BY player_id) FROM mm.openskill_replay(
          'SELECT CASE WHEN match_id = 150 THEN 5000 ELSE match_id END, player_id, team, rank FROM os_history ORDER BY os_history.match_id, team, player_id'))
     = (SELECT array_agg(ARRAY[mu, sigma] ORDER BY player_id) FROM mm.openskill_replay(
          'SELECT match_id, player_id, team, rank FROM os_history ORDER BY match_id, team, player_id')) AS one_key_out_of_order;

-- errors
-- (a key back after keys out of order; a far id twice in a match)
SELECT * FROM mm.openskill_replay('SELECT * FROM (VALUES (2, 1, 1, 1), (2, 2, 2, 2), (1, 3, 1, 1), (1, 4, 2, 2),
                                   (3, 5, 1, 1), (3, 6, 2, 2), (1, 7, 1, 1), (1, 8, 2, 2)) v');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_replay('SELECT 1, 1099511627776, 1, 1 UNION ALL SELECT 1, 1099511627776, 2, 2');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_replay('SELECT match_id, player_id, team FROM os_history');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_replay('SELECT match_id, player_id, team, NULL::int FROM os_history');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_replay('SELECT match_id, player_id::text, team, rank FROM os_history');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_replay('SELECT match_id, player_id, team + 0.5, rank FROM os_history');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_replay('SELECT match_id, player_id, team, rank::text FROM os_history');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_replay('SELECT 1, 1, 1, 1 UNION ALL SELECT 1, 1, 2, 2');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_replay('SELECT 1, 1, 1, 1 UNION ALL SELECT 1, 2, 1, 1');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_replay('SELECT 1, 1, 1, 1 UNION ALL SELECT 1, 2, 2, 2', 'SELECT 1, 25, 8 UNION ALL SELECT 1, 25, 8');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_replay('SELECT 1, 1, 1, 1 UNION ALL SELECT 1, 2, 2, 2', 'SELECT 1, 25, 0');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_replay('SELECT 1, 1, 1, 1 UNION ALL SELECT 1, 2, 2, 2', 'SELECT 1, 25');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_replay('SELECT 1, 1, 1, ''NaN''::float8 UNION ALL SELECT 1, 2, 2, 2');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_replay('SELECT 1, 1, 1, 1, -1 UNION ALL SELECT 1, 2, 2, 2, 1');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_replay('SELECT 1, 1, 1, 1 UNION ALL SELECT 1, 2, 2, 2', model => 'glicko');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_replay('SELECT 1, 1, 1, 1 UNION ALL SELECT 1, 2, 2, 2', sigma => -1);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_replay(NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_replay('CREATE TABLE x ()');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_replay('SELECT * FROM no_such_table');
\echo :LAST_ERROR_SQLSTATE

-- The deprecated name mm.replay_openskill (0.1.0's) gives what
-- mm.openskill_replay gives, with 0.1.0's columns (matches int) and
-- argument names, and names its own argument when it is NULL.
SELECT pg_get_function_result('mm.replay_openskill'::regproc) AS old_result,
       (SELECT array_agg(ROW(a.player_id, a.mu, a.sigma, a.matches)::text ORDER BY a.player_id)
        FROM mm.replay_openskill(history => 'SELECT match_id, player_id, team, rank FROM os_history ORDER BY match_id, team, player_id', beta => 4) a)
     = (SELECT array_agg(ROW(b.player_id, b.mu, b.sigma, b.games::int)::text ORDER BY b.player_id)
        FROM mm.openskill_replay(games => 'SELECT match_id, player_id, team, rank FROM os_history ORDER BY match_id, team, player_id', beta => 4) b) AS same;
SELECT * FROM mm.replay_openskill(NULL);
\echo :LAST_ERROR_SQLSTATE

DROP FUNCTION os_one_by_one(text, float8, bool, bool);
DROP TABLE os_history;
