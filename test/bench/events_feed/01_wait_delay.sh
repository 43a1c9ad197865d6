# mm.events with max_wait: 40 matches, delay from a tick's commit to the waiting reader's return
/usr/bin/python3 "$(dirname "$0")/wait_delay.py" 40 >>"$MM_ROOT/test/bench/out/events_feed.delays"
