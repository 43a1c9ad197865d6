#!/usr/bin/env bash
# Instructions (callgrind) of a steady tick that keeps its input, per queue
# of the tick_kept benchmark (setup.sql): counts that repeat from run to run
# on a busy machine, where wall times do not. Each queue is ticked in a
# single-user backend under valgrind, counting only inside mm_tick
# (--toggle-collect) and its callees, once with 3 ticks after the first
# (which reads the queue whole) and once with 13; the difference over 10 is
# one steady tick. No refill between the ticks (enqueues under valgrind
# would take most of an hour): a tick of the 100k queues takes out at most
# a quarter of a percent of them. Prints a markdown table and the ratios
# the tick goals name (sparse 100k over 2k, rules over single mode).
#
#   bash test/bench/tick_kept/callgrind.sh [QUEUE...]
#        (default: sparse_2k sparse_100k single rules)
#
# It creates a throwaway cluster on port MM_PORT+8 (test/ports.sh) in
# MM_TMPDIR/mm-kept-cg-PORT and removes it; about a quarter of an hour.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
cd "$here"
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
bindir=$("$PG_CONFIG" --bindir)
. "$here/test/bench/lib.sh"
queues=("${@:-sparse_2k sparse_100k single rules}")
# shellcheck disable=SC2206
queues=(${queues[*]})
port=$(($(mm_base) + 8))
dir=$(mm_tmpdir)/mm-kept-cg-$port
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is missing (apt-get install valgrind)" >&2; exit 1; }

bash test/cluster.sh build >/dev/null
throwaway_cluster "$dir" "$port" <<CONF
shared_buffers = 512MB
max_parallel_workers_per_gather = 0
CONF
psql -X -q -d postgres -c "CREATE DATABASE bench_kept_cg"
psql -X -q -d bench_kept_cg -c "CREATE EXTENSION mm"
psql -X -q -d bench_kept_cg -v ON_ERROR_STOP=1 -f test/bench/tick_kept/setup.sql >/dev/null
as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null

declare -A per
for q in "${queues[@]}"; do
	declare -A ir=()
	for n in 3 13; do
		printf "SET mm.keep_tick_input = 'always';\nCALL bench_kept_ticks('%s', %s, refill => false);\n" "$q" "$n" |
			as_owner valgrind --tool=callgrind --toggle-collect=mm_tick --callgrind-out-file="$dir/cg.$q.$n" \
				"$bindir/postgres" --single -D "$dir/data" -c client_min_messages=warning bench_kept_cg >/dev/null 2>"$dir/vg.$q.$n"
		ir[$n]=$(sed -n 's/^summary: //p' "$dir/cg.$q.$n")
	done
	per[$q]=$(((ir[13] - ir[3]) / 10))
	unset ir
done

echo "| queue | instructions per steady tick (callgrind, mm_tick) |"
echo "|---|---:|"
for q in "${queues[@]}"; do
	printf '| %s | %s |\n' "$q" "${per[$q]}"
done
ratio() { [ -n "${per[$1]:-}" ] && [ -n "${per[$2]:-}" ] && awk -v a="${per[$1]}" -v b="${per[$2]}" -v x="$1" -v y="$2" 'BEGIN {printf "%s vs %s: %.2fx\n", x, y, a / b}'; }
echo
ratio sparse_100k sparse_2k || true
ratio dense_100k dense_2k || true
ratio rules single || true
