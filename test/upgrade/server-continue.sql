-- What a database filled by server-fill.sql does next, printed in full:
-- test/suites/server_upgrade.sh runs it on a copy of the database before
-- the server's upgrade and on the upgraded database (and on the restored
-- dump), and compares the outputs. The waiting rosters match, the claimed
-- match and the accepted one are reported, the pending rating period
-- closes, the pool finds an opponent; then the ratings, the rating
-- history, the matches and the queues are printed, with no column that
-- depends on the hour the script runs.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
\pset footer off

SELECT q AS queue, count(DISTINCT t.match_id) AS matches
FROM unnest(ARRAY['arena', 'duel', 'elo', 'trio']) q, mm.tick(q, '2026-01-01 13:00+00') t
GROUP BY q ORDER BY q;
SELECT m.match_id, p.player_id, p.team, p.state_before, p.state_after, p.ladder_awarded
FROM (SELECT match_id FROM mm.match WHERE status = 'matched' ORDER BY match_id) m,
     LATERAL mm.report_result(m.match_id, (SELECT jsonb_build_object('teams',
                 jsonb_object_agg(t.name, jsonb_build_object('rank', t.i)))
             FROM mm.match x, unnest(x.teams) WITH ORDINALITY t(name, i)
             WHERE x.match_id = m.match_id)) p
ORDER BY m.match_id, p.player_id;
SELECT * FROM mm.close_rating_period('duel', '2026-01-01 14:00+00') ORDER BY player_id;
SELECT result, player_id, mmr FROM mm.find_opponent('ladder', 1500, '{eu}');

SELECT key, model, player_id, state, ladder_points, games FROM mm.ratings ORDER BY key, model, player_id;
SELECT key, player_id, game, match_id, team, rank, mu_before, sigma_before, mu_after, sigma_after
FROM mm.openskill_rating_history ORDER BY key, player_id, game;
SELECT key, player_id, game, match_id, team, rank, rating_before, rd_before, rating_after, rd_after
FROM mm.glicko2_rating_history ORDER BY key, player_id, game;
SELECT key, player_id, game, match_id, team, rank, rating_before, rating_after, change
FROM mm.elo_rating_history ORDER BY key, player_id, game;
SELECT m.match_id, q.name AS queue, m.status, m.teams, m.odds, m.prediction, m.rating_spread
FROM mm.match m JOIN mm.queue q USING (queue_id) ORDER BY m.match_id;
SELECT q.name AS queue, r.roster_id, r.match_id, r.rating,
       (SELECT array_agg(p.player_id ORDER BY p.player_id) FROM mm.queued_player p WHERE p.roster_id = r.roster_id) AS players
FROM mm.roster r JOIN mm.queue q USING (queue_id) ORDER BY r.roster_id;
SELECT match_id, roster_id, team, players FROM mm.match_roster ORDER BY match_id, roster_id;
SELECT * FROM mm.dishonor_status(6000, '2026-01-01 12:05+00');
