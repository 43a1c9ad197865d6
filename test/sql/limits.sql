-- Work that grows with the input stays cancellable and near-linear where
-- the math allows: statement_timeout is honoured, big games are fast.
\set VERBOSITY default

-- predictions over many teams are O(teams^2) by their formula: a timeout
-- cancels them (in 0.1.0, 100,000 teams ran a minute past a 2 s timeout)
SET statement_timeout = '300ms';
SELECT count(*) FROM mm.openskill_predict_win(
    ARRAY(SELECT i FROM generate_series(1, 100000) i),
    ARRAY(SELECT 25::float8 FROM generate_series(1, 100000)),
    ARRAY(SELECT 8::float8 FROM generate_series(1, 100000)));
\echo :LAST_ERROR_SQLSTATE
SELECT mm.openskill_predict_draw(
    ARRAY(SELECT i FROM generate_series(1, 100000) i),
    ARRAY(SELECT 25::float8 FROM generate_series(1, 100000)),
    ARRAY(SELECT 8::float8 FROM generate_series(1, 100000)));
\echo :LAST_ERROR_SQLSTATE
-- full pairing is O(teams^2) too
SELECT count(*) FROM mm.openskill_rate(
    ARRAY(SELECT i FROM generate_series(1, 100000) i),
    ARRAY(SELECT i::float8 FROM generate_series(1, 100000) i),
    ARRAY(SELECT 25::float8 FROM generate_series(1, 100000)),
    ARRAY(SELECT 8::float8 FROM generate_series(1, 100000)),
    'thurstone_mosteller_full');
\echo :LAST_ERROR_SQLSTATE

-- Plackett-Luce, partial pairing and the team lookup are O(n log n): 50,000
-- one-player teams well inside a timeout (0.1.0 was quadratic: minutes)
SET statement_timeout = '10s';
SELECT m AS model, count(*) AS players, bool_and(sigma > 0 AND mu > 0) AS all_rated
FROM unnest('{plackett_luce,bradley_terry_part,thurstone_mosteller_part}'::text[]) m,
     mm.openskill_rate(ARRAY(SELECT i FROM generate_series(1, 50000) i),
                       ARRAY(SELECT i::float8 FROM generate_series(1, 50000) i),
                       ARRAY(SELECT 25::float8 FROM generate_series(1, 50000)),
                       ARRAY(SELECT 8::float8 FROM generate_series(1, 50000)), m)
GROUP BY m ORDER BY m;
-- Plackett-Luce in one pass equals the pairwise sums on a game with ties
SELECT idx, round(mu::numeric, 10) AS mu, round(sigma::numeric, 10) AS sigma
FROM mm.openskill_rate('{1,2,3,4,5,6}', '{1,2,2,4,4,4}', '{25,30,20,28,22,25}', '{8,6,7,5,8,3}');

-- musigma_beta computes its bucket directly (0.1.0 counted up to 2e9)
SET statement_timeout = '1s';
SELECT mm.musigma_beta('1000000 years', 1, 2000000000, '1 microsecond') AS last_bucket,
       mm.musigma_beta('1 second', 1, 2000000000, '1 microsecond') * 2000000000 AS bucket_1001,
       mm.musigma_beta('45 seconds', 1e308, 5, '10 seconds') AS huge_max_beta_is_finite;
RESET statement_timeout;
