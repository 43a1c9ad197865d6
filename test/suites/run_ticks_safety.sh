#!/usr/bin/env bash
# mm.run_ticks when things change under it:
#
#  - Ticks of one queue stay spaced whoever runs them. A run ticking every
#    2 s; the queue dropped and created again under its name; a second run
#    started: the first run followed the name to the new queue and both
#    ticked it, 0.3 s apart. A run holds a queue by its id: the new queue
#    is another queue, taken by one run only, and the other waits.
#  - A run whose client is gone stops at its next tick. A CALL whose
#    client is killed (what Debian's pg_cron 1.4 does on cron.unschedule:
#    it closes the job's connection) kept ticking for the rest of its span.
#
# (A run cancelled by a statement timeout frees its memory: the regression
# test safety_run_ticks.) Each queue keeps one roster waiting that cannot
# be matched, so that every tick writes its own tick log row, and the
# ticks are read from mm.tick_log. TAP lines "ok - ..." / "not ok - ...".
set -uo pipefail

fail=0
db=mm_run_ticks_safety
tmp=$(mktemp -d "${MM_TMPDIR:-/tmp}/mm-run-ticks-safety.XXXXXX")
chmod 755 "$tmp"
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }
q() { psql -X -q -At -d "$db" -v ON_ERROR_STOP=1 "$@"; }

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null || exit 1
trap 'psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1; rm -rf "$tmp"' EXIT

q >/dev/null <<'SQL' || { notok "queues set up"; exit 1; }
CREATE EXTENSION mm;
SELECT mm.create_queue('spaced', '{"team_size": 1}');
SELECT mm.enqueue('spaced', ARRAY[1::bigint], 1500);
SELECT mm.create_queue('orphan', '{"team_size": 1}');
SELECT mm.enqueue('orphan', ARRAY[2::bigint], 1500);
SQL

# 1. a run ticking every 2 s; the queue dropped and created again; a second run
psql -X -q -d "$db" -c "CALL mm.run_ticks('spaced', '2 seconds', '12 seconds')" >/dev/null 2>"$tmp/a.err" &
a=$!
sleep 3
q >/dev/null <<'SQL'
SELECT mm.drop_queue('spaced', keep_history => false);
SELECT mm.create_queue('spaced', '{"team_size": 1}');
SELECT mm.enqueue('spaced', ARRAY[1::bigint], 1500);
SQL
psql -X -q -d "$db" -c "CALL mm.run_ticks('spaced', '2 seconds', '8 seconds')" >/dev/null 2>"$tmp/b.err" &
b=$!
wait "$a" "$b"
read -r ticks mingap <<<"$(q -F ' ' -c "
    SELECT count(*), coalesce(round(extract(epoch FROM min(gap))::numeric, 2), 0)
    FROM (SELECT at - lag(at) OVER (ORDER BY at) AS gap FROM mm.tick_log l JOIN mm.queue q USING (queue_id)
          WHERE q.name = 'spaced') g")"
echo "# the queue created again: $ticks ticks, the shortest gap ${mingap} s (interval 2 s)"
if [ "$ticks" -ge 4 ] && [ "$(q -c "SELECT $mingap >= 1")" = t ]; then
	ok "a queue dropped and created again is ticked by one run at a time: ticks at least half an interval apart ($ticks ticks, shortest gap ${mingap} s)"
else
	notok "a queue dropped and created again is ticked by one run at a time: ticks at least half an interval apart ($ticks ticks, shortest gap ${mingap} s)"
fi
if ! grep -v NOTICE "$tmp/a.err" "$tmp/b.err" | grep -q .; then
	ok "both runs ended without an error or a WARNING"
else
	notok "both runs ended without an error or a WARNING"
	cat "$tmp/a.err" "$tmp/b.err" | sed 's/^/#   /' | head -5
fi

# 2. a run whose client is killed: no tick a second after, the backend gone
psql -X -q -d "$db" -c "CALL mm.run_ticks('orphan', '200 milliseconds', '30 seconds')" >/dev/null 2>&1 &
c=$!
sleep 2
kill -9 "$c"
wait "$c" 2>/dev/null
killed=$(q -c "SELECT clock_timestamp()")
sleep 3
read -r before after running <<<"$(q -F ' ' -c "
    SELECT count(*) FILTER (WHERE l.at < '$killed'),
           count(*) FILTER (WHERE l.at > '$killed'::timestamptz + interval '1 second'),
           (SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'CALL mm.run_ticks(''orphan''%')
    FROM mm.tick_log l JOIN mm.queue q USING (queue_id) WHERE q.name = 'orphan'")"
echo "# the run ticked $before times before its client was killed, $after times a second after; backends left running it: $running"
if [ "$before" -ge 3 ] && [ "$after" = 0 ] && [ "$running" = 0 ]; then
	ok "a run whose client is gone stops at its next tick (no tick a second after, its backend gone)"
else
	notok "a run whose client is gone stops at its next tick (no tick a second after, its backend gone)"
fi
exit $fail
