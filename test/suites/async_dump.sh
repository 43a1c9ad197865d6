#!/usr/bin/env bash
# Async pools survive pg_dump and restore exactly: every table the pool owns
# (pools, entries, the sizing model, the rebalancing sample) and both id
# sequences are dumped with the extension's data. Fill is not stored (it is
# counted from the entries), so there is nothing to recount. The suite
# compares every table's full contents, and rebalancing after the restore
# gives the same sizes as rebalancing the source.
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
# a skewed pool: buckets 3..5 get 380, 600 and 20 puts; capacities are
# small, so old entries are replaced and the sample holds more than the
# entries do (a restore that rebuilt it from the entries would differ)
q "$src" "SELECT mm.create_pool('arena', '{\"bucket_initial_size\": 40, \"bucket_min_size\": 2, \"player_cache_size\": 1000}');
          SELECT count(mm.put_entry('arena', i, CASE WHEN i <= 380 THEN 1000 WHEN i <= 980 THEN 1400 ELSE 1700 END + i % 7,
                                    CASE WHEN i % 3 = 0 THEN '{eu}' ELSE '{}' END::text[],
                                    jsonb_build_object('i', i))) FROM generate_series(1, 1000) i;
          SELECT count(*) FROM mm.rebalance_pool('arena');
          SELECT count(mm.put_entry('arena', i, 1000 + i % 50)) FROM generate_series(2001, 2030) i;
          SELECT mm.create_pool('plain');
          SELECT mm.put_entry('plain', 1, 1500, '{us}', '{\"deck\": [1, 2]}');" >/dev/null

# every table's rows in a fixed order, and the sequences
declare -A table=(
	[pools]="SELECT pool, config, created_at FROM mm.async_pools ORDER BY pool"
	[entries]="SELECT entry_id, pool, player_id, mmr, labels, model, updated_at FROM mm.async_entries ORDER BY entry_id"
	[bucket sizes]="SELECT pool, labels, bucket, capacity FROM mm.async_bucket_sizes ORDER BY pool, labels, bucket"
	[samples]="SELECT sample_id, pool, labels, bucket, inserts FROM mm.async_samples ORDER BY sample_id"
	[sequences]="SELECT (SELECT last_value FROM mm.async_entries_entry_id_seq), (SELECT last_value FROM mm.async_samples_sample_id_seq)"
)
# the suite must see every table of the pool: a new one must be added above
check "the suite compares every async table" \
	"$(q "$src" "SELECT string_agg(c::regclass::text, ' ' ORDER BY c::regclass::text) FROM pg_extension, unnest(extconfig) c WHERE extname = 'mm' AND c::regclass::text LIKE 'mm.async%'")" \
	"mm.async_bucket_sizes mm.async_entries mm.async_entries_entry_id_seq mm.async_pools mm.async_samples mm.async_samples_sample_id_seq"
declare -A before=()
for t in "${!table[@]}"; do
	before[$t]=$(q "$src" "${table[$t]}")
done
buckets="SELECT string_agg(format('%s/%s/%s/%s/%s', labels, bucket, fill, capacity, inserts), ' ' ORDER BY labels, bucket) FROM mm.pool_buckets('arena')"
before_buckets=$(q "$src" "$buckets")

# a file of this run's own (two runs on one host must not share a path)
dump=$(mktemp "${MM_TMPDIR:-/tmp}/mm-async-dump.XXXXXX")
"$bindir/pg_dump" -Fc -d "$src" -f "$dump"
"$bindir/pg_restore" -d "$dst" "$dump" 2>&1 | grep -v '^$' | sed 's/^/# /'
rm -f "$dump"

for t in pools entries "bucket sizes" samples sequences; do
	after=$(q "$dst" "${table[$t]}")
	check "$t restored exactly ($(echo "${before[$t]}" | wc -l) rows)" "$(echo "$after" | md5sum)" "$(echo "${before[$t]}" | md5sum)"
done
check "bucket fill, capacity and sample restored" "$(q "$dst" "$buckets")" "$before_buckets"
rebalance="SELECT string_agg(format('%s:%s:%s', labels, bucket, capacity), ' ' ORDER BY labels, bucket) FROM mm.rebalance_pool('arena')"
src_sizes=$(q "$src" "$rebalance")
check "rebalancing the restored pool gives the source's sizes ($src_sizes)" "$(q "$dst" "$rebalance")" "$src_sizes"
check "the rebalanced pools are equal too" "$(q "$dst" "${table[entries]}" | md5sum)" "$(q "$src" "${table[entries]}" | md5sum)"
check "entry ids continue after the restored ones" \
	"$(q "$dst" "SELECT mm.put_entry('arena', 9999, 1500) > (SELECT max(entry_id) FROM mm.async_entries WHERE player_id <> 9999)")" "t"
check "find_opponent works on the restored pool" \
	"$(q "$dst" "SELECT result FROM mm.find_opponent('arena', 1500, searcher => 9999)")" "success"

"$bindir/dropdb" "$src"
"$bindir/dropdb" "$dst"
exit $fail
