#!/usr/bin/env bash
# Growing the cluster, run by test/suites/citus.sh (queue tables
# distributed, PGHOST/PGPORT/PGUSER the coordinator's, MM_CITUS_EXTRA the
# port of a node with Citus not yet added): the node is added as a third
# worker (Citus creates mm on it); a queue's shards move there with
# citus_move_shard_placement while backends enqueue, tick, claim and report
# on it through the coordinator, by queue id (each delegated but the
# report). Afterwards nothing
# is lost (every enqueue that returned a roster is in one place, no player
# in two), every match was claimed once and reported once, the ids made on
# the new worker are of its own range (set by its first queue-id call, then
# its keys by mm.citus_prepare_nodes), and a listener on the coordinator
# still hears the queue's ticks. TAP lines; exit 1 when one failed.
set -uo pipefail

. test/citus/checks.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
extra=${MM_CITUS_EXTRA:?}

if ! bash test/citus/cluster.sh start-extra; then
	notok "a fourth node with Citus started (port $extra)"
	exit 1
fi
if q -c "SET client_min_messages = warning" -c "SELECT citus_add_node('127.0.0.1', $extra)" >/dev/null; then
	ok "a worker added later (port $extra): citus_add_node"
else
	notok "a worker added later (port $extra): citus_add_node"
	exit 1
fi
newgroup=$(q -c "SELECT groupid FROM pg_dist_node WHERE nodeport = $extra")
# Citus moves shards only to a node that has the reference tables
# (mm.queue, dishonor): the DBA copies them first (citus_rebalance_start
# does it by itself)
if q -c "SET client_min_messages = warning" -c "SELECT replicate_reference_tables('block_writes')" >/dev/null; then
	ok "the reference tables (mm.queue, dishonor) copied to the new worker"
else
	notok "the reference tables (mm.queue, dishonor) copied to the new worker"
fi
check "Citus created mm on the new worker at the coordinator's version" \
	"SELECT bool_and(success AND result = (SELECT extversion FROM pg_extension WHERE extname = 'mm'))
	 FROM run_command_on_workers(\$\$SELECT extversion FROM pg_extension WHERE extname = 'mm'\$\$) WHERE nodeport = $extra"

# A queue with history: waiting rosters, an open match, a reported one.
q >/dev/null <<'SQL'
SELECT mm.create_queue('gr_duel', '{"team_size": 1, "filter": {"potentials_min": 1}}');
SQL
g=$(q -c "SELECT queue_id FROM mm.queue WHERE name = 'gr_duel' AND dropped_at IS NULL")
q >/dev/null <<SQL
SELECT mm.enqueue($g, ARRAY[p]::bigint[], 1500, 50, joined_at => now() - interval '1 minute') FROM generate_series(20001, 20006) p;
SELECT count(*) FROM mm.tick($g);
SQL
shard=$(q -c "SELECT get_shard_id_for_distribution_column('mm.roster', $g)")
from=$(q -c "SELECT n.nodeport FROM pg_dist_placement p JOIN pg_dist_node n USING (groupid) WHERE p.shardid = $shard")

# Backends at work while the shards move: enqueue (every player once),
# tick, claim and report, each by queue id (the first three delegated).
players=300
enqueue_stream() {
	seq 20101 $((20100 + players)) | while read -r p; do
		echo "SELECT mm.enqueue($g, ARRAY[$p]::bigint[], 1500 + ($p * 37) % 200, 50, joined_at => now() - interval '1 minute');"
	done | psql -X -q -At -d postgres >"$work/enq.out" 2>"$work/enq.err"
}
tick_stream() {
	for _ in $(seq 1 60); do
		echo "SELECT count(*) FROM mm.tick($g);"
		echo "SELECT pg_sleep(0.05);"
	done | psql -X -q -At -d postgres >/dev/null 2>"$work/tick.err"
}
# claim, then report each claimed match (a transaction each: a report that
# fails leaves the match claimed and unreported, which the end shows)
claim_stream() {
	local name=$1
	for _ in $(seq 1 60); do
		echo "SELECT match_id FROM mm.claim_matches($g, 3) WHERE team = 'red';"
		echo "SELECT pg_sleep(0.05);"
	done | psql -X -q -At -d postgres >"$work/claim_$name.out" 2>"$work/claim_$name.err"
}
enqueue_stream &
tick_stream &
claim_stream one &
claim_stream two &
sleep 2
if out=$(q -c "SELECT citus_move_shard_placement($shard, '127.0.0.1', $from, '127.0.0.1', $extra, shard_transfer_mode => 'block_writes')" 2>&1); then
	ok "citus_move_shard_placement moved the queue's shards (all its tables, colocated) to the new worker while backends worked"
else
	notok "citus_move_shard_placement moved the queue's shards to the new worker while backends worked"
	echo "$out" | sed 's/^/#   /' | head -5
fi
wait
# drain: tick until nothing matches, claim the rest
for _ in 1 2 3; do q -c "SELECT count(*) FROM mm.tick($g)" >/dev/null; done
q -c "SELECT match_id FROM mm.claim_matches($g, 100000) WHERE team = 'red'" >"$work/claim_drain.out"
cat "$work"/claim_*.out | grep . >"$work/claimed"
for m in $(sort -u "$work/claimed"); do
	echo "SELECT count(*) FROM mm.report_result($g, $m, '{\"teams\": {\"red\": {\"rank\": 1}, \"blue\": {\"rank\": 2}}}');"
done | psql -X -q -At -d postgres >/dev/null 2>"$work/report.err"

errors=$(cat "$work"/*.err | grep -c ERROR)
enqueued=$(grep -c . "$work/enq.out")
echo "# $enqueued of $players enqueues returned a roster; $(grep -c . "$work/claimed") matches claimed; $errors errors"
if [ "$errors" = 0 ] && [ "$enqueued" = "$players" ]; then
	ok "no call failed while the shards moved: $players enqueues, ticks, claims and reports"
else
	notok "no call failed while the shards moved ($errors errors, $enqueued enqueues of $players)"
	cat "$work"/*.err | grep ERROR | sort | uniq -c | head -5 | sed 's/^/#   /'
fi
check "the queue's shards (every table of its colocation group) are on the new worker" \
	"SELECT bool_and(n.nodeport = $extra) AND count(*) >= 10
	 FROM pg_dist_shard s JOIN pg_dist_placement p USING (shardid) JOIN pg_dist_node n USING (groupid)
	 WHERE s.shardid = get_shard_id_for_distribution_column(s.logicalrelid, $g)
	   AND s.logicalrelid::text IN ('mm.roster', 'mm.queued_player', 'mm.match', 'mm.ended_roster', 'mm.ticket_event',
	                                'mm.tick_log', 'mm.match_result', 'mm.match_result_player', 'mm.backfill', 'mm.match_accept')"
check "nothing lost: every player whose enqueue returned a roster is in exactly one place (waiting, or in one match)" \
	"WITH places AS (
	     SELECT qp.player_id FROM mm.queued_player qp WHERE qp.queue_id = $g AND NOT qp.requeued
	     UNION ALL
	     SELECT unnest(e.players) FROM mm.ended_roster e WHERE e.queue_id = $g)
	 SELECT count(*) FILTER (WHERE player_id > 20100) = $enqueued AND count(DISTINCT player_id) = count(*) FROM places"
claimed=$(grep -c . "$work/claimed")
distinct=$(sort -u "$work/claimed" | grep -c .)
check "every match of the queue was claimed exactly once ($claimed claims of $distinct matches) and reported once" \
	"SELECT count(*) = $distinct AND $claimed = $distinct AND bool_and(m.status = 'finished' AND r.status = 'reported')
	 FROM mm.match m LEFT JOIN mm.match_result r USING (queue_id, match_id)
	 WHERE m.queue_id = $g"
check "the new worker drew its ids from its own range (group $newgroup), set by its first queue-id call: no id of another node" \
	"SELECT count(*) FILTER (WHERE (roster_id >> 48) = $newgroup) > 0 AND count(DISTINCT roster_id) = count(*)
	 FROM (SELECT roster_id FROM mm.roster WHERE queue_id = $g UNION ALL SELECT roster_id FROM mm.ended_roster WHERE queue_id = $g) r"
check "mm.citus_prepare_nodes() gives the new worker the keys of the distributed tables (its range is already set), and nothing to the others" \
	"SELECT bool_and(keys_changed = (node = '127.0.0.1:$extra') AND sequences_changed = 0) AND count(*) = 3
	 FROM mm.citus_prepare_nodes()"
check "a second mm.citus_prepare_nodes() changes nothing" \
	"SELECT bool_and(NOT keys_changed AND sequences_changed = 0) FROM mm.citus_prepare_nodes()"
bash test/citus/delivery.sh gr_duel 20900 || fail=1
exit $fail
