# single node: mm.glicko2_period over the plain table on the coordinator, GROUP BY player (baseline)
eval "$(bash "$MM_ROOT/test/citus/cluster.sh" env)"
psql -X -q -At -d postgres -v ON_ERROR_STOP=1 -c "SELECT count(*), sum((r).rating) FROM (
    SELECT player, mm.glicko2_period(rating, rd, vol, opp_rating, opp_rd, score) AS r
    FROM games_single GROUP BY player) s"
