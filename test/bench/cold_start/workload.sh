#!/usr/bin/env bash
# The cold_start benchmark's workloads, the same in a fresh database and in
# the steady one. Each runs as a client does it: one session, one statement
# (one transaction) per call. Prints the wall time of the session and the
# CPU time of its backend, in ms, and the backend's process id.
#
#   workload.sh enqueue DB QUEUE [BASE]  10,000 mm.enqueue calls: parties of 1-5
#                                  (half solo), ratings ~ N(1500, 250),
#                                  deviations 30-150, joined up to 300 s ago
#                                  (the same rosters every time: setseed)
#   workload.sh tick DB QUEUE      50 mm.tick calls
#   workload.sh report DB QUEUE    mm.report_result of the queue's newest 200
#                                  matches (red wins)
# MM_COLD_ENQUEUES, MM_COLD_TICKS and MM_COLD_REPORTS change the counts
# (callgrind.sh).
set -euo pipefail
what=$1 db=$2 queue=$3 base=${4:-0}
case "$what" in
enqueue)
	sql="SELECT setseed(0.41);
SELECT format('SELECT mm.enqueue(%L, %L, %s, %s, joined_at => now() - %L::interval)', '$queue',
              ARRAY(SELECT p FROM generate_series(player, player + size - 1) p), rating, deviation,
              waited || ' seconds')
FROM (SELECT i, $base + 10 * i AS player,
             CASE WHEN u < 0.50 THEN 1 WHEN u < 0.70 THEN 2 WHEN u < 0.82 THEN 3 WHEN u < 0.90 THEN 4 ELSE 5 END AS size,
             round(least(3000, greatest(100, 1500 + 250 * sqrt(-2 * ln(1 - r1)) * cos(2 * pi() * r2)))::numeric, 1) AS rating,
             round((30 + 120 * r3)::numeric, 1) AS deviation, floor(300 * r4) AS waited
      FROM generate_series(1, ${MM_COLD_ENQUEUES:-10000}) i,
           LATERAL (SELECT random() AS u, random() AS r1, random() AS r2, random() AS r3, random() AS r4, i AS j) x) s
ORDER BY i
\\gexec" ;;
tick)
	sql="SELECT 'SELECT count(*) FROM mm.tick(' || quote_literal('$queue') || ')' FROM generate_series(1, ${MM_COLD_TICKS:-50})
\\gexec" ;;
report)
	sql="SELECT format('SELECT count(*) FROM mm.report_result(%s, %L)', m.match_id,
              '{\"teams\": {\"red\": {\"rank\": 1}, \"blue\": {\"rank\": 2}}}')
FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = '$queue' ORDER BY m.match_id DESC LIMIT ${MM_COLD_REPORTS:-200}
\\gexec" ;;
*) echo "workload.sh: enqueue, tick or report" >&2; exit 2 ;;
esac
# the backend's CPU time (user + system, from /proc: the server runs on this
# machine) is read by the session itself before it ends
cpu=$(mktemp)
t0=$(date +%s%N)
{
	echo "SELECT pg_backend_pid() AS backend \\gset"
	echo "\\setenv MM_BACKEND :backend"
	echo "$sql"
	echo "\\! awk '{print \$14 + \$15, \$1}' /proc/\$MM_BACKEND/stat > $cpu"
} | psql -X -q -v ON_ERROR_STOP=1 -d "$db" >/dev/null
t1=$(date +%s%N)
read -r ticks pid <"$cpu"
echo "$(((t1 - t0) / 1000000)) $((ticks * 1000 / $(getconf CLK_TCK))) $pid"
rm -f "$cpu"
