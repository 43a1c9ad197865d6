#!/usr/bin/env bash
# Not a case of make bench (no NN_ prefix): the CPU of one mm.report_result
# of a 5v5 match, before and after a change, counted in instructions by
# valgrind's callgrind, which a busy machine does not disturb (the same run
# counts the same to within a few parts in ten thousand).
#
#   bash test/bench/report_result/callgrind_before_after.sh BEFORE [AFTER]
#
# BEFORE and AFTER are git revisions of this repository (AFTER defaults to
# HEAD; WORKTREE means the work tree with its uncommitted changes). Each is
# built into a private copy of the PostgreSQL installation of PG_CONFIG
# (test/pg_copy.sh) and served by its own durable cluster (bench, B+2, for
# BEFORE and crash, B+3, for AFTER, as test/bench/before_after.sh; MM_PORT
# and MM_TMPDIR as for make bench). Both are built with CFLAGS_SL_MODULE
# empty: trees from before mm exported its functions explicitly cannot be
# loaded by PostgreSQL 16 and later otherwise, and both are then built
# alike.
#
# Each version's database is its own test/bench/report_result/setup.sql
# (30,000 5v5 matches of players who all have a rating row); then 2,000 of
# its matches are reported and VACUUM ANALYZE runs, so that the tables a
# report writes have rows and statistics, as in a running game. (Right
# after setup.sql they are empty and analyzed: the plans of the foreign
# keys' checks then scan mm.match_result whole, and a report costs more the
# more reports came before it in the same session. That is the cold start,
# measured on its own.)
#
# A measurement: a copy of that database, the server stopped, and one
# single-user backend (postgres --single) under callgrind that reports 20
# matches (the session prepares its statements) and then MM_REPORTS more
# (default 500), in one statement each, instructions counted inside the
# statements only (exec_simple_query). Once with MM_REPORTS and once with 0:
# the difference divided by MM_REPORTS is one report's instructions, with
# nothing of the backend's start and the first 20 reports in it. Prints each
# version's instructions per report and the ratio after / before.
# MM_CASE=enqueue counts mm.enqueue instead, the same way: a queue with
# 2,000 solo rosters enqueued (and VACUUM ANALYZE), then 20 + MM_REPORTS
# more enqueues of new players, each call in its own statement's row.
# MM_CASE=leave counts mm.leave: the queue holds 2,020 + MM_REPORTS solo
# rosters, the first 2,000 leave before VACUUM ANALYZE, then 20 + MM_REPORTS
# more (rosters 2,001 and on).
# MM_CALLGRIND_KEEP=DIR copies the callgrind profiles (before.N.out,
# after.N.out) there, for callgrind_annotate --inclusive=yes.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
cd "$here"
before_rev=${1:?usage: test/bench/report_result/callgrind_before_after.sh BEFORE [AFTER]}
after_rev=${2:-HEAD}
reports=${MM_REPORTS:-500}
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
command -v valgrind >/dev/null || { echo "callgrind_before_after: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
. test/ports.sh
work=$(mktemp -d "$(mm_tmpdir)"/mm-report-callgrind.XXXXXX)
chmod 755 "$work"
mkdir "$work/cg"

declare -A cluster=([before]=bench [after]=crash)
declare -A rev=([before]=$before_rev [after]=$after_rev)
declare -A config

cleanup() {
	for v in before after; do
		if [ -n "${config[$v]:-}" ]; then
			PG_CONFIG=${config[$v]} bash test/cluster.sh stop "${cluster[$v]}" >/dev/null 2>&1 || true
		fi
	done
	if [ -n "${MM_CALLGRIND_KEEP:-}" ]; then
		mkdir -p "$MM_CALLGRIND_KEEP" && cp "$work"/cg/*.out "$MM_CALLGRIND_KEEP"/ 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

# as the cluster's OS user (postgres when run as root)
as_owner() {
	if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
if [ "$(id -u)" = 0 ]; then chown postgres: "$work/cg"; fi

# psql on version v's cluster
on() {
	local v=$1
	shift
	(eval "$(PG_CONFIG=${config[$v]} bash "$here/test/cluster.sh" env "${cluster[$v]}")"
	 export PGHOST PGPORT PGUSER
	 psql -X -q -v ON_ERROR_STOP=1 "$@")
}

case=${MM_CASE:-report}
case $case in report|enqueue|leave) ;; *) echo "callgrind_before_after: MM_CASE is report, enqueue or leave" >&2; exit 1 ;; esac
report_sql() { # first last: report (or enqueue) the matches (players) first..last in one statement
	if [ "$case" = enqueue ]; then
		echo "SELECT count(mm.enqueue('bench', ARRAY[g]::bigint[], 1500 + g % 300, 50)) FROM generate_series($1, $2) g;"
		return
	fi
	if [ "$case" = leave ]; then
		echo "SELECT count(*) FILTER (WHERE mm.leave(g::bigint)) FROM generate_series($1, $2) g;"
		return
	fi
	echo "SELECT count(*) FROM plan p, LATERAL mm.report_result(p.m, '{\"teams\": {\"red\": {\"rank\": 1, \"score\": 500}, \"blue\": {\"rank\": 2, \"score\": 420}}}') r WHERE p.m BETWEEN $1 AND $2;"
}

# 1. Each version: its sources, a private PostgreSQL with it installed, a
#    cluster, its database with 2,000 reports made and statistics.
for v in before after; do
	mkdir -p "$work/$v/src"
	if [ "${rev[$v]}" = WORKTREE ]; then
		echo "== $v: the work tree as it is"
		git ls-files -co --exclude-standard -z | xargs -0 cp -a --parents -t "$work/$v/src"
	else
		echo "== $v: ${rev[$v]} ($(git rev-parse --short "${rev[$v]}"))"
		git archive "${rev[$v]}" | tar -x -C "$work/$v/src"
	fi
	config[$v]=$(bash test/pg_copy.sh "$work/$v/pg")
	(cd "$work/$v/src" && make -s PG_CONFIG="${config[$v]}" CFLAGS_SL_MODULE= >/dev/null 2>"$work/$v/build.log" &&
		make -s PG_CONFIG="${config[$v]}" CFLAGS_SL_MODULE= install >/dev/null 2>>"$work/$v/build.log") ||
		{ cat "$work/$v/build.log"; echo "callgrind_before_after: building $v failed" >&2; exit 1; }
	PG_CONFIG=${config[$v]} bash test/cluster.sh start "${cluster[$v]}" >/dev/null
	if [ "$case" = enqueue ]; then echo "== $v: setting up (a queue, 2,000 rosters enqueued)";
	elif [ "$case" = leave ]; then echo "== $v: setting up (a queue, $((2020 + reports)) rosters, 2,000 of them left)"; else echo "== $v: setting up (30,000 matches, 2,000 of them reported)"; fi
	on "$v" -d postgres -c "CREATE DATABASE bench_report" >/dev/null
	on "$v" -d bench_report -c "CREATE EXTENSION mm" >/dev/null
	if [ "$case" = enqueue ]; then
		on "$v" -d bench_report -c "SELECT mm.create_queue('bench', '{\"team_size\": 5}')" >/dev/null
	elif [ "$case" = leave ]; then
		on "$v" -d bench_report -c "SELECT mm.create_queue('bench', '{\"team_size\": 5}')" \
			-c "SELECT count(mm.enqueue('bench', ARRAY[g]::bigint[], 1500 + g % 300, 50)) FROM generate_series(1, $((2020 + reports))) g" >/dev/null
	else
		(cd "$work/$v/src" && on "$v" -d bench_report -f test/bench/report_result/setup.sql >/dev/null)
	fi
	for k in 0 1 2 3; do
		report_sql $((k * 500 + 1)) $(((k + 1) * 500)) | on "$v" -d bench_report >/dev/null
	done
	on "$v" -d bench_report -c "VACUUM ANALYZE" >/dev/null
done

# 2. Instructions of a single-user backend that reports 20 + n matches
#    (counted inside its statements).
count() {
	local v=$1 n=$2 dir bindir out
	dir=$(PG_CONFIG=${config[$v]} bash test/cluster.sh dir "${cluster[$v]}")
	bindir=$("${config[$v]}" --bindir)
	out=$work/cg/$v.$n
	on "$v" -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS bench_report_run" -c "CREATE DATABASE bench_report_run TEMPLATE bench_report" >/dev/null
	as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
	{
		report_sql 2001 2020
		[ "$n" -gt 0 ] && report_sql 2021 $((2020 + n))
	} | as_owner valgrind --tool=callgrind --callgrind-out-file="$out.out" --toggle-collect=exec_simple_query \
		"$bindir/postgres" --single -D "$dir/data" -c shared_preload_libraries= bench_report_run >"$out.stdout" 2>"$out.log"
	as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null
	if grep -q ERROR "$out.stdout"; then
		grep ERROR "$out.stdout" >&2
		echo "callgrind_before_after: $v failed" >&2
		exit 1
	fi
	sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out.log"
}

declare -A per
for v in before after; do
	echo "== $v: callgrind, 20 + 0 and 20 + $reports reports"
	i0=$(count "$v" 0)
	i1=$(count "$v" "$reports")
	per[$v]=$(( (i1 - i0) / reports ))
done

echo
short() { if [ "$1" = WORKTREE ]; then echo "the work tree"; else git rev-parse --short "$1"; fi; }
echo "before: $before_rev ($(short "$before_rev")), after: $after_rev ($(short "$after_rev")); $("$PG_CONFIG" --version)"
if [ "$case" = enqueue ]; then
	echo "instructions per mm.enqueue of a solo roster (callgrind, $reports enqueues after 2,000 and 20)"
elif [ "$case" = leave ]; then
	echo "instructions per mm.leave of a solo roster (callgrind, $reports leaves after 2,000 and 20)"
else
	echo "instructions per mm.report_result of a 5v5 match (callgrind, $reports reports after 2,000 and 20)"
fi
printf '%-8s %14s\n' before "${per[before]}" after "${per[after]}"
printf 'ratio after / before: %.3fx\n' "$(awk -v a="${per[after]}" -v b="${per[before]}" 'BEGIN {print a / b}')"
