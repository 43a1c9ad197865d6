#!/usr/bin/env bash
# Queues over Citus workers, run by test/suites/citus.sh on its coordinator
# (PGHOST, PGPORT, PGUSER set; mm created; MM_CITUS_WORKERS the workers'
# ports). TAP lines "ok - ..." / "not ok - ..."; exit 1 when one failed.
#
# mm.citus_distribute_queues() distributes the queue tables by queue; six
# queues spread over both workers; the queue-id forms of enqueue, tick,
# claim_matches and leave run on the worker holding the queue (a node draws
# ids from its own range of 2^48, so an id tells where it was made). Then,
# at the same time: every player enqueued into a queue on each worker,
# ticks of both queues, two claimers. Afterwards each player is in exactly
# one place (one waiting roster or one match), each match was claimed once,
# nothing was lost. pg_cron on the coordinator ticks every queue.
set -uo pipefail

. test/citus/checks.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# docs/scaling.md's example may have distributed them already
if [ "$(q -c "SELECT mm._queues_distributed()")" = t ]; then
	ok "mm.citus_distribute_queues() on the coordinator (by docs/scaling.md's example)"
elif out=$(q -c "SET client_min_messages = warning" -c "SELECT * FROM mm.citus_distribute_queues(8)" 2>&1); then
	ok "mm.citus_distribute_queues() on the coordinator"
	echo "$out" | sed 's/^/#   /'
else
	notok "mm.citus_distribute_queues() on the coordinator"
	echo "$out" | sed 's/^/#   /' | head -10
	exit 1
fi
check "queue tables distributed by queue_id in one colocation group, waiting_player and ratings by player_id, queue and dishonor reference tables" \
	"SELECT count(*) FILTER (WHERE logicalrelid::text IN ('mm.roster', 'mm.queued_player', 'mm.match', 'mm.ended_roster',
	        'mm.ticket_event', 'mm.tick_log') AND partmethod = 'h' AND column_to_column_name(logicalrelid, partkey) = 'queue_id') = 6
	    AND count(DISTINCT colocationid) FILTER (WHERE column_to_column_name(logicalrelid, partkey) = 'queue_id') = 1
	    AND count(*) FILTER (WHERE logicalrelid::text IN ('mm.waiting_player', 'mm.ratings')
	        AND column_to_column_name(logicalrelid, partkey) = 'player_id') = 2
	    AND count(*) FILTER (WHERE logicalrelid::text IN ('mm.queue', 'mm.dishonor_settings', 'mm.dishonor_players', 'mm.player_block')
	        AND partmethod = 'n') = 4
	 FROM pg_dist_partition WHERE logicalrelid::text LIKE 'mm.%'"
err=$(q -c "SELECT * FROM mm.citus_distribute_queues()" 2>&1 >/dev/null)
if [[ "$err" == *"the queues are already distributed"* ]]; then
	ok "a second mm.citus_distribute_queues() is refused"
else
	notok "a second mm.citus_distribute_queues() is refused (got: $err)"
fi

# Six queues, 1v1, matching anybody once waited a little; a matched player
# may not queue again before the match is finished, so that each player
# ends up in exactly one place. queue_node: the worker holding each queue.
q >/dev/null <<'SQL'
SELECT mm.create_queue('cq' || i, '{"team_size": 1, "filter": {"potentials_min": 1}, "requeue_while_in_match": false}')
FROM generate_series(1, 6) i;
CREATE VIEW queue_node AS
SELECT q.queue_id, q.name, n.groupid, n.nodeport
FROM mm.queue q
JOIN pg_dist_placement p ON p.shardid = get_shard_id_for_distribution_column('mm.roster', q.queue_id)
JOIN pg_dist_node n ON n.groupid = p.groupid
WHERE q.name LIKE 'cq%';
SQL
check "the six queues are spread over both workers" \
	"SELECT count(DISTINCT groupid) = 2 AND bool_and(groupid > 0) FROM queue_node"
qa=$(q -c "SELECT min(queue_id) FROM queue_node WHERE groupid = (SELECT min(groupid) FROM queue_node)")
qb=$(q -c "SELECT min(queue_id) FROM queue_node WHERE groupid = (SELECT max(groupid) FROM queue_node)")

# ---- delegation: ids drawn on the worker holding the queue
rid=$(q -c "SELECT mm.enqueue($qa, '{900001}', 1500, 50, joined_at => now() - interval '1 minute')" 2>&1)
check "mm.enqueue(queue id, ...) runs on the worker holding the queue (its roster id is from that worker's range)" \
	"SELECT ($rid::bigint >> 48) = groupid FROM queue_node WHERE queue_id = $qa"
q -c "SELECT mm.enqueue($qa, '{900002}', 1500, 50, joined_at => now() - interval '1 minute')" >/dev/null
q -c "SELECT * FROM mm.tick($qa)" >/dev/null
check "mm.tick(queue id) runs on the worker holding the queue and matches there" \
	"SELECT count(*) = 1 AND bool_and((l.tick_id >> 48) = n.groupid AND l.matches_made = 1)
	 FROM mm.tick_log l JOIN queue_node n USING (queue_id) WHERE l.queue_id = $qa"
check "mm.claim_matches(queue id) hands the match over once" \
	"SELECT (SELECT count(DISTINCT match_id) = 1 FROM mm.claim_matches($qa)) AND (SELECT count(*) = 0 FROM mm.claim_matches($qa))"
rid=$(q -c "SELECT mm.enqueue($qb, '{900003}', 1500, 50)")
left=$(q -c "SELECT mm.leave($qb, $rid)" -c "SELECT mm.leave($qb, $rid)" | tr '\n' ' ')
check "mm.leave(queue id, roster id) takes the roster out on its worker (then false) and records it (leave: $left)" \
	"SELECT '$left' = 't f ' AND EXISTS (SELECT FROM mm.ticket_event WHERE queue_id = $qb AND roster_id = $rid AND player_id = 900003 AND status = 'left')
	    AND NOT EXISTS (SELECT FROM mm.roster WHERE queue_id = $qb AND roster_id = $rid)"
check "the queue-name forms still work from the coordinator (routed to the queue's shard)" \
	"SELECT mm.enqueue((SELECT name FROM mm.queue WHERE queue_id = $qb), '{900004}', 1500, 50) > 0
	    AND mm.leave_player(900004) IS NOT NULL"

# ---- one player, two workers: a waiting roster elsewhere is seen and refused
q -c "SELECT mm.enqueue($qa, '{900010}', 1500, 50)" >/dev/null
err=$(q -c "SELECT mm.enqueue($qb, '{900010}', 1500, 50)" 2>&1 >/dev/null)
if [[ "$err" == *"player 900010 is already queued"* ]]; then
	ok "a player waiting in a queue on one worker cannot queue on the other"
else
	notok "a player waiting in a queue on one worker cannot queue on the other (got: $err)"
fi
# Held open: the second enqueue waits for the first's row of the player and
# is refused once it commits.
{
	echo "BEGIN;"
	echo "SELECT mm.enqueue($qa, '{900011}', 1500, 50);"
	echo "SELECT pg_sleep(2);"
	echo "COMMIT;"
} | q >/dev/null 2>&1 &
sleep 0.7
start=$(date +%s.%N)
err=$(q -c "SELECT mm.enqueue($qb, '{900011}', 1500, 50)" 2>&1 >/dev/null)
waited=$(echo "$(date +%s.%N) - $start" | bc)
wait
if [[ "$err" == *"player 900011 is already queued"* ]] && [ "$(echo "$waited > 0.8" | bc)" = 1 ]; then
	ok "a concurrent enqueue of the same player on the other worker waits for the first and is refused (waited ${waited}s)"
else
	notok "a concurrent enqueue of the same player on the other worker waits for the first and is refused (waited ${waited}s, got: $err)"
fi
q -c "SELECT mm.leave_player(900011)" >/dev/null
check "once its roster has left, the player queues on the other worker" \
	"SELECT mm.enqueue($qb, '{900011}', 1500, 50) > 0"

# ---- at the same time: 200 players each enqueued into qa (on one worker)
# and qb (on the other), ticks of both, two claimers.
players=200
q -c "SELECT mm.leave_player(p) FROM unnest('{900001,900002,900003,900010,900011}'::bigint[]) p" >/dev/null
q -c "DELETE FROM mm.match WHERE queue_id IN ($qa, $qb)" >/dev/null
enqueue_stream() {
	local queue=$1 order=$2
	seq 1 "$players" | sort $order | while read -r p; do
		echo "SELECT mm.enqueue($queue, ARRAY[$p]::bigint[], 1400 + ($p * 37) % 200, 50, joined_at => now() - interval '1 minute');"
	done | psql -X -q -At -d postgres >"$work/enq_$queue.out" 2>"$work/enq_$queue.err"
}
tick_stream() {
	local queue=$1 i
	for i in $(seq 1 40); do
		echo "SELECT count(*) FROM mm.tick($queue);"
		echo "SELECT pg_sleep(0.05);"
	done | psql -X -q -At -d postgres >/dev/null 2>"$work/tick_$queue.err"
}
claim_stream() {
	local name=$1 i
	for i in $(seq 1 60); do
		echo "SELECT match_id FROM mm.claim_matches($qa, 7) UNION ALL SELECT match_id FROM mm.claim_matches($qb, 7);"
		echo "SELECT pg_sleep(0.03);"
	done | psql -X -q -At -d postgres >"$work/claim_$name.out" 2>"$work/claim_$name.err"
}
enqueue_stream "$qa" -n &
enqueue_stream "$qb" -rn &
tick_stream "$qa" &
tick_stream "$qb" &
claim_stream one &
claim_stream two &
wait
# drain: tick until nothing matches, claim the rest
for _ in 1 2 3; do q -c "SELECT count(*) FROM mm.tick($qa)" -c "SELECT count(*) FROM mm.tick($qb)" >/dev/null; done
q -c "SELECT match_id FROM mm.claim_matches($qa, 100000) UNION ALL SELECT match_id FROM mm.claim_matches($qb, 100000)" >"$work/claim_drain.out"

refusals="is already queued|that is not finished"
refused=$(cat "$work"/enq_*.err | grep -cE "$refusals")
other=$(cat "$work"/enq_*.err "$work"/tick_*.err "$work"/claim_*.err | grep "ERROR" | grep -vcE "$refusals")
made=$(q -c "SELECT count(*) FROM mm.match WHERE queue_id IN ($qa, $qb)")
echo "# $players players, each enqueued on both workers: $refused enqueues refused (already queued, or matched and the match not finished), $made matches made during and after"
if [ "$other" = 0 ]; then
	ok "concurrent enqueues, ticks and claims on both workers: no error but the refusals"
else
	notok "concurrent enqueues, ticks and claims on both workers: no error but the refusals"
	cat "$work"/*.err | grep ERROR | grep -vE "$refusals" | sort | uniq -c | head -5 | sed 's/^/#   /'
fi
check "every player is in exactly one place: one waiting roster or one matched roster, never two" \
	"WITH places AS (
	     SELECT qp.player_id FROM mm.queued_player qp JOIN mm.roster r ON r.queue_id = qp.queue_id AND r.roster_id = qp.roster_id
	     WHERE qp.queue_id IN ($qa, $qb) AND r.match_id IS NULL AND NOT qp.requeued
	     UNION ALL
	     SELECT unnest(players) FROM mm.match_roster WHERE queue_id IN ($qa, $qb))
	 SELECT count(*) = $players AND count(DISTINCT player_id) = $players AND min(player_id) = 1 AND max(player_id) = $players
	 FROM places"
check "exactly one enqueue of each player succeeded and the other was refused ($refused refusals)" \
	"SELECT $refused = $players"
check "ticks ran on both workers and made matches" \
	"SELECT count(DISTINCT l.tick_id >> 48) = 2 AND sum(l.matches_made) > 0 AND bool_and((l.tick_id >> 48) = n.groupid)
	 FROM mm.tick_log l JOIN queue_node n USING (queue_id) WHERE l.queue_id IN ($qa, $qb)"
claimed=$(cat "$work"/claim_*.out | grep -c .)
distinct=$(cat "$work"/claim_*.out | grep . | sort -u | wc -l)
# claim_matches returns a row per roster: 2 per 1v1 match
if [ "$made" -gt 0 ] && [ "$claimed" = $((2 * made)) ] && [ "$distinct" = "$made" ]; then
	ok "each of the $made matches was claimed exactly once by the two claimers"
else
	notok "each of the $made matches was claimed exactly once ($claimed roster rows, $distinct distinct matches, $made made)"
fi
check "every match is delivered and has two rosters on the queue's shard" \
	"SELECT bool_and(m.delivered_at IS NOT NULL) AND bool_and(r.n = 2)
	 FROM mm.match m JOIN (SELECT queue_id, match_id, count(*) AS n FROM mm.match_roster GROUP BY 1, 2) r USING (queue_id, match_id)
	 WHERE m.queue_id IN ($qa, $qb)"

# ---- a queue's enqueue, tick, claim and leave need only the worker holding
# it: with the other worker stopped, a new queue on the first still takes
# two players (their rows of mm.waiting_player on the first too), matches
# them, hands the match over, and lets a third player queue and leave. A
# tick and a leave write one table a statement, so Citus ships nothing of
# them to the other nodes.
q -c "SELECT mm.create_queue('solo_worker', '{\"team_size\": 1, \"filter\": {\"potentials_min\": 1}}')" >/dev/null
qz=$(q -c "SELECT queue_id FROM mm.queue WHERE name = 'solo_worker'")
zport=$(q -c "SELECT n.nodeport FROM pg_dist_placement p JOIN pg_dist_node n USING (groupid)
              WHERE p.shardid = get_shard_id_for_distribution_column('mm.roster', $qz)")
other=
for w in $MM_CITUS_WORKERS; do [ "$w" != "$zport" ] && other=$w; done
read -r z1 z2 z3 z4 z5 z6 <<<"$(q -c "SELECT string_agg(p::text, ' ' ORDER BY p) FROM (SELECT p FROM generate_series(920000, 920400) p
                             WHERE (SELECT n.nodeport FROM pg_dist_placement pl JOIN pg_dist_node n USING (groupid)
                                    WHERE pl.shardid = get_shard_id_for_distribution_column('mm.waiting_player', p)) = $zport
                             ORDER BY p LIMIT 6) x")"
if [ -n "$other" ] && bash test/citus/cluster.sh stop-node "$other"; then
	out=$(q -c "SELECT mm.enqueue($qz, '{$z1}', 1500, 50, joined_at => now() - interval '1 minute')" \
		-c "SELECT mm.enqueue($qz, '{$z2}', 1500, 50, joined_at => now() - interval '1 minute')" \
		-c "SELECT count(*) FROM mm.tick($qz)" \
		-c "SELECT count(*) FROM mm.claim_matches($qz)" 2>&1 | tail -2 | tr '\n' ' ')
	r3=$(q -c "SELECT mm.enqueue($qz, '{$z3}', 1500, 50)" 2>&1)
	left=$(q -c "SELECT mm.leave($qz, $r3)" 2>&1)
	bash test/citus/cluster.sh start-node "$other"
	if [ "$out" = "2 2 " ] && [ "$left" = t ]; then
		ok "with the other worker stopped, a queue's worker enqueues, ticks (a match of 2 rosters), hands the match over and lets a roster leave"
	else
		notok "with the other worker stopped, a queue's worker enqueues, ticks (a match of 2 rosters), hands the match over and lets a roster leave (got: $out / $r3 / $left)"
	fi
	# a backfill seat of that match (requested while every node is up: a
	# request names the match alone, looked up on every shard) filled by a
	# tick of the queue's worker with the other stopped: the fill writes
	# one table a statement too
	mz=$(q -c "SELECT match_id FROM mm.match_roster WHERE queue_id = $qz AND players = '{$z1}'")
	tz=$(q -c "SELECT team FROM mm.match_roster WHERE queue_id = $qz AND match_id = $mz AND players = '{$z1}'")
	bz=$(q -c "SELECT mm.request_backfill($mz, '$tz', 1)")
	if [ -n "$bz" ] && bash test/citus/cluster.sh stop-node "$other"; then
		out=$(q -c "SELECT mm.enqueue($qz, '{$z4}', 1500, 50, joined_at => now() - interval '1 minute')" \
			-c "SELECT count(*) FROM mm.tick($qz)" \
			-c "SELECT string_agg(kind || ':' || backfill_id || ':' || players::text, ' ') FROM mm.claim_matches($qz)" 2>&1 | tail -1)
		bash test/citus/cluster.sh start-node "$other"
		if [ "$out" = "backfill:$bz:{$z4}" ]; then
			ok "with the other worker stopped, a queue's worker fills a backfill seat in a tick and hands it over"
		else
			notok "with the other worker stopped, a queue's worker fills a backfill seat in a tick and hands it over (got: $out)"
		fi
		check "the filled seat is recorded once: the request filled, the roster in the match with the request's team" \
			"SELECT (SELECT status = 'filled' FROM mm.backfill WHERE queue_id = $qz AND backfill_id = $bz)
			    AND (SELECT count(*) = 1 AND bool_and(r.backfill_id = $bz AND r.team = b.team)
			         FROM mm.roster r JOIN mm.backfill b ON b.queue_id = r.queue_id AND b.backfill_id = $bz
			         WHERE r.queue_id = $qz AND r.match_id = $mz AND r.backfill_id IS NOT NULL)
			    AND (SELECT count(*) = 1 FROM mm.ticket_event e
			         WHERE e.queue_id = $qz AND e.player_id = $z4 AND e.status = 'matched' AND e.match_id = $mz)"
	else
		notok "request a backfill in queue solo_worker and stop the other worker (port $other)"
	fi
	# a ready check that times out, dissolved by a tick of the queue's
	# worker with the other stopped
	q -c "SELECT mm.alter_queue('solo_worker', '{\"team_size\": 1, \"filter\": {\"potentials_min\": 1}, \"accept_timeout\": \"1 second\"}')" >/dev/null
	q -c "SELECT mm.enqueue($qz, '{$z5}', 1500, 50, joined_at => now() - interval '1 minute')" \
		-c "SELECT mm.enqueue($qz, '{$z6}', 1500, 50, joined_at => now() - interval '1 minute')" >/dev/null
	mr=$(q -c "SELECT DISTINCT match_id FROM mm.tick($qz)")
	sleep 1.5
	if [ -n "$mr" ] && bash test/citus/cluster.sh stop-node "$other"; then
		out=$(q -c "SELECT count(*) FROM mm.tick($qz)" 2>&1 | tail -1)
		bash test/citus/cluster.sh start-node "$other"
		check "with the other worker stopped, a queue's worker dissolves a ready check that timed out (tick: $out)" \
			"SELECT '$out' = '0' AND (SELECT status = 'dissolved' FROM mm.match WHERE queue_id = $qz AND match_id = $mr)
			    AND (SELECT count(*) = 2 FROM mm.ticket_event
			         WHERE queue_id = $qz AND player_id IN ($z5, $z6) AND status = 'removed' AND reason = 'accept_timeout')"
	else
		notok "a ready check proposed in queue solo_worker, then the other worker stopped (match: ${mr:-none})"
	fi
else
	notok "stop the worker not holding queue solo_worker (port ${other:-none})"
fi

# ---- pg_cron on the coordinator ticks every queue, each on its worker
# (pg_cron lives on the coordinator only: its CREATE EXTENSION is not
# propagated to the workers)
if q -c "SET citus.enable_ddl_propagation = off" -c "CREATE EXTENSION IF NOT EXISTS pg_cron" >/dev/null 2>&1; then
	q >/dev/null <<'SQL'
SELECT mm.enqueue(queue_id, ARRAY[910000 + 2 * queue_id], 1500, 50, joined_at => now() - interval '1 minute'),
       mm.enqueue(queue_id, ARRAY[910001 + 2 * queue_id], 1500, 50, joined_at => now() - interval '1 minute')
FROM mm.queue WHERE name LIKE 'cq%';
SELECT cron.schedule('mm-tick-' || queue_id, '* * * * *', format('SELECT * FROM mm.tick(%s)', queue_id))
FROM mm.queue WHERE name LIKE 'cq%';
SQL
	# pg_cron 1.4 schedules by the minute (1.5 and later take '5 seconds')
	for _ in $(seq 1 75); do
		[ "$(q -c "SELECT count(*) FROM mm.queued_player WHERE player_id >= 910000")" = 0 ] && break
		sleep 1
	done
	q -c "SELECT cron.unschedule(jobname) FROM cron.job WHERE jobname LIKE 'mm-tick-%'" >/dev/null
	check "pg_cron jobs on the coordinator ticked all six queues, each on the worker holding it" \
		"SELECT count(DISTINCT m.queue_id) = 6 AND bool_and((l.tick_id >> 48) = n.groupid)
		 FROM mm.match_roster r JOIN mm.match m USING (queue_id, match_id)
		 JOIN mm.tick_log l ON l.queue_id = m.queue_id AND l.tick_id = m.tick_id
		 JOIN queue_node n ON n.queue_id = m.queue_id
		 WHERE r.players[1] >= 910000"
else
	ok "pg_cron on the coordinator # SKIP pg_cron is not installed"
fi
exit $fail
