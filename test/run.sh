#!/usr/bin/env bash
# The README's test command (make test): install what is missing, build with
# -Wall -Wextra -Werror, install, start a throwaway cluster, run every suite,
# stop the cluster, print "N passed, N failed, N skipped" (a TAP line
# "ok - ... # SKIP why" is skipped, never passed; test/tap.sh). Exits non-zero
# on any failure, or when the build or the cluster could not be set up.
#
# Suites:
#   regress    pg_regress over test/sql/*.sql against expected/*.out
#   isolation  isolationtester over test/isolation/specs/*.spec
#   suites     every executable test/suites/*.sh; each prints TAP lines
#              ("ok - what" / "not ok - what" / "ok - what # SKIP why") and
#              exits non-zero on failure.
#              They get PGHOST, PGPORT, PGUSER, MM_ROOT and PG_CONFIG in the
#              environment, and PATH with PG_CONFIG's programs first.
#
# PG_CONFIG picks the PostgreSQL installation (default: Debian's packages of
# PostgreSQL 15, installed when missing); any other is used as it is
# (docs/development.md, "Other PostgreSQL versions").
#
# MM_ONLY (a developer's shortcut, unset in CI) runs only the parts it names,
# separated by spaces: "regress", "isolation" and suite names without .sh,
# e.g. MM_ONLY='regress upgrade readme' make test.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
cluster=test/cluster.sh
passed=0
failed=0
skipped=0
log=$(mktemp -d "${MM_TMPDIR:-/tmp}"/mm-test-log.XXXXXX)
skips_file=$log/skipped
: >"$skips_file"
. test/tap.sh
only=${MM_ONLY:-}

# wanted PART: true when MM_ONLY is unset or names PART.
wanted() {
	[ -z "$only" ] && return 0
	case " $only " in *" $1 "*) return 0 ;; esac
	return 1
}

finish() {
	bash "$cluster" stop test
	summary
	rm -rf "$log"
	[ -n "$only" ] && echo "(only: $only)"
	if [ "$failed" -gt 0 ] || [ "${setup_ok:-0}" != 1 ]; then
		exit 1
	fi
	exit 0
}
trap finish EXIT

# A failed test in pg_regress / pg_isolation_regress output: "... FAILED"
# up to PostgreSQL 15, a TAP line "not ok N - name" from 16 on.
regress_failed='\.\.\. +FAILED|\.\.\. +failed|^not ok [0-9]+ '

# Count pg_regress / pg_isolation_regress result lines of one run ("test
# name ... ok" up to 15, "ok N - name" from 16 on).
count_pg_regress() {
	local out=$1 ok bad
	ok=$(grep -cE '\.\.\. +ok( |$)|^ok [0-9]+ ' "$out" || true)
	bad=$(grep -cE "$regress_failed" "$out" || true)
	passed=$((passed + ok))
	failed=$((failed + bad))
}

bash "$cluster" deps || { echo "FAILED: installing dependencies"; failed=$((failed + 1)); exit 1; }
# The suites run PG_CONFIG's own programs (psql, pg_dump, pgbench...).
export PATH="$("$PG_CONFIG" --bindir):$PATH"
echo "== $("$PG_CONFIG" --version) ($PG_CONFIG)"
echo "== build and install"
bash "$cluster" build || { echo "FAILED: build"; failed=$((failed + 1)); exit 1; }
echo "== start throwaway cluster"
bash "$cluster" start test || { echo "FAILED: starting the cluster"; failed=$((failed + 1)); exit 1; }
eval "$(bash "$cluster" env test)"
export MM_ROOT=$here
setup_ok=1

regress=$(ls test/sql/*.sql 2>/dev/null | wc -l)
if [ "$regress" -gt 0 ] && wanted regress; then
	echo "== regress"
	rm -rf results regression.diffs regression.out
	make -s installcheck ISOLATION= 2>&1 | tee "$log/regress.out"
	status=${PIPESTATUS[0]}
	count_pg_regress "$log/regress.out"
	if [ "$status" != 0 ]; then
		if [ -f regression.diffs ]; then
			echo "---- regression.diffs"
			cat regression.diffs
		fi
		grep -qE "$regress_failed" "$log/regress.out" || failed=$((failed + 1))
	fi
fi

specs=$(ls test/isolation/specs/*.spec 2>/dev/null | wc -l)
if [ "$specs" -gt 0 ] && wanted isolation; then
	echo "== isolation"
	rm -rf output_iso
	make -s installcheck REGRESS= 2>&1 | tee "$log/isolation.out"
	status=${PIPESTATUS[0]}
	count_pg_regress "$log/isolation.out"
	if [ "$status" != 0 ]; then
		if [ -f output_iso/regression.diffs ]; then
			echo "---- output_iso/regression.diffs"
			cat output_iso/regression.diffs
		fi
		grep -qE "$regress_failed" "$log/isolation.out" || failed=$((failed + 1))
	fi
fi

for suite in test/suites/*.sh; do
	[ -e "$suite" ] || continue
	wanted "$(basename "$suite" .sh)" || continue
	echo "== suite $(basename "$suite" .sh)"
	bash "$suite" 2>&1 | tee "$log/suite.out"
	status=${PIPESTATUS[0]}
	count_tap "$log/suite.out"
	if [ "$status" != 0 ] && [ "$tap_failed" = 0 ]; then
		echo "not ok - suite $(basename "$suite") exited with status $status"
		failed=$((failed + 1))
	fi
done
