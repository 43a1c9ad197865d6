#!/usr/bin/env bash
# Two versions of mm side by side in one run: the replays, tick,
# report_result and find_opponent benchmarks on BEFORE and AFTER (git
# revisions of this repository; AFTER defaults to HEAD, and WORKTREE means
# the work tree with its uncommitted changes), each built into a
# private copy of the PostgreSQL installation (test/pg_copy.sh) and served
# by its own durable cluster (fsync, synchronous_commit and full_page_writes
# on), both running at once. Each round runs every case on both, in
# alternating order; a case's figure is its backend's CPU time (utime +
# stime from /proc, far less sensitive than wall time to other jobs on a
# shared machine) and its wall time, medians over the rounds, and the ratio
# after / before.
#
#   bash test/bench/before_after.sh BEFORE [AFTER]
#
# MM_PORT and MM_TMPDIR as for make bench (the clusters are bench, B+2, for
# BEFORE and crash, B+3, for AFTER); MM_ROUNDS rounds (default 5); MM_CASES
# a comma-separated subset of the cases below. Needs root or the server's OS
# user (it reads the backend's /proc/PID/stat).
#
# Cases. Each version runs its own setup.sql and case of the benchmark
# folders it names (the tables they fill are that version's), except the
# ticks, whose queue this script fills the same way in both (the rosters
# and players of a waiting queue have the same columns in both): 5v5,
# parties 1-5, ratings ~ N(1500, 250), deviations 30-150, waits 0-300 s, on
# the Glicko-2 scale with the Guild Wars 2 wiki's filter (padding 10 points
# a second, one deviation), so that both versions match the same way.
#   openskill_replay  openskill_replay/01_replay.sql (100k 5v5 matches)
#   glicko2_replay    glicko2_replay/01_replay.sql (1M games, daily periods)
#   tick_burst        mm.tick over 10k waiting rosters, all targets (rolled
#                     back), 3 times a run
#   tick_steady       mm.tick over 20k waiting rosters, 50 targets (rolled
#                     back), 20 times a run
#   report_result     3,000 mm.report_result calls in one statement
#                     (report_result/setup.sql: 30,000 5v5 matches)
#   find_opponent     async/01_find_opponent.sql (1,000 queries, 1M entries),
#                     5 times a run
#   enqueue           500 mm.enqueue calls of a solo, each its own
#                     transaction (a commit each, synchronous), into a 5v5
#                     queue (what the arrival record, mm.roster_arrival, adds
#                     to a queue's writes)
#   enqueue_leave     2,000 mm.enqueue of a solo and mm.leave of it, each in
#                     its own statement, on a queue of 2,000 waiting rosters
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$here"
before_rev=${1:?usage: test/bench/before_after.sh BEFORE [AFTER]}
after_rev=${2:-HEAD}
rounds=${MM_ROUNDS:-5}
all_cases=openskill_replay,glicko2_replay,tick_burst,tick_steady,report_result,find_opponent,enqueue,enqueue_leave
cases=${MM_CASES:-$all_cases}
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
. test/ports.sh
base=$(mm_base)
work=$(mktemp -d "$(mm_tmpdir)"/mm-before-after.XXXXXX)
chmod 755 "$work"
ticks_per_s=$(getconf CLK_TCK)

declare -A cluster=([before]=bench [after]=crash)
declare -A rev=([before]=$before_rev [after]=$after_rev)
declare -A config

cleanup() {
	for v in before after; do
		if [ -n "${config[$v]:-}" ]; then
			PG_CONFIG=${config[$v]} bash test/cluster.sh stop "${cluster[$v]}" >/dev/null 2>&1 || true
		fi
	done
	rm -rf "$work"
}
trap cleanup EXIT

# psql on version v's cluster
on() {
	local v=$1
	shift
	(eval "$(PG_CONFIG=${config[$v]} bash "$here/test/cluster.sh" env "${cluster[$v]}")"
	 export PGHOST PGPORT PGUSER
	 psql -X -q -v ON_ERROR_STOP=1 "$@")
}

# 1. Each version: its sources, a private PostgreSQL with it installed, a cluster.
for v in before after; do
	mkdir -p "$work/$v/src"
	if [ "${rev[$v]}" = WORKTREE ]; then
		echo "== $v: the work tree as it is"
		git ls-files -co --exclude-standard -z | xargs -0 cp -a --parents -t "$work/$v/src"
	else
		echo "== $v: ${rev[$v]} ($(git rev-parse --short "${rev[$v]}"))"
		git archive "${rev[$v]}" | tar -x -C "$work/$v/src"
	fi
	config[$v]=$(bash test/pg_copy.sh "$work/$v/pg")
	# CFLAGS_SL_MODULE empty: PostgreSQL 16 and later build modules with
	# -fvisibility=hidden, and a tree from before mm exported its functions
	# explicitly (9311a16) then cannot be loaded; both versions are built alike
	(cd "$work/$v/src" && make -s PG_CONFIG="${config[$v]}" CFLAGS_SL_MODULE= >/dev/null 2>"$work/$v/build.log" &&
		make -s PG_CONFIG="${config[$v]}" CFLAGS_SL_MODULE= install >/dev/null 2>>"$work/$v/build.log") ||
		{ cat "$work/$v/build.log"; echo "before_after: building $v failed" >&2; exit 1; }
	PG_CONFIG=${config[$v]} bash test/cluster.sh start "${cluster[$v]}" >/dev/null
done

# 2. Each case's database on both versions.
tick_setup() {
	cat <<'SQL'
SELECT setseed(0.42);
CREATE FUNCTION bench_accepts(c jsonb) RETURNS bool LANGUAGE plpgsql AS $$
BEGIN
    PERFORM mm.matcher_config(c);
    RETURN true;
EXCEPTION WHEN invalid_parameter_value THEN
    RETURN false;
END $$;
-- the Guild Wars 2 wiki's filter on the Glicko-2 scale, in the keys each version has
CREATE FUNCTION bench_config(rosters int) RETURNS jsonb LANGUAGE sql AS $$
    SELECT CASE WHEN bench_accepts('{"filter": {"deviations": 1}}')
                THEN jsonb_set(c, '{filter,deviations}', '1') ELSE c END
    FROM (SELECT jsonb_build_object('rating', '{"model": "glicko2"}'::jsonb,
                                    'filter', jsonb_build_object('padding', 10, 'rosters', rosters, 'limit', 600000)) AS c) x
$$;
SELECT mm.create_queue('burst', bench_config(10000));
SELECT mm.create_queue('steady', bench_config(50));
CREATE FUNCTION bench_fill(qname text, n int, first_player bigint) RETURNS void LANGUAGE sql AS $$
    WITH q AS (SELECT queue_id FROM mm.queue WHERE name = qname),
    r AS (
        SELECT i, nextval('mm.roster_id_seq') AS rid,
               CASE WHEN u < 0.50 THEN 1 WHEN u < 0.70 THEN 2 WHEN u < 0.82 THEN 3 WHEN u < 0.90 THEN 4 ELSE 5 END AS size,
               least(3000, greatest(100, 1500 + 250 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()))) AS rating,
               30 + 120 * random() AS deviation, floor(random() * 300) AS waited
        FROM generate_series(1, n) i, LATERAL (SELECT random() AS u, i AS j) u
    ),
    ins AS (
        INSERT INTO mm.roster (roster_id, queue_id, rating, deviation, rank, joined_at)
        SELECT r.rid, q.queue_id, rating, deviation, floor(random() * 40),
               '2024-01-01 00:05:00+00'::timestamptz - waited * interval '1 second'
        FROM r, q ORDER BY waited DESC, i
    )
    INSERT INTO mm.queued_player (player_id, roster_id, queue_id, seat, profession)
    SELECT first_player + i * 5 + k, r.rid, q.queue_id, k,
           (ARRAY['guardian','warrior','thief','ranger','engineer','necromancer','mesmer','elementalist','revenant'])[1 + floor(random() * 9)::int]
    FROM r, q, generate_series(1, r.size) k
    ORDER BY r.waited DESC, r.i, k;
$$;
SELECT bench_fill('burst', 10000, 0);
SELECT bench_fill('steady', 20000, 1000000);
VACUUM ANALYZE;
SQL
}

case_db() {
	case "$1" in
		tick_burst | tick_steady) echo bench_tick ;;
		*) echo "bench_$1" ;;
	esac
}

setup_of() {
	case "$1" in
		openskill_replay | glicko2_replay | report_result) echo "test/bench/$1/setup.sql" ;;
		find_opponent) echo "test/bench/async/setup.sql" ;;
	esac
}

for v in before after; do
	done_dbs=" "
	for c in ${cases//,/ }; do
		db=$(case_db "$c")
		[[ "$done_dbs" == *" $db "* ]] && continue
		done_dbs+="$db "
		echo "== $v: setting up $db"
		on "$v" -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" \
			-c "CREATE DATABASE $db" >/dev/null
		on "$v" -d "$db" -c "CREATE EXTENSION mm" >/dev/null
		if [ "$db" = bench_tick ]; then
			tick_setup | on "$v" -d "$db" >/dev/null
		elif [ "$db" = bench_enqueue ]; then
			on "$v" -d "$db" -c "SELECT mm.create_queue('enq')" -c "CREATE SEQUENCE enq_player" >/dev/null
		elif [ "$db" = bench_enqueue_leave ]; then
			on "$v" -d "$db" >/dev/null <<'SQL'
SELECT mm.create_queue('el', '{"filter": {"potentials_min": 5}}');
SELECT count(mm.enqueue('el', ARRAY[900000000 + p], 1300 + random() * 400, 50)) FROM generate_series(1, 2000) p;
CREATE SEQUENCE el_player START 100000000;
VACUUM ANALYZE;
SQL
		else
			(cd "$work/$v/src" && on "$v" -d "$db" -f "$(setup_of "$c")" >/dev/null)
		fi
	done
done

# 3. One run of case c on version v: "cpu_ms wall_ms".
case_sql() {
	local v=$1 c=$2
	case "$c" in
		openskill_replay | glicko2_replay) cat "$work/$v/src/test/bench/$c/01_replay.sql" ;;
		find_opponent) cat "$work/$v/src/test/bench/async/01_find_opponent.sql" ;;
		tick_burst) printf "BEGIN;\nSELECT count(*) FROM mm.tick('burst', '2024-01-01 00:05:00+00');\nROLLBACK;\n" ;;
		tick_steady) printf "BEGIN;\nSELECT count(*) FROM mm.tick('steady', '2024-01-01 00:05:00+00');\nROLLBACK;\n" ;;
		enqueue) for _ in $(seq 1 500); do echo "SELECT mm.enqueue('enq', ARRAY[nextval('enq_player')], 1500, 50);"; done ;;
		enqueue_leave)
			for _ in $(seq 1 2000); do
				echo "SELECT mm.enqueue('el', ARRAY[nextval('el_player')], 1500, 50) AS r \\gset"
				echo "SELECT mm.leave(:r);"
			done
			;;
		report_result)
			cat <<'SQL'
SELECT count(*) FROM (SELECT nextval('todo_report') AS m FROM generate_series(1, 3000)) p,
     LATERAL mm.report_result(p.m, '{"teams": {"red": {"rank": 1, "score": 500}, "blue": {"rank": 2, "score": 420}}}') r;
SQL
			;;
	esac
}

# how many times a run repeats its case (CPU time is counted in ticks of
# 10 ms: a run should take a second or more)
repeat_of() {
	case "$1" in
		tick_burst) echo 3 ;;
		tick_steady) echo 20 ;;
		find_opponent) echo 5 ;;
		*) echo 1 ;;
	esac
}

run_case() {
	local v=$1 c=$2 out
	out=$(mktemp "$work/run.XXXXXX")
	{
		echo "SELECT pg_backend_pid() AS pid \\gset"
		echo "\\setenv BPID :pid"
		echo "\\setenv OUT $out"
		# a first call in the session prepares its statements: not timed
		[ "$c" = report_result ] && echo "SELECT count(*) FROM mm.report_result(nextval('todo_report'), '{\"teams\": {\"red\": {\"rank\": 1}, \"blue\": {\"rank\": 2}}}');"
		echo "\\! awk '{print \$14 + \$15}' /proc/\$BPID/stat > \$OUT.cpu0; date +%s%N > \$OUT.t0"
		for _ in $(seq 1 "$(repeat_of "$c")"); do
			case_sql "$v" "$c"
		done
		echo "\\! awk '{print \$14 + \$15}' /proc/\$BPID/stat > \$OUT.cpu1; date +%s%N > \$OUT.t1"
	} | on "$v" -d "$(case_db "$c")" >/dev/null
	echo "$(( ($(cat "$out.cpu1") - $(cat "$out.cpu0")) * 1000 / ticks_per_s )) $(( ($(cat "$out.t1") - $(cat "$out.t0")) / 1000000 ))"
	rm -f "$out" "$out".*
}

declare -A cpu wall
for r in $(seq 1 "$rounds"); do
	order="before after"
	[ $((r % 2)) = 0 ] && order="after before"
	for c in ${cases//,/ }; do
		for v in $order; do
			read -r ms wms < <(run_case "$v" "$c")
			cpu[$c.$v]+="$ms "
			wall[$c.$v]+="$wms "
		done
	done
	echo "== round $r of $rounds done, load $(cut -d' ' -f1-3 /proc/loadavg)"
done

median() {
	tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2] + a[NR/2+1]) / 2}'
}

echo
short() { if [ "$1" = WORKTREE ]; then echo "the work tree"; else git rev-parse --short "$1"; fi; }
echo "before: $before_rev ($(short "$before_rev")), after: $after_rev ($(short "$after_rev"))"
echo "$rounds rounds, durable clusters (fsync, synchronous_commit, full_page_writes on), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-18s %12s %12s %8s %12s %12s %8s\n' case "cpu before" "cpu after" ratio "wall before" "wall after" ratio
for c in ${cases//,/ }; do
	cb=$(echo "${cpu[$c.before]}" | median)
	ca=$(echo "${cpu[$c.after]}" | median)
	wb=$(echo "${wall[$c.before]}" | median)
	wa=$(echo "${wall[$c.after]}" | median)
	printf '%-18s %10s ms %10s ms %7.3fx %10s ms %10s ms %7.3fx\n' "$c" "$cb" "$ca" \
		"$(awk -v a="$ca" -v b="$cb" 'BEGIN {print (b > 0 ? a / b : 0)}')" "$wb" "$wa" \
		"$(awk -v a="$wa" -v b="$wb" 'BEGIN {print (b > 0 ? a / b : 0)}')"
done
echo "(cpu: the backend's CPU time; ratio: after / before, below 1 is faster)"
echo "all runs: $(for c in ${cases//,/ }; do echo -n "$c before [${cpu[$c.before]% }] after [${cpu[$c.after]% }]; "; done)"
