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


# Run a command as the cluster's owner (postgres when run as root, as CI is).
as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

# Ports and folders of mm's test servers (MM_PORT, MM_TMPDIR, the marker).
. "$(dirname "${BASH_SOURCE[0]}")/../ports.sh"

# For the standalone benchmark scripts: initdb and start a throwaway
# cluster in folder $1 on port $2 (unix socket only), with the extra
# postgresql.conf lines given on stdin; it is stopped and removed when the
# script exits. A folder at $1 that mm's test scripts did not create (no
# marker file) is refused and left alone. Needs $bindir; sets PGHOST, PGPORT
# and PGUSER.
throwaway_cluster() {
	local dir=$1 port=$2
	if mm_ours "$dir" && [ -f "$dir/data/postmaster.pid" ]; then
		as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
	fi
	mm_claim "$dir" bench || return 1
	as_owner "$bindir/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >/dev/null
	{
		echo "port = $port"
		echo "listen_addresses = ''"
		echo "unix_socket_directories = '$dir'"
		cat
	} >>"$dir/data/postgresql.conf"
	as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w start >/dev/null
	# shellcheck disable=SC2064 # the folder is fixed now
	trap "as_owner '$bindir/pg_ctl' -D '$dir/data' -m fast -w stop >/dev/null 2>&1 || true; rm -rf '$dir'" EXIT
	export PGHOST=$dir PGPORT=$port PGUSER=postgres
	# psql, pgbench... of the server's own version
	export PATH=$bindir:$PATH
}
