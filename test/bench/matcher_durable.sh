#!/usr/bin/env bash
# The queue engine's benchmarks on a durable cluster (fsync, full_page_writes
# and synchronous_commit on), side by side in one run:
#   1. mm.tick over 10k and 100k waiting rosters (5v5, parties of 1-5, every
#      roster a target, rolled back) against the C matcher alone
#      (mm.match_rosters) over the same rows with the same config; matches
#      made and mean rating spread beside the time; wall time and the
#      backend's CPU time (less moved by other jobs on a shared machine);
#      and the floor under the tick's data model: the same matches' row
#      changes alone (the matches inserted, each matched roster's row
#      updated in place with its match id, team and wait; players untouched)
#      by one plain statement, with no reading or matching;
#   2. WAL written by one tick with 50 targets, after a checkpoint, on a 2k
#      and a 20k queue, per matched roster: the tick's own transaction's
#      records (pg_walinspect), full-page images included, and the WAL of
#      the whole cluster over the same time; once on the queues of
#      test/bench/matcher/setup.sql (roster ids drawn in no relation to
#      queue order) and once on queues whose roster ids follow queue order,
#      as mm.enqueue draws them (the id and the place from two sequences at
#      the same time); then the tick's records by relation, on each
#      queue;
#   3. enqueue + leave with pgbench (4 clients) while mm.run_ticks ticks the
#      queue every second: tps and p99 latency, beside the same pgbench
#      without ticks; and the lock waits of those calls longer than 10 ms
#      (log_lock_waits with deadlock_timeout = 10ms), with and without
#      ticks.
# Usage: PG_CONFIG=... bash test/bench/matcher_durable.sh [PORT]
# PORT defaults to MM_PORT+2 (test/ports.sh). It creates a cluster in
# MM_TMPDIR (default /tmp)/mm-durable-PORT, prints a markdown report and
# removes the cluster. Not part of make bench: it needs pg_walinspect,
# autovacuum off and lock-wait logging, in a cluster of its own, and takes
# several minutes. MM_WAL_COMPRESSION sets the cluster's wal_compression
# (default off; lz4 or pglz to measure what compressing full-page images
# saves).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$here"
bindir=$("${PG_CONFIG:?}" --bindir)
runs=${MM_BENCH_RUNS:-5}
. "$here/test/bench/lib.sh"
# PORT, else the bench port of the base MM_PORT (test/ports.sh)
port=${1:-$(mm_port bench)}
dir=$(mm_tmpdir)/mm-durable-$port

throwaway_cluster "$dir" "$port" <<CONF
fsync = on
synchronous_commit = on
full_page_writes = on
shared_buffers = 256MB
work_mem = 64MB
max_wal_size = 4GB
wal_compression = ${MM_WAL_COMPRESSION:-off}
# the WAL figures are the cluster's WAL between two points: no autovacuum
# writing its own in between (the script vacuums where it matters)
autovacuum = off
# a lock wait of the pgbench calls longer than this is logged
log_lock_waits = on
deadlock_timeout = 10ms
CONF
export PGDATABASE=bench
psql -X -q -d postgres -c "CREATE DATABASE bench"
psql -X -q -c "CREATE EXTENSION mm"
psql -X -q -c "CREATE EXTENSION pg_walinspect"
psql -X -q -v ON_ERROR_STOP=1 -f test/bench/matcher/setup.sql >/dev/null
psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
SELECT mm.create_queue('q2k', '{"filter": {"rosters": 50, "limit": 600000}}');
SELECT mm.create_queue('q20k', '{"filter": {"rosters": 50, "limit": 600000}}');
SELECT fill_queue('q2k', 2000, 500000000);
SELECT fill_queue('q20k', 20000, 600000000);
-- the same queues, but each roster's id drawn in queue order (as mm.enqueue
-- draws a roster's id and its place together)
CREATE FUNCTION fill_queue_ordered(qname text, n int, first_player bigint) RETURNS void LANGUAGE sql AS $$
    WITH q AS (SELECT queue_id FROM mm.queue WHERE name = qname),
    r0 AS (
        SELECT i, CASE WHEN u < 0.50 THEN 1 WHEN u < 0.70 THEN 2 WHEN u < 0.82 THEN 3 WHEN u < 0.90 THEN 4 ELSE 5 END AS size,
               least(3000, greatest(100, 1500 + 250 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()))) AS rating,
               30 + 120 * random() AS deviation, floor(random() * 300) AS waited
        FROM generate_series(1, n) i, LATERAL (SELECT random() AS u, i AS j) u
    ),
    r AS MATERIALIZED (SELECT o.*, nextval('mm.roster_id_seq') AS rid FROM (SELECT * FROM r0 ORDER BY waited DESC, i) o),
    ins AS (
        INSERT INTO mm.roster (roster_id, queue_id, rating, deviation, rank, joined_at)
        SELECT r.rid, q.queue_id, rating, deviation, floor(random() * 40),
               '2024-01-01 00:05:00+00'::timestamptz - waited * interval '1 second'
        FROM r, q ORDER BY r.rid
    )
    INSERT INTO mm.queued_player (player_id, roster_id, queue_id, seat, profession)
    SELECT first_player + i * 5 + k, r.rid, q.queue_id, k,
           (ARRAY['guardian','warrior','thief','ranger','engineer','necromancer','mesmer','elementalist','revenant'])[1 + floor(random() * 9)::int]
    FROM r, q, generate_series(1, r.size) k
    ORDER BY r.rid, k;
$$;
SELECT mm.create_queue('q2k_ordered', '{"filter": {"rosters": 50, "limit": 600000}}');
SELECT mm.create_queue('q20k_ordered', '{"filter": {"rosters": 50, "limit": 600000}}');
SELECT fill_queue_ordered('q2k_ordered', 2000, 700000000);
SELECT fill_queue_ordered('q20k_ordered', 20000, 800000000);
SELECT mm.create_queue('pgb', '{"filter": {"potentials_min": 5}}');
SELECT count(mm.enqueue('pgb', ARRAY[900000000 + p], 1300 + random() * 400, 50)) FROM generate_series(1, 2000) p;
VACUUM ANALYZE;
SQL

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
echo "Machine: ${cpu:-unknown CPU}, $(nproc) cores (shared); PostgreSQL $(psql -X -At -c 'SHOW server_version');" \
	"fsync $(psql -X -At -c 'SHOW fsync'), synchronous_commit $(psql -X -At -c 'SHOW synchronous_commit')," \
	"full_page_writes $(psql -X -At -c 'SHOW full_page_writes'), wal_compression $(psql -X -At -c 'SHOW wal_compression'); $(date -u +%Y-%m-%d); median of $runs runs."
echo

# median of the "Time: N ms" lines of psql \timing over runs
median_ms() {
	sort -n | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
# Before each timed run: a rolled-back tick leaves dead match rosters whose
# unique index entries the next tick's inserts of the same rosters would
# check one by one, so every run starts from a vacuumed queue.
clean() {
	psql -X -q -c "VACUUM mm.roster, mm.queued_player, mm.match, mm.ended_roster, mm.ticket_event"
}
time_sql() {
	local sql=$1 n=$2
	for _ in $(seq 1 "$n"); do
		clean
		psql -X -q -c '\timing on' -c "$sql" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1
	done | median_ms
}
# median backend CPU time (user + system, from the server's /proc/self/stat:
# the cluster runs on this machine) of a statement over runs, each in a new
# session, in ms: on a shared machine it moves less with the other jobs
# than wall time does
hz=$(getconf CLK_TCK)
cpu_now="(SELECT s[12]::bigint + s[13]::bigint FROM string_to_array(split_part(pg_read_file('/proc/self/stat'), ') ', 2), ' ') AS s)"
cpu_sql() {
	local sql=$1 n=$2
	for _ in $(seq 1 "$n"); do
		clean
		psql -X -q -At <<SQL | tail -1
SELECT $cpu_now AS c0 \gset
\o /dev/null
$sql
\o
SELECT ($cpu_now - :c0) * 1000 / $hz;
SQL
	done | median_ms
}
quality() {
	psql -X -q -At -F ' ' <<<"$1"
}

# The row changes of the matches mm.preview finds, by one plain statement
# (what any tick must write at least): the floor beside the matcher. A
# matched roster stays in mm.roster: the matches are inserted and each
# matched roster's row gets its match id (a foreign key), team and wait;
# the players' rows are not touched.
floor_sql() {
	local q=$1
	cat <<SQL
BEGIN;
WITH mi AS MATERIALIZED (SELECT d.no, nextval('mm.match_id_seq') AS match_id
                         FROM (SELECT DISTINCT match_id AS no FROM floor_$q) d),
m AS (INSERT INTO mm.match (match_id, queue_id, tick_id, created_at, prediction, red_odds, blue_odds, rating_spread, status,
                            teams, odds)
      SELECT mi.match_id, q.queue_id, 0, '2024-01-01 00:05:00+00', 0.5, 0.5, 0.5, 0, 'matched', '{red,blue}', '{0.5,0.5}'
      FROM mi, mm.queue q WHERE q.name = '$q')
UPDATE mm.roster r SET match_id = mi.match_id, team = f.team, waited = '2024-01-01 00:05:00+00' - r.joined_at
FROM floor_$q f JOIN mi ON mi.no = f.match_id
WHERE r.queue_id = (SELECT queue_id FROM mm.queue WHERE name = '$q') AND r.roster_id = f.roster_id;
ROLLBACK;
SQL
}

echo "| queue | mm.tick ms | mm.match_rosters ms | tick / matcher | backend CPU ms (tick, matcher) | CPU tick / matcher | matches (tick, matcher) | mean rating spread (tick, matcher) | row changes alone ms (CPU ms) | row changes / matcher |"
echo "|---|---:|---:|---:|---|---:|---|---|---:|---:|"
for q in q10k q100k; do
	n=$runs; [ "$q" = q100k ] && n=3
	cfg=$(psql -X -At -c "SELECT config FROM mm.queue WHERE name = '$q'")
	tick=$(time_sql "BEGIN; SELECT count(*) FROM mm.tick('$q', '2024-01-01 00:05:00+00'); ROLLBACK;" "$n")
	src="SELECT r.* FROM mm.queue q, mm._rosters(q.queue_id) r WHERE q.name = ''$q'' ORDER BY r.queue_position"
	c=$(time_sql "SELECT count(*) FROM mm.match_rosters('$src', '$cfg', '2024-01-01 00:05:00+00');" "$n")
	tcpu=$(cpu_sql "BEGIN; SELECT count(*) FROM mm.tick('$q', '2024-01-01 00:05:00+00'); ROLLBACK;" "$n")
	ccpu=$(cpu_sql "SELECT count(*) FROM mm.match_rosters('$src', '$cfg', '2024-01-01 00:05:00+00');" "$n")
	tq=$(quality "BEGIN; CREATE TEMP TABLE t AS SELECT * FROM mm.tick('$q', '2024-01-01 00:05:00+00');
	              SELECT count(*), round(avg(m.rating_spread)::numeric, 1) FROM mm.match m WHERE m.match_id IN (SELECT match_id FROM t); ROLLBACK;" | tail -1)
	cq=$(quality "SELECT count(*), round(avg(s)::numeric, 1) FROM (SELECT match_no, min(rating_spread) AS s
	              FROM mm.match_rosters('$src', '$cfg', '2024-01-01 00:05:00+00') GROUP BY match_no) x")
	psql -X -q -c "CREATE TABLE floor_$q AS SELECT * FROM mm.preview('$q', '2024-01-01 00:05:00+00')" -c "ANALYZE floor_$q"
	fl=$(time_sql "$(floor_sql "$q")" "$n")
	fcpu=$(cpu_sql "$(floor_sql "$q")" "$n")
	psql -X -q -c "DROP TABLE floor_$q"
	ratio=$(awk -v a="$tick" -v b="$c" 'BEGIN { printf "%.2f", a / b }')
	cratio=$(awk -v a="$tcpu" -v b="$ccpu" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
	fratio=$(awk -v a="$fl" -v b="$c" 'BEGIN { printf "%.2f", a / b }')
	echo "| $q | $tick | $c | ${ratio}× | $tcpu, $ccpu | ${cratio}× | ${tq%% *}, ${cq%% *} | ${tq##* }, ${cq##* } | $fl ($fcpu) | ${fratio}× |"
done
echo

echo "| queue | roster ids | WAL bytes of the tick's transaction (of which full-page images) | WAL bytes of the cluster meanwhile | rosters matched | tick's bytes per matched roster |"
echo "|---|---|---:|---:|---:|---:|"
for q in q2k q20k q2k_ordered q20k_ordered; do
	clean
	res=$(psql -X -q -At -F ' ' <<SQL
CHECKPOINT;
SELECT pg_current_wal_insert_lsn() AS l0 \gset
BEGIN;
SELECT count(*) AS n FROM mm.tick('$q', '2024-01-01 00:05:00+00') \gset
SELECT pg_current_xact_id()::xid AS x \gset
COMMIT;
SELECT pg_current_wal_flush_lsn() AS l1 \gset
\pset format aligned
\pset tuples_only off
\o $dir/wal_$q.txt
SELECT coalesce(c.relname, w.resource_manager) AS relation, w.record_type AS record, count(*) AS records,
       sum(w.record_length) AS bytes, sum(w.fpi_length) AS fpi_bytes
FROM pg_get_wal_records_info(:'l0', :'l1') w
LEFT JOIN LATERAL regexp_match(w.block_ref, 'rel [0-9]+/[0-9]+/([0-9]+)') m ON true
LEFT JOIN pg_class c ON c.relfilenode = m[1]::oid
WHERE w.xid = :'x'::xid GROUP BY 1, 2 ORDER BY 4 DESC LIMIT 8;
\o
\pset format unaligned
\pset tuples_only on
SELECT sum(record_length) FILTER (WHERE xid = :'x'::xid), sum(fpi_length) FILTER (WHERE xid = :'x'::xid),
       pg_wal_lsn_diff(:'l1', :'l0'), :n
FROM pg_get_wal_records_info(:'l0', :'l1');
SQL
)
	read -r bytes fpi total rosters <<<"$res"
	per=$(awk -v a="$bytes" -v b="$rosters" 'BEGIN { if (b > 0) printf "%.0f", a / b; else print "-" }')
	case $q in *_ordered) ids="in queue order" ;; *) ids="in no order (setup.sql)" ;; esac
	echo "| ${q%_ordered} | $ids | $bytes ($fpi) | $total | $rosters | $per |"
done
echo
for q in q2k q20k q2k_ordered q20k_ordered; do
	echo "The tick's WAL records on $q by relation (pg_walinspect, the eight largest; relation | record | records | bytes | full-page image bytes):"
	echo
	sed 's/^/    /' "$dir/wal_$q.txt"
	echo
done
cat >"$dir/enqueue_leave.pgbench" <<'PGB'
\set p random(10000000, 99999999)
SELECT mm.enqueue('pgb', ARRAY[:p]::bigint[], 1300 + random() * 400, 50) AS rid \gset
SELECT mm.leave(:rid);
PGB
# the baseline: two bare durable commits per transaction, as enqueue and
# leave make two (what the disk's flushes allow at 4 clients)
psql -X -q -c "CREATE TABLE commit_pair (p bigint)"
cat >"$dir/commit_pair.pgbench" <<'PGB'
\set p random(10000000, 99999999)
INSERT INTO commit_pair VALUES (:p);
DELETE FROM commit_pair WHERE p = :p;
PGB
echo "| pgbench enqueue + leave, 4 clients, 20 s | tps | latency avg ms | p99 ms | lock waits > 10 ms |"
echo "|---|---:|---:|---:|---:|"
for with in baseline without with; do
	tpid=
	log0=$(wc -c <"$dir/server.log")
	script=$dir/enqueue_leave.pgbench
	[ "$with" = baseline ] && script=$dir/commit_pair.pgbench
	# the ticks above left the buffers dirty: flushed now, not by a
	# checkpoint in the middle of the run, whose writes the commits' flushes
	# would queue behind
	psql -X -q -c "CHECKPOINT"
	if [ "$with" = with ]; then
		psql -X -q -c "CALL mm.run_ticks('pgb', '1 second', '25 seconds')" >/dev/null 2>&1 & tpid=$!
		sleep 1
	fi
	"$bindir/pgbench" -n -c 4 -j 2 -T 20 -r -l --log-prefix="$dir/pgb_$with" -f "$script" >"$dir/pgb_$with.out" 2>&1 || true
	[ -n "$tpid" ] && wait "$tpid" || true
	tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$dir/pgb_$with.out" | head -1)
	avg=$(sed -n 's/^latency average = \([0-9.]*\) ms/\1/p' "$dir/pgb_$with.out")
	p99=$(cat "$dir"/pgb_"$with".* 2>/dev/null | awk '{ print $3 / 1000 }' | sort -n | awk '{ a[NR] = $1 } END { if (NR) printf "%.1f", a[int(NR * 0.99)] }')
	waits=$(tail -c +"$((log0 + 1))" "$dir/server.log" | grep -c 'still waiting for' || true)
	case $with in
	baseline) what="baseline: two bare commits (insert, delete), no ticks" ;;
	*) what="$with ticks every second" ;;
	esac
	echo "| $what | ${tps:-?} | ${avg:-?} | ${p99:-?} | $waits |"
	rm -f "$dir"/pgb_"$with".*
done
echo
echo "ticks during the pgbench run: $(psql -X -At -c "SELECT count(*) || ' ticks, ' || coalesce(sum(matches_made), 0) || ' matches, max ' || round(max(duration_ms)::numeric, 1) || ' ms' FROM mm.tick_log l JOIN mm.queue q USING (queue_id) WHERE q.name = 'pgb'")"
