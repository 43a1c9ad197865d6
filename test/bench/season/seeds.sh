#!/usr/bin/env bash
# The season simulation (setup.sql) over several seeds, each model and seed
# in a fresh database, so that one run's luck is not read as a model's
# calibration (make bench runs one seed, 0.42, the models one after the
# other in one database; a bin of 150 matches moves by several standard
# errors from one seed to the next).
#
#   PG_CONFIG=... MM_PORT=... bash test/bench/season/seeds.sh [MODELS [SEEDS]]
#
# MODELS (default "glicko2 openskill elo") and SEEDS (default
# "0.11 0.22 0.33 0.44 0.55 0.66") are space-separated. MM_SEASON_OPTIONS,
# a JSON object, becomes the queue's rating.options (default: none, the
# family's defaults, as make bench runs it). Builds and installs, starts
# the bench cluster (test/cluster.sh, durable) and stops it at the end;
# prints per seed: waits, Brier, correlation with skill and the bins that
# miss the goal; then the figures pooled over the seeds (waits, Brier, and
# every bin of 100 matches or more). Writes test/bench/out/season_seeds.txt.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
cd "$root"
models=${1:-glicko2 openskill elo}
seeds=${2:-0.11 0.22 0.33 0.44 0.55 0.66}
options=${MM_SEASON_OPTIONS:-}
out=$root/test/bench/out
bash test/cluster.sh build
mkdir -p "$out"
bash test/cluster.sh start bench
trap 'bash test/cluster.sh stop bench' EXIT
eval "$(bash test/cluster.sh env bench)"
export PGHOST PGPORT PGUSER
q() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }
opt=NULL
[ -n "$options" ] && opt="'$options'::jsonb"

q -d postgres -c "DROP DATABASE IF EXISTS season_seeds" -c "CREATE DATABASE season_seeds"
q -d season_seeds -c "CREATE TABLE m (model text, seed float8, red_odds float8, red_won int);
                      CREATE TABLE w (model text, seed float8, waited float8);
                      CREATE TABLE c (model text, seed float8, corr float8)"
for model in $models; do
	for seed in $seeds; do
		db=season_seed
		q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
		q -d $db -c "CREATE EXTENSION mm"
		sed '/^CALL season_run/d' test/bench/season/setup.sql | q -d $db >/dev/null
		q -d $db -c "CALL season_run('$model', 20000, 3000, $seed, $opt)"
		q -d $db -c "\copy (SELECT model, $seed, red_odds, red_won::int FROM season_match WHERE red_won IS NOT NULL) TO '$out/season_seed_m.tsv'"
		q -d $db -c "\copy (SELECT model, $seed, waited FROM season_wait) TO '$out/season_seed_w.tsv'"
		q -d $db -c "\copy (SELECT r.model, $seed, corr(r.rating, k.skill) FROM season_rating r JOIN season_skill k USING (model, player_id) GROUP BY r.model) TO '$out/season_seed_c.tsv'"
		q -d season_seeds -c "\copy m FROM '$out/season_seed_m.tsv'" -c "\copy w FROM '$out/season_seed_w.tsv'" \
			-c "\copy c FROM '$out/season_seed_c.tsv'"
		q -d postgres -c "DROP DATABASE $db"
		echo "season: $model seed $seed done" >&2
	done
done
rm -f "$out"/season_seed_[mwc].tsv

psql -X -q -v ON_ERROR_STOP=1 -d season_seeds <<SQL | tee "$out/season_seeds.txt"
\pset footer off
\echo == the season over seeds${options:+, rating.options $options}
CREATE VIEW b AS
SELECT model, seed, floor(f / 0.05) * 0.05 AS bin, f, won
FROM (SELECT model, seed, greatest(red_odds, 1 - red_odds) AS f,
             CASE WHEN red_odds >= 0.5 THEN red_won = 1 ELSE red_won = 0 END AS won FROM m) x;
\echo == per seed: waits, Brier, corr(rating, skill), the bins of 100 matches or more that miss
SELECT w.model, w.seed, percentile_cont(0.5) WITHIN GROUP (ORDER BY waited) AS wait_p50,
       percentile_cont(0.99) WITHIN GROUP (ORDER BY waited) AS wait_p99,
       (SELECT round(avg((red_odds - red_won) ^ 2)::numeric, 4) FROM m WHERE m.model = w.model AND m.seed = w.seed) AS brier,
       (SELECT round(min(corr)::numeric, 3) FROM c WHERE c.model = w.model AND c.seed = w.seed) AS corr,
       coalesce((SELECT string_agg(round(bin::numeric, 2) || ' ' || round(p::numeric, 3) || '/' || round(o::numeric, 3), ', ' ORDER BY bin)
                 FROM (SELECT bin, count(*) AS n, avg(f) AS p, avg(won::int) AS o FROM b
                       WHERE b.model = w.model AND b.seed = w.seed GROUP BY bin) x
                 WHERE n >= 100 AND abs(o - p) > greatest(0.05, 2 * sqrt(o * (1 - o) / n))), 'none') AS missed_bins
FROM w GROUP BY w.model, w.seed ORDER BY w.model, w.seed;
\echo == pooled over the seeds
SELECT w.model, count(DISTINCT w.seed) AS seeds, percentile_cont(0.5) WITHIN GROUP (ORDER BY waited) AS wait_p50,
       percentile_cont(0.99) WITHIN GROUP (ORDER BY waited) AS wait_p99,
       (SELECT round(avg((red_odds - red_won) ^ 2)::numeric, 4) FROM m WHERE m.model = w.model) AS brier,
       (SELECT round(avg(corr)::numeric, 3) FROM c WHERE c.model = w.model) AS mean_corr
FROM w GROUP BY w.model ORDER BY w.model;
SELECT model, round(bin::numeric, 2) AS bin, count(*) AS matches, round(avg(f)::numeric, 3) AS predicted,
       round(avg(won::int)::numeric, 3) AS observed,
       round(greatest(0.05, 2 * sqrt(avg(won::int) * (1 - avg(won::int)) / count(*)))::numeric, 3) AS allowed,
       CASE WHEN abs(avg(won::int) - avg(f)) <= greatest(0.05, 2 * sqrt(avg(won::int) * (1 - avg(won::int)) / count(*)))
            THEN 'ok' ELSE 'MISS' END AS verdict
FROM b GROUP BY model, bin HAVING count(*) >= 100 ORDER BY model, bin;
SQL
