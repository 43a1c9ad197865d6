# Run one pgbench script at 2 clients, 1,500 transactions each, and log
# tps and p99 latency to out/report_result_pgbench.txt. Used by the cases.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${MM_ROOT:-$here/../../..}/test/bench/out
mkdir -p "$out"
bindir=$("${PG_CONFIG:-pg_config}" --bindir)
name=$1
logdir=$(mktemp -d "${MM_TMPDIR:-/tmp}"/mm-bench-report.XXXXXX)
trap 'rm -rf "$logdir"' EXIT
(cd "$logdir" && "$bindir/pgbench" -n -c 2 -j 2 -t 1500 -l -f "$here/$name.pgbench" >"$out/report_result_$name.log" 2>&1)
tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$out/report_result_$name.log")
failed=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$out/report_result_$name.log")
# pgbench's per-transaction log: the third field is the latency in microseconds
p99=$(cat "$logdir"/pgbench_log.* | awk '{print $3}' | sort -n | awk '{a[NR] = $1} END {print a[int(NR * 0.99)] / 1000}')
echo "$(date -u +%FT%TZ) $name tps=$tps p99_ms=$p99 failed=${failed:-?}" >>"$out/report_result_pgbench.txt"
echo "$name tps=$tps p99_ms=$p99"
