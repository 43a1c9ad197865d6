#!/usr/bin/env bash
# The cold_start figures of the steady database (PGDATABASE): per workload,
# the median wall time and the median backend CPU time of the steady and of
# the cold runs, and their ratios (cold over steady: the goal is at most 1.5).
# On a shared machine the wall times move with the load (and the commits'
# fsyncs); the CPU times much less.
set -euo pipefail
psql -X -q -P footer=off -c "
WITH m AS (
    SELECT workload, kind, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY cpu_ms) AS cpu_ms
    FROM timing GROUP BY workload, kind)
SELECT s.workload, s.ms AS steady_ms, c.ms AS cold_ms, round((c.ms / s.ms)::numeric, 2) AS wall_ratio,
       s.cpu_ms AS steady_cpu_ms, c.cpu_ms AS cold_cpu_ms, round((c.cpu_ms / nullif(s.cpu_ms, 0))::numeric, 2) AS cpu_ratio
FROM m s JOIN m c ON c.workload = s.workload AND c.kind = 'cold'
WHERE s.kind = 'steady'
ORDER BY array_position('{enqueue,tick,report}', s.workload)"
