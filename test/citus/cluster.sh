#!/usr/bin/env bash
# A Citus cluster for mm's scale-out suite and benchmark: one coordinator and
# two workers on loopback TCP ports, each its own throwaway data directory.
#
#   test/citus/cluster.sh available     exit 0 when Citus is installed or can be
#                                       built; otherwise print why not, exit 1
#   test/citus/cluster.sh build         build and install Citus once (reused
#                                       when pg_config --pkglibdir has citus.so)
#   test/citus/cluster.sh start         (re)create and start the three nodes,
#                                       join the workers to the coordinator
#   test/citus/cluster.sh stop          stop the three nodes (no error if down)
#   test/citus/cluster.sh clean         stop them and remove their data
#   test/citus/cluster.sh env           print the PG* variables of the coordinator
#
# Ports: MM_CITUS_PORT (default 55450) is the coordinator, the next two are the
# workers. Data in /tmp/mm-citus-PORT. Run as root, the servers run as the
# postgres OS user. PG_CONFIG picks the PostgreSQL installation. The
# coordinator also loads pg_cron when it is installed.
#
# The source is Citus 13.2.2 (the last release for PostgreSQL 15), a tarball
# kept beside the repository in ../shared/citus with a one-line patch for
# PostgreSQL 15.20; MM_CITUS_SRC names another directory holding them. The
# build log goes to MM_CITUS_BUILD (default /tmp/mm-citus-build)/build.log.
set -euo pipefail

PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
base=${MM_CITUS_PORT:-55450}
ports=("$base" $((base + 1)) $((base + 2)))
build=${MM_CITUS_BUILD:-/tmp/mm-citus-build}
tarball=citus-13.2.2.tar.gz
deps=(build-essential liblz4-dev libzstd-dev libcurl4-openssl-dev libkrb5-dev)

as_owner() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

installed() {
	[ -f "$("$PG_CONFIG" --pkglibdir)/citus.so" ] && [ -f "$("$PG_CONFIG" --sharedir)/extension/citus.control" ]
}

# The directory holding the tarball: MM_CITUS_SRC, else shared/citus beside
# this clone, else beside the main clone when this is a git worktree.
source_dir() (
	local common
	for dir in "${MM_CITUS_SRC:-}" "$here/../shared/citus"; do
		[ -n "$dir" ] && [ -f "$dir/$tarball" ] && { cd "$dir" && pwd; return 0; }
	done
	common=$(git -C "$here" rev-parse --path-format=absolute --git-common-dir 2>/dev/null || true)
	if [ -n "$common" ] && [ -f "$common/../../shared/citus/$tarball" ]; then
		cd "$common/../../shared/citus" && pwd
		return 0
	fi
	return 1
)

cmd_available() {
	installed && return 0
	if ! source_dir >/dev/null; then
		echo "Citus is not installed in $("$PG_CONFIG" --pkglibdir) and its source ($tarball) is not in ../shared/citus or MM_CITUS_SRC"
		return 1
	fi
	if [ "$(id -u)" != 0 ]; then
		local missing=()
		for p in "${deps[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
		if [ ${#missing[@]} -gt 0 ]; then
			echo "building Citus needs ${missing[*]} (run as root to install them)"
			return 1
		fi
	fi
	return 0
}

cmd_build() {
	installed && return 0
	local src missing=()
	src=$(source_dir) || { echo "cluster.sh: no Citus source" >&2; exit 1; }
	for p in "${deps[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
	rm -rf "$build"
	mkdir -p "$build"
	echo "building Citus from $src (log: $build/build.log)"
	{
		if [ ${#missing[@]} -gt 0 ]; then
			export DEBIAN_FRONTEND=noninteractive
			apt-get update -q && apt-get install -y -q --no-install-recommends "${missing[@]}"
		fi
		tar -xzf "$src/$tarball" -C "$build"
		cd "$build"/citus-*/
		for patch in "$src"/*.patch; do
			[ -e "$patch" ] && patch -p1 <"$patch"
		done
		./configure PG_CONFIG="$PG_CONFIG"
		nice make -j"$(nproc)"
		make install
	} >"$build/build.log" 2>&1 || { echo "cluster.sh: the Citus build failed, see $build/build.log" >&2; exit 1; }
}

cmd_stop() {
	local bindir port
	bindir=$("$PG_CONFIG" --bindir)
	for port in "${ports[@]}"; do
		if [ -f "/tmp/mm-citus-$port/data/postmaster.pid" ]; then
			as_owner "$bindir/pg_ctl" -D "/tmp/mm-citus-$port/data" -m immediate -w stop >/dev/null 2>&1 || true
		fi
	done
}

start_node() {
	local port=$1 dir=/tmp/mm-citus-$1 bindir
	bindir=$("$PG_CONFIG" --bindir)
	rm -rf "$dir"
	mkdir -p "$dir"
	[ "$(id -u)" = 0 ] && chown postgres: "$dir"
	as_owner "$bindir/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
		|| { cat "$dir/initdb.log" >&2; exit 1; }
	cat >>"$dir/data/postgresql.conf" <<CONF
# mm Citus node
port = $port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$dir'
shared_preload_libraries = 'citus'
citus.enable_statistics_collection = off
max_connections = 100
max_worker_processes = 16
shared_buffers = 256MB
work_mem = 64MB
maintenance_work_mem = 256MB
fsync = ${MM_CITUS_FSYNC:-off}
synchronous_commit = ${MM_CITUS_FSYNC:-off}
full_page_writes = ${MM_CITUS_FSYNC:-off}
lc_messages = 'C'
log_min_messages = warning
CONF
	# pg_cron on the coordinator, when installed: it drives the queues' ticks
	if [ "$port" = "${ports[0]}" ] && [ -f "$("$PG_CONFIG" --pkglibdir)/pg_cron.so" ]; then
		cat >>"$dir/data/postgresql.conf" <<CONF
shared_preload_libraries = 'citus,pg_cron'
cron.database_name = 'postgres'
cron.host = '127.0.0.1'
CONF
	fi
	as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null \
		|| { cat "$dir/server.log" >&2; exit 1; }
}

cmd_start() {
	local port
	cmd_stop
	for port in "${ports[@]}"; do
		start_node "$port"
		psql -X -q -h 127.0.0.1 -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 \
			-c "SET client_min_messages = warning" -c "CREATE EXTENSION citus" >/dev/null
	done
	psql -X -q -h 127.0.0.1 -p "${ports[0]}" -U postgres -d postgres -v ON_ERROR_STOP=1 >/dev/null <<SQL
SET client_min_messages = warning;
SELECT citus_set_coordinator_host('127.0.0.1', ${ports[0]});
SELECT citus_add_node('127.0.0.1', ${ports[1]});
SELECT citus_add_node('127.0.0.1', ${ports[2]});
SQL
}

cmd_env() {
	echo "export PGHOST=127.0.0.1 PGPORT=${ports[0]} PGUSER=postgres MM_CITUS_WORKERS='${ports[1]} ${ports[2]}'"
}

case "${1:-}" in
	available) cmd_available ;;
	build) cmd_build ;;
	start) cmd_start ;;
	stop) cmd_stop ;;
	clean) cmd_stop; for port in "${ports[@]}"; do rm -rf "/tmp/mm-citus-$port"; done ;;
	env) cmd_env ;;
	*) echo "usage: test/citus/cluster.sh available|build|start|stop|clean|env" >&2; exit 2 ;;
esac
