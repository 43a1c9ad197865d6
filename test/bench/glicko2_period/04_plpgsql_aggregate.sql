-- the same as a PL/pgSQL aggregate (transition per game, steps 5-8 in the final function)
SELECT count(*), sum((r).rating) FROM (
    SELECT player, glicko2_period_plpgsql(rating, rd, vol, opp_rating, opp_rd, score) AS r
    FROM games GROUP BY player) s;
