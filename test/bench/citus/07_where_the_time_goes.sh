# where the time goes, once, into out/citus_explain.txt (this row's timing is not comparable: later runs do nothing)
# EXPLAIN ANALYZE of cases 01 and 03; for case 05 (Citus 13.2's EXPLAIN ANALYZE
# fails on a partial aggregate of a custom aggregate: column "field_1" has
# pseudo-type cstring) the number of partial states the workers ship, and the
# time of the workers' half alone (each shard grouped by player in place).
out="$MM_ROOT/test/bench/out/citus_explain.txt"
[ -e "$out" ] && exit 0
eval "$(bash "$MM_ROOT/test/citus/cluster.sh" env)"
{
	for table in games_single games_by_player; do
		echo "==== $table"
		psql -X -q -d postgres -v ON_ERROR_STOP=1 -c "EXPLAIN (ANALYZE, COSTS OFF) SELECT count(*), sum((r).rating) FROM (
		    SELECT player, mm.glicko2_period(rating, rd, vol, opp_rating, opp_rd, score) AS r
		    FROM $table GROUP BY player) s"
	done
	echo "==== games_by_game"
	psql -X -q -d postgres -v ON_ERROR_STOP=1 <<'SQL'
\timing on
SELECT sum(result::bigint) AS partial_states_shipped, count(*) AS shards
FROM run_command_on_shards('games_by_game', $$SELECT count(DISTINCT player) FROM %s$$);
SELECT sum(result::bigint) AS groups_rated_on_shards
FROM run_command_on_shards('games_by_game', $$SELECT count(*) FROM (SELECT player, mm.glicko2_period(rating, rd, vol, opp_rating, opp_rd, score) FROM %s GROUP BY player) s$$);
SQL
} >"$out.tmp" 2>&1 && mv "$out.tmp" "$out"
