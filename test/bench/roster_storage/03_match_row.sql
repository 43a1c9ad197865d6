-- match_row: rosters deleted (players by the cascade), each match one row with its rosters in arrays
SELECT format('SET search_path = p_match_row_%s', nextval('public.run_match_row'))
\gexec
WITH g AS MATERIALIZED (
    SELECT r.roster_id, b.match_id, b.team,
           (SELECT array_agg(qp.player_id ORDER BY qp.seat) FROM queued_player qp WHERE qp.roster_id = r.roster_id) AS players
    FROM burst b JOIN roster r USING (roster_id)
), d AS (
    DELETE FROM roster r WHERE r.roster_id IN (SELECT b.roster_id FROM burst b)
), rs AS (
    SELECT g.match_id, array_agg(g.roster_id ORDER BY g.roster_id) AS rosters, array_agg(g.team ORDER BY g.roster_id) AS teams
    FROM g GROUP BY g.match_id
), ps AS (
    SELECT g.match_id, array_agg(u.p ORDER BY g.roster_id, u.o) AS players
    FROM g, unnest(g.players) WITH ORDINALITY AS u(p, o) GROUP BY g.match_id
)
INSERT INTO match (match_id, queue_id, prediction, rosters, teams, players)
SELECT rs.match_id, 1, 0, rs.rosters, rs.teams, ps.players FROM rs JOIN ps USING (match_id);
