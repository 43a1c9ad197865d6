#!/usr/bin/env bash
# The event feed through the coordinator, run by test/suites/citus.sh
# (queue tables distributed, PGHOST/PGPORT/PGUSER the coordinator's). TAP
# lines; exit 1 when one failed.
#
# A queue's events are written on its worker (the delegated queue-id forms)
# and through the coordinator (the name forms, each statement routed): on
# Citus they are numbered per queue (mm._number_events), so that a reader
# passing its last event_id back as "after" never passes one that commits
# later. Here two sessions enqueue into one queue, one by queue id and one
# by name, a third ticks it, while a reader polls mm.events on the
# coordinator: it must see every event the queue's table holds at the end,
# once, in increasing order, and the ids of the queue must be 1 to n. A
# global sequence would fail this: the worker's ids lie above the
# coordinator's, so a reader past a worker's event skips every later
# event of the coordinator. Then a reader waiting inside mm.events
# (max_wait) hears an enqueue made after it started.
set -uo pipefail

. test/citus/checks.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

q -c "SELECT mm.create_queue('ev_load', '{\"team_size\": 1}')" >/dev/null
qid=$(q -c "SELECT queue_id FROM mm.queue WHERE name = 'ev_load' AND dropped_at IS NULL")

# the writers: 60 enqueues by id (on the worker), 60 by name (routed from
# the coordinator), ticks meanwhile (matched events, on the worker)
(for i in $(seq 1 60); do echo "SELECT mm.enqueue($qid, '{$((710000 + i))}', 1500, 50);"; done |
	psql -X -q -At -d postgres >/dev/null 2>"$work/w1.err"; touch "$work/w1.done") &
(for i in $(seq 1 60); do echo "SELECT mm.enqueue('ev_load', '{$((720000 + i))}', 1500, 50);"; done |
	psql -X -q -At -d postgres >/dev/null 2>"$work/w2.err"; touch "$work/w2.done") &
(for i in $(seq 1 15); do echo "SELECT count(*) FROM mm.tick($qid);"; echo "SELECT pg_sleep(0.05);"; done |
	psql -X -q -At -d postgres >/dev/null 2>"$work/w3.err"; touch "$work/w3.done") &

# the reader: a new connection per call, as through a transaction pooler
after=0
: >"$work/seen"
for _ in $(seq 1 2000); do
	finished=0
	[ -f "$work/w1.done" ] && [ -f "$work/w2.done" ] && [ -f "$work/w3.done" ] && finished=1
	got=$(q -c "SELECT event_id FROM mm.events('ev_load', $after, 25)" 2>>"$work/reader.err")
	if [ -n "$got" ]; then
		echo "$got" >>"$work/seen"
		after=$(echo "$got" | tail -1)
	elif [ "$finished" = 1 ]; then
		break
	fi
done
wait
if [ -s "$work/w1.err" ] || [ -s "$work/w2.err" ] || [ -s "$work/w3.err" ] || [ -s "$work/reader.err" ]; then
	notok "the writers and the reader ran without error"
	cat "$work"/*.err | head -5 | sed 's/^/#   /'
else
	ok "two sessions enqueued into one queue (by id on its worker, by name through the coordinator) and a third ticked it, while a reader polled mm.events"
fi
q -c "SELECT event_id FROM mm.queue_event WHERE queue_id = $qid ORDER BY event_id" >"$work/table"
n=$(grep -c . "$work/table")
queued=$(q -c "SELECT count(*) FROM mm.queue_event WHERE queue_id = $qid AND kind = 'queued'")
matched=$(q -c "SELECT count(*) FROM mm.queue_event WHERE queue_id = $qid AND kind = 'matched'")
if [ "$queued" = 120 ] && [ "$matched" -ge 1 ]; then
	ok "the feed holds the 120 enqueues and the ticks' $matched matches"
else
	notok "the feed holds the 120 enqueues and the ticks' matches (queued $queued, matched $matched)"
fi
if cmp -s "$work/seen" "$work/table"; then
	ok "the reader saw every one of the queue's $n events, once, in id order: none passed while it committed later"
else
	notok "the reader saw every one of the queue's $n events, once, in id order"
	diff "$work/table" "$work/seen" | head -6 | sed 's/^/#   /'
fi
check "the queue's event ids are 1 to n: numbered per queue, no placeholder left" \
	"SELECT count(*) = max(event_id) AND min(event_id) = 1 FROM mm.queue_event WHERE queue_id = $qid"
check "the queue's last id is kept on its shard (mm.queue_event_position)" \
	"SELECT last_event_id = $n FROM mm.queue_event_position WHERE queue_id = $qid"

# a reader waiting inside the statement hears an enqueue made after it began
last=$(tail -1 "$work/table")
q -c "SELECT kind || ' ' || player_ids::text FROM mm.events('ev_load', $last, 10, '20 seconds')" >"$work/waited" 2>&1 &
reader=$!
sleep 1
q -c "SELECT mm.enqueue($qid, '{730001}', 1500, 50)" >/dev/null
start=$(date +%s)
wait "$reader"
if [ "$(cat "$work/waited")" = "queued {730001}" ] && [ $(($(date +%s) - start)) -lt 15 ]; then
	ok "mm.events waiting on the coordinator (max_wait) returns an enqueue made on the worker after it began"
else
	notok "mm.events waiting on the coordinator returns an enqueue made after it began (got: $(head -3 "$work/waited"))"
fi
q -c "SELECT mm.drop_queue('ev_load', keep_history => false)" >/dev/null 2>&1
check "drop_queue without its history deletes the queue's events and its last id" \
	"SELECT NOT EXISTS (SELECT FROM mm.queue_event WHERE queue_id = $qid)
	    AND NOT EXISTS (SELECT FROM mm.queue_event_position WHERE queue_id = $qid)"
exit $fail
