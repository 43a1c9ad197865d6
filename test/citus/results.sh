#!/usr/bin/env bash
# Results on Citus, run by test/suites/citus.sh (queue tables distributed,
# PGHOST/PGPORT/PGUSER the coordinator's). Eight 5v5 matches of the same
# ten players (a queue that lets players queue again while in a match), all
# open at once, each reported by four clients at the same time, through the
# coordinator by match id and by queue id (neither delegated: both run on
# the coordinator, the second without looking the match up on every shard),
# in four different orders. A report locks the match, then the players'
# rating rows in player order, one at a time on their shards: every match
# is rated exactly once, no update is lost (each player's states form one
# chain from the defaults to its rating, each match once), every player's
# chain runs through the matches in the same order, and that order replayed
# on one node (mm.openskill_replay) gives the same states bit for bit.
# TAP lines; exit 1 when one failed.
set -uo pipefail

. test/citus/checks.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

matches=8
q >/dev/null <<'SQL'
SELECT mm.create_queue('rs_team', '{"team_size": 5, "requeue_while_in_match": true,
                                    "filter": {"potentials_min": 1, "deviations": 10}}');
SQL
rq=$(q -c "SELECT queue_id FROM mm.queue WHERE name = 'rs_team' AND dropped_at IS NULL")
for k in $(seq 1 $matches); do
	q >/dev/null <<SQL
SELECT mm.enqueue('rs_team', ARRAY[p]::bigint[], 1500 + (p % 5) * 10, 50, joined_at => now() - interval '1 minute')
FROM generate_series(951, 960) p;
SELECT count(*) FROM mm.tick($rq);
SQL
done
made=$(q -c "SELECT count(*) FROM mm.match WHERE queue_id = $rq AND status = 'matched'")
check "$matches open 5v5 matches of the same ten players (each player in every one)" \
	"SELECT $made = $matches AND (SELECT count(*) = $matches * 10 AND count(DISTINCT p) = 10
	                              FROM mm.match_roster mr, unnest(mr.players) p WHERE mr.queue_id = $rq)"

# Four clients, each reporting every match (red wins the odd ones) in its
# own order: one by match id through the coordinator, one by queue id, two
# mixing them.
ids=$(q -c "SELECT match_id FROM mm.match WHERE queue_id = $rq ORDER BY match_id")
report() {
	local client=$1 order=$2 m n=0
	for m in $(echo "$ids" | sort $order); do
		n=$((n + 1))
		local res='{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}'
		[ $((m % 2)) = 0 ] && res='{"teams": {"red": {"rank": 2}, "blue": {"rank": 1}}}'
		if [ "$client" = 1 ] || { [ "$client" != 2 ] && [ $((n % 2)) = 0 ]; }; then
			echo "SELECT count(*) FROM mm.report_result($m, '$res');"
		else
			echo "SELECT count(*) FROM mm.report_result($rq, $m, '$res');"
		fi
	done | psql -X -q -At -d postgres >"$work/rep_$client.out" 2>"$work/rep_$client.err"
}
report 1 -n &
report 2 -rn &
report 3 -R &
report 4 -R &
wait
errors=$(cat "$work"/rep_*.err | grep -c ERROR)
rows=$(cat "$work"/rep_*.out | sort -u | tr '\n' ' ')
if [ "$errors" = 0 ] && [ "$rows" = "10 " ]; then
	ok "4 clients x $matches reports at the same time: no error, every call returned the match's 10 players"
else
	notok "4 clients x $matches reports at the same time: no error, every call returned the match's 10 players ($errors errors, rows: $rows)"
	cat "$work"/rep_*.err | grep ERROR | sort | uniq -c | head -5 | sed 's/^/#   /'
fi
check "each match rated exactly once: one result, ten player rows, every player's games counted $matches times" \
	"SELECT (SELECT count(*) = $matches FROM mm.match_result WHERE queue_id = $rq AND status = 'reported')
	    AND (SELECT count(*) = $matches * 10 FROM mm.match_result_player WHERE queue_id = $rq)
	    AND (SELECT count(*) = 10 AND bool_and(games = $matches) FROM mm.ratings WHERE player_id BETWEEN 951 AND 960)
	    AND (SELECT bool_and(status = 'finished') FROM mm.match WHERE queue_id = $rq)"

# Each player's chain: the rows whose state before is the defaults, then
# the row whose state before is the last row's state after, and so on.
chains=$(q <<SQL
CREATE TEMP TABLE rs_rows AS SELECT * FROM mm.match_result_player WHERE queue_id = $rq;
CREATE TEMP TABLE rs_start AS SELECT mm._rating_defaults(mm.matcher_config(config)) AS state FROM mm.queue WHERE queue_id = $rq;
CREATE TEMP TABLE rs_end AS SELECT player_id, state FROM mm.ratings WHERE player_id BETWEEN 951 AND 960;
WITH RECURSIVE c AS (
    SELECT r.player_id, r.match_id, r.state_after, 1 AS n FROM rs_rows r
    WHERE r.state_before = (SELECT s.state FROM rs_start s)
    UNION ALL
    SELECT r.player_id, r.match_id, r.state_after, c.n + 1 FROM c
    JOIN rs_rows r ON r.player_id = c.player_id AND r.state_before = c.state_after
)
SELECT (SELECT count(*) FROM c) || ' ' || (SELECT count(DISTINCT (player_id, n)) FROM c)
       || ' ' || (SELECT count(DISTINCT o) FROM (SELECT string_agg(match_id::text, ',' ORDER BY n) AS o FROM c GROUP BY player_id) x)
       || ' ' || (SELECT bool_and(c.state_after = x.state) FROM c JOIN rs_end x USING (player_id) WHERE c.n = $matches)
       || ' ' || (SELECT string_agg(match_id::text, ',' ORDER BY n) FROM c WHERE player_id = 951);
SQL
)
read -r steps distinct orders final order <<<"$chains"
if [ "$steps" = $((matches * 10)) ] && [ "$distinct" = $((matches * 10)) ]; then
	ok "no lost update: each player's $matches states form one chain from the defaults, each match once ($steps steps)"
else
	notok "no lost update: each player's states form one chain from the defaults (got $steps steps, $distinct distinct)"
fi
if [ "$orders" = 1 ] && [ "$final" = true ]; then
	ok "every player's chain runs through the matches in the same order, and ends at its rating in mm.ratings"
else
	notok "every player's chain runs through the matches in the same order ($orders orders), ends at its rating ($final)"
fi
# The same matches in that order on one node: the analyst's replay.
check "the chain's order replayed (mm.openskill_replay, one process) gives every player's rating bit for bit" \
	"SELECT count(*) = 10 AND bool_and(r.mu = x.state[1] AND r.sigma = x.state[2])
	 FROM mm.openskill_replay(\$\$SELECT p.match_id, p.player_id, array_position(ARRAY['red', 'blue'], p.team) AS team, p.rank
	                          FROM mm.match_result_player p
	                          JOIN unnest('{$order}'::bigint[]) WITH ORDINALITY AS o(match_id, n) USING (match_id)
	                          WHERE p.queue_id = $rq ORDER BY o.n, p.player_id\$\$) r
	 JOIN mm.ratings x USING (player_id)"
exit $fail
