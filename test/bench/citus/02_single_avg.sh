# single node: plain avg(opp_rating) over the same rows GROUP BY player (the scan and grouping alone)
eval "$(bash "$MM_ROOT/test/citus/cluster.sh" env)"
psql -X -q -At -d postgres -v ON_ERROR_STOP=1 -c "SELECT count(*), sum(a) FROM (
    SELECT player, avg(opp_rating) AS a FROM games_single GROUP BY player) s"
