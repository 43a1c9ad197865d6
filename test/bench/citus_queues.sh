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
#      session, one statement each, each timed (psql's \timing): on a plain
#      single node (a database of the coordinator's server without Citus:
#      the local call) against the queue-id form on the coordinator, which
#      Citus sends to the queue's worker (the delegated call, with its
#      cluster-wide player row), and the queue-name form (each statement
#      routed from the coordinator). Where the time goes: the delegated
#      calls split by where the player's row of mm.waiting_player lives
#      (the queue's worker: one node writes; the other: a two-phase
#      commit), and a delegated call that reads one row (claim_matches of
#      an empty queue: the round trip and Citus's planning alone).
#   3. Results: MM_BENCH_REPORTS (default 400) 5v5 matches of distinct
#      players (rated before), reported by 4 clients at once, each report
#      timed: on the single node, through the coordinator by queue id
#      (run on the coordinator, each statement sent to the queue's shard)
#      and by match id alone (looked up on every shard first). Throughput (reports a second, wall time) and p99.
#
# Each measured MM_BENCH_RUNS times (default 3), interleaved; medians and
# minima in ms. Not run by make bench (it needs Citus and minutes); run:
#   PG_CONFIG=... MM_PORT=... bash test/bench/citus_queues.sh   (Citus on MM_PORT+6..+8)
# Output: a Markdown table on stdout and in test/bench/out/citus_queues.md,
# with the ratios the scale-out goals name (docs/scaling.md). Skipped,
# saying why, without Citus.
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
reports=${MM_BENCH_REPORTS:-400}
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
SELECT mm.create_queue('bench_results', '{"team_size": 5, "filter": {"potentials_min": 1, "rosters": 100000}}');
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
TRUNCATE mm.roster, mm.queued_player, mm.match, mm.ended_roster, mm.ticket_event, mm.tick_log, mm.waiting_player,
         mm.match_result, mm.match_result_player, mm.odds_result, mm.backfill, mm.match_accept, mm.rating_period_game;
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
SELECT mm.create_queue('bench_results', '{"team_size": 5, "filter": {"potentials_min": 1, "rosters": 100000}}');
\i test/bench/citus_queues_fill.sql
SQL
qlocal=$(q -d single -c "SELECT queue_id FROM mm.queue WHERE name = 'bq1'")
qdist=$(echo "$queues" | cut -d' ' -f1)
# one 10k queue ticked on the single node, same rows
tick_single() {
	local t0
	q -d single >/dev/null <<SQL
TRUNCATE mm.roster, mm.queued_player, mm.match, mm.ended_roster, mm.ticket_event, mm.tick_log, mm.match_result,
         mm.match_result_player, mm.odds_result, mm.backfill, mm.match_accept, mm.rating_period_game;
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
# enqueue_run DB QUEUE PLAYERS_FILE OUT: one enqueue per player of the
# file, one statement each, each call's milliseconds into OUT; prints the
# total ms. QUEUE: an id (the queue-id form) or a quoted name.
enqueue_run() {
	local db=$1 qid=$2 players=$3 out=$4 t0
	{
		echo '\timing on'
		awk -v q="$qid" '{ printf "SELECT mm.enqueue(%s, ARRAY[%d]::bigint[], 1500, 50);\n", q, $1 }' "$players"
	} >"$work/enq.sql"
	t0=$(date +%s%N)
	q -d "$db" -f "$work/enq.sql" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' >>"$out"
	ms_since "$t0"
}
# players for a run: n ids from base whose row of mm.waiting_player lives
# on the queue's worker ("near") or on the other ("far"), or any ("any")
players_for() {
	local n=$1 base=$2 where=$3
	q -d postgres -c "SELECT p FROM generate_series($base, $base + 40 * $n) p
	                  WHERE '$where' = 'any' OR (('$where' = 'near') = (
	                      (SELECT groupid FROM pg_dist_placement WHERE shardid = get_shard_id_for_distribution_column('mm.waiting_player', p))
	                      = (SELECT groupid FROM bench_queue WHERE queue_id = $qdist)))
	                  ORDER BY p LIMIT $n"
}
# percentile P of the numbers in a file
pct() { sort -n "$1" | awk -v p="$2" '{a[NR]=$1} END {i = int(p * NR + 0.999999); if (i < 1) i = 1; print a[i]}'; }

# ---- results: matches of 10 distinct players each, their ratings rows
# there before (the steady state), made by ticking the queue
make_matches() {
	local db=$1 base=$2 rq
	rq=$(q -d "$db" -c "SELECT queue_id FROM mm.queue WHERE name = 'bench_results'")
	q -d "$db" >/dev/null <<SQL
SET client_min_messages = warning;
INSERT INTO mm.ratings (player_id, key, model, state, games)
SELECT p, 'ranked', 'openskill', ARRAY[25 + (p % 7), 8], 3 FROM generate_series($base, $base + 10 * $reports - 1) p
ON CONFLICT DO NOTHING;
SELECT count(mm.enqueue('bench_results', ARRAY[p]::bigint[], 1500 + ((p - $base) / 10) * 100, 10,
                        joined_at => now() - interval '1 minute'))
FROM generate_series($base, $base + 10 * $reports - 1) p;
SELECT count(*) FROM mm.tick('bench_results');
SQL
	q -d "$db" -c "SELECT match_id FROM mm.match WHERE queue_id = $rq AND status = 'matched' ORDER BY match_id" >"$work/matches_$db"
	# every group of 10 players is a match: fewer means the tick stopped short
	if [ "$(wc -l <"$work/matches_$db")" -ne "$reports" ]; then
		echo "citus_queues: $(wc -l <"$work/matches_$db") matches made in $db, not $reports" >&2
		exit 1
	fi
	echo "$rq"
}
# report_run DB QUEUE FORM OUT: 4 clients report the matches (client k
# every 4th), each report timed into OUT; prints the wall ms
report_run() {
	local db=$1 rq=$2 form=$3 out=$4 t0 k
	for k in 0 1 2 3; do
		{
			echo '\timing on'
			awk -v k="$k" -v q="$rq" -v f="$form" 'NR % 4 == k {
				if (f == "id") printf "SELECT count(*) FROM mm.report_result(%s, %s, '"'"'{\"teams\": {\"red\": {\"rank\": 1}, \"blue\": {\"rank\": 2}}}'"'"');\n", q, $1;
				else printf "SELECT count(*) FROM mm.report_result(%s, '"'"'{\"teams\": {\"red\": {\"rank\": 1}, \"blue\": {\"rank\": 2}}}'"'"');\n", $1 }' "$work/matches_$db"
		} >"$work/rep_$k.sql"
	done
	t0=$(date +%s%N)
	for k in 0 1 2 3; do
		q -d "$db" -f "$work/rep_$k.sql" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' >"$work/rep_$k.ms" &
	done
	wait
	cat "$work"/rep_?.ms >>"$out"
	ms_since "$t0"
}
work=$(mktemp -d)
trap 'rm -rf "$work"; bash "$cluster" clean' EXIT

seq_ms=() conc_ms=() single_ms=() matches=() rep_local=() rep_id=() rep_name=()
: >"$work/e_local" ; : >"$work/e_id" ; : >"$work/e_name" ; : >"$work/e_near" ; : >"$work/e_far" ; : >"$work/e_read"
: >"$work/r_local" ; : >"$work/r_id" ; : >"$work/r_name"
for r in $(seq 1 "$runs"); do
	refill
	seq_ms+=("$(sequential)")
	matches+=("$(q -d postgres -c "SELECT sum(matches_made) FROM mm.tick_log")")
	refill
	conc_ms+=("$(concurrent)")
	matches+=("$(q -d postgres -c "SELECT sum(matches_made) FROM mm.tick_log")")
	single_ms+=("$(tick_single)")
	# enqueue: the same players' ids on each side (a fresh range per run)
	base=$((r * 10000000))
	players_for "$enqueues" "$base" any >"$work/p_any"
	enqueue_run single "$qlocal" "$work/p_any" "$work/e_local" >/dev/null
	enqueue_run postgres "$qdist" "$work/p_any" "$work/e_id" >/dev/null
	players_for "$enqueues" $((base + 2000000)) any >"$work/p_name"
	enqueue_run postgres "'$(q -d postgres -c "SELECT name FROM mm.queue WHERE queue_id = $qdist")'" "$work/p_name" "$work/e_name" >/dev/null
	players_for "$enqueues" $((base + 4000000)) near >"$work/p_near"
	enqueue_run postgres "$qdist" "$work/p_near" "$work/e_near" >/dev/null
	players_for "$enqueues" $((base + 6000000)) far >"$work/p_far"
	enqueue_run postgres "$qdist" "$work/p_far" "$work/e_far" >/dev/null
	{
		echo '\timing on'
		for _ in $(seq 1 "$enqueues"); do echo "SELECT count(*) FROM mm.claim_matches($(q -d postgres -c "SELECT min(queue_id) FROM mm.queue WHERE name = 'bench_results'"), 1);"; done
	} >"$work/read.sql"
	q -d postgres -f "$work/read.sql" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' >>"$work/e_read"
	# results: the same matches' shapes on each side, reported by 4 clients
	rq=$(make_matches single $((base + 8000000)))
	rep_local+=("$(report_run single "$rq" id "$work/r_local")")
	rq=$(make_matches postgres $((base + 8000000)))
	rep_id+=("$(report_run postgres "$rq" id "$work/r_id")")
	rq=$(make_matches postgres $((base + 9000000)))
	rep_name+=("$(report_run postgres "$rq" name "$work/r_name")")
done
nrep=$(wc -l <"$work/matches_postgres")

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
minimum() { printf '%s\n' "$@" | sort -n | head -1; }
ms() { awk "BEGIN {printf \"%.1f\", $1}"; }
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
ms_seq=$(median "${seq_ms[@]}") ms_conc=$(median "${conc_ms[@]}")
p50_local=$(pct "$work/e_local" 0.5) p50_id=$(pct "$work/e_id" 0.5)
tp() { awk "BEGIN {printf \"%.0f\", $nrep * 1000 / $1}"; }
tp_local=$(tp "$(median "${rep_local[@]}")") tp_id=$(tp "$(median "${rep_id[@]}")") tp_name=$(tp "$(median "${rep_name[@]}")")
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
	echo
	echo "| enqueue, one statement each ($enqueues a run, $runs runs) | p50 ms | p90 ms | p50 vs single node |"
	echo "|---|---:|---:|---:|"
	echo "| single node (baseline) | $p50_local | $(pct "$work/e_local" 0.9) | 1.00x |"
	echo "| through the coordinator, by queue id (delegated to the queue's worker) | $p50_id | $(pct "$work/e_id" 0.9) | $(awk "BEGIN {printf \"%.2fx\", $p50_id / $p50_local}") |"
	echo "| through the coordinator, by queue name (each statement routed) | $(pct "$work/e_name" 0.5) | $(pct "$work/e_name" 0.9) | $(awk "BEGIN {printf \"%.2fx\", $(pct "$work/e_name" 0.5) / $p50_local}") |"
	echo "| by queue id, the player's row on the queue's worker (one node writes) | $(pct "$work/e_near" 0.5) | $(pct "$work/e_near" 0.9) | $(awk "BEGIN {printf \"%.2fx\", $(pct "$work/e_near" 0.5) / $p50_local}") |"
	echo "| by queue id, the player's row on the other worker (two-phase commit) | $(pct "$work/e_far" 0.5) | $(pct "$work/e_far" 0.9) | $(awk "BEGIN {printf \"%.2fx\", $(pct "$work/e_far" 0.5) / $p50_local}") |"
	echo "| a delegated call that reads one row (claim_matches of an empty queue) | $(pct "$work/e_read" 0.5) | $(pct "$work/e_read" 0.9) | |"
	echo
	echo "| report_result of a 5v5 match, 4 clients ($nrep matches a run) | reports/s | p50 ms | p99 ms | vs single node |"
	echo "|---|---:|---:|---:|---:|"
	echo "| single node (baseline) | $tp_local | $(pct "$work/r_local" 0.5) | $(pct "$work/r_local" 0.99) | 1.00x |"
	echo "| through the coordinator, by queue id (each statement routed, the match not looked up) | $tp_id | $(pct "$work/r_id" 0.5) | $(pct "$work/r_id" 0.99) | $(awk "BEGIN {printf \"%.2fx\", $tp_id / $tp_local}") |"
	echo "| through the coordinator, by match id alone | $tp_name | $(pct "$work/r_name" 0.5) | $(pct "$work/r_name" 0.99) | $(awk "BEGIN {printf \"%.2fx\", $tp_name / $tp_local}") |"
	echo
	echo "Goals (docs/scaling.md): enqueue p50 by queue id <= 2x the single node's: $(awk "BEGIN {print ($p50_id <= 2 * $p50_local) ? \"met\" : \"not met\"}")" \
		"($(awk "BEGIN {printf \"%.2fx\", $p50_id / $p50_local}")); report throughput by queue id >= 50% of the single node's:" \
		"$(awk "BEGIN {print ($tp_id >= 0.5 * $tp_local) ? \"met\" : \"not met\"}") ($(awk "BEGIN {printf \"%.0f%%\", 100 * $tp_id / $tp_local}"));" \
		"concurrent ticks >= 1.7x sequential: $(awk "BEGIN {print ($ms_seq >= 1.7 * $ms_conc) ? \"met\" : \"not met\"}") ($(awk "BEGIN {printf \"%.2fx\", $ms_seq / $ms_conc}"))."
} | tee test/bench/out/citus_queues.md
