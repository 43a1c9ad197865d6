#!/usr/bin/env bash
# make test-long: run every test/long/*.sh suite (TAP lines, "ok" / "not
# ok" / "ok ... # SKIP why"), print "N passed, N failed, N skipped" (a skipped
# line is never counted as passed; test/tap.sh), exit non-zero on any
# failure. Each suite builds and starts what it needs itself and stops it
# again. MM_ONLY (as for make test) runs only the suites it names, without
# .sh, e.g. MM_ONLY=mixed_load make test-long.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$here"
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
export MM_ROOT=$here
# The suites run PG_CONFIG's own programs (psql, pg_dump, pgbench...).
export PATH="$("$PG_CONFIG" --bindir):$PATH"
passed=0
failed=0
skipped=0
log=$(mktemp "${MM_TMPDIR:-/tmp}"/mm-test-long.XXXXXX)
skips_file=$(mktemp "${MM_TMPDIR:-/tmp}"/mm-test-long-skips.XXXXXX)
. test/tap.sh
for suite in test/long/[0-9a-z]*.sh; do
	[ "$(basename "$suite")" = run.sh ] && continue
	case " ${MM_ONLY:-$(basename "$suite" .sh)} " in *" $(basename "$suite" .sh) "*) ;; *) continue ;; esac
	echo "== long suite $(basename "$suite" .sh)"
	bash "$suite" 2>&1 | tee "$log"
	status=${PIPESTATUS[0]}
	count_tap "$log"
	if [ "$status" != 0 ] && [ "$tap_failed" = 0 ]; then
		echo "not ok - suite $(basename "$suite") exited with status $status"
		failed=$((failed + 1))
	fi
done
summary
rm -f "$log" "$skips_file"
[ "$failed" = 0 ]
