#!/usr/bin/env bash
# The benchmark harness fails loudly: a case that exits non-zero or prints
# an error (a node baseline that cannot find its packages, an SQL error)
# stops make bench instead of becoming a ratio. Tests run_file of
# test/bench/lib.sh against the test cluster.
set -uo pipefail
: "${MM_ROOT:?run by test/run.sh}"
cd "$MM_ROOT"
out=$(mktemp -d "${MM_TMPDIR:-/tmp}"/mm-bench-harness.XXXXXX)
trap 'rm -rf "$out"' EXIT
. test/bench/lib.sh
db=postgres

printf -- '-- fine\nSELECT 1;\n' >"$out/01_ok.sql"
printf -- '-- an SQL error\nSELECT 1/0;\n' >"$out/02_sql_error.sql"
printf '# exits non-zero\nexit 3\n' >"$out/03_exit.sh"
# what node printed when the baselines' packages were missing, with status 0
printf '# prints an error\necho "Error [ERR_MODULE_NOT_FOUND]: Cannot find package openskill" >&2\n' >"$out/04_node_error.sh"
printf '# node itself, importing a package that is not there\nnode --input-type=module -e "await import(\\"mm-no-such-package\\")"\n' >"$out/05_node_import.sh"
printf '# fine, with a notice on stderr\necho "NOTICE:  nothing to do" >&2\n' >"$out/06_notice.sh"

check() {
	local file=$1 expect=$2 what=$3 got
	if run_file "$out/$file" "$db" 2>/dev/null; then got=pass; else got=fail; fi
	if [ "$got" = "$expect" ]; then
		echo "ok - bench harness: $what: $expect"
	else
		echo "not ok - bench harness: $what should $expect, did $got"
	fi
}
check 01_ok.sql pass "a good SQL case"
check 02_sql_error.sql fail "an SQL case with an error"
check 03_exit.sh fail "a case that exits non-zero"
check 04_node_error.sh fail "a case that prints ERR_MODULE_NOT_FOUND and exits 0"
if command -v node >/dev/null; then
	check 05_node_import.sh fail "a node case whose package is missing"
fi
check 06_notice.sh pass "a case that prints a notice"
