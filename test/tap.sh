# Counting TAP lines, shared by test/run.sh (make test) and test/long/run.sh
# (make test-long). Sourced; the caller sets passed=0 failed=0 skipped=0 and
# skips_file (a file that collects the skipped lines).
#
#   ok - what                  passed
#   ok - what # SKIP why       skipped (TAP's directive, any case): never passed
#   not ok - what              failed

skip_pattern='^ok( .*)?#[[:space:]]*skip'

# count_tap FILE: add FILE's TAP lines to passed, failed and skipped; return
# (in tap_failed) how many of them failed.
count_tap() {
	local out=$1 ok skip
	ok=$(grep -cE '^ok( |$)' "$out" || true)
	skip=$(grep -ciE "$skip_pattern" "$out" || true)
	tap_failed=$(grep -cE '^not ok( |$)' "$out" || true)
	passed=$((passed + ok - skip))
	skipped=$((skipped + skip))
	failed=$((failed + tap_failed))
	grep -iE "$skip_pattern" "$out" >>"$skips_file" || true
}

# The closing lines: what was skipped and why, then "N passed, N failed, N skipped".
summary() {
	echo
	if [ -s "$skips_file" ]; then
		echo "skipped:"
		sed 's/^/  /' "$skips_file"
	fi
	echo "$passed passed, $failed failed, $skipped skipped"
}
