#!/usr/bin/env bash
# Upgrade of the server under mm: a cluster of the PostgreSQL that PG_CONFIG
# names, holding mm 0.2.0 and data, moved to the PostgreSQL that
# MM_PG_UPGRADE_TO names (a second pg_config, such as 16 to 17) with
# pg_upgrade, and with the newer pg_dump and pg_restore. Runs when
# MM_PG_UPGRADE_TO is set; otherwise one line "ok - ... # SKIP", counted as
# skipped.
#
#   1. mm is built with -Werror into a private copy of the newer
#      installation (test/pg_copy.sh; nothing is installed into the
#      installation itself).
#   2. The old server: database mm_srv_a holds 0.1.0's data updated to 0.2.0
#      (test/upgrade/fill-0.1.0.sql, as the upgrade suite); mm_srv_b holds
#      0.2.0's data (test/upgrade/server-fill.sql: queues, matches in every
#      state, results in each rating family, rating history, a pending
#      rating period, a backfill, a ready check, dishonor, a pool, servers);
#      pg_cron in postgres with a job in mm_srv_b. A copy of mm_srv_b runs
#      test/upgrade/server-continue.sql there: what the old server does
#      next. The newer pg_dump dumps both databases.
#   3. pg_upgrade to the new server (data checksums on both sides). From
#      PostgreSQL 15.20 to a minor release of a newer version that does not
#      know 15.20's pg_attver column option, pg_upgrade fails on any table
#      (mm's or not): that is a SKIP naming the cause, and the dumps are the
#      way.
#   4. After pg_upgrade: every row of every mm table and every mm sequence
#      of both databases is as it was (test/upgrade/rows.sql); the catalog
#      of mm equals a fresh install on the new server
#      (test/upgrade/catalog.sql); test/upgrade/after.sql's checks pass on
#      mm_srv_a; mm_srv_b continues exactly as the old server's copy did
#      (server-continue.sql, outputs compared); the pg_cron job is kept.
#   5. Both dumps restored into the new server: the same checks (rows but
#      the internal caches a dump leaves out).
#
# Its servers (the old and then the new, never both) use port MM_PORT+9
# and folder MM_TMPDIR/mm-upgrade-PORT (test/ports.sh). TAP lines.
set -uo pipefail
cd "${MM_ROOT:?}"
. test/ports.sh
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
to=${MM_PG_UPGRADE_TO:-}
if [ -z "$to" ]; then
	echo "ok - server upgrade with pg_upgrade and pg_dump # SKIP MM_PG_UPGRADE_TO is not set (the pg_config of a newer PostgreSQL to upgrade to)"
	exit 0
fi
fail=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }
as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
bail() {
	notok "$1"
	exit 1
}

if [ ! -x "$to" ]; then
	bail "MM_PG_UPGRADE_TO=$to is a pg_config"
fi
old_version=$("$PG_CONFIG" --version)
new_version=$("$to" --version)
old_major=$(echo "$old_version" | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
new_major=$(echo "$new_version" | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
if [ "$new_major" -lt "$old_major" ]; then
	bail "MM_PG_UPGRADE_TO ($new_version) is not older than PG_CONFIG ($old_version)"
fi
echo "# from $old_version ($PG_CONFIG) to $new_version ($to)"

port=$(mm_port upgrade) || exit 1
dir=$(mm_tmpdir)/mm-upgrade-$port
old_bin=$("$PG_CONFIG" --bindir)
work=""
stop_servers() {
	local d
	for d in "$dir/old" "$dir/new"; do
		if [ -f "$d/postmaster.pid" ]; then
			as_owner "${bin_of[$d]}/pg_ctl" -D "$d" -m immediate -w stop >/dev/null 2>&1
		fi
	done
}
declare -A bin_of
cleanup() {
	if mm_ours "$dir"; then
		stop_servers
		rm -rf "$dir"
	fi
}
trap cleanup EXIT
if mm_ours "$dir"; then
	bin_of[$dir/old]=$old_bin
	bin_of[$dir/new]=$old_bin
	stop_servers
fi
mm_claim "$dir" upgrade || bail "the suite's folder $dir is free"
work=$dir/work
mkdir -p "$work"
chmod 755 "$dir"
if [ "$(id -u)" = 0 ]; then chown postgres: "$work"; fi

# ---- 1. mm for the new server, in a private copy of its installation
new_config=$(PG_CONFIG=$to bash test/pg_copy.sh "$work/pg" 2>"$work/copy.log") || {
	cat "$work/copy.log"
	bail "a private copy of $new_version"
}
new_bin=$("$new_config" --bindir)
bin_of[$dir/old]=$old_bin
bin_of[$dir/new]=$new_bin
mkdir -p "$work/src"
cp -a Makefile mm.control src sql "$work/src/"
if (cd "$work/src" && make -s PG_CONFIG="$new_config" clean >/dev/null &&
	make -s PG_CONFIG="$new_config" COPT=-Werror >"$work/build.log" 2>&1 &&
	make -s PG_CONFIG="$new_config" install >/dev/null 2>>"$work/build.log"); then
	ok "mm builds with -Werror against $new_version and installs into a copy of it"
else
	sed 's/^/#   /' "$work/build.log" | tail -30
	bail "mm builds with -Werror against $new_version and installs into a copy of it"
fi

# A cluster of the suite: initdb with data checksums (pg_upgrade needs the
# same setting on both sides; 18's initdb turns them on by default).
new_cluster() {
	local bin=$1 data=$2
	as_owner "$bin/initdb" -k -D "$data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$data.initdb.log" 2>&1 || {
		cat "$data.initdb.log"
		return 1
	}
	cat >>"$data/postgresql.conf" <<CONF
port = $port
listen_addresses = ''
unix_socket_directories = '$dir'
shared_preload_libraries = 'pg_cron'
cron.database_name = 'postgres'
fsync = off
lc_messages = 'C'
log_min_messages = warning
CONF
}
start() { as_owner "${bin_of[$1]}/pg_ctl" -D "$1" -l "$1.log" -w -t 60 start >/dev/null || { cat "$1.log"; return 1; }; }
stop() { as_owner "${bin_of[$1]}/pg_ctl" -D "$1" -m fast -w -t 60 stop >/dev/null; }
export PGHOST=$dir PGPORT=$port PGUSER=postgres

# ---- 2. the old server and its data
if new_cluster "$old_bin" "$dir/old" && start "$dir/old"; then
	ok "a $old_version cluster with pg_cron"
else
	bail "a $old_version cluster with pg_cron"
fi
if q -d postgres -c "CREATE DATABASE mm_srv_a" -c "CREATE DATABASE mm_srv_b" &&
	q -d mm_srv_a -c "CREATE EXTENSION mm VERSION '0.1.0'" &&
	PGOPTIONS="-c mm.check_version=off" q -d mm_srv_a -f test/upgrade/fill-0.1.0.sql >/dev/null &&
	q -d mm_srv_a -c "ALTER EXTENSION mm UPDATE" 2>"$work/alter.err" &&
	q -d mm_srv_b -c "CREATE EXTENSION mm" &&
	q -d mm_srv_b -f test/upgrade/server-fill.sql >/dev/null 2>"$work/fill.err" &&
	q -d postgres -c "CREATE EXTENSION pg_cron" \
		-c "SELECT cron.schedule_in_database('mm ticks', '0 3 1 1 *', 'CALL mm.run_ticks()', 'mm_srv_b')" >/dev/null; then
	ok "mm_srv_a: 0.1.0's data updated to 0.2.0; mm_srv_b: 0.2.0's data; a pg_cron job"
else
	sed 's/^/#   /' "$work/alter.err" "$work/fill.err" | grep -v WARNING | head -20
	bail "mm_srv_a: 0.1.0's data updated to 0.2.0; mm_srv_b: 0.2.0's data; a pg_cron job"
fi
counts=$(q -d mm_srv_b -c "SELECT format('%s queues, %s matches (%s), %s ratings, %s history rows, %s rosters waiting',
	(SELECT count(*) FROM mm.queue), (SELECT count(*) FROM mm.match),
	(SELECT string_agg(status || ' ' || n, ', ' ORDER BY status) FROM (SELECT status, count(*) n FROM mm.match GROUP BY status) s),
	(SELECT count(*) FROM mm.ratings), (SELECT count(*) FROM mm.match_result_player),
	(SELECT count(*) FROM mm.roster r WHERE NOT EXISTS (SELECT FROM mm.match_roster mr WHERE mr.roster_id = r.roster_id)))")
echo "# mm_srv_b: $counts"

# What the old server does next, on a copy of mm_srv_b.
if q -d postgres -c "CREATE DATABASE mm_srv_b_next TEMPLATE mm_srv_b" &&
	q -d mm_srv_b_next -f test/upgrade/server-continue.sql >"$work/next-old.txt" 2>&1; then
	ok "the continuation runs on $old_version ($(wc -l <"$work/next-old.txt") lines)"
else
	sed 's/^/#   /' "$work/next-old.txt" | tail -20
	notok "the continuation runs on $old_version"
fi
q -d postgres -c "DROP DATABASE mm_srv_b_next"
for db in mm_srv_a mm_srv_b; do
	q -d "$db" -v since=infinity -v caches=keep -f test/upgrade/rows.sql >"$work/$db.before-keep" &&
		q -d "$db" -v since=infinity -v caches=skip -f test/upgrade/rows.sql >"$work/$db.before-skip" ||
		notok "rows of $db read"
done
# the newer pg_dump reads the older server (as PostgreSQL's docs advise)
for db in mm_srv_a mm_srv_b; do
	"$new_bin/pg_dump" -Fc -d "$db" -f "$work/$db.dump" 2>"$work/dump.err" ||
		notok "$new_version's pg_dump dumps $db from $old_version ($(cat "$work/dump.err"))"
done
stop "$dir/old"

# The checks of one database on the new server: the rows of database
# "from" as they were, mm's catalog as a fresh install's, and (by the
# source of the database) after.sql's checks or the same continuation.
catalog_fresh=""
check_db() {
	local db=$1 from=$2 how=$3 caches=$4 out
	local before=$work/$from.before-$caches
	q -d "$db" -v since=infinity -v caches="$caches" -f test/upgrade/rows.sql >"$work/$db.after" 2>&1
	if [ -s "$before" ] && diff -u "$before" "$work/$db.after" >"$work/$db.diff"; then
		ok "$db ($how): every row of every mm table$([ "$caches" = skip ] && echo " but the internal caches") and every mm sequence as it was ($(wc -l <"$before") rows in $(cut -d'|' -f1 "$before" | sort -u | wc -l) tables and sequences)"
	else
		notok "$db ($how): every row of every mm table$([ "$caches" = skip ] && echo " but the internal caches") and every mm sequence as it was"
		sed 's/^/#   /' "$work/$db.diff" | head -30
	fi
	if [ -z "$catalog_fresh" ]; then
		catalog_fresh=$work/fresh.catalog
		q -d postgres -c "CREATE DATABASE mm_srv_fresh" && q -d mm_srv_fresh -c "CREATE EXTENSION mm" &&
			q -d mm_srv_fresh -f test/upgrade/catalog.sql >"$catalog_fresh"
		q -d postgres -c "DROP DATABASE IF EXISTS mm_srv_fresh"
	fi
	q -d "$db" -f test/upgrade/catalog.sql >"$work/$db.catalog" 2>&1
	if [ -s "$catalog_fresh" ] && diff -u "$catalog_fresh" "$work/$db.catalog" >"$work/$db.catalog.diff"; then
		ok "$db ($how): mm's catalog equals a fresh install on $new_version ($(wc -l <"$catalog_fresh") lines)"
	else
		notok "$db ($how): mm's catalog equals a fresh install on $new_version"
		sed 's/^/#   /' "$work/$db.catalog.diff" | head -30
	fi
	case "$from" in
		mm_srv_a)
			if out=$(q -d "$db" -f test/upgrade/after.sql 2>&1); then
				ok "$db ($how): the upgrade suite's checks of 0.1.0's rows pass (test/upgrade/after.sql)"
			else
				notok "$db ($how): the upgrade suite's checks of 0.1.0's rows pass (test/upgrade/after.sql)"
				echo "$out" | sed 's/^/#   /' | head -20
			fi
			;;
		mm_srv_b)
			# the same ticks, matches, results, ratings and history
			if q -d "$db" -f test/upgrade/server-continue.sql >"$work/next-$db.txt" 2>&1 &&
				diff -u "$work/next-old.txt" "$work/next-$db.txt" >"$work/next-$db.diff"; then
				ok "$db ($how): continues as the old server's copy did: the same matches, results, ratings and history ($(wc -l <"$work/next-old.txt") lines)"
			else
				notok "$db ($how): continues as the old server's copy did: the same matches, results, ratings and history"
				sed 's/^/#   /' "$work/next-$db.diff" | head -30
			fi
			;;
	esac
}

# ---- 3. pg_upgrade
upgraded=0
if new_cluster "$new_bin" "$dir/new" &&
	(cd "$work" && as_owner "$new_bin/pg_upgrade" -b "$old_bin" -B "$new_bin" -d "$dir/old" -D "$dir/new" \
		-p "$port" -P "$port" -s "$dir" -U postgres >"$work/pg_upgrade.log" 2>&1); then
	ok "pg_upgrade from $old_version to $new_version"
	upgraded=1
elif grep -qs 'unrecognized parameter "pg_attver"' "$dir"/new/pg_upgrade_output.d/*/log/*.log; then
	# PostgreSQL 15.20 (and the other minor releases of its wave) store an
	# attribute version in every column's attoptions, key pg_attver; only
	# a pg_dump that knows the key leaves it out. An older minor release of
	# the newer version dumps it as a column option, which its server
	# refuses: pg_upgrade fails on the first table of any database. Not
	# mm's to change; the dump below is the way.
	echo "ok - pg_upgrade from $old_version to $new_version # SKIP $old_version stores pg_attver in every column's options, which $new_version's pg_dump copies and its server refuses (unrecognized parameter \"pg_attver\"): any table fails, not only mm's; needs a minor release of $new_major that knows pg_attver"
	rm -rf "$dir/new" "$dir/new.log"
	new_cluster "$new_bin" "$dir/new" || bail "a fresh $new_version cluster"
else
	sed 's/^/#   /' "$work/pg_upgrade.log" | tail -30
	for f in "$dir"/new/pg_upgrade_output.d/*/log/*.log; do
		grep -q 'ERROR' "$f" 2>/dev/null || continue
		echo "#   $f:"
		grep -B3 -A6 'ERROR' "$f" | head -40 | sed 's/^/#     /'
	done
	bail "pg_upgrade from $old_version to $new_version"
fi
start "$dir/new" || bail "the $new_version cluster starts"

# ---- 4. the upgraded databases
if [ "$upgraded" = 1 ]; then
	if out=$(q -d mm_srv_a -c "SELECT extversion FROM pg_extension WHERE extname = 'mm'" -c "SELECT mm.ordinal(25, 3)" 2>&1) &&
		[ "$out" = "$(printf '0.2.0\n16')" ]; then
		ok "the upgraded database is at 0.2.0 and $new_version's library serves it"
	else
		notok "the upgraded database is at 0.2.0 and $new_version's library serves it (got: $out)"
	fi
	check_db mm_srv_a mm_srv_a pg_upgrade keep
	check_db mm_srv_b mm_srv_b pg_upgrade keep
	if [ "$(q -d postgres -c "SELECT count(*) FROM cron.job WHERE jobname = 'mm ticks' AND database = 'mm_srv_b'" 2>&1)" = 1 ] &&
		q -d postgres -c "ALTER EXTENSION pg_cron UPDATE" 2>"$work/cron.err"; then
		ok "the pg_cron job is kept, and pg_cron updates to $new_version's version ($(q -d postgres -c "SELECT extversion FROM pg_extension WHERE extname = 'pg_cron'"))"
	else
		notok "the pg_cron job is kept, and pg_cron updates to $new_version's version ($(cat "$work/cron.err"))"
	fi
fi

# ---- 5. the dumps restored into the new server
for db in mm_srv_a mm_srv_b; do
	if q -d postgres -c "CREATE DATABASE ${db}_restored" &&
		"$new_bin/pg_restore" -d "${db}_restored" "$work/$db.dump" 2>"$work/restore.err"; then
		# a dump leaves the internal caches out (they are rebuilt on use)
		check_db "${db}_restored" "$db" "pg_dump of $old_major, pg_restore into $new_major" skip
	else
		notok "$db dumped from $old_version restores into $new_version"
		sed 's/^/#   /' "$work/restore.err" | head -20
	fi
done
stop "$dir/new"
exit $fail
