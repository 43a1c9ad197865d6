-- today: rosters deleted (players by the cascade), matches and match_roster rows inserted
SELECT format('SET search_path = p_today_%s', nextval('public.run_today'))
\gexec
WITH m AS (
    INSERT INTO match (match_id, queue_id, prediction)
    SELECT DISTINCT b.match_id, 1, 0 FROM burst b
), g AS MATERIALIZED (
    SELECT r.roster_id, b.match_id, b.team, r.rating, r.deviation, r.joined_at,
           (SELECT array_agg(qp.player_id ORDER BY qp.seat) FROM queued_player qp WHERE qp.roster_id = r.roster_id) AS players
    FROM burst b JOIN roster r USING (roster_id)
), d AS (
    DELETE FROM roster r WHERE r.roster_id IN (SELECT b.roster_id FROM burst b)
)
INSERT INTO match_roster (match_id, roster_id, team, players, rating, deviation, joined_at)
SELECT g.match_id, g.roster_id, g.team, g.players, g.rating, g.deviation, g.joined_at FROM g;
