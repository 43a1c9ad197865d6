#!/usr/bin/env bash
# A whole service loop through pgbouncer in pool_mode = transaction, as
# game backends reach PostgreSQL through a pooler: each statement its own
# transaction on whatever server connection is free, no LISTEN, no session
# state. Six backends (test/pooler/loop.py, Debian's python3-psycopg2) log
# in with only the service role, queue their players, read the queue's
# event feed (mm.events, waiting inside the statement), accept the ready
# checks of their players (and decline some), claim matches and report
# them; a seventh connection ticks. pgbouncer gets 4 server connections
# for 7 clients. Checks:
#   - pgbouncer ran in transaction mode and served more clients than it
#     had server connections;
#   - every backend saw every event of the feed once, in order, and so
#     every proposal exactly once;
#   - no ready check timed out (every proposal reached its players);
#   - every match that became ready was claimed and reported once, by one
#     backend, and every rating it rated moved;
#   - nothing was left proposed or open.
# SKIP when pgbouncer or python3-psycopg2 is not installed (test/cluster.sh
# deps installs both). TAP lines "ok - ..." / "not ok - ...".
set -uo pipefail
cd "${MM_ROOT:?}"
db=mm_pooler
role=mm_suite_pooler
fail=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }
skip() { echo "ok - $1 # SKIP $2"; }
py=/usr/bin/python3

if ! bash test/pgbouncer.sh available; then
	skip "service loop through pgbouncer in transaction mode" "pgbouncer is not installed (apt-get install pgbouncer)"
	exit 0
fi
if ! "$py" -c 'import psycopg2' 2>/dev/null; then
	skip "service loop through pgbouncer in transaction mode" "python3-psycopg2 is not installed"
	exit 0
fi

work=$(mktemp -d "${MM_TMPDIR:-/tmp}"/mm-pooler.XXXXXX)
# the server itself (the clients below reach it through pgbouncer)
server_host=${PGHOST:-} server_port=${PGPORT:-}
cleanup() {
	[ -n "${sampler:-}" ] && kill "$sampler" 2>/dev/null
	bash test/pgbouncer.sh stop test
	export PGHOST=$server_host PGPORT=$server_port
	psql -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" \
		-c "DROP ROLE IF EXISTS $role" >/dev/null 2>&1
	[ -n "${created:-}" ] && psql -X -q -d postgres -c "DROP ROLE IF EXISTS $created" >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT

psql -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" \
	-c "DROP ROLE IF EXISTS $role" -c "CREATE DATABASE $db" >/dev/null || exit 1
created=$(psql -X -q -At -d "$db" -v ON_ERROR_STOP=1 -c "CREATE EXTENSION mm" \
	-c "SELECT string_agg(quote_ident(role), ', ') FROM mm.grant_roles() WHERE created") ||
	{ notok "pooler database set up"; exit 1; }
psql -X -q -d "$db" -v ON_ERROR_STOP=1 >/dev/null <<SQL || { notok "pooler database set up"; exit 1; }
CREATE ROLE $role LOGIN IN ROLE mm_service;
-- 1v1, a 30-second ready check: long enough that a proposal that reaches
-- its players is always answered in time
SELECT mm.create_queue('pooled', '{"team_size": 1, "filter": {"potentials_min": 1}, "accept_timeout": 30}');
SQL

size=4
if ! bash test/pgbouncer.sh start test "$size" >"$work/start.log" 2>&1; then
	notok "pgbouncer started in transaction mode"
	sed 's/^/#   /' "$work/start.log"
	exit 1
fi
eval "$(bash test/pgbouncer.sh env test)"
admin() { psql -X -At -F ' ' -U postgres -d pgbouncer -c "$1"; }
# pgbouncer makes the pool when the first client comes: ask for it
psql -X -At -U "$role" -d "$db" -c "SELECT 1" >/dev/null
mode=$(admin "SHOW POOLS" | awk -v d="$db" -v u="$role" '$1 == d && $2 == u {print $NF}' | head -1)

# the sampler: the service role's client and server connections, twice a second
(
	while true; do
		echo "$(admin "SHOW CLIENTS" | awk -v d="$db" -v u="$role" '$2 == u && $3 == d' | wc -l) $(admin "SHOW SERVERS" | awk -v d="$db" -v u="$role" '$2 == u && $3 == d' | wc -l)"
		sleep 0.5
	done
) >"$work/samples" 2>/dev/null &
sampler=$!

PGUSER=$role PGDATABASE=$db timeout 300 "$py" test/pooler/loop.py check --queue pooled --clients 6 --players 4 \
	--seconds "${MM_POOLER_SECONDS:-12}" --max-wait-ms 200 --decline-every 13 --check-user postgres >"$work/out.json" 2>"$work/err"
status=$?
kill "$sampler" 2>/dev/null
sampler=
if [ "$status" != 0 ] || [ ! -s "$work/out.json" ]; then
	notok "the service loop ran through pgbouncer (exit status $status)"
	sed 's/^/#   /' "$work/err" | tail -20
	exit 1
fi
get() { "$py" -c "import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$work/out.json" "$1"; }
echo "# $(cat "$work/out.json")"

max_clients=$(awk 'BEGIN {m = 0} $1 > m {m = $1} END {print m}' "$work/samples")
max_servers=$(awk 'BEGIN {m = 0} $2 > m {m = $2} END {print m}' "$work/samples")
if [ "$mode" = transaction ] && [ "$max_servers" -le "$size" ] && [ "$max_clients" -gt "$size" ]; then
	ok "pgbouncer in transaction mode served up to $max_clients clients over at most $max_servers server connections"
else
	notok "pgbouncer in transaction mode served more clients than server connections (mode $mode, clients $max_clients, servers $max_servers)"
fi
if [ "$(get errors)" = "[]" ]; then
	ok "no backend call failed"
else
	notok "no backend call failed: $(get errors | cut -c1-400)"
fi
clients=$(get clients)
proposed=$(get proposed)
if [ "$(get clients_seeing_every_event_once_in_order)" = "$clients" ] && [ "$(get events)" -gt 0 ]; then
	ok "each of the $clients backends saw every one of the $(get events) events once, in order"
else
	notok "each backend saw every event once, in order ($(get clients_seeing_every_event_once_in_order) of $clients did)"
fi
if [ "$(get clients_seeing_every_proposal_once)" = "$clients" ] && [ "$proposed" -ge 10 ]; then
	ok "each backend saw every one of the $proposed proposals exactly once"
else
	notok "each backend saw every proposal exactly once ($(get clients_seeing_every_proposal_once) of $clients did; $proposed proposals)"
fi
if [ "$(get timeouts)" = 0 ]; then
	ok "no ready check timed out ($(get declines) declined on purpose)"
else
	notok "no ready check timed out ($(get timeouts) did)"
fi
matched=$(get matched)
if [ "$(get reported_equals_matched)" = True ] && [ "$(get results)" = "$matched" ] &&
	[ "$(get distinct_results)" = "$matched" ] && [ "$(get reported_calls)" = "$matched" ] && [ "$matched" -ge 5 ]; then
	ok "each of the $matched matches made ready was claimed and reported once"
else
	notok "each match made ready was claimed and reported once (matched $matched, reports $(get reported_calls), distinct $(get reported_distinct), results $(get results))"
fi
if [ "$(get rated_players)" -gt 0 ] && [ "$(get ratings_moved)" = "$(get rated_players)" ]; then
	ok "every one of the $(get rated_players) ratings a result rated moved"
else
	notok "every rating moved ($(get ratings_moved) of $(get rated_players))"
fi
if [ "$(get left_open)" = 0 ]; then
	ok "no match left proposed or unreported after the loop drained"
else
	notok "no match left proposed or unreported after the loop drained ($(get left_open) left)"
fi
exit $fail
