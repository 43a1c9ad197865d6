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
python3 "$MM_ROOT/test/fuzz/fuzz.py" || status=$?
# the database is gone only when the server survived
psql -X -q -d postgres -c "DROP DATABASE mm_fuzz" || status=1
exit $status
