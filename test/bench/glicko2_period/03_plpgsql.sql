-- the same in PL/pgSQL: array_agg per player + a rating function
SELECT count(*), sum((r).new_rating) FROM (
    SELECT player, glicko2_rate_plpgsql(rating, rd, vol, array_agg(opp_rating), array_agg(opp_rd), array_agg(score)) AS r
    FROM games GROUP BY player, rating, rd, vol) s;
