#!/usr/bin/env bash
# Instructions (callgrind) of the cold_start workloads: counts that repeat
# from run to run on a busy machine, where wall and CPU times do not. The
# same passes as the benchmark (a new database's first enqueues, ticks and
# reports, then the same queue emptied and after ANALYZE), smaller: by
# default 2,000 enqueues, 10 ticks and 40 reports (MM_COLD_ENQUEUES,
# MM_COLD_TICKS, MM_COLD_REPORTS). The server runs under valgrind; each
# workload's backend counts only inside exec_simple_query (its statements,
# not its start-up). Prints a markdown table with the ratios cold / steady.
#
#   bash test/bench/cold_start/callgrind.sh
#
# It creates a throwaway cluster on port MM_PORT+9 (test/ports.sh) in
# MM_TMPDIR/mm-cold-cg-PORT and removes it; about ten minutes.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
cd "$here"
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
export MM_COLD_ENQUEUES=${MM_COLD_ENQUEUES:-2000} MM_COLD_TICKS=${MM_COLD_TICKS:-10} MM_COLD_REPORTS=${MM_COLD_REPORTS:-40}
bindir=$("$PG_CONFIG" --bindir)
. "$here/test/bench/lib.sh"
port=$(($(mm_base) + 9))
dir=$(mm_tmpdir)/mm-cold-cg-$port
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is missing (apt-get install valgrind)" >&2; exit 1; }

bash test/cluster.sh build >/dev/null
# a cluster of our own (its data folder), then its server under valgrind
throwaway_cluster "$dir" "$port" <<CONF
autovacuum = off
max_parallel_workers_per_gather = 0
CONF
as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
as_owner valgrind --tool=callgrind --trace-children=yes --toggle-collect=exec_simple_query \
	--callgrind-out-file="$dir/cg.%p" "$bindir/postgres" -D "$dir/data" >"$dir/valgrind.log" 2>&1 &
for _ in $(seq 600); do
	psql -X -q -d postgres -c "SELECT" >/dev/null 2>&1 && break
	sleep 1
done
psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE DATABASE cold"
psql -X -q -v ON_ERROR_STOP=1 -d cold -c "CREATE EXTENSION mm" -c "SELECT mm.create_queue('bench')" >/dev/null

# run a workload; print its backend's instructions (its file is written when
# the backend exits)
declare -A ir
count() {
	local what=$1 kind=$2 base=$3 pid
	read -r _ _ pid <<<"$(bash test/bench/cold_start/workload.sh "$what" cold bench "$base")"
	for _ in $(seq 600); do
		[ -s "$dir/cg.$pid" ] && grep -q '^summary:' "$dir/cg.$pid" && break
		sleep 1
	done
	ir[$what.$kind]=$(sed -n 's/^summary: //p' "$dir/cg.$pid")
}
for what in enqueue tick report; do count "$what" cold 0; done
psql -X -q -v ON_ERROR_STOP=1 -d cold -c "ANALYZE" \
	-c "SELECT count(mm.leave(r.roster_id)) FROM mm.roster r WHERE r.match_id IS NULL" >/dev/null
for what in enqueue tick report; do count "$what" steady 1000000000; done

echo "| workload | cold: instructions | steady: instructions | cold / steady |"
echo "|---|---:|---:|---:|"
for what in enqueue tick report; do
	printf '| %s | %s | %s | %.2fx |\n' "$what" "${ir[$what.cold]}" "${ir[$what.steady]}" \
		"$(awk -v a="${ir[$what.cold]}" -v b="${ir[$what.steady]}" 'BEGIN {print a / b}')"
done
echo
echo "($MM_COLD_ENQUEUES enqueues, $MM_COLD_TICKS ticks, $MM_COLD_REPORTS reports; PostgreSQL $("$bindir/postgres" --version | awk '{print $3}'))"
