-- Invariants after the mixed load, one row each: the number of violations
-- and what is checked (psql -At prints "count|what"). Every count must be 0.
-- The first ones are test/suites/crash.sh's and matcher_load.sh's, over
-- queues with parties, ready checks and backfills.
-- (a roster in a match stays in mm.roster, match_id set, with its players'
-- rows: the waiting rosters are those without a match)
SELECT count(*), 'players in two waiting rosters'
FROM (SELECT qp.player_id FROM mm.queued_player qp JOIN mm.roster r USING (queue_id, roster_id)
      WHERE r.match_id IS NULL GROUP BY 1 HAVING count(*) > 1) x;
SELECT count(*), 'queued players whose roster is not waiting in their queue'
FROM mm.queued_player qp
WHERE NOT EXISTS (SELECT FROM mm.roster r WHERE r.roster_id = qp.roster_id AND r.queue_id = qp.queue_id);
SELECT count(*), 'waiting rosters without a player'
FROM mm.roster r WHERE r.match_id IS NULL AND NOT EXISTS (SELECT FROM mm.queued_player qp WHERE qp.roster_id = r.roster_id);
SELECT count(*), 'rosters both waiting and in a match'
FROM mm.roster r JOIN mm.match_roster m USING (roster_id) WHERE r.match_id IS NULL;
SELECT count(*), 'players in two open (proposed or matched) matches'
FROM (SELECT p FROM mm.match m JOIN mm.match_roster mr USING (queue_id, match_id), unnest(mr.players) p
      WHERE m.status IN ('proposed', 'matched') GROUP BY p HAVING count(DISTINCT m.match_id) > 1) x;
SELECT count(*), 'players waiting while in an open match (the queues refuse them)'
FROM mm.match m JOIN mm.match_roster mr USING (queue_id, match_id), unnest(mr.players) p
WHERE m.status IN ('proposed', 'matched')
  AND EXISTS (SELECT FROM mm.queued_player qp JOIN mm.roster r USING (queue_id, roster_id)
              WHERE qp.player_id = p AND r.match_id IS NULL);
SELECT count(*), 'players twice in one match'
FROM (SELECT mr.match_id, p FROM mm.match_roster mr, unnest(mr.players) p GROUP BY 1, 2 HAVING count(*) > 1) x;
SELECT count(*), 'live matches without exactly their teams (red and blue in duo, ash, oak and elm in squad)'
FROM mm.match m JOIN mm.queue q USING (queue_id)
WHERE m.status <> 'dissolved'
  AND (m.teams <> CASE q.name WHEN 'squad' THEN '{ash,oak,elm}'::text[] ELSE '{red,blue}' END
       OR (SELECT count(DISTINCT team) FROM mm.match_roster mr WHERE mr.match_id = m.match_id) <> cardinality(m.teams)
       OR EXISTS (SELECT FROM mm.match_roster mr WHERE mr.match_id = m.match_id AND mr.team <> ALL (m.teams)));
SELECT count(*), 'dissolved matches holding rosters, a result or a delivery'
FROM mm.match m
WHERE m.status = 'dissolved'
  AND (m.delivered_at IS NOT NULL OR EXISTS (SELECT FROM mm.match_roster mr WHERE mr.match_id = m.match_id)
       OR EXISTS (SELECT FROM mm.match_result x WHERE x.match_id = m.match_id));
SELECT count(*), 'teams whose players are not team_size plus the seats their filled backfills added'
FROM (SELECT mr.match_id, mr.team, sum(cardinality(mr.players)) AS players,
             (mm.matcher_config(q.config) ->> 'team_size')::int AS size
      FROM mm.match_roster mr JOIN mm.queue q USING (queue_id) GROUP BY 1, 2, 4) t
WHERE t.players <> t.size + (SELECT coalesce(sum(b.players), 0) FROM mm.backfill b
                             WHERE b.match_id = t.match_id AND b.team = t.team AND b.status = 'filled');
SELECT count(*), 'finished matches without a result, or results of matches not finished'
FROM mm.match m
WHERE (m.status = 'finished') <> EXISTS (SELECT FROM mm.match_result x WHERE x.match_id = m.match_id);
SELECT count(*), 'reported matches whose rated players are not the players of their rosters'
FROM mm.match_result x
WHERE x.status = 'reported'
  AND ARRAY(SELECT p.player_id FROM mm.match_result_player p WHERE p.match_id = x.match_id ORDER BY 1)
      <> ARRAY(SELECT u FROM mm.match_roster mr, unnest(mr.players) u WHERE mr.match_id = x.match_id ORDER BY 1);
SELECT count(*), 'abandoned matches with rated players'
FROM mm.match_result x
WHERE x.status = 'abandoned' AND EXISTS (SELECT FROM mm.match_result_player p WHERE p.match_id = x.match_id);
SELECT count(*), 'open backfill requests of matches not being played'
FROM mm.backfill b JOIN mm.match m USING (match_id) WHERE b.status = 'open' AND m.status <> 'matched';
SELECT count(*), 'accepts of players not in their (live) match'
FROM mm.match_accept a JOIN mm.match m USING (match_id)
WHERE m.status <> 'dissolved'
  AND NOT EXISTS (SELECT FROM mm.match_roster mr WHERE mr.match_id = a.match_id AND a.player_id = ANY (mr.players));
SELECT count(*), 'rosters the load enqueued that are not waiting, in one match, or ended by their last ticket event'
FROM load.rosters l
WHERE (SELECT count(*) FROM mm.roster r WHERE r.roster_id = l.roster_id AND r.match_id IS NULL)
    + (SELECT count(*) FROM mm.match_roster m WHERE m.roster_id = l.roster_id)
    + (SELECT count(*) FROM (SELECT e.status FROM mm.ticket_event e WHERE e.roster_id = l.roster_id
                             ORDER BY e.event_id DESC LIMIT 1) e
       WHERE e.status IN ('left', 'removed', 'expired')) <> 1;
SELECT count(*), 'rosters waiting or matched in the load''s queues that the load never enqueued'
FROM (SELECT roster_id, queue_id FROM mm.roster UNION ALL SELECT roster_id, queue_id FROM mm.match_roster) x
JOIN mm.queue q USING (queue_id)
WHERE q.name IN ('duo', 'squad') AND NOT EXISTS (SELECT FROM load.rosters l WHERE l.roster_id = x.roster_id);
SELECT count(*), 'waiting players whose last ticket event is not waiting in their roster'
FROM mm.queued_player qp JOIN mm.roster r ON r.queue_id = qp.queue_id AND r.roster_id = qp.roster_id AND r.match_id IS NULL
CROSS JOIN LATERAL (SELECT e.status, e.roster_id FROM mm.ticket_event e WHERE e.player_id = qp.player_id
                    ORDER BY e.event_id DESC LIMIT 1) e
WHERE e.status <> 'waiting' OR e.roster_id <> qp.roster_id;
SELECT count(*), 'ticket events naming a match that does not exist'
FROM mm.ticket_event e
WHERE e.match_id IS NOT NULL AND NOT EXISTS (SELECT FROM mm.match m WHERE m.match_id = e.match_id);
SELECT count(*), 'rating rows whose games are not their players'' reported matches'
FROM mm.ratings r
WHERE r.games <> (SELECT count(*) FROM mm.match_result_player p
                  WHERE p.player_id = r.player_id AND p.key = r.key AND p.model = r.model);
SELECT count(*), 'reported matches without their place in the report order, or the reverse'
FROM (SELECT match_id FROM mm.match_result WHERE status = 'reported') x FULL JOIN load.report_order o USING (match_id)
WHERE x.match_id IS NULL OR o.match_id IS NULL;
-- each player's reports form a chain: a report's before is the previous one's after
SELECT count(*), 'reports that read a rating or ladder points another report had replaced'
FROM (SELECT p.state_before, lag(p.state_after) OVER w AS prev_state,
             p.ladder_before, lag(p.ladder_after) OVER w AS prev_ladder, row_number() OVER w AS n
      FROM mm.match_result_player p JOIN load.report_order o USING (match_id)
      WINDOW w AS (PARTITION BY p.player_id, p.key, p.model ORDER BY o.seq)) x
WHERE n > 1 AND (state_before IS DISTINCT FROM prev_state OR ladder_before IS DISTINCT FROM prev_ladder);
