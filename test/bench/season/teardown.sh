#!/usr/bin/env bash
# The season's figures (setup.sql ran it): per rating model, the wait of
# every matched roster (p50, p99), the reliability of the favourite's
# stored odds (bins of 0.05; in every bin of 100 matches or more |observed -
# predicted| must be at most 0.05 or two standard errors of the observed
# frequency, whichever is larger), the Brier score of the stored odds, and
# the correlation of the final ratings with the hidden skill. Writes
# test/bench/out/season.txt and, with gnuplot, season_wait.png and
# season_reliability.png beside it (test/plots.sh season). Exits non-zero
# when a goal is missed: p50 wait <= 5 s, p99 <= 30 s, at least 3000
# matches, every well-filled bin calibrated.
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

# the goals
fail=$(q "
	SELECT string_agg(why, '; ') FROM (
	    SELECT model || ': wait p50 ' || p50 || ' s > 5 s' AS why FROM season_waits WHERE p50 > 5
	    UNION ALL SELECT model || ': wait p99 ' || p99 || ' s > 30 s' FROM season_waits WHERE p99 > 30
	    UNION ALL SELECT model || ': ' || n || ' matches < 3000' FROM
	        (SELECT model, count(*) AS n FROM season_match WHERE red_won IS NOT NULL GROUP BY model) c WHERE n < 3000
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
if [ -n "$fail" ]; then
	echo "season: goals missed: $fail" >&2
	exit 1
fi
echo "season: every goal met" >&2
