-- Glicko-2: one rating period (Glickman's glicko2.pdf), the rating-period
-- aggregate, idle growth, expected scores, vectors from npm glicko2 1.2.2.
-- Errors show their message, detail and hint; the SQLSTATE is echoed after each.
\set VERBOSITY default

-- Glickman's example: 1500/200/0.06 against 1400/30 (win), 1550/100 (loss),
-- 1700/300 (loss), tau 0.5. The paper prints mu' = -0.2069, phi' = 0.8722,
-- sigma' = 0.05999, and from those (rounded) r' = 1464.06, RD' = 151.52.
SELECT round(((r.rating - 1500) / 173.7178)::numeric, 4) AS mu,
       round((r.rd / 173.7178)::numeric, 4) AS phi,
       abs(r.vol - 0.05999) < 1e-5 AS vol_as_printed,
       abs(r.rating - 1464.06) < 0.01 AS rating_as_printed,
       round(r.rd::numeric, 2) AS rd
FROM mm.glicko2_rate((1500, 200, 0.06), '{1400,1550,1700}', '{30,100,300}', '{1,0,0}') r;
-- ... and to 1e-9 against reference values (npm glicko2 1.2.2, vectors.tsv case 0)
SELECT abs(r.rating - 1464.0506705393013) < 1e-9 AS rating_1e9,
       abs(r.rd - 151.51652412385727) < 1e-9 AS rd_1e9,
       abs(r.vol - 0.059995984286488495) < 1e-9 AS vol_1e9
FROM mm.glicko2_rate((1500, 200, 0.06), '{1400,1550,1700}', '{30,100,300}', '{1,0,0}', 0.5) r;

-- an idle period (empty arrays): only the deviation grows, sqrt(rd^2 + (173.7178 vol)^2)
SELECT r.rating, round(r.rd::numeric, 9) AS rd, r.vol,
       round(sqrt(200^2 + (173.7178 * 0.06)^2)::numeric, 9) AS expected_rd
FROM mm.glicko2_rate((1500, 200, 0.06), '{}', '{}', '{}') r;

-- a draw against an equal opponent leaves the rating, shrinks the deviation
SELECT r.rating = 1500 AS same_rating, r.rd < 200 AS rd_shrinks
FROM mm.glicko2_rate((1500, 200, 0.06), '{1500}', '{200}', '{0.5}') r;
-- a win raises, a loss lowers; an upset moves more than an expected win
SELECT (mm.glicko2_rate((1500, 100, 0.06), '{1500}', '{100}', '{1}')).rating > 1500 AS win_up,
       (mm.glicko2_rate((1500, 100, 0.06), '{1500}', '{100}', '{0}')).rating < 1500 AS loss_down,
       (mm.glicko2_rate((1500, 100, 0.06), '{2000}', '{100}', '{1}')).rating - 1500 >
       (mm.glicko2_rate((1500, 100, 0.06), '{1000}', '{100}', '{1}')).rating - 1500 AS upset_moves_more;
-- NULL fields of the player take the defaults 1500 / 350 / 0.06
SELECT mm.glicko2_rate((NULL, NULL, NULL), '{1500}', '{350}', '{1}') =
       mm.glicko2_rate((1500, 350, 0.06), '{1500}', '{350}', '{1}') AS null_fields_are_defaults;
-- strict in its first four arguments; a NULL tau is the default (the policy's)
SELECT mm.glicko2_rate(NULL, '{}', '{}', '{}') IS NULL AS null_player,
       mm.glicko2_rate((1500, 350, 0.06), NULL, '{}', '{}') IS NULL AS null_array,
       mm.glicko2_rate((1500, 350, 0.06), '{}', '{}', '{}', NULL) = mm.glicko2_rate((1500, 350, 0.06), '{}', '{}', '{}', 0.5) AS null_tau_is_default;
-- extreme but finite inputs stay finite (volatility iteration bounded)
SELECT r.rating > 1500 AS up, r.rd > 0 AS rd_positive, r.vol > 0 AS vol_positive
FROM mm.glicko2_rate((1500, 350, 0.06), '{4000,4000,4000,4000,4000,4000,4000,4000,4000,4000}',
                     '{30,30,30,30,30,30,30,30,30,30}', '{1,1,1,1,1,1,1,1,1,1}', 1.2) r;
SELECT r.rd < 30 AS rd_small FROM mm.glicko2_rate((1500, 30, 0.001), '{1500}', '{30}', '{0.5}', 0.05) r;

-- 240 random periods from npm glicko2 1.2.2 (test/vectors/glicko2/generate.mjs):
-- 1-10 games with wins, draws, losses and upsets, and idle periods.
CREATE TEMP TABLE g2_vectors (
    id int, tau float8, rating float8, rd float8, vol float8,
    opp_rating float8[], opp_rd float8[], score float8[],
    e_rating float8, e_rd float8, e_vol float8);
\copy g2_vectors FROM 'test/vectors/glicko2/vectors.tsv'
SELECT count(*) AS periods,
       count(*) FILTER (WHERE cardinality(score) = 0) AS idle,
       count(*) FILTER (WHERE 0.5 = ANY (score)) AS with_draws,
       count(*) FILTER (WHERE cardinality(score) = 10) AS ten_games
FROM g2_vectors;
SELECT count(*) FILTER (WHERE abs((r).rating - e_rating) > 1e-4) AS rating_mismatches,
       count(*) FILTER (WHERE abs((r).rd - e_rd) > 1e-4) AS rd_mismatches,
       count(*) FILTER (WHERE abs((r).vol - e_vol) > 1e-7) AS vol_mismatches
FROM (SELECT *, mm.glicko2_rate((rating, rd, vol), opp_rating, opp_rd, score, tau) AS r
      FROM g2_vectors) s;

-- The aggregate over the same games (one row per game; an idle period is a
-- row of NULL games, as a LEFT JOIN gives) equals mm.glicko2_rate to 1e-12.
CREATE TEMP TABLE g2_games AS
SELECT v.id, v.tau, v.rating, v.rd, v.vol, g.ord, g.opp_rating, g.opp_rd, g.score
FROM g2_vectors v
LEFT JOIN LATERAL unnest(v.opp_rating, v.opp_rd, v.score) WITH ORDINALITY
    AS g(opp_rating, opp_rd, score, ord) ON true;
SELECT count(*) AS rated,
       count(*) FILTER (WHERE abs((a).rating - (r).rating) > 1e-12
                           OR abs((a).rd - (r).rd) > 1e-12
                           OR abs((a).vol - (r).vol) > 1e-12) AS differ_from_rate
FROM (SELECT id, mm.glicko2_period(rating, rd, vol, opp_rating, opp_rd, score, tau ORDER BY ord) AS a
      FROM g2_games GROUP BY id) agg
JOIN (SELECT id, mm.glicko2_rate((rating, rd, vol), opp_rating, opp_rd, score, tau) AS r
      FROM g2_vectors) rate USING (id);
-- without tau the aggregate uses 0.5
SELECT mm.glicko2_period(1500, 200, 0.06, o, d, s) =
       mm.glicko2_rate((1500, 200, 0.06), '{1400,1550,1700}', '{30,100,300}', '{1,0,0}') AS default_tau
FROM (VALUES (1400, 30, 1), (1550, 100, 0), (1700, 300, 0)) g(o, d, s);
-- no rows: NULL
SELECT mm.glicko2_period(1500, 200, 0.06, 1500, 200, 1) IS NULL AS empty_is_null FROM g2_games WHERE false;

-- the aggregate and its support functions are parallel safe
SELECT p.oid::regprocedure AS fn, p.proparallel
FROM pg_proc p WHERE p.pronamespace = 'mm'::regnamespace AND p.proname ~ '^_?glicko2_period'
ORDER BY 1;
SELECT aggfnoid::regprocedure AS agg, aggcombinefn, aggtranstype::regtype
FROM pg_aggregate WHERE aggfnoid::text LIKE 'mm.glicko2_period%' ORDER BY 1;

-- A parallel plan: forced parallel costs, Partial Aggregate below the
-- Gather, the same ratings as the serial plan.
CREATE TABLE g2_par AS
SELECT p AS player, 1000 + (p % 97) * 10.0 AS rating, 50 + (p % 13) * 20.0 AS rd, 0.06::float8 AS vol,
       1000 + ((p * 31 + k * 17) % 101) * 10.0 AS opp_rating, 40 + ((p + k) % 7) * 40.0 AS opp_rd,
       ((p + k) % 3) / 2.0 AS score
FROM generate_series(1, 2000) p, generate_series(1, 25) k;
ANALYZE g2_par;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET parallel_leader_participation = off;
SET enable_hashagg = off;
EXPLAIN (COSTS OFF)
SELECT player, mm.glicko2_period(rating, rd, vol, opp_rating, opp_rd, score) FROM g2_par GROUP BY player;
CREATE TEMP TABLE g2_parallel AS
SELECT player, mm.glicko2_period(rating, rd, vol, opp_rating, opp_rd, score) AS r FROM g2_par GROUP BY player;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET parallel_leader_participation;
RESET enable_hashagg;
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE g2_serial AS
SELECT player, mm.glicko2_period(rating, rd, vol, opp_rating, opp_rd, score) AS r FROM g2_par GROUP BY player;
RESET max_parallel_workers_per_gather;
SELECT count(*) AS players,
       count(*) FILTER (WHERE abs((p.r).rating - (s.r).rating) > 1e-9
                           OR abs((p.r).rd - (s.r).rd) > 1e-9
                           OR abs((p.r).vol - (s.r).vol) > 1e-12) AS parallel_differs
FROM g2_parallel p JOIN g2_serial s USING (player);
DROP TABLE g2_par;

-- combine: partial sums of one player add; either side may be empty
SELECT mm.glicko2_period_combine('{1500,200,0.06,0.5,0.25,0.5,1}', '{1500,200,0.06,0.5,0.5,-0.25,2}') AS added,
       mm.glicko2_period_combine('{1500,200,0.06,0.5,0.25,0.5,1}', '{}') AS right_empty,
       mm.glicko2_period_combine('{}', '{1500,200,0.06,0.5,0.25,0.5,1}') AS left_empty;
SELECT mm.glicko2_period_final('{}') IS NULL AS final_of_empty;

-- mm.glicko2_idle: t periods at once equal t idle periods one by one
SELECT round((mm.glicko2_idle((1500, 200, 0.06), 3)).rd::numeric, 9) AS three_at_once,
       round((mm.glicko2_rate(mm.glicko2_rate(mm.glicko2_rate((1500, 200, 0.06), '{}', '{}', '{}'),
              '{}', '{}', '{}'), '{}', '{}', '{}')).rd::numeric, 9) AS one_by_one;
SELECT mm.glicko2_idle((1500, 200, 0.06), 0) = ROW(1500, 200, 0.06)::mm.glicko AS zero_periods,
       round((mm.glicko2_idle((1500, 200, 0.06), 0.5)).rd::numeric, 9) AS half_period;

-- mm.glicko2_expect: 0.5 between equals, symmetric, the paper's E with both deviations
SELECT mm.glicko2_expect(1500, 200, 1500, 30) AS equal,
       round((mm.glicko2_expect(1700, 100, 1500, 50) + mm.glicko2_expect(1500, 50, 1700, 100))::numeric, 12) AS sums_to_one,
       round(mm.glicko2_expect(1500, 0.0001, 1400, 30)::numeric, 6) AS vs_1400,
       round((1 / (1 + exp(-(1 / sqrt(1 + 3 * (30 / 173.7178)^2 / pi()^2)) * 100 / 173.7178)))::numeric, 6) AS paper_e;

-- mm.glicko2_effective: rating - rd
SELECT mm.glicko2_effective((1500, 350, 0.06)) AS new_player, mm.glicko2_effective((1800, 40, 0.05)) AS veteran;

-- errors: deviations, volatilities and tau must be positive and finite
SELECT mm.glicko2_rate((1500, 0, 0.06), '{}', '{}', '{}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_rate((1500, -5, 0.06), '{}', '{}', '{}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_rate((1500, 200, 0), '{}', '{}', '{}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_rate((1500, 200, 0.06), '{}', '{}', '{}', 0);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_rate((1500, 200, 0.06), '{}', '{}', '{}', -0.5);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_rate((1500, 200, 0.06), '{1500}', '{0}', '{1}');
\echo :LAST_ERROR_SQLSTATE
-- scores outside [0, 1]
SELECT mm.glicko2_rate((1500, 200, 0.06), '{1500}', '{200}', '{1.5}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_rate((1500, 200, 0.06), '{1500}', '{200}', '{-0.1}');
\echo :LAST_ERROR_SQLSTATE
-- mismatched, NULL-holding and multidimensional arrays
SELECT mm.glicko2_rate((1500, 200, 0.06), '{1500,1600}', '{200}', '{1}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_rate((1500, 200, 0.06), '{1500}', '{200}', '{1,0}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_rate((1500, 200, 0.06), '{1500,NULL}', '{200,200}', '{1,0}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_rate((1500, 200, 0.06), '{{1500}}', '{{200}}', '{{1}}');
\echo :LAST_ERROR_SQLSTATE
-- NaN and infinities
SELECT mm.glicko2_rate(('NaN', 200, 0.06), '{}', '{}', '{}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_rate((1500, 'Infinity', 0.06), '{}', '{}', '{}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_rate((1500, 200, 'NaN'), '{}', '{}', '{}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_rate((1500, 200, 0.06), '{-Infinity}', '{200}', '{1}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_rate((1500, 200, 0.06), '{1500}', '{200}', '{NaN}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_rate((1500, 200, 0.06), '{}', '{}', '{}', 'Infinity');
\echo :LAST_ERROR_SQLSTATE
-- ratings so far apart that every outcome is certain
SELECT mm.glicko2_rate((1500, 200, 0.06), '{1e9}', '{200}', '{1}');
\echo :LAST_ERROR_SQLSTATE
-- idle, expect, effective
SELECT mm.glicko2_idle((1500, 200, 0.06), -1);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_idle((1500, 200, 0.06), 'NaN');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_expect(1500, 0, 1500, 200);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_expect(1500, 200, 'Infinity', 200);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_effective((1500, -1, 0.06));
\echo :LAST_ERROR_SQLSTATE
-- the aggregate: NULL ratings, half-NULL games, a player that changes within a group
SELECT mm.glicko2_period(NULL, 200, 0.06, 1500, 200, 1);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_period(1500, 200, 0.06, 1500, NULL, 1);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_period(1500, 200, 0.06, 1500, 200, 1, NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_period(r, 200, 0.06, 1500, 200, 1) FROM (VALUES (1500), (1600)) v(r);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_period(1500, 200, 0.06, 1500, 200, 2);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_period(1500, 200, 0.06, 1500, 200, 1, 0);
\echo :LAST_ERROR_SQLSTATE
-- support functions fed bad states
SELECT mm.glicko2_period_final('{1,2,3}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_period_final('{1500,200,0.06,0.5,-1,0,1}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_period_final('{1500,-200,0.06,0.5,0,0,0}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_period_combine('{1500,200,0.06,0.5,0,0,0}', '{1600,200,0.06,0.5,0,0,0}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_period_step('{}', 1500, 200, 0.06, 1500, 200, 1);
\echo :LAST_ERROR_SQLSTATE
-- a deviation and volatility so small that phi*^2 underflows: the
-- deviation ends at phi* (0 here), with no division by zero on the way
SELECT mm.glicko2_rate(ROW(1500, 1e-200, 1e-200)::mm.glicko, ARRAY[1400], ARRAY[30], ARRAY[1]);
