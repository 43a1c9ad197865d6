-- GW2 ladder points (the Guild Wars 2 wiki's PvP matchmaking page, "Ladder": getPoints, processGame) with the
-- the GW2 wiki's <Ladder default="0" min="0" max="1000000" leaderboard-points="1">
-- and its five odds matrices.
\set VERBOSITY default

-- The default config mirrors the XML.
SELECT jsonb_pretty(mm.ladder_config_defaults() - 'matrix') AS plain_keys;
SELECT m->'odds' AS odds, m->'scores' AS scores
FROM jsonb_array_elements(mm.ladder_config_defaults()->'matrix') m;

-- getPoints by hand: the matrix with the highest odds <= the team's odds,
-- then the score with the highest min <= the final score.
--   odds 0.00, score   0 -> matrix 0.0, min 0   -> -1
--   odds 0.19, score 199 -> matrix 0.0, min 0   -> -1
--   odds 0.19, score 200 -> matrix 0.0, min 200 ->  0
--   odds 0.19, score 500 -> matrix 0.0, min 500 ->  3
--   odds 0.20, score 299 -> matrix 0.2, min 0   -> -1
--   odds 0.20, score 300 -> matrix 0.2, min 300 ->  0
--   odds 0.39, score 450 -> matrix 0.2, min 400 ->  1
--   odds 0.40, score 450 -> matrix 0.4, min 400 ->  0
--   odds 0.50, score 500 -> matrix 0.4, min 500 ->  1
--   odds 0.60, score 299 -> matrix 0.6, min 0   -> -2
--   odds 0.79, score 350 -> matrix 0.6, min 300 -> -1
--   odds 0.80, score 199 -> matrix 0.8, min 0   -> -3
--   odds 0.80, score 200 -> matrix 0.8, min 200 -> -2
--   odds 0.95, score 420 -> matrix 0.8, min 400 ->  0
--   odds 1.00, score 999 -> matrix 0.8, min 500 ->  1
-- A victory earns at least 1 (max(1, points)); a desertion scores as a
-- final score of 0 (-1, -1, -2 or -3 by matrix).
SELECT odds, score,
       mm.ladder_points(odds, score, 'defeat') AS defeat,
       mm.ladder_points(odds, score, 'victory') AS victory,
       mm.ladder_points(odds, score, 'desertion') AS desertion
FROM (VALUES (0.00, 0), (0.19, 199), (0.19, 200), (0.19, 500), (0.20, 299),
             (0.20, 300), (0.39, 450), (0.40, 450), (0.50, 500), (0.60, 299),
             (0.79, 350), (0.80, 199), (0.80, 200), (0.95, 420), (1.00, 999)) g(odds, score);

-- The odds come from the match prediction: prediction 0.5 gives blue 0.75
-- (matrix 0.6) and red 0.25 (matrix 0.2). With 400 points each, blue's
-- defeat is 0 and red's is 1.
SELECT mm.ladder_points(mm.odds_of_victory(0.5, 'blue'), 400, 'defeat') AS blue,
       mm.ladder_points(mm.odds_of_victory(0.5, 'red'), 400, 'defeat') AS red;

-- The season: start included, end excluded; outside it every game scores
-- 0, a victory too.
SELECT at, mm.ladder_points(0.5, 500, 'victory', s, at) AS victory,
       mm.ladder_points(0.9, 0, 'defeat', s, at) AS defeat
FROM (VALUES ('{"start": "2014-11-12 00:00+00", "end": "2014-11-30 00:00+00"}'::jsonb)) c(s),
     (VALUES ('2014-11-11 23:59:59+00'::timestamptz), ('2014-11-12 00:00+00'),
             ('2014-11-29 23:59:59+00'), ('2014-11-30 00:00+00')) t(at);
-- Only a start, or only an end.
SELECT mm.ladder_points(0.5, 500, 'defeat', '{"start": "2030-01-01 00:00+00"}', '2029-12-31 00:00+00') AS before_start,
       mm.ladder_points(0.5, 500, 'defeat', '{"start": "2030-01-01 00:00+00"}', '2031-01-01 00:00+00') AS after_start,
       mm.ladder_points(0.5, 500, 'defeat', '{"end": "2030-01-01 00:00+00"}', '2029-12-31 00:00+00') AS before_end,
       mm.ladder_points(0.5, 500, 'defeat', '{"end": "2030-01-01 00:00+00"}', '2030-01-01 00:00+00') AS at_end;

-- A custom matrix replaces the default one (keys mirror the XML).
SELECT odds, score, mm.ladder_points(odds, score, 'defeat',
    '{"matrix": [{"odds": 0, "scores": [{"min": 0, "points": -5}, {"min": 100, "points": 5}]},
                 {"odds": 0.5, "scores": [{"min": 0, "points": -10}, {"min": 250.5, "points": 2}]}]}') AS points
FROM (VALUES (0.49, 99), (0.49, 100), (0.5, 250), (0.5, 250.5)) g(odds, score);
-- A victory on a matrix that awards more than 1 keeps the higher figure.
SELECT mm.ladder_points(0.1, 500, 'victory') AS three;

-- A NULL argument is refused (22004), naming it; NULL is never the
-- default config ('{}' is).
\set VERBOSITY default
\set SHOW_CONTEXT never
SELECT mm.ladder_points(NULL, 1, 'victory');
SELECT mm.ladder_points(0.5, NULL, 'victory');
SELECT mm.ladder_points(0.5, 1, NULL);
SELECT mm.ladder_points(0.5, 1, 'defeat', '{}', NULL);
SELECT mm.ladder_points(0.5, 450, 'defeat', NULL);
SELECT * FROM mm.ladder_apply(1, 1, NULL);
SELECT mm.ladder_config_resolve(NULL);
\set SHOW_CONTEXT errors
SELECT mm.ladder_points(0.5, 450, 'defeat', '{}') AS default_config;

-- The ladder total: prev + points clamped to [min, max]; a player with no
-- total starts at default (0). leaderboard_points is 1: at 1 or more the
-- player is on the leaderboard ('update'); dropping below it gives
-- 'remove'; staying below gives NULL.
SELECT prev, pts, a.*
FROM (VALUES (NULL::int, 1), (NULL, -1), (0, -3), (1, -1), (1, 2), (5, -3), (999999, 3)) g(prev, pts),
     mm.ladder_apply(prev, pts) a;
-- With a custom range and threshold: min -10, max 10, default 5, board at 8.
SELECT prev, pts, a.*
FROM (VALUES (NULL::int, 3), (NULL, -20), (9, 5), (8, -1), (7, -1)) g(prev, pts),
     mm.ladder_apply(prev, pts, '{"min": -10, "max": 10, "default": 5, "leaderboard_points": 8}') a;

-- resolve returns the complete config; overrides keep the other defaults.
SELECT mm.ladder_config_resolve('{"max": 500, "start": "2014-11-12"}') - 'matrix' AS resolved;
SELECT mm.ladder_config_resolve('{"start": null}') = mm.ladder_config_defaults() AS null_start_is_default;

-- Errors: arguments.
SELECT mm.ladder_points(-0.1, 100, 'defeat');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ladder_points(1.1, 100, 'defeat');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ladder_points('NaN', 100, 'defeat');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ladder_points(0.5, -1, 'defeat');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ladder_points(0.5, 'Infinity', 'defeat');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ladder_points(0.5, 100, 'draw');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ladder_points(0.5, 100, 'defeat', NULL, 'infinity');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.ladder_apply(0, NULL);
\echo :LAST_ERROR_SQLSTATE

-- Errors: plain keys.
SELECT mm.ladder_points(0.5, 100, 'defeat', '{"leaderbord_points": 5}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ladder_points(0.5, 100, 'defeat', '{"max": 1.5}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ladder_points(0.5, 100, 'defeat', '{"min": 10, "max": 5}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ladder_points(0.5, 100, 'defeat', '{"default": -1}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ladder_points(0.5, 100, 'defeat', '{"start": "soon"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ladder_points(0.5, 100, 'defeat', '{"start": 2014}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ladder_points(0.5, 100, 'defeat', '{"start": "2014-11-30", "end": "2014-11-12"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ladder_points(0.5, 100, 'defeat', '"x"');
\echo :LAST_ERROR_SQLSTATE

-- Errors: the matrix.
SELECT mm.ladder_points(0.5, 100, 'defeat', '{"matrix": {}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ladder_points(0.5, 100, 'defeat', '{"matrix": []}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ladder_points(0.5, 100, 'defeat', '{"matrix": [1]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ladder_points(0.5, 100, 'defeat', '{"matrix": [{"scores": [{"min": 0, "points": 1}]}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ladder_points(0.5, 100, 'defeat', '{"matrix": [{"odds": 0}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ladder_points(0.5, 100, 'defeat', '{"matrix": [{"odds": 0, "scores": [{"min": 0, "points": 1}], "weight": 1}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ladder_points(0.5, 100, 'defeat', '{"matrix": [{"odds": 0.1, "scores": [{"min": 0, "points": 1}]}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ladder_points(0.5, 100, 'defeat', '{"matrix": [{"odds": 1.5, "scores": [{"min": 0, "points": 1}]}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ladder_points(0.5, 100, 'defeat', '{"matrix": [{"odds": 0, "scores": [{"min": 0, "points": 1}]},
    {"odds": 0.6, "scores": [{"min": 0, "points": 1}]}, {"odds": 0.4, "scores": [{"min": 0, "points": 1}]}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ladder_points(0.5, 100, 'defeat', '{"matrix": [{"odds": 0, "scores": [{"min": 0, "points": 1}]},
    {"odds": 0, "scores": [{"min": 0, "points": 2}]}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ladder_points(0.5, 100, 'defeat', '{"matrix": [{"odds": 0, "scores": []}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ladder_points(0.5, 100, 'defeat', '{"matrix": [{"odds": 0, "scores": {"min": 0}}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ladder_points(0.5, 100, 'defeat', '{"matrix": [{"odds": 0, "scores": [{"min": 100, "points": 1}]}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ladder_points(0.5, 100, 'defeat', '{"matrix": [{"odds": 0, "scores": [{"min": 0, "points": 1}, {"min": 0, "points": 2}]}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ladder_points(0.5, 100, 'defeat', '{"matrix": [{"odds": 0, "scores": [{"min": 0, "points": 1}, {"min": 300, "points": 2}, {"min": 200, "points": 3}]}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ladder_points(0.5, 100, 'defeat', '{"matrix": [{"odds": 0, "scores": [{"min": 0}]}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ladder_points(0.5, 100, 'defeat', '{"matrix": [{"odds": 0, "scores": [{"min": 0, "points": 1.5}]}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ladder_points(0.5, 100, 'defeat', '{"matrix": [{"odds": 0, "scores": [{"min": -1, "points": 1}]}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ladder_points(0.5, 100, 'defeat', '{"matrix": [{"odds": 0, "scores": [{"min": 0, "points": 1, "max": 3}]}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ladder_points(0.5, 100, 'defeat', '{"matrix": [{"odds": 0, "scores": [[0, 1]]}]}');
\echo :LAST_ERROR_SQLSTATE
