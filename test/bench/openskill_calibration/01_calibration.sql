-- mm.openskill_calibration over 100k 5v5 matches (1M rows): predict each match, then rate it
SELECT mm.openskill_calibration(
    'SELECT match_id, player_id, team, rank FROM bench_results ORDER BY match_id, team, player_id') ->> 'log_loss';
