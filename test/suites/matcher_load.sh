#!/usr/bin/env bash
# Load test of the roster matcher: three sessions enqueue and leave rosters
# (parties of 1..5) while two sessions tick the same queue every 200 ms, for
# 10 seconds. Afterwards every roster is in exactly one place (waiting,
# matched once, or left), no player is in two matches, every team has
# exactly team_size players, and mm.queued_player holds exactly the players
# of the waiting rosters. TAP lines "ok - ..." / "not ok - ...".
#
# A session re-queues a player only after it left that player's roster, so
# a player in two matches can only come from a double match.
set -uo pipefail

db=mm_load
secs=${MM_LOAD_SECONDS:-10}
fail=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }
psql_q() { psql -X -q -At -d "$db" -v ON_ERROR_STOP=1 "$@"; }

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" 2>/dev/null || exit 1
psql_q >/dev/null <<'SQL' || { notok "load database set up"; exit 1; }
CREATE EXTENSION mm;
SELECT mm.create_queue('load', '{"filter": {"potentials_min": 5, "limit": 200}}');
CREATE TABLE load_log (session int, roster_id bigint, action text, players bigint[],
                       PRIMARY KEY (roster_id, action));
SQL

enqueuer() {
	local k=$1
	psql_q -v k="$k" -v secs="$secs" <<'SQL'
SET mm_load.k = :k;
SET mm_load.secs = :secs;
DO $$
DECLARE
    k int := current_setting('mm_load.k')::int;
    stop timestamptz := clock_timestamp() + make_interval(secs => current_setting('mm_load.secs')::int);
    next_player bigint := k * 1000000;
    free bigint[] := '{}';
    mine bigint[] := '{}';
    players bigint[];
    n int;
    rid bigint;
    i int;
BEGIN
    WHILE clock_timestamp() < stop LOOP
        IF random() < 0.7 OR cardinality(mine) = 0 THEN
            n := 1 + floor(random() * 5)::int;
            players := free[1:n];
            free := free[n + 1:];
            WHILE coalesce(cardinality(players), 0) < n LOOP
                next_player := next_player + 1;
                players := coalesce(players, '{}') || next_player;
            END LOOP;
            rid := mm.enqueue('load', players, 1300 + random() * 400, 40 + random() * 60,
                              professions => (SELECT array_agg((ARRAY['guardian','warrior','thief','ranger','engineer','necromancer','mesmer','elementalist','revenant'])[1 + floor(random() * 9)::int]) FROM generate_series(1, n)));
            INSERT INTO load_log VALUES (k, rid, 'enqueued', players);
            mine := mine || rid;
        ELSE
            i := 1 + floor(random() * cardinality(mine))::int;
            rid := mine[i];
            mine := mine[1:i - 1] || mine[i + 1:];
            IF mm.leave(rid) THEN
                INSERT INTO load_log VALUES (k, rid, 'left', NULL);
                free := free || (SELECT l.players FROM load_log l WHERE l.roster_id = rid AND l.action = 'enqueued');
            END IF;
        END IF;
        COMMIT;
        PERFORM pg_sleep(random() * 0.01);
    END LOOP;
END
$$;
SQL
}

ticker() {
	psql_q -c "CALL mm.run_ticks('load', '200 milliseconds', '${secs} seconds')"
}

pids=()
for k in 1 2 3; do enqueuer "$k" & pids+=($!); done
for _ in 1 2; do ticker & pids+=($!); done
errors=0
for p in "${pids[@]}"; do wait "$p" || errors=$((errors + 1)); done
if [ "$errors" = 0 ]; then ok "3 enqueue/leave sessions and 2 tick sessions ran ${secs} s without error"; else notok "$errors sessions failed"; fi

check() {
	local what=$1 sql=$2 expect=$3 got
	got=$(psql_q -c "$sql")
	if [ "$got" = "$expect" ]; then ok "$what"; else notok "$what (got: $got)"; fi
}

psql_q -c "SELECT 'load: ' || (SELECT count(*) FROM load_log WHERE action = 'enqueued') || ' rosters queued, '
    || (SELECT count(*) FROM load_log WHERE action = 'left') || ' left, '
    || (SELECT count(*) FROM mm.match) || ' matches, '
    || (SELECT count(*) FROM mm.roster) || ' waiting, '
    || (SELECT count(*) FROM mm.tick_log) || ' ticks'" | sed 's/^/# /'
check "ticks made matches" "SELECT count(*) > 0 FROM mm.match" t
check "every roster is in exactly one place (waiting, matched once, or left)" "
    SELECT count(*) FROM load_log e
    WHERE e.action = 'enqueued'
      AND (SELECT count(*) FROM mm.roster r WHERE r.roster_id = e.roster_id)
        + (SELECT count(*) FROM mm.match_roster m WHERE m.roster_id = e.roster_id)
        + (SELECT count(*) FROM load_log l WHERE l.roster_id = e.roster_id AND l.action = 'left') <> 1" 0
check "no roster appears that was never queued" "
    SELECT count(*) FROM (SELECT roster_id FROM mm.roster UNION ALL SELECT roster_id FROM mm.match_roster) x
    WHERE NOT EXISTS (SELECT 1 FROM load_log l WHERE l.roster_id = x.roster_id)" 0
check "no player is in two matches" "
    SELECT count(*) FROM (SELECT p FROM mm.match_roster, unnest(players) p GROUP BY p HAVING count(*) > 1) x" 0
check "every team has exactly 5 players" "
    SELECT count(*) FROM (SELECT match_id, team, sum(cardinality(players)) n FROM mm.match_roster GROUP BY 1, 2) t
    WHERE n <> 5" 0
check "every match has a red and a blue team" "
    SELECT count(*) FROM mm.match m WHERE (SELECT count(DISTINCT team) FROM mm.match_roster r WHERE r.match_id = m.match_id) <> 2" 0
check "every waiting roster has its players (mm.queued_player), every queued player a waiting roster" "
    SELECT (SELECT count(*) FROM mm.roster r WHERE NOT EXISTS (SELECT FROM mm.queued_player qp WHERE qp.roster_id = r.roster_id))
         + (SELECT count(*) FROM mm.queued_player qp WHERE NOT EXISTS (SELECT FROM mm.roster r WHERE r.roster_id = qp.roster_id))" 0
check "no player is both waiting and in the match made from the same roster" "
    SELECT count(*) FROM mm.queued_player qp JOIN mm.match_roster mr ON mr.roster_id = qp.roster_id" 0
psql -X -q -d postgres -c "DROP DATABASE $db"
exit $fail
