# pgbench of find_opponent + put_entry on the 1M-entry pool of setup.sql
# (30 buckets x 2 labels of ~16,700 entries, capacity 1M: nothing is ever
# replaced, every put that moves a player adds to a bucket far from full),
# fsync and synchronous_commit on, in a database of its own made on the
# first run and kept for the next ones (teardown.sh drops it); appends tps
# to out/async_large.txt.
# Usage: large.sh SCRIPT (find_put: mm.put_entry; plain_put: the same
# writes by hand, the baseline)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${MM_ROOT:-$here/../../..}/test/bench/out
mkdir -p "$out"
bindir=$("${PG_CONFIG:-pg_config}" --bindir)
script=${1:?find_put or plain_put}
db=bench_async_large
if [ -z "$(psql -X -At -d postgres -c "SELECT 1 FROM pg_database WHERE datname = '$db'")" ]; then
	psql -X -q -d postgres -c "CREATE DATABASE $db"
	psql -X -q -d "$db" -v ON_ERROR_STOP=1 >/dev/null <<SQL
CREATE EXTENSION mm;
\i $here/setup.sql
SQL
fi
psql -X -q -d postgres -c "ALTER SYSTEM SET fsync = on" -c "SELECT pg_reload_conf()" >/dev/null
PGOPTIONS="-c synchronous_commit=on" "$bindir/pgbench" -n -c 2 -j 2 -T 5 -f "$here/$script.pgbench" "$db" >"$out/async_large.log" 2>&1 || true
psql -X -q -d postgres -c "ALTER SYSTEM RESET fsync" -c "SELECT pg_reload_conf()" >/dev/null
tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$out/async_large.log")
failed=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$out/async_large.log")
echo "$(date -u +%FT%TZ) script=$script tps=$tps failed=${failed:-?}" >>"$out/async_large.txt"
[ -n "$tps" ] || { cat "$out/async_large.log" >&2; exit 1; }
echo "tps=$tps"
