-- mm.openskill_replay over the same rows in the same run (rating only)
SELECT count(*), sum(mu) FROM mm.openskill_replay(
    'SELECT match_id, player_id, team, rank FROM bench_results ORDER BY match_id, team, player_id');
