#!/usr/bin/env bash
# A Citus cluster for mm's scale-out suite and benchmark: one coordinator and
# two workers on loopback TCP ports, each its own throwaway data directory.
#
#   test/citus/cluster.sh available     exit 0 when Citus is installed in the
#                                       PostgreSQL that PG_CONFIG names; otherwise
#                                       print why not and exit 1
#   test/citus/cluster.sh start         (re)create and start the three nodes,
#                                       join the workers to the coordinator
#   test/citus/cluster.sh start-extra   (re)create and start a fourth node with
#                                       Citus, not yet added (the worker the
#                                       scale-out suite adds later)
#   test/citus/cluster.sh stop          stop the nodes (no error if down)
#   test/citus/cluster.sh clean         stop them and remove their data
#   test/citus/cluster.sh env           print the PG* variables of the coordinator
#   test/citus/cluster.sh stop-node P   stop the worker on port P (fast)
#   test/citus/cluster.sh start-node P  start it again
#
# Ports derive from the base MM_PORT (test/ports.sh): the coordinator is
# MM_PORT+6, the workers MM_PORT+7 and MM_PORT+8, the extra node MM_PORT+9,
# on 127.0.0.1. Data in
# MM_TMPDIR (default /tmp)/mm-citus-PORT. start, stop and clean touch only
# folders that start created (marker file .mm-cluster): start refuses to
# begin when any of the three paths holds something else, stop and clean
# leave it alone. Run as root, the servers run as the postgres OS user.
# PG_CONFIG picks the PostgreSQL installation. The coordinator also loads
# pg_cron when it is installed.
#
# Citus is a dependency the DBA installs (docs/scaling.md: Citus's own
# packages for PostgreSQL 15); this script never builds or installs it.
set -euo pipefail

PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$here/test/ports.sh"
base=$(mm_port citus) || exit 2
ports=("$base" $((base + 1)) $((base + 2)))
extra=$((base + 3))
tmp=$(mm_tmpdir)

as_owner() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

# Installed in the PostgreSQL that PG_CONFIG names: the library and the
# control file where CREATE EXTENSION looks for them.
cmd_available() {
	local lib control
	lib=$("$PG_CONFIG" --pkglibdir)/citus.so
	control=$("$PG_CONFIG" --sharedir)/extension/citus.control
	if [ -f "$lib" ] && [ -f "$control" ]; then
		return 0
	fi
	if [ ! -f "$lib" ]; then
		echo "Citus is not installed in the PostgreSQL of $PG_CONFIG (no $lib); docs/scaling.md says how to install it"
	else
		echo "Citus is not installed in the PostgreSQL of $PG_CONFIG (no $control); docs/scaling.md says how to install it"
	fi
	return 1
}

cmd_stop() {
	local bindir port
	bindir=$("$PG_CONFIG" --bindir)
	for port in "${ports[@]}" "$extra"; do
		mm_ours "$tmp/mm-citus-$port" || continue
		if [ -f "$tmp/mm-citus-$port/data/postmaster.pid" ]; then
			as_owner "$bindir/pg_ctl" -D "$tmp/mm-citus-$port/data" -m immediate -w stop >/dev/null 2>&1 || true
		fi
	done
}

cmd_clean() {
	local port
	cmd_stop
	for port in "${ports[@]}" "$extra"; do
		if mm_ours "$tmp/mm-citus-$port"; then
			rm -rf "$tmp/mm-citus-$port"
		fi
	done
}

start_node() {
	local port=$1 dir=$tmp/mm-citus-$1 bindir
	bindir=$("$PG_CONFIG" --bindir)
	mm_claim "$dir" citus || exit 1
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
	# Nothing is stopped or started while any of the three paths holds a
	# folder these scripts did not create.
	for port in "${ports[@]}"; do
		if [ -e "$tmp/mm-citus-$port" ] && ! mm_ours "$tmp/mm-citus-$port"; then
			echo "cluster.sh: $tmp/mm-citus-$port exists but was not created by mm's test scripts; leaving it alone" >&2
			echo "HINT: remove it yourself, or pick another base with MM_PORT or MM_TMPDIR." >&2
			exit 1
		fi
	done
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

# The extra node: started with Citus, not added to the cluster.
cmd_start_extra() {
	local dir=$tmp/mm-citus-$extra bindir
	bindir=$("$PG_CONFIG" --bindir)
	if [ -e "$dir" ] && ! mm_ours "$dir"; then
		echo "cluster.sh: $dir exists but was not created by mm's test scripts; leaving it alone" >&2
		exit 1
	fi
	if mm_ours "$dir" && [ -f "$dir/data/postmaster.pid" ]; then
		as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
	fi
	start_node "$extra"
	psql -X -q -h 127.0.0.1 -p "$extra" -U postgres -d postgres -v ON_ERROR_STOP=1 \
		-c "SET client_min_messages = warning" -c "CREATE EXTENSION citus" >/dev/null
}

# One worker stopped (fast shutdown) and started again with its data, for
# the suite's check that a queue's calls on one worker do not need the
# other; only a node start created.
cmd_node() {
	local what=$1 port=$2 bindir dir
	bindir=$("$PG_CONFIG" --bindir)
	dir=$tmp/mm-citus-$port
	if [ "$port" != "${ports[1]}" ] && [ "$port" != "${ports[2]}" ] || ! mm_ours "$dir"; then
		echo "cluster.sh: $port is not a worker of this cluster" >&2
		exit 2
	fi
	if [ "$what" = stop ]; then
		as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
	else
		as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null \
			|| { cat "$dir/server.log" >&2; exit 1; }
	fi
}

cmd_env() {
	echo "export PGHOST=127.0.0.1 PGPORT=${ports[0]} PGUSER=postgres MM_CITUS_WORKERS='${ports[1]} ${ports[2]}' MM_CITUS_EXTRA=$extra"
}

case "${1:-}" in
	available) cmd_available ;;
	start) cmd_start ;;
	start-extra) cmd_start_extra ;;
	stop) cmd_stop ;;
	clean) cmd_clean ;;
	env) cmd_env ;;
	stop-node) cmd_node stop "${2:?port}" ;;
	start-node) cmd_node start "${2:?port}" ;;
	*) echo "usage: test/citus/cluster.sh available|start|start-extra|stop|clean|env|stop-node PORT|start-node PORT" >&2; exit 2 ;;
esac
