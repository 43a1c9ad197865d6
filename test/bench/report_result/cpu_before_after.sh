# Not a case of make bench (no NN_ prefix): the backend CPU time of 3,000
# sequential mm.report_result calls in one statement, for two source trees
# built and installed in turn (before and after a change), interleaved for
# several rounds. CPU time (utime + stime of the backend, /proc) is far less
# sensitive than wall time to other jobs on a shared machine.
#   bash test/bench/report_result/cpu_before_after.sh BEFORE_DIR AFTER_DIR [ROUNDS]
# with PG_CONFIG and MM_PORT set as for make bench; each tree is a checkout
# (git worktree or git archive) of mm. Uses the bench cluster of
# test/cluster.sh and the report_result setup (30,000 5v5 matches).
set -euo pipefail
before=$(cd "${1:?before dir}" && pwd)
after=$(cd "${2:?after dir}" && pwd)
rounds=${3:-3}
ticks=$(getconf CLK_TCK)
for round in $(seq 1 "$rounds"); do
	for d in "$after" "$before"; do
		cd "$d"
		make install >/dev/null 2>&1
		bash test/cluster.sh start bench >/dev/null
		eval "$(bash test/cluster.sh env bench)"
		export PGHOST PGPORT PGUSER
		psql -X -q -d postgres -c "DROP DATABASE IF EXISTS bench_cpu" -c "CREATE DATABASE bench_cpu"
		psql -X -q -d bench_cpu -c "CREATE EXTENSION mm" -f test/bench/report_result/setup.sql >/dev/null
		cpu=$(mktemp)
		psql -X -q -At -d bench_cpu -v cpu="$cpu" >/dev/null <<'SQL'
SELECT pg_backend_pid() AS pid \gset
\setenv BPID :pid
\setenv CPU :cpu
-- warm the session's prepared statements
SELECT count(*) FROM plan p, LATERAL mm.report_result(p.m, '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}') r WHERE p.m <= 20;
\! awk '{print $14 + $15}' /proc/$BPID/stat > $CPU.0
SELECT count(*) FROM plan p, LATERAL mm.report_result(p.m, '{"teams": {"red": {"rank": 1, "score": 500}, "blue": {"rank": 2, "score": 420}}}') r
WHERE p.m > 20 AND p.m <= 3020;
\! awk '{print $14 + $15}' /proc/$BPID/stat > $CPU.1
SQL
		echo "round $round $(basename "$d"): backend CPU $(( ($(cat "$cpu.1") - $(cat "$cpu.0")) * 1000 / ticks )) ms for 3000 reports, load $(cut -d' ' -f1 /proc/loadavg)"
		rm -f "$cpu" "$cpu.0" "$cpu.1"
		bash test/cluster.sh stop bench >/dev/null
	done
done
