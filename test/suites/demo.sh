#!/usr/bin/env bash
# make demo's tour still runs: every part of test/demo/ in a fresh database
# (as test/demo.sh runs them) with no error, warning or notice, and the
# analytics plots it draws (test/plots.sh) are written. The tour and the
# plots call the SQL surface the way a reader would; when a function or a
# column they use is renamed, this fails instead of make demo.
# TAP lines "ok - ..." / "not ok - ...".
set -uo pipefail
cd "${MM_ROOT:?}"
db=mm_demo_suite
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

psql -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" \
	-c "CREATE DATABASE $db"
psql -X -q -d "$db" -c "CREATE EXTENSION mm"
for part in test/demo/*.sql; do
	[ -e "$part" ] || continue
	if ! psql -X -d "$db" -v ON_ERROR_STOP=1 -e --pset=footer=off -f "$part" >"$work/out" 2>"$work/err"; then
		echo "not ok - demo part $part runs"
		sed 's/^/#   /' "$work/err" | head -20
		continue
	fi
	if grep -E '^(psql:.*)?(ERROR|WARNING|NOTICE):' "$work/err" "$work/out" >"$work/said"; then
		echo "not ok - demo part $part prints no error, warning or notice"
		sed 's/^/#   /' "$work/said" | head -20
	else
		echo "ok - demo part $part runs clean"
	fi
done

if ! command -v gnuplot >/dev/null && ! bash test/plots.sh deps >/dev/null 2>&1; then
	echo "ok - the demo's plots # SKIP gnuplot is missing and cannot be installed"
elif bash test/plots.sh analytics "$work/plots" "$db" >"$work/plots.log" 2>&1 &&
	[ -s "$work/plots/convergence.png" ] && [ -s "$work/plots/reliability.png" ] &&
	[ -s "$work/plots/beta_fit.png" ] && [ -s "$work/plots/wait_times.png" ]; then
	echo "ok - the demo's plots are drawn (convergence, reliability, beta fit, wait times)"
else
	echo "not ok - the demo's plots are drawn (convergence, reliability, beta fit, wait times)"
	sed 's/^/#   /' "$work/plots.log" | tail -20
fi
psql -X -q -d postgres -c "DROP DATABASE $db"
