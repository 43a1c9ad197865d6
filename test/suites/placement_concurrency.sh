#!/usr/bin/env bash
# Placement under load: pgbench clients join and leave one place's servers at
# once; no server ever goes above its capacity, and each server's occupancy
# and aggregates equal what its players say. Prints TAP lines.
set -uo pipefail

db=mm_placement_concurrency
bindir=$("${PG_CONFIG:-pg_config}" --bindir)
work=$(mktemp -d "${MM_TMPDIR:-/tmp}"/mm-placement-conc.XXXXXX)
trap 'rm -rf "$work"; psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1' EXIT
fail=0
check() {
	if [ "$2" = "$3" ]; then echo "ok - $1"; else echo "not ok - $1 (got '$2', want '$3')"; fail=1; fi
}

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null 2>&1
psql -X -q -d "$db" -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
CREATE EXTENSION mm;
CREATE SEQUENCE joiner_ids;
-- 20 servers of 5 slots: 100 slots for 8 clients x 20 joins = 160 joiners.
SELECT mm.add_server('conc', 5, jsonb_build_object('region', CASE WHEN i % 2 = 0 THEN 'eu' ELSE 'us' END))
FROM generate_series(1, 20) i;
SQL

cat >"$work/join.sql" <<'SQL'
SELECT mm.join_server('conc', nextval('joiner_ids'),
    jsonb_build_object('age', floor(10 + random() * 30), 'language', 'en', 'voice_chat', random() < 0.5,
                       'play_history', floor(random() * 8) / 2, 'latency', jsonb_build_object('eu', 40, 'us', 150)));
SQL
if "$bindir/pgbench" -n -c 8 -j 4 -t 20 -f "$work/join.sql" "$db" >"$work/join.log" 2>&1; then
	echo "ok - 8 pgbench clients ran 160 joins without an error"
else
	echo "not ok - pgbench joins failed"; cat "$work/join.log"; fail=1
fi

q() { psql -X -At -d "$db" -c "$1"; }
check "no server above capacity" "$(q "SELECT count(*) FROM mm.servers WHERE occupancy > capacity")" 0
check "every slot taken, no more" "$(q "SELECT count(*) FROM mm.server_players")" 100
check "occupancy equals the players on each server" \
	"$(q "SELECT count(*) FROM mm.servers s WHERE occupancy <> (SELECT count(*) FROM mm.server_players p WHERE p.server_id = s.server_id)")" 0

# half the players leave while others join: still exact
cat >"$work/churn.sql" <<'SQL'
\set leaver random(1, 160)
SELECT mm.leave_server(:leaver);
SELECT mm.join_server('conc', nextval('joiner_ids'),
    jsonb_build_object('age', 20, 'language', 'pt', 'voice_chat', true, 'play_history', 1,
                       'latency', jsonb_build_object('eu', 40, 'us', 150)));
SQL
if "$bindir/pgbench" -n -c 8 -j 4 -t 25 -f "$work/churn.sql" "$db" >"$work/churn.log" 2>&1; then
	echo "ok - 8 pgbench clients ran 200 leave-and-join transactions without an error"
else
	echo "not ok - pgbench churn failed"; cat "$work/churn.log"; fail=1
fi
check "no server above capacity after churn" "$(q "SELECT count(*) FROM mm.servers WHERE occupancy > capacity")" 0
check "occupancy equals the players after churn" \
	"$(q "SELECT count(*) FROM mm.servers s WHERE occupancy <> (SELECT count(*) FROM mm.server_players p WHERE p.server_id = s.server_id)")" 0
# the maintained aggregates equal a recount from scratch
before=$(q "SELECT md5(string_agg(server_id || ':' || occupancy || ':' || stats::text || ':' || age_n || ':' || age_sum, ',' ORDER BY server_id)) FROM mm.servers")
q "SELECT mm.refresh_servers('conc')" >/dev/null
after=$(q "SELECT md5(string_agg(server_id || ':' || occupancy || ':' || stats::text || ':' || age_n || ':' || age_sum, ',' ORDER BY server_id)) FROM mm.servers")
check "maintained aggregates equal a full recount" "$before" "$after"
exit $fail
