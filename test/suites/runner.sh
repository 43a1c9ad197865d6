#!/usr/bin/env bash
# make test's and make test-long's runners say what ran: a TAP line
# "ok - ... # SKIP why" counts as skipped, never as passed, and the closing
# line reads "N passed, N failed, N skipped" (test/tap.sh, used by
# test/run.sh and test/long/run.sh). TAP lines "ok - ..." / "not ok - ...".
set -uo pipefail
cd "${MM_ROOT:?}"
fail=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }
work=$(mktemp -d "${MM_TMPDIR:-/tmp}/mm-runner.XXXXXX")
trap 'rm -rf "$work"' EXIT

# A suite's output as the runners see it (indented here so that this
# suite's own TAP lines are not these).
sed 's/^| //' >"$work/suite.out" <<'OUT'
| ok - a check that ran
| ok - Citus scale-out scenarios # SKIP Citus is not installed
| ok - # SKIP sqlsmith is not installed
| ok 4 - numbered, skipped # skip lower case
| not ok - a check that failed
| ok - a check whose name says skip but is no directive
| # ok - a comment
| ok - another check that ran
OUT

# Count the way the runners count, in a subshell with their variables.
got=$(
	passed=0 failed=0 skipped=0 skips_file=$work/skips
	: >"$skips_file"
	. test/tap.sh || exit 1
	count_tap "$work/suite.out"
	summary | tail -1
	echo "tap_failed=$tap_failed"
	sed 's/^/skip: /' "$skips_file"
)
closing=$(echo "$got" | grep -E '^[0-9]+ passed')
if [ "$closing" = "3 passed, 1 failed, 3 skipped" ]; then
	ok "ok lines with a SKIP directive count as skipped, not passed: \"$closing\""
else
	notok "ok lines with a SKIP directive count as skipped, not passed (got \"$closing\", want \"3 passed, 1 failed, 3 skipped\")"
	echo "$got" | sed 's/^/#   /'
fi
if echo "$got" | grep -qx 'tap_failed=1'; then
	ok "the failed lines of one suite are reported to the runner (a suite that exits non-zero without one still fails)"
else
	notok "the failed lines of one suite are reported to the runner"
fi
if [ "$(echo "$got" | grep -c '^skip: ')" = 3 ] && echo "$got" | grep -q '^skip: ok - Citus scale-out scenarios # SKIP Citus is not installed$'; then
	ok "the summary lists each skipped line with its reason"
else
	notok "the summary lists each skipped line with its reason"
	echo "$got" | sed 's/^/#   /'
fi

# Both runners count with it and close with the three counts.
for runner in test/run.sh test/long/run.sh; do
	if grep -q '^\. test/tap\.sh' "$runner" && grep -q 'count_tap ' "$runner" && grep -q '^[[:space:]]*summary$' "$runner" &&
		! grep -qE "grep -cE '\^ok" "$runner"; then
		ok "$runner counts suites' TAP lines with test/tap.sh and closes with its summary"
	else
		notok "$runner counts suites' TAP lines with test/tap.sh and closes with its summary"
	fi
done
# The docs quote the closing line as it is.
if grep -qF '`N passed, N failed, N skipped`' README.md && ! grep -rqE 'N passed, N failed("|`|\.|$)' README.md Makefile docs test/*.sh test/long/run.sh; then
	ok "README.md, the Makefile and docs quote the closing line \"N passed, N failed, N skipped\""
else
	notok "README.md, the Makefile and docs quote the closing line \"N passed, N failed, N skipped\""
	grep -rnE 'N passed, N failed("|`|\.|$)' README.md Makefile docs test/*.sh test/long/run.sh | sed 's/^/#   /'
fi
exit $fail
