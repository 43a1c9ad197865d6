#!/usr/bin/env bash
# Mixed load on a durable cluster, with crashes: pgbench clients
# (MM_LONG_CLIENTS, default 6) for MM_LONG_LOAD_SECONDS (default 75) over two
# queues with parties, a 2v2 queue with a ready check and a queue of three
# teams of 3 without one: enqueues, ticks, accepts and declines, backfill requests,
# results (with desertions and partial players), abandons, claims and
# leaves, each call logged with the SQLSTATE it ended with in the
# transaction that made it (test/long/mixed_load/setup.sql). During the
# load: kill -9 of a client's backend, an immediate shutdown and restart,
# and kill -9 of the backend running a tick over a queue of
# MM_LONG_BIG_ROSTERS (default 20000) rosters. Afterwards:
#   - the killed tick changed nothing, and the large queue ticks whole;
#   - every call ended committed or with a refusal the API documents for
#     that kind of call (23505, 55000, 22023; none for ticks, claims and
#     leaves): any other SQLSTATE, an error outside the calls, a backend
#     ended by a signal we did not send, a PANIC or an assertion fails;
#   - the invariants hold (mixed_load/invariants.sql: no player in two
#     waiting rosters or two open matches, every roster waiting, in one
#     match or ended, teams of team_size plus their backfilled seats,
#     results only of finished matches and of their players, no key to a
#     row that is not there, each player's reports a chain);
#   - a sequential replay of every reported result, in the order the
#     reports took their rating rows, equals the live ratings to the last
#     bit (mixed_load/replay.sql);
#   - amcheck finds every btree index of mm's tables (bt_index_parent_check
#     with heapallindexed) and every table (verify_heapam) intact;
#   - the checks fail when they should: in transactions rolled back, a
#     player put into a second open match, and a live rating moved by 1e-15
#     of itself, are seen.
# Prints TAP lines and a report: operations by kind, errors by SQLSTATE,
# violations (must be 0). Runs on test/cluster.sh's "crash" cluster (fsync,
# full_page_writes and synchronous_commit on; port MM_PORT when set).
set -uo pipefail
: "${MM_ROOT:?run by test/long/run.sh}"
cd "$MM_ROOT" || exit 1
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
# as_owner: run a command as the cluster's owner
. test/bench/lib.sh
secs=${MM_LONG_LOAD_SECONDS:-75}
big=${MM_LONG_BIG_ROSTERS:-20000}
clients=${MM_LONG_CLIENTS:-6}
cluster=test/cluster.sh
name=crash
db=mm_long
here=test/long/mixed_load
bindir=$("$PG_CONFIG" --bindir)
work=$(mktemp -d "${MM_TMPDIR:-/tmp}"/mm-mixed-load.XXXXXX)
fail=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
load_pid=

cleanup() {
	if [ -n "$load_pid" ]; then
		pkill -P "$load_pid" 2>/dev/null
		kill "$load_pid" 2>/dev/null
	fi
	bash "$cluster" stop "$name"
	# the cluster is this suite's alone: keep its files only when it failed
	if [ "$fail" = 0 ] && [ -n "${PGHOST:-}" ] && [ -f "$PGHOST/.mm-cluster" ]; then
		rm -rf "$PGHOST"
	fi
	rm -rf "$work"
}
trap cleanup EXIT

# The server answers again (crash recovery, or a restart), within a minute.
wait_up() {
	for _ in $(seq 600); do
		psql -X -At -d postgres -c "SELECT 1" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

bash "$cluster" build >"$work/build.log" 2>&1 || { cat "$work/build.log"; notok "building mm"; exit 1; }
bash "$cluster" start "$name" >"$work/start.log" 2>&1 || { cat "$work/start.log"; notok "starting the durable cluster"; exit 1; }
eval "$(bash "$cluster" env "$name")"
export PGHOST PGPORT PGUSER
datadir=$PGHOST/data
serverlog=$PGHOST/server.log
settings=$(q -d postgres -c "SELECT string_agg(name || '=' || setting, ' ' ORDER BY name) FROM pg_settings
                             WHERE name IN ('fsync', 'full_page_writes', 'synchronous_commit')")
if [ "$settings" = "fsync=on full_page_writes=on synchronous_commit=on" ]; then
	ok "the cluster is durable ($settings)"
else
	notok "the cluster is durable ($settings)"
fi
# every server log line carries its SQLSTATE
q -d postgres -c "ALTER SYSTEM SET log_line_prefix = '%m [%p] %e '" -c "SELECT pg_reload_conf()" >/dev/null

# The database, and the large queue filled through mm.enqueue.
start=$(date +%s)
if q -d postgres -c "CREATE DATABASE $db" && q -d "$db" -f "$here/setup.sql" >/dev/null &&
	q -d "$db" -c "SELECT count(mm.enqueue('big', ARRAY[10000000 + i]::bigint[], 1000 + (i * 7919) % 1000, 50,
	                                        joined_at => now() - interval '1 minute'))
	               FROM generate_series(1, $big) i" -c "ANALYZE" >/dev/null; then
	ok "database set up: queues duo (2v2, ready check) and squad (three teams of 3), $big rosters in queue big ($(($(date +%s) - start)) s)"
else
	notok "database set up"
	exit 1
fi

# The load: pgbench runs until the end, started again whenever a crash
# ended its clients.
echo "SELECT load.step();" >"$work/step.sql"
load_loop() {
	local end=$1 n=0 left
	while left=$((end - $(date +%s))) && [ "$left" -gt 0 ]; do
		n=$((n + 1))
		"$bindir/pgbench" -n -c "$clients" -j 2 -T "$left" -f "$work/step.sql" "$db" >"$work/pgbench.$n.log" 2>&1
		sleep 0.5
	done
}
t0=$(date +%s)
load_loop $((t0 + secs)) &
load_pid=$!
at() { local s=$((t0 + $1 - $(date +%s))); [ "$s" -gt 0 ] && sleep "$s"; }
killed=()

# 1. kill -9 of a client's backend: the postmaster ends every backend and
# recovers
at $((secs * 20 / 100))
pid=$(q -d postgres -c "SELECT pid FROM pg_stat_activity WHERE datname = '$db' AND application_name = 'pgbench'
                        ORDER BY state = 'active' DESC, random() LIMIT 1")
if [ -n "$pid" ] && kill -9 "$pid" && sleep 1 && wait_up; then
	killed+=("$pid")
	ok "recovered after kill -9 of a client's backend ($(($(date +%s) - t0)) s into the load)"
else
	notok "recovered after kill -9 of a client's backend (pid '${pid:-none}')"
fi

# 2. an immediate shutdown, and a start
at $((secs * 45 / 100))
if as_owner "$bindir/pg_ctl" -D "$datadir" -m immediate -w stop >/dev/null 2>&1 &&
	as_owner "$bindir/pg_ctl" -D "$datadir" -l "$serverlog" -w -t 60 start >/dev/null 2>&1 && wait_up; then
	ok "recovered after an immediate shutdown ($(($(date +%s) - t0)) s into the load)"
else
	notok "recovered after an immediate shutdown"
fi

# 3. kill -9 of the backend running a tick over the large queue, once it
# has run for 300 ms
at $((secs * 65 / 100))
PGAPPNAME=mm_long_big_tick psql -X -At -d "$db" -c "SELECT count(*) FROM mm.tick('big')" >"$work/bigtick.out" 2>&1 &
tick_pid=$!
pid=
for _ in $(seq 600); do
	pid=$(psql -X -At -d postgres -c "SELECT pid FROM pg_stat_activity WHERE application_name = 'mm_long_big_tick'
	                                  AND state = 'active' AND clock_timestamp() - query_start > interval '300 ms'" 2>/dev/null)
	[ -n "$pid" ] && break
	kill -0 "$tick_pid" 2>/dev/null || break
	sleep 0.05
done
ran=$(psql -X -At -d postgres -c "SELECT round(extract(epoch FROM clock_timestamp() - query_start) * 1000)
                                  FROM pg_stat_activity WHERE pid = '${pid:-0}'" 2>/dev/null)
[ -n "$pid" ] && kill -9 "$pid"
wait "$tick_pid"
sleep 1
wait_up
[ -n "$pid" ] && killed+=("$pid")
after=$(q -d "$db" -c "SELECT (SELECT count(*) FROM mm.roster r JOIN mm.queue q USING (queue_id) WHERE q.name = 'big')
                              || ' ' || (SELECT count(*) FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'big')
                              || ' ' || (SELECT count(*) FROM mm.tick_log t JOIN mm.queue q USING (queue_id) WHERE q.name = 'big')")
if [ -n "$pid" ] && ! grep -qE '^[0-9]+$' "$work/bigtick.out" && [ "$after" = "$big 0 0" ]; then
	ok "kill -9 inside a tick over $big rosters (after ${ran:-?} ms): rolled back whole, every roster still waiting, no match, no tick logged"
else
	notok "kill -9 inside a tick over $big rosters (pid '${pid:-none}', tick said '$(head -1 "$work/bigtick.out")'; waiting, matches, ticks: $after)"
fi

wait "$load_pid"
load_pid=
wait_up
runs=$(find "$work" -name "pgbench.*.log" | wc -l)
aborted=$(cat "$work"/pgbench.*.log | grep -cE 'client [0-9]+ aborted' || true)
ok "the load ran $(($(date +%s) - t0)) s: pgbench ($clients clients) started $runs times, $aborted clients ended by the crashes"

# The large queue ticks whole after the crashes.
start=$(date +%s%N)
n=$(q -d "$db" -c "SELECT count(*) FROM mm.tick('big')")
ms=$((($(date +%s%N) - start) / 1000000))
if [ "$n" = "$big" ]; then
	ok "after the crashes a tick over queue big matched all $big rosters ($(q -d "$db" -c "SELECT count(*) FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'big'") matches, $ms ms)"
else
	notok "after the crashes a tick over queue big matched all $big rosters (got '$n')"
fi

# Operations and errors, as the calls logged them.
echo "# operations committed (kind: done / refused / nothing to do):"
q -d "$db" -c "SELECT '#   ' || kind || ': ' || count(*) FILTER (WHERE state = '00000') || ' / '
                      || count(*) FILTER (WHERE state NOT IN ('00000', 'idle')) || ' / '
                      || count(*) FILTER (WHERE state = 'idle')
               FROM load.ops GROUP BY kind ORDER BY kind"
total=$(q -d "$db" -c "SELECT count(*) FILTER (WHERE state <> 'idle') FROM load.ops")
# The refusals the API documents for each kind of call, the only errors
# expected: 23505 a player queued at the same time, a match reported again
# with another result; 55000 a player whose match is not finished, a match
# dissolved, no longer proposed, finished or reported; 22023 a backfill
# beyond the team's room. Ticks, claims and leaves refuse nothing. The
# load runs in READ COMMITTED without lock_timeout, where mm raises no 40001
# or 55P03: they would be unexpected here.
expected="('enqueue', '23505'), ('enqueue', '55000'), ('accept', '55000'), ('decline', '55000'),
          ('backfill', '55000'), ('backfill', '22023'), ('report', '23505'), ('report', '55000'),
          ('abandon', '55000')"
echo "# errors by SQLSTATE (per kind of call; * marks what no call of that kind may raise):"
q -d "$db" -c "SELECT '#   ' || state || ': ' || sum(n) || ' (' || string_agg(kind || ' ' || n || mark, ', ' ORDER BY kind) || ')'
               FROM (SELECT o.state, o.kind, count(*) AS n, CASE WHEN e.kind IS NULL THEN '*' ELSE '' END AS mark
                     FROM load.ops o LEFT JOIN (VALUES $expected) e(kind, state) USING (kind, state)
                     WHERE o.state NOT IN ('00000', 'idle') GROUP BY 1, 2, 4) x
               GROUP BY state ORDER BY state"
unexpected=$(q -d "$db" -c "SELECT count(*) FROM load.ops o
                            WHERE o.state NOT IN ('00000', 'idle')
                              AND (o.kind, o.state) NOT IN (VALUES $expected)")
if [ "$total" -gt 0 ] && [ "$unexpected" = 0 ]; then
	ok "$total calls ended committed or with a refusal the API documents for that call"
else
	notok "$total calls: $unexpected ended with a SQLSTATE that call does not document"
	q -d "$db" -c "SELECT DISTINCT ON (kind, state) '#   ' || kind || ' ' || state || ': ' || message FROM load.ops o
	               WHERE o.state NOT IN ('00000', 'idle') AND (o.kind, o.state) NOT IN (VALUES $expected)
	               ORDER BY kind, state LIMIT 20"
fi

# The server log: errors outside the calls' subtransactions, connections
# the crashes ended, backends ended by a signal, PANIC, assertions.
sed -n 's/^[0-9-]* [0-9:.]* [A-Z]* \[[0-9]*\] \([0-9A-Z]\{5\}\) \(ERROR\|FATAL\|WARNING\|PANIC\): .*/\2 \1/p' "$serverlog" |
	sort | uniq -c | sed 's/^ */#   server log: /'
logged_errors=$(grep -cE '\] [0-9A-Z]{5} (ERROR|PANIC):' "$serverlog" || true)
signals=$(grep -E 'terminated by signal|was terminated by exception' "$serverlog" || true)
foreign=$(echo "$signals" | grep -v '^$' | grep -vE "PID ($(IFS='|'; echo "${killed[*]:-0}"))\) was terminated by signal 9" || true)
traps=$(grep -cE 'TRAP:|PANIC' "$serverlog" || true)
if [ "$logged_errors" = 0 ] && [ -z "$foreign" ] && [ "$traps" = 0 ] && [ "$(echo "$signals" | grep -c 'signal 9')" = "${#killed[@]}" ]; then
	ok "server log: no ERROR outside the calls, no PANIC or assertion, no backend ended but the ${#killed[@]} we killed"
else
	notok "server log: $logged_errors errors outside the calls, $traps PANIC or assertions, backends ended: $(echo "$signals" | wc -l)"
	grep -E '\] [0-9A-Z]{5} (ERROR|PANIC):|TRAP:|terminated by' "$serverlog" | head -20 | sed 's/^/#   /'
fi

# Invariants.
violations=0
q -d "$db" -f "$here/invariants.sql" >"$work/invariants" 2>&1 || { cat "$work/invariants"; notok "the invariant checks ran"; }
while IFS='|' read -r count what; do
	[ -n "$what" ] || continue
	violations=$((violations + count))
	if [ "$count" = 0 ]; then ok "invariant: no $what"; else notok "invariant: $count $what"; fi
done <"$work/invariants"

# The invariant checks see a violation: in a transaction that is rolled
# back, a player of one open match put into a second one (a row of its
# players marked requeued, which the player key does not count).
out=$(q -d "$db" -c "BEGIN" \
	-c "INSERT INTO mm.queued_player (player_id, roster_id, queue_id, seat, requeued)
	    SELECT (SELECT mr.players[1] FROM mm.match_roster mr JOIN mm.match m USING (queue_id, match_id)
	            WHERE m.status = 'matched' ORDER BY mr.match_id DESC LIMIT 1),
	           r.roster_id, r.queue_id, 1000, true
	    FROM mm.roster r JOIN mm.match m USING (queue_id, match_id)
	    WHERE m.status = 'matched' ORDER BY r.match_id, r.roster_id LIMIT 1" \
	-f "$here/invariants.sql" -c "ROLLBACK" 2>&1)
seen=$(echo "$out" | grep -vE '^0\|' | tr '\n' ';')
if [ "$seen" = "1|players in two open (proposed or matched) matches;1|teams whose players are not team_size plus the seats their filled backfills added;" ]; then
	ok "the invariant checks see a player put into a second open match (two open matches, a team too large)"
else
	notok "the invariant checks see a player put into a second open match (got: $seen)"
fi

# The sequential replay of every reported result, in a transaction that is
# rolled back (the live tables stay as the load left them); then, to show
# the comparison sees a difference, one live rating moved by 1e-15 of itself.
start=$(date +%s)
q -d "$db" -c "BEGIN" -f "$here/replay.sql" \
	-c "UPDATE mm.ratings SET state[1] = state[1] + abs(state[1]) * 1e-15
	    WHERE (player_id, key) = (SELECT player_id, key FROM mm.ratings WHERE key = 'duo' ORDER BY player_id LIMIT 1)" \
	-f "$here/compare.sql" -c "ROLLBACK" >"$work/replay" 2>&1
{ read -r reports replayed rows differing moved && read -r _ _ _ sabotaged _; } <"$work/replay"
if [ "${reports:-0}" -gt 0 ] 2>/dev/null && [ "$replayed" = "$reports" ] && [ "$differing" = 0 ] && [ "$moved" -gt 0 ]; then
	ok "a sequential replay of the $reports reported results equals the live ratings to the last bit ($rows rating rows, $moved moved; mu, sigma, ladder points, games; $(($(date +%s) - start)) s)"
else
	notok "a sequential replay of the reported results equals the live ratings (${reports:-?} reports, ${replayed:-?} replayed, ${differing:-?} of ${rows:-?} rating rows differ)"
	sed 's/^/#   /' "$work/replay"
fi
violations=$((violations + ${differing:-1}))
if [ "${sabotaged:-}" = 1 ]; then
	ok "the replay comparison sees one live rating moved by 1e-15 of itself"
else
	notok "the replay comparison sees one live rating moved by 1e-15 of itself (got '${sabotaged:-}' rows)"
fi

# amcheck over mm's tables and indexes.
IFS='|' read -r indexes bad_indexes others tables bad_tables details < <(q -d "$db" -f "$here/amcheck.sql" 2>&1)
if [ "${indexes:-0}" -gt 0 ] && [ "$bad_indexes" = 0 ] && [ "${tables:-0}" -gt 0 ] && [ "$bad_tables" = 0 ]; then
	ok "amcheck: $indexes btree indexes of mm's tables (bt_index_parent_check, heapallindexed) and $tables tables (verify_heapam) intact${details:+; $others indexes not btree, which amcheck cannot check: $details}"
else
	notok "amcheck: ${bad_indexes:-?} of ${indexes:-?} indexes and ${bad_tables:-?} of ${tables:-?} tables corrupt: $details"
	violations=$((violations + ${bad_indexes:-1} + ${bad_tables:-1}))
fi

echo "# $total operations, $unexpected unexpected errors, $violations violations"
if [ "$violations" = 0 ]; then ok "violations: 0"; else notok "violations: $violations"; fi
exit $fail
