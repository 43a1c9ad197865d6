-- Aggregate support functions fed by hand: NULL, forged and non-finite
-- states are refused (never a crash, never NaN); parallel plans give the
-- serial results.
\set VERBOSITY default

-- transition functions called with a NULL state (a server crash in 0.1.0)
SELECT mm.share_accum(NULL, 1, 1);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.weighted_score_accum(NULL, 0.5, 1);
\echo :LAST_ERROR_SQLSTATE
-- called by hand with a good state, they return the next state
SELECT mm.share_accum('{1,2}', 'a'::text, 'a'::text) AS share_step,
       mm.weighted_score_accum('{0.5,1}', 0.5, 2) AS weighted_step,
       mm.share_combine('{1,2}', '{0,3}') AS share_combined,
       mm.weighted_score_combine('{1,2}', '{0.5,1}') AS weighted_combined;

-- mm.share states: {matching rows, rows}
SELECT mm.share_final('{NaN,NaN}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.share_final('{1,Infinity}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.share_final('{0.5,1}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.share_final('{-1,-1}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.share_final('[0:1]={1,1}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.share_final('{{1,1}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.share_combine('{1,2}', '{NaN,1}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.share_combine('{Infinity,Infinity}', '{0,0}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.share_accum('{NaN,1}', 1, 1);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.share_combine('{1,9007199254740992}', '{0,9007199254740992}');
\echo :LAST_ERROR_SQLSTATE

-- mm.weighted_score states: {sum of weight * score, signals}
SELECT mm.weighted_score_final('{NaN,1}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.weighted_score_final('{Infinity,1}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.weighted_score_final('{5,0}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.weighted_score_final('{-1,1}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.weighted_score_combine('{1e308,1}', '{1e308,1}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.weighted_score_combine('{1,1}', '{-Infinity,1}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.weighted_score_accum('{1,0.5}', 0.5, 1);
\echo :LAST_ERROR_SQLSTATE

-- mm.glicko2_period states: sums no set of games can give
SELECT mm.glicko2_period_final('{1500,350,0.06,0.5,1e308,0,1}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_period_final('{1500,350,0.06,0.5,0.1,2,1}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_period_final('{1500,350,0.06,0.5,0.1,0,0}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_period_final('{1500,350,0.06,0.5,0.1,0,1.5}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_period_final('{1500,350,0.06,NaN,0.1,0,1}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_period_final('{1500,350,0.06,0.5,NaN,0,1}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_period_final('[0:6]={1500,350,0.06,0.5,0.1,0,1}');
\echo :LAST_ERROR_SQLSTATE
-- a v^-1 of 0 (every outcome certain) is refused, not divided by
SELECT mm.glicko2_period_final('{1500,350,0.06,0.5,0,0,1}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_period_combine('{1500,350,0.06,0.5,0.25,1,1}', '{1500,350,0.06,0.5,Infinity,0,1}');
\echo :LAST_ERROR_SQLSTATE
-- a tau so small that tau^2 underflows: refused, not divided by
SELECT mm.glicko2_rate((1500, 200, 0.06), '{1400}', '{30}', '{1}', 1e-200);
\echo :LAST_ERROR_SQLSTATE

-- party_rating_agg: the support functions take internal, so SQL cannot
-- call them with a state at all (the call itself: test/sql/internal_args.sql)
SELECT p.proname, pg_catalog.pg_get_function_identity_arguments(p.oid) AS args
FROM pg_catalog.pg_proc p
WHERE p.pronamespace = 'mm'::regnamespace AND p.proname LIKE 'party_rating\_%'
ORDER BY 1, 2;

-- party_rating_agg is linear: 20,000 members in one party, equal to the
-- array form, well inside a timeout (0.1.0 copied its state on every row:
-- seconds; the benchmark test/bench/party_rating times it)
SET statement_timeout = '2s';
SELECT mm.party_rating_agg(20 + (i * 7919) % 13, 1 + (i % 5)) =
       mm.party_rating(array_agg((20 + (i * 7919) % 13)::float8), array_agg((1 + i % 5)::float8))
       AS big_party_equal
FROM generate_series(1, 20000) i;
RESET statement_timeout;

-- as a window aggregate the final function runs again and again on the
-- growing state: it must not change it
SELECT i, mm.party_rating_agg(mu, 1) OVER (ORDER BY i) AS running,
       mm.party_rating(array_agg(mu) OVER (ORDER BY i), array_agg(1::float8) OVER (ORDER BY i)) AS by_array
FROM (VALUES (1, 30.0::float8), (2, 20), (3, 25), (4, 40)) v(i, mu);

-- Parallel plans equal serial plans (partial aggregation, combine and, for
-- party_rating_agg, serialize/deserialize).
CREATE TABLE agg_rows (g int, v int, score float8, weight float8,
                       mu float8, sigma float8, opp_rating float8, opp_rd float8, result float8);
INSERT INTO agg_rows
SELECT i % 3, i % 7, (i % 11) / 10.0, 1 + i % 4,
       20 + (i * 7919) % 13, 1 + (i % 5), 1300 + (i * 37) % 400, 30 + i % 200, (i % 3) / 2.0
FROM generate_series(1, 30000) i;
ALTER TABLE agg_rows SET (parallel_workers = 2);
ANALYZE agg_rows;
CREATE TEMP TABLE serial AS
SELECT g, mm.share(v, 3) AS share, mm.weighted_score(score, weight) AS ws,
       mm.party_rating_agg(mu, sigma) AS party,
       mm.glicko2_period(1500, 200, 0.06, opp_rating, opp_rd, result) AS period
FROM agg_rows GROUP BY g;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF)
SELECT g, mm.share(v, 3), mm.weighted_score(score, weight), mm.party_rating_agg(mu, sigma),
       mm.glicko2_period(1500, 200, 0.06, opp_rating, opp_rd, result)
FROM agg_rows GROUP BY g;
CREATE TEMP TABLE parallel AS
SELECT g, mm.share(v, 3) AS share, mm.weighted_score(score, weight) AS ws,
       mm.party_rating_agg(mu, sigma) AS party,
       mm.glicko2_period(1500, 200, 0.06, opp_rating, opp_rd, result) AS period
FROM agg_rows GROUP BY g;
-- share and party_rating_agg are exact; weighted_score and glicko2_period
-- add floats in another order, so they agree to the last few bits
SELECT s.g, s.share = p.share AS share_equal,
       s.party = p.party AS party_equal,
       abs(s.ws - p.ws) <= 1e-12 * abs(s.ws) AS weighted_score_close,
       abs((s.period).rating - (p.period).rating) < 1e-9
       AND abs((s.period).rd - (p.period).rd) < 1e-9
       AND abs((s.period).vol - (p.period).vol) < 1e-12 AS glicko2_period_close
FROM serial s JOIN parallel p USING (g) ORDER BY g;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
DROP TABLE agg_rows;
