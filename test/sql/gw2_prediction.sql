-- GW2 match prediction (the Guild Wars 2 wiki's PvP matchmaking page, "Match Prediction"): calculateSpread,
-- predict and predictionToOddsOfVictory, with the GW2 wiki's config
-- (rank spread 40 weight 1, rating spread 200 weight 5, roster spread 4
-- weight 2; total weight 8).
\set VERBOSITY default

-- Even teams: every spread is 0, prediction 0, odds 0.5 each.
SELECT * FROM mm.match_prediction_teams(10, 1500, 5, 10, 1500, 5);

-- Red rank 20, blue rank 0: (0 - 20) / 40 = -0.5, * 1 = -0.5
-- red rating_low 1400, blue 1500: (1500 - 1400) / 200 = 0.5, * 5 = 2.5
-- red largest roster 1, blue 5: (5 - 1) / 4 = 1, * 2 = 2
-- prediction = (-0.5 + 2.5 + 2) / 8 = 0.5; blue odds 0.5/2 + 0.5 = 0.75, red 0.25
SELECT * FROM mm.match_prediction_teams(20, 1400, 1, 0, 1500, 5);

-- Each spread is clamped to [-1, 1] before weighting:
-- rank (0 - 100) / 40 = -2.5 -> -1, * 1 = -1
-- rating (1000 - 2000) / 200 = -5 -> -1, * 5 = -5
-- roster (1 - 5) / 4 = -1, * 2 = -2
-- prediction = -8 / 8 = -1 (red dominates): red odds 1, blue odds 0
SELECT * FROM mm.match_prediction_teams(100, 2000, 5, 0, 1000, 1);

-- Rating only (rank and roster off): (1550 - 1500) / 200 = 0.25, * 5 / 5 = 0.25
SELECT * FROM mm.match_prediction_teams(0, 1500, 1, 40, 1550, 5,
    '{"rank": {"enabled": false}, "roster": {"enabled": false}}');
-- A weight of 0 switches a metric off too: same result.
SELECT * FROM mm.match_prediction_teams(0, 1500, 1, 40, 1550, 5,
    '{"rank": {"weight": 0}, "roster": {"weight": 0}}');
-- Every metric off: total weight 0 predicts an even match.
SELECT * FROM mm.match_prediction_teams(0, 1000, 1, 40, 2000, 5,
    '{"rank": {"enabled": false}, "rating": {"weight": 0}, "roster": {"enabled": false}}');
-- Changed spread and weight, method in the XML's spelling:
-- rank (10 - 0) / 20 = 0.5, * 3 = 1.5; rating 0; roster (2 - 4) / 4 = -0.5, * 2 = -1
-- prediction = (1.5 + 0 - 1) / (3 + 5 + 2) = 0.05
SELECT * FROM mm.match_prediction_teams(0, 1500, 4, 10, 1500, 2,
    '{"rank": {"method": "Spread", "spread": 20, "weight": 3}}');

-- The defaults function is the config the C code uses when none is given.
SELECT a = b AS defaults_match
FROM mm.match_prediction_teams(3, 1480, 2, 17, 1530, 4) a,
     mm.match_prediction_teams(3, 1480, 2, 17, 1530, 4, mm.prediction_config_defaults()) b;

-- From rosters: a team's averages weigh each roster by its players.
-- red: (1600 - 100 = 1500, rank 10, 2 players), (1500 - 50 = 1450, rank 20, 3 players)
--   rating_low = (1500*2 + 1450*3) / 5 = 1470, rank = (10*2 + 20*3) / 5 = 16, largest 3
-- blue: (1500 - 50 = 1450, rank 10, 5 players)
-- rank (10 - 16) / 40 = -0.15, * 1; rating (1450 - 1470) / 200 = -0.1, * 5 = -0.5;
-- roster (5 - 3) / 4 = 0.5, * 2 = 1; prediction = 0.35 / 8 = 0.04375
SELECT * FROM mm.match_prediction(array['red', 'red', 'blue'], array[1600, 1500, 1500],
    array[100, 50, 50], array[10, 20, 10], array[2, 3, 5]);
-- Roster order does not matter.
SELECT * FROM mm.match_prediction(array['blue', 'red', 'red'], array[1500, 1500, 1600],
    array[50, 50, 100], array[10, 20, 10], array[5, 3, 2]);

-- Any number of teams. Three teams of equal rank and largest roster, mean
-- effective ratings 1500, 1600 and 1700 (the default config, total weight 8):
-- ash-oak: rating (1600 - 1500) / 200 = 0.5, * 5 = 2.5; p = 2.5 / 8 = 0.3125,
--          ash beats oak 1 - (0.3125 / 2 + 0.5) = 0.34375
-- ash-elm: rating 1, * 5 = 5; p = 0.625, ash beats elm 0.1875
-- oak-elm: p = 0.3125, oak beats elm 0.34375
-- prediction: the most lopsided pairing, ash-elm, 0.625
-- odds (2 / (3 * 2) = 1/3 of the sum of each team's pairwise odds):
--   ash (0.34375 + 0.1875) / 3 = 0.1770833333
--   oak (0.65625 + 0.34375) / 3 = 0.3333333333
--   elm (0.8125 + 0.65625) / 3 = 0.4895833333, the three adding up to 1
SELECT prediction, round(red_odds::numeric, 10) AS red_odds, round(blue_odds::numeric, 10) AS blue_odds,
       (SELECT array_agg(round(o::numeric, 10)) FROM unnest(odds) o) AS odds,
       (SELECT sum(o) FROM unnest(odds) o) AS total
FROM mm.match_prediction_teams(array[0, 0, 0], array[1500, 1600, 1700], array[1, 1, 1]);
-- The same from rosters of named teams (ash: two solos at 1500 and 1600 with
-- deviation 50, so 1450 and 1550, mean 1500), in any roster order.
SELECT prediction, (SELECT array_agg(round(o::numeric, 10)) FROM unnest(odds) o) AS odds
FROM mm.match_prediction(array['elm', 'ash', 'oak', 'ash'], array[1700, 1500, 1600, 1600],
    array[0, 50, 0, 50], array[0, 0, 0, 0], array[1, 1, 1, 1], teams => array['ash', 'oak', 'elm']);
-- The team order decides which team is red in each pairing: with elm first,
-- the most lopsided pairing is elm (as red) against ash, -0.625.
SELECT prediction, (SELECT array_agg(round(o::numeric, 10)) FROM unnest(odds) o) AS odds
FROM mm.match_prediction(array['elm', 'ash', 'oak'], array[1700, 1500, 1600],
    array[0, 0, 0], array[0, 0, 0], array[1, 1, 1], teams => array['elm', 'ash', 'oak']);
-- Two teams are exactly GW2's: the array form and the named teams equal the
-- red and blue forms above, every column.
SELECT a = b AS arrays_equal_loose, c = b AS named_equal_loose, b.odds = array[b.red_odds, b.blue_odds] AS odds_are_red_blue
FROM mm.match_prediction_teams(array[20, 0], array[1400, 1500], array[1, 5]) a,
     mm.match_prediction_teams(20, 1400, 1, 0, 1500, 5) b,
     mm.match_prediction(array['home', 'away', 'away'], array[1400, 1500, 1500], array[0, 0, 0],
                         array[20, 0, 0], array[1, 5, 1], teams => array['home', 'away']) c;
SELECT a = b AS default_teams_are_red_blue
FROM mm.match_prediction(array['red', 'red', 'blue'], array[1600, 1500, 1500],
                         array[100, 50, 50], array[10, 20, 10], array[2, 3, 5]) a,
     mm.match_prediction(array['red', 'red', 'blue'], array[1600, 1500, 1500],
                         array[100, 50, 50], array[10, 20, 10], array[2, 3, 5], '{}', array['red', 'blue']) b;
-- A free-for-all of eight even players: every odds 1/8, prediction 0.
SELECT prediction, (SELECT array_agg(DISTINCT round(o::numeric, 12)) FROM unnest(odds) o) AS odds
FROM mm.match_prediction_teams(array_fill(0::float8, array[8]), array_fill(1500::float8, array[8]),
                               array_fill(1::float8, array[8]));

-- Odds of victory: blue = p / 2 + 0.5, red = 1 - blue.
SELECT p, mm.odds_of_victory(p, 'red') AS red, mm.odds_of_victory(p, 'blue') AS blue
FROM unnest(array[-1, -0.5, 0, 0.25, 1]::float8[]) p;

-- Errors: configuration.
SELECT * FROM mm.match_prediction_teams(0, 1500, 1, 0, 1500, 1, '{"ranks": {}}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction_teams(0, 1500, 1, 0, 1500, 1, '{"rank": {"spred": 4}}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction_teams(0, 1500, 1, 0, 1500, 1, '{"rating": {"method": "linear"}}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction_teams(0, 1500, 1, 0, 1500, 1, '{"rating": {"method": 1}}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction_teams(0, 1500, 1, 0, 1500, 1, '{"rating": {"spread": 0}}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction_teams(0, 1500, 1, 0, 1500, 1, '{"roster": {"spread": -4}}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction_teams(0, 1500, 1, 0, 1500, 1, '{"roster": {"weight": -1}}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction_teams(0, 1500, 1, 0, 1500, 1, '{"roster": {"enabled": "no"}}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction_teams(0, 1500, 1, 0, 1500, 1, '{"roster": 2}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction_teams(0, 1500, 1, 0, 1500, 1, '[1]');
\echo :LAST_ERROR_SQLSTATE

-- Errors: team summaries.
SELECT * FROM mm.match_prediction_teams('NaN', 1500, 1, 0, 1500, 1);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction_teams(0, 1500, 1, 0, 'Infinity', 1);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction_teams(0, 1500, 0, 0, 1500, 1);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction_teams(0, 1500, 1, 0, 1500, -2);
\echo :LAST_ERROR_SQLSTATE

-- Errors: rosters.
SELECT * FROM mm.match_prediction(array['red', 'green'], array[1500, 1500], array[0, 0], array[0, 0], array[1, 1]);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction(array['red', NULL], array[1500, 1500], array[0, 0], array[0, 0], array[1, 1]);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction(array['red', 'blue'], array[1500], array[0, 0], array[0, 0], array[1, 1]);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction(array['red', 'blue'], array[1500, 1500], array[0, 0], array[0, 0], array[1]);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction(array['red', 'blue'], array[1500, NULL], array[0, 0], array[0, 0], array[1, 1]);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction(array['red', 'blue'], array[1500, 'NaN']::float8[], array[0, 0], array[0, 0], array[1, 1]);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction(array['red', 'blue'], array[1500, 1500], array[0, -1], array[0, 0], array[1, 1]);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction(array['red', 'blue'], array[1500, 1500], array[0, 0], array[0, '-Infinity']::float8[], array[1, 1]);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction(array['red', 'blue'], array[1500, 1500], array[0, 0], array[0, 0], array[1, 0]);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction(array['red', 'red'], array[1500, 1500], array[0, 0], array[0, 0], array[1, 1]);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction('{}', '{}', '{}', '{}', '{}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction('{{red},{blue}}', '{1500,1500}', '{0,0}', '{0,0}', '{1,1}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction(array['red', 'blue'], array[1e308, 1e308], array[0, 0], array[0, 0], array[5, 5]);
\echo :LAST_ERROR_SQLSTATE

-- Errors: teams.
SELECT * FROM mm.match_prediction(array['red', 'blue'], array[1500, 1500], array[0, 0], array[0, 0], array[1, 1],
                                  teams => array['red']);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction(array['red', 'blue'], array[1500, 1500], array[0, 0], array[0, 0], array[1, 1],
                                  teams => array['red', 'blue', 'red']);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction(array['red', 'blue'], array[1500, 1500], array[0, 0], array[0, 0], array[1, 1],
                                  teams => array['red', 'blue', 'green']);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction(array['red', 'blue'], array[1500, 1500], array[0, 0], array[0, 0], array[1, 1],
                                  teams => array['red', NULL]);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction(array['ash', 'oak'], array[1500, 1500], array[0, 0], array[0, 0], array[1, 1]);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction_teams(array[0], array[1500], array[1]);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction_teams(array_fill(0::float8, array[65]), array_fill(1500::float8, array[65]),
                                        array_fill(1::float8, array[65]));
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction_teams(array[0, 0], array[1500, 1500, 1500], array[1, 1]);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction_teams(array[0, 0], array[1500, 'NaN']::float8[], array[1, 1]);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction_teams(array[0, 0], array[1500, 1500], array[1, 0]);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_prediction_teams(array[0, NULL], array[1500, 1500], array[1, 1]);
\echo :LAST_ERROR_SQLSTATE

-- Errors: odds of victory.
SELECT mm.odds_of_victory(1.5, 'red');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.odds_of_victory('NaN', 'red');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.odds_of_victory(0, 'Red');
\echo :LAST_ERROR_SQLSTATE
