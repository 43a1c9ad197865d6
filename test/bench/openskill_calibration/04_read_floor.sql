-- the same 1M rows in the same order, only counted: the floor of any in-database method (reads, no rating)
SELECT count(*) FROM (SELECT match_id, player_id, team, rank FROM bench_results ORDER BY match_id, team, player_id) s;
