-- mm.openskill_replay over 100k 5v5 matches (1M rows) from a table
SELECT count(*), sum(mu) FROM mm.openskill_replay(
    'SELECT match_id, player_id, team, rank FROM bench_results ORDER BY match_id, team, player_id');
