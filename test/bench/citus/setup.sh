# A Citus cluster (coordinator and two workers, test/citus/cluster.sh) with
# MM_CITUS_BENCH_GAMES games (default 10M) of one rating period, 10 per player,
# the rows of test/bench/glicko2_period scaled up, three times on the
# coordinator: a plain table (the single node), distributed by player, and
# distributed by game id. 8 shards per table, 4 per worker. Needs Citus
# installed (requires.sh skips the benchmark otherwise).
set -euo pipefail
cluster="$MM_ROOT/test/citus/cluster.sh"
trap 'bash "$cluster" stop' ERR
bash "$cluster" start
eval "$(bash "$cluster" env)"
rm -f "$MM_ROOT/test/bench/out/citus_explain.txt"
n=${MM_CITUS_BENCH_GAMES:-10000000}
players=$((n / 10))
psql -X -q -d postgres -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
SET citus.shard_count = 8;
CREATE EXTENSION mm;
CREATE TABLE games_single AS
SELECT (g % $players) + 1 AS player,
       1200 + (((g % $players) + 1) * 7919 % 800)::float8 AS rating,
       50 + (((g % $players) + 1) % 250)::float8 AS rd,
       0.06::float8 AS vol,
       1200 + ((g * 104729) % 800)::float8 AS opp_rating,
       50 + ((g * 31) % 250)::float8 AS opp_rd,
       CASE (g * 13) % 5 WHEN 0 THEN 0.5 WHEN 1 THEN 1 WHEN 2 THEN 1 ELSE 0 END::float8 AS score,
       g AS game_id
FROM generate_series(0::bigint, $n - 1) g;
CREATE TABLE games_by_player (LIKE games_single);
SELECT create_distributed_table('games_by_player', 'player');
INSERT INTO games_by_player SELECT * FROM games_single;
CREATE TABLE games_by_game (LIKE games_single);
SELECT create_distributed_table('games_by_game', 'game_id');
INSERT INTO games_by_game SELECT * FROM games_single;
VACUUM ANALYZE games_single;
VACUUM ANALYZE games_by_player;
VACUUM ANALYZE games_by_game;
SQL
