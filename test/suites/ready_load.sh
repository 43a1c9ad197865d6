#!/usr/bin/env bash
# The ready check under load: pgbench clients enqueue (parties of 1-2),
# accept or decline proposed matches (one in ten declines), tick and claim
# at once for a few seconds on a 2v2 queue with a one-second ready check;
# a last tick after the end of every ready check dissolves what is left.
# Afterwards: no error but the refusals the API documents, no player both
# waiting and in an open ready check, every matched match accepted by all
# its players, no dissolved match holding rosters or delivered, claims saw
# each match once and only matched ones, every player with dishonor
# dodged, and every waiting player's last ticket event is "waiting".
# Prints TAP lines.
set -uo pipefail

db=mm_ready_load
bindir=$("${PG_CONFIG:-pg_config}" --bindir)
work=$(mktemp -d "${MM_TMPDIR:-/tmp}"/mm-ready-load.XXXXXX)
trap 'rm -rf "$work"; psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1' EXIT
fail=0
check() {
	if [ "$2" = "$3" ]; then echo "ok - $1"; else echo "not ok - $1 (got '$2', want '$3')"; fail=1; fi
}
q() { psql -X -At -d "$db" -c "$1"; }

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null 2>&1
psql -X -q -d "$db" -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
CREATE EXTENSION mm;
SELECT mm.create_queue('rl', '{"team_size": 2, "filter": {"potentials_min": 1}, "accept_timeout": "1 second", "dodge_reason": "queue_dodge"}');
CREATE TABLE claimed (match_id bigint);
-- errors other than the refusals the API documents
CREATE TABLE unexpected (at timestamptz DEFAULT clock_timestamp(), state text, message text);
CREATE FUNCTION try(call text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE call;
EXCEPTION
    WHEN unique_violation OR object_not_in_prerequisite_state OR invalid_parameter_value THEN NULL;
    WHEN OTHERS THEN
        INSERT INTO unexpected (state, message) VALUES (SQLSTATE, SQLERRM);
END
$$;
SQL

cat >"$work/enqueue.sql" <<'SQL'
SELECT try(format('SELECT mm.enqueue(''rl'', %L, 1500)',
                  CASE WHEN random() < 0.7 THEN ARRAY[p] ELSE ARRAY[p, p + 1] END))
FROM (SELECT 1 + floor(random() * 120)::bigint AS p) x;
SQL
cat >"$work/answer.sql" <<'SQL'
SELECT try(format('SELECT mm.%s(%s, %s)', CASE WHEN random() < 0.1 THEN 'decline' ELSE 'accept' END,
                  x.match_id, x.players[1 + floor(random() * cardinality(x.players))::int]))
FROM (SELECT mr.match_id, mr.players FROM mm.match m JOIN mm.match_roster mr USING (queue_id, match_id)
      WHERE m.status = 'proposed' ORDER BY random() LIMIT 1) x;
SQL
cat >"$work/tick.sql" <<'SQL'
SELECT try('SELECT count(*) FROM mm.tick(''rl'')');
SQL
cat >"$work/claim.sql" <<'SQL'
INSERT INTO claimed SELECT DISTINCT match_id FROM mm.claim_matches('rl', 5);
SQL

out=$("$bindir/pgbench" -n -c 4 -j 2 -T 6 \
	-f "$work/enqueue.sql@4" -f "$work/answer.sql@8" -f "$work/tick.sql@1" -f "$work/claim.sql@1" "$db" 2>&1)
aborted=$(echo "$out" | sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' | head -1)
if echo "$out" | grep -q "number of transactions actually processed"; then
	echo "ok - pgbench ran enqueue, accept/decline, tick and claim at once ($(echo "$out" | sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p') calls)"
else
	echo "not ok - pgbench ran"; echo "$out" | head -5 | sed 's/^/#   /'; fail=1
fi
check "no client failed or aborted" "${aborted:-0} $(echo "$out" | grep -c 'aborted')" "0 0"
# after every ready check has ended: the last tick dissolves what is left
q "SELECT pg_sleep(1.1); SELECT count(*) FROM mm.tick('rl', now() + interval '1 minute')" >/dev/null
q "INSERT INTO claimed SELECT DISTINCT match_id FROM mm.claim_matches('rl', 100000)" >/dev/null

check "no unexpected error" "$(q "SELECT count(*) || ' ' || coalesce(min(state || ': ' || message), '') FROM unexpected")" "0 "
check "matches were proposed, matched and dissolved" \
	"$(q "SELECT bool_and(n > 0) FROM (SELECT count(*) FILTER (WHERE status = 'matched') n FROM mm.match
	       UNION ALL SELECT count(*) FILTER (WHERE status = 'dissolved') FROM mm.match) x")" "t"
check "no match is still proposed" "$(q "SELECT count(*) FROM mm.match WHERE status = 'proposed' OR accept_until IS NOT NULL")" "0"
check "every matched match was accepted by each of its players" \
	"$(q "SELECT count(*) FROM mm.match m WHERE m.status = 'matched' AND
	       (SELECT count(*) FROM mm.match_accept a WHERE a.match_id = m.match_id) <>
	       (SELECT sum(cardinality(mr.players)) FROM mm.match_roster mr WHERE mr.match_id = m.match_id)")" "0"
check "dissolved matches hold no rosters and were never delivered" \
	"$(q "SELECT count(*) FROM mm.match m WHERE m.status = 'dissolved' AND
	       (m.delivered_at IS NOT NULL OR EXISTS (SELECT FROM mm.match_roster mr WHERE mr.match_id = m.match_id))")" "0"
check "claims saw every matched match once, and nothing else" \
	"$(q "SELECT (SELECT count(*) FROM claimed) - (SELECT count(DISTINCT match_id) FROM claimed) || ' ' ||
	       (SELECT count(*) FROM claimed c JOIN mm.match m USING (match_id) WHERE m.status <> 'matched') || ' ' ||
	       (SELECT count(*) FROM mm.match m WHERE m.status = 'matched' AND m.match_id NOT IN (SELECT match_id FROM claimed))")" "0 0 0"
check "every player with dishonor dodged a ready check" \
	"$(q "SELECT count(*) FROM mm.dishonor_players d WHERE NOT EXISTS
	       (SELECT FROM mm.ticket_event e WHERE e.player_id = d.player_id AND e.status = 'removed'
	        AND e.reason IN ('declined', 'accept_timeout'))")" "0"
check "every waiting player's last ticket event is waiting, in its roster" \
	"$(q "SELECT count(*) FROM mm.queued_player qp JOIN mm.roster r USING (queue_id, roster_id) CROSS JOIN LATERAL
	       (SELECT e.status, e.roster_id FROM mm.ticket_event e WHERE e.player_id = qp.player_id ORDER BY e.event_id DESC LIMIT 1) e
	       WHERE r.match_id IS NULL AND (e.status <> 'waiting' OR e.roster_id <> qp.roster_id)")" "0"
check "a ready check gave rosters back to the queue" \
	"$(q "SELECT count(*) > 0 FROM mm.ticket_event WHERE status = 'waiting' AND match_id IS NOT NULL")" "t"
exit $fail
