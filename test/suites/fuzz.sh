#!/usr/bin/env bash
# Fuzz suite: every function of schema mm (read from pg_proc, so a new
# function is fuzzed without a new test) called with bad and random
# arguments, then with every hostile value of each argument's type
# (control characters, 10^6-element arrays, NaN, Infinity, 1e308, unknown
# ids), each call in a rolled-back subtransaction under a statement_timeout;
# then the service, admin and analyst calls on queues with their changes
# kept, after which every queue must still tick and match (test/fuzz/fuzz.py).
# Fails on a lost connection, an XX000, an ignored timeout (a hang), a raw
# constraint violation, a NaN/Infinity result or a queue that stopped, and
# prints each count. Prints its seed; MM_FUZZ_SEED=N replays, MM_FUZZ_CALLS=N
# sets the number of random calls (default 2000).
set -euo pipefail
: "${MM_ROOT:?run by test/run.sh}"
export PGDATABASE=mm_fuzz
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS mm_fuzz" -c "CREATE DATABASE mm_fuzz"
psql -X -q -v ON_ERROR_STOP=1 -f "$MM_ROOT/test/fuzz/setup.sql" >/dev/null
status=0
# The harness must report what it looks for: a NaN result, an XX000, a raw
# constraint violation, a queue that no longer ticks and a lost connection,
# injected through fuzz.* functions and a queue broken on purpose.
selftest=$(MM_FUZZ_SELFTEST=1 python3 "$MM_ROOT/test/fuzz/fuzz.py" 2>&1 || true)
for what in "mm.selftest_nan: non-finite result" "mm.selftest_xx000: internal error: XX000" \
	"mm.selftest_constraint: raw constraint violation" "queue fz_broken stopped: a tick failed" \
	"mm.selftest_crash: connection lost"; do
	if grep -q "^not ok - $what" <<<"$selftest"; then
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
