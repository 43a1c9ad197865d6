-- musigma ordinals: a conservative skill estimate, mu - 3 sigma
\set QUIET on
CREATE TEMP TABLE demo_players (name text, mu float8, sigma float8);
INSERT INTO demo_players VALUES
    ('new player',        25.0, 25.0 / 3),
    ('steady veteran',    31.2, 1.4),
    ('lucky newcomer',    34.0, 6.5),
    ('struggling player', 18.5, 2.1);
\set QUIET off

-- A new player (mu 25, sigma 25/3) has ordinal 0. The lucky newcomer has
-- the highest mu, but is less certain, so the veteran ranks first.
SELECT name, mu, round(sigma::numeric, 2) AS sigma,
       round(mm.ordinal(mu, sigma)::numeric, 2) AS ordinal
FROM demo_players
ORDER BY mm.ordinal(mu, sigma) DESC;
