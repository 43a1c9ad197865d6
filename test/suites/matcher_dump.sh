#!/usr/bin/env bash
# The queue tables are dump-safe: pg_dump a database with queues, waiting
# rosters, matches and a tick log, restore it into a fresh database, and
# find everything there, with sequences that go on where they stopped.
# TAP lines "ok - ..." / "not ok - ...".
set -uo pipefail

bindir=$("${PG_CONFIG:-pg_config}" --bindir)
fail=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }

q -d postgres -c "DROP DATABASE IF EXISTS mm_dump_a" -c "DROP DATABASE IF EXISTS mm_dump_b" 2>/dev/null
q -d postgres -c "CREATE DATABASE mm_dump_a" -c "CREATE DATABASE mm_dump_b"
q -d mm_dump_a >/dev/null <<'SQL' || notok "source database set up"
CREATE EXTENSION mm;
SELECT mm.create_queue('duel', '{"team_size": 1, "filter": {"potentials_min": 1}}');
SELECT mm.enqueue('duel', ARRAY[p::bigint], 1500, 50, professions => '{thief}') FROM generate_series(1, 5) p;
SELECT count(*) FROM mm.tick('duel');
SQL
before=$(q -d mm_dump_a -c "SELECT (SELECT string_agg(name || config::text, ',') FROM mm.queue) || '|' ||
    (SELECT string_agg(roster_id || ':' || players::text || professions::text, ',' ORDER BY place) FROM mm.list_queue('duel')) || '|' ||
    (SELECT string_agg(player_id || ':' || roster_id, ',' ORDER BY player_id) FROM mm.queued_player) || '|' ||
    (SELECT count(*) FROM mm.match) || '/' || (SELECT count(*) FROM mm.match_roster) || '/' || (SELECT count(*) FROM mm.tick_log)")

if "$bindir/pg_dump" -d mm_dump_a -f "${MM_TMPDIR:-/tmp}/mm_dump_$$.sql" && q -d mm_dump_b -f "${MM_TMPDIR:-/tmp}/mm_dump_$$.sql" >/dev/null; then
	ok "pg_dump and restore of a database with queues"
else
	notok "pg_dump and restore of a database with queues"
fi
rm -f "${MM_TMPDIR:-/tmp}/mm_dump_$$.sql"
after=$(q -d mm_dump_b -c "SELECT (SELECT string_agg(name || config::text, ',') FROM mm.queue) || '|' ||
    (SELECT string_agg(roster_id || ':' || players::text || professions::text, ',' ORDER BY place) FROM mm.list_queue('duel')) || '|' ||
    (SELECT string_agg(player_id || ':' || roster_id, ',' ORDER BY player_id) FROM mm.queued_player) || '|' ||
    (SELECT count(*) FROM mm.match) || '/' || (SELECT count(*) FROM mm.match_roster) || '/' || (SELECT count(*) FROM mm.tick_log)")
if [ -n "$before" ] && [ "$before" = "$after" ]; then
	ok "queues, waiting rosters, queued players, matches and ticks restored ($after)"
else
	notok "restored data differs: before $before, after $after"
fi
next=$(q -d mm_dump_b -c "SELECT mm.enqueue('duel', ARRAY[9::bigint], 1500, 50)")
if [ "$next" = 6 ]; then ok "roster ids go on after a restore (next id $next)"; else notok "roster ids go on after a restore (next id $next)"; fi
dup=$(q -d mm_dump_b -c "SELECT mm.enqueue('duel', ARRAY[5::bigint], 1500, 50)" 2>&1)
case "$dup" in
	*"already queued"*) ok "a restored waiting player is still queued" ;;
	*) notok "a restored waiting player is still queued ($dup)" ;;
esac
q -d postgres -c "DROP DATABASE mm_dump_a" -c "DROP DATABASE mm_dump_b"
exit $fail
