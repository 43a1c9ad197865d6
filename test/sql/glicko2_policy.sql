-- Glicko-2 with the GW2 rating policy (the Guild Wars 2 wiki's PvP matchmaking page, "Ratings"): defaults,
-- clamps, max change, idle growth, reset, profession ratio, policy errors.
\set VERBOSITY default

-- The defaults are the Guild Wars 2 wiki's configuration, keys in snake_case.
SELECT jsonb_pretty(mm.glicko2_policy());
-- a partial policy keeps the other defaults; null switches a rule off
SELECT mm.glicko2_policy('{"rating": {"max": 3000}, "max_periods": null, "reset": null}')
       #> '{rating}' AS rating_keys,
       mm.glicko2_policy('{"rating": {"max": 3000}, "max_periods": null, "reset": null}')
       -> 'max_periods' AS max_periods;

-- rating.max and rating.min clamp after the update
SELECT (mm.glicko2_rate((4950, 200, 0.06), '{4950,4950,4950}', '{50,50,50}', '{1,1,1}')).rating > 5000 AS plain_above_max,
       (mm.glicko2_rate((4950, 200, 0.06), '{4950,4950,4950}', '{50,50,50}', '{1,1,1}', policy => '{}')).rating AS clamped_to_max;
SELECT (mm.glicko2_rate((150, 200, 0.06), '{150,150,150}', '{50,50,50}', '{0,0,0}')).rating < 100 AS plain_below_min,
       (mm.glicko2_rate((150, 200, 0.06), '{150,150,150}', '{50,50,50}', '{0,0,0}', policy => '{}')).rating AS clamped_to_min;

-- rating.max_change: at most 300 per game; 4 games may move 1200
SELECT round((mm.glicko2_rate((1500, 350, 0.06), '{2500}', '{30}', '{1}')).rating::numeric, 2) AS plain,
       (mm.glicko2_rate((1500, 350, 0.06), '{2500}', '{30}', '{1}', policy => '{}')).rating AS limited,
       (mm.glicko2_rate((1500, 350, 0.06), '{2500}', '{30}', '{0}', policy => '{"rating": {"max_change": 0.5}}')).rating AS limited_loss,
       (mm.glicko2_rate((1500, 350, 0.06), '{2500,2500,2500,2500}', '{30,30,30,30}', '{1,1,1,1}',
                        policy => '{"rating": {"max_change": 100}}')).rating AS four_games_400;
-- max_change null: no limit
SELECT mm.glicko2_rate((1500, 350, 0.06), '{2500}', '{30}', '{1}', policy => '{"rating": {"max_change": null}}') =
       mm.glicko2_rate((1500, 350, 0.06), '{2500}', '{30}', '{1}') AS unlimited_is_plain;

-- deviation.min / deviation.max clamp
SELECT round((mm.glicko2_rate((1500, 50, 0.06), '{1500,1500,1500,1500}', '{30,30,30,30}', '{0.5,0.5,0.5,0.5}')).rd::numeric, 4) AS plain_rd,
       (mm.glicko2_rate((1500, 50, 0.06), '{1500,1500,1500,1500}', '{30,30,30,30}', '{0.5,0.5,0.5,0.5}',
                        policy => '{"deviation": {"min": 60, "default": 350}}')).rd AS clamped_to_min;
SELECT (mm.glicko2_rate((1500, 349.9, 0.08), '{}', '{}', '{}')).rd > 350 AS plain_above_max,
       (mm.glicko2_rate((1500, 349.9, 0.08), '{}', '{}', '{}', policy => '{"max_periods": null}')).rd AS clamped_to_max;

-- volatility.min / volatility.max clamp
SELECT round((mm.glicko2_rate((1500, 100, 0.06), '{2300,2300,2300,2300}', '{30,30,30,30}', '{1,1,1,1}')).vol::numeric, 6) AS plain_vol,
       (mm.glicko2_rate((1500, 100, 0.06), '{2300,2300,2300,2300}', '{30,30,30,30}', '{1,1,1,1}',
                        policy => '{"volatility": {"max": 0.0601}, "rating": {"max_change": null}}')).vol AS clamped_to_max;
SELECT round((mm.glicko2_rate((1500, 50, 0.06), '{1500,1500,1500,1500}', '{30,30,30,30}', '{0.5,0.5,0.5,0.5}')).vol::numeric, 6) AS plain_vol,
       (mm.glicko2_rate((1500, 50, 0.06), '{1500,1500,1500,1500}', '{30,30,30,30}', '{0.5,0.5,0.5,0.5}',
                        policy => '{"volatility": {"min": 0.05999}}')).vol AS clamped_to_min;

-- with a policy, NULL fields of the player are the policy's defaults
SELECT mm.glicko2_rate((NULL, NULL, NULL), '{}', '{}', '{}',
                       policy => '{"rating": {"default": 1200}, "deviation": {"default": 250}, "volatility": {"default": 0.05}}') AS new_player_idle;

-- tau: the policy's volatility.system_constant, which must agree with the tau argument
SELECT mm.glicko2_rate((1500, 200, 0.06), '{1400}', '{30}', '{1}', 0.3, '{"volatility": {"system_constant": 0.3}}') =
       mm.glicko2_rate((1500, 200, 0.06), '{1400}', '{30}', '{1}', 0.3, '{}') AS same_tau;

-- Idle growth. Without a policy: Glickman's step 6, t times. With
-- max_periods N: RD' = min(max, sqrt(RD^2 + t (max^2 - min^2) / N)), so a
-- deviation goes from min to max in N periods.
SELECT (mm.glicko2_idle((1500, 30, 0.06), 20, '{}')).rd AS min_to_max_in_20,
       round((mm.glicko2_idle((1500, 30, 0.06), 10, '{}')).rd::numeric, 9) AS after_10,
       round(sqrt(30^2 + 10 * (350^2 - 30^2) / 20.0)::numeric, 9) AS formula_10,
       (mm.glicko2_idle((1500, 30, 0.06), 40, '{}')).rd AS capped,
       (mm.glicko2_idle((1500, 30, 0.06), 5, '{"max_periods": 5}')).rd AS n5_in_5;
-- with max_periods null, Glickman's growth within the deviation range
SELECT round((mm.glicko2_idle((1500, 100, 0.06), 4, '{"max_periods": null}')).rd::numeric, 9) AS glickman_growth,
       round((mm.glicko2_idle((1500, 100, 0.06), 4)).rd::numeric, 9) AS no_policy;
-- a period without games under a policy is one idle period of its rule
SELECT mm.glicko2_rate((1500, 30, 0.06), '{}', '{}', '{}', policy => '{}') =
       mm.glicko2_idle((1500, 30, 0.06), 1, '{}') AS idle_period_is_policy_idle;

-- Rating as of a time: whole periods elapsed (period "3d") grow the deviation;
-- a rating last updated before reset (2014-02-01) reads as the default.
SELECT mm.glicko2_rating_at((1700, 50, 0.05), '2014-03-01 00:00+00', '2014-03-07 23:00+00', '{}') =
       mm.glicko2_idle((1700, 50, 0.05), 2, '{}') AS two_periods,
       mm.glicko2_rating_at((1700, 50, 0.05), '2014-03-01 00:00+00', '2014-03-03 23:59+00', '{}') =
       ROW(1700, 50, 0.05)::mm.glicko AS less_than_a_period;
SELECT mm.glicko2_rating_at((1700, 50, 0.05), '2014-01-15 00:00+00', '2014-03-01 00:00+00') AS reset_to_default,
       mm.glicko2_rating_at((1700, 50, 0.05), '2014-01-15 00:00+00', '2014-01-20 00:00+00') AS before_reset,
       mm.glicko2_rating_at((1700, 50, 0.05), '2014-01-15 00:00+00', '2014-03-01 00:00+00',
                            '{"reset": null, "max_periods": null}') AS no_reset;
SELECT mm.glicko2_rating_at((1700, 50, 0.05), '2020-01-01 00:00+00', '2020-01-01 12:00+00',
                            '{"period": "1 hour", "max_periods": 12, "reset": "2019-06-01T00:00:00Z"}') AS hourly_periods;
-- rating_at is stable (it reads timestamps), the rest immutable
SELECT p.oid::regprocedure AS fn, p.provolatile
FROM pg_proc p WHERE p.pronamespace = 'mm'::regnamespace AND p.proname LIKE 'glicko2%'
  AND p.proname NOT LIKE 'glicko2_period%' ORDER BY 1;

-- Profession ratio: 0 the core rating, 1 the profession rating, between a blend
SELECT mm.glicko2_blend((1600, 60, 0.05), (1400, 200, 0.07)) AS core_only,
       mm.glicko2_blend((1600, 60, 0.05), (1400, 200, 0.07), '{"rating": {"profession_ratio": 1}}') AS profession_only,
       (SELECT (b.rating, b.rd, round(b.vol::numeric, 12))::text FROM mm.glicko2_blend((1600, 60, 0.05), (1400, 200, 0.07), '{"rating": {"profession_ratio": 0.25}}') b) AS quarter;

-- Effective rating of a blended rating
SELECT mm.glicko2_effective(mm.glicko2_blend((1600, 60, 0.05), (1400, 200, 0.07), '{"rating": {"profession_ratio": 0.5}}')) AS effective;

-- errors: tau and the policy disagree
SELECT mm.glicko2_rate((1500, 200, 0.06), '{1400}', '{30}', '{1}', 0.5, '{"volatility": {"system_constant": 0.3}}');
\echo :LAST_ERROR_SQLSTATE
-- errors: unknown keys, top level and nested
SELECT mm.glicko2_policy('{"periods": "3d"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_rate((1500, 200, 0.06), '{}', '{}', '{}', policy => '{"rating": {"maximum": 3000}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_idle((1500, 200, 0.06), 1, '{"type": "Ranked"}');
\echo :LAST_ERROR_SQLSTATE
-- errors: wrong types and values out of range
SELECT mm.glicko2_policy('[1, 2]');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_policy('{"max_periods": "20"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_policy('{"max_periods": 0}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_policy('{"max_periods": 2.5}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_policy('{"rating": 1500}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_policy('{"rating": {"profession_ratio": 1.5}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_policy('{"rating": {"max_change": 0}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_policy('{"deviation": {"min": 0}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_policy('{"volatility": {"system_constant": -1}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_policy('{"rating": {"default": null}}');
\echo :LAST_ERROR_SQLSTATE
-- errors: ranges that contradict themselves
SELECT mm.glicko2_policy('{"rating": {"min": 3000, "max": 2000}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_policy('{"rating": {"default": 50}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_policy('{"deviation": {"min": 400}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_policy('{"volatility": {"default": 0.1}}');
\echo :LAST_ERROR_SQLSTATE
-- errors: period and reset
SELECT mm.glicko2_policy('{"period": "3 fortnights"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_policy('{"period": "0 days"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_policy('{"period": "-3d"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_policy('{"reset": "the first of february"}');
\echo :LAST_ERROR_SQLSTATE
-- errors: rating_at before the last update, infinite times
SELECT mm.glicko2_rating_at((1700, 50, 0.05), '2014-03-01 00:00+00', '2014-02-01 00:00+00');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_rating_at((1700, 50, 0.05), '-infinity', '2014-02-01 00:00+00');
\echo :LAST_ERROR_SQLSTATE
-- errors: blend of an invalid rating
SELECT mm.glicko2_blend((1600, 60, 0.05), (1400, 0, 0.07));
\echo :LAST_ERROR_SQLSTATE
