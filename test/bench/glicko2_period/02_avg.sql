-- plain avg(opp_rating) over the same 1M rows GROUP BY player (baseline)
SELECT count(*), sum(a) FROM (
    SELECT player, avg(opp_rating) AS a
    FROM games GROUP BY player) s;
