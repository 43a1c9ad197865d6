-- OpenSkill: mm.openskill_rate and the predictions (the openskill.js vectors
-- are in openskill_vectors; this file checks the IMS documentation, properties, weights,
-- numerics and every error path).
-- Errors show their message, detail and hint; the SQLSTATE is echoed after each.
\set VERBOSITY default

-- the IMS documentation's sample through openskill_rate: tau 0, kappa = IMS epsilon 0.001
SELECT idx, mu, sigma,
       abs(mu - (ARRAY[35.703050324698204, 32.32732230798585, 29.976699181616407, 27.111629116096374])[idx]) < 1e-12
   AND abs(sigma - (ARRAY[5.065653319815339, 2.8936994946797667, 4.360939109491974, 9.012856163163935])[idx]) < 1e-12 AS seed_within_1e_12
FROM mm.openskill_rate('{1,1,2,2}', '{0,0,1,1}', '{35.0,32.1,30.5,29.5}', '{5.1,2.9,4.4,9.4}',
                       beta => 5, kappa => 0.001, tau => 0);

-- one 1v1 game between newcomers, every model (defaults: beta 25/6, tau 25/300)
SELECT m AS model, idx, round(mu::numeric, 9) AS mu, round(sigma::numeric, 9) AS sigma
FROM unnest(ARRAY['plackett_luce', 'bradley_terry_full', 'bradley_terry_part',
                  'thurstone_mosteller_full', 'thurstone_mosteller_part']) m,
     mm.openskill_rate('{1,2}', '{1,2}', '{25,25}', ARRAY[25.0 / 3, 25.0 / 3], model => m)
ORDER BY 1, 2;

-- properties: the winner gains what the loser loses when both are alike,
-- equal ratings that draw keep their mu, model names are case-insensitive
SELECT m AS model,
       abs((SELECT sum(mu) FROM mm.openskill_rate('{1,2}', '{1,2}', '{25,25}', '{8,8}', model => m)) - 50) < 1e-9 AS zero_sum,
       (SELECT bool_and(abs(mu - 25) < 1e-12) FROM mm.openskill_rate('{1,2}', '{1,1}', '{25,25}', '{8,8}', model => m)) AS draw_keeps_mu,
       (SELECT array_agg(mu ORDER BY idx) FROM mm.openskill_rate('{1,2}', '{1,2}', '{25,25}', '{8,8}', model => upper(m)))
     = (SELECT array_agg(mu ORDER BY idx) FROM mm.openskill_rate('{1,2}', '{1,2}', '{25,25}', '{8,8}', model => m)) AS case_insensitive
FROM unnest(ARRAY['plackett_luce', 'bradley_terry_full', 'bradley_terry_part',
                  'thurstone_mosteller_full', 'thurstone_mosteller_part']) m;

-- team labels need not be 1..n nor sorted; rank values only matter by order
SELECT (SELECT array_agg(mu ORDER BY idx) FROM mm.openskill_rate('{7,7,-3,-3,12}', '{0.5,0.5,10,10,2}', '{20,30,25,27,24}', '{5,6,7,8,3}'))
     = (SELECT array_agg(mu ORDER BY idx) FROM mm.openskill_rate('{1,1,3,3,2}', '{1,1,3,3,2}', '{20,30,25,27,24}', '{5,6,7,8,3}')) AS labels_and_ranks_free;

-- scores instead of ranks: higher score is better, rank = -score
SELECT (SELECT array_agg(mu ORDER BY idx) FROM mm.openskill_rate('{1,2,3}', NULL, '{25,25,25}', '{8,8,8}', score => '{10,30,20}'))
     = (SELECT array_agg(mu ORDER BY idx) FROM mm.openskill_rate('{1,2,3}', '{3,1,2}', '{25,25,25}', '{8,8,8}')) AS score_is_minus_rank;

-- margin: with scores, each mu change grows by 1 + mean log1p(max(0, |diff| - margin))
SELECT round((((SELECT mu FROM mm.openskill_rate('{1,2}', NULL, '{25,25}', '{8,8}', score => '{10,3}', margin => 2) WHERE idx = 1) - 25)
           / ((SELECT mu FROM mm.openskill_rate('{1,2}', NULL, '{25,25}', '{8,8}', score => '{10,3}') WHERE idx = 1) - 25))::numeric, 12) AS margin_factor,
       round((1 + ln(1 + (7 - 2)))::numeric, 12) AS expected;

-- tau widens sigma before the update; limit_sigma keeps sigma from growing
SELECT round(mu::numeric, 9) AS mu, round(sigma::numeric, 9) AS sigma
FROM mm.openskill_rate('{1,2}', '{1,2}', '{25,25}', '{1,1}', tau => 2);
SELECT bool_and(sigma <= 1) AS limited
FROM mm.openskill_rate('{1,2}', '{1,2}', '{25,25}', '{1,1}', tau => 2, limit_sigma => true);
SELECT round(sigma::numeric, 9) AS sigma_floor_kappa
FROM mm.openskill_rate('{1,2}', '{1,2}', '{25,25}', '{100,1}', kappa => 0.25, tau => 0) WHERE idx = 1;

-- balance: weaker players count more in the team sums (z, alpha, target)
SELECT (SELECT array_agg(round(mu::numeric, 9) ORDER BY idx) FROM mm.openskill_rate('{1,1,2,2}', '{1,1,2,2}', '{30,20,25,25}', '{3,3,3,3}', balance => true))
    <> (SELECT array_agg(round(mu::numeric, 9) ORDER BY idx) FROM mm.openskill_rate('{1,1,2,2}', '{1,1,2,2}', '{30,20,25,25}', '{3,3,3,3}')) AS balance_changes_result;

-- numerics: Plackett-Luce in log-sum-exp form is finite at mu = 15000
-- (openskill.js gives NaN there) and, like every model, depends only on mu
-- differences between teams (shift every player of equal-size teams)
SELECT m AS model,
       (SELECT bool_and(abs((a.mu - 15000) - b.mu) < 1e-9 AND abs(a.sigma - b.sigma) < 1e-12)
        FROM mm.openskill_rate('{1,1,2,2,3,3}', '{1,1,2,2,3,3}', '{15025,15030,15020,15010,15040,15022}', '{8,3,5,7,2,4}', model => m) a
        JOIN mm.openskill_rate('{1,1,2,2,3,3}', '{1,1,2,2,3,3}', '{25,30,20,10,40,22}', '{8,3,5,7,2,4}', model => m) b USING (idx)) AS shift_invariant
FROM unnest(ARRAY['plackett_luce', 'bradley_terry_full', 'bradley_terry_part',
                  'thurstone_mosteller_full', 'thurstone_mosteller_part']) m;
-- a huge upset stays finite in every model, even at the ends of float8
SELECT m AS model, bool_and(abs(mu) < 'Infinity' AND sigma > 0 AND sigma < 'Infinity') AS finite
FROM unnest(ARRAY['plackett_luce', 'bradley_terry_full', 'bradley_terry_part',
                  'thurstone_mosteller_full', 'thurstone_mosteller_part']) m,
     mm.openskill_rate('{1,2}', '{1,2}', '{-1e300,1e300}', '{8,8}', model => m)
GROUP BY m ORDER BY m;
SELECT m AS model, bool_and(mu = mu AND sigma > 0 AND sigma < 'Infinity') AS finite
FROM unnest(ARRAY['plackett_luce', 'bradley_terry_full', 'bradley_terry_part',
                  'thurstone_mosteller_full', 'thurstone_mosteller_part']) m,
     mm.openskill_rate('{1,2,3}', '{1,2,3}', '{-1e6,0,1e6}', '{0.01,1000,0.5}', model => m)
GROUP BY m ORDER BY m;
-- a result that would be NaN is an error, never returned (balance with
-- every ordinal at -kappa divides 0 by 0)
SELECT * FROM mm.openskill_rate('{1,1,2}', '{1,1,2}', '{25,25,25}', '{8,8,8}', balance => true, alpha => 0, target => -0.0001);
\echo :LAST_ERROR_SQLSTATE

-- 2000 random games with extreme inputs (mu up to 1e10, sigma from 1e-6 to
-- 1e6, beta from 1e-3 to 1e3, all models and options): every result is
-- finite with sigma > 0, or an error; never NaN or infinity
CREATE FUNCTION os_fuzz(games int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  n int; k int; t int[]; r float8[]; mu float8[]; sg float8[]; w float8[];
  ok int := 0; err int := 0; bad int := 0; rec record;
  models text[] := ARRAY['plackett_luce', 'bradley_terry_full', 'bradley_terry_part',
                         'thurstone_mosteller_full', 'thurstone_mosteller_part'];
BEGIN
  PERFORM setseed(0.1);
  FOR i IN 1..games LOOP
    n := 2 + floor(random() * 9)::int;
    k := 2 + floor(random() * (n - 1))::int;
    SELECT array_agg(1 + (j % k)), array_agg(((1 + (j % k)) * 7 % 5)::float8),
           array_agg((random() - 0.5) * 10 ^ (random() * 12 - 2)), array_agg(10 ^ (random() * 12 - 6)),
           array_agg(CASE WHEN random() < 0.5 THEN random() * 10 ELSE 0 END)
      INTO t, r, mu, sg, w FROM generate_series(0, n - 1) j;
    BEGIN
      FOR rec IN SELECT * FROM mm.openskill_rate(t, r, mu, sg, model => models[1 + i % 5],
            beta => 10 ^ (random() * 6 - 3), kappa => 10 ^ (random() * 6 - 8), tau => random(),
            limit_sigma => random() < 0.5, balance => random() < 0.3, epsilon => 10 ^ (random() * 4 - 3),
            weight => CASE WHEN random() < 0.5 THEN w END) LOOP
        IF NOT (abs(rec.mu) < 'Infinity' AND rec.sigma > 0 AND rec.sigma < 'Infinity') THEN
          bad := bad + 1;
        END IF;
      END LOOP;
      FOR rec IN SELECT probability AS p FROM mm.openskill_predict_win(t, mu, sg, 10 ^ (random() * 6 - 3))
                 UNION ALL SELECT mm.openskill_predict_draw(t, mu, sg, 10 ^ (random() * 6 - 3)) LOOP
        IF NOT (rec.p >= 0 AND rec.p <= 1) THEN
          bad := bad + 1;
        END IF;
      END LOOP;
      ok := ok + 1;
    EXCEPTION WHEN numeric_value_out_of_range THEN
      err := err + 1;
    END;
  END LOOP;
  RETURN format('%s games: %s rated, %s out-of-range errors, %s NaN/infinite/invalid results', games, ok, err, bad);
END $$;
SELECT os_fuzz(2000);
DROP FUNCTION os_fuzz(int);

-- the inverse normal CDF (Acklam + Halley): round trips and known quantiles
SELECT round(mm.normal_quantile(0.975)::numeric, 12) AS q975,
       round(mm.normal_quantile(0.5)::numeric, 12) AS q50,
       round(mm.normal_quantile(1e-10)::numeric, 9) AS q1e_10,
       round(mm.normal_quantile(1 - 1e-12)::numeric, 9) AS q1_1e_12,
       mm.normal_quantile(1e-300) < -37 AS deep_tail;

-- per-player weights (openskill.py >= 6): normalised per team into [1, 2];
-- weight 1 everywhere (or any constant) is the unweighted update
SELECT m AS model,
       (SELECT array_agg(mu ORDER BY idx) FROM mm.openskill_rate('{1,1,2,2,3}', '{1,1,2,2,3}', '{25,28,22,26,30}', '{8,4,6,3,5}', model => m, weight => '{1,1,1,1,1}'))
     = (SELECT array_agg(mu ORDER BY idx) FROM mm.openskill_rate('{1,1,2,2,3}', '{1,1,2,2,3}', '{25,28,22,26,30}', '{8,4,6,3,5}', model => m)) AS ones_unweighted,
       (SELECT array_agg(sigma ORDER BY idx) FROM mm.openskill_rate('{1,1,2,2,3}', '{1,1,2,2,3}', '{25,28,22,26,30}', '{8,4,6,3,5}', model => m, weight => '{7,7,0.5,0.5,3}'))
     = (SELECT array_agg(sigma ORDER BY idx) FROM mm.openskill_rate('{1,1,2,2,3}', '{1,1,2,2,3}', '{25,28,22,26,30}', '{8,4,6,3,5}', model => m)) AS constants_unweighted
FROM unnest(ARRAY['plackett_luce', 'bradley_terry_full', 'bradley_terry_part',
                  'thurstone_mosteller_full', 'thurstone_mosteller_part']) m;
-- derived case, 2v2: winners weighted {1, 3} -> {1, 2}: the heavier winner's
-- mu change doubles and its sigma shrink term 1 - (s'/s)^2 doubles; losers
-- weighted {2, 0} -> {2, 1}: the heavier loser's mu change halves
WITH u AS (SELECT * FROM mm.openskill_rate('{1,1,2,2}', '{1,1,2,2}', '{25,25,25,25}', '{8,8,8,8}', tau => 0)),
     w AS (SELECT * FROM mm.openskill_rate('{1,1,2,2}', '{1,1,2,2}', '{25,25,25,25}', '{8,8,8,8}', tau => 0, weight => '{1,3,2,0}'))
SELECT idx, round(((w.mu - 25) / (u.mu - 25))::numeric, 12) AS mu_change_ratio,
       round(((1 - (w.sigma / 8) ^ 2) / (1 - (u.sigma / 8) ^ 2))::numeric, 12) AS sigma_shrink_ratio
FROM u JOIN w USING (idx) ORDER BY idx;
-- weights are scale-free inside a team; a one-player team ignores its weight
SELECT (SELECT array_agg(mu ORDER BY idx) FROM mm.openskill_rate('{1,1,2}', '{1,1,2}', '{25,25,25}', '{8,8,8}', weight => '{1,3,9}'))
     = (SELECT array_agg(mu ORDER BY idx) FROM mm.openskill_rate('{1,1,2}', '{1,1,2}', '{25,25,25}', '{8,8,8}', weight => '{10,30,0}')) AS scale_free,
       (SELECT mu FROM mm.openskill_rate('{1,1,2}', '{1,1,2}', '{25,25,25}', '{8,8,8}', weight => '{1,3,9}') WHERE idx = 3)
     = (SELECT mu FROM mm.openskill_rate('{1,1,2}', '{1,1,2}', '{25,25,25}', '{8,8,8}') WHERE idx = 3) AS solo_ignores_weight;

-- predictions
SELECT team, round(probability::numeric, 12) AS probability
FROM mm.openskill_predict_win('{1,1,2,2}', '{30,25,25,25}', '{3,3,3,3}');
SELECT team, rank, round(probability::numeric, 12) AS probability
FROM mm.openskill_predict_rank('{5,9,5,2}', '{30,25,20,25}', '{3,3,3,3}');
SELECT round(mm.openskill_predict_draw('{1,2}', '{25,25}', '{8,8}')::numeric, 12) AS draw_equal,
       mm.openskill_predict_draw('{1,2}', '{25,25}', '{8,8}') > mm.openskill_predict_draw('{1,2}', '{25,40}', '{8,8}') AS draw_less_likely_when_uneven;

-- the functions are immutable and parallel safe
SELECT proname, provolatile, proparallel FROM pg_proc
WHERE pronamespace = 'mm'::regnamespace AND proname LIKE 'openskill%' ORDER BY proname;

-- backend pattern: rate a finished match and update the ratings in one statement
CREATE TABLE os_players (player_id bigint PRIMARY KEY, mu float8 NOT NULL DEFAULT 25, sigma float8 NOT NULL DEFAULT 25.0 / 3);
CREATE TABLE os_results (match_id bigint, player_id bigint, team int, rank int);
INSERT INTO os_players (player_id) SELECT generate_series(1, 4);
INSERT INTO os_results VALUES (1, 1, 1, 1), (1, 2, 1, 1), (1, 3, 2, 2), (1, 4, 2, 2);
WITH m AS (
  SELECT array_agg(r.player_id ORDER BY r.player_id) AS ids, array_agg(r.team ORDER BY r.player_id) AS team,
         array_agg(r.rank::float8 ORDER BY r.player_id) AS rank,
         array_agg(p.mu ORDER BY r.player_id) AS mu, array_agg(p.sigma ORDER BY r.player_id) AS sigma
  FROM os_results r JOIN os_players p USING (player_id) WHERE r.match_id = 1)
UPDATE os_players p SET mu = n.mu, sigma = n.sigma
FROM m, mm.openskill_rate(m.team, m.rank, m.mu, m.sigma) n
WHERE p.player_id = m.ids[n.idx];
SELECT player_id, round(mu::numeric, 9) AS mu, round(sigma::numeric, 9) AS sigma FROM os_players ORDER BY player_id;
DROP TABLE os_players, os_results;

-- errors
SELECT * FROM mm.openskill_rate('{1,2}', '{1,2}', '{25}', '{8,8}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_rate('{1,2}', '{1}', '{25,25}', '{8,8}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_rate('{1,2}', '{1,2}', '{25,25}', '{8,8}', weight => '{1}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_rate('{}', '{}', '{}', '{}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_rate('{1,NULL}', '{1,2}', '{25,25}', '{8,8}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_rate('{1,2}', '{1,2}', '{25,NULL}', '{8,8}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_rate('{1,2}', '{{1,2}}', '{25,25}', '{8,8}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_rate('{1,2}', '{1,2}', '{NaN,25}', '{8,8}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_rate('{1,2}', '{1,2}', '{25,Infinity}', '{8,8}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_rate('{1,2}', '{1,-Infinity}', '{25,25}', '{8,8}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_rate('{1,2}', '{1,2}', '{25,25}', '{8,0}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_rate('{1,2}', '{1,2}', '{25,25}', '{-8,8}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_rate('{1,2}', '{1,2}', '{25,25}', '{8,NaN}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_rate('{1,2}', '{1,2}', '{25,25}', '{8,8}', beta => 0);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_rate('{1,2}', '{1,2}', '{25,25}', '{8,8}', beta => 'NaN');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_rate('{1,2}', '{1,2}', '{25,25}', '{8,8}', kappa => 0);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_rate('{1,2}', '{1,2}', '{25,25}', '{8,8}', tau => -0.1);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_rate('{1,2}', '{1,2}', '{25,25}', '{8,8}', epsilon => 0);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_rate('{1,2}', '{1,2}', '{25,25}', '{8,8}', margin => -1);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_rate('{1,2}', '{1,2}', '{25,25}', '{8,8}', z => 'Infinity');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_rate('{1,1}', '{1,1}', '{25,25}', '{8,8}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_rate('{1,1,2}', '{1,2,3}', '{25,25,25}', '{8,8,8}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_rate('{1,1,2}', NULL, '{25,25,25}', '{8,8,8}', score => '{1,2,3}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_rate('{1,2}', '{1,2}', '{25,25}', '{8,8}', model => 'elo');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_rate('{1,2}', '{1,2}', '{25,25}', '{8,8}', weight => '{1,-1}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_rate('{1,2}', '{1,2}', '{25,25}', '{8,8}', weight => '{1,NaN}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_rate('{1,2}', NULL, '{25,25}', '{8,8}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_rate(NULL, '{1,2}', '{25,25}', '{8,8}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_rate('{1,2}', '{1,2}', '{25,25}', '{8,8}', model => NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_predict_win('{1}', '{25}', '{8}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_predict_win('{1,2}', '{25,25}', '{8,8}', 0);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_predict_rank('{1,2}', '{25}', '{8,8}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.openskill_predict_draw('{1,2}', '{25,25}', '{8,-8}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.normal_quantile(0);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.normal_quantile(1.5);
\echo :LAST_ERROR_SQLSTATE
