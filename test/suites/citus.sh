#!/usr/bin/env bash
# Scale-out on Citus: a coordinator and two workers (test/citus/cluster.sh),
# mm created on the coordinator, the ratings queries of an analyst and of a
# nightly job on distributed tables, each compared with the same query on
# plain tables of the same rows (the single node's answer), queues spread
# over the workers (test/citus/queues.sh), and the Citus-only examples of
# docs/scaling.md. TAP lines "ok - ..." / "not ok - ...".
#
# Citus is a dependency the DBA installs (docs/scaling.md says how): the suite
# runs when Citus is installed in the PostgreSQL that PG_CONFIG names
# (citus.so in pg_config --pkglibdir, citus.control in --sharedir/extension);
# otherwise it prints one line "ok - ... # SKIP why", which make test counts
# as skipped, and exits 0.
#
# Equality with a single node: Glicko-2 periods and party ratings sum floats
# per player; Citus (and any other plan) may add a player's rows in another
# order, so those results agree to the last bits only: within 1e-9 for
# ratings and deviations, 1e-12 for volatilities and OpenSkill values (the
# differences seen are below 1e-12). Calls that read rows in a fixed order
# (openskill_rate of one match, replays) must be bit-identical.
set -uo pipefail

cd "${MM_ROOT:?}"
cluster=test/citus/cluster.sh
fail=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }

if ! why=$(bash "$cluster" available); then
	ok "Citus scale-out scenarios # SKIP $why"
	exit 0
fi
trap 'bash "$cluster" stop' EXIT
if bash "$cluster" start; then
	ok "coordinator and two workers started, workers joined"
else
	notok "coordinator and two workers started, workers joined"
	exit 1
fi
eval "$(bash "$cluster" env)"
export PGHOST PGPORT PGUSER

q() { psql -X -q -At -d postgres -v ON_ERROR_STOP=1 "$@"; }
# check NAME SQL: the query must return the single value t.
check() {
	local got
	got=$(q -c "$2" 2>&1)
	if [ "$got" = t ]; then
		ok "$1"
	else
		notok "$1"
		echo "$got" | sed 's/^/#   /' | head -10
	fi
}

# ---- the extension on a cluster
if q -c "CREATE EXTENSION mm" >/dev/null; then
	ok "CREATE EXTENSION mm on the coordinator"
else
	notok "CREATE EXTENSION mm on the coordinator"
	exit 1
fi
check "mm propagated to both workers at the coordinator's version" \
	"SELECT count(*) = 2 AND bool_and(success AND result = (SELECT extversion FROM pg_extension WHERE extname = 'mm'))
	 FROM run_command_on_workers(\$\$SELECT extversion FROM pg_extension WHERE extname = 'mm'\$\$)"
if out=$(q -f test/citus/setup.sql 2>&1 >/dev/null); then
	ok "data loaded: plain tables and their distributed copies"
else
	notok "data loaded: plain tables and their distributed copies"
	echo "$out" | sed 's/^/#   /' | head -10
	exit 1
fi
check "every distributed table has shards on both workers" \
	"SELECT bool_and(n = 2) FROM (SELECT table_name, count(DISTINCT nodeport) AS n FROM citus_shards
	 WHERE table_name::text IN ('players', 'games', 'games_by_game', 'results', 'league_games') GROUP BY table_name) s"

# ---- Glicko-2 rating periods
period_pushed="SELECT g.player_id, mm.glicko2_period(p.rating, p.rd, p.vol, g.opp_rating, g.opp_rd, g.score) AS r
	FROM games g JOIN players p USING (player_id) GROUP BY g.player_id"
plan=$(q -c "EXPLAIN (VERBOSE, COSTS OFF) $period_pushed")
if [[ "$plan" == *"Query: SELECT g.player_id, mm.glicko2_period("* ]] && [[ "$plan" != *coord_combine_agg* ]]; then
	ok "glicko2_period grouped by the distribution column is pushed down whole to the workers"
else
	notok "glicko2_period grouped by the distribution column is pushed down whole to the workers"
	echo "$plan" | sed 's/^/#   /' | head -20
fi
check "pushed-down glicko2_period equals the single node's (rating, rd within 1e-9, vol within 1e-12)" \
	"WITH d AS (SELECT player_id, (r).* FROM ($period_pushed) s),
	      l AS (SELECT g.player_id, (mm.glicko2_period(p.rating, p.rd, p.vol, g.opp_rating, g.opp_rd, g.score)).*
	            FROM games_local g JOIN players_local p USING (player_id) GROUP BY g.player_id)
	 SELECT count(*) = 2000 AND bool_and(abs(d.rating - l.rating) <= 1e-9 AND abs(d.rd - l.rd) <= 1e-9
	        AND abs(d.vol - l.vol) <= 1e-12)
	 FROM d FULL JOIN l USING (player_id)"

period_partial="SELECT player_id, mm.glicko2_period(rating, rd, vol, opp_rating, opp_rd, score) AS r
	FROM games_by_game GROUP BY player_id"
plan=$(q -c "EXPLAIN (VERBOSE, COSTS OFF) $period_partial")
if [[ "$plan" == *"coord_combine_agg"* ]] && [[ "$plan" == *"worker_partial_agg('mm.glicko2_period("* ]]; then
	ok "glicko2_period over games distributed by game id aggregates partially (worker partials, coordinator combine)"
else
	notok "glicko2_period over games distributed by game id aggregates partially (worker partials, coordinator combine)"
	echo "$plan" | sed 's/^/#   /' | head -20
fi
check "partial glicko2_period equals the single node's (rating, rd within 1e-9, vol within 1e-12)" \
	"WITH d AS (SELECT player_id, (r).* FROM ($period_partial) s),
	      l AS (SELECT player_id, (mm.glicko2_period(rating, rd, vol, opp_rating, opp_rd, score)).*
	            FROM games_by_game_local GROUP BY player_id)
	 SELECT count(*) = 2000 AND bool_and(abs(d.rating - l.rating) <= 1e-9 AND abs(d.rd - l.rd) <= 1e-9
	        AND abs(d.vol - l.vol) <= 1e-12)
	 FROM d FULL JOIN l USING (player_id)"

# The nightly job: rate the period into players (a distributed UPDATE from a
# colocated aggregate), then let players without games' deviation grow.
nightly() {
	local p=$1 g=$2
	cat <<SQL
UPDATE $p p SET rating = (n.r).rating, rd = (n.r).rd, vol = (n.r).vol
FROM (SELECT g.player_id, mm.glicko2_period(q.rating, q.rd, q.vol, g.opp_rating, g.opp_rd, g.score) AS r
      FROM $g g JOIN $p q USING (player_id) GROUP BY g.player_id) n
WHERE p.player_id = n.player_id;
UPDATE $p p SET rd = (mm.glicko2_idle((p.rating, p.rd, p.vol), 1)).rd
WHERE p.player_id % 100 = 0;
SQL
}
if q -c "$(nightly players games)" -c "$(nightly players_local games_local)" >/dev/null; then
	ok "the nightly job's period UPDATE and idle growth run as distributed UPDATEs"
else
	notok "the nightly job's period UPDATE and idle growth run as distributed UPDATEs"
fi
check "the distributed nightly job leaves the players the single node leaves (within 1e-9 / 1e-12)" \
	"SELECT count(*) = 2000 AND bool_and(abs(d.rating - l.rating) <= 1e-9 AND abs(d.rd - l.rd) <= 1e-9
	        AND abs(d.vol - l.vol) <= 1e-12)
	 FROM players d FULL JOIN players_local l USING (player_id)"

# Citus evaluates the SET expressions of a distributed UPDATE on the shards:
# it takes IMMUTABLE functions there and refuses STABLE ones on columns.
check "the rating functions a distributed UPDATE calls are IMMUTABLE" \
	"SELECT bool_and(p.provolatile = 'i') AND count(*) >= 14 FROM pg_proc p
	 WHERE p.pronamespace = 'mm'::regnamespace AND p.proname IN ('ordinal', 'openskill_rate', 'glicko2_rate',
	   'glicko2_idle', 'glicko2_expect', 'glicko2_effective', 'glicko2_blend', 'glicko2_period_step',
	   'glicko2_period_combine', 'glicko2_period_final', 'party_rating', 'party_rating_accum',
	   'party_rating_combine', 'party_rating_final', 'rate')"
err=$(q -c "UPDATE players SET rd = (mm.glicko2_rating_at((rating, rd, vol), '2026-01-01', '2026-02-01')).rd WHERE player_id = 7" 2>&1 >/dev/null)
if [[ "$err" == *"STABLE functions used in UPDATE queries cannot be called with column references"* ]]; then
	ok "a STABLE function on columns in a distributed UPDATE is refused (glicko2_rating_at: compute it in a MATERIALIZED CTE)"
else
	notok "a STABLE function on columns in a distributed UPDATE is refused (got: $err)"
fi
check "glicko2_rating_at (STABLE) in a MATERIALIZED CTE feeding a distributed UPDATE works" \
	"WITH n AS MATERIALIZED (SELECT player_id, mm.glicko2_rating_at((rating, rd, vol), '2026-01-01', '2026-02-01') AS r
	                        FROM players WHERE player_id % 500 = 0),
	      u AS (UPDATE players p SET rd = (n.r).rd FROM n WHERE p.player_id = n.player_id RETURNING 1)
	 SELECT count(*) = 4 FROM u"
q -c "UPDATE players_local p SET rd = (mm.glicko2_rating_at((rating, rd, vol), '2026-01-01', '2026-02-01')).rd WHERE player_id % 500 = 0" >/dev/null

# ---- OpenSkill: each finished match rated into players by one distributed
# UPDATE (the match's players live on different shards).
rate_match() {
	local p=$1 r=$2 m=$3
	cat <<SQL
WITH m AS (
    SELECT array_agg(r.player_id ORDER BY r.player_id) AS ids, array_agg(r.team ORDER BY r.player_id) AS team,
           array_agg(r.rank::float8 ORDER BY r.player_id) AS rank,
           array_agg(p.mu ORDER BY r.player_id) AS mu, array_agg(p.sigma ORDER BY r.player_id) AS sigma
    FROM $r r JOIN $p p USING (player_id) WHERE r.match_id = $m),
n AS (SELECT m.ids[n.idx] AS player_id, n.mu, n.sigma
      FROM m, mm.openskill_rate(m.team, m.rank, m.mu, m.sigma) n)
UPDATE $p p SET mu = n.mu, sigma = n.sigma FROM n WHERE p.player_id = n.player_id;
SQL
}
script=$(mktemp)
for m in $(seq 1 150); do
	rate_match players results "$m"
	rate_match players_local results_local "$m"
done >"$script"
if q -f "$script" >/dev/null; then
	ok "150 finished 2v2 matches rated as distributed UPDATEs (openskill_rate)"
else
	notok "150 finished 2v2 matches rated as distributed UPDATEs (openskill_rate)"
fi
rm -f "$script"
check "the OpenSkill ratings equal the single node's bit for bit" \
	"SELECT count(*) = 2000 AND bool_and(d.mu = l.mu AND d.sigma = l.sigma) AND count(*) FILTER (WHERE d.mu <> 20 + (player_id * 31 % 100) / 10.0) >= 500
	 FROM players d FULL JOIN players_local l USING (player_id)"
check "ordinals into a column by a distributed UPDATE (mm.ordinal is IMMUTABLE) equal the single node's" \
	"WITH u AS (UPDATE players SET rating = mm.ordinal(mu, sigma) WHERE player_id <= 10 RETURNING player_id, rating)
	 SELECT bool_and(u.rating = mm.ordinal(l.mu, l.sigma)) AND count(*) = 10 FROM u JOIN players_local l USING (player_id)"

# Two matches with a common player rated at the same time: each statement
# reads the player's rating from its snapshot, so without a lock the second
# UPDATE (blocked on the row until the first commits) writes a rating computed
# from the old one and the first match is lost. Taking the match's players'
# advisory locks on the coordinator, in player order, first serializes them.
q >/dev/null <<'SQL'
CREATE TABLE cc_players (player_id bigint PRIMARY KEY, mu float8 NOT NULL DEFAULT 25, sigma float8 NOT NULL DEFAULT 25.0 / 3);
CREATE TABLE cc_results (match_id bigint NOT NULL, player_id bigint NOT NULL, team int NOT NULL, rank int NOT NULL);
SELECT create_distributed_table('cc_players', 'player_id');
SELECT create_distributed_table('cc_results', 'player_id', colocate_with => 'cc_players');
INSERT INTO cc_results VALUES (1, 1, 1, 1), (1, 2, 2, 2), (2, 1, 1, 1), (2, 3, 2, 2);
SQL
# rate_concurrently LOCK: match 1 in a transaction that holds on for 3 s,
# match 2 started 0.7 s later; prints player 1's mu afterwards.
rate_concurrently() {
	local lock=$1 m
	q -c "TRUNCATE cc_players" -c "INSERT INTO cc_players (player_id) SELECT generate_series(1, 4)" >/dev/null
	for m in 1 2; do
		{
			echo "BEGIN;"
			[ "$lock" = lock ] && echo "SELECT count(pg_advisory_xact_lock(player_id)) FROM (SELECT player_id FROM cc_results WHERE match_id = $m ORDER BY player_id) l;"
			rate_match cc_players cc_results "$m"
			[ "$m" = 1 ] && echo "SELECT pg_sleep(3);"
			echo "COMMIT;"
		} | q >/dev/null &
		sleep 0.7
	done
	wait
	q -c "SELECT mu FROM cc_players WHERE player_id = 1"
}
# The two serial orders; concurrent runs must give one of them.
serial() {
	q -c "TRUNCATE cc_players" -c "INSERT INTO cc_players (player_id) SELECT generate_series(1, 4)" \
		-c "$(rate_match cc_players cc_results "$1")" -c "$(rate_match cc_players cc_results "$2")" \
		-c "SELECT mu FROM cc_players WHERE player_id = 1"
}
first=$(serial 1 2)
second=$(serial 2 1)
unlocked=$(rate_concurrently none)
locked=$(rate_concurrently lock)
if [ -n "$first" ] && [ -n "$unlocked" ] && [ "$unlocked" != "$first" ] && [ "$unlocked" != "$second" ]; then
	ok "two matches of one player rated concurrently without a lock lose one match's update"
else
	notok "two matches of one player rated concurrently without a lock lose one match's update (serial $first or $second, got $unlocked)"
fi
if [ -n "$first" ] && { [ "$locked" = "$first" ] || [ "$locked" = "$second" ]; }; then
	ok "with the players' advisory locks taken first, concurrent ratings equal a serial order's"
else
	notok "with the players' advisory locks taken first, concurrent ratings equal a serial order's (serial $first or $second, got $locked)"
fi

# ---- party ratings: parties are not the distribution column. The
# aggregate's state is internal (every mu is kept for the median), which
# Citus does not ship between nodes, so it pulls the rows to the coordinator
# instead of aggregating partially; the function over array_agg gets rows in
# any order.
check "party ratings over distributed players equal the single node's (within 1e-12)" \
	"WITH d AS (SELECT party, mm.party_rating_agg(mu, sigma) AS a, mm.party_rating(array_agg(mu), array_agg(sigma)) AS f
	            FROM players GROUP BY party),
	      l AS (SELECT party, mm.party_rating_agg(mu, sigma) AS a, mm.party_rating(array_agg(mu), array_agg(sigma)) AS f
	            FROM players_local GROUP BY party)
	 SELECT count(*) = 401 AND bool_and(abs(d.a - l.a) <= 1e-12 AND abs(d.f - l.f) <= 1e-12 AND abs(d.a - d.f) <= 1e-12)
	 FROM d FULL JOIN l USING (party)"
plan=$(q -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT party, mm.party_rating_agg(mu, sigma) FROM players GROUP BY party")
if [[ "$plan" != *"worker_partial_agg"* ]] && [[ "$plan" == *"mm.party_rating_agg"* ]]; then
	ok "party_rating_agg grouped by a column that is not the distribution column runs on the coordinator (internal state)"
else
	notok "party_rating_agg grouped by a column that is not the distribution column runs on the coordinator (internal state)"
	echo "$plan" | sed 's/^/#   /' | head -30
fi

# ---- replays of a distributed history
replay="SELECT sum(rating)::text || '/' || sum(rd)::text || '/' || sum(vol)::text || '/' || sum(games)::text FROM mm.glicko2_replay"
check "a replay of the whole distributed history on the coordinator equals the single node's bit for bit" \
	"SELECT ($replay('SELECT player_id, opponent_id, score, played_at FROM league_games ORDER BY game_id', '1 day'))
	      = ($replay('SELECT player_id, opponent_id, score, played_at FROM league_games_local ORDER BY game_id', '1 day'))"
check "openskill replay of the distributed results on the coordinator equals the single node's bit for bit" \
	"SELECT (SELECT array_agg(array[mu, sigma] ORDER BY player_id) FROM mm.openskill_replay('SELECT match_id, player_id, team, rank FROM results ORDER BY match_id, team, player_id'))
	      = (SELECT array_agg(array[mu, sigma] ORDER BY player_id) FROM mm.openskill_replay('SELECT match_id, player_id, team, rank FROM results_local ORDER BY match_id, team, player_id'))"

# A league's replay pushed down: a function distributed by league runs on the
# worker that holds the league's shard and reads the shard there.
if q >/dev/null <<'SQL'
CREATE FUNCTION league_replay(league int)
RETURNS TABLE (node int, player_id bigint, rating float8, rd float8, vol float8, games bigint)
LANGUAGE sql AS $$
    SELECT current_setting('port')::int, r.player_id, r.rating, r.rd, r.vol, r.games
    FROM mm.glicko2_replay(format('SELECT player_id, opponent_id, score, played_at FROM public.league_games
                                   WHERE league = %s ORDER BY game_id', league), '1 day') r
$$;
SELECT create_distributed_function('league_replay(int)', 'league', colocate_with => 'league_games');
SQL
then
	ok "league_replay distributed by league, colocated with league_games"
else
	notok "league_replay distributed by league, colocated with league_games"
fi
# The call must be the whole query to be delegated (inside a CTE or a join it
# runs on the coordinator), so each side is one query: the node, the count
# and a digest of every value.
digest="array_agg(DISTINCT node)::text || ' ' || count(*) || ' ' || md5(string_agg(concat_ws(',', player_id, rating, rd, vol, games), ';' ORDER BY player_id))"
for league in 0 1 2 3; do
	got=$(q -c "SELECT $digest FROM league_replay($league)" 2>&1)
	want=$(q -c "SELECT $digest FROM (SELECT (SELECT nodeport FROM citus_shards WHERE table_name = 'league_games'::regclass
		AND shardid = get_shard_id_for_distribution_column('league_games', $league)) AS node, *
		FROM mm.glicko2_replay('SELECT player_id, opponent_id, score, played_at FROM league_games_local
		                        WHERE league = $league ORDER BY game_id', '1 day')) l" 2>&1)
	if [ "$got" = "$want" ] && [[ "$got" == *" 500 "* ]]; then
		ok "league $league's replay runs on the worker holding its shard and equals the single node's bit for bit"
	else
		notok "league $league's replay runs on the worker holding its shard and equals the single node's bit for bit"
		echo "# got $got, want $want"
	fi
done
# Per shard: run_command_on_shards replays each shard's rows where they are;
# a shard holding two leagues is one history (idle growth runs to its last
# period), equal to the coordinator's replay of those leagues together.
check "per-shard replays (run_command_on_shards) equal the coordinator's replays of the same leagues" \
	"WITH s AS (SELECT shardid, result FROM run_command_on_shards('league_games',
	              \$\$$replay('SELECT player_id, opponent_id, score, played_at FROM %s ORDER BY game_id', '1 day')\$\$)),
	      lg AS (SELECT get_shard_id_for_distribution_column('league_games', league) AS shardid, array_agg(DISTINCT league) AS leagues
	             FROM league_games_local GROUP BY 1)
	 SELECT count(*) >= 2 AND bool_and(s.result = ($replay(format('SELECT player_id, opponent_id, score, played_at
	          FROM league_games_local WHERE league = ANY (%L) ORDER BY game_id', lg.leagues), '1 day')))
	 FROM s JOIN lg USING (shardid)"

# ---- mm.citus_distribute_queues and a worker that refuses: the step stops,
# naming the worker and its answer, and leaves the coordinator as it was;
# once the worker is fixed a second call completes (the worker done before
# is left as it is) and every node has the same keys.
read -r w1 w2 <<<"$MM_CITUS_WORKERS"
wq() { psql -X -q -At -h 127.0.0.1 -p "$w2" -U postgres -d postgres "$@"; }
# The worker refuses by holding an index of the name the keys' step
# creates (Citus 13 refuses ALTER DATABASE on a worker, so a read-only
# database cannot be set there).
wq -c "CREATE INDEX match_match_id_idx ON mm.match (match_id)" >/dev/null
err=$(q -c "SET client_min_messages = warning" -c "SELECT * FROM mm.citus_distribute_queues(8)" 2>&1 >/dev/null)
wq -c "DROP INDEX mm.match_match_id_idx" >/dev/null
if [[ "$err" == *"worker 127.0.0.1:$w2 could not take the keys"*"already exists"* ]] &&
	[ "$(q -c "SELECT mm._queues_distributed()::text || (SELECT count(*) FROM pg_constraint WHERE conname = 'match_pkey' AND conrelid = 'mm.match'::regclass)")" = false1 ]; then
	ok "mm.citus_distribute_queues fails when a worker refuses its DDL, naming the worker and its answer; the coordinator is left as it was"
else
	notok "mm.citus_distribute_queues fails when a worker refuses its DDL (got: $err)"
fi
if out=$(q -c "SET client_min_messages = warning" -c "SELECT * FROM mm.citus_distribute_queues(8)" 2>&1); then
	ok "once the worker is fixed, a second mm.citus_distribute_queues() completes"
else
	notok "once the worker is fixed, a second mm.citus_distribute_queues() completes"
	echo "$out" | sed 's/^/#   /' | head -5
fi
keys="SELECT md5(string_agg(conname || ':' || pg_get_constraintdef(oid), ',' ORDER BY conname)) FROM pg_constraint
      WHERE connamespace = 'mm'::regnamespace AND contype IN ('p', 'u', 'f') AND conrelid::regclass::text !~ '_[0-9]+\$'"
check "every node has the same keys on mm's tables (the workers' shells, the coordinator's tables)" \
	"SELECT bool_and(w.success AND w.result = ($keys)) AND count(*) = 2 FROM run_command_on_workers(\$k\$$keys\$k\$) w"
check "each node draws ids from its own range (the coordinator's from 1, worker group g's from g << 48)" \
	"SELECT bool_and(w.success AND w.result::bigint = 1 + (n.groupid::bigint << 48)) AND count(*) = 2
	 FROM run_command_on_workers(\$\$SELECT seqmin FROM pg_sequence WHERE seqrelid = 'mm.roster_id_seq'::regclass\$\$) w
	 JOIN pg_dist_node n ON n.nodename = w.nodename AND n.nodeport = w.nodeport"

# ---- docs/scaling.md: its Citus-only examples ("-- not run" blocks) and the
# others, in page order, on the coordinator.
work=$(mktemp -d)
awk -v dir="$work" '
	/^```sql[[:space:]]*$/ { inblock = 1; file = sprintf("%s/%05d.sql", dir, NR + 1); next }
	/^```/ && inblock { inblock = 0; close(file); next }
	inblock { print > file }
' docs/scaling.md
for block in "$work"/*.sql; do
	[ -e "$block" ] || continue
	line=$((10#$(basename "$block" .sql)))
	if out=$(q -f "$block" 2>&1 >/dev/null); then
		ok "docs/scaling.md example at line $line runs on the Citus coordinator"
	else
		notok "docs/scaling.md example at line $line runs on the Citus coordinator"
		echo "$out" | sed 's/^/#   /' | head -10
	fi
done
rm -rf "$work"

# ---- queues over workers (test/citus/queues.sh): distributed by queue,
# tick, enqueue, leave and claim_matches on the queue's worker, one waiting
# roster per player across the cluster, pg_cron on the coordinator.
bash test/citus/queues.sh || fail=1
# ---- the whole loop through the coordinator; results with concurrent
# reports; delivery to a listener on the coordinator; the same season on
# one node and on Citus; then a worker added and a queue's shards moved
# there while backends work (last: it changes the cluster)
bash test/citus/loop.sh || fail=1
bash test/citus/results.sh || fail=1
bash test/citus/delivery.sh || fail=1
bash test/citus/differential.sh || fail=1
bash test/citus/events.sh || fail=1
bash test/citus/grow.sh || fail=1

# Keep the nodes' logs and data for a look when something failed.
[ "$fail" = 0 ] && bash "$cluster" clean
exit $fail
