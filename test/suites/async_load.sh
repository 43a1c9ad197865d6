#!/usr/bin/env bash
# The async pool under load: pgbench clients attack (find_opponent, which
# removes the offered entry) and put their own entry back, at once, into a
# pool of three buckets of capacity 5 that removes offered entries from full
# buckets only, so that buckets are full, entries are replaced and players
# move between buckets all the time. No error (no
# deadlock), no bucket above its capacity, never two entries of one player.
set -uo pipefail
db=mm_async_load
bindir=$("${PG_CONFIG:-pg_config}" --bindir)
work=$(mktemp -d "${MM_TMPDIR:-/tmp}"/mm-async-load.XXXXXX)
trap 'rm -rf "$work"; psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1' EXIT
fail=0
check() {
	if [ "$2" = "$3" ]; then echo "ok - $1"; else echo "not ok - $1 (got '$2', want '$3')"; fail=1; fi
}
q() { psql -X -At -d "$db" -c "$1"; }

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null 2>&1
psql -X -q -d "$db" -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
CREATE EXTENSION mm;
-- offered entries are removed only from full buckets, so buckets stay full
SELECT mm.create_pool('load', '{"mmr_bucket_count": 3, "bucket_initial_size": 5, "bucket_min_size": 1,
                                "player_remove_after_candidate_offer_threshold": 1}');
SELECT mm.put_entry('load', p, p * 97 % 3000) FROM generate_series(1, 15) p;
SQL
cat >"$work/attack.sql" <<'SQL'
\set x random(0, 2999)
\set p random(1, 40)
SELECT * FROM mm.find_opponent('load', :x, '{}', 0, '{}', :p);
SELECT mm.put_entry('load', :p, :x);
SQL
if "$bindir/pgbench" -n -c 4 -j 2 -t 300 -f "$work/attack.sql" "$db" >"$work/pgbench.log" 2>&1; then
	echo "ok - 4 pgbench clients ran 1200 attacks without an error"
else
	echo "not ok - pgbench attacks failed"; sed 's/^/# /' "$work/pgbench.log" | tail -20; fail=1
fi
check "no bucket above its capacity" \
	"$(q "SELECT count(*) FROM mm.pool_buckets('load') WHERE fill > capacity")" 0
check "no player with two entries" \
	"$(q "SELECT count(*) FROM (SELECT player_id FROM mm.async_entries GROUP BY 1 HAVING count(*) > 1) d")" 0
check "fill equals the entries of each bucket" \
	"$(q "SELECT count(*) FROM mm.pool_buckets('load') b, mm.async_pools p
	      WHERE p.pool = 'load' AND b.fill <> (SELECT count(*) FROM mm.async_entries e
	                                           WHERE mm.async_bucket(p.config, e.mmr) = b.bucket)")" 0
check "40 players share at most the 15 places of the pool" \
	"$(q "SELECT count(*) BETWEEN 1 AND 15 FROM mm.async_entries")" t
exit $fail
