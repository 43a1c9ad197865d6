#!/usr/bin/env bash
# Throwaway PostgreSQL clusters for mm's test, demo and bench commands.
#
#   test/cluster.sh deps            install what is missing (as root, via apt-get,
#                                   for Debian's packages only; any other
#                                   PG_CONFIG is checked, never installed into)
#   test/cluster.sh build           build with COPT=-Werror and install the extension
#   test/cluster.sh start NAME      (re)create and start cluster NAME
#   test/cluster.sh stop NAME       stop cluster NAME (no error if not running)
#   test/cluster.sh env NAME        print the PG* variables that reach it, and
#                                   PATH with PG_CONFIG's programs first
#   test/cluster.sh port NAME       print its port (NAME may also be replica,
#                                   citus or upgrade: the first port of those)
#   test/cluster.sh dir NAME        print its data directory's folder
#
# NAME is test, demo, bench or crash. Ports and folders derive from one base
# port and one base folder (test/ports.sh has the whole scheme):
#
#   MM_PORT    base port B, default 54329. A run uses B to B+9: test B, demo
#              B+1, bench B+2, crash B+3, the replica suite's primary and
#              standby B+4 and B+5, the Citus coordinator and workers B+6 to
#              B+8 (test/citus/cluster.sh), the server upgrade suite's
#              B+9. Give two runs on one host bases
#              at least 10 apart.
#   MM_TMPDIR  base folder, default /tmp: every cluster's folder is
#              MM_TMPDIR/mm-pg-NAME-PORT (data/, server.log and the unix
#              socket). Run as root, it must be reachable by the postgres
#              OS user.
#
# start and stop touch only folders that start created (they hold the
# marker file .mm-cluster); start refuses anything else at that path, stop
# leaves it alone. The server listens on no TCP address. test and demo run
# with fsync, synchronous_commit and full_page_writes off (fast, for
# correctness suites that never crash the machine); bench and crash with all
# three on, as PostgreSQL's defaults: writes are measured, and crashes
# tested, durably. Run as root, the server runs as the postgres OS user.
# PG_CONFIG picks the PostgreSQL installation: Debian's packages of
# PostgreSQL 15 by default, or any installation of 15 to 18 (docs/development.md,
# "Other PostgreSQL versions"); its own programs run the clusters.
set -euo pipefail

PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

. "$here/test/ports.sh"

port_of() {
	case "$1" in
		test | demo | bench | crash) mm_port "$1" || exit 2 ;;
		*) echo "cluster.sh: unknown cluster name \"$1\" (test, demo, bench or crash)" >&2; exit 2 ;;
	esac
}

dir_of() {
	local port
	port=$(port_of "$1") || exit 2
	echo "$(mm_tmpdir)/mm-pg-$1-$port"
}

# Run a command as the cluster's OS user.
as_owner() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

# The major version N when PG_CONFIG is the pg_config of Debian's packages
# (/usr/lib/postgresql/N/bin/pg_config, the default: N = 15); fails for any
# other installation, such as PostgreSQL built from source under a prefix.
debian_major() {
	local n
	case "$PG_CONFIG" in
		/usr/lib/postgresql/*/bin/pg_config) ;;
		*) return 1 ;;
	esac
	n=${PG_CONFIG#/usr/lib/postgresql/}
	n=${n%%/*}
	case "$n" in '' | *[!0-9]*) return 1 ;; esac
	echo "$n"
}

# What a PostgreSQL installation built from source must hold for make test
# (configure ... && make world-bin && make install-world-bin, then pg_cron
# built and installed with its pg_config): prints each missing piece.
missing_in_installation() {
	local bindir pkglibdir sharedir incdir pgxs prog
	if [ ! -x "$PG_CONFIG" ]; then
		echo "$PG_CONFIG (no such executable)"
		return
	fi
	bindir=$("$PG_CONFIG" --bindir)
	pkglibdir=$("$PG_CONFIG" --pkglibdir)
	sharedir=$("$PG_CONFIG" --sharedir)
	incdir=$("$PG_CONFIG" --includedir-server)
	pgxs=$(dirname "$("$PG_CONFIG" --pgxs)")/../..
	for prog in postgres initdb pg_ctl psql pg_dump pg_restore pgbench pg_basebackup pg_upgrade; do
		[ -x "$bindir/$prog" ] || echo "$bindir/$prog"
	done
	[ -f "$incdir/postgres.h" ] || echo "$incdir/postgres.h (the server headers)"
	for prog in src/test/regress/pg_regress src/test/isolation/pg_isolation_regress src/test/isolation/isolationtester; do
		[ -x "$pgxs/$prog" ] || echo "$(cd "$pgxs" && pwd)/$prog (make world-bin installs it)"
	done
	for lib in pg_cron amcheck pg_walinspect; do
		[ -f "$pkglibdir/$lib.so" ] && [ -f "$sharedir/extension/$lib.control" ] ||
			echo "$lib in $pkglibdir and $sharedir/extension"
	done
}

# Install what is missing. For Debian's packages (PG_CONFIG under
# /usr/lib/postgresql/N/bin), as root with apt-get: postgresql-N, its server
# development package and pg_cron. Any other installation is the caller's:
# nothing is installed into it and apt-get is never run; what it lacks is
# listed and the command fails.
cmd_deps() {
	local need=() major missing
	if ! major=$(debian_major); then
		missing=$(missing_in_installation)
		command -v make >/dev/null || missing+=$'\n'"make"
		command -v gcc >/dev/null || missing+=$'\n'"gcc"
		command -v python3 >/dev/null || missing+=$'\n'"python3 (the fuzz suite's client)"
		missing=$(echo "$missing" | sed '/^$/d')
		[ -z "$missing" ] && return 0
		echo "cluster.sh: the PostgreSQL installation of $PG_CONFIG lacks:" >&2
		echo "$missing" | sed 's/^/  /' >&2
		echo "HINT: it is not Debian's (/usr/lib/postgresql/N/bin/pg_config), so nothing is installed into it; docs/development.md says what a source build needs." >&2
		exit 1
	fi
	[ -x "/usr/lib/postgresql/$major/bin/postgres" ] || need+=("postgresql-$major")
	[ -x "/usr/lib/postgresql/$major/bin/pg_config" ] && [ -f "/usr/include/postgresql/$major/server/postgres.h" ] \
		|| need+=("postgresql-server-dev-$major")
	[ -f "/usr/lib/postgresql/$major/lib/pg_cron.so" ] || need+=("postgresql-$major-cron")
	command -v make >/dev/null && command -v gcc >/dev/null || need+=(make gcc)
	# the fuzz suite's client
	command -v python3 >/dev/null || need+=(python3)
	# the pooler and monitoring suites' tools: pgbouncer, the backends'
	# driver (Debian's python3, not another python on the PATH), the
	# Prometheus exporter and promtool
	command -v pgbouncer >/dev/null || [ -x /usr/sbin/pgbouncer ] || need+=(pgbouncer)
	[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import psycopg2' 2>/dev/null || need+=(python3-psycopg2)
	command -v prometheus-postgres-exporter >/dev/null || need+=(prometheus-postgres-exporter)
	command -v promtool >/dev/null || need+=(prometheus)
	if [ ${#need[@]} -eq 0 ]; then
		return 0
	fi
	if [ "$(id -u)" != 0 ]; then
		echo "cluster.sh: missing packages: ${need[*]}" >&2
		echo "HINT: run as root, or: sudo apt-get install ${need[*]}" >&2
		exit 1
	fi
	echo "== installing ${need[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	# Debian's postinst creates and starts a "main" cluster on 5432; ours
	# use their own ports and directories, so it does not matter.
	apt-get install -y -q --no-install-recommends "${need[@]}"
}

cmd_build() {
	cd "$here"
	make -s PG_CONFIG="$PG_CONFIG" clean >/dev/null
	# -Werror here only, not in the default build (packagers' compilers
	# warn differently); COPT is PostgreSQL's switch for extra flags.
	make -s PG_CONFIG="$PG_CONFIG" COPT=-Werror
	make -s PG_CONFIG="$PG_CONFIG" COPT=-Werror install >/dev/null
}

# A cluster directory this script created carries the marker file of
# test/ports.sh (or, made by an older version of the script, the comment
# line it writes into postgresql.conf); the script never stops or removes
# any other directory.
ours() {
	mm_ours "$1" || grep -qs '^# mm throwaway cluster$' "$1/data/postgresql.conf"
}

cmd_stop() {
	local name=$1 dir bindir
	dir=$(dir_of "$name")
	bindir=$("$PG_CONFIG" --bindir)
	ours "$dir" || return 0
	if [ -f "$dir/data/postmaster.pid" ]; then
		as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
	fi
}

# The durability settings of a cluster (see the top of this file).
durability() {
	case "$1" in
		bench | crash) printf 'fsync = on\nsynchronous_commit = on\nfull_page_writes = on\n' ;;
		*) printf 'fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n' ;;
	esac
}

cmd_start() {
	local name=$1 port dir bindir
	port=$(port_of "$name")
	dir=$(dir_of "$name")
	bindir=$("$PG_CONFIG" --bindir)
	# Leftovers of an earlier run of this script: stop and remove them.
	# Anything else at that path is not ours to remove.
	if [ -e "$dir" ] && ! ours "$dir"; then
		echo "cluster.sh: $dir exists but was not created by test/cluster.sh; leaving it alone" >&2
		echo "HINT: remove it yourself, or pick another base with MM_PORT or MM_TMPDIR." >&2
		exit 1
	fi
	cmd_stop "$name"
	rm -rf "$dir"
	mkdir -p "$dir"
	echo "$name" >"$dir/$mm_marker"
	if [ "$(id -u)" = 0 ]; then chown postgres: "$dir"; fi
	as_owner "$bindir/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
		|| { cat "$dir/initdb.log" >&2; exit 1; }
	cat >>"$dir/data/postgresql.conf" <<CONF
# mm throwaway cluster
port = $port
listen_addresses = ''
unix_socket_directories = '$dir'
shared_preload_libraries = 'pg_cron'
cron.database_name = 'postgres'
max_connections = 60
$(durability "$name")
max_worker_processes = 16
max_parallel_workers = 8
max_parallel_workers_per_gather = 2
shared_buffers = 256MB
work_mem = 64MB
maintenance_work_mem = 256MB
lc_messages = 'C'
log_min_messages = warning
CONF
	as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null \
		|| { cat "$dir/server.log" >&2; exit 1; }
}

# The variables that reach cluster NAME, and PATH with PG_CONFIG's programs
# first: psql, pg_dump, pgbench... of the server's own version (Debian's
# /usr/bin/psql is a wrapper that picks the newest client installed, and a
# pg_dump older than the server refuses to dump it).
cmd_env() {
	local name=$1 port dir bindir
	port=$(port_of "$name")
	dir=$(dir_of "$name")
	bindir=$("$PG_CONFIG" --bindir)
	echo "export PGHOST=$dir PGPORT=$port PGUSER=postgres"
	echo "export PATH=$bindir:\$PATH"
}

case "${1:-}" in
	deps) cmd_deps ;;
	build) cmd_build ;;
	start) cmd_start "${2:?cluster name}" ;;
	stop) cmd_stop "${2:?cluster name}" ;;
	env) cmd_env "${2:?cluster name}" ;;
	port)
		case "${2:?cluster name}" in
			replica | citus | upgrade) mm_port "$2" || exit 2 ;;
			*) port_of "$2" ;;
		esac
		;;
	dir) dir_of "${2:?cluster name}" ;;
	*) echo "usage: test/cluster.sh deps|build|start NAME|stop NAME|env NAME|port NAME|dir NAME" >&2; exit 2 ;;
esac
