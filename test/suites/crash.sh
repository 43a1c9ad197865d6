#!/usr/bin/env bash
# Crash safety on a durable cluster (fsync, full_page_writes and
# synchronous_commit on: test/cluster.sh's "crash" cluster). Clients enqueue
# rosters, tick a queue, store async entries and find (offer) opponents, and
# place players on servers, each statement its own transaction, and log what
# the server acknowledged; the postmaster is then stopped mid-work, once by
# an immediate shutdown and once by kill -9 of it and all its children (the
# operating system itself survives). After recovery:
#   - every acknowledged write is there (rosters waiting or matched, matches
#     with their rosters, entries present or taken by a search, players on
#     the server they were told);
#   - every invariant holds (a player in at most one waiting roster and a
#     roster in the queue or in a match, never both; matches of two teams;
#     bucket fill counts equal to the entries; server occupancy equal to its
#     players; btree indexes intact);
#   - mm still works (enqueue and tick).
# Bounded: a few seconds of work per round. To test a new write path, add a
# client (a workload function and a log check) below.
# TAP lines "ok - ..." / "not ok - ...".
set -uo pipefail
cd "${MM_ROOT:?}"
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
fail=0
as_owner() {
	if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }
work=$(mktemp -d)
cluster=test/cluster.sh
bindir=$("$PG_CONFIG" --bindir)
seconds=${MM_CRASH_SECONDS:-3}

cleanup() {
	jobs -p | xargs -r kill 2>/dev/null
	bash "$cluster" stop crash
	# the cluster is this suite's alone: keep its files only when it failed
	if [ "$fail" = 0 ] && [ -n "${PGHOST:-}" ] && [ -f "$PGHOST/.mm-cluster" ]; then
		rm -rf "$PGHOST"
	fi
	rm -rf "$work"
}
trap cleanup EXIT

if ! bash "$cluster" start crash >"$work/start.log" 2>&1; then
	notok "durable cluster started"
	cat "$work/start.log" | sed 's/^/#   /'
	exit 1
fi
# this suite's own cluster, not the test cluster of the other suites
eval "$(bash "$cluster" env crash)"
export PGHOST PGPORT PGUSER PGDATABASE=mm_crash
datadir=$PGHOST/data
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }

settings=$(q -d postgres -c "SELECT string_agg(name || '=' || setting, ' ' ORDER BY name) FROM pg_settings WHERE name IN ('fsync', 'full_page_writes', 'synchronous_commit')")
if [ "$settings" = "fsync=on full_page_writes=on synchronous_commit=on" ]; then
	ok "the crash cluster is durable ($settings)"
else
	notok "the crash cluster is durable ($settings)"
fi

q -d postgres -c "CREATE DATABASE mm_crash" &&
	q -c "CREATE EXTENSION mm" -c "CREATE EXTENSION amcheck" \
		-c "SELECT mm.create_queue('crash', '{\"team_size\": 1, \"filter\": {\"potentials_min\": 1}, \"requeue_while_in_match\": true}')" \
		-c "SELECT mm.create_pool('crash', '{\"mmr_bucket_count\": 10}')" \
		-c "SELECT mm.set_place_config('crash', '{}')" \
		-c "SELECT count(mm.add_server('crash', 100000, '{\"region\": \"eu\"}')) FROM generate_series(1, 4)" >/dev/null ||
	{ notok "database set up"; exit 1; }

# Clients. Each runs statements in autocommit and prints a line per
# acknowledged statement: the server answers after the commit, so a logged
# line is a committed write. stdbuf: each line reaches the log at once.
client() {
	stdbuf -oL psql -X -q -At -v ON_ERROR_STOP=1 -f - >"$work/$1.$round.log" 2>/dev/null
}
# rosters of one new player each (player ids unique per round)
enqueuer() {
	for i in $(seq 1 100000); do
		echo "SELECT 'E ' || mm.enqueue('crash', ARRAY[${round}000000 + $i]::bigint[], 1500 + $i % 300, 20, joined_at => now());"
	done | client enqueue
}
# ticks; each match's id and roster ids
ticker() {
	for _ in $(seq 1 100000); do
		echo "SELECT 'T ' || coalesce(string_agg(match_id || ':' || roster_id, ' '), '') FROM mm.tick('crash');"
	done | client tick
}
# async entries stored, and opponents found (an offer takes the entry)
pooler() {
	for i in $(seq 1 100000); do
		echo "SELECT 'P ' || mm.put_entry('crash', ${round}000000 + $i, 1000 + $i % 500, '{eu}', '{}');"
		echo "SELECT 'F ' || player_id FROM mm.find_opponent('crash', 1200, '{eu}') WHERE result = 'success';"
	done | client pool
}

# players placed on servers (placement)
placer() {
	for i in $(seq 1 100000); do
		echo "SELECT 'J ' || ${round}000000 + $i || ' ' || mm.join_server('crash', ${round}000000 + $i, '{\"age\": 20, \"language\": \"en\", \"voice_chat\": true, \"play_history\": 1, \"latency\": {\"eu\": 30}}');"
	done | client place
}

# Run the clients for a while, then crash the server the given way.
crash_round() {
	local how=$1 pid children
	enqueuer &
	ticker &
	pooler &
	placer &
	sleep "$seconds"
	pid=$(head -1 "$datadir/postmaster.pid")
	case "$how" in
		immediate)
			as_owner "$bindir/pg_ctl" -D "$datadir" -m immediate -w stop >/dev/null 2>&1
			;;
		kill9)
			# the postmaster and every child at once (the operating system survives:
			# what fsync adds against its crash is not simulated here)
			children=$(pgrep -P "$pid" | tr '\n' ' ')
			kill -9 "$pid" $children 2>/dev/null
			for _ in $(seq 50); do
				kill -0 "$pid" $children 2>/dev/null || break
				sleep 0.1
			done
			;;
	esac
	wait
	as_owner "$bindir/pg_ctl" -D "$datadir" -l "$PGHOST/server.log" -w -t 60 start >/dev/null 2>&1
}

# What the clients logged as committed is in the database.
check_logged() {
	local how=$1 e t p f missing
	cat "$work"/enqueue.*.log | sed -n 's/^E //p' | sort -u >"$work/rosters"
	cat "$work"/tick.*.log | sed -n 's/^T //p' | tr ' ' '\n' | grep : | sort -u >"$work/matched"
	cat "$work"/pool.*.log | sed -n 's/^P //p' | sort -u >"$work/entries"
	cat "$work"/pool.*.log | sed -n 's/^F //p' | sort -u >"$work/found"
	e=$(wc -l <"$work/rosters")
	t=$(wc -l <"$work/matched")
	p=$(wc -l <"$work/entries")
	f=$(wc -l <"$work/found")
	# An entry may be gone only if an opponent search took it: compare the
	# entries missing with the number of acknowledged finds.
	missing=$(q <<SQL
CREATE TEMP TABLE logged_rosters (roster_id bigint);
CREATE TEMP TABLE logged_matched (pair text);
CREATE TEMP TABLE logged_entries (entry_id bigint);
\copy logged_rosters FROM '$work/rosters'
\copy logged_matched FROM '$work/matched'
\copy logged_entries FROM '$work/entries'
SELECT (SELECT count(*) FROM logged_rosters l
        WHERE NOT EXISTS (SELECT FROM mm.roster r WHERE r.roster_id = l.roster_id)
          AND NOT EXISTS (SELECT FROM mm.match_roster m WHERE m.roster_id = l.roster_id))
       || ' ' ||
       (SELECT count(*) FROM logged_matched l
        WHERE NOT EXISTS (SELECT FROM mm.match_roster m
                          WHERE m.match_id = split_part(l.pair, ':', 1)::bigint
                            AND m.roster_id = split_part(l.pair, ':', 2)::bigint))
       || ' ' ||
       (SELECT count(*) FROM logged_entries l
        WHERE NOT EXISTS (SELECT FROM mm.async_entries a WHERE a.entry_id = l.entry_id))
SQL
)
	set -- $missing
	if [ "$e" -gt 0 ] && [ "$t" -gt 0 ] && [ "$p" -gt 0 ] && [ "${1:-x}" = 0 ] && [ "${2:-x}" = 0 ]; then
		ok "after $how: every acknowledged enqueue ($e) and matched roster ($t) is there"
	else
		notok "after $how: every acknowledged enqueue and matched roster is there (logged $e enqueues, $t matched; missing ${1:-?} rosters, ${2:-?} matched)"
	fi
	# an entry is gone only when an acknowledged or in-flight search took it
	if [ "$p" -gt 0 ] && [ -n "${3:-}" ] && [ "$3" -le $((f + 2)) ]; then
		ok "after $how: every acknowledged async entry ($p) is there or was taken by a search ($3 taken, $f searches acknowledged)"
	else
		notok "after $how: every acknowledged async entry is there or was taken by a search (logged $p, ${3:-?} gone, $f searches acknowledged)"
	fi
}

# Every acknowledged join is there, on the server it was told.
check_placed() {
	local how=$1 n missing
	cat "$work"/place.*.log | sed -n 's/^J //p' | sort -u >"$work/placed"
	n=$(wc -l <"$work/placed")
	missing=$(q <<SQL
CREATE TEMP TABLE logged_placed (player_id bigint, server_id bigint);
\copy logged_placed FROM '$work/placed' WITH (DELIMITER ' ')
SELECT count(*) FROM logged_placed l
WHERE NOT EXISTS (SELECT FROM mm.server_players p WHERE p.player_id = l.player_id AND p.server_id = l.server_id);
SQL
)
	if [ "$n" -gt 0 ] && [ "$missing" = 0 ]; then
		ok "after $how: every acknowledged join ($n) is on its server"
	else
		notok "after $how: every acknowledged join is on its server (logged $n, missing ${missing:-?})"
	fi
}

# The invariants, each a count of violations.
check_invariants() {
	local how=$1 out
	out=$(q <<'SQL'
SELECT 'queued players whose roster is not waiting in their queue: ' ||
       (SELECT count(*) FROM mm.queued_player qp
        WHERE NOT EXISTS (SELECT FROM mm.roster r WHERE r.roster_id = qp.roster_id AND r.queue_id = qp.queue_id));
SELECT 'players seated twice in one roster: ' ||
       (SELECT count(*) FROM (SELECT roster_id, seat FROM mm.queued_player GROUP BY 1, 2 HAVING count(*) > 1) d);
SELECT 'rosters both waiting and matched: ' || (SELECT count(*) FROM mm.roster r JOIN mm.match_roster m USING (roster_id) WHERE r.match_id IS NULL);
SELECT 'matches without one red and one blue roster: ' ||
       (SELECT count(*) FROM mm.match m
        WHERE (SELECT count(*) FILTER (WHERE team = 'red') || '/' || count(*) FILTER (WHERE team = 'blue')
               FROM mm.match_roster mr WHERE mr.match_id = m.match_id) <> '1/1');
SELECT 'matched rosters without a match: ' || (SELECT count(*) FROM mm.match_roster mr WHERE NOT EXISTS (SELECT FROM mm.match m WHERE m.match_id = mr.match_id));
SELECT 'async buckets above their capacity: ' ||
       (SELECT count(*) FROM mm.async_pools p, mm.pool_buckets(p.pool) b WHERE b.fill > b.capacity);
SELECT 'servers whose occupancy is not their players: ' ||
       (SELECT count(*) FROM mm.servers s
        WHERE s.occupancy <> (SELECT count(*) FROM mm.server_players p WHERE p.server_id = s.server_id));
-- bt_index_check raises an error on a corrupt index: the line shows only if all pass
SELECT 'indexes failing amcheck: 0'
FROM (SELECT count(bt_index_check(c.oid, true)) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      JOIN pg_am a ON a.oid = c.relam
      WHERE c.relnamespace = 'mm'::regnamespace AND a.amname = 'btree') x;
SQL
)
	if [ -n "$out" ] && ! echo "$out" | grep -qv ': 0$'; then
		ok "after $how: every invariant holds ($(echo "$out" | wc -l) checked, indexes pass amcheck)"
	else
		notok "after $how: every invariant holds"
		echo "$out" | sed 's/^/#   /'
	fi
}

check_works() {
	local how=$1 out
	out=$(q -c "SELECT mm.enqueue('crash', ARRAY[p]::bigint[], 1500, 20) FROM generate_series(900000001, 900000002) p" \
		-c "SELECT count(*) FROM mm.tick('crash') t WHERE t.roster_id IN (SELECT roster_id FROM mm.roster UNION ALL SELECT roster_id FROM mm.match_roster)" 2>&1 | tail -1)
	if [ "${out:-0}" -ge 2 ] 2>/dev/null; then
		ok "after $how: mm still enqueues and ticks ($out rosters matched)"
	else
		notok "after $how: mm still enqueues and ticks ($out)"
	fi
}

for how in immediate kill9; do
	round=$([ "$how" = immediate ] && echo 1 || echo 2)
	crash_round "$how"
	if q -c "SELECT 1" >/dev/null 2>&1; then
		ok "recovered after $how"
	else
		notok "recovered after $how"
		tail -20 "$PGHOST/server.log" | sed 's/^/#   /'
		exit 1
	fi
	check_logged "$how"
	check_placed "$how"
	check_invariants "$how"
	check_works "$how"
done
exit $fail
