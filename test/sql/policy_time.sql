-- The Glicko-2 policy means the same in every session: "reset" is ISO 8601
-- with an explicit UTC offset (nothing that DateStyle, TimeZone or the clock
-- could change), "period" has no minus sign (IntervalStyle), and tau left
-- out is the policy's system_constant; the dishonor config's durations
-- likewise. test/suites/datestyle.sh runs this file and the other Glicko-2
-- tests under other DateStyles, TimeZones and IntervalStyles.
\set VERBOSITY terse

-- the accepted forms of one instant, 2020-01-01 00:00:00 UTC: a rating last
-- updated a second before it and read at it goes back to the default (1500);
-- read half a second before it, it stays
SELECT r.reset,
       (mm.glicko2_rating_at((1700, 50, 0.05), '2019-12-31 23:59:59+00', '2020-01-01 00:00:00+00',
                             jsonb_build_object('reset', r.reset, 'max_periods', NULL))).rating AS at_reset,
       (mm.glicko2_rating_at((1700, 50, 0.05), '2019-12-31 23:59:59+00', '2019-12-31 23:59:59.5+00',
                             jsonb_build_object('reset', r.reset, 'max_periods', NULL))).rating AS before_reset
FROM (VALUES ('2020-01-01 00:00:00+00'), ('2020-01-01T00:00:00Z'), ('2020-01-01t00:00z'),
             ('2020-01-01 00:00+00:00'), ('2020-01-01 05:30:00+05:30'), ('2020-01-01 05:30+0530'),
             ('2019-12-31 19:00:00-05'), ('2019-12-31 23:59:59.9999+00')) AS r(reset)
ORDER BY 1;
-- a reset of 23:59:59.9999 lies between the two reads
SELECT (mm.glicko2_rating_at((1700, 50, 0.05), '2019-12-31 23:59:59+00', '2019-12-31 23:59:59.99+00',
                             '{"reset": "2019-12-31 23:59:59.9999+00", "max_periods": null}')).rating AS not_yet,
       (mm.glicko2_rating_at((1700, 50, 0.05), '2019-12-31 23:59:59+00', '2019-12-31 23:59:59.99995+00',
                             '{"reset": "2019-12-31 23:59:59.9999+00", "max_periods": null}')).rating AS reset;

-- refused: what DateStyle, TimeZone or the clock would decide, and
-- impossible dates and offsets
-- (read with the session's settings, these two would give 1500 in one
-- session and 1700 in another: no offset, and day and month swapped)
SELECT mm.glicko2_rating_at((1700, 50, 0.05), '2014-01-14 20:00+00', '2014-01-15 02:00+00',
                            '{"reset": "2014-01-15 00:00:00", "max_periods": null}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_rating_at((1700, 50, 0.05), '2014-01-01 12:00+00', '2014-01-15 00:00+00',
                            '{"reset": "01/02/2014 00:00:00+00", "max_periods": null}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_policy('{"reset": "2014-02-01"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_policy('{"reset": "now"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_policy('{"reset": "today"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_policy('{"reset": "epoch"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_policy('{"reset": "2014-02-01 00:00:00 Europe/Paris"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_policy('{"reset": "2014-02-30 00:00:00+00"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_policy('{"reset": "2014-02-01 24:00:00+00"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_policy('{"reset": "2014-02-01 00:00:60+00"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_policy('{"reset": "2014-02-01 00:00:00+16"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_policy('{"reset": "2014-02-01 00:00:00+05:"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_policy('{"reset": "2014-02-01 00:00:00.1234567+00"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_policy('{"reset": " 2014-02-01 00:00:00+00"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_policy('{"reset": "2014-02-01 00:00:00+00 "}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_policy('{"reset": "0000-01-01 00:00:00+00"}');
\echo :LAST_ERROR_SQLSTATE
-- the same refusal in every function that reads a policy
SELECT mm.glicko2_rate((1500, 200, 0.06), '{}', '{}', '{}', policy => '{"reset": "now"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_idle((1500, 200, 0.06), 1, '{"reset": "now"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_blend((1500, 200, 0.06), (1600, 200, 0.06), '{"reset": "now"}');
\echo :LAST_ERROR_SQLSTATE

-- period: a minus sign reads differently under IntervalStyle sql_standard
SELECT mm.glicko2_policy('{"period": "-1 30:00:00"}');
\echo :LAST_ERROR_SQLSTATE
SELECT (mm.glicko2_policy('{"period": "P3D"}')) ->> 'period' AS iso_period;
-- the same for the dishonor config's durations: "-1 30:00:00" was +6 hours
-- in one session and an error in another
SELECT mm.dishonor_config_resolve('{"stack_duration": "-1 30:00:00"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.dishonor_config_resolve('{"stack_duration": "PT10M"}') ->> 'stack_duration' AS iso_duration;

-- tau: left out (or NULL) is the policy's system_constant, 0.5 without one
SELECT round((mm.glicko2_rate((1500, 200, 0.06), '{1400,1550,1700}', '{30,100,300}', '{1,0,0}',
                              policy => '{"volatility": {"system_constant": 0.3}}')).vol::numeric, 12) AS policy_tau,
       round((mm.glicko2_rate((1500, 200, 0.06), '{1400,1550,1700}', '{30,100,300}', '{1,0,0}', 0.3,
                              '{"volatility": {"system_constant": 0.3}}')).vol::numeric, 12) AS same_tau,
       round((mm.glicko2_rate((1500, 200, 0.06), '{1400,1550,1700}', '{30,100,300}', '{1,0,0}')).vol::numeric, 12) AS default_tau,
       round((mm.glicko2_rate((1500, 200, 0.06), '{1400,1550,1700}', '{30,100,300}', '{1,0,0}', 0.5)).vol::numeric, 12) AS half;
SELECT mm.glicko2_rate((1500, 200, 0.06), '{1400}', '{30}', '{1}', 0.4, '{"volatility": {"system_constant": 0.3}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_rate((1500, 200, 0.06), '{1400}', '{30}', '{1}', 'NaN');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_rate((1500, 200, 0.06), '{1400}', '{30}', '{1}', 'Infinity');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_rate(NULL, '{1400}', '{30}', '{1}') IS NULL AS null_player;

-- the values do not move with DateStyle, TimeZone or IntervalStyle
CREATE TEMP TABLE policy_values (setting text, v text);
\set values 'INSERT INTO policy_values SELECT current_setting(''DateStyle'') || '' '' || current_setting(''TimeZone''), concat_ws('' '', (mm.glicko2_rating_at((1700, 50, 0.05), ''2014-01-31 23:00:00+00'', ''2014-02-01 00:30:00+00'')).rating, (mm.glicko2_rating_at((1700, 50, 0.05), ''2014-01-31 23:00:00+00'', ''2014-01-31 23:30:00+00'')).rating, round((mm.glicko2_idle((1500, 100, 0.06), 3, ''{"period": "12 hours"}'')).rd::numeric, 9), round((mm.glicko2_rate((1500, 200, 0.06), ''{1400}'', ''{30}'', ''{1}'', policy => ''{"reset": "2014-02-01T00:00:00+01:00"}'')).rating::numeric, 9), mm.glicko2_policy(''{"reset": "2014-02-01 00:00:00+00"}'') ->> ''reset'')'
:values;
SET DateStyle = 'SQL, DMY';
SET TimeZone = 'Asia/Kathmandu';
:values;
SET DateStyle = 'German';
SET TimeZone = 'America/St_Johns';
SET IntervalStyle = 'sql_standard';
:values;
RESET DateStyle;
RESET TimeZone;
RESET IntervalStyle;
SELECT count(*) AS settings, count(DISTINCT v) AS distinct_values, min(v) AS v FROM policy_values;
DROP TABLE policy_values;
