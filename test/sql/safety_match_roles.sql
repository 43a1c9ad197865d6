-- Roles are kept when a match ends: each player's role stays in the match's
-- record (mm.match_roster's roles, from mm.ended_roster once it ended) and
-- in the result history (mm.match_result_player.role). Before, a reported
-- role queue's match kept no player's role.
\set VERBOSITY terse
SET timezone = 'UTC';
-- the tests after this one count on mm's sequences: put them back at the end
\i test/support/sequences_save.sql

SELECT mm.create_queue('roles_q', $${"team_size": 2, "filter": {"potentials_min": 1},
    "roles": ["tank", "damage"], "rules": [{"type": "roles", "counts": {"tank": 1, "damage": 1}}]}$$);
SELECT count(mm.enqueue('roles_q', ARRAY[p], 25, roles => ARRAY[r]))
FROM (VALUES (9931::bigint, 'tank'), (9932, 'damage'), (9933, 'tank'), (9934, 'damage')) v(p, r);
-- and a party with its roles in party order
SELECT DISTINCT match_id AS rm FROM mm.tick('roles_q') \gset
SELECT team, players, roles FROM mm.match_roster WHERE match_id = :rm ORDER BY team, players;
SELECT count(*) AS rated FROM mm.report_result(:rm, '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}');
SELECT team, players, roles FROM mm.ended_roster WHERE match_id = :rm ORDER BY team, players;
SELECT player_id, team, role FROM mm.match_result_player WHERE match_id = :rm ORDER BY player_id;
-- an abandoned match keeps them too; a roster without roles has none
SELECT mm.enqueue('roles_q', ARRAY[9935, 9936], 25, roles => ARRAY['damage', 'tank']) > 0 AS party;
SELECT count(mm.enqueue('roles_q', ARRAY[p], 25, roles => ARRAY[r]))
FROM (VALUES (9937::bigint, 'tank'), (9938, 'damage')) v(p, r);
SELECT DISTINCT match_id AS am FROM mm.tick('roles_q') \gset
SELECT mm.abandon_match(:am);
SELECT players, roles FROM mm.ended_roster WHERE match_id = :am ORDER BY players;
SELECT mm.create_queue('roles_none', '{"team_size": 1, "filter": {"potentials_min": 1}}');
SELECT count(mm.enqueue('roles_none', ARRAY[p], 25)) FROM generate_series(9939, 9940) p;
SELECT DISTINCT match_id AS nm FROM mm.tick('roles_none') \gset
SELECT count(*) AS rated, count(role) AS with_role
FROM mm.report_result(:nm, '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}');
SELECT DISTINCT roles FROM mm.ended_roster WHERE match_id = :nm;

SELECT mm.drop_queue(x, keep_history => false) FROM unnest(ARRAY['roles_q', 'roles_none']) x;
DELETE FROM mm.ratings WHERE player_id BETWEEN 9931 AND 9940;
\i test/support/sequences_restore.sql
