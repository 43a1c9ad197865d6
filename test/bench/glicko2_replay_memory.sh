#!/usr/bin/env bash
# Peak backend memory of mm.glicko2_replay against the number of games:
# histories of 100k, 1M and 3M games among the same 10k players (daily
# rating periods), each replayed in a new session while the session's
# private memory (RssAnon of /proc/PID/status, which leaves out the shared
# buffers the scan touches) is sampled every few milliseconds; beside it,
# as the baseline, the same session reading the same rows in the replay's
# order without rating them (SELECT count(*) over the ordered query). The
# replay streams games given in time order (one rating period and the
# players in memory), so its peak should not grow with the games; games
# out of order it reads again through a sort, which holds work_mem at most
# and spills the rest to disk.
# Usage: PG_CONFIG=... bash test/bench/glicko2_replay_memory.sh [PORT]
# PORT defaults to MM_PORT+2 (test/ports.sh). It creates a cluster in
# MM_TMPDIR (default /tmp)/mm-replay-mem-PORT, prints a markdown table and
# removes the cluster.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$here"
bindir=$("${PG_CONFIG:?}" --bindir)
. "$here/test/bench/lib.sh"
# PORT, else the bench port of the base MM_PORT (test/ports.sh)
port=${1:-$(mm_port bench)}
dir=$(mm_tmpdir)/mm-replay-mem-$port

throwaway_cluster "$dir" "$port" <<CONF
shared_buffers = 128MB
work_mem = 64MB
max_parallel_workers_per_gather = 0
CONF
export PGDATABASE=bench
psql -X -q -d postgres -c "CREATE DATABASE bench"
psql -X -q -c "CREATE EXTENSION mm"
# n games among 10k players, 10k games a day, results as in the
# glicko2_replay benchmark's history
for n in 100000 1000000 3000000; do
	psql -X -q -v ON_ERROR_STOP=1 <<SQL
CREATE TABLE h$n AS
SELECT a, CASE WHEN b = a THEN a % 10000 + 1 ELSE b END AS b, s, t
FROM (SELECT (g * 7919) % 10000 + 1 AS a,
             (g * 104729 + 13) % 10000 + 1 AS b,
             CASE (g * 13) % 7 WHEN 0 THEN 0.5 WHEN 1 THEN 1 WHEN 2 THEN 1 WHEN 3 THEN 1 ELSE 0 END::float8 AS s,
             '2024-01-01 00:00+00'::timestamptz + (g / 10000) * interval '1 day'
                 + ((g * 37) % 86400) * interval '1 second' AS t
      FROM generate_series(0::bigint, $n - 1) g) x;
CREATE INDEX ON h$n (t);
VACUUM ANALYZE h$n;
SQL
done

# Run one statement in a new session; print its peak RssAnon in MB and its
# wall time in ms.
peak() {
	local sql=$1 pidfile=$dir/pid out=$dir/out
	rm -f "$pidfile"
	psql -X -q -At >"$out" <<SQL &
\o $pidfile
SELECT pg_backend_pid();
\o
SELECT pg_sleep(0.3);
\timing on
$sql
SQL
	local client=$! pid= max=0 kb
	while [ -z "$pid" ]; do sleep 0.01; [ -s "$pidfile" ] && pid=$(cat "$pidfile"); done
	while kill -0 "$client" 2>/dev/null; do
		kb=$(sed -n 's/^RssAnon:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$pid/status" 2>/dev/null || true)
		[ -n "$kb" ] && [ "$kb" -gt "$max" ] && max=$kb
		sleep 0.005
	done
	wait "$client"
	echo "$(awk -v k="$max" 'BEGIN { printf "%.1f", k / 1024 }') $(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' "$out" | tail -1)"
}

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
echo "Machine: ${cpu:-unknown CPU}, $(nproc) cores; PostgreSQL $(psql -X -At -c 'SHOW server_version'); shared_buffers 128MB, work_mem 64MB; $(date -u +%Y-%m-%d)."
echo
echo "| games (10k players) | replay, games in time order: peak RssAnon MB | ms | replay, games out of order (it sorts them): peak MB | ms | reading the rows in time order (baseline): peak MB | ms |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
for n in 100000 1000000 3000000; do
	o=$(peak "SELECT count(*), sum(rating) FROM mm.glicko2_replay('SELECT a, b, s, t FROM h$n ORDER BY t', '1 day');")
	u=$(peak "SELECT count(*), sum(rating) FROM mm.glicko2_replay('SELECT a, b, s, t FROM h$n', '1 day');")
	b=$(peak "SELECT count(*), sum(s) FROM (SELECT a, b, s, t FROM h$n ORDER BY t) x;")
	echo "| $n | ${o% *} | ${o#* } | ${u% *} | ${u#* } | ${b% *} | ${b#* } |"
done
