#!/usr/bin/env bash
# Delivery on Citus, run by test/suites/citus.sh (queue tables distributed,
# PGHOST/PGPORT/PGUSER the coordinator's): a backend connected to the
# coordinator LISTENs on a queue's channel (mm.queue_channel) and hears
# the matches of a tick that ran on the queue's worker (the queue-id form),
# of a tick by name, a ready check's proposals, accepts and dissolve, with
# the payloads of a single node, when the transaction commits; a tick
# rolled back is never heard. The NOTIFY runs on the coordinator, in the
# tick's distributed transaction (mm.notify_relay). Usage: delivery.sh
# [QUEUE_NAME PREFIX]: with a queue name, only the delegated tick's
# delivery for that existing queue (the suite runs it again after a shard
# move). TAP lines; exit 1 when one failed.
set -uo pipefail

fail=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }
q() { psql -X -q -At -d postgres -v ON_ERROR_STOP=1 "$@"; }
conn="-h $PGHOST -p $PGPORT -U $PGUSER -d postgres"

# heard CHANNEL SQL...: run each SQL in its own session while a listener
# on the coordinator waits; print the payloads it heard, one a line.
heard() {
	local channel=$1 script
	shift
	script="LISTEN $channel;"$'\n'
	for sql in "$@"; do
		script+="\\! psql -X -q $conn -c \"$sql\" >/dev/null 2>&1"$'\n'"SELECT 1;"$'\n'
	done
	echo "$script" | psql -X -d postgres 2>&1 |
		sed -n 's/^Asynchronous notification "'"$channel"'" with payload "\(.*\)" received from server process with PID [0-9]*\.$/\1/p'
}

name=${1:-dv_duel}
if [ -z "${1:-}" ]; then
	q -c "SELECT mm.create_queue('dv_duel', '{\"team_size\": 1, \"filter\": {\"potentials_min\": 1}}')" >/dev/null
fi
base=${2:-870}
id=$(q -c "SELECT queue_id FROM mm.queue WHERE name = '$name' AND dropped_at IS NULL")
channel=$(q -c "SELECT mm.queue_channel('$name')")
node=$(q -c "SELECT n.nodeport FROM pg_dist_placement p JOIN pg_dist_node n USING (groupid)
             WHERE p.shardid = get_shard_id_for_distribution_column('mm.roster', $id)")
q -c "SELECT mm.enqueue($id, ARRAY[$base + p]::bigint[], 1500, 50, joined_at => now() - interval '1 minute') FROM generate_series(1, 4) p" >/dev/null
got=$(heard "$channel" "SELECT count(*) FROM mm.tick($id)")
# the matches of that tick (the queue's last)
want=$(q -c "SELECT format('{\"queue_id\": %s, \"queue\": \"%s\", \"matches\": [%s]}', $id, '$name',
                           string_agg(match_id::text, ', ' ORDER BY match_id))
             FROM mm.match WHERE queue_id = $id
               AND tick_id = (SELECT tick_id FROM mm.tick_log WHERE queue_id = $id ORDER BY started_at DESC LIMIT 1)")
if [ -n "$got" ] && [ "$got" = "$want" ]; then
	ok "a listener on the coordinator hears the matches of a tick run on the queue's worker (port $node) once, as one node says them"
else
	notok "a listener on the coordinator hears the matches of a tick run on the queue's worker (port $node)"
	echo "#   got:  $got"
	echo "#   want: $want"
fi
[ -n "${1:-}" ] && exit $fail

# by name, on the coordinator; and a tick rolled back
q -c "SELECT mm.enqueue('dv_duel', ARRAY[880 + p]::bigint[], 1500, 50, joined_at => now() - interval '1 minute') FROM generate_series(1, 4) p" >/dev/null
got=$(heard "$channel" "BEGIN; SELECT count(*) FROM mm.tick($id); ROLLBACK;" "SELECT count(*) FROM mm.tick('dv_duel')")
want=$(q -c "SELECT format('{\"queue_id\": %s, \"queue\": \"dv_duel\", \"matches\": [%s]}', $id,
                           string_agg(DISTINCT match_id::text, ', '))
             FROM mm.match_roster WHERE queue_id = $id AND players[1] > 880")
if [ -n "$got" ] && [ "$got" = "$want" ]; then
	ok "a tick rolled back is never heard; the next tick, by name through the coordinator, is heard once"
else
	notok "a tick rolled back is never heard; the next tick, by name through the coordinator, is heard once"
	echo "#   got:  $got"
	echo "#   want: $want"
fi

# a ready check: proposed (the tick on the worker), matches (the last
# accept, on the coordinator), dissolved (a decline)
q >/dev/null <<'SQL'
SELECT mm.create_queue('dv_ready', '{"team_size": 1, "filter": {"potentials_min": 1}, "accept_timeout": "10 minutes"}');
SELECT mm.enqueue('dv_ready', ARRAY[890 + p]::bigint[], 1500, 50, joined_at => now() - interval '1 minute') FROM generate_series(1, 4) p;
SQL
rid=$(q -c "SELECT queue_id FROM mm.queue WHERE name = 'dv_ready' AND dropped_at IS NULL")
rchannel=$(q -c "SELECT mm.queue_channel('dv_ready')")
got=$(heard "$rchannel" "SELECT count(*) FROM mm.tick($rid)")
a=$(q -c "SELECT match_id FROM mm.match_roster WHERE queue_id = $rid AND 891 = ANY (players)")
b=$(q -c "SELECT match_id FROM mm.match_roster WHERE queue_id = $rid AND 893 = ANY (players)")
got="$got
$(heard "$rchannel" "SELECT mm.accept($a, 891)" "SELECT mm.accept($a, 892)" "SELECT mm.decline($b, 893)")"
want=$(printf '%s\n' \
	"{\"queue_id\": $rid, \"queue\": \"dv_ready\", \"proposed\": [$(q -c "SELECT string_agg(match_id::text, ', ' ORDER BY match_id) FROM mm.match WHERE queue_id = $rid")]}" \
	"{\"queue_id\": $rid, \"queue\": \"dv_ready\", \"matches\": [$a]}" \
	"{\"queue_id\": $rid, \"queue\": \"dv_ready\", \"dissolved\": [$b], \"reason\": \"declined\"}")
if [ -n "$a" ] && [ -n "$b" ] && [ "$got" = "$want" ]; then
	ok "a ready check is heard on the coordinator as on one node: proposed, then matches at the last accept, dissolved at a decline"
else
	notok "a ready check is heard on the coordinator as on one node"
	echo "$got" | sed 's/^/#   got:  /'
	echo "$want" | sed 's/^/#   want: /'
fi
exit $fail
