#!/usr/bin/env bash
# Fuzz suite: every function of schema mm (read from pg_proc, so a new
# function is fuzzed without a new test) called with bad and random
# arguments, each call in a rolled-back subtransaction under a
# statement_timeout; fails on a lost connection, an XX000, an ignored
# timeout or a NaN/Infinity result. Prints its seed; MM_FUZZ_SEED=N replays,
# MM_FUZZ_CALLS=N sets the number of calls (default 3000).
set -euo pipefail
: "${MM_ROOT:?run by test/run.sh}"
export PGDATABASE=mm_fuzz
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS mm_fuzz" -c "CREATE DATABASE mm_fuzz"
psql -X -q -v ON_ERROR_STOP=1 -f "$MM_ROOT/test/fuzz/setup.sql" >/dev/null
status=0
# The harness must report what it looks for: a NaN result, an XX000 and a
# lost connection, injected through fuzz.* functions.
selftest=$(MM_FUZZ_SELFTEST=1 python3 "$MM_ROOT/test/fuzz/fuzz.py" 2>&1 || true)
for what in "selftest_nan: non-finite result" "selftest_xx000: internal error: XX000" \
	"selftest_crash: connection lost"; do
	if grep -q "^not ok - mm.$what" <<<"$selftest"; then
		echo "ok - the fuzz harness reports ${what#*: } (self-test)"
	else
		echo "not ok - the fuzz harness does not report ${what#*: } (self-test)"
		echo "$selftest" | sed 's/^/# /'
		status=1
	fi
done
python3 "$MM_ROOT/test/fuzz/fuzz.py" || status=$?
# the database is gone only when the server survived
psql -X -q -d postgres -c "DROP DATABASE mm_fuzz" || status=1
exit $status
