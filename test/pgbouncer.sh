#!/usr/bin/env bash
# pgbouncer in transaction mode in front of one of mm's test clusters, as a
# game backend reaches PostgreSQL through a pooler (Debian's pgbouncer).
#
#   test/pgbouncer.sh start NAME [POOL_SIZE]   start it in front of cluster
#                                              NAME (test or bench); POOL_SIZE
#                                              server connections per database
#                                              and user (default 4)
#   test/pgbouncer.sh stop NAME                stop it (no error if not running)
#   test/pgbouncer.sh env NAME                 the PG* variables that reach the
#                                              databases through it
#   test/pgbouncer.sh available                exit 0 when pgbouncer is installed
#
# It listens on the pooler's port of the scheme (test/ports.sh, B+9) on a
# unix socket only, in its own folder MM_TMPDIR/mm-pgbouncer-NAME-PORT
# (config, log, pid file, socket), which holds the marker file: start
# refuses a folder it did not create, stop leaves one alone. pool_mode is
# transaction: each transaction gets whatever server connection is free,
# and nothing of a session survives from one transaction to the next. Any
# user of the cluster may log in (auth_type trust, as the clusters); the
# admin console (database "pgbouncer") answers user postgres. Run as root,
# pgbouncer runs as the postgres OS user, as the cluster does.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$here/test/ports.sh"

as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

bouncer=$(command -v pgbouncer || echo /usr/sbin/pgbouncer)

dir_of() {
	local port
	port=$(mm_port pooler) || exit 2
	case "$1" in
		test | bench) echo "$(mm_tmpdir)/mm-pgbouncer-$1-$port" ;;
		*) echo "pgbouncer.sh: unknown cluster name \"$1\" (test or bench)" >&2; exit 2 ;;
	esac
}

cmd_stop() {
	local dir pid
	dir=$(dir_of "$1")
	mm_ours "$dir" || return 0
	[ -f "$dir/pgbouncer.pid" ] || return 0
	pid=$(cat "$dir/pgbouncer.pid")
	# only the pgbouncer this folder's pid file names
	if [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = pgbouncer ]; then
		kill -TERM "$pid" 2>/dev/null || true
		for _ in $(seq 1 100); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.05
		done
	fi
	rm -f "$dir/pgbouncer.pid"
}

cmd_start() {
	local name=$1 size=${2:-4} dir port cluster_port cluster_dir
	[ -x "$bouncer" ] || { echo "pgbouncer.sh: pgbouncer is not installed (apt-get install pgbouncer)" >&2; exit 1; }
	dir=$(dir_of "$name")
	port=$(mm_port pooler)
	cluster_port=$(bash "$here/test/cluster.sh" port "$name")
	cluster_dir=$(bash "$here/test/cluster.sh" dir "$name")
	cmd_stop "$name"
	mm_claim "$dir" pgbouncer || exit 1
	# trust: the user must still be listed
	as_owner psql -X -At -h "$cluster_dir" -p "$cluster_port" -U postgres -d postgres \
		-c "SELECT format('\"%s\" \"\"', replace(rolname, '\"', '\"\"')) FROM pg_roles WHERE rolcanlogin" >"$dir/userlist.txt"
	cat >"$dir/pgbouncer.ini" <<INI
[databases]
* = host=$cluster_dir port=$cluster_port

[pgbouncer]
listen_addr =
listen_port = $port
unix_socket_dir = $dir
auth_type = trust
auth_file = $dir/userlist.txt
admin_users = postgres
pool_mode = transaction
default_pool_size = $size
max_client_conn = 200
server_lifetime = 3600
ignore_startup_parameters = extra_float_digits
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
INI
	if [ "$(id -u)" = 0 ]; then chown -R postgres: "$dir"; fi
	as_owner "$bouncer" -d -q "$dir/pgbouncer.ini" || { cat "$dir/pgbouncer.log" >&2; exit 1; }
	for _ in $(seq 1 100); do
		[ -S "$dir/.s.PGSQL.$port" ] && return 0
		sleep 0.05
	done
	echo "pgbouncer.sh: pgbouncer did not start" >&2
	cat "$dir/pgbouncer.log" >&2
	exit 1
}

# Refresh the users pgbouncer lets in (after a suite created login roles).
cmd_users() {
	local dir cluster_port cluster_dir
	dir=$(dir_of "$1")
	cluster_port=$(bash "$here/test/cluster.sh" port "$1")
	cluster_dir=$(bash "$here/test/cluster.sh" dir "$1")
	as_owner psql -X -At -h "$cluster_dir" -p "$cluster_port" -U postgres -d postgres \
		-c "SELECT format('\"%s\" \"\"', replace(rolname, '\"', '\"\"')) FROM pg_roles WHERE rolcanlogin" >"$dir/userlist.txt"
	as_owner psql -X -q -h "$dir" -p "$(mm_port pooler)" -U postgres -d pgbouncer -c "RELOAD" >/dev/null
}

case "${1:-}" in
	start) cmd_start "${2:?cluster name}" "${3:-4}" ;;
	stop) cmd_stop "${2:?cluster name}" ;;
	users) cmd_users "${2:?cluster name}" ;;
	env) echo "export PGHOST=$(dir_of "${2:?cluster name}") PGPORT=$(mm_port pooler) PGUSER=postgres" ;;
	available) [ -x "$bouncer" ] ;;
	*) echo "usage: test/pgbouncer.sh start NAME [POOL_SIZE]|stop NAME|users NAME|env NAME|available" >&2; exit 2 ;;
esac
