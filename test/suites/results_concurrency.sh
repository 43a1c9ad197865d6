#!/usr/bin/env bash
# Results under concurrency: pgbench clients report 5v5 matches that share
# players (30 players, 200 matches) at once; every report commits, none
# deadlocks, and every player's rating, ladder points and games equal a
# sequential replay of the same reports in commit order. Prints TAP lines.
set -uo pipefail

db=mm_results_concurrency
bindir=$("${PG_CONFIG:-pg_config}" --bindir)
work=$(mktemp -d "${MM_TMPDIR:-/tmp}"/mm-results-conc.XXXXXX)
trap 'rm -rf "$work"; psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1' EXIT
fail=0
check() {
	if [ "$2" = "$3" ]; then echo "ok - $1"; else echo "not ok - $1 (got '$2', want '$3')"; fail=1; fi
}
q() { psql -X -At -d "$db" -c "$1"; }

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null 2>&1
psql -X -q -d "$db" -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
CREATE EXTENSION mm;
SELECT mm.create_queue('live', '{"team_size": 5, "rating": {"key": "live"}}');
SELECT mm.create_queue('replay', '{"team_size": 5, "rating": {"key": "replay"}}');
-- 200 matches of 10 players drawn from 30, in each queue (replay's ids + 100000)
CREATE TABLE plan AS
SELECT m, array_agg(p ORDER BY o) AS players
FROM generate_series(1, 200) m,
     LATERAL (SELECT p, row_number() OVER (ORDER BY md5(m || ':' || p)) AS o
              FROM generate_series(1, 30) p) x
WHERE o <= 10 GROUP BY m;
INSERT INTO mm.match (match_id, queue_id, tick_id, created_at, prediction, red_odds, blue_odds, rating_spread, teams, odds)
SELECT m + off, q.queue_id, 1, now(), 0.2, 0.4, 0.6, 0, '{red,blue}', '{0.4,0.6}'
FROM plan, (VALUES ('live', 0), ('replay', 100000)) v(name, off) JOIN mm.queue q ON q.name = v.name;
-- a match's rosters are rows of mm.roster in their match, their players
-- rows of mm.queued_player (a player in several open matches holds only
-- its first: the others' rows are marked requeued)
INSERT INTO mm.roster (roster_id, queue_id, rating, joined_at, match_id, team, waited)
SELECT (m + off) * 2 + t, q.queue_id, 1500, now(), m + off, CASE t WHEN 0 THEN 'red' ELSE 'blue' END, '0'
FROM plan, generate_series(0, 1) t, (VALUES ('live', 0), ('replay', 100000)) v(name, off)
JOIN mm.queue q ON q.name = v.name;
INSERT INTO mm.queued_player (player_id, roster_id, queue_id, seat, requeued)
SELECT u.p, (m + off) * 2 + t, q.queue_id, u.o, row_number() OVER (PARTITION BY u.p ORDER BY m, off) > 1
FROM plan, generate_series(0, 1) t, (VALUES ('live', 0), ('replay', 100000)) v(name, off)
JOIN mm.queue q ON q.name = v.name,
     unnest(players[t * 5 + 1 : t * 5 + 5]::bigint[]) WITH ORDINALITY AS u(p, o);
-- the result of match m: a winner, scores, sometimes a deserter, a partial player
CREATE FUNCTION result_of(m bigint) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
    SELECT jsonb_build_object(
        'teams', jsonb_build_object(
            'red', jsonb_build_object('rank', CASE WHEN m % 3 = 0 THEN 2 ELSE 1 END, 'score', 300 + m % 250),
            'blue', jsonb_build_object('rank', CASE WHEN m % 3 = 0 THEN 1 ELSE 2 END, 'score', 250 + m % 300,
                                       'desertions', CASE WHEN m % 7 = 0 THEN jsonb_build_array(p.players[6]) ELSE '[]' END)),
        'players', jsonb_build_object(p.players[1]::text, jsonb_build_object('weight', 0.5)))
    FROM plan p WHERE p.m = result_of.m % 100000
$$;
CREATE SEQUENCE todo;
CREATE SEQUENCE commit_seq;
CREATE TABLE commit_order (m bigint PRIMARY KEY, seq bigint NOT NULL);
SQL

# The sequence number is taken after report_result has locked every rating
# row it touches, so among reports that share a player it follows commit order.
cat >"$work/report.sql" <<'SQL'
SELECT nextval('todo') AS m \gset
BEGIN;
SELECT count(*) FROM mm.report_result(:m, result_of(:m));
INSERT INTO commit_order VALUES (:m, nextval('commit_seq'));
COMMIT;
SQL
if "$bindir/pgbench" -n -c 4 -j 2 -t 50 -f "$work/report.sql" "$db" >"$work/report.log" 2>&1; then
	echo "ok - 4 pgbench clients reported 200 matches sharing players without an error (no deadlock)"
else
	echo "not ok - pgbench reports failed"; cat "$work/report.log"; fail=1
fi
check "every match has its result" "$(q "SELECT count(*) FROM mm.match_result WHERE match_id <= 200")" 200
check "every player's games counted" "$(q "SELECT sum(games) FROM mm.ratings WHERE key = 'live'")" 2000

# each player's reports form a chain: a report's before is the previous one's after
check "no report read a rating another report had replaced" \
	"$(q "SELECT count(*) FROM (SELECT p.state_before[1] AS p_mu, lag(p.state_after[1]) OVER w AS prev_mu,
	                                  p.state_before[2] AS p_sigma, lag(p.state_after[2]) OVER w AS prev_sigma
	                           FROM mm.match_result_player p JOIN commit_order c ON c.m = p.match_id
	                           WINDOW w AS (PARTITION BY p.player_id ORDER BY c.seq)) x
	       WHERE prev_mu IS NOT NULL AND (p_mu <> prev_mu OR p_sigma <> prev_sigma)")" 0

# the same reports one by one, in commit order, on the replay queue's key
q "DO \$\$ DECLARE c record; BEGIN
       FOR c IN SELECT m FROM commit_order ORDER BY seq LOOP
           PERFORM mm.report_result(c.m + 100000, result_of(c.m));
       END LOOP; END \$\$" >/dev/null
check "the replay rated every match" "$(q "SELECT count(*) FROM mm.match_result WHERE match_id > 100000")" 200
check "ratings, ladder points and games equal the sequential replay's exactly" \
	"$(q "SELECT count(*) FROM mm.ratings l FULL JOIN (SELECT * FROM mm.ratings WHERE key = 'replay') r
	       ON r.player_id = l.player_id
	       WHERE l.key = 'live' AND (r.player_id IS NULL OR l.state[1] <> r.state[1] OR l.state[2] <> r.state[2]
	             OR l.ladder_points IS DISTINCT FROM r.ladder_points OR l.games <> r.games)
	          OR l.player_id IS NULL")" 0
check "players rated" "$(q "SELECT count(*) FROM mm.ratings WHERE key = 'live'")" 30

# The pattern docs/ratings.md shows for ratings kept in the user's own
# table: rows locked FOR UPDATE in player-id order, then rated. Game g: two
# of six players, one beats the other.
psql -X -q -d "$db" -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
CREATE TABLE my_ratings (side text, player_id bigint, mu float8 NOT NULL, sigma float8 NOT NULL,
                         PRIMARY KEY (side, player_id));
INSERT INTO my_ratings SELECT s, p, 25, 25.0 / 3 FROM unnest(ARRAY['live', 'replay']) s, generate_series(1, 6) p;
CREATE SEQUENCE games;
CREATE SEQUENCE game_seq;
CREATE TABLE game_order (g bigint PRIMARY KEY, seq bigint NOT NULL);
CREATE FUNCTION rate_game(side text, g bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    a bigint := g % 6 + 1;
    b bigint := (g % 6 + 1 + g % 5) % 6 + 1;
BEGIN
    PERFORM 1 FROM my_ratings r WHERE r.side = rate_game.side AND r.player_id IN (a, b)
    ORDER BY r.player_id FOR UPDATE;
    WITH g AS (SELECT r.player_id, r.mu, r.sigma, v.team, v.rank,
                      row_number() OVER (ORDER BY r.player_id)::int AS idx
               FROM my_ratings r JOIN (VALUES (a, 1, 1.0), (b, 2, 2.0)) v(player_id, team, rank) USING (player_id)
               WHERE r.side = rate_game.side),
         n AS (SELECT * FROM mm.openskill_rate(ARRAY(SELECT team FROM g ORDER BY idx),
                                               ARRAY(SELECT rank FROM g ORDER BY idx),
                                               ARRAY(SELECT mu FROM g ORDER BY idx),
                                               ARRAY(SELECT sigma FROM g ORDER BY idx)))
    UPDATE my_ratings r SET mu = n.mu, sigma = n.sigma
    FROM g JOIN n ON n.idx = g.idx WHERE r.side = rate_game.side AND r.player_id = g.player_id;
END
$$;
SQL
cat >"$work/own.sql" <<'SQL'
SELECT nextval('games') AS g \gset
BEGIN;
SELECT rate_game('live', :g);
INSERT INTO game_order VALUES (:g, nextval('game_seq'));
COMMIT;
SQL
if "$bindir/pgbench" -n -c 4 -j 2 -t 50 -f "$work/own.sql" "$db" >"$work/own.log" 2>&1; then
	echo "ok - 4 pgbench clients rated 200 games of six players in their own table without an error"
else
	echo "not ok - pgbench own-table games failed"; cat "$work/own.log"; fail=1
fi
q "DO \$\$ DECLARE c record; BEGIN
       FOR c IN SELECT g FROM game_order ORDER BY seq LOOP PERFORM rate_game('replay', c.g); END LOOP;
   END \$\$" >/dev/null
check "own-table ratings equal the sequential replay's exactly" \
	"$(q "SELECT count(*) FROM my_ratings l JOIN my_ratings r ON r.player_id = l.player_id AND r.side = 'replay'
	       WHERE l.side = 'live' AND (l.mu <> r.mu OR l.sigma <> r.sigma)")" 0
check "own-table ratings moved" "$(q "SELECT count(*) FROM my_ratings WHERE side = 'live' AND mu <> 25")" 6

exit $fail
