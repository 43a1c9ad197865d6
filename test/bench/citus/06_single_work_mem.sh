# single node with work_mem 1GB: the same query, its hash aggregate kept in memory
eval "$(bash "$MM_ROOT/test/citus/cluster.sh" env)"
PGOPTIONS="-c work_mem=1GB" psql -X -q -At -d postgres -v ON_ERROR_STOP=1 -c "SELECT count(*), sum((r).rating) FROM (
    SELECT player, mm.glicko2_period(rating, rd, vol, opp_rating, opp_rd, score) AS r
    FROM games_single GROUP BY player) s"
