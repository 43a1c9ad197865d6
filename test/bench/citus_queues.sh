#!/usr/bin/env bash
# Queues over Citus workers, measured: a coordinator and two workers
# (test/citus/cluster.sh, durable: fsync, synchronous_commit and
# full_page_writes on) with mm's queue tables distributed by queue.
#
#   1. Ticks: 8 queues of 10k waiting rosters (5v5, party sizes 1-5, the
#      rows of test/bench/matcher), 4 on each worker. Wall time of ticking
#      the 8 queues one after another from one session (the baseline) and
#      all at once from 8 sessions; each tick is the whole statement
#      "SELECT * FROM mm.tick(queue_id, at)", which Citus runs on the
#      queue's worker. The queues are refilled (untimed) before each run.
#      Beside them, one of the queues ticked on a plain single node (a
#      database of the coordinator's server without Citus), same rows.
#   2. Enqueue: MM_BENCH_ENQUEUES (default 300) solo enqueues from one
#      session, one statement each: on a plain single node (a database of
#      the coordinator without Citus: the local call) against the queue-id
#      form on the coordinator, which Citus sends to the queue's worker (the
#      delegated call, with its cluster-wide player row).
#
# Each measured MM_BENCH_RUNS times (default 3), interleaved; medians and
# minima in ms. Not run by make bench (it needs Citus and minutes); run:
#   PG_CONFIG=... MM_PORT=... bash test/bench/citus_queues.sh   (Citus on MM_PORT+6..+8)
# Output: a Markdown table on stdout and in test/bench/out/citus_queues.md.
# Skipped, saying why, without Citus.
set -euo pipefail
shopt -s inherit_errexit

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$here"
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
# psql of the servers' own version
export PATH="$("$PG_CONFIG" --bindir):$PATH"
cluster=test/citus/cluster.sh
runs=${MM_BENCH_RUNS:-3}
enqueues=${MM_BENCH_ENQUEUES:-300}
at="2024-01-01 00:05:00+00"

if ! why=$(bash "$cluster" available); then
	echo "SKIP: $why"
	exit 0
fi
export MM_CITUS_FSYNC=on
trap 'bash "$cluster" clean' EXIT
bash "$cluster" start
eval "$(bash "$cluster" env)"
export PGHOST PGPORT PGUSER
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }

# ---- data: 16 queues (so that 4 land on each worker), the rows of the
# matcher benchmark kept in a plain table on the coordinator to refill from
q -d postgres >/dev/null <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION mm;
SELECT mm.citus_distribute_queues(32);
SELECT mm.create_queue('bq' || i, '{"filter": {"rosters": 10000, "limit": 600000}}') FROM generate_series(1, 16) i;
\i test/bench/citus_queues_fill.sql
CREATE TABLE bench_queue AS
SELECT queue_id, groupid FROM (
    SELECT q.queue_id, p.groupid, row_number() OVER (PARTITION BY p.groupid ORDER BY q.queue_id) AS n
    FROM mm.queue q JOIN pg_dist_placement p ON p.shardid = get_shard_id_for_distribution_column('mm.roster', q.queue_id)) x
WHERE n <= 4;
SQL
if [ "$(q -d postgres -c "SELECT count(*) = 8 AND count(DISTINCT groupid) = 2 FROM bench_queue")" != t ]; then
	echo "citus_queues: the 16 queues do not give 4 on each worker" >&2
	exit 1
fi
queues=$(q -d postgres -c "SELECT string_agg(queue_id::text, ' ' ORDER BY queue_id) FROM bench_queue")

# Refill the 8 queues: 10k rosters each, roster ids by queue.
refill() {
	q -d postgres >/dev/null <<'SQL'
SET client_min_messages = warning;
TRUNCATE mm.roster, mm.queued_player, mm.match, mm.ended_roster, mm.ticket_event, mm.tick_log, mm.waiting_player;
INSERT INTO mm.roster (roster_id, queue_id, position, rating, deviation, rank, joined_at)
SELECT b.queue_id * 100000 + r.i, b.queue_id, r.pos, r.rating, r.deviation, r.rank,
       '2024-01-01 00:05:00+00'::timestamptz - r.waited * interval '1 second'
FROM bench_queue b, fill_roster r;
INSERT INTO mm.queued_player (player_id, roster_id, queue_id, seat, profession)
SELECT b.queue_id * 1000000 + p.i * 5 + p.seat, b.queue_id * 100000 + p.i, b.queue_id, p.seat, p.profession
FROM bench_queue b, fill_player p;
SQL
	q -d postgres -c "VACUUM ANALYZE mm.roster" -c "VACUUM ANALYZE mm.queued_player" -c "CHECKPOINT" >/dev/null
}
tick_one() {
	q -d postgres -c "SELECT * FROM mm.tick($1, '$at')" >/dev/null
}
ms_since() {
	echo $(( ($(date +%s%N) - $1) / 1000000 ))
}
sequential() {
	local t0 qid
	t0=$(date +%s%N)
	for qid in $queues; do tick_one "$qid"; done
	ms_since "$t0"
}
concurrent() {
	local t0 qid
	t0=$(date +%s%N)
	for qid in $queues; do tick_one "$qid" & done
	wait
	ms_since "$t0"
}

# ---- the single node for the local enqueue: a database of the
# coordinator's server without Citus
q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS single" \
	-c "CREATE DATABASE single" >/dev/null 2>&1
q -d single >/dev/null <<'SQL'
CREATE EXTENSION mm;
SELECT mm.create_queue('bq1', '{"filter": {"rosters": 10000, "limit": 600000}}');
\i test/bench/citus_queues_fill.sql
SQL
qlocal=$(q -d single -c "SELECT queue_id FROM mm.queue WHERE name = 'bq1'")
qdist=$(echo "$queues" | cut -d' ' -f1)
# one 10k queue ticked on the single node, same rows
tick_single() {
	local t0
	q -d single >/dev/null <<SQL
TRUNCATE mm.roster, mm.queued_player, mm.match, mm.ended_roster, mm.ticket_event, mm.tick_log, mm.match_result, mm.match_result_player;
INSERT INTO mm.roster (roster_id, queue_id, position, rating, deviation, rank, joined_at)
SELECT 100000000 + r.i, $qlocal, r.pos, r.rating, r.deviation, r.rank, '$at'::timestamptz - r.waited * interval '1 second' FROM fill_roster r;
INSERT INTO mm.queued_player (player_id, roster_id, queue_id, seat, profession)
SELECT p.i * 5 + p.seat, 100000000 + p.i, $qlocal, p.seat, p.profession FROM fill_player p;
VACUUM ANALYZE mm.roster;
VACUUM ANALYZE mm.queued_player;
CHECKPOINT;
SQL
	t0=$(date +%s%N)
	q -d single -c "SELECT * FROM mm.tick($qlocal, '$at')" >/dev/null
	ms_since "$t0"
}
enqueue_run() {
	local db=$1 qid=$2 base=$3 t0
	seq 1 "$enqueues" | awk -v q="$qid" -v b="$base" \
		'{ printf "SELECT mm.enqueue(%d, ARRAY[%d]::bigint[], 1500, 50);\n", q, b + $1 }' >"$work/enq.sql"
	t0=$(date +%s%N)
	q -d "$db" -f "$work/enq.sql" >/dev/null
	ms_since "$t0"
}
work=$(mktemp -d)
trap 'rm -rf "$work"; bash "$cluster" clean' EXIT

seq_ms=() conc_ms=() local_ms=() dist_ms=() single_ms=() matches=()
for r in $(seq 1 "$runs"); do
	refill
	seq_ms+=("$(sequential)")
	matches+=("$(q -d postgres -c "SELECT sum(matches_made) FROM mm.tick_log")")
	refill
	conc_ms+=("$(concurrent)")
	matches+=("$(q -d postgres -c "SELECT sum(matches_made) FROM mm.tick_log")")
	single_ms+=("$(tick_single)")
	local_ms+=("$(enqueue_run single "$qlocal" $((r * 10000000)))")
	dist_ms+=("$(enqueue_run postgres "$qdist" $((r * 10000000)))")
done

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
minimum() { printf '%s\n' "$@" | sort -n | head -1; }
ms() { awk "BEGIN {printf \"%.1f\", $1}"; }
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
ms_seq=$(median "${seq_ms[@]}") ms_conc=$(median "${conc_ms[@]}")
ms_local=$(median "${local_ms[@]}") ms_dist=$(median "${dist_ms[@]}")
mkdir -p test/bench/out
{
	echo "Machine: ${cpu:-unknown CPU}, $(nproc) cores, $(free -g | awk '/^Mem:/ {print $2}') GiB, load average $(cut -d' ' -f1-3 /proc/loadavg);" \
		"PostgreSQL $(q -d postgres -c "SHOW server_version"), Citus $(q -d postgres -c "SELECT extversion FROM pg_extension WHERE extname = 'citus'");" \
		"$(date -u +%Y-%m-%d). A coordinator and two workers on this machine;" \
		"$(q -d postgres -c "SELECT string_agg(name || ' = ' || setting, ', ' ORDER BY name) FROM pg_settings WHERE name IN ('fsync', 'full_page_writes', 'synchronous_commit')")." \
		"$runs runs each, interleaved; matches made per run (all 8 queues): ${matches[*]}."
	echo
	echo "| case | median ms | min ms | ratio |"
	echo "|---|---:|---:|---:|"
	echo "| 8 queues of 10k rosters (4 per worker), ticked one after another (baseline) | $(ms "$ms_seq") | $(minimum "${seq_ms[@]}") | 1.00x |"
	echo "| the same 8 queues ticked at the same time from 8 sessions | $(ms "$ms_conc") | $(minimum "${conc_ms[@]}") | $(awk "BEGIN {printf \"%.2fx\", $ms_seq / $ms_conc}") |"
	echo "| one of the queues (10k rosters) ticked on a single node: a database of the coordinator's server without Citus | $(ms "$(median "${single_ms[@]}")") | $(minimum "${single_ms[@]}") | |"
	echo "| (per queue ticked one after another on Citus: the baseline / 8) | $(ms "$ms_seq / 8") | | |"
	echo "| $enqueues solo enqueues on a single node, one statement each (baseline): per call | $(ms "$ms_local / $enqueues") | $(ms "$(minimum "${local_ms[@]}") / $enqueues") | 1.00x |"
	echo "| $enqueues enqueues through the coordinator, delegated to the queue's worker: per call | $(ms "$ms_dist / $enqueues") | $(ms "$(minimum "${dist_ms[@]}") / $enqueues") | $(awk "BEGIN {printf \"%.2fx\", $ms_local / $ms_dist}") |"
} | tee test/bench/out/citus_queues.md
