#!/usr/bin/env bash
# Upgrade path: install the released 0.1.0, fill it with data, run
# ALTER EXTENSION mm UPDATE, and prove that
#   - the upgraded catalog equals a fresh install of the current version
#     (every mm object: columns, constraints, indexes, functions with their
#     signatures, volatility, strictness, security, config, bodies, comments,
#     grants; see test/upgrade/catalog.sql);
#   - the data of 0.1.0 is still there and still works (test/upgrade/after.sql).
# TAP lines "ok - ..." / "not ok - ...".
set -uo pipefail
cd "${MM_ROOT:?}"
fail=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
current=$(sed -n "s/^default_version *= *'\([^']*\)'.*/\1/p" mm.control)
work=$(mktemp -d)

q -d postgres -c "DROP DATABASE IF EXISTS mm_up_fresh" -c "DROP DATABASE IF EXISTS mm_up_old" 2>/dev/null
q -d postgres -c "CREATE DATABASE mm_up_fresh" -c "CREATE DATABASE mm_up_old"

if q -d mm_up_fresh -c "CREATE EXTENSION mm" && q -d mm_up_fresh -f test/upgrade/catalog.sql >"$work/fresh.txt"; then
	ok "fresh install of $current"
else
	notok "fresh install of $current"
fi

# The library is the current version's: it refuses to serve 0.1.0's SQL
# objects (mm.check_version), except when told to, as here to fill the
# old version with data through its own functions.
if q -d mm_up_old -c "CREATE EXTENSION mm VERSION '0.1.0'" &&
	PGOPTIONS="${PGOPTIONS:-} -c mm.check_version=off" q -d mm_up_old -f test/upgrade/fill-0.1.0.sql >/dev/null; then
	ok "0.1.0 installs and takes data"
else
	notok "0.1.0 installs and takes data"
fi

out=$(psql -X -q -At -d mm_up_old -v VERBOSITY=verbose -c "SELECT mm.ordinal(25, 3)" 2>&1)
if echo "$out" | grep -q "ERROR:  55000: extension mm is installed at version 0.1.0 but its library is version $current" &&
	echo "$out" | grep -q "HINT:  Run ALTER EXTENSION mm UPDATE"; then
	ok "the $current library refuses 0.1.0's SQL objects with 55000 and the hint to update"
else
	notok "the $current library refuses 0.1.0's SQL objects with 55000 and the hint to update"
	echo "$out" | sed 's/^/#   /'
fi

# The upgrade's WARNINGs (data it had to change) go to stderr, kept apart.
if out=$(q -d mm_up_old -c "ALTER EXTENSION mm UPDATE" -c "SELECT extversion FROM pg_extension WHERE extname = 'mm'" 2>"$work/alter.err") &&
	[ "$out" = "$current" ]; then
	ok "ALTER EXTENSION mm UPDATE goes from 0.1.0 to $current"
else
	notok "ALTER EXTENSION mm UPDATE goes from 0.1.0 to $current ($out $(cat "$work/alter.err"))"
fi
sed 's/^/#   /' "$work/alter.err"
if grep -q 'WARNING:  roster [0-9]* of queue "wide" has rating -1.7e+308 and deviation 1e+308, out of range: clamped to rating -1000000000 and deviation 1000000000' "$work/alter.err"; then
	ok "the upgrade clamps a roster rated out of range and names it in a WARNING"
else
	notok "the upgrade clamps a roster rated out of range and names it in a WARNING"
fi
if grep -q 'WARNING:  roster [0-9]* of queue "deep" has rank 1e+308 and ladder points -1e+308, out of range: clamped to rank 1000000000 and ladder points -1000000000' "$work/alter.err"; then
	ok "the upgrade clamps a roster ranked out of range and names it in a WARNING"
else
	notok "the upgrade clamps a roster ranked out of range and names it in a WARNING"
fi

# configs 0.1.0 accepted that $current refuses did not stop the update: a
# value out of its new range was clamped, a config that cannot be repaired
# was kept; a WARNING names each (test/upgrade/fill-0.1.0.sql writes them)
for w in \
	'WARNING:  place "heavy" config key "signals.friends.weight" is out of range: clamped to 1000000000000' \
	'WARNING:  dishonor config key "timeout_duration" is out of range: clamped to 10000000000' \
	'WARNING:  queue "duel" config key "filter.rosters" is out of range: clamped to 1000000' \
	'WARNING:  pool "kept" config is kept as 0.1.0 stored it: 0.2.0 refuses it'; do
	if grep -qF "$w" "$work/alter.err"; then
		ok "the update warns: ${w#WARNING:  }"
	else
		notok "the update warns: ${w#WARNING:  }"
	fi
done
if [ "$(grep -c 'config key .* is out of range: clamped\|config is kept as 0.1.0 stored it' "$work/alter.err")" = 4 ]; then
	ok "the update warns about those four configs and no other config"
else
	notok "the update warns about those four configs and no other config"
fi

q -d mm_up_old -f test/upgrade/catalog.sql >"$work/upgraded.txt"
if [ -s "$work/fresh.txt" ] && diff -u "$work/fresh.txt" "$work/upgraded.txt" >"$work/catalog.diff"; then
	ok "upgraded catalog equals a fresh $current install ($(wc -l <"$work/fresh.txt") lines compared)"
else
	notok "upgraded catalog equals a fresh $current install"
	sed 's/^/#   /' "$work/catalog.diff" | head -60
fi

# the privilege list is data the scripts write: the same rows both ways
q -d mm_up_fresh -c "SELECT object, kind, roles, definer FROM mm.privileges ORDER BY object COLLATE \"C\"" >"$work/fresh-privileges.txt"
q -d mm_up_old -c "SELECT object, kind, roles, definer FROM mm.privileges ORDER BY object COLLATE \"C\"" >"$work/upgraded-privileges.txt"
if [ -s "$work/fresh-privileges.txt" ] && diff -u "$work/fresh-privileges.txt" "$work/upgraded-privileges.txt" >"$work/privileges.diff"; then
	ok "upgraded mm.privileges equals a fresh install's ($(wc -l <"$work/fresh-privileges.txt") rows)"
else
	notok "upgraded mm.privileges equals a fresh install's"
	sed 's/^/#   /' "$work/privileges.diff" | head -30
fi

if out=$(q -d mm_up_old -c "SELECT mm.ordinal(25, 3)"); then
	ok "after the upgrade the library serves the SQL objects ($out)"
else
	notok "after the upgrade the library serves the SQL objects"
fi

if out=$(q -d mm_up_old -f test/upgrade/after.sql 2>&1); then
	ok "0.1.0 data carried over and works after the upgrade"
else
	notok "0.1.0 data carried over and works after the upgrade"
	echo "$out" | sed 's/^/#   /' | head -20
fi

# A queue 0.1.0 named by 1,900 control characters (its name's JSON is
# 11,402 bytes, beyond NOTIFY's 8000): after the update it ticks, and its
# payloads (the tick's in C; an accept's and a dissolve's in PL/pgSQL) name
# it by queue_id alone.
out=$(psql -X -q -At -d mm_up_old 2>&1 <<'SQL'
\set ON_ERROR_STOP 1
SELECT mm.queue_channel(repeat(E'\x01', 1900)) AS ch \gset
LISTEN :ch;
SELECT 'matched ' || count(*) FROM mm.tick(repeat(E'\x01', 1900), now());
SELECT mm.alter_queue(repeat(E'\x01', 1900), '{"accept_timeout": 30}') IS NOT NULL AS altered;
SELECT count(mm.enqueue(repeat(E'\x01', 1900), ARRAY[p::bigint], 1500)) FROM generate_series(7003, 7006) p;
SELECT 'proposed ' || count(DISTINCT match_id) FROM mm.tick(repeat(E'\x01', 1900), now());
SELECT 'accepted ' || mm.accept(m, p) FROM (SELECT min(match_id) AS m FROM mm.match WHERE status = 'proposed') x,
       LATERAL (SELECT unnest(players) p FROM mm.match_roster WHERE match_id = x.m) y;
SELECT 'declined ' || mm.decline(m, p) FROM (SELECT max(match_id) AS m FROM mm.match WHERE status = 'proposed') x,
       LATERAL (SELECT min(p) AS p FROM mm.match_roster, unnest(players) p WHERE match_id = x.m) y;
SQL
)
qid=$(q -d mm_up_old -c "SELECT queue_id FROM mm.queue WHERE name = repeat(E'\x01', 1900)")
if grep -qx 'matched 2' <<<"$out" && grep -qx 'proposed 2' <<<"$out" &&
	grep -qF "payload \"{\"queue_id\": $qid, \"matches\": [" <<<"$out" &&
	grep -qF "payload \"{\"queue_id\": $qid, \"proposed\": [" <<<"$out" &&
	grep -qF "payload \"{\"queue_id\": $qid, \"dissolved\": [" <<<"$out" &&
	[ "$(grep -c "payload \"{\"queue_id\": $qid, \"matches\": \[" <<<"$out")" = 2 ] &&
	! grep -q 'ERROR' <<<"$out"; then
	ok "a queue 0.1.0 named by 1,900 control characters ticks after the update; its tick, accept and dissolve payloads fit, naming it by queue_id"
else
	notok "a queue 0.1.0 named by 1,900 control characters ticks after the update; its tick, accept and dissolve payloads fit, naming it by queue_id"
	echo "$out" | cut -c1-300 | sed 's/^/#   /' | head -20
fi

q -d postgres -c "DROP DATABASE mm_up_fresh" -c "DROP DATABASE mm_up_old"
rm -rf "$work"
exit $fail
