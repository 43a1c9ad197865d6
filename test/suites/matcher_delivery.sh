#!/usr/bin/env bash
# Match delivery of the roster matcher:
#   - LISTEN: a backend listening on a queue's channel (mm.queue_channel)
#     receives, after the tick commits, every match id of the tick, split
#     over notifications that each fit NOTIFY's payload limit;
#   - claim: two consumers calling mm.claim_matches in a loop while ticks
#     of two queues commit in random order (their match ids interleave and
#     commit out of id order) see every match exactly once.
# TAP lines "ok - ..." / "not ok - ...".
set -uo pipefail

db=mm_delivery
fail=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }
psql_q() { psql -X -q -At -d "$db" -v ON_ERROR_STOP=1 "$@"; }

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" 2>/dev/null || exit 1
psql_q >/dev/null <<'SQL' || { notok "delivery database set up"; exit 1; }
CREATE EXTENSION mm;
SELECT mm.create_queue('n', '{"team_size": 1, "filter": {"potentials_min": 1, "rosters": 5000, "limit": 60000}}');
SELECT mm.create_queue('n2', '{"team_size": 1, "filter": {"potentials_min": 1}}');
CREATE TABLE claimed (match_id bigint, consumer int);
SQL

# LISTEN: 3000 duelists make 1500 matches in one tick
channel=$(psql_q -c "SELECT mm.queue_channel('n')")
out=$(psql -X -d "$db" 2>&1 <<SQL
LISTEN $channel;
\! psql -X -q -d $db -c "SELECT count(mm.enqueue('n', ARRAY[p::bigint], 1500, 100)) FROM generate_series(1, 3000) p" -c "SELECT count(*) FROM mm.tick('n')" >/dev/null
SELECT 1;
SQL
)
payloads=$(echo "$out" | sed -n 's/^Asynchronous notification "'"$channel"'" with payload "\(.*\)" received from server process with PID [0-9]*\.$/\1/p')
n_notes=$(echo "$payloads" | grep -c . || true)
longest=$(echo "$payloads" | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')
got=$(echo "$payloads" | sed 's/.*"matches": \[\(.*\)\]}/\1/' | tr ',' '\n' | tr -d ' ' | grep . | sort -n | tr '\n' ' ')
want=$(psql_q -c "SELECT m.match_id FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'n' ORDER BY 1" | tr '\n' ' ')
if [ -n "$want" ] && [ "$got" = "$want" ]; then
	ok "LISTEN $channel received every match id of the tick ($(echo "$want" | wc -w) matches in $n_notes notifications)"
else
	notok "LISTEN received every match id of the tick (got $(echo "$got" | wc -w), want $(echo "$want" | wc -w))"
	echo "$out" | head -5 | sed 's/^/#   /'
fi
if [ "$n_notes" -gt 1 ] && [ "$longest" -lt 8000 ] && echo "$payloads" | grep -q '"queue": "n"'; then
	ok "notifications name the queue and stay under NOTIFY's 8000-byte limit (longest $longest bytes)"
else
	notok "notifications name the queue and stay under the limit ($n_notes notifications, longest $longest bytes)"
fi
psql_q -c "INSERT INTO claimed SELECT DISTINCT match_id, 0 FROM mm.claim_matches('n', 100000)" >/dev/null

# claim: producers tick two queues in transactions that commit after a
# random pause; two consumers claim both queues until the producers stop
producer() {
	local q=$1
	for _ in $(seq 1 8); do
		psql_q >/dev/null <<SQL
BEGIN;
SELECT count(mm.enqueue('$q', ARRAY[p], 1500, 100)) FROM (SELECT nextval('claimed_p') AS p FROM generate_series(1, 6)) s;
SELECT count(*) FROM mm.tick('$q');
SELECT pg_sleep(random() * 0.05);
COMMIT;
SQL
	done
}
consumer() {
	local k=$1
	while [ ! -e "$stop" ]; do
		psql_q -c "INSERT INTO claimed SELECT DISTINCT match_id, $k FROM mm.claim_matches('n', 3)" \
			-c "INSERT INTO claimed SELECT DISTINCT match_id, $k FROM mm.claim_matches('n2', 3)" >/dev/null
		sleep 0.05
	done
}
psql_q -c "CREATE SEQUENCE claimed_p START 100000" >/dev/null
stop=$(mktemp -u)
consumer 1 & c1=$!
consumer 2 & c2=$!
producer n & p1=$!
producer n2 & p2=$!
producer n & p3=$!
wait $p1 $p2 $p3
touch "$stop"
wait $c1 $c2
rm -f "$stop"
psql_q -c "INSERT INTO claimed SELECT DISTINCT match_id, 3 FROM mm.claim_matches('n', 100000)" \
	-c "INSERT INTO claimed SELECT DISTINCT match_id, 3 FROM mm.claim_matches('n2', 100000)" >/dev/null

res=$(psql_q -c "SELECT (SELECT count(*) FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'n2') || ' ' ||
    (SELECT count(*) FROM claimed) || ' ' || (SELECT count(DISTINCT match_id) FROM claimed) || ' ' ||
    (SELECT count(*) FROM mm.match WHERE match_id NOT IN (SELECT match_id FROM claimed)) || ' ' ||
    (SELECT count(DISTINCT consumer) FROM claimed WHERE consumer IN (1, 2))")
read -r n2_matches n_claims n_distinct n_missed n_consumers <<<"$res"
if [ "${n2_matches:-0}" -gt 0 ] && [ "$n_claims" = "$n_distinct" ] && [ "$n_missed" = 0 ]; then
	ok "claim consumers saw every match exactly once while ticks of two queues committed in random order ($n_claims claims, $n_consumers consumers)"
else
	notok "claim consumers saw every match exactly once ($res)"
fi

psql -X -q -d postgres -c "DROP DATABASE $db"
exit $fail
