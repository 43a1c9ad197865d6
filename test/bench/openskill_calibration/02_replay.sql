-- mm.replay_openskill over the same rows in the same run (rating only)
SELECT count(*), sum(mu) FROM mm.replay_openskill(
    'SELECT match_id, player_id, team, rank FROM bench_results ORDER BY match_id, team, player_id');
