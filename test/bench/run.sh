#!/usr/bin/env bash
# make bench: run every benchmark under test/bench/ and write a results table.
#
# A benchmark is a folder test/bench/NAME/ with
#   setup.sql        run once against a fresh database bench_NAME (untimed);
#   NN_case.sql      each timed: run MM_BENCH_RUNS times (default 5) with
#                    psql, wall time per run; the first line's comment names
#                    the case;
#   NN_case.sh       likewise, for a baseline outside the database (node...);
#                    it gets PGHOST/PGPORT/PGUSER/PGDATABASE and MM_ROOT;
#   baseline         optional: the file name of the case the others are
#                    compared with (ratio = baseline median / case median);
#   requires.sh      optional, run first: when it fails, the benchmark is
#                    skipped and its output says why (e.g. no Citus);
#   teardown.sh      optional, run after the cases with PGDATABASE set (e.g.
#                    to stop servers that setup.sh started, or to check
#                    what the cases wrote: a non-zero exit stops the run).
# MM_BENCH=NAME[,NAME] runs only those. Results go to test/bench/out/ (raw)
# and test/bench/results.md (the table, with the machine noted).
#
# The node baselines import their packages from test/node/node_modules; when
# it is missing or older than the lockfile, "npm ci" installs exactly what
# test/node/package-lock.json pins. Any case, setup or baseline that exits
# non-zero or prints an error stops the run with its output: a failing
# baseline never becomes a ratio.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$here"
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
runs=${MM_BENCH_RUNS:-5}

# Selected benchmark folders.
selected() {
	local dir name
	for dir in test/bench/*/; do
		name=$(basename "$dir")
		[ "$name" = out ] && continue
		if [ -n "${MM_BENCH:-}" ] && [[ ",$MM_BENCH," != *",$name,"* ]]; then
			continue
		fi
		echo "$dir"
	done
}

# Install the node baselines' packages from the lockfile when a selected
# benchmark has a node case and they are missing or stale.
node_packages() {
	local dir need=0 stamp=test/node/node_modules/.package-lock.json
	for dir in $(selected); do
		if ls "$dir"*.mjs >/dev/null 2>&1; then
			need=1
		fi
	done
	[ "$need" = 1 ] || return 0
	if [ -f "$stamp" ] && [ ! test/node/package-lock.json -nt "$stamp" ]; then
		return 0
	fi
	if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
		echo "bench: the node baselines need node and npm (apt-get install nodejs npm)" >&2
		exit 1
	fi
	echo "== npm ci in test/node (the baselines' packages, from the lockfile)"
	if ! (cd test/node && npm ci --no-audit --no-fund); then
		echo "bench: npm ci in test/node failed; the node baselines cannot run" >&2
		exit 1
	fi
}

node_packages
bash test/cluster.sh deps
echo "== build and install"
bash test/cluster.sh build
echo "== start the bench cluster"
bash test/cluster.sh start bench
trap 'bash test/cluster.sh stop bench' EXIT
eval "$(bash test/cluster.sh env bench)"
export PGHOST PGPORT PGUSER MM_ROOT=$here

out=test/bench/out
mkdir -p "$out"
# run_file: run a case or setup file, failing loudly.
. test/bench/lib.sh
results=test/bench/results.md
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
{
	echo "# Benchmark results"
	echo
	echo "Machine: ${cpu:-unknown CPU}, $(nproc) cores, $(free -g | awk '/^Mem:/ {print $2}') GiB;" \
		"PostgreSQL $(psql -X -At -d postgres -c "SHOW server_version");" \
		"$(date -u +%Y-%m-%d). Each case run $runs times; median and min of wall time."
	echo
	# the bench cluster is durable (test/cluster.sh): say so from the server
	echo "Durability: $(psql -X -At -d postgres -c "SELECT string_agg(name || ' = ' || setting, ', ' ORDER BY name) FROM pg_settings WHERE name IN ('fsync', 'full_page_writes', 'synchronous_commit', 'wal_level')")."
	echo
	echo "| benchmark | case | median ms | min ms | ratio vs baseline |"
	echo "|---|---|---:|---:|---:|"
} >"$results.tmp"

# Time one run of a case file; print microseconds.
time_case() {
	local file=$1 db=$2 t0 t1
	t0=$(date +%s%N)
	run_file "$file" "$db" || return 1
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000))
}

for dir in $(selected); do
	name=$(basename "$dir")
	db=bench_$name
	echo "== benchmark $name"
	if [ -f "$dir/requires.sh" ] && ! why=$(bash "$dir/requires.sh" 2>&1); then
		echo "   SKIP: $why"
		echo "| $name | skipped: $why | | | |" >>"$results.tmp"
		continue
	fi
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
	psql -X -q -d "$db" -c "CREATE EXTENSION mm"
	for setup in "$dir/setup.sql" "$dir/setup.sh"; do
		if [ -f "$setup" ]; then
			run_file "$setup" "$db" || exit 1
		fi
	done
	baseline=$(cat "$dir/baseline" 2>/dev/null || true)
	declare -A median=()
	declare -A minimum=()
	cases=()
	for file in "$dir"/[0-9]*.sql "$dir"/[0-9]*.sh; do
		[ -e "$file" ] || continue
		case_name=$(basename "$file")
		cases+=("$case_name")
		samples=()
		for _ in $(seq "$runs"); do
			sample=$(time_case "$file" "$db") || exit 1
			samples+=("$sample")
		done
		sorted=$(printf '%s\n' "${samples[@]}" | sort -n)
		median[$case_name]=$(echo "$sorted" | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}')
		minimum[$case_name]=$(echo "$sorted" | head -1)
		printf '%s\t%s\n' "$case_name" "${samples[*]}" >>"$out/$name.raw"
		echo "   $case_name: median $(awk "BEGIN {printf \"%.1f\", ${median[$case_name]} / 1000}") ms"
	done
	for case_name in "${cases[@]}"; do
		title=$(sed -n '1s/^\(--\|#\) *//p' "$dir/$case_name")
		ratio=""
		if [ -n "$baseline" ] && [ -n "${median[$baseline]:-}" ]; then
			ratio=$(awk "BEGIN {printf \"%.2fx\", ${median[$baseline]} / ${median[$case_name]}}")
		fi
		printf '| %s | %s | %.1f | %.1f | %s |\n' "$name" "${title:-$case_name}" \
			"$(awk "BEGIN {print ${median[$case_name]} / 1000}")" \
			"$(awk "BEGIN {print ${minimum[$case_name]} / 1000}")" "$ratio" >>"$results.tmp"
	done
	unset median minimum
	if [ -f "$dir/teardown.sh" ]; then
		PGDATABASE=$db bash "$dir/teardown.sh" >/dev/null
	fi
	psql -X -q -d postgres -c "DROP DATABASE $db"
done
mv "$results.tmp" "$results"
bash test/plots.sh bench "$out"
echo
cat "$results"
