# Where mm's test commands put their servers, and which are theirs: sourced
# by test/cluster.sh, test/citus/cluster.sh, test/suites/replica.sh and the
# standalone benchmark scripts (test/bench/lib.sh).
#
# One base port, MM_PORT (default 54329), and one base directory, MM_TMPDIR
# (default /tmp). A run with base B uses the ports B to B+9 and nothing else:
#
#   B+0  test      test/cluster.sh: make test's cluster (unix socket only)
#   B+1  demo      test/cluster.sh: make demo's cluster (unix socket only)
#   B+2  bench     test/cluster.sh: make bench's cluster (unix socket only)
#   B+3  crash     test/cluster.sh: the crash suite's durable cluster
#   B+4  replica   test/suites/replica.sh: the primary; B+5 its hot standby
#   B+6  citus     test/citus/cluster.sh: the coordinator (127.0.0.1);
#                  B+7 and B+8 the workers (127.0.0.1)
#   B+9  one at a time (the suites run one after another):
#        upgrade   test/suites/server_upgrade.sh: the server before and
#                  after pg_upgrade, one at a time (unix socket only)
#        citus     test/citus/cluster.sh: the worker the Citus suite adds
#                  to its cluster later (127.0.0.1)
#        pooler    test/pgbouncer.sh: pgbouncer in front of the test or the
#                  bench cluster (unix socket only, in its own folder, so a
#                  test run's and a bench run's do not meet)
#        exporter  test/suites/monitoring.sh: prometheus-postgres-exporter's
#                  HTTP listener (127.0.0.1, TCP: the pooler's number is a
#                  unix socket's name, so the two do not meet either)
#
# Two runs on one host do not disturb each other when their bases are at
# least 10 apart (or when they use different MM_TMPDIRs: only the Citus nodes
# listen on TCP). Every data directory is MM_TMPDIR/mm-KIND-PORT; a
# directory these scripts create holds the marker file .mm-cluster, and they
# never stop or remove a directory without it (someone else's, or one made
# by hand): start refuses it, stop and clean leave it alone.

mm_base() {
	local base=${MM_PORT:-54329}
	case "$base" in
		'' | *[!0-9]*) echo "MM_PORT must be a port number, not \"$base\"" >&2; return 2 ;;
	esac
	if [ "$base" -lt 1 ] || [ "$base" -gt 65526 ]; then
		echo "MM_PORT must be between 1 and 65526 (the run uses MM_PORT to MM_PORT+9), not $base" >&2
		return 2
	fi
	echo "$base"
}

# mm_port KIND: the port of KIND (test, demo, bench, crash, replica, citus,
# upgrade, pooler, exporter);
# replica and citus are the first of their ports.
mm_port() {
	local base offset
	base=$(mm_base) || return 2
	case "$1" in
		test) offset=0 ;;
		demo) offset=1 ;;
		bench) offset=2 ;;
		crash) offset=3 ;;
		replica) offset=4 ;;
		citus) offset=6 ;;
		upgrade | pooler | exporter) offset=9 ;;
		*) echo "unknown server kind \"$1\" (test, demo, bench, crash, replica, citus, upgrade, pooler or exporter)" >&2; return 2 ;;
	esac
	echo $((base + offset))
}

# mm_tmpdir: the base directory of every data directory.
mm_tmpdir() {
	local dir=${MM_TMPDIR:-/tmp}
	echo "${dir%/}"
}

mm_marker=.mm-cluster

# mm_ours DIR: true when DIR was created by one of these scripts.
mm_ours() {
	[ -f "$1/$mm_marker" ]
}

# mm_claim DIR WHAT: make DIR for a new server, holding the marker. Refuses
# (message, status 1) when DIR exists and is not ours; removes it first when
# it is ours (the caller has stopped its server).
mm_claim() {
	local dir=$1 what=$2
	if [ -e "$dir" ] && ! mm_ours "$dir"; then
		echo "$dir exists but was not created by mm's test scripts; leaving it alone" >&2
		echo "HINT: remove it yourself, or pick another base with MM_PORT or MM_TMPDIR." >&2
		return 1
	fi
	rm -rf "$dir"
	mkdir -p "$dir" || return 1
	echo "$what" >"$dir/$mm_marker"
	if [ "$(id -u)" = 0 ]; then chown postgres: "$dir"; fi
}
