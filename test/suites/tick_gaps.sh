#!/usr/bin/env bash
# Ticks without gaps: mm.run_ticks runs that overlap hand a queue over, so
# the longest time between two ticks of the queue stays within two of its
# intervals. pg_cron 1.4 starts a job once a minute; the documented
# schedule is a run each minute with a span over a minute. Here the same
# thing runs faster, started by this script: a run every 4 seconds with a
# span of 5.5 seconds, ticking every second, five runs. A run that found
# the queue held used to skip it for its whole span: on that code this
# suite measured a longest gap of 4.0 s (18 ticks in 20 s);
# test/long/tick_gaps_cron.sh measures the real pg_cron schedule over 10
# minutes.
#
# The queue keeps one roster waiting that cannot be matched (teams of one,
# no one to meet), so every tick writes its own tick log row: the gaps are
# read from mm.tick_log. TAP lines "ok - ..." / "not ok - ...".
set -uo pipefail

fail=0
db=mm_tick_gaps
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }
q() { psql -X -q -At -d "$db" -v ON_ERROR_STOP=1 "$@"; }

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null || exit 1
trap 'psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1' EXIT

q >/dev/null <<'SQL' || { notok "queue set up"; exit 1; }
CREATE EXTENSION mm;
SELECT mm.create_queue('gaps', '{"team_size": 1}');
SELECT mm.enqueue('gaps', ARRAY[1::bigint], 1500);
SQL

every=1
runs=5
for i in $(seq "$runs"); do
	psql -X -q -d "$db" -c "CALL mm.run_ticks('gaps', '$every second', '5.5 seconds')" \
		>/dev/null 2>"${MM_TMPDIR:-/tmp}/mm-tick-gaps-$$-$i.err" &
	[ "$i" -lt "$runs" ] && sleep 4
done
wait
errors=$(cat "${MM_TMPDIR:-/tmp}"/mm-tick-gaps-$$-*.err | grep -v 'NOTICE' || true)
rm -f "${MM_TMPDIR:-/tmp}"/mm-tick-gaps-$$-*.err
if [ -z "$errors" ]; then
	ok "$runs overlapping mm.run_ticks runs ended without an error"
else
	notok "$runs overlapping mm.run_ticks runs ended without an error"
	echo "$errors" | sed 's/^/#   /' | head -5
fi

read -r ticks span maxgap <<<"$(q -F ' ' -c "
    SELECT count(*), round(extract(epoch FROM max(at) - min(at))::numeric, 1),
           round(extract(epoch FROM max(gap))::numeric, 3)
    FROM (SELECT at, at - lag(at) OVER (ORDER BY at) AS gap FROM mm.tick_log) g")"
echo "# $ticks ticks over ${span} s, longest gap between two ticks ${maxgap} s (interval ${every} s)"
if [ "$(q -c "SELECT $ticks >= 18")" = t ]; then
	ok "the queue was ticked about once a second across the handovers ($ticks ticks)"
else
	notok "the queue was ticked about once a second across the handovers ($ticks ticks)"
fi
if [ "$(q -c "SELECT $maxgap <= 2 * $every")" = t ]; then
	ok "longest gap between two ticks ${maxgap} s, within twice the interval"
else
	notok "longest gap between two ticks ${maxgap} s, within twice the interval"
fi
if [ "$(q -c "SELECT count(*) = 0 FROM (SELECT at - lag(at) OVER (ORDER BY at) AS gap FROM mm.tick_log) g
               WHERE gap < interval '0.5 seconds'")" = t ]; then
	ok "no two runs ticked the queue at once (no two ticks less than half an interval apart)"
else
	notok "no two runs ticked the queue at once (no two ticks less than half an interval apart)"
fi
exit $fail
