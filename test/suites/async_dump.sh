#!/usr/bin/env bash
# Async pools survive pg_dump and restore: pools, entries, the sizing model
# and the entry id sequence are dumped with the extension's data, and the
# fill counts (not dumped) are counted again while the entries load.
set -uo pipefail
bindir=$("${PG_CONFIG:-pg_config}" --bindir)
src=mm_async_dump_src
dst=mm_async_dump_dst
fail=0
check() {
	if [ "$2" = "$3" ]; then
		echo "ok - $1"
	else
		echo "not ok - $1"
		echo "#   expected: $3"
		echo "#   got:      $2"
		fail=1
	fi
}
q() { "$bindir/psql" -X -At -v ON_ERROR_STOP=1 -d "$1" -c "$2"; }

"$bindir/dropdb" --if-exists "$src" 2>/dev/null; "$bindir/dropdb" --if-exists "$dst" 2>/dev/null
"$bindir/createdb" "$src" && "$bindir/createdb" "$dst"
q "$src" "CREATE EXTENSION mm" >/dev/null
q "$src" "SELECT mm.create_pool('arena', '{\"bucket_initial_size\": 40, \"bucket_min_size\": 2, \"player_cache_size\": 60}');
          SELECT count(mm.put_entry('arena', i, 37 * i % 3000, CASE WHEN i % 3 = 0 THEN '{eu}' ELSE '{}' END::text[],
                                    jsonb_build_object('i', i))) FROM generate_series(1, 200) i;
          SELECT count(*) FROM mm.rebalance_pool('arena');" >/dev/null
state="SELECT string_agg(format('%s/%s/%s/%s', labels, bucket, fill, capacity), ' ' ORDER BY labels, bucket) FROM mm.pool_buckets('arena')"
entries="SELECT md5(string_agg(format('%s %s %s %s %s', entry_id, player_id, mmr, labels, model), ',' ORDER BY entry_id)) FROM mm.async_entries"
before_state=$(q "$src" "$state")
before_entries=$(q "$src" "$entries")

"$bindir/pg_dump" -Fc -d "$src" -f "/tmp/$src.dump"
"$bindir/pg_restore" -d "$dst" "/tmp/$src.dump" 2>&1 | grep -v '^$' | sed 's/^/# /'
rm -f "/tmp/$src.dump"

check "pool config restored" "$(q "$dst" "SELECT config->>'player_cache_size' FROM mm.async_pools WHERE pool = 'arena'")" "60"
check "entries restored" "$(q "$dst" "$entries")" "$before_entries"
# fill counts come back from the restored entries; the inserts sample
# restarts from what was restored, capacities come from the sizing model
check "bucket fill and capacities restored" "$(q "$dst" "$state")" "$before_state"
check "entry ids continue after the restored ones" \
	"$(q "$dst" "SELECT mm.put_entry('arena', 9999, 1500) > (SELECT max(entry_id) FROM mm.async_entries WHERE player_id <> 9999)")" "t"
check "find_opponent works on the restored pool" \
	"$(q "$dst" "SELECT result FROM mm.find_opponent('arena', 1500, searcher => 9999)")" "success"

"$bindir/dropdb" "$src"
"$bindir/dropdb" "$dst"
exit $fail
