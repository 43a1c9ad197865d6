-- GW2 match prediction, ladder points and dishonor (the Guild Wars 2 wiki's PvP matchmaking page)
\set QUIET on
SET timezone = 'UTC';
\set QUIET off

-- Predict a 5v5: red has a full 5-player party rated 1620 - 60 (effective
-- 1560); blue is five solo players with effective ratings 1450 to 1650.
-- Bigger parties and higher effective ratings favour a team; -1 means red
-- dominates, +1 blue.
SELECT round(prediction::numeric, 4) AS prediction,
       round(red_odds::numeric, 4) AS red_odds, round(blue_odds::numeric, 4) AS blue_odds
FROM mm.match_prediction(
    team      => array['red', 'blue', 'blue', 'blue', 'blue', 'blue'],
    rating    => array[1620, 1500, 1550, 1600, 1650, 1700],
    deviation => array[60, 50, 50, 50, 50, 50],
    rank      => array[30, 28, 30, 32, 34, 36],
    players   => array[5, 1, 1, 1, 1, 1]);

-- Ladder points for each team of that match when blue wins 500 to 350:
-- red, the favourite, loses a point for its poor score; blue, the
-- underdog, gains 2. A deserter scores as if the final score were 0.
WITH p AS (
    SELECT prediction FROM mm.match_prediction(
        array['red', 'blue', 'blue', 'blue', 'blue', 'blue'],
        array[1620, 1500, 1550, 1600, 1650, 1700], array[60, 50, 50, 50, 50, 50],
        array[30, 28, 30, 32, 34, 36], array[5, 1, 1, 1, 1, 1]))
SELECT team, result, final_score, round(mm.odds_of_victory(p.prediction, team)::numeric, 4) AS odds,
       mm.ladder_points(mm.odds_of_victory(p.prediction, team), final_score, result) AS points
FROM p, (VALUES ('red', 'defeat', 350), ('blue', 'victory', 500), ('red', 'desertion', 350)) g(team, result, final_score);

-- A new player's ladder total after +1, then after -3 (clamped at min 0,
-- and off the leaderboard again).
SELECT a.ladder_points AS after_win, a.leaderboard, b.ladder_points AS after_loss, b.leaderboard
FROM mm.ladder_apply(NULL, 1) a, mm.ladder_apply(a.ladder_points, -3) b;

-- Dishonor: player 90001 abandons a match at noon (10 stacks, a 16 minute
-- timeout), then dodges a queue at 12:20 (stacks decay one per 15 minutes:
-- 9 + 4 = 13, 23 more minutes of timeout).
SELECT * FROM mm.dishonor(90001, 'abandon', '2026-06-01 12:00+00');
SELECT * FROM mm.dishonor(90001, 'queue_dodge', '2026-06-01 12:20+00');
SELECT at::time AS at, s.stacks, s.timeout_until
FROM unnest(array['2026-06-01 12:30+00', '2026-06-01 12:43+00', '2026-06-01 15:00+00',
                  '2026-06-01 15:30+00']::timestamptz[]) at,
     mm.dishonor_status(90001, at) s;

-- Timeouts grow as stacks^1.5 * 30s, rounded to the minute.
SELECT stacks, mm.dishonor_timeout(stacks) AS timeout
FROM unnest(array[1, 4, 10, 20, 50]) stacks;

-- Pardon the demo player (removes the stacks and the timeout).
SELECT mm.dishonor_clear(90001);
