#!/usr/bin/env bash
# Print the kept ticks' figures of a tick_kept database (PGDATABASE): per
# queue, the tick log's mean and median duration_ms of the ticks after the
# first of each session, matches and failed targets per tick; then the
# ratios of the medians the goals name: each shape's 100k queue against its
# 2k queue, and the rules queue against the single-mode queue (both 100k).
set -euo pipefail
psql -X -q -c "SELECT * FROM bench_kept_report ORDER BY queue"
psql -X -q -At -F ' ' <<'SQL'
SELECT format('%s vs %s: %s ms vs %s ms, %sx', a, b, x.median_ms, y.median_ms, round(x.median_ms / nullif(y.median_ms, 0), 2))
FROM (VALUES ('sparse_100k', 'sparse_2k'), ('dense_100k', 'dense_2k'), ('rules', 'single')) AS p(a, b)
JOIN bench_kept_report x ON x.queue = p.a
JOIN bench_kept_report y ON y.queue = p.b;
SQL
