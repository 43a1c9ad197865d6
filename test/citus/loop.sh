#!/usr/bin/env bash
# The whole loop through the coordinator, run by test/suites/citus.sh after
# test/citus/queues.sh (the queue tables distributed, PGHOST/PGPORT/PGUSER
# the coordinator's). Every call a game backend, an operator and an analyst
# makes, on distributed queues, checked for what it returns and what it
# leaves in the tables, as on a single node; the calls that name a queue,
# a roster or a match by id run each statement on that queue's shard (the
# shards Citus names in the commands it sends). TAP lines; exit 1 when
# one failed.
set -uo pipefail

. test/citus/checks.sh
# refused NAME SQL TEXT: the statement fails with an error containing TEXT.
refused() {
	local err
	err=$(q -c "$2" 2>&1 >/dev/null)
	if [[ "$err" == *"$3"* ]]; then
		ok "$1"
	else
		notok "$1 (got: $err)"
	fi
}
# routed NAME QUEUE_ID SQL: the statement succeeds, and every shard of a
# table distributed by queue that Citus sends a command to is the queue's
# (the shards of mm.waiting_player and mm.ratings, by player, may be any),
# but for the lookup of the queue of an id given alone, "SELECT queue_id
# FROM" a queue table, which reads every shard.
routed() {
	local out shards want bad lookups
	out=$(q -c "SET citus.log_remote_commands = on" -c "SET client_min_messages = notice" -c "$3" 2>&1)
	if [ $? != 0 ] || [[ "$out" == *ERROR* ]]; then
		notok "$1"
		echo "$out" | grep ERROR | sed 's/^/#   /' | head -5
		return
	fi
	lookups=$(echo "$out" | grep -cE 'issuing SELECT queue_id FROM mm\.[a-z_]+_[0-9]+ [a-z]+ WHERE')
	out=$(echo "$out" | grep -vE 'issuing SELECT queue_id FROM mm\.[a-z_]+_[0-9]+ [a-z]+ WHERE')
	shards=$(echo "$out" | grep -oE 'mm\.(roster|queued_player|match|match_accept|backfill|ended_roster|ticket_event|tick_log|odds_calibration|odds_result|match_result|match_result_player|queue_dodge)_[0-9]+' | sed 's/.*_//' | sort -u)
	want=$(q -c "SELECT shardid FROM pg_dist_shard WHERE logicalrelid::text IN ('mm.roster', 'mm.queued_player', 'mm.match',
	             'mm.match_accept', 'mm.backfill', 'mm.ended_roster', 'mm.ticket_event', 'mm.tick_log', 'mm.odds_calibration',
	             'mm.odds_result', 'mm.match_result', 'mm.match_result_player', 'mm.queue_dodge')
	             AND shardid = get_shard_id_for_distribution_column(logicalrelid, $2::int)" | sort -u)
	bad=$(comm -23 <(echo "$shards") <(echo "$want") | grep -c .)
	# a fourth argument: the call knows its queue and reads no other shard
	if [ -n "${4:-}" ] && [ "$lookups" != 0 ]; then
		notok "$1 ($lookups reads of every shard to find the queue, none expected)"
		return
	fi
	if [ -n "$shards" ] && [ "$bad" = 0 ]; then
		ok "$1 (runs on the queue's shards only: $(echo "$shards" | wc -l) shards named; $lookups reads of every shard to find the queue)"
	else
		notok "$1 (shards named outside the queue's: $bad of $(echo "$shards" | grep -c .))"
	fi
}

# ---- queues on both workers; where each lives
q >/dev/null <<'SQL'
SELECT mm.create_queue('lp_duel', '{"team_size": 1, "filter": {"potentials_min": 1}, "requeue_while_in_match": true}');
SELECT mm.create_queue('lp_team', '{"team_size": 2, "filter": {"potentials_min": 1}}');
SELECT mm.create_queue('lp_ready', '{"team_size": 1, "filter": {"potentials_min": 1}, "accept_timeout": "10 minutes",
                                     "dodge_timeout": "1 hour"}');
SELECT mm.create_queue('lp_strict', '{"team_size": 1, "filter": {"potentials_min": 1}}');
SELECT mm.create_queue('lp_duel_' || i, '{"team_size": 1, "filter": {"potentials_min": 1}, "requeue_while_in_match": true}')
FROM generate_series(1, 6) i;
CREATE VIEW lp_node AS
SELECT q.queue_id, q.name, p.groupid
FROM mm.queue q JOIN pg_dist_placement p ON p.shardid = get_shard_id_for_distribution_column('mm.roster', q.queue_id)
WHERE q.name LIKE 'lp_%';
SQL
declare -A qid grp
while IFS='|' read -r name id g; do
	qid[$name]=$id
	grp[$name]=$g
done < <(q -c "SELECT name, queue_id, groupid FROM lp_node")
echo "# queues: $(q -c "SELECT string_agg(name || '@group' || groupid, ' ' ORDER BY name) FROM lp_node")"
# two duel queues (requeue_while_in_match true) on different workers: lo on
# the lower group, hi on the higher (whose ids are larger)
lo=$(q -c "SELECT name FROM lp_node WHERE name LIKE 'lp_duel_%' ORDER BY groupid, name LIMIT 1")
hi=$(q -c "SELECT name FROM lp_node WHERE name LIKE 'lp_duel_%' ORDER BY groupid DESC, name LIMIT 1")
qid[lp_duel_b]=${qid[$hi]}
[ "${grp[$lo]}" != "${grp[$hi]}" ] || notok "duel queues on both workers (got $lo and $hi on group ${grp[$lo]})"

# ---- the backend loop, by queue name, from the coordinator
q >/dev/null <<'SQL'
SELECT mm.enqueue('lp_team', '{801, 802}', 1500, 40, joined_at => now() - interval '2 minutes');
SELECT mm.enqueue('lp_team', '{803}', 1510, 40, joined_at => now() - interval '2 minutes');
SELECT mm.enqueue('lp_team', '{804}', 1490, 40, joined_at => now() - interval '2 minutes');
SELECT mm.enqueue('lp_team', '{805, 806}', 2400, 40);
SQL
party=$(q -c "SELECT roster_id FROM mm.queued_player WHERE player_id = 805")
check "enqueue by name, then list_queue: the four rosters in queue order with their players" \
	"SELECT string_agg(players::text, ' ' ORDER BY place) = '{801,802} {803} {804} {805,806}' FROM mm.list_queue('lp_team')"
check "ticket_status: a waiting player's queue, roster and since" \
	"SELECT status = 'waiting' AND queue = 'lp_team' AND roster_id = $party FROM mm.ticket_status(805)"
check "roster_status: the roster's history (waiting, both players)" \
	"SELECT string_agg(status || ':' || players::text, ' ') = 'waiting:{805,806}' FROM mm.roster_status($party)"
check "explain: why the lone high roster waits (its rating range finds no potentials)" \
	"SELECT outcome IN ('no_potentials', 'potentials_min', 'incomplete') AND queue = 'lp_team' FROM mm.explain($party)"
check "update_roster by roster id alone: true" "SELECT mm.update_roster($party, rating => 2300)"
check "the waiting roster's rating changed, its place stayed" \
	"SELECT rating = 2300 AND place = 4 FROM mm.list_queue('lp_team') WHERE roster_id = $party"
check "remove_player: one player leaves the party" "SELECT mm.remove_player($party, 806)"
check "the other keeps waiting in its place; ticket_status of the one removed: removed" \
	"SELECT (SELECT players = '{805}' AND place = 4 FROM mm.list_queue('lp_team') WHERE roster_id = $party)
	    AND (SELECT status = 'removed' FROM mm.ticket_status(806))"
routed "remove_player of the last player, by roster id alone, finds the roster's queue, then runs on its shard" "${qid[lp_team]}" \
	"SELECT mm.remove_player($party, 805)"
check "the last player removed takes the roster out (ticket_status removed)" \
	"SELECT status = 'removed' AND roster_id = $party FROM mm.ticket_status(805)"
routed "tick by queue name from the coordinator routes each statement to the queue's shard" "${qid[lp_team]}" \
	"SELECT count(*) FROM mm.tick('lp_team')"
m_team=$(q -c "SELECT min(match_id) FROM mm.match WHERE queue_id = ${qid[lp_team]}")
check "the tick made the 2v2: {801,802} against {803} and {804}, drawn from the coordinator's range of ids" \
	"SELECT count(*) = 3 AND ($m_team >> 48) = 0 FROM mm.match_roster WHERE queue_id = ${qid[lp_team]} AND match_id = $m_team"
check "ticket_status of a matched player: matched, with its match" \
	"SELECT status = 'matched' AND match_id = $m_team AND match_status = 'matched' FROM mm.ticket_status(803)"
check "queue_stats: the queue's waiting rosters and last hour's matches" \
	"SELECT waiting_rosters = 0 AND matches_last_hour = 1 AND ticks_last_hour >= 1 FROM mm.queue_stats WHERE queue = 'lp_team'"
routed "claim_matches by queue name routes to the queue's shard" "${qid[lp_team]}" \
	"SELECT count(*) FROM mm.claim_matches('lp_team')"
check "the claimed match is not claimed again; open_matches lists it for a backend that restarts" \
	"SELECT (SELECT count(*) = 0 FROM mm.claim_matches('lp_team'))
	    AND (SELECT count(*) = 3 AND bool_and(match_id = $m_team) FROM mm.open_matches('lp_team'))"
check "match_players: the match's rosters by team, for the ids of a notification" \
	"SELECT count(*) = 3 AND bool_and(status = 'matched') FROM mm.match_players(ARRAY[$m_team]::bigint[])"

# backfill: a player of the match leaves; the next tick fills the seat
bf=$(q -c "SELECT mm.request_backfill($m_team, (SELECT team FROM mm.match_roster WHERE match_id = $m_team AND players = '{803}'), 1)")
q -c "SELECT mm.enqueue('lp_team', '{807}', 1500, 40, joined_at => now() - interval '1 minute')" >/dev/null
q -c "SELECT count(*) FROM mm.tick('lp_team')" >/dev/null
check "request_backfill, then a tick fills it from the queue; claim_matches hands the backfill over once" \
	"SELECT (SELECT status = 'filled' FROM mm.backfill WHERE backfill_id = $bf)
	    AND (SELECT count(*) = 1 AND bool_and(kind = 'backfill' AND backfill_id = $bf AND players = '{807}') FROM mm.claim_matches('lp_team'))"
bf2=$(q -c "SELECT mm.request_backfill($m_team, (SELECT team FROM mm.match_roster WHERE match_id = $m_team AND players = '{804}'), 1)")
check "cancel_backfill by its id alone: true, then false" \
	"SELECT mm.cancel_backfill($bf2) AND NOT mm.cancel_backfill($bf2)"

# results: by match id alone, then the same again, then a different one
result='{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}'
routed "report_result by match id alone finds the match's queue, then runs on its shard" "${qid[lp_team]}" \
	"SELECT count(*) FROM mm.report_result($m_team, '$result')"
check "the report rated every player of the match (the backfilled one too) and recorded the result with the match" \
	"SELECT (SELECT count(*) = 5 FROM mm.match_result_player WHERE queue_id = ${qid[lp_team]} AND match_id = $m_team)
	    AND (SELECT status = 'finished' FROM mm.match WHERE queue_id = ${qid[lp_team]} AND match_id = $m_team)
	    AND (SELECT count(*) = 5 AND bool_and(games = 1) FROM mm.ratings WHERE player_id IN (801, 802, 803, 804, 807))"
again=$(q -c "SELECT count(*) FROM mm.report_result($m_team, '$result')")
check "the same report again returns the first outcome ($again rows) and rates nothing twice" \
	"SELECT $again = 5 AND bool_and(games = 1) FROM mm.ratings WHERE player_id IN (801, 802, 803, 804, 807)"
refused "a different result for a reported match is refused (23505)" \
	"SELECT * FROM mm.report_result($m_team, '{\"teams\": {\"red\": {\"rank\": 2}, \"blue\": {\"rank\": 1}}}')" \
	"already has a different result"
rr=$(q -c "SELECT rating || '/' || deviation FROM mm.roster_rating('{801,802}')")
check "roster_rating from the players' distributed mm.ratings rows: the family's rating of their states ($rr)" \
	"SELECT r.rating || '/' || r.deviation = '$rr' AND r.rating > 25
	 FROM (SELECT array_agg(state ORDER BY player_id) AS st, array_agg(last_played ORDER BY player_id) AS lp
	       FROM mm.ratings WHERE player_id IN (801, 802)) s,
	      mm._roster_rating(mm.matcher_config('{}'), now(), 0, s.st, s.lp, s.st, s.lp) r"
check "leaderboard and the rating history views read the distributed results" \
	"SELECT (SELECT count(*) = 5 FROM mm.leaderboard WHERE player_id IN (801, 802, 803, 804, 807))
	    AND (SELECT count(*) = 5 AND bool_and(game = 1) FROM mm.openskill_rating_history WHERE match_id = $m_team)"
check "an analyst's replay over the distributed result history equals the states the report wrote" \
	"SELECT bool_and(r.mu = x.state[1] AND r.sigma = x.state[2])
	 FROM mm.openskill_replay('SELECT match_id, player_id, (array_position(ARRAY[''red'', ''blue''], team))::int AS team, rank
	                           FROM mm.match_result_player WHERE match_id = $m_team ORDER BY player_id') r
	 JOIN mm.ratings x USING (player_id)"

# the queue-id forms: delegated to the queue's worker, ids from its range
d=${qid[lp_duel]}
r1=$(q -c "SELECT mm.enqueue($d, '{811}', 1500, 50, joined_at => now() - interval '1 minute')")
r2=$(q -c "SELECT mm.enqueue($d, '{812}', 1500, 50, joined_at => now() - interval '1 minute')")
q -c "SELECT * FROM mm.tick($d)" >/dev/null
m_duel=$(q -c "SELECT match_id FROM mm.claim_matches($d) LIMIT 1")
check "enqueue, tick and claim_matches by queue id run on the queue's worker (ids of its range)" \
	"SELECT ($r1 >> 48) = ${grp[lp_duel]} AND ($m_duel >> 48) = ${grp[lp_duel]}"
routed "report_result(queue id, match id, result) runs on the coordinator, each statement sent to the queue's shard, the match not looked up" \
	"$d" "SELECT count(*) FROM mm.report_result($d, $m_duel, '$result')" known
check "report_result by queue id rated the match's two players and finished it" \
	"SELECT (SELECT count(*) = 2 FROM mm.match_result_player WHERE queue_id = $d AND match_id = $m_duel)
	    AND (SELECT status = 'finished' FROM mm.match WHERE queue_id = $d AND match_id = $m_duel)"
refused "report_result by queue id refuses a match of another queue" \
	"SELECT * FROM mm.report_result(${qid[lp_team]}, $m_duel, '$result')" "does not exist"
q -c "SELECT mm.enqueue($d, '{813}', 1500, 50, joined_at => now() - interval '1 minute')" >/dev/null
q -c "SELECT mm.enqueue($d, '{814}', 1500, 50, joined_at => now() - interval '1 minute')" >/dev/null
q -c "SELECT * FROM mm.tick($d)" >/dev/null
m_ab=$(q -c "SELECT match_id FROM mm.match WHERE queue_id = $d AND status = 'matched'")
abandoned=$(q -c "SELECT mm.abandon_match($m_ab)" -c "SELECT mm.abandon_match($m_ab)" | tr '\n' ' ')
check "abandon_match by match id alone: true, then false (got: $abandoned); its players may queue again" \
	"SELECT '$abandoned' = 't f ' AND mm.enqueue('lp_duel', '{813}', 1500, 50) > 0"
q -c "SELECT mm.leave_player(813)" >/dev/null
r815=$(q -c "SELECT mm.enqueue('lp_duel', '{815}', 1500, 50)")
left=$(q -c "SELECT mm.leave($r815)" -c "SELECT mm.leave($r815)" | tr '\n' ' ')
check "leave by roster id alone takes a waiting roster out, then returns false (leave: $left)" \
	"SELECT '$left' = 't f ' AND (SELECT status = 'left' AND roster_id = $r815 FROM mm.ticket_status(815))"
r816=$(q -c "SELECT mm.enqueue('lp_duel', '{816}', 1500, 50)")
check "leave_player: the player's waiting roster, found from its own row of mm.waiting_player, taken out" \
	"SELECT mm.leave_player(816) = $r816"
check "ticket_status after leave_player: left, with the reason" \
	"SELECT status = 'left' AND reason = 'leave_player' AND roster_id = $r816 FROM mm.ticket_status(816)"

# ---- the ready check, on its worker and through the coordinator
r=${qid[lp_ready]}
q >/dev/null <<SQL
SELECT mm.enqueue($r, '{821}', 1500, 50, joined_at => now() - interval '1 minute');
SELECT mm.enqueue($r, '{822}', 1500, 50, joined_at => now() - interval '1 minute');
SELECT mm.enqueue($r, '{823}', 1500, 50, joined_at => now() - interval '1 minute');
SELECT mm.enqueue($r, '{824}', 1500, 50, joined_at => now() - interval '1 minute');
SELECT count(*) FROM mm.tick($r);
SQL
m_a=$(q -c "SELECT match_id FROM mm.match_roster WHERE queue_id = $r AND 821 = ANY (players)")
m_b=$(q -c "SELECT match_id FROM mm.match_roster WHERE queue_id = $r AND 823 = ANY (players)")
check "a queue with a ready check proposes its matches (ticket_status proposed)" \
	"SELECT status = 'proposed' AND match_id = $m_a FROM mm.ticket_status(821)"
other=$hi; [ "${grp[$hi]}" = "${grp[lp_ready]}" ] && other=$lo
refused "a player in a ready check on one worker cannot queue on the other" \
	"SELECT mm.enqueue(${qid[$other]}, '{821}', 1500, 50)" "is in the ready check of match"
check "accept: the match stays proposed until both players accept (ticket_status accepted)" \
	"SELECT mm.accept($m_a, 821) = 'proposed'"
check "ticket_status of a player who accepted: accepted" "SELECT status = 'accepted' FROM mm.ticket_status(821)"
check "the last accept makes the match ready to play" "SELECT mm.accept($m_a, 822) = 'matched'"
check "then ticket_status says matched and claim_matches hands the match over" \
	"SELECT (SELECT status = 'matched' FROM mm.ticket_status(821)) AND (SELECT count(*) = 2 FROM mm.claim_matches('lp_ready'))"
check "decline: the match dissolves" "SELECT mm.decline($m_b, 823)"
check "the match is dissolved, the decliner kept out by the queue's dodge_timeout" \
	"SELECT (SELECT status = 'dissolved' FROM mm.match WHERE queue_id = $r AND match_id = $m_b)
	    AND (SELECT count(*) = 1 FROM mm.queue_dodge WHERE queue_id = $r AND player_id = 823)"
check "the decliner is removed, the other player waits again (ticket_status)" \
	"SELECT (SELECT status = 'removed' FROM mm.ticket_status(823)) AND (SELECT status = 'waiting' FROM mm.ticket_status(824))"
refused "the dodger is refused by the queue's dodge_timeout (read on the queue's shard)" \
	"SELECT mm.enqueue($r, '{823}', 1500, 50)" "dodged a ready check"
check "match_players of the dissolved match: who went back, who was removed" \
	"SELECT string_agg(players::text || ':' || requeued, ' ' ORDER BY roster_id) = '{823}:false {824}:true'
	 FROM mm.match_players(ARRAY[$m_b]::bigint[])"

# ---- requeue_while_in_match by time, not by id: a player's matches made
# on the worker of the higher group have the larger ids
q >/dev/null <<SQL
SELECT mm.enqueue(${qid[$hi]}, '{831}', 1500, 50, joined_at => now() - interval '1 minute');
SELECT mm.enqueue(${qid[$hi]}, '{832}', 1500, 50, joined_at => now() - interval '1 minute');
SELECT count(*) FROM mm.tick(${qid[$hi]});
SELECT mm.enqueue(${qid[$lo]}, '{831}', 1500, 50, joined_at => now() - interval '1 minute');
SELECT mm.enqueue(${qid[$lo]}, '{832}', 1500, 50, joined_at => now() - interval '1 minute');
SELECT count(*) FROM mm.tick(${qid[$lo]});
SQL
old=$(q -c "SELECT match_id FROM mm.match_roster WHERE queue_id = ${qid[$hi]} AND 831 = ANY (players)")
new=$(q -c "SELECT match_id FROM mm.match_roster WHERE queue_id = ${qid[$lo]} AND 831 = ANY (players)")
q -c "SELECT count(*) FROM mm.report_result($new, '$result')" >/dev/null
check "the player's older match has the larger id (made on the higher group), its newer match is finished" \
	"SELECT $old > $new AND (SELECT status FROM mm.match WHERE match_id = $old) = 'matched'
	    AND (SELECT status FROM mm.match WHERE match_id = $new) = 'finished'"
check "requeue_while_in_match false looks at the player's last match by time: the newer, finished one lets it queue" \
	"SELECT mm.enqueue('lp_strict', '{831}', 1500, 50) > 0 AND mm.leave_player(831) IS NOT NULL"
q -c "SELECT count(*) FROM mm.report_result($old, '$result')" >/dev/null
q >/dev/null <<SQL
SELECT mm.enqueue(${qid[$lo]}, '{831}', 1500, 50, joined_at => now() - interval '1 minute');
SELECT mm.enqueue(${qid[$lo]}, '{833}', 1500, 50, joined_at => now() - interval '1 minute');
SELECT count(*) FROM mm.tick(${qid[$lo]});
SQL
refused "and refuses the player while its last match (open, the smaller id) is played" \
	"SELECT mm.enqueue('lp_strict', '{831}', 1500, 50)" "that is not finished"

# ---- the operator
routed "alter_queue routes its removal of rosters larger than the new team to the queue's shard" "${qid[lp_team]}" \
	"SELECT mm.enqueue('lp_team', '{841, 842}', 1500, 50) > 0 AND mm.alter_queue('lp_team', '{\"team_size\": 1}') IS NOT NULL"
check "alter_queue removed the party larger than a team (ticket_status removed, reason team_size)" \
	"SELECT status = 'removed' AND reason = 'team_size' FROM mm.ticket_status(841)"
q -c "SELECT mm.enqueue('lp_team', ARRAY[850 + p]::bigint[], 1500, 50, joined_at => now() - interval '1 minute') FROM generate_series(1, 4) p" >/dev/null
if q -c "CALL mm.run_ticks('lp_team', '100 ms', '400 ms')" >/dev/null 2>&1; then
	check "run_ticks on the coordinator ticks the queue by name (each tick routed to its shard)" \
		"SELECT count(*) >= 2 FROM mm.match WHERE queue_id = ${qid[lp_team]} AND status = 'matched'"
else
	notok "run_ticks on the coordinator ticks the queue by name"
fi
q >/dev/null <<'SQL'
SELECT mm.create_queue('lp_glicko', '{"team_size": 1, "filter": {"potentials_min": 1},
                                      "rating": {"model": "glicko2", "key": "lp_g", "period": "pending"}}');
SELECT mm.enqueue('lp_glicko', ARRAY[860 + p]::bigint[], 1500, 50, joined_at => now() - interval '1 minute')
FROM generate_series(1, 4) p;
SELECT count(*) FROM mm.tick('lp_glicko');
SQL
for m in $(q -c "SELECT match_id FROM mm.match WHERE queue_id = (SELECT queue_id FROM mm.queue WHERE name = 'lp_glicko')"); do
	q -c "SELECT count(*) FROM mm.report_result($m, '$result')" >/dev/null
done
check "the pending period holds the games of the reports (mm.rating_period_game, by player)" \
	"SELECT count(*) = 4 FROM mm.rating_period_game WHERE key = 'lp_g'"
check "close_rating_period rates the pending period's games (rows locked one at a time in player order)" \
	"SELECT count(*) = 4 AND bool_and(games = 1) FROM mm.close_rating_period('lp_g')"
check "and removes them; the players' Glicko-2 ratings count the game" \
	"SELECT (SELECT count(*) = 0 FROM mm.rating_period_game WHERE key = 'lp_g')
	    AND (SELECT count(*) = 4 FROM mm.glicko2_ratings WHERE key = 'lp_g' AND games = 1)"
q -c "SELECT mm.leave_player(831)" -c "SELECT mm.drop_queue('lp_strict')" -c "SELECT mm.create_queue('lp_strict', '{}')" \
	-c "SELECT mm.drop_queue('lp_strict', keep_history => false)" >/dev/null
check "drop_queue keeps the history (the name free again); keep_history => false deletes it whole" \
	"SELECT count(*) = 1 AND bool_and(dropped_at IS NOT NULL) FROM mm.queue WHERE name = 'lp_strict'"
before=$(q -c "SELECT count(*) FROM mm.tick_log")
# (the NOTICE of the live matches purge keeps is not the answer)
check "purge trims the history of every queue on every shard" "SET client_min_messages = warning; SELECT mm.purge('0 seconds', 100000) > 0"
check "the tick log is shorter and the dropped queue, with no history left, is gone" \
	"SELECT (SELECT count(*) = 0 FROM mm.queue WHERE name = 'lp_strict') AND (SELECT count(*) < $before FROM mm.tick_log)"

exit $fail
