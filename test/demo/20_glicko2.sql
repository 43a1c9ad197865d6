-- Glicko-2 ratings with the GW2 rating policy
\set QUIET on
CREATE TEMP TABLE demo_g2_players (name text PRIMARY KEY, rating float8, rd float8, vol float8);
INSERT INTO demo_g2_players VALUES
    ('ana', 1500, 200, 0.06), ('bo', 1400, 30, 0.06), ('cy', 1550, 100, 0.06), ('di', 1700, 300, 0.06);
-- one rating period: ana beats bo, loses to cy and di (Glickman's worked example)
CREATE TEMP TABLE demo_g2_games (player text, opponent text, score float8);
INSERT INTO demo_g2_games VALUES
    ('ana', 'bo', 1), ('ana', 'cy', 0), ('ana', 'di', 0),
    ('bo', 'ana', 0), ('cy', 'ana', 1), ('di', 'ana', 1);
\set QUIET off

\echo The worked example of Glickman (glicko2.pdf): 1500/200/0.06 after a win and two losses
SELECT round(rating::numeric, 2) AS rating, round(rd::numeric, 2) AS rd, round(vol::numeric, 6) AS vol
FROM mm.glicko2_rate((1500, 200, 0.06), '{1400,1550,1700}', '{30,100,300}', '{1,0,0}');

\echo The whole rating period in one statement: mm.glicko2_period over the games of each player
UPDATE demo_g2_players p
SET rating = (s.r).rating, rd = (s.r).rd, vol = (s.r).vol
FROM (SELECT me.name, mm.glicko2_period(me.rating, me.rd, me.vol, o.rating, o.rd, g.score) AS r
      FROM demo_g2_players me
      JOIN demo_g2_games g ON g.player = me.name
      JOIN demo_g2_players o ON o.name = g.opponent
      GROUP BY me.name) s
WHERE p.name = s.name;
SELECT name, round(rating::numeric, 1) AS rating, round(rd::numeric, 1) AS rd,
       round(mm.glicko2_effective((rating, rd, vol))::numeric, 1) AS effective
FROM demo_g2_players ORDER BY rating DESC;

\echo Expected score of di against bo
SELECT round(mm.glicko2_expect(d.rating, d.rd, b.rating, b.rd)::numeric, 3) AS di_beats_bo
FROM demo_g2_players d, demo_g2_players b WHERE d.name = 'di' AND b.name = 'bo';

\echo 'The GW2 policy (the Guild Wars 2 wiki''s PvP matchmaking page) clamps ratings and allows at most 300 points per game:'
\echo a new player wins an upset against a 2500 veteran
SELECT round((mm.glicko2_rate((1500, 350, 0.06), '{2500}', '{30}', '{1}')).rating::numeric, 1) AS plain_glicko2,
       (mm.glicko2_rate((1500, 350, 0.06), '{2500}', '{30}', '{1}', policy => '{}')).rating AS with_gw2_policy;

\echo Inactivity: the deviation climbs from 30 to 350 over 20 periods of 3 days
SELECT days_idle, round((mm.glicko2_rating_at((1800, 30, 0.06), '2024-06-01 00:00+00',
                                              '2024-06-01 00:00+00'::timestamptz + days_idle * interval '1 day')).rd::numeric, 1) AS rd
FROM unnest(ARRAY[0, 3, 15, 30, 60, 90]) AS days_idle;

\echo Replaying a history: ten days of games between four players, in daily rating periods
SELECT player_id, games, round(rating::numeric, 1) AS rating, round(rd::numeric, 1) AS rd
FROM mm.glicko2_replay($$
    SELECT (1 + g % 4)::bigint, (1 + (g + 1 + g / 4) % 4)::bigint,
           CASE WHEN g % 4 < 2 THEN 1.0 ELSE 0.0 END::float8,
           '2024-01-01 00:00+00'::timestamptz + g * interval '3 hours'
    FROM generate_series(0, 79) g WHERE g % 4 <> (g + 1 + g / 4) % 4$$, '1 day')
ORDER BY rating DESC;
