#!/usr/bin/env bash
# The matcher's input kept between ticks is the same queue as the tables
# (docs/queue.md, "The kept input"): random operations from several
# backends, ticks that keep their input checked against a fresh read at
# every tick (mm.check_tick_input), rollbacks, cancels, kills and restarts
# of the server (test/tick_input/random_ops.py). MM_TICK_INPUT_SEED replays
# a run, MM_TICK_INPUT_STEPS sets its length.
set -euo pipefail
: "${MM_ROOT:?run by test/run.sh}"
cd "$MM_ROOT"
dir=$(bash test/cluster.sh dir test)
export PGDATABASE=mm_tick_input
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS mm_tick_input" -c "CREATE DATABASE mm_tick_input"
psql -X -q -c "CREATE EXTENSION mm"
status=0
MM_PGCTL="$("${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}" --bindir)/pg_ctl" MM_PGDATA="$dir/data" \
	MM_PGLOG="$dir/server.log" python3 test/tick_input/random_ops.py || status=$?
psql -X -q -d postgres -c "DROP DATABASE mm_tick_input" || status=1
exit $status
