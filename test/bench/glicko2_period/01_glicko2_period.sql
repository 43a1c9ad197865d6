-- mm.glicko2_period over 1M games GROUP BY 100k players (C aggregate)
SELECT count(*), sum((r).rating) FROM (
    SELECT player, mm.glicko2_period(rating, rd, vol, opp_rating, opp_rd, score) AS r
    FROM games GROUP BY player) s;
