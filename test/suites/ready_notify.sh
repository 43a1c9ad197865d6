#!/usr/bin/env bash
# Delivery with a ready check: a backend listening on a queue's channel
# hears the tick's proposed matches under "proposed" (never under
# "matches"), and each match under "matches" once, when the accept that
# completes it commits; a match half accepted, or dissolved, is never
# announced as a match nor claimable; a dissolved match is announced under
# "dissolved" with its reason.
# TAP lines "ok - ..." / "not ok - ...".
set -uo pipefail

db=mm_ready_notify
fail=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }
psql_q() { psql -X -q -At -d "$db" -v ON_ERROR_STOP=1 "$@"; }

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" 2>/dev/null || exit 1
psql_q >/dev/null <<'SQL' || { notok "ready check database set up"; exit 1; }
CREATE EXTENSION mm;
SELECT mm.create_queue('r', '{"team_size": 1, "filter": {"potentials_min": 1}, "accept_timeout": "10 minutes"}');
SELECT count(mm.enqueue('r', ARRAY[p::bigint], 1500 + p, 0, joined_at => now() - interval '1 minute'))
FROM generate_series(1, 6) p;
SQL

# Three matches are proposed; all of the first two's players accept, the
# third's first player accepts and the other declines.
channel=$(psql_q -c "SELECT mm.queue_channel('r')")
out=$(psql -X -d "$db" 2>&1 <<SQL
LISTEN $channel;
\! psql -X -q -d $db -c "CREATE TABLE proposed AS SELECT DISTINCT match_id FROM mm.tick('r')" >/dev/null
SELECT 1;
\! psql -X -q -d $db -c "SELECT mm.accept(m.match_id, u.p) FROM mm.match_roster m, unnest(m.players) u(p) WHERE m.match_id = (SELECT min(match_id) FROM proposed)" >/dev/null
SELECT 2;
\! psql -X -q -d $db -c "SELECT mm.accept(m.match_id, u.p) FROM mm.match_roster m, unnest(m.players) u(p) WHERE m.match_id = (SELECT min(match_id) + 1 FROM proposed) AND m.team = 'red'" >/dev/null
SELECT 3;
\! psql -X -q -d $db -c "SELECT mm.accept(m.match_id, u.p) FROM mm.match_roster m, unnest(m.players) u(p) WHERE m.match_id = (SELECT min(match_id) + 1 FROM proposed) AND m.team = 'blue'" >/dev/null
SELECT 4;
\! psql -X -q -d $db -c "SELECT mm.accept(m.match_id, m.players[1]) FROM mm.match_roster m WHERE m.match_id = (SELECT max(match_id) FROM proposed) AND m.team = 'red'" -c "SELECT mm.decline(m.match_id, m.players[1]) FROM mm.match_roster m WHERE m.match_id = (SELECT max(match_id) FROM proposed) AND m.team = 'blue'" >/dev/null
SELECT 5;
SQL
)
payloads=$(echo "$out" | sed -n 's/^Asynchronous notification "'"$channel"'" with payload "\(.*\)" received from server process with PID [0-9]*\.$/\1/p')
ids=$(psql_q -c "SELECT string_agg(match_id::text, ', ' ORDER BY match_id) FROM proposed")
first=$(psql_q -c "SELECT min(match_id) FROM proposed")
second=$((first + 1))
third=$((first + 2))
want=$(printf '%s\n' \
	"{\"queue_id\": 1, \"queue\": \"r\", \"proposed\": [$ids]}" \
	"{\"queue_id\": 1, \"queue\": \"r\", \"matches\": [$first]}" \
	"{\"queue_id\": 1, \"queue\": \"r\", \"matches\": [$second]}" \
	"{\"queue_id\": 1, \"queue\": \"r\", \"dissolved\": [$third], \"reason\": \"declined\"}")
if [ "$(echo "$ids" | tr ',' '\n' | grep -c .)" = 3 ] && [ "$payloads" = "$want" ]; then
	ok "LISTEN heard the tick's 3 proposals under \"proposed\", then each match under \"matches\" when its last accept committed, and the declined one under \"dissolved\" with its reason"
else
	notok "LISTEN heard the proposals, then each completed match once"
	echo "$payloads" | sed 's/^/#   got:  /'
	echo "$want" | sed 's/^/#   want: /'
fi

res=$(psql_q -c "SELECT string_agg(status, ' ' ORDER BY match_id) FROM mm.match" \
	-c "SELECT string_agg(DISTINCT match_id::text, ' ') FROM mm.claim_matches('r')" \
	-c "SELECT count(*) FROM mm.claim_matches('r')" | tr '\n' '|')
if [ "$res" = "matched matched dissolved|$first $second|0|" ]; then
	ok "claims hand out the two matched matches once and never the dissolved one"
else
	notok "claims hand out the matched matches once ($res)"
fi

psql -X -q -d postgres -c "DROP DATABASE $db"
exit $fail
