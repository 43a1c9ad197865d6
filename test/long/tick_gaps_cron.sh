#!/usr/bin/env bash
# Ticks without gaps under pg_cron, as docs/queue.md schedules them
# for pg_cron 1.4 (Debian 12's): a job every minute calling
# mm.run_ticks(queue, '1 second', '75 seconds'), so each run overlaps the
# next by 15 seconds and hands the queue over. For MM_LONG_CRON_MINUTES
# (default 10) minutes from the first tick, the longest time between two
# ticks of the queue, read from mm.tick_log, must stay within twice the
# interval. The queue keeps one roster waiting that cannot be matched, so
# every tick writes its own row. Runs on test/cluster.sh's "crash" cluster
# (durable, port MM_PORT+3), which preloads pg_cron.
# TAP lines "ok - ..." / "not ok - ...".
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$here"
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
cluster=test/cluster.sh
name=crash
minutes=${MM_LONG_CRON_MINUTES:-10}
every=1
fail=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }
q() { psql -X -q -At -d postgres -v ON_ERROR_STOP=1 "$@"; }

cleanup() {
	q -c "SELECT cron.unschedule(jobid) FROM cron.job WHERE jobname = 'mm-gaps'" >/dev/null 2>&1
	bash "$cluster" stop "$name"
}
trap cleanup EXIT

log=$(mktemp "${MM_TMPDIR:-/tmp}"/mm-tick-gaps-cron.XXXXXX)
if ! { bash "$cluster" build && bash "$cluster" start "$name"; } >"$log" 2>&1; then
	cat "$log"
	rm -f "$log"
	notok "building mm and starting the cluster"
	exit 1
fi
rm -f "$log"
eval "$(bash "$cluster" env "$name")"
export PGHOST PGPORT PGUSER

q >/dev/null <<SQL || { notok "pg_cron, mm and the queue set up"; exit 1; }
CREATE EXTENSION pg_cron;
CREATE EXTENSION mm;
SELECT mm.create_queue('gaps', '{"team_size": 1}');
SELECT mm.enqueue('gaps', ARRAY[1::bigint], 1500);
SELECT cron.schedule('mm-gaps', '* * * * *', \$\$CALL mm.run_ticks('gaps', '$every second', '75 seconds')\$\$);
UPDATE cron.job SET nodename = current_setting('unix_socket_directories') WHERE jobname = 'mm-gaps';
SQL
ok "mm.run_ticks('gaps', '$every second', '75 seconds') scheduled every minute with pg_cron $(q -c "SELECT extversion FROM pg_extension WHERE extname = 'pg_cron'")"

# the first run starts at the next minute
for _ in $(seq 90); do
	[ "$(q -c "SELECT count(*) > 0 FROM mm.tick_log")" = t ] && break
	sleep 1
done
first=$(q -c "SELECT min(at) FROM mm.tick_log")
if [ -z "$first" ]; then
	notok "pg_cron started a run within 90 seconds"
	q -c "SELECT status, return_message FROM cron.job_run_details" | sed 's/^/#   /'
	exit 1
fi
sleep $((minutes * 60))

read -r ticks span maxgap runs <<<"$(q -F ' ' -c "
    SELECT count(*), round(extract(epoch FROM now() - min(at))::numeric, 1),
           round(extract(epoch FROM greatest(max(gap), now() - max(at)))::numeric, 3),
           (SELECT count(*) FROM cron.job_run_details d JOIN cron.job j USING (jobid) WHERE j.jobname = 'mm-gaps')
    FROM (SELECT at, at - lag(at) OVER (ORDER BY at) AS gap FROM mm.tick_log) g")"
echo "# $ticks ticks over $span s from $runs pg_cron runs, longest gap ${maxgap} s (interval ${every} s)"
if [ "$(q -c "SELECT $maxgap <= 2 * $every")" = t ]; then
	ok "longest gap between two ticks over $minutes minutes: ${maxgap} s, within twice the interval"
else
	notok "longest gap between two ticks over $minutes minutes: ${maxgap} s, within twice the interval"
	q -c "SELECT to_char(at, 'HH24:MI:SS.MS'), round(extract(epoch FROM gap)::numeric, 3)
          FROM (SELECT at, at - lag(at) OVER (ORDER BY at) AS gap FROM mm.tick_log) g
          WHERE gap > interval '$((2 * every)) seconds'" | sed 's/^/#   /' | head -20
fi
if [ "$(q -c "SELECT $ticks >= 0.9 * $span / $every")" = t ]; then
	ok "the queue was ticked about every interval ($ticks ticks in $span s)"
else
	notok "the queue was ticked about every interval ($ticks ticks in $span s)"
fi
failed_runs=$(q -c "SELECT count(*) FROM cron.job_run_details WHERE status = 'failed'")
if [ "$failed_runs" = 0 ]; then
	ok "no pg_cron run failed"
else
	notok "no pg_cron run failed ($failed_runs did)"
	q -c "SELECT return_message FROM cron.job_run_details WHERE status = 'failed' LIMIT 3" | sed 's/^/#   /'
fi
exit $fail
