#!/usr/bin/env bash
# Backfill delivery: a backend listening on a queue's channel receives,
# after the tick that filled a backfill request commits, a notification
# {"queue_id", "queue", "backfills": [match id]}; the notification is not
# sent by a tick rolled back; mm.claim_matches then hands the backfilled
# roster out once, as kind "backfill".
# TAP lines "ok - ..." / "not ok - ...".
set -uo pipefail

db=mm_backfill_delivery
fail=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }
psql_q() { psql -X -q -At -d "$db" -v ON_ERROR_STOP=1 "$@"; }

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" 2>/dev/null || exit 1
psql_q >/dev/null <<'SQL' || { notok "backfill database set up"; exit 1; }
CREATE EXTENSION mm;
SELECT mm.create_queue('bfn', '{"team_size": 2, "filter": {"potentials_min": 1}}');
SELECT count(mm.enqueue('bfn', ARRAY[p::bigint], 1500, 50)) FROM generate_series(1, 4) p;
SELECT count(*) FROM mm.tick('bfn');
SELECT count(*) FROM mm.claim_matches('bfn');
SELECT mm.request_backfill((SELECT max(match_id) FROM mm.match), 'blue', 1);
SELECT mm.enqueue('bfn', ARRAY[5::bigint], 1500, 50);
SQL
channel=$(psql_q -c "SELECT mm.queue_channel('bfn')")
match=$(psql_q -c "SELECT max(match_id) FROM mm.match")

# a tick rolled back sends nothing and fills nothing
out=$(psql -X -d "$db" 2>&1 <<SQL
LISTEN $channel;
BEGIN;
SELECT count(*) FROM mm.tick('bfn');
ROLLBACK;
SELECT 1;
SQL
)
status=$(psql_q -c "SELECT status FROM mm.backfill")
if ! echo "$out" | grep -q '^Asynchronous notification' && [ "$status" = open ]; then
	ok "a tick rolled back neither notifies nor fills the request"
else
	notok "a tick rolled back neither notifies nor fills the request (status $status)"
	echo "$out" | head -5 | sed 's/^/#   /'
fi

# the tick that fills it notifies at commit
out=$(psql -X -d "$db" 2>&1 <<SQL
LISTEN $channel;
SELECT count(*) FROM mm.tick('bfn');
SELECT 1;
SQL
)
payload=$(echo "$out" | sed -n 's/^Asynchronous notification "'"$channel"'" with payload "\(.*\)" received from server process with PID [0-9]*\.$/\1/p')
want="{\"queue_id\": ${channel#mm_queue_}, \"queue\": \"bfn\", \"backfills\": [$match]}"
if [ "$payload" = "$want" ]; then
	ok "LISTEN $channel received the backfilled match: $payload"
else
	notok "LISTEN received the backfilled match (got '$payload', want '$want')"
	echo "$out" | head -5 | sed 's/^/#   /'
fi

# claimed once, as a backfill of that match
first=$(psql_q -c "SELECT string_agg(match_id || ':' || team || ':' || players::text || ':' || kind, ' ') FROM mm.claim_matches('bfn')")
again=$(psql_q -c "SELECT count(*) FROM mm.claim_matches('bfn')")
if [ "$first" = "$match:blue:{5}:backfill" ] && [ "$again" = 0 ]; then
	ok "mm.claim_matches hands the backfilled roster out once ($first)"
else
	notok "mm.claim_matches hands the backfilled roster out once (got '$first', then $again rows)"
fi

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1
exit $fail
