# the wake-up delays of the runs, and the plan of the poll at the tail
out=$MM_ROOT/test/bench/out
q=$(psql -X -At -c "SELECT queue_id FROM mm.queue WHERE name = 'tail'")
last=$(psql -X -At -c "SELECT max(event_id) FROM mm.queue_event WHERE queue_id = $q")
{
	echo "events_feed: wake-up delay per run: $(tr '\n' ';' <"$out/events_feed.delays")"
	echo "events_feed: the statement mm.events runs, polling at the tail of $(psql -X -At -c "SELECT count(*) FROM mm.queue_event WHERE queue_id = $q") retained events:"
	psql -X -At -c "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF)
		SELECT e.event_id, e.at, e.kind, e.match_id, e.roster_id, e.player_ids, e.detail
		FROM mm.queue_event e
		WHERE e.queue_id = $q AND e.event_id > $((last - 5)) AND e.event_id <= $last
		ORDER BY e.event_id LIMIT 100"
} | tee "$out/events_feed.txt"
