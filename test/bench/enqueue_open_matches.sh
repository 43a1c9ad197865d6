#!/usr/bin/env bash
# enqueue + leave with pgbench (4 clients, 12 s per run) on a queue of 2,000
# waiting solos, on a durable throwaway cluster (fsync, synchronous_commit
# and full_page_writes on): before any match, while mm.run_ticks ticks the
# queue every second (about 200 matches, left open: nobody reports them),
# and again after, with those matches open. A matched roster stays in
# mm.roster with its players' rows until its match ends, so what enqueue and
# leave read must not grow with the open matches.
# Usage: PG_CONFIG=... bash test/bench/enqueue_open_matches.sh [PORT]
# PORT defaults to MM_PORT+2 (test/ports.sh). Not part of make bench.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$here"
bindir=$("${PG_CONFIG:?}" --bindir)
. "$here/test/bench/lib.sh"
port=${1:-$(mm_port bench)}
dir=$(mm_tmpdir)/mm-open-matches-$port
throwaway_cluster "$dir" "$port" <<CONF
fsync = on
synchronous_commit = on
full_page_writes = on
shared_buffers = 256MB
CONF
psql -X -q -d postgres -c "CREATE DATABASE bench"
export PGDATABASE=bench
psql -X -q -c "CREATE EXTENSION mm"
psql -X -q >/dev/null <<'SQL'
SELECT mm.create_queue('pgb', '{"filter": {"potentials_min": 5}}');
SELECT count(mm.enqueue('pgb', ARRAY[900000000 + p], 1300 + random() * 400, 50)) FROM generate_series(1, 2000) p;
VACUUM ANALYZE;
SQL
cat >"$dir/el.pgbench" <<'PGB'
\set p random(10000000, 99999999)
SELECT mm.enqueue('pgb', ARRAY[:p]::bigint[], 1300 + random() * 400, 50) AS rid \gset
SELECT mm.leave(:rid);
PGB
echo "| run | tps | latency avg ms | open matches after |"
echo "|---|---:|---:|---:|"
for run in "no match yet" "ticks every second" "matches open, no ticks"; do
	psql -X -q -c CHECKPOINT
	tpid=
	if [ "$run" = "ticks every second" ]; then
		psql -X -q -c "CALL mm.run_ticks('pgb', '1 second', '15 seconds')" >/dev/null 2>&1 & tpid=$!
		sleep 1
	fi
	out=$("$bindir/pgbench" -n -c 4 -j 2 -T 12 -f "$dir/el.pgbench" 2>&1 || true)
	[ -n "$tpid" ] && wait "$tpid" || true
	tps=$(echo "$out" | sed -n 's/^tps = \([0-9.]*\) .*/\1/p' | head -1)
	avg=$(echo "$out" | sed -n 's/^latency average = \([0-9.]*\) ms/\1/p')
	open=$(psql -X -At -c "SELECT count(*) FROM mm.match WHERE status = 'matched'")
	echo "| $run | ${tps:-?} | ${avg:-?} | $open |"
done
