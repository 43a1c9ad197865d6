# Shared by test/bench/run.sh and its test (test/suites/bench_harness.sh):
# run one benchmark file and fail loudly. Needs $out (a writable folder).

# What a failing case prints: psql's and PostgreSQL's errors, node's.
error_pattern='(^|[^[:alnum:]_])(ERROR|FATAL|PANIC)([^[:alnum:]_]|$)|Error( \[|:)|ERR_[A-Z_]+'

# Run a case or setup file against a database; fail loudly (its output, a
# non-zero exit) when it exits non-zero or prints an error.
run_file() {
	local file=$1 db=$2 err=$out/last.err status=0
	case "$file" in
		*.sql) psql -X -q -d "$db" -v ON_ERROR_STOP=1 -f "$file" >/dev/null 2>"$err" || status=$? ;;
		*.sh) PGDATABASE=$db bash "$file" >/dev/null 2>"$err" || status=$? ;;
	esac
	if [ "$status" != 0 ] || grep -qE "$error_pattern" "$err"; then
		echo "bench: $file failed (exit status $status):" >&2
		cat "$err" >&2
		return 1
	fi
}

