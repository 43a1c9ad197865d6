-- Match quality beside speed (not timed; run by hand on the benchmark's
-- database after setup.sql, see README): matches made, mean rating spread
-- inside a match (max - min effective rating of its rosters) and mean gap
-- between the teams' average effective ratings, for the C matcher and the
-- literal PL/pgSQL port on the same queue.
CREATE TEMP TABLE quality (name text, match_no int, roster_id bigint, team text);
INSERT INTO quality SELECT 'C, 10k queue, all 10k targets', match_no, roster_id, team
FROM mm.match_rosters('SELECT r.* FROM mm.queue q, mm._rosters(q.queue_id) r WHERE q.name = ''q10k'' ORDER BY r.queue_position',
                      '{"filter": {"rosters": 10000, "limit": 600000}}', '2024-01-01 00:05:00+00');
INSERT INTO quality SELECT 'C, 10k queue, 50 targets', match_no, roster_id, team
FROM mm.match_rosters('SELECT r.* FROM mm.queue q, mm._rosters(q.queue_id) r WHERE q.name = ''q10k'' ORDER BY r.queue_position',
                      '{"filter": {"rosters": 50, "limit": 600000}}', '2024-01-01 00:05:00+00');
INSERT INTO quality SELECT 'PL/pgSQL port, 10k queue, 50 targets', match_no, roster_id, team
FROM gw2_port.match_rosters('SELECT r.* FROM mm.queue q, mm._rosters(q.queue_id) r WHERE q.name = ''q10k'' ORDER BY r.queue_position',
                           '{"filter": {"rosters": 50, "limit": 600000}}', '2024-01-01 00:05:00+00')
WHERE team <> 'failed';
INSERT INTO quality SELECT 'C, 100k queue, all 100k targets', match_no, roster_id, team
FROM mm.match_rosters('SELECT r.* FROM mm.queue q, mm._rosters(q.queue_id) r WHERE q.name = ''q100k'' ORDER BY r.queue_position',
                      '{"filter": {"rosters": 100000, "limit": 600000}}', '2024-01-01 00:05:00+00');
SELECT name, count(*) AS matches, round(avg(spread)::numeric, 1) AS mean_rating_spread,
       round(avg(abs(red - blue))::numeric, 1) AS mean_team_gap
FROM (SELECT q.name, q.match_no,
             max(r.rating - r.deviation) - min(r.rating - r.deviation) AS spread,
             sum((r.rating - r.deviation) * cardinality(r.players)) FILTER (WHERE q.team = 'red') / 5 AS red,
             sum((r.rating - r.deviation) * cardinality(r.players)) FILTER (WHERE q.team = 'blue') / 5 AS blue
      FROM quality q JOIN (SELECT r.* FROM mm.queue q2, mm._rosters(q2.queue_id) r) r USING (roster_id) GROUP BY 1, 2) m
GROUP BY name ORDER BY name;
