#!/usr/bin/env bash
# make test as a good neighbour: two runs on one host with different bases
# (MM_PORT, MM_TMPDIR; test/ports.sh) do not disturb each other.
#
#   1. The scheme: every port a run uses derives from its base (B to B+9),
#      the servers' ports are distinct, and two bases 10 apart share no
#      port; every data folder is under MM_TMPDIR. No script under test/
#      names a fixed port or a fixed /tmp path of its own.
#   2. A second run's cluster (base B+10, its own MM_TMPDIR) starts while
#      this run's cluster is up; both answer, each on its own port and
#      folder; stopping the second leaves the first running.
#   3. Someone else's folders at every path a run with that base would use
#      (one of them a running server): test/cluster.sh, test/citus/cluster.sh,
#      the replica suite and the benchmarks' throwaway_cluster refuse to
#      start there and their stop / clean leave them alone.
#
# Needs the running test cluster (PGHOST, PGPORT) and PG_CONFIG; starts two
# unix-socket-only servers of its own for a few seconds.
# TAP lines "ok - ..." / "not ok - ...".
set -uo pipefail
cd "${MM_ROOT:?}"
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
bindir=$("$PG_CONFIG" --bindir)
fail=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }
as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
. test/ports.sh

base=$(mm_base) || exit 1
other=$((base + 10))
priv=$(mktemp -d "$(mm_tmpdir)/mm-neighbours.XXXXXX")
chmod 755 "$priv"
second=$priv/second   # MM_TMPDIR of the second run
foreign=$priv/foreign # MM_TMPDIR holding someone else's folders
mkdir -p "$second" "$foreign"
chmod 755 "$second" "$foreign"
foreign_dir=""
cleanup() {
	MM_PORT=$other MM_TMPDIR=$second bash test/cluster.sh stop test >/dev/null 2>&1
	if [ -n "$foreign_dir" ] && [ -f "$foreign_dir/data/postmaster.pid" ]; then
		as_owner "$bindir/pg_ctl" -D "$foreign_dir/data" -m immediate -w stop >/dev/null 2>&1
	fi
	rm -rf "$priv"
}
trap cleanup EXIT

# ---- 1. the scheme
# ports_of BASE: every port a run with that base uses, one per line.
ports_of() {
	local kind p
	for kind in test demo bench crash; do
		MM_PORT=$1 bash test/cluster.sh port "$kind" || return 1
	done
	p=$(MM_PORT=$1 bash test/cluster.sh port replica) || return 1
	echo "$p"
	echo $((p + 1))
	p=$(MM_PORT=$1 bash test/cluster.sh port citus) || return 1
	echo "$p"
	echo $((p + 1))
	echo $((p + 2))
	MM_PORT=$1 bash test/cluster.sh port upgrade || return 1
}
mine=$(ports_of "$base")
theirs=$(ports_of "$other")
if [ "$(echo "$mine" | sort -u | wc -l)" = 10 ] &&
	[ "$(echo "$mine" | awk -v b="$base" '$1 < b || $1 > b + 9' | wc -l)" = 0 ]; then
	ok "the 10 servers of a run have distinct ports, all within MM_PORT to MM_PORT+9 ($(echo $mine))"
else
	notok "the 10 servers of a run have distinct ports, all within MM_PORT to MM_PORT+9 (got $(echo $mine))"
fi
# the exporter listens on TCP (127.0.0.1) at the pooler's number, a unix
# socket's name: within the range, and no other TCP listener of a run (the
# Citus nodes) has it (the worker the Citus suite adds at B+9 lives only
# during that suite)
exporter=$(mm_port exporter)
citus=$(mm_port citus)
if [ "$exporter" -ge "$base" ] && [ "$exporter" -le $((base + 9)) ] &&
	[ "$exporter" -ne "$citus" ] && [ "$exporter" -ne $((citus + 1)) ] && [ "$exporter" -ne $((citus + 2)) ]; then
	ok "the exporter's TCP port ($exporter) is within the range and no Citus node's"
else
	notok "the exporter's TCP port ($exporter) is within the range and no Citus node's"
fi
if [ -z "$(comm -12 <(echo "$mine" | sort) <(echo "$theirs" | sort))" ]; then
	ok "runs with bases $base and $other share no port"
else
	notok "runs with bases $base and $other share no port (both: $(comm -12 <(echo "$mine" | sort) <(echo "$theirs" | sort) | tr '\n' ' '))"
fi
env_lines=$(MM_PORT=$other MM_TMPDIR=$second bash test/cluster.sh env test)
got=$(echo "$env_lines" | head -1)
if [ "$got" = "export PGHOST=$second/mm-pg-test-$other PGPORT=$other PGUSER=postgres" ] &&
	[ "$(MM_PORT=$other MM_TMPDIR=$second bash test/cluster.sh dir crash)" = "$second/mm-pg-crash-$((other + 3))" ]; then
	ok "MM_PORT and MM_TMPDIR move a cluster's port and folder"
else
	notok "MM_PORT and MM_TMPDIR move a cluster's port and folder (got: $got)"
fi
# the clients that reach a cluster are its server's version (PG_CONFIG's)
if [ "$(echo "$env_lines" | sed -n 2p)" = "export PATH=$bindir:\$PATH" ]; then
	ok "a cluster's environment puts PG_CONFIG's programs first on PATH ($bindir)"
else
	notok "a cluster's environment puts PG_CONFIG's programs first on PATH (got: $(echo "$env_lines" | sed -n 2p))"
fi
high=$((65535 - 5))
if MM_PORT=${base}x bash test/cluster.sh port test >/dev/null 2>&1 || MM_PORT=$high bash test/cluster.sh port test >/dev/null 2>&1; then
	notok "a base that is not a port number, or leaves no room for B+9, is refused"
else
	ok "a base that is not a port number, or leaves no room for B+9, is refused"
fi
# Fixed ports: a port number after "port", "PORT", "_PORT:-" or "-p" (a
# port setting, option or default); fixed folders: /tmp not through
# MM_TMPDIR. Comments aside; test/ports.sh holds the defaults.
scripts=$(find test -name '*.sh' -not -path 'test/node/*' -not -name ports.sh | sort)
fixed=$(grep -nE '(^|[^0-9A-Za-z])(port|PORT|-p|_PORT:-)[^0-9;|]{0,12}[0-9]{4,5}([^0-9]|$)' $scripts | grep -v '^[^:]*:[0-9]*:[[:space:]]*#')
tmp=$(grep -n '/tmp' $scripts | grep -v 'MM_TMPDIR' | grep -v '^[^:]*:[0-9]*:[[:space:]]*#')
if [ -z "$fixed" ] && [ -z "$tmp" ]; then
	ok "no script under test/ names a fixed port or a /tmp path outside MM_TMPDIR"
else
	notok "no script under test/ names a fixed port or a /tmp path outside MM_TMPDIR"
	printf '%s\n%s\n' "$fixed" "$tmp" | grep . | sed 's/^/#   /'
fi

# ---- 2. a second run beside this one
first_dir=$(psql -X -At -d postgres -c "SHOW data_directory" 2>&1)
if MM_PORT=$other MM_TMPDIR=$second bash test/cluster.sh start test >"$priv/start.log" 2>&1; then
	got=$(
		eval "$(MM_PORT=$other MM_TMPDIR=$second bash test/cluster.sh env test)"
		psql -X -At -d postgres -c "SELECT current_setting('port') || ' ' || current_setting('data_directory')" 2>&1
	)
	if [ "$got" = "$other $second/mm-pg-test-$other/data" ] && [ "$first_dir" != "$second/mm-pg-test-$other/data" ]; then
		ok "a second run's cluster (base $other, its own MM_TMPDIR) runs beside this run's"
	else
		notok "a second run's cluster (base $other, its own MM_TMPDIR) runs beside this run's (got: $got; this run's: $first_dir)"
	fi
else
	notok "a second run's cluster (base $other, its own MM_TMPDIR) starts while this run's is up"
	sed 's/^/#   /' "$priv/start.log"
fi
MM_PORT=$other MM_TMPDIR=$second bash test/cluster.sh stop test >/dev/null 2>&1
if [ ! -f "$second/mm-pg-test-$other/data/postmaster.pid" ] &&
	[ "$(psql -X -At -d postgres -c "SHOW data_directory" 2>&1)" = "$first_dir" ]; then
	ok "stopping the second run's cluster stopped it and left this run's running"
else
	notok "stopping the second run's cluster stopped it and left this run's running"
fi

# ---- 3. someone else's folders at every path of base $other
paths=()
for kind in test demo bench crash; do
	paths+=("$(MM_PORT=$other MM_TMPDIR=$foreign bash test/cluster.sh dir "$kind")")
done
r=$(MM_PORT=$other mm_port replica)
c=$(MM_PORT=$other mm_port citus)
paths+=("$foreign/mm-replica-$r" "$foreign/mm-replica-$((r + 1))" "$foreign/mm-citus-$c" "$foreign/mm-citus-$((c + 1))" "$foreign/mm-citus-$((c + 2))")
paths+=("$foreign/mm-durable-$((other + 2))")
paths+=("$foreign/mm-pgbouncer-test-$((other + 9))")
for dir in "${paths[@]}"; do
	mkdir -p "$dir/data"
	echo "not yours" >"$dir/data/precious"
done
# one of them a running server (not made by mm's scripts: no marker file),
# at the Citus coordinator's path, on a unix socket only
foreign_dir=$foreign/mm-citus-$c
rm -rf "$foreign_dir/data"
if [ "$(id -u)" = 0 ]; then chown postgres: "$foreign_dir"; fi
if as_owner "$bindir/initdb" -N -D "$foreign_dir/data" -U postgres -A trust >"$priv/initdb.log" 2>&1 &&
	printf "port = %s\nlisten_addresses = ''\nunix_socket_directories = '%s'\nfsync = off\n" "$c" "$foreign_dir" >>"$foreign_dir/data/postgresql.conf" &&
	as_owner "$bindir/pg_ctl" -D "$foreign_dir/data" -l "$foreign_dir/server.log" -w -t 60 start >/dev/null 2>&1; then
	echo "not yours" >"$foreign_dir/data/precious"
else
	notok "someone else's server started at $foreign_dir"
	sed 's/^/#   /' "$priv/initdb.log" "$foreign_dir/server.log" 2>/dev/null | head -10
fi

# refused RESULT WHAT: WHAT must have failed (RESULT non-zero).
refused() {
	if [ "$1" != 0 ]; then ok "$2 refuses someone else's folder"; else notok "$2 refuses someone else's folder"; fi
}
export MM_PORT=$other MM_TMPDIR=$foreign
for kind in test demo; do
	bash test/cluster.sh start "$kind" >/dev/null 2>&1
	refused $? "test/cluster.sh start $kind"
	bash test/cluster.sh stop "$kind" >/dev/null 2>&1
done
bash test/pgbouncer.sh start test >/dev/null 2>&1
refused $? "test/pgbouncer.sh start test"
bash test/pgbouncer.sh stop test >/dev/null 2>&1
bash test/citus/cluster.sh start >/dev/null 2>&1
refused $? "test/citus/cluster.sh start"
bash test/citus/cluster.sh stop >/dev/null 2>&1
bash test/citus/cluster.sh clean >/dev/null 2>&1
bash test/suites/replica.sh >"$priv/replica.log" 2>&1
refused $? "the replica suite"
if grep -q "is free for this suite" "$priv/replica.log" && ! grep -q '^ok ' "$priv/replica.log"; then
	ok "the replica suite says which folder is in its way and runs nothing"
else
	notok "the replica suite says which folder is in its way and runs nothing"
	sed 's/^/#   /' "$priv/replica.log" | head -5
fi
(
	. test/bench/lib.sh
	throwaway_cluster "$foreign/mm-durable-$((other + 2))" $((other + 2)) </dev/null >/dev/null 2>&1
)
refused $? "the benchmarks' throwaway_cluster"
unset MM_PORT MM_TMPDIR

intact=0
for dir in "${paths[@]}"; do
	if [ "$(cat "$dir/data/precious" 2>/dev/null)" = "not yours" ] && [ ! -e "$dir/.mm-cluster" ]; then
		intact=$((intact + 1))
	else
		echo "#   changed: $dir"
	fi
done
if [ "$intact" = "${#paths[@]}" ]; then
	ok "all ${#paths[@]} folders of someone else are as they were after every start, stop and clean"
else
	notok "all ${#paths[@]} folders of someone else are as they were after every start, stop and clean ($intact intact)"
fi
if as_owner "$bindir/pg_ctl" -D "$foreign_dir/data" status >/dev/null 2>&1 &&
	[ "$(psql -X -At -h "$foreign_dir" -p "$c" -U postgres -d postgres -c "SELECT 1" 2>&1)" = 1 ]; then
	ok "someone else's server at the Citus coordinator's path is still running"
else
	notok "someone else's server at the Citus coordinator's path is still running"
fi
exit $fail
