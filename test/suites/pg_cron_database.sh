#!/usr/bin/env bash
# pg_cron from another database (docs/operations.md): mm lives in database
# mm_cron_game, pg_cron in cron.database_name ('postgres' on the test
# cluster). A login role that has mm's service role in mm_cron_game
# schedules mm.run_ticks there with cron.schedule_in_database; the job runs
# as that role and makes matches. A role without mm's roles schedules the
# same job and it fails with permission denied: the job runs with the rights
# of whoever scheduled it. Waits for one pg_cron minute (at most 75 s).
# TAP lines "ok - ..." / "not ok - ...".
set -uo pipefail

fail=0
game=mm_cron_game
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
created_cron=0

cleanup() {
	q -d postgres -c "SELECT cron.unschedule(jobid) FROM cron.job WHERE jobname LIKE 'mm-db-test%'" >/dev/null 2>&1
	if [ "$created_cron" = 1 ]; then
		q -d postgres -c "DROP EXTENSION IF EXISTS pg_cron" >/dev/null 2>&1
	fi
	q -d postgres -c "DROP DATABASE IF EXISTS $game" >/dev/null 2>&1
	q -d postgres -c "DROP ROLE IF EXISTS mm_cron_ticker, mm_cron_nobody" >/dev/null 2>&1
	q -d postgres -c "DROP ROLE IF EXISTS mm_cron_service, mm_cron_admin, mm_cron_analyst" >/dev/null 2>&1
}
cleanup
trap cleanup EXIT

if [ "$(q -d postgres -c "SELECT count(*) FROM pg_extension WHERE extname = 'pg_cron'")" = 0 ]; then
	created_cron=1
fi
# 1. as a superuser, in pg_cron's database: pg_cron and the login roles
if q -d postgres -c "CREATE EXTENSION IF NOT EXISTS pg_cron" \
	-c "CREATE ROLE mm_cron_ticker LOGIN" -c "CREATE ROLE mm_cron_nobody LOGIN" \
	-c "GRANT USAGE ON SCHEMA cron TO mm_cron_ticker, mm_cron_nobody" \
	-c "GRANT EXECUTE ON FUNCTION cron.schedule_in_database(text, text, text, text, text, boolean) TO mm_cron_ticker, mm_cron_nobody" &&
	q -d postgres -c "CREATE DATABASE $game" &&
	# 2. in the game's database: mm, its roles, a queue; the ticker gets the service role
	q -d "$game" -c "CREATE EXTENSION mm" \
		-c "SELECT count(*) FROM mm.grant_roles('mm_cron_service', 'mm_cron_admin', 'mm_cron_analyst')" \
		-c "GRANT mm_cron_service TO mm_cron_ticker" \
		-c "SELECT mm.create_queue('cron_db', '{\"team_size\": 1, \"filter\": {\"potentials_min\": 1}}')" \
		-c "SELECT count(mm.enqueue('cron_db', ARRAY[p::bigint], 1500, 100)) FROM generate_series(1, 10) p" >/dev/null; then
	ok "pg_cron in postgres, mm in $game, roles granted"
else
	notok "pg_cron in postgres, mm in $game, roles granted"
	exit 1
fi
if q -d "$game" -c "CREATE EXTENSION pg_cron" >/dev/null 2>&1; then
	notok "pg_cron cannot be created in $game (the reason for the recipe)"
else
	ok "pg_cron cannot be created in $game (the reason for the recipe)"
fi

# 3. each login role schedules the job from postgres, into the game's database
schedule() {
	psql -X -q -At -v ON_ERROR_STOP=1 -d postgres -U "$1" \
		-c "SELECT cron.schedule_in_database('$2', '* * * * *', \$\$CALL mm.run_ticks('cron_db', '1 second', '3 seconds')\$\$, '$game')"
}
job=$(schedule mm_cron_ticker mm-db-test)
denied=$(schedule mm_cron_nobody mm-db-test-denied)
# the test cluster listens on its socket only: point the jobs there
q -d postgres -c "UPDATE cron.job SET nodename = current_setting('unix_socket_directories') WHERE jobname LIKE 'mm-db-test%'" >/dev/null
row=$(q -d postgres -c "SELECT database || ' ' || username FROM cron.job WHERE jobid = ${job:-0}")
if [ -n "$job" ] && [ -n "$denied" ] && [ "$row" = "$game mm_cron_ticker" ]; then
	ok "scheduled with cron.schedule_in_database by the login roles (job $job runs in $row)"
else
	notok "scheduled with cron.schedule_in_database by the login roles (job ${job:-none}: ${row:-none})"
fi

# wait until both jobs have run to their end
for _ in $(seq 75); do
	done_jobs=$(q -d postgres -c "SELECT count(*) FROM (SELECT DISTINCT ON (jobid) status FROM cron.job_run_details WHERE jobid IN (${job:-0}, ${denied:-0}) ORDER BY jobid, runid DESC) r WHERE status IN ('succeeded', 'failed')")
	[ "$done_jobs" = 2 ] && break
	sleep 1
done
ran=$(q -d postgres -c "SELECT status FROM cron.job_run_details WHERE jobid = ${job:-0} ORDER BY runid DESC LIMIT 1")
refused=$(q -d postgres -c "SELECT status || ': ' || return_message FROM cron.job_run_details WHERE jobid = ${denied:-0} ORDER BY runid DESC LIMIT 1")
if [ "$ran" = succeeded ]; then
	ok "the job of the role with mm's service role ran in $game"
else
	notok "the job of the role with mm's service role ran in $game (status: ${ran:-never started})"
	q -d postgres -c "SELECT return_message FROM cron.job_run_details WHERE jobid = ${job:-0}" | sed 's/^/#   /'
fi
matches=$(q -d "$game" -c "SELECT count(*) FROM mm.match")
if [ "$matches" = 5 ]; then
	ok "its ticks made the matches: 10 rosters in 5 matches"
else
	notok "its ticks made the matches (${matches:-?} matches, 5 expected)"
fi
case "$refused" in
	"failed: ERROR:  permission denied for procedure run_ticks"*)
		ok "the job of a role without mm's roles failed: permission denied (it runs as that role)" ;;
	*)
		notok "the job of a role without mm's roles failed: permission denied (got: ${refused:-nothing})" ;;
esac

# the role that scheduled a job unschedules it; the roles go away cleanly
if psql -X -q -At -d postgres -U mm_cron_ticker -c "SELECT cron.unschedule('mm-db-test')" >/dev/null &&
	q -d "$game" -c "DROP OWNED BY mm_cron_service, mm_cron_admin, mm_cron_analyst" >/dev/null; then
	ok "job unscheduled by its owner"
else
	notok "job unscheduled by its owner"
fi
exit $fail
