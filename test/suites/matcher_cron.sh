#!/usr/bin/env bash
# pg_cron integration of the roster matcher: schedule mm.run_ticks every
# minute with pg_cron (Debian's pg_cron 1.4 fires at most once a minute),
# see matches appear, unschedule, drop. TAP lines "ok - ..." / "not ok - ...".
#
# The test cluster has shared_preload_libraries = 'pg_cron' and
# cron.database_name = 'postgres' and listens on a Unix socket only, so the
# job's connection is pointed at the socket directory (cron.job.nodename).
set -uo pipefail

fail=0
db=postgres
psql_q() { psql -X -q -At -d "$db" -v ON_ERROR_STOP=1 "$@"; }
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }

cleanup() {
	psql_q -c "SELECT cron.unschedule(jobid) FROM cron.job WHERE jobname = 'mm-cron-test'" >/dev/null 2>&1
	psql_q -c "DROP EXTENSION IF EXISTS mm" >/dev/null 2>&1
	psql_q -c "DROP EXTENSION IF EXISTS pg_cron" >/dev/null 2>&1
}
cleanup
trap cleanup EXIT

if psql_q -c "CREATE EXTENSION pg_cron" -c "CREATE EXTENSION mm"; then
	ok "pg_cron and mm created in database postgres"
else
	notok "pg_cron and mm created in database postgres"
	exit 1
fi

# 20 solo rosters that all overlap: teams of 1, so 10 matches to make.
psql_q >/dev/null <<'SQL' || notok "queue set up"
SELECT mm.create_queue('cron', '{"team_size": 1, "filter": {"potentials_min": 1, "rosters": 8}}');
SELECT count(mm.enqueue('cron', ARRAY[p::bigint], 1500, 100)) FROM generate_series(1, 20) p;
SQL

# Every minute: ticks every 2 seconds for 6 seconds (rosters 8: 4 matches
# per tick at most, so the job needs several committed ticks).
jobid=$(psql_q -c "SELECT cron.schedule('mm-cron-test', '* * * * *', \$\$CALL mm.run_ticks('cron', '2 seconds', '6 seconds')\$\$)")
psql_q -c "UPDATE cron.job SET nodename = current_setting('unix_socket_directories') WHERE jobid = $jobid" >/dev/null
if [ -n "$jobid" ]; then ok "mm.run_ticks scheduled with cron.schedule (job $jobid)"; else notok "mm.run_ticks scheduled"; fi

# Wait (at most 75 s) for the job to run to its end.
status=""
for _ in $(seq 75); do
	status=$(psql_q -c "SELECT status FROM cron.job_run_details WHERE jobid = $jobid ORDER BY runid DESC LIMIT 1")
	[ "$status" = succeeded ] || [ "$status" = failed ] && break
	sleep 1
done
if [ "$status" = succeeded ]; then
	ok "pg_cron ran the job to its end"
else
	notok "pg_cron ran the job to its end (status: ${status:-never started})"
	psql_q -c "SELECT return_message FROM cron.job_run_details WHERE jobid = $jobid" >&2
fi

matches=$(psql_q -c "SELECT count(*) FROM mm.match")
ticks=$(psql_q -c "SELECT count(*) FROM mm.tick_log WHERE matches_made > 0")
waiting=$(psql_q -c "SELECT count(*) FROM mm.roster WHERE match_id IS NULL")
if [ "$matches" = 10 ] && [ "$waiting" = 0 ]; then
	ok "matches appeared: all 20 rosters in 10 matches"
else
	notok "matches appeared: $matches matches, $waiting rosters still waiting"
fi
if [ "${ticks:-0}" -ge 3 ]; then
	ok "the job committed several ticks ($ticks made matches)"
else
	notok "the job committed several ticks (${ticks:-0} made matches)"
fi

if psql_q -c "SELECT cron.unschedule($jobid)" >/dev/null && [ "$(psql_q -c "SELECT count(*) FROM cron.job WHERE jobid = $jobid")" = 0 ]; then
	ok "job unscheduled"
else
	notok "job unscheduled"
fi
if psql_q -c "DROP EXTENSION mm" -c "DROP EXTENSION pg_cron"; then
	ok "mm and pg_cron dropped"
else
	notok "mm and pg_cron dropped"
fi
exit $fail
