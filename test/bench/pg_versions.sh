#!/usr/bin/env bash
# The same mm on several PostgreSQL versions, side by side in one run: what
# a newer server gives mm without a change to mm (17's streaming reads in
# sequential scans, 18's asynchronous I/O), and what 18's io_method changes.
#
#   1. cold read: a sequential scan of a 2M-game history table (about 130 MB,
#      four times shared_buffers) right after a server restart, so that
#      every page comes from the operating system's cache through the
#      server's read path (the path 17 made streaming and 18 asynchronous;
#      the OS cache is left warm: dropping it would disturb the machine's
#      other users);
#   2. mm.glicko2_replay over the first 1M games of that table (daily rating
#      periods): mm's C reading the table through SPI and rating, CPU bound;
#   3. one mm.tick over a 20k-roster queue (5v5, 50 targets, rolled back).
# Each case runs MM_BENCH_RUNS times (default 5), the server restarted
# before each run of case 1; medians and minima in ms, and the ratio of the
# first installation's median to each one's (above 1: faster than the
# first). On 18 every case runs with io_method = worker (18's default) and
# with io_method = sync (the synchronous reads of 17).
#
# Usage: MM_BENCH_PG_CONFIGS="/usr/lib/postgresql/15/bin/pg_config /opt/pg18/bin/pg_config" \
#            bash test/bench/pg_versions.sh [PORT]
# (default: PG_CONFIG alone). mm is built from this tree into a private copy
# of each installation (test/pg_copy.sh). PORT defaults to MM_PORT+2 (the
# bench port, test/ports.sh); one cluster at a time, in
# MM_TMPDIR/mm-versions-PORT, fsync and synchronous_commit on, removed at
# the end.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$here"
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
configs=${MM_BENCH_PG_CONFIGS:-$PG_CONFIG}
runs=${MM_BENCH_RUNS:-5}
. test/bench/lib.sh
port=${1:-$(mm_port bench)}
dir=$(mm_tmpdir)/mm-versions-$port
work=$(mktemp -d "$(mm_tmpdir)"/mm-versions.XXXXXX)
chmod 755 "$work"
bindir=""
cleanup() {
	if [ -n "$bindir" ] && mm_ours "$dir" && [ -f "$dir/data/postmaster.pid" ]; then
		as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
	fi
	if mm_ours "$dir"; then rm -rf "$dir"; fi
	rm -rf "$work"
}
trap cleanup EXIT

now_us() { date +%s%6N; }
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d bench "$@"; }

# A cluster of one installation with one io_method (or none before 18).
start_cluster() {
	local io=$1
	if mm_ours "$dir" && [ -f "$dir/data/postmaster.pid" ]; then
		as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
	fi
	mm_claim "$dir" bench
	as_owner "$bindir/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >/dev/null
	{
		echo "port = $port"
		echo "listen_addresses = ''"
		echo "unix_socket_directories = '$dir'"
		echo "shared_buffers = 32MB"
		echo "work_mem = 64MB"
		echo "max_wal_size = 4GB"
		echo "fsync = on"
		echo "synchronous_commit = on"
		echo "max_parallel_workers_per_gather = 0"
		if [ -n "$io" ]; then echo "io_method = $io"; fi
	} >>"$dir/data/postgresql.conf"
	as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w start >/dev/null
	export PGHOST=$dir PGPORT=$port PGUSER=postgres PATH=$bindir:$PATH
	psql -X -q -d postgres -c "CREATE DATABASE bench"
	q -c "CREATE EXTENSION mm"
	q <<'SQL' >/dev/null
CREATE TABLE history AS
SELECT a, CASE WHEN b = a THEN a % 100000 + 1 ELSE b END AS b, s, t, g
FROM (SELECT (g * 7919) % 100000 + 1 AS a,
             (g * 104729 + 13) % 100000 + 1 AS b,
             CASE (g * 13) % 7 WHEN 0 THEN 0.5 WHEN 1 THEN 1 WHEN 2 THEN 1 WHEN 3 THEN 1 ELSE 0 END::float8 AS s,
             '2024-01-01 00:00+00'::timestamptz + (g / 10000) * interval '1 day'
                 + ((g * 37) % 86400) * interval '1 second' AS t, g
      FROM generate_series(0::bigint, 1999999) g) x;
VACUUM (FREEZE, ANALYZE) history;
SELECT mm.create_queue('bench', '{"team_size": 5, "filter": {"rosters": 50}}');
SELECT setseed(0.42);
SELECT count(mm.enqueue('bench', (SELECT array_agg(i * 10 + k)::bigint[] FROM generate_series(1, 1 + i % 5) k),
                        1500 + 300 * sin(i), 40, joined_at => now() - (i % 600) * interval '1 second'))
FROM generate_series(1, 20000) i;
VACUUM ANALYZE;
SQL
}

restart() {
	as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
	as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w start >/dev/null
}

# Time one statement (ms); cold: restart the server first.
time_case() {
	local cold=$1 sql=$2 t0 t1
	[ "$cold" = cold ] && restart
	q -c "SELECT 1" >/dev/null
	t0=$(now_us)
	q -c "$sql" >/dev/null
	t1=$(now_us)
	echo "scale=1; ($t1 - $t0) / 1000" | bc
}

declare -a labels cases
cases=(
	"cold|SELECT count(*), sum(s) FROM history"
	"warm|SELECT count(*), sum(rating) FROM mm.glicko2_replay('SELECT a, b, s, t FROM history WHERE g < 1000000', '1 day')"
	"warm|BEGIN; SELECT count(*) FROM mm.tick('bench'); ROLLBACK"
)
names=("cold sequential scan, 2M rows" "glicko2_replay, 1M games" "tick, 20k rosters, 50 targets")
declare -A med mn
for cfg in $configs; do
	version=$("$cfg" --version | sed 's/^PostgreSQL //; s/ .*//')
	major=${version%%.*}
	echo "== $("$cfg" --version): mm built into a private copy" >&2
	copy=$(PG_CONFIG=$cfg bash test/pg_copy.sh "$work/pg-$major")
	rm -rf "$work/src"
	mkdir -p "$work/src"
	cp -a Makefile mm.control src sql "$work/src/"
	(cd "$work/src" && make -s PG_CONFIG="$copy" clean >/dev/null && make -s PG_CONFIG="$copy" >/dev/null 2>"$work/build.log" &&
		make -s PG_CONFIG="$copy" install >/dev/null 2>>"$work/build.log") || { cat "$work/build.log" >&2; exit 1; }
	bindir=$("$copy" --bindir)
	ios=("")
	[ "$major" -ge 18 ] && ios=(worker sync)
	for io in "${ios[@]}"; do
		label="$version${io:+ io_method=$io}"
		labels+=("$label")
		echo "== $label: setup" >&2
		start_cluster "$io"
		for c in "${!cases[@]}"; do
			: >"$work/times"
			for _ in $(seq "$runs"); do
				time_case "${cases[$c]%%|*}" "${cases[$c]#*|}" >>"$work/times"
			done
			med[$label,$c]=$(median <"$work/times")
			mn[$label,$c]=$(sort -n "$work/times" | head -1)
		done
		as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
	done
	rm -rf "$work/pg-$major"
done

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
echo "Machine: ${cpu:-unknown CPU}, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end; $(date -u +%Y-%m-%d);"
echo "fsync and synchronous_commit on, shared_buffers 32MB, no parallel workers; $runs runs each, median (min) ms;"
echo "ratio: ${labels[0]}'s median over the column's (above 1: faster than ${labels[0]})."
echo
printf '| case |'; for l in "${labels[@]}"; do printf ' %s |' "$l"; done; echo
printf '|---|'; for _ in "${labels[@]}"; do printf -- '---:|'; done; echo
for c in "${!cases[@]}"; do
	printf '| %s |' "${names[$c]}"
	for l in "${labels[@]}"; do
		printf ' %s (%s), %sx |' "${med[$l,$c]}" "${mn[$l,$c]}" "$(echo "scale=2; ${med[${labels[0]},$c]} / ${med[$l,$c]}" | bc)"
	done
	echo
done
