# After the cases: the concurrent reports gave the ratings a sequential
# replay gives, exactly. Each player's reports form one chain from the
# first rating to the stored one (a report's before is another report's
# after, no two reports start from the same state: no update was lost, so
# the chain is the order in which they committed), and every report's
# after is exactly mm.openskill_rate of its befores. Replaying the reports
# one by one in that order therefore gives the stored ratings; games and
# ladder points are checked against the same chain. Fails loudly.
set -euo pipefail
bad=$(psql -X -At -v ON_ERROR_STOP=1 <<'SQL'
WITH p AS (SELECT * FROM mm.match_result_player WHERE key = 'bench'),
-- two reports of a player that start from the same state: a lost update
forks AS (SELECT count(*) AS n FROM (SELECT player_id FROM p GROUP BY player_id, state_before
                                     HAVING count(*) > 1) x),
-- a before that is neither the first rating nor an earlier report's after
orphans AS (SELECT count(*) AS n FROM p
            WHERE NOT (p.state_before[1] = 25 AND p.state_before[2] = 25.0 / 3)
              AND NOT EXISTS (SELECT FROM p q WHERE q.player_id = p.player_id
                                AND q.state_after[1] = p.state_before[1] AND q.state_after[2] = p.state_before[2]
                                AND q.ladder_after IS NOT DISTINCT FROM p.ladder_before)),
-- the stored row is the end of its chain, and counts its games
ends AS (SELECT count(*) AS n FROM mm.ratings r
         WHERE r.key = 'bench' AND r.games > 0
           AND (r.games <> (SELECT count(*) FROM p WHERE p.player_id = r.player_id)
                OR NOT EXISTS (SELECT FROM p WHERE p.player_id = r.player_id AND p.state_after[1] = r.state[1]
                                 AND p.state_after[2] = r.state[2] AND p.ladder_after = r.ladder_points)
                OR EXISTS (SELECT FROM p WHERE p.player_id = r.player_id AND p.state_before[1] = r.state[1]
                             AND p.state_before[2] = r.state[2]))),
-- every report rated exactly as mm.openskill_rate rates its befores
rates AS (SELECT count(*) AS n
          FROM (SELECT match_id, array_agg(player_id ORDER BY player_id) AS ids,
                       array_agg(CASE team WHEN 'red' THEN 1 ELSE 2 END ORDER BY player_id) AS team,
                       array_agg(rank ORDER BY player_id) AS rank, array_agg(state_before[1] ORDER BY player_id) AS mu,
                       array_agg(state_before[2] ORDER BY player_id) AS sigma,
                       array_agg(state_after[1] ORDER BY player_id) AS mu2, array_agg(state_after[2] ORDER BY player_id) AS sigma2
                FROM p GROUP BY match_id) g
          CROSS JOIN LATERAL mm.openskill_rate(g.team, g.rank, g.mu, g.sigma) o
          WHERE o.mu <> g.mu2[o.idx] OR o.sigma <> g.sigma2[o.idx]),
reports AS (SELECT count(*) AS n FROM mm.match_result)
SELECT CASE WHEN (SELECT n FROM reports) < 3000 THEN 'only ' || (SELECT n FROM reports) || ' reports'
            ELSE concat_ws(' ', nullif((SELECT n FROM forks), 0) || ' lost updates',
                           nullif((SELECT n FROM orphans), 0) || ' reports from an unknown state',
                           nullif((SELECT n FROM ends), 0) || ' rating rows not at the end of their chain',
                           nullif((SELECT n FROM rates), 0) || ' players rated differently') END;
SQL
)
if [ -n "$bad" ]; then
	echo "report_result: the concurrent reports differ from a sequential replay: $bad" >&2
	exit 1
fi
