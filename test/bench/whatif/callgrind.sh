#!/usr/bin/env bash
# Instructions (callgrind) that mm.whatif spends replaying 1 hour, 6 hours
# and a day of the benchmark's busy queue (setup.sql: 1,000,000 rosters, a
# tick every second): counts that repeat from run to run on a busy machine,
# where wall times do not, to show that a replay's cost grows linearly
# with its window. Each window is replayed in a single-user backend under
# valgrind, counting only inside mm_whatif (--toggle-collect) and its
# callees: the reads of the record, the matcher's runs, the figures. Also
# the peak private memory (RssAnon) of a normal backend replaying each
# window. Prints a markdown table.
#
#   bash test/bench/whatif/callgrind.sh [HOURS...]     (default: 1 6 24)
#
# It creates a throwaway cluster on port MM_PORT+9 (test/ports.sh) in
# MM_TMPDIR/mm-whatif-cg-PORT and removes it; a day under callgrind takes
# half an hour or more.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
cd "$here"
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
bindir=$("$PG_CONFIG" --bindir)
out=$(mktemp -d)
. "$here/test/bench/lib.sh"
hours=("${@:-1 6 24}")
# shellcheck disable=SC2206
hours=(${hours[*]})
port=$(($(mm_base) + 9))
dir=$(mm_tmpdir)/mm-whatif-cg-$port
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is missing (apt-get install valgrind)" >&2; exit 1; }

bash test/cluster.sh build >/dev/null
throwaway_cluster "$dir" "$port" <<CONF
shared_buffers = 256MB
max_parallel_workers_per_gather = 0
CONF
psql -X -q -d postgres -c "CREATE DATABASE bench_whatif"
psql -X -q -d bench_whatif -c "CREATE EXTENSION mm"
psql -X -q -d bench_whatif -v ON_ERROR_STOP=1 -f test/bench/whatif/setup.sql >/dev/null

window() { echo "'2026-01-01 00:00+00', timestamptz '2026-01-01 00:00+00' + interval '$1 hours'"; }

# peak RssAnon (MB) and wall time (ms) of a replay in a new session
declare -A peak wall
for h in "${hours[@]}"; do
	rm -f "$out/run"
	psql -X -q -At -d bench_whatif >"$out/run" 2>/dev/null <<SQL &
SELECT pg_backend_pid();
SELECT count(*) FROM mm.whatif('busy', $(window "$h"));
SQL
	while [ ! -s "$out/run" ] && kill -0 "$!" 2>/dev/null; do sleep 0.05; done
	pid=$(head -1 "$out/run")
	max=0
	t0=$(date +%s%N)
	while kill -0 "$!" 2>/dev/null; do
		kb=$(awk '/^RssAnon/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
		[ "${kb:-0}" -gt "$max" ] && max=$kb
		sleep 0.05
	done
	wall[$h]=$((($(date +%s%N) - t0) / 1000000))
	peak[$h]=$((max / 1024))
done

# instructions, in a single-user backend
as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
declare -A ir
for h in "${hours[@]}"; do
	echo "SELECT count(*) FROM mm.whatif('busy', $(window "$h"));" |
		as_owner valgrind --tool=callgrind --toggle-collect=mm_whatif --callgrind-out-file="$dir/cg.$h" \
			"$bindir/postgres" --single -D "$dir/data" -c client_min_messages=warning bench_whatif >/dev/null 2>"$out/vg.$h"
	ir[$h]=$(sed -n 's/^summary: //p' "$dir/cg.$h")
done

echo "| window | instructions (callgrind) | per hour | vs 1 hour, per hour | peak RssAnon | wall (busy machine) |"
echo "|---|---:|---:|---:|---:|---:|"
base=$((ir[${hours[0]}] / hours[0]))
for h in "${hours[@]}"; do
	per=$((ir[$h] / h))
	printf '| %s h | %s | %s | %.3fx | %s MB | %s ms |\n' "$h" "${ir[$h]}" "$per" \
		"$(awk -v a="$per" -v b="$base" 'BEGIN {print a / b}')" "${peak[$h]}" "${wall[$h]}"
done
rm -rf "$out"
exit 0
