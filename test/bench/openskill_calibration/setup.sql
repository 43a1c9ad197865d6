-- 100k 5v5 matches (1M rows) among 10,000 players, in play order: the
-- openskill_replay benchmark's history. The same formula generates them in
-- memory in calibration.mjs (the node baseline): slot s (0-9) of match m is
-- player (m * 7919 + s * 1009) % 10000 + 1, on team s / 5 + 1; team 1 wins
-- unless m % 3 = 0.
CREATE TABLE bench_results AS
SELECT m AS match_id,
       ((m * 7919 + s * 1009) % 10000 + 1)::bigint AS player_id,
       s / 5 + 1 AS team,
       CASE WHEN (s < 5) = (m % 3 <> 0) THEN 1 ELSE 2 END AS rank
FROM generate_series(1, 100000) m, generate_series(0, 9) s
ORDER BY m, s;
CREATE INDEX ON bench_results (match_id, team, player_id);
VACUUM ANALYZE bench_results;
