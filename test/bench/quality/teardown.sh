#!/usr/bin/env bash
# The quality report (setup.sql ran the seasons): per shape and config the
# matches, the waits (p50, p99), the favourite's mean stored odds, the
# fairness gap (mean |odds - 0.5| of the matches made over that of the
# fairest split of the same rosters, both on the family's own odds; two
# teams), the matches above a balance rule's limit at their target's wait,
# the matches holding a blocked pair; how fast the ratings learn (Spearman
# correlation of rating with hidden skill at 5, 10, 20 and 50 games beside
# the offline fit's, convergence.sql); and the candidates replayed over each
# shape's recommended season. Writes test/bench/out/quality.txt and, with
# gnuplot, quality_convergence.png and quality_odds.png beside it
# (test/plots.sh quality). Exits non-zero on a broken run (a season short
# of its matches, or without fits); a missed goal is printed as "goal not
# met" with its figures and the run exits 0, so that make bench finishes.
set -euo pipefail
root=${MM_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)}
out=$root/test/bench/out
mkdir -p "$out"
q() { psql -X -At -F $'\t' -v ON_ERROR_STOP=1 -c "$1"; }
psql -X -q -v ON_ERROR_STOP=1 -f "$root/test/bench/quality/convergence.sql" >/dev/null

report=$(psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
\pset footer off
\echo == seasons: matches, waits (s), mean stored odds of the favourite, fairness gap, matches above the balance limit, matches holding a blocked pair
SELECT s.shape, c.config, count(*) AS matches,
       (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY w.waited) FROM quality_wait w
        WHERE w.shape = s.shape AND w.config = c.config) AS wait_p50,
       (SELECT percentile_cont(0.99) WITHIN GROUP (ORDER BY w.waited) FROM quality_wait w
        WHERE w.shape = s.shape AND w.config = c.config) AS wait_p99,
       round(avg(m.favourite)::numeric, 3) AS favourite,
       round((avg(abs(1 / (1 + exp(-ln(m.favourite / (1 - m.favourite)) / m.odds_scale)) - 0.5))
              / nullif(avg(abs(f.favourite - 0.5)), 0))::numeric, 3) AS fairness_gap,
       count(*) FILTER (WHERE c.qcfg ? 'rules' AND m.favourite > quality_limit(c.qcfg, m.target_wait) + 1e-12)
           AS above_limit,
       (SELECT count(DISTINCT a.match_id) FROM quality_game a JOIN quality_game b
            ON b.shape = a.shape AND b.config = a.config AND b.match_no = a.match_no AND b.player_id <> a.player_id
        JOIN mm.player_block k ON k.player_id = a.player_id AND k.blocked_id = b.player_id
        WHERE a.shape = s.shape AND a.config = c.config) AS blocked_pairs
FROM quality_shape s JOIN quality_config c ON c.shape = s.shape
JOIN quality_match m ON m.shape = s.shape AND m.config = c.config
LEFT JOIN quality_fairest f ON f.shape = m.shape AND f.config = m.config AND f.match_id = m.match_id
GROUP BY s.shape, s.position, c.config, c.qcfg ORDER BY s.position, c.config;
\echo == how fast the ratings learn: Spearman correlation of rating with hidden skill, players at k games
SELECT v.shape, v.config, v.k, v.players, round(v.online::numeric, 3) AS online,
       round(v.offline::numeric, 3) AS offline_fit, round(v.ratio::numeric, 3) AS ratio
FROM quality_convergence v JOIN quality_shape s USING (shape)
ORDER BY s.position, v.config = 'recommended' DESC, v.config, v.k;
\echo == candidates replayed over the games of each recommended season: ratio to the offline fit at k games
SELECT x.shape, x.label, x.k, x.players, round(x.ratio::numeric, 3) AS ratio
FROM quality_candidate_convergence x JOIN quality_shape s USING (shape) JOIN quality_candidate c USING (label)
ORDER BY s.position, c.position, x.k;
SQL
)
echo "$report" >"$out/quality.txt"
echo "$report" >&2

broken=$(q "
	SELECT string_agg(why, '; ') FROM (
	    SELECT c.shape || ' ' || c.config || ': ' || count(m.*) || ' matches < ' || s.matches AS why
	    FROM quality_config c JOIN quality_shape s USING (shape)
	    LEFT JOIN quality_match m ON m.shape = c.shape AND m.config = c.config
	    GROUP BY c.shape, c.config, s.matches HAVING count(m.*) < s.matches
	    UNION ALL SELECT c.shape || ' ' || c.config || ': no fits' FROM quality_config c
	    WHERE NOT EXISTS (SELECT FROM quality_fit f WHERE f.shape = c.shape AND f.config = c.config)) f")
fail=$(q "
	SELECT string_agg(why, '; ') FROM (
	    SELECT shape || ' ' || config || ': fairness gap ' || round(gap::numeric, 3) || ' > 1.05' AS why
	    FROM (SELECT m.shape, m.config, avg(abs(1 / (1 + exp(-ln(m.favourite / (1 - m.favourite)) / m.odds_scale)) - 0.5))
	                 / nullif(avg(abs(f.favourite - 0.5)), 0) AS gap
	          FROM quality_match m JOIN quality_fairest f USING (shape, config, match_id)
	          JOIN quality_config c USING (shape, config)
	          WHERE coalesce(c.qcfg ->> 'split', 'fairest') = 'fairest' GROUP BY 1, 2) g WHERE gap > 1.05
	    UNION ALL SELECT m.shape || ' ' || m.config || ': ' || count(*) || ' matches above the balance limit'
	    FROM quality_match m JOIN quality_config c USING (shape, config)
	    WHERE c.qcfg ? 'rules' AND m.favourite > quality_limit(c.qcfg, m.target_wait) + 1e-12 GROUP BY m.shape, m.config
	    UNION ALL SELECT a.shape || ' ' || a.config || ': match ' || a.match_id || ' holds a blocked pair'
	    FROM quality_game a JOIN quality_game b
	         ON b.shape = a.shape AND b.config = a.config AND b.match_no = a.match_no AND b.player_id <> a.player_id
	    JOIN mm.player_block k ON k.player_id = a.player_id AND k.blocked_id = b.player_id
	    UNION ALL SELECT shape || ' recommended: at ' || k || ' games ' || round(ratio::numeric, 3) || ' of the offline fit < 0.98'
	    FROM quality_convergence WHERE config = 'recommended' AND k >= 10 AND ratio < 0.98) f")
if command -v gnuplot >/dev/null; then
	bash "$root/test/plots.sh" quality "$out" "${PGDATABASE}" >&2
else
	echo "quality: gnuplot is missing, no PNGs (test/plots.sh deps)" >&2
fi
if [ -n "$broken" ]; then
	echo "quality: broken run: $broken" | tee -a "$out/quality.txt" >&2
	exit 1
fi
if [ -n "$fail" ]; then
	echo "quality: goal not met: $fail" | tee -a "$out/quality.txt" >&2
else
	echo "quality: every goal met" | tee -a "$out/quality.txt" >&2
fi
