#!/usr/bin/env bash
# Print the tick log's figures of a tick_steady database (PGDATABASE):
# per queue, mean and median mm.tick_log.duration_ms, matches per tick,
# mean rating spread, failed targets per tick, rosters read per tick.
set -euo pipefail
psql -X -q -c "SELECT * FROM bench_report ORDER BY queue LIKE 'sparse%', ticks > 0 AND queue LIKE '%_100k', queue LIKE '%_20k', queue"
