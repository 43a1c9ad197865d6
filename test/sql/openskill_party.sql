-- musigma matchmaking helpers (the IMS matchmaker documentation): party rating, beta widening and
-- the data-point score.
\set VERBOSITY default

-- party rating: (2 max(mu) + 1 median(mu)) / 3 - 3 avg(sigma) by default
SELECT mm.party_rating('{30}', '{10}') AS solo_is_ordinal, mm.ordinal(30, 10) AS ordinal;
SELECT mm.party_rating('{20,35,25}', '{2,4,6}') AS odd,
       (2 * 35 + 1 * 25) / 3.0 - 3 * 4 AS by_hand;
-- an even count's median is the mean of the middle two
SELECT mm.party_rating('{20,35,25,29}', '{1,1,1,1}') AS even,
       (2 * 35 + 1 * (25 + 29) / 2.0) / 3.0 - 3 * 1 AS by_hand;
-- the IMS documentation's 2-to-1 ratio: the best player is 2/3 of the base rating
SELECT mm.party_rating('{10,40}', '{1,1}', 1, 0, 0) AS max_only,
       mm.party_rating('{10,40}', '{1,1}', 0, 1, 0) AS median_only,
       mm.party_rating('{10,40}', '{1,1}', 2, 1, 0) AS two_to_one,
       mm.party_rating('{10,40}', '{1,1}', 4, 2, 0) AS weights_are_relative,
       mm.party_rating('{10,40}', '{2,4}', 2, 1, 1.5) AS deviations;
-- order of members does not matter
SELECT mm.party_rating('{25,20,35}', '{6,2,4}') = mm.party_rating('{20,35,25}', '{2,4,6}') AS order_free;

-- the aggregate over a party's rows equals the array form, also in parallel
CREATE TABLE party_members (party int, mu float8, sigma float8);
INSERT INTO party_members
SELECT p, 20 + (p * 7 + m * 13) % 17, 1 + (p + m) % 5
FROM generate_series(1, 400) p, generate_series(1, 1 + p % 5) m;
SELECT count(*) AS parties,
       count(*) FILTER (WHERE abs(agg - arr) < 1e-12) AS equal,
       count(*) FILTER (WHERE abs(agg_w - arr_w) < 1e-12) AS equal_with_settings
FROM (SELECT party, mm.party_rating_agg(mu, sigma) AS agg,
             mm.party_rating(array_agg(mu), array_agg(sigma)) AS arr,
             mm.party_rating_agg(mu, sigma, 1, 3, 2) AS agg_w,
             mm.party_rating(array_agg(mu), array_agg(sigma), 1, 3, 2) AS arr_w
      FROM party_members GROUP BY party) x;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
ALTER TABLE party_members SET (parallel_workers = 2);
EXPLAIN (COSTS OFF) SELECT mm.party_rating_agg(mu, sigma) FROM party_members WHERE party = 7;
SELECT abs(mm.party_rating_agg(mu, sigma) - (SELECT mm.party_rating(array_agg(mu), array_agg(sigma)) FROM party_members WHERE party = 7)) < 1e-12 AS parallel_equal
FROM party_members WHERE party = 7;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
SELECT mm.party_rating_agg(mu, sigma) IS NULL AS empty_is_null FROM party_members WHERE false;
DROP TABLE party_members;

-- beta widening: the IMS documentation's example (10 s buckets, 5 buckets, max 20)
SELECT w AS waited, mm.musigma_beta(w, 20, 5, '10 seconds') AS beta
FROM unnest(ARRAY['0 s', '9.999 s', '10 s', '39 s', '40 s', '89 s', '90 s', '159 s', '160 s', '1 hour', '2 days']::interval[]) w;
SELECT mm.musigma_beta('1 minute', 20, 1, '10 seconds') AS one_bucket,
       mm.musigma_beta('1 month', 8, 3, '1 day') AS long_waits;

-- the data-point score: max(0, 1 - (max - min) / beta), floor and weight
SELECT * FROM mm.musigma_data_point('{10,10}', 5);
SELECT * FROM mm.musigma_data_point('{10,12}', 5);
SELECT * FROM mm.musigma_data_point('{10,13}', 5);
SELECT * FROM mm.musigma_data_point('{10,15}', 5);
SELECT * FROM mm.musigma_data_point('{-5,5,0}', 5);
SELECT * FROM mm.musigma_data_point('{10,13}', 5, floor => 0.4, weight => 2);
-- parties and players together: party ratings against a solo's ordinal,
-- beta from the wait
SELECT (mm.musigma_data_point(ARRAY[mm.party_rating('{31,29}', '{2,3}'), mm.ordinal(28, 1.5)],
                              mm.musigma_beta('45 seconds', 20, 5, '10 seconds'))).*;

-- errors
SELECT mm.party_rating('{}', '{}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.party_rating('{1,2}', '{1}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.party_rating('{1,NULL}', '{1,1}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.party_rating('{1,NaN}', '{1,1}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.party_rating('{1,2}', '{1,0}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.party_rating('{1,2}', '{1,1}', -1);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.party_rating('{1,2}', '{1,1}', 0, 0);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.party_rating('{1,2}', '{1,1}', 2, 1, 'Infinity');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.party_rating_agg(mu, sigma) FROM (VALUES (1.0::float8, 1.0::float8), (2, NULL)) v(mu, sigma);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.party_rating_agg(mu, sigma, w, 1, 3) FROM (VALUES (1.0::float8, 1.0::float8, 2.0::float8), (2, 1, 3)) v(mu, sigma, w);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.musigma_beta('-1 s', 20, 5, '10 s');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.musigma_beta('1 s', 20, 0, '10 s');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.musigma_beta('1 s', 20, 5, '0 s');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.musigma_beta('1 s', 0, 5, '10 s');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.musigma_beta('1 s', 'NaN', 5, '10 s');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.musigma_data_point('{1}', 5);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.musigma_data_point('{1,2}', 0);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.musigma_data_point('{1,2}', 5, floor => 1.5);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.musigma_data_point('{1,2}', 5, weight => -1);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.musigma_data_point('{1,Infinity}', 5);
\echo :LAST_ERROR_SQLSTATE
