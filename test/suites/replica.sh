#!/usr/bin/env bash
# Analysts on a replica: a single node (the primary) with mm and some data, a
# streaming replica of it made with pg_basebackup and run as a hot standby.
# Every read-only call (ratings, predictions, replays, queue preview and
# statistics, placement scoring, async candidates) works on the standby and
# gives the primary's answer; mm's calls that write fail there with SQLSTATE
# 25006 and "mm.<call> must run on the primary", other writes with
# PostgreSQL's "cannot execute ... in a read-only transaction".
# TAP lines "ok - ..." / "not ok - ...".
#
# Its own two clusters (unix sockets only) on ports derived from the base
# MM_PORT (test/ports.sh): the primary on MM_PORT+4, the standby on
# MM_PORT+5, data in MM_TMPDIR (default /tmp)/mm-replica-PORT, both stopped
# and removed whatever happens. A folder at either path that mm's test
# scripts did not create (no marker file .mm-cluster) is refused and left
# alone.
set -uo pipefail

PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
bindir=$("$PG_CONFIG" --bindir)
. "$(dirname "${BASH_SOURCE[0]}")/../ports.sh"
primary=$(mm_port replica) || exit 2
standby=$((primary + 1))
tmp=$(mm_tmpdir)
fail=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }

as_owner() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}
# psql on the primary (on ...) or on the standby (on_standby ...).
psql_at() {
	local port=$1
	shift
	psql -X -q -At -h "$tmp/mm-replica-$port" -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 "$@"
}
on() { psql_at "$primary" "$@"; }
on_standby() { psql_at "$standby" "$@"; }
# Only the folders this suite (or another of mm's test scripts) created.
stop_all() {
	for port in "$primary" "$standby"; do
		mm_ours "$tmp/mm-replica-$port" || continue
		if [ -f "$tmp/mm-replica-$port/data/postmaster.pid" ]; then
			as_owner "$bindir/pg_ctl" -D "$tmp/mm-replica-$port/data" -m immediate -w stop >/dev/null 2>&1
		fi
	done
}
cleanup() {
	stop_all
	for port in "$primary" "$standby"; do
		if mm_ours "$tmp/mm-replica-$port"; then
			rm -rf "$tmp/mm-replica-$port"
		fi
	done
}
for port in "$primary" "$standby"; do
	if [ -e "$tmp/mm-replica-$port" ] && ! mm_ours "$tmp/mm-replica-$port"; then
		notok "$tmp/mm-replica-$port is free for this suite (it holds a folder mm's test scripts did not create: left alone; pick another base with MM_PORT or MM_TMPDIR)"
		exit 1
	fi
done
cleanup
trap cleanup EXIT

# The primary: a plain single node (wal_level replica is PostgreSQL's default).
dir=$tmp/mm-replica-$primary
if mm_claim "$dir" replica && as_owner "$bindir/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 &&
	cat >>"$dir/data/postgresql.conf" <<CONF &&
port = $primary
listen_addresses = ''
unix_socket_directories = '$dir'
wal_level = replica
max_wal_senders = 4
fsync = off
lc_messages = 'C'
log_min_messages = warning
CONF
	as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null; then
	ok "primary started on port $primary"
else
	notok "primary started on port $primary"
	exit 1
fi

# Data an analyst reads: ratings, a game history, a queue with waiting
# rosters, servers of a place, an async pool, dishonor.
if on >/dev/null <<'SQL'
CREATE EXTENSION mm;
CREATE TABLE players (player_id bigint PRIMARY KEY, mu float8, sigma float8,
                      rating float8, rd float8, vol float8, party int);
INSERT INTO players
SELECT p, 25 + (p % 7), 8.0 - (p % 5), 1400 + (p * 37) % 400, 60 + (p % 90), 0.06, (p - 1) / 4
FROM generate_series(1, 200) p;
CREATE TABLE games (game_id bigint, player_id bigint, opponent_id bigint, score float8, played_at timestamptz);
INSERT INTO games
SELECT g, 1 + (g * 7) % 200, 1 + (g * 13 + 1) % 200, (g % 3) / 2.0,
       '2026-01-01 00:00+00'::timestamptz + g * interval '17 minutes'
FROM generate_series(1, 2000) g WHERE (g * 7) % 200 <> (g * 13 + 1) % 200;
CREATE TABLE results (match_id bigint, player_id bigint, team int, rank int);
INSERT INTO results
SELECT m, 1 + (m * 4 + k) % 200, 1 + k / 2, CASE WHEN (m + k / 2) % 2 = 0 THEN 1 ELSE 2 END
FROM generate_series(1, 300) m, generate_series(0, 3) k;
SELECT mm.create_queue('ranked', '{"team_size": 1, "filter": {"potentials_min": 1, "rosters": 8}}');
SELECT count(mm.enqueue('ranked', ARRAY[p::bigint], 1500 + p, 50)) FROM generate_series(1, 6) p;
SELECT mm.add_server('obby', 8, '{"region": "eu"}');
SELECT mm.create_pool('arena', '{"mmr_bucket_count": 10}');
SELECT mm.put_entry('arena', 1, 1020, '{eu}');
SELECT mm.dishonor(42, 'abandon', '2026-01-01 12:00+00');
SQL
then
	ok "mm and data on the primary"
else
	notok "mm and data on the primary"
	exit 1
fi

# The standby: pg_basebackup with -R (standby.signal and primary_conninfo).
sdir=$tmp/mm-replica-$standby
if mm_claim "$sdir" replica && as_owner "$bindir/pg_basebackup" -h "$dir" -p "$primary" -U postgres -D "$sdir/data" -R -X stream -c fast \
	>"$sdir/basebackup.log" 2>&1 &&
	cat >>"$sdir/data/postgresql.conf" <<CONF &&
port = $standby
unix_socket_directories = '$sdir'
hot_standby = on
CONF
	as_owner "$bindir/pg_ctl" -D "$sdir/data" -l "$sdir/server.log" -w -t 60 start >/dev/null &&
	[ "$(on_standby -c "SELECT pg_is_in_recovery()")" = t ]; then
	ok "hot standby made with pg_basebackup is in recovery on port $standby"
else
	notok "hot standby made with pg_basebackup is in recovery on port $standby"
	cat "$sdir/basebackup.log" "$sdir/server.log" 2>/dev/null | sed 's/^/#   /' | head -20
	exit 1
fi

# Streaming: a change on the primary after the backup reaches the standby.
on -c "UPDATE players SET mu = 26 WHERE player_id = 1" >/dev/null
lsn=$(on -c "SELECT pg_current_wal_insert_lsn()")
caught=""
for _ in $(seq 100); do
	caught=$(on_standby -c "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn") && [ "$caught" = t ] && break
	sleep 0.1
done
if [ "$caught" = t ] && [ "$(on_standby -c "SELECT mu FROM players WHERE player_id = 1")" = 26 ]; then
	ok "a change made on the primary after the backup is streamed to the standby"
else
	notok "a change made on the primary after the backup is streamed to the standby"
fi

# Read-only calls: each runs on both nodes and must give the same rows.
reads=(
	"ordinal|SELECT mm.ordinal(mu, sigma) FROM players ORDER BY player_id LIMIT 5"
	"glicko2_period over a table|SELECT g.player_id, (mm.glicko2_period(p.rating, p.rd, p.vol, o.rating, o.rd, g.score)).* FROM games g JOIN players p USING (player_id) JOIN players o ON o.player_id = g.opponent_id GROUP BY g.player_id ORDER BY g.player_id LIMIT 20"
	"glicko2_rate, idle, expect, effective, blend, rating_at|SELECT mm.glicko2_rate((1500, 200, 0.06), '{1400}', '{30}', '{1}'), mm.glicko2_idle((1500, 50, 0.06), 3), mm.glicko2_expect(1500, 50, 1400, 80), mm.glicko2_effective((1500, 50, 0.06)), mm.glicko2_blend((1600, 60, 0.05), (1400, 200, 0.07)), mm.glicko2_rating_at((1500, 50, 0.06), '2026-01-01', '2026-01-10')"
	"glicko2_replay of the history|SELECT * FROM mm.glicko2_replay('SELECT player_id, opponent_id, score, played_at FROM games ORDER BY game_id', '1 day') ORDER BY player_id LIMIT 20"
	"openskill_rate of a finished match|SELECT * FROM mm.openskill_rate('{1,1,2,2}', '{1,1,2,2}', '{25,26,24,27}', '{8,7,8,6}')"
	"openskill predictions|SELECT (SELECT array_agg(probability ORDER BY team) FROM mm.openskill_predict_win('{1,2}', '{25,27}', '{8,6}')), mm.openskill_predict_draw('{1,2}', '{25,27}', '{8,6}'), (SELECT array_agg(rank ORDER BY team) FROM mm.openskill_predict_rank('{1,2}', '{25,27}', '{8,6}'))"
	"rate (the IMS endpoint)|SELECT mm.rate('{\"teams\": [{\"rank\": 0, \"team\": {\"teamId\": \"red\", \"players\": [{\"playerId\": \"a\", \"mu\": 35, \"sigma\": 5}]}}, {\"rank\": 1, \"team\": {\"teamId\": \"blue\", \"players\": [{\"playerId\": \"b\"}]}}]}')"
	"replay_openskill of the results|SELECT * FROM mm.replay_openskill('SELECT match_id, player_id, team, rank FROM results ORDER BY match_id, team, player_id', 'SELECT player_id, mu, sigma FROM players') ORDER BY player_id LIMIT 20"
	"party ratings (function and aggregate)|SELECT party, mm.party_rating_agg(mu, sigma), mm.party_rating(array_agg(mu), array_agg(sigma)) FROM players GROUP BY party ORDER BY party LIMIT 10"
	"musigma beta and data point|SELECT mm.musigma_beta('35 seconds', 20, 5, '10 seconds'), mm.musigma_data_point('{1500, 1520}', 40)"
	"match prediction and odds|SELECT * FROM mm.match_prediction('{red,blue}', '{1500,1450}', '{50,60}', '{10,12}', '{5,5}'), mm.odds_of_victory(0.3, 'red')"
	"ladder points|SELECT mm.ladder_points(0.6, 500, 'victory', '{}', '2026-01-01'), mm.ladder_apply(1200, 15, '{}')"
	"preview of a queue|SELECT * FROM mm.preview('ranked', now() + interval '1 hour')"
	"list_queue and queue_stats|SELECT (SELECT count(*) FROM mm.list_queue('ranked')), (SELECT waiting_rosters FROM mm.queue_stats WHERE queue = 'ranked')"
	"match_rosters over a query|SELECT * FROM mm.match_rosters('SELECT roster_id, players, rating, deviation, rank, ladder_points, dishonor, professions, joined_at FROM mm.list_queue(''ranked'') ORDER BY place', '{\"team_size\": 1, \"filter\": {\"potentials_min\": 1, \"rosters\": 8}}', now() + interval '1 hour')"
	"rank_servers|SELECT server_id, score FROM mm.rank_servers('obby', '{\"age\": 13, \"language\": \"en\", \"voice_chat\": true, \"play_history\": 2.4, \"latency\": {\"eu\": 30, \"us\": 140}}')"
	"find_candidates|SELECT player_id, mmr FROM mm.find_candidates('arena', 1020, '{eu}')"
	"dishonor_status|SELECT * FROM mm.dishonor_status(42, '2026-01-01 12:30+00')"
	"configs in force and pool buckets|SELECT mm.glicko2_policy(), mm.ladder_config_defaults(), mm.dishonor_config(), mm.prediction_config_defaults(), (SELECT array_agg(fill) FROM mm.pool_buckets('arena'))"
)
for item in "${reads[@]}"; do
	name=${item%%|*}
	sql=${item#*|}
	if ! want=$(on -c "$sql" 2>&1); then
		notok "on the standby: $name (fails on the primary: $want)"
		continue
	fi
	if got=$(on_standby -c "$sql" 2>&1) && [ -n "$got" ] && [ "$got" = "$want" ]; then
		ok "on the standby: $name"
	else
		notok "on the standby: $name"
		echo "$got" | sed 's/^/#   /' | head -5
	fi
done

# Calls that write: refused on the standby with SQLSTATE 25006 (read-only
# transaction) and mm's own message naming the call and the primary, before
# anything is tried; nothing is written.
hint_want="HINT:  Call mm.NAME on the primary server; a standby answers read-only calls only."
writes=(
	"enqueue|SELECT mm.enqueue('ranked', '{100}', 1500, 50)"
	"leave|SELECT mm.leave((SELECT min(roster_id) FROM mm.roster))"
	"leave_player|SELECT mm.leave_player(1)"
	"tick|SELECT * FROM mm.tick('ranked')"
	"run_ticks|CALL mm.run_ticks('ranked', '1 second', '1 second')"
	"claim_matches|SELECT * FROM mm.claim_matches('ranked')"
	"create_queue|SELECT mm.create_queue('casual')"
	"report_result|SELECT * FROM mm.report_result(1, '{\"winner\": \"red\"}')"
	"find_opponent|SELECT * FROM mm.find_opponent('arena', 1020, '{eu}')"
	"offer_entry|SELECT mm.offer_entry((SELECT min(entry_id) FROM mm.async_entries))"
	"put_entry|SELECT mm.put_entry('arena', 2, 1100, '{eu}')"
	"join_server|SELECT mm.join_server('obby', 7, '{\"age\": 13, \"language\": \"en\", \"voice_chat\": true, \"play_history\": 2.4, \"latency\": {\"eu\": 30, \"us\": 140}}')"
	"join_party|SELECT mm.join_party('obby', '{8,9}')"
	"dishonor|SELECT mm.dishonor(43, 'abandon')"
)
for item in "${writes[@]}"; do
	name=${item%%|*}
	sql=${item#*|}
	err=$(on_standby -v VERBOSITY=verbose -c "$sql" 2>&1 >/dev/null)
	if [[ "$(echo "$err" | head -1)" == "ERROR:  25006: mm.$name must run on the primary" ]] &&
		[[ "$err" == *"${hint_want/NAME/$name}"* ]]; then
		ok "on the standby: mm.$name is refused (25006, must run on the primary)"
	else
		notok "on the standby: mm.$name is refused (25006, must run on the primary)"
		echo "$err" | sed 's/^/#   /' | head -5
	fi
done
# The same calls on the primary pass the check (they fail, if at all, for
# their own reasons, never with that message).
for item in "${writes[@]}"; do
	name=${item%%|*}
	sql=${item#*|}
	err=$(on -c "BEGIN" -c "$sql" -c "ROLLBACK" 2>&1 >/dev/null)
	if [[ "$err" == *"must run on the primary"* ]]; then
		notok "on the primary: mm.$name is not refused by the check"
		echo "$err" | sed 's/^/#   /' | head -3
	fi
done
# A plain write of the analyst's own: PostgreSQL's read-only error.
err=$(on_standby -v VERBOSITY=verbose -c "UPDATE players SET mu = n.mu, sigma = n.sigma FROM mm.openskill_rate('{1,2}', '{1,2}', '{25,25}', '{8,8}') n WHERE player_id = n.idx" 2>&1 >/dev/null)
if [[ "$err" == *"ERROR:  25006: cannot execute UPDATE in a read-only transaction"* ]]; then
	ok "on the standby: a rating update is refused (25006 read-only transaction)"
else
	notok "on the standby: a rating update is refused (25006 read-only transaction)"
	echo "$err" | sed 's/^/#   /' | head -5
fi
if [ "$(on_standby -c "SELECT count(*) FROM mm.roster")" = 6 ] && [ "$(on -c "SELECT count(*) FROM mm.roster")" = 6 ]; then
	ok "nothing was written by the refused calls"
else
	notok "nothing was written by the refused calls"
fi

exit $fail
