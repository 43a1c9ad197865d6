# pgbench of find_opponent + put_entry on full buckets of capacity 1000,
# fsync and synchronous_commit on, in a database of its own with the given
# extension version (current; 0.1.0 no longer runs beside the 0.2.0 library,
# which refuses its SQL objects); appends tps to out/async_capped.txt.
# Usage: capped.sh VERSION (empty: the default version)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${MM_ROOT:-$here/../../..}/test/bench/out
mkdir -p "$out"
bindir=$("${PG_CONFIG:-pg_config}" --bindir)
version=${1:-}
db=bench_async_capped
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
psql -X -q -d "$db" -v ON_ERROR_STOP=1 >/dev/null <<SQL
CREATE EXTENSION mm ${version:+VERSION '$version'};
-- 30 buckets x 2 labels, each full at its capacity of 1000
SELECT mm.create_pool('capped', '{"mmr_bucket_count": 30, "bucket_initial_size": 1000}');
INSERT INTO mm.async_entries (pool, player_id, mmr, labels)
SELECT 'capped', 1000000 + 60000 * l + 1000 * b + k, 100 * b + (k - 1) / 10.0,
       CASE WHEN l = 0 THEN '{eu}'::text[] ELSE '{us}'::text[] END
FROM generate_series(0, 1) l, generate_series(0, 29) b, generate_series(1, 1000) k;
VACUUM ANALYZE mm.async_entries;
ALTER SYSTEM SET fsync = on;
SELECT pg_reload_conf();
SQL
cat >"$out/capped.pgbench" <<'PGB'
\set x random(0, 2999)
\set p random(1, 2000000)
SELECT * FROM mm.find_opponent('capped', :x, '{eu}', 0, '{}', :p);
SELECT mm.put_entry('capped', :p, :x, '{eu}');
PGB
PGOPTIONS="-c synchronous_commit=on" "$bindir/pgbench" -n -c 2 -j 2 -T 5 -f "$out/capped.pgbench" "$db" >"$out/async_capped.log" 2>&1 || true
psql -X -q -d postgres -c "ALTER SYSTEM RESET fsync" -c "SELECT pg_reload_conf()" >/dev/null
tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$out/async_capped.log")
failed=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$out/async_capped.log")
over=$(psql -X -At -d "$db" -c "SELECT count(*) FROM (SELECT labels, mm.async_bucket(p.config, e.mmr) FROM mm.async_entries e JOIN mm.async_pools p USING (pool) GROUP BY 1, 2 HAVING count(*) > 1000) o")
echo "$(date -u +%FT%TZ) version=${version:-current} tps=$tps failed=${failed:-?} buckets_over_capacity=$over" >>"$out/async_capped.txt"
psql -X -q -d postgres -c "DROP DATABASE $db"
[ -n "$tps" ] || { cat "$out/async_capped.log" >&2; exit 1; }
echo "tps=$tps"
