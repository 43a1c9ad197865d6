#!/usr/bin/env bash
# The season's figures (setup.sql ran it): per rating model, the wait of
# every matched roster (p50, p99), the reliability of the favourite's
# stored odds (bins of 0.05; in every bin of 100 matches or more |observed -
# predicted| must be at most 0.05 or two standard errors of the observed
# frequency, whichever is larger), the Brier score of the stored odds, and
# the correlation of the final ratings with the hidden skill. Writes
# test/bench/out/season.txt and, with gnuplot, season_wait.png and
# season_reliability.png beside it (test/plots.sh season). Exits non-zero
# on a broken run: a model with fewer than 3000 rated matches, no waits or
# no final ratings. A missed goal (p50 wait <= 5 s, p99 <= 30 s, every
# well-filled bin calibrated) is reported as "goal not met" with its
# figures, in season.txt and on stderr, and the run exits 0, so that make
# bench finishes.
set -euo pipefail
root=${MM_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)}
out=$root/test/bench/out
mkdir -p "$out"
q() { psql -X -At -F $'\t' -v ON_ERROR_STOP=1 -c "$1"; }

report=$(psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
\pset footer off
\echo == matches and waits (seconds from enqueue to match)
SELECT model, count(*) AS rosters,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY waited) AS wait_p50,
       percentile_cont(0.99) WITHIN GROUP (ORDER BY waited) AS wait_p99,
       max(waited) AS wait_max,
       (SELECT count(*) FROM season_match m WHERE m.model = w.model AND m.red_won IS NOT NULL) AS matches
FROM season_wait w GROUP BY model ORDER BY model;
\echo == stored odds of the favourite: reliability bins of 0.05
SELECT model, round(bin_lo::numeric, 2) AS bin, matches, round(predicted::numeric, 3) AS predicted,
       round(observed::numeric, 3) AS observed,
       round(greatest(0.05, 2 * sqrt(observed * (1 - observed) / matches))::numeric, 3) AS allowed,
       CASE WHEN matches < 100 THEN 'few'
            WHEN abs(observed - predicted) <= greatest(0.05, 2 * sqrt(observed * (1 - observed) / matches))
            THEN 'ok' ELSE 'MISS' END AS verdict
FROM season_bins ORDER BY model, bin_lo;
\echo == long waiters: mm.explain of the rosters still waiting 25 s after they queued
SELECT model, outcome, count(*) AS rosters, round(avg(potentials)::numeric, 1) AS mean_potentials,
       min(potentials_min) AS potentials_min, round(avg(deviation)::numeric, 2) AS mean_deviation,
       round(avg(abs(rating - centre))::numeric, 2) AS mean_distance_from_centre
FROM (SELECT *, avg(rating) OVER (PARTITION BY model) AS centre FROM season_explain) e
GROUP BY model, outcome ORDER BY model, outcome;
\echo == failed targets over the season, by reason (mm.tick_log.failed_reasons)
SELECT model, reason, targets FROM season_reasons ORDER BY model, reason;
\echo == Brier score of the stored odds, and ratings against the hidden skill
SELECT m.model, round(avg((m.red_odds - m.red_won::int) ^ 2)::numeric, 4) AS brier,
       round(avg(greatest(m.red_odds, 1 - m.red_odds))::numeric, 3) AS mean_favourite_odds,
       (SELECT round(corr(r.rating, k.skill)::numeric, 3) FROM season_rating r
        JOIN season_skill k ON k.model = r.model AND k.player_id = r.player_id
        WHERE r.model = m.model) AS corr_rating_skill
FROM season_match m WHERE m.red_won IS NOT NULL GROUP BY m.model ORDER BY m.model;
SQL
)
echo "$report" >"$out/season.txt"
echo "$report" >&2

# a broken run: a model missing, too few rated matches, no waits or ratings
broken=$(q "
	SELECT string_agg(why, '; ') FROM (
	    SELECT m.model || ': ' || count(c.*) || ' rated matches < 3000' AS why
	    FROM (VALUES ('elo'), ('glicko2'), ('openskill')) m(model)
	    LEFT JOIN season_match c ON c.model = m.model AND c.red_won IS NOT NULL
	    GROUP BY m.model HAVING count(c.*) < 3000
	    UNION ALL SELECT m.model || ': no waits' FROM (VALUES ('elo'), ('glicko2'), ('openskill')) m(model)
	    WHERE NOT EXISTS (SELECT FROM season_wait w WHERE w.model = m.model)
	    UNION ALL SELECT m.model || ': no final ratings' FROM (VALUES ('elo'), ('glicko2'), ('openskill')) m(model)
	    WHERE NOT EXISTS (SELECT FROM season_rating r WHERE r.model = m.model)) f")
# the goals
fail=$(q "
	SELECT string_agg(why, '; ') FROM (
	    SELECT model || ': wait p50 ' || p50 || ' s > 5 s' AS why FROM season_waits WHERE p50 > 5
	    UNION ALL SELECT model || ': wait p99 ' || p99 || ' s > 30 s' FROM season_waits WHERE p99 > 30
	    UNION ALL SELECT model || ': bin ' || round(bin_lo::numeric, 2) || ' predicted ' || round(predicted::numeric, 3)
	                     || ' observed ' || round(observed::numeric, 3)
	    FROM season_bins
	    WHERE matches >= 100
	      AND abs(observed - predicted) > greatest(0.05, 2 * sqrt(observed * (1 - observed) / matches))) f")
if command -v gnuplot >/dev/null; then
	bash "$root/test/plots.sh" season "$out" "${PGDATABASE}" >&2
else
	echo "season: gnuplot is missing, no PNGs (test/plots.sh deps)" >&2
fi
if [ -n "$broken" ]; then
	echo "season: broken run: $broken" | tee -a "$out/season.txt" >&2
	exit 1
fi
if [ -n "$fail" ]; then
	echo "season: goal not met: $fail" | tee -a "$out/season.txt" >&2
else
	echo "season: every goal met" | tee -a "$out/season.txt" >&2
fi
