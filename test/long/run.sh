#!/usr/bin/env bash
# make test-long: run every test/long/*.sh suite (TAP lines, "ok" / "not
# ok"), print "N passed, N failed", exit non-zero on any failure. Each suite
# builds and starts what it needs itself and stops it again. MM_ONLY (as
# for make test) runs only the suites it names, without .sh, e.g.
# MM_ONLY=mixed_load make test-long.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$here"
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
export MM_ROOT=$here
passed=0
failed=0
log=$(mktemp /tmp/mm-test-long.XXXXXX)
for suite in test/long/[0-9a-z]*.sh; do
	[ "$(basename "$suite")" = run.sh ] && continue
	case " ${MM_ONLY:-$(basename "$suite" .sh)} " in *" $(basename "$suite" .sh) "*) ;; *) continue ;; esac
	echo "== long suite $(basename "$suite" .sh)"
	bash "$suite" 2>&1 | tee "$log"
	status=${PIPESTATUS[0]}
	ok=$(grep -cE '^ok( |$)' "$log" || true)
	bad=$(grep -cE '^not ok( |$)' "$log" || true)
	passed=$((passed + ok))
	failed=$((failed + bad))
	if [ "$status" != 0 ] && [ "$bad" = 0 ]; then
		echo "not ok - suite $(basename "$suite") exited with status $status"
		failed=$((failed + 1))
	fi
done
rm -f "$log"
echo
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
