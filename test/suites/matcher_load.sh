#!/usr/bin/env bash
# Load test of the queue engine, for MM_LOAD_SECONDS (default 12) seconds,
# over two queues: "load", red against blue in teams of 5, and "load3",
# three named teams of 3 (ash, oak, elm):
#   - three sessions enqueue parties (of 1..5 in load, 1..3 in load3),
#     leave some, and take single players out of parties (mm.remove_player);
#   - a claimer hands out matches with mm.claim_matches;
#   - a mm.run_ticks session ticks every 200 ms (restarted when cancelled),
#     a second session ticks with statement_timeout = 20ms (many ticks are
#     cancelled half way), and a canceller pg_cancel_backend()s ticks;
#   - halfway, the server is stopped with an immediate shutdown and
#     started again; every session reconnects.
# Afterwards every roster is in exactly one place (waiting, matched once,
# left), no player is in two matches or in a match of the roster it was
# removed from, every match has exactly its queue's teams (as its teams
# name them) of exactly team_size players, every match has been claimed
# exactly once, and the queue tables agree with each other.
# TAP lines "ok - ..." / "not ok - ...".
#
# Every action commits together with its line in the load log, so after a
# crash the log and the queue still agree. Player ids are never reused, so
# a player in two matches can only come from a double match.
set -uo pipefail

db=mm_load
secs=${MM_LOAD_SECONDS:-12}
fail=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }
psql_q() { psql -X -q -At -d "$db" -v ON_ERROR_STOP=1 "$@"; }
bindir=$("${PG_CONFIG:-pg_config}" --bindir)
as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
restart_server() {
	as_owner "$bindir/pg_ctl" -D "$PGHOST/data" -m immediate -w stop >/dev/null 2>&1
	as_owner "$bindir/pg_ctl" -D "$PGHOST/data" -l "$PGHOST/server.log" -w -t 60 start >/dev/null 2>&1
}
# the cluster must be up for the suites after this one, whatever happens
trap 'psql -X -q -d postgres -c "SELECT 1" >/dev/null 2>&1 || as_owner "$bindir/pg_ctl" -D "$PGHOST/data" -l "$PGHOST/server.log" -w -t 60 start >/dev/null 2>&1' EXIT

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" 2>/dev/null || exit 1
psql_q >/dev/null <<'SQL' || { notok "load database set up"; exit 1; }
CREATE EXTENSION mm;
SELECT mm.create_queue('load', '{"filter": {"potentials_min": 5, "limit": 200}}');
SELECT mm.create_queue('load3', '{"team_names": ["ash", "oak", "elm"], "team_size": 3,
                                  "filter": {"potentials_min": 3, "limit": 200}}');
CREATE TABLE load_log (session int, roster_id bigint, action text, players bigint[],
                       PRIMARY KEY (roster_id, action));
CREATE TABLE removed_log (roster_id bigint, player_id bigint PRIMARY KEY);
CREATE TABLE claim_log (match_id bigint, at timestamptz DEFAULT clock_timestamp());
CREATE SEQUENCE load_player;
SQL
end=$(($(date +%s) + secs))

# One session's work for about a second, committing after each action.
enqueue_block() {
	psql_q -v k="$1" <<'SQL'
SET mm_load.k = :k;
DO $$
DECLARE
    k int := current_setting('mm_load.k')::int;
    stop timestamptz := clock_timestamp() + interval '1 second';
    mine bigint[];
    players bigint[];
    n int;
    rid bigint;
    p bigint;
    q text;
BEGIN
    WHILE clock_timestamp() < stop LOOP
        SELECT array_agg(l.roster_id) INTO mine FROM load_log l JOIN mm.roster r USING (roster_id)
        WHERE l.session = k AND l.action = 'enqueued';
        IF random() < 0.6 OR mine IS NULL THEN
            q := CASE WHEN random() < 0.5 THEN 'load' ELSE 'load3' END;
            n := 1 + floor(random() * CASE q WHEN 'load' THEN 5 ELSE 3 END)::int;
            players := ARRAY(SELECT nextval('load_player') FROM generate_series(1, n));
            rid := mm.enqueue(q, players, 1300 + random() * 400, 40 + random() * 60,
                              professions => (SELECT array_agg((ARRAY['guardian','warrior','thief','ranger','engineer','necromancer','mesmer','elementalist','revenant'])[1 + floor(random() * 9)::int]) FROM generate_series(1, n)));
            INSERT INTO load_log VALUES (k, rid, 'enqueued', players);
        ELSIF random() < 0.5 THEN
            rid := mine[1 + floor(random() * cardinality(mine))::int];
            IF mm.leave(rid) THEN
                INSERT INTO load_log VALUES (k, rid, 'left', NULL);
            END IF;
        ELSE
            -- one player out of a party of two or more
            SELECT qp.roster_id, qp.player_id INTO rid, p FROM mm.queued_player qp
            WHERE qp.roster_id = ANY (mine)
              AND (SELECT count(*) FROM mm.queued_player o WHERE o.roster_id = qp.roster_id) > 1
            ORDER BY random() LIMIT 1;
            IF FOUND AND mm.remove_player(rid, p) THEN
                INSERT INTO removed_log VALUES (rid, p);
            END IF;
        END IF;
        COMMIT;
        PERFORM pg_sleep(random() * 0.01);
    END LOOP;
END
$$;
SQL
}
enqueuer() {
	while [ "$(date +%s)" -lt "$end" ]; do enqueue_block "$1" >/dev/null 2>&1 || sleep 0.3; done
}
claimer() {
	while [ "$(date +%s)" -lt "$end" ]; do
		psql_q -c "INSERT INTO claim_log (match_id) SELECT DISTINCT match_id FROM mm.claim_matches('load', 5)" \
			-c "INSERT INTO claim_log (match_id) SELECT DISTINCT match_id FROM mm.claim_matches('load3', 5)" \
			>/dev/null 2>&1 || sleep 0.3
		sleep 0.05
	done
}
ticker() {
	while [ "$(date +%s)" -lt "$end" ]; do
		psql_q -c "CALL mm.run_ticks(NULL, '200 milliseconds', '$((end - $(date +%s))) seconds')" >/dev/null 2>&1 || sleep 0.2
	done
}
short_ticker() {
	while [ "$(date +%s)" -lt "$end" ]; do
		psql_q -c "SET statement_timeout = '20ms'" -c "SELECT count(*) FROM mm.tick('load')" >/dev/null 2>&1
		psql_q -c "SET statement_timeout = '20ms'" -c "SELECT count(*) FROM mm.tick('load3')" >/dev/null 2>&1
		sleep 0.1
	done
}
canceller() {
	local n=0
	while [ "$(date +%s)" -lt "$end" ]; do
		sleep 0.7
		c=$(psql -X -At -d postgres -c "SELECT count(pg_cancel_backend(pid)) FROM pg_stat_activity
			WHERE datname = '$db' AND state = 'active' AND (query LIKE '%mm.run_ticks%' OR query LIKE '%mm.tick(%')
			  AND pid <> pg_backend_pid()" 2>/dev/null) && n=$((n + ${c:-0}))
	done
	echo "$n" >"$cancels"
}

cancels=$(mktemp)
pids=()
for k in 1 2 3; do enqueuer "$k" & pids+=($!); done
claimer & pids+=($!)
ticker & pids+=($!)
short_ticker & pids+=($!)
canceller & pids+=($!)
sleep $((secs / 2))
if restart_server; then
	ok "immediate shutdown and restart in the middle of the load"
else
	notok "immediate shutdown and restart in the middle of the load"
fi
for p in "${pids[@]}"; do wait "$p"; done
# deliver what is left
psql_q -c "INSERT INTO claim_log (match_id) SELECT DISTINCT match_id FROM mm.claim_matches('load', 100000)" \
	-c "INSERT INTO claim_log (match_id) SELECT DISTINCT match_id FROM mm.claim_matches('load3', 100000)" >/dev/null

check() {
	local what=$1 sql=$2 expect=$3 got
	got=$(psql_q -c "$sql")
	if [ "$got" = "$expect" ]; then ok "$what"; else notok "$what (got: $got)"; fi
}

psql_q -c "SELECT 'load: ' || (SELECT count(*) FROM load_log WHERE action = 'enqueued') || ' rosters queued, '
    || (SELECT count(*) FROM load_log WHERE action = 'left') || ' left, '
    || (SELECT count(*) FROM removed_log) || ' players removed, '
    || (SELECT count(*) FROM mm.match) || ' matches ('
    || (SELECT count(*) FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'load3') || ' of three teams), '
    || (SELECT count(*) FROM mm.roster) || ' waiting, '
    || (SELECT count(*) FROM mm.tick_log) || ' ticks committed, '
    || (SELECT coalesce(sum(matches_dropped), 0) FROM mm.tick_log) || ' matches dropped, $(cat "$cancels") cancels sent'" | sed 's/^/# /'
rm -f "$cancels"
check "ticks made matches in both queues" "SELECT count(DISTINCT queue_id) = 2 FROM mm.match" t
check "every roster is in exactly one place (waiting, matched once, or left)" "
    SELECT count(*) FROM load_log e
    WHERE e.action = 'enqueued'
      AND (SELECT count(*) FROM mm.roster r WHERE r.roster_id = e.roster_id AND r.match_id IS NULL)
        + (SELECT count(*) FROM mm.match_roster m WHERE m.roster_id = e.roster_id)
        + (SELECT count(*) FROM load_log l WHERE l.roster_id = e.roster_id AND l.action = 'left') <> 1" 0
check "no roster appears that was never queued" "
    SELECT count(*) FROM (SELECT roster_id FROM mm.roster UNION ALL SELECT roster_id FROM mm.match_roster) x
    WHERE NOT EXISTS (SELECT 1 FROM load_log l WHERE l.roster_id = x.roster_id)" 0
check "no player is in two matches" "
    SELECT count(*) FROM (SELECT p FROM mm.match_roster, unnest(players) p GROUP BY p HAVING count(*) > 1) x" 0
check "no removed player is in the match of the roster it was removed from, nor still waiting" "
    SELECT (SELECT count(*) FROM removed_log r JOIN mm.match_roster mr ON mr.roster_id = r.roster_id AND r.player_id = ANY (mr.players))
         + (SELECT count(*) FROM removed_log r JOIN mm.queued_player qp USING (player_id))" 0
check "every team has exactly its queue's team_size players (5 in load, 3 in load3)" "
    SELECT count(*) FROM (SELECT mr.match_id, mr.team, sum(cardinality(mr.players)) n,
                                 (mm.matcher_config(q.config) ->> 'team_size')::int AS size
                          FROM mm.match_roster mr JOIN mm.queue q USING (queue_id) GROUP BY 1, 2, 4) t
    WHERE n <> size" 0
check "every match has its queue's teams, each with rosters, and no roster of another team" "
    SELECT count(*) FROM mm.match m JOIN mm.queue q USING (queue_id)
    WHERE m.teams <> CASE q.name WHEN 'load' THEN '{red,blue}'::text[] ELSE '{ash,oak,elm}' END
       OR (SELECT count(DISTINCT team) FROM mm.match_roster r WHERE r.match_id = m.match_id) <> cardinality(m.teams)
       OR EXISTS (SELECT FROM mm.match_roster r WHERE r.match_id = m.match_id AND r.team <> ALL (m.teams))" 0
check "every match was claimed exactly once" "
    SELECT (SELECT count(*) FROM (SELECT match_id FROM claim_log GROUP BY 1 HAVING count(*) > 1) d)
         + (SELECT count(*) FROM mm.match m WHERE NOT EXISTS (SELECT FROM claim_log c WHERE c.match_id = m.match_id))
         + (SELECT count(*) FROM mm.match WHERE delivered_at IS NULL)" 0
check "every waiting roster has its players, every queued player a waiting roster, no matched roster still waiting" "
    SELECT (SELECT count(*) FROM mm.roster r WHERE NOT EXISTS (SELECT FROM mm.queued_player qp WHERE qp.roster_id = r.roster_id))
         + (SELECT count(*) FROM mm.queued_player qp WHERE NOT EXISTS (SELECT FROM mm.roster r WHERE r.roster_id = qp.roster_id))
         + (SELECT count(*) FROM mm.queued_player qp JOIN mm.roster r USING (queue_id, roster_id)
            JOIN mm.match_roster mr ON mr.roster_id = qp.roster_id WHERE r.match_id IS NULL)" 0
check "the ticket history agrees: every matched player waited in its roster with no end event for it, every matched roster's status ends matched to its match, no matched event for a waiting roster" "
    SELECT (SELECT count(*) FROM mm.match_roster mr, unnest(mr.players) p
            WHERE NOT EXISTS (SELECT FROM mm.ticket_event e WHERE e.roster_id = mr.roster_id AND e.player_id = p AND e.status = 'waiting')
               OR EXISTS (SELECT FROM mm.ticket_event e WHERE e.roster_id = mr.roster_id AND e.player_id = p AND e.status <> 'waiting'))
         + (SELECT count(*) FROM mm.match_roster mr
            WHERE (SELECT s.status || ' ' || s.match_id FROM mm.roster_status(mr.roster_id) WITH ORDINALITY s
                   ORDER BY s.ordinality DESC LIMIT 1) IS DISTINCT FROM 'matched ' || mr.match_id)
         + (SELECT count(*) FROM mm.ticket_event e JOIN mm.roster r USING (roster_id) WHERE e.status = 'matched' AND r.match_id IS NULL)" 0
psql -X -q -d postgres -c "DROP DATABASE $db"
exit $fail
