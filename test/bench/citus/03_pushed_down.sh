# Citus, games by player: the same query, pushed down whole to 8 shards on 2 workers
eval "$(bash "$MM_ROOT/test/citus/cluster.sh" env)"
psql -X -q -At -d postgres -v ON_ERROR_STOP=1 -c "SELECT count(*), sum((r).rating) FROM (
    SELECT player, mm.glicko2_period(rating, rd, vol, opp_rating, opp_rd, score) AS r
    FROM games_by_player GROUP BY player) s"
