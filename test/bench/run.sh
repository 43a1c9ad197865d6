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
#                    compared with (ratio = baseline median / case median).
# MM_BENCH=NAME[,NAME] runs only those. Results go to test/bench/out/ (raw)
# and test/bench/results.md (the table, with the machine noted).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$here"
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
runs=${MM_BENCH_RUNS:-5}

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
failed_cases=()
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

# Time one run of a case file; print microseconds, or "failed" when the
# case exits with an error (a baseline that did not run is no baseline).
time_case() {
	local file=$1 db=$2 t0 t1 status=0
	t0=$(date +%s%N)
	case "$file" in
		*.sql) psql -X -q -d "$db" -v ON_ERROR_STOP=1 -f "$file" >/dev/null || status=$? ;;
		*.sh) PGDATABASE=$db bash "$file" >/dev/null || status=$? ;;
	esac
	t1=$(date +%s%N)
	if [ "$status" != 0 ]; then
		echo "bench: $file failed (exit status $status)" >&2
		echo failed
		return
	fi
	echo $(((t1 - t0) / 1000))
}

for dir in test/bench/*/; do
	name=$(basename "$dir")
	[ "$name" = out ] && continue
	if [ -n "${MM_BENCH:-}" ] && [[ ",$MM_BENCH," != *",$name,"* ]]; then
		continue
	fi
	db=bench_$name
	echo "== benchmark $name"
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
	psql -X -q -d "$db" -c "CREATE EXTENSION mm"
	if [ -f "$dir/setup.sql" ]; then
		psql -X -q -d "$db" -v ON_ERROR_STOP=1 -f "$dir/setup.sql" >/dev/null
	fi
	if [ -f "$dir/setup.sh" ]; then
		PGDATABASE=$db bash "$dir/setup.sh" >/dev/null
	fi
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
			samples+=("$(time_case "$file" "$db")")
		done
		if [[ " ${samples[*]} " == *" failed "* ]]; then
			failed_cases+=("$name/$case_name")
			median[$case_name]=failed
			minimum[$case_name]=failed
			printf '%s\t%s\n' "$case_name" "${samples[*]}" >>"$out/$name.raw"
			echo "   $case_name: FAILED"
			continue
		fi
		sorted=$(printf '%s\n' "${samples[@]}" | sort -n)
		median[$case_name]=$(echo "$sorted" | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}')
		minimum[$case_name]=$(echo "$sorted" | head -1)
		printf '%s\t%s\n' "$case_name" "${samples[*]}" >>"$out/$name.raw"
		echo "   $case_name: median $(awk "BEGIN {printf \"%.1f\", ${median[$case_name]} / 1000}") ms"
	done
	for case_name in "${cases[@]}"; do
		title=$(sed -n '1s/^\(--\|#\) *//p' "$dir/$case_name")
		if [ "${median[$case_name]}" = failed ]; then
			printf '| %s | %s | failed | failed | |\n' "$name" "${title:-$case_name}" >>"$results.tmp"
			continue
		fi
		ratio=""
		if [ -n "$baseline" ] && [ -n "${median[$baseline]:-}" ] && [ "${median[$baseline]}" != failed ]; then
			ratio=$(awk "BEGIN {printf \"%.2fx\", ${median[$baseline]} / ${median[$case_name]}}")
		fi
		printf '| %s | %s | %.1f | %.1f | %s |\n' "$name" "${title:-$case_name}" \
			"$(awk "BEGIN {print ${median[$case_name]} / 1000}")" \
			"$(awk "BEGIN {print ${minimum[$case_name]} / 1000}")" "$ratio" >>"$results.tmp"
	done
	unset median minimum
	psql -X -q -d postgres -c "DROP DATABASE $db"
done
mv "$results.tmp" "$results"
echo
cat "$results"
if [ ${#failed_cases[@]} -gt 0 ]; then
	echo "bench: failed cases: ${failed_cases[*]}" >&2
	exit 1
fi
