#!/usr/bin/env bash
# One timed run of a cold_start case: case.sh WORKLOAD KIND (enqueue, tick or
# report; cold or steady). Runs the workload (workload.sh) on database K
# (PGDATABASE_K), where K counts this case's runs, and records its wall time
# and its backend's CPU time in table timing. Before the steady enqueues
# (untimed): ANALYZE, and the rosters the cold pass left waiting leave.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
what=$1 kind=$2
k=$(psql -X -At -v ON_ERROR_STOP=1 -c "SELECT nextval('run_${what}_$kind')")
db=${PGDATABASE}_$k
base=0
if [ "$kind" = steady ]; then
	base=1000000000  # players of their own: the cold pass's may be in matches
	if [ "$what" = enqueue ]; then
		psql -X -q -v ON_ERROR_STOP=1 -d "$db" -c "ANALYZE" \
			-c "SELECT count(mm.leave(r.roster_id)) FROM mm.roster r WHERE r.match_id IS NULL" >/dev/null
	fi
fi
read -r ms cpu_ms _ <<<"$(bash "$here/workload.sh" "$what" "$db" bench $base)"
psql -X -q -v ON_ERROR_STOP=1 -c "INSERT INTO timing VALUES ('$what', '$kind', $k, $ms, $cpu_ms)"
