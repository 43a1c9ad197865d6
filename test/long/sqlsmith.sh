#!/usr/bin/env bash
# sqlsmith smoke: random SQL from sqlsmith (as an unprivileged role, as any
# user could send it) against a database with mm and populated queues,
# pools and servers; a bounded run (MM_SQLSMITH_QUERIES, default 20000).
# Any backend crash fails, with the query that crashed it (the server logs
# "Failed process was running: ..."). Needs sqlsmith (apt-get install
# sqlsmith); skipped with a note when it is missing and we are not root.
set -uo pipefail
: "${MM_ROOT:?run by test/long/run.sh}"
cd "$MM_ROOT"
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
queries=${MM_SQLSMITH_QUERIES:-20000}
seed=${MM_SQLSMITH_SEED:-$((RANDOM * 32768 + RANDOM))}
name=test

if ! command -v sqlsmith >/dev/null; then
	if [ "$(id -u)" = 0 ]; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends sqlsmith >/dev/null \
			|| { echo "not ok - installing sqlsmith"; exit 1; }
	else
		echo "ok - # SKIP sqlsmith is not installed (apt-get install sqlsmith)"
		exit 0
	fi
fi

bash test/cluster.sh build >/dev/null || { echo "not ok - building mm"; exit 1; }
bash test/cluster.sh start "$name" || { echo "not ok - starting the cluster"; exit 1; }
trap 'bash test/cluster.sh stop "$name"' EXIT
eval "$(bash test/cluster.sh env "$name")"
export PGHOST PGPORT PGUSER
serverlog=$PGHOST/server.log

psql -X -q -d postgres -v ON_ERROR_STOP=1 >/dev/null <<'SQL' || { echo "not ok - creating the database"; exit 1; }
CREATE DATABASE mm_smith;
\c mm_smith
\i test/fuzz/setup.sql
SELECT mm.enqueue('q', ARRAY[1000 + 2 * i, 1001 + 2 * i], 1400 + 3 * i, 20 + i % 50) FROM generate_series(1, 200) i;
SELECT mm.set_place_config('p', '{"include_defaults": false, "signals": {"region": {"kind": "server_categorical_joining", "attribute": "region", "weight": 2}}}');
SELECT mm.join_server('p', 5000 + i, jsonb_build_object('age', 10 + i % 40, 'region', 'eu', 'latency', jsonb_build_object('eu', 20 + i), 'play_history', 2)) FROM generate_series(1, 20) i;
SELECT mm.put_entry('pool', 1000 + i, 900 + 7 * i, '{}', '{}') FROM generate_series(1, 200) i;
CREATE ROLE smith LOGIN;
GRANT USAGE ON SCHEMA mm TO smith;
GRANT SELECT ON ALL TABLES IN SCHEMA mm TO smith;
ALTER DATABASE mm_smith SET statement_timeout = '1s';
ALTER DATABASE mm_smith SET track_functions = 'all';
SQL
echo "# sqlsmith seed $seed (replay with MM_SQLSMITH_SEED=$seed), $queries queries"

start=$(date +%s)
timeout 900 sqlsmith --target="host=$PGHOST port=$PGPORT user=smith dbname=mm_smith" \
	--seed="$seed" --max-queries="$queries" --exclude-catalog >"${MM_TMPDIR:-/tmp}/mm-sqlsmith.$$.log" 2>&1
status=$?
echo "# sqlsmith exited with status $status after $(($(date +%s) - start)) s; last lines:"
tail -3 "${MM_TMPDIR:-/tmp}/mm-sqlsmith.$$.log" | sed 's/^/# /'
rm -f "${MM_TMPDIR:-/tmp}/mm-sqlsmith.$$.log"

called=$(psql -X -At -d mm_smith -c "SELECT count(*) FROM pg_catalog.pg_stat_user_functions WHERE schemaname = 'mm'")
echo "# sqlsmith's queries called ${called:-?} distinct functions of schema mm"
crashes=$(grep -cE 'terminated by signal|was terminated by exception' "$serverlog" || true)
if [ "$crashes" = 0 ]; then
	echo "ok - sqlsmith ($queries queries, seed $seed): no backend crashed"
else
	echo "not ok - sqlsmith: $crashes backend crashes (seed $seed)"
	grep -A2 -E 'terminated by signal|was terminated by exception' "$serverlog" | head -40 | sed 's/^/# /'
fi
if psql -X -q -d postgres -c "DROP DATABASE mm_smith" -c "DROP ROLE smith" >/dev/null; then
	echo "ok - the server is up after the sqlsmith run"
else
	echo "not ok - the server is not answering after the sqlsmith run"
fi
