#!/usr/bin/env bash
# One answer, two topologies, run by test/suites/citus.sh (queue tables
# distributed, PGHOST/PGPORT/PGUSER the coordinator's): the same scripted
# season (test/citus/season.sql) on a single node (a database of the
# coordinator's server without Citus) and on the Citus cluster, then every
# table of mm compared, row for row, modulo ids and the times of the wall
# clock (test/citus/season_tables.sql says how), each live queue's event
# feed as mm.events returns it through the coordinator, event by event in
# its order, and its mm.queue_metrics (before and after a purge that folds
# the events it removes into the counters). TAP lines; exit 1 when one
# failed.
set -uo pipefail

fail=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
single=mm_single_node

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $single" -c "CREATE DATABASE $single" >/dev/null 2>&1
if ! psql -X -q -d "$single" -c "CREATE EXTENSION mm" >/dev/null 2>&1 ||
	[ "$(psql -X -q -At -d "$single" -c "SELECT mm._queues_distributed()::text || (SELECT count(*) FROM pg_extension WHERE extname = 'citus')")" != false0 ]; then
	notok "a single node beside the cluster: a database without Citus"
	exit 1
fi
# season PHASE SCRIPT: run SCRIPT on both, then read their tables into
# $work/tables_PHASE_DB.out
season() {
	local phase=$1 script=$2 db
	for db in "$single" postgres; do
		if ! psql -X -q -d "$db" -f "$script" >>"$work/season_$db.out" 2>>"$work/season_$db.err"; then
			notok "the scripted season ($script) runs on $db"
			grep ERROR "$work/season_$db.err" | tail -3 | sed 's/^/#   /'
			exit 1
		fi
		psql -X -q -At -d "$db" -f test/citus/season_tables.sql >"$work/tables_${phase}_$db.out" 2>"$work/tables_$db.err" ||
			{ notok "the season's tables read on $db"; grep ERROR "$work/tables_$db.err" | head -5 | sed 's/^/#   /'; exit 1; }
	done
}
# compare PHASE WHAT: every table, row for row
compare() {
	local phase=$1 what=$2 t a b n total tables label
	for t in queue roster queued_player match ended_roster ticket_event tick_log match_accept queue_dodge backfill \
		match_result match_result_player odds_calibration odds_result ratings rating_period_game dishonor_players \
		queue_event feed metrics; do
		a=$(grep "^$t: " "$work/tables_${phase}_$single.out")
		b=$(grep "^$t: " "$work/tables_${phase}_postgres.out")
		n=$(echo -n "$a" | grep -c .)
		label=mm.$t
		if [ "$t" = feed ] || [ "$t" = queue_event ] || [ "$t" = metrics ]; then
			# each queue's feed as mm.events returns it, the table, and the
			# counters of mm.queue_metrics: only where the single node has
			# events to compare
			[ "$t" = feed ] && label="each queue's feed (mm.events)"
			[ "$t" = metrics ] && label="each live queue's counters and gauges (mm.queue_metrics)"
			[ -n "$a" ] || { notok "$label $what: the single node has events to compare"; continue; }
		fi
		if [ "$a" = "$b" ]; then
			ok "$label $what: the same $n rows on one node and on Citus"
		else
			notok "$label $what: the same rows on one node and on Citus"
			diff <(echo "$a") <(echo "$b") | head -8 | sed 's/^/#   /'
		fi
	done
}
season season test/citus/season.sql
# the refusals the season expects (their match ids aside), the same on both
norm() { grep ERROR "$1" | sed -E 's/^psql:[^:]*:[0-9]+: //; s/match [0-9]+/match N/g'; }
if [ "$(norm "$work/season_$single.err" | grep -c .)" -ge 2 ] &&
	[ "$(norm "$work/season_$single.err")" = "$(norm "$work/season_postgres.err")" ]; then
	ok "the season's refusals are the same on both: $(norm "$work/season_$single.err" | cut -c1-60 | paste -sd ';')"
else
	notok "the season's refusals are the same on both"
	diff <(norm "$work/season_$single.err") <(norm "$work/season_postgres.err") | head -6 | sed 's/^/#   /'
fi
compare season "after the season"
total=$(grep -c . "$work/tables_season_$single.out")
nonempty=$(cut -d: -f1 "$work/tables_season_$single.out" | sort -u | wc -l)
if [ "$total" -ge 200 ] && [ "$nonempty" -ge 15 ]; then
	ok "the season touched every part of the loop ($total rows in $nonempty tables)"
else
	notok "the season touched every part of the loop ($total rows in $nonempty tables)"
fi
season purged test/citus/season_end.sql
compare purged "after a queue dropped and a purge"
if [ "$(grep -c . "$work/tables_purged_$single.out")" -lt "$total" ]; then
	ok "the purge deleted the same history on both ($total rows, then $(grep -c . "$work/tables_purged_$single.out"))"
else
	notok "the purge deleted history"
fi
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $single" >/dev/null 2>&1
exit $fail
