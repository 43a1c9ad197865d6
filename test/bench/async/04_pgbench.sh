# pgbench, 2 clients, 8 s: find_opponent then put the attacker back (tps in out/async_pgbench.txt)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${MM_ROOT:-$here/../../..}/test/bench/out
mkdir -p "$out"
bindir=$("${PG_CONFIG:-pg_config}" --bindir)
"$bindir/pgbench" -n -c 2 -j 2 -T 8 -f "$here/find_put.pgbench" >"$out/async_pgbench.log" 2>&1
tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$out/async_pgbench.log")
failed=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$out/async_pgbench.log")
echo "$(date -u +%FT%TZ) tps=$tps failed=${failed:-?}" >>"$out/async_pgbench.txt"
echo "tps=$tps"
