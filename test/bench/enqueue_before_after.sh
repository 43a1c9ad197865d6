#!/usr/bin/env bash
# Concurrent enqueue and leave on two versions of mm side by side: 8 pgbench
# clients, each transaction one mm.enqueue of a solo roster (a new player)
# or one mm.leave of it, on a queue of 2,000 waiting rosters, on durable
# clusters (fsync, synchronous_commit and full_page_writes on). The event
# feed adds an event row to both calls, and the counters of
# mm.queue_metrics must add no row that concurrent calls share: the
# throughput must stay within 10% of the version before.
#
#   bash test/bench/enqueue_before_after.sh BEFORE [AFTER]
#
# BEFORE and AFTER are git revisions (AFTER defaults to HEAD; WORKTREE is the
# work tree as it is), each built into a private copy of the PostgreSQL
# installation (test/pg_copy.sh) and served by its own cluster: bench (B+2)
# for BEFORE, crash (B+3) for AFTER, both running at once. MM_ROUNDS rounds
# (default 5) of MM_SECONDS seconds (default 15) per version, in alternating
# order; prints each version's median transactions per second and the ratio
# after / before.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$here"
before_rev=${1:?usage: test/bench/enqueue_before_after.sh BEFORE [AFTER]}
after_rev=${2:-HEAD}
rounds=${MM_ROUNDS:-5}
seconds=${MM_SECONDS:-15}
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
. test/ports.sh
work=$(mktemp -d "$(mm_tmpdir)"/mm-enqueue-ba.XXXXXX)
chmod 755 "$work"

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

# run a command with version v's cluster in PG*
on() {
	local v=$1
	shift
	(eval "$(PG_CONFIG=${config[$v]} bash "$here/test/cluster.sh" env "${cluster[$v]}")"
	 export PGHOST PGPORT PGUSER
	 "$@")
}

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
	(cd "$work/$v/src" && make -s PG_CONFIG="${config[$v]}" >/dev/null 2>"$work/$v/build.log" &&
		make -s PG_CONFIG="${config[$v]}" install >/dev/null 2>>"$work/$v/build.log") ||
		{ cat "$work/$v/build.log"; echo "enqueue_before_after: building $v failed" >&2; exit 1; }
	PG_CONFIG=${config[$v]} bash test/cluster.sh start "${cluster[$v]}" >/dev/null
	on "$v" psql -X -q -d postgres -c "CREATE DATABASE bench_enqueue" >/dev/null
	on "$v" psql -X -q -d bench_enqueue -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
CREATE EXTENSION mm;
SELECT mm.create_queue('busy', '{"filter": {"potentials_min": 5}}');
SELECT count(mm.enqueue('busy', ARRAY[900000000 + p], 1300 + random() * 400, 50)) FROM generate_series(1, 2000) p;
VACUUM ANALYZE;
SQL
done

# each client its own players (:client_id), a new one each time
cat >"$work/enqueue.pgbench" <<'EOF'
\set p (:client_id + 1) * 100000000 + random(1, 99999999)
SELECT mm.enqueue('busy', ARRAY[:p]::bigint[], 1500, 50) AS r \gset
SELECT mm.leave(:r);
EOF
bindir=$("$PG_CONFIG" --bindir)
declare -A tps
for r in $(seq 1 "$rounds"); do
	order="before after"
	[ $((r % 2)) = 0 ] && order="after before"
	for v in $order; do
		t=$(on "$v" "$bindir/pgbench" -n -c 8 -j 4 -T "$seconds" -f "$work/enqueue.pgbench" bench_enqueue 2>&1 |
			sed -n 's/^tps = \([0-9.]*\) .*/\1/p')
		tps[$v]+="$t "
		echo "   round $r $v: $t transactions (enqueue + leave) per second"
	done
done
median() {
	tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2] + a[NR/2+1]) / 2}'
}
b=$(echo "${tps[before]}" | median)
a=$(echo "${tps[after]}" | median)
short() { if [ "$1" = WORKTREE ]; then echo "the work tree"; else git rev-parse --short "$1"; fi; }
echo
echo "before: $before_rev ($(short "$before_rev")), after: $after_rev ($(short "$after_rev"))"
echo "$rounds rounds of ${seconds} s, 8 clients, durable clusters (fsync, synchronous_commit, full_page_writes on), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "enqueue + leave per second: before $b, after $a, after / before $(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.3f", a / b}')"
