# Citus, games by player: plain avg(opp_rating) GROUP BY player, pushed down (the scan and grouping alone)
eval "$(bash "$MM_ROOT/test/citus/cluster.sh" env)"
psql -X -q -At -d postgres -v ON_ERROR_STOP=1 -c "SELECT count(*), sum(a) FROM (
    SELECT player, avg(opp_rating) AS a FROM games_by_player GROUP BY player) s"
