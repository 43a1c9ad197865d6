-- C matcher alone (mm.match_rosters), 10k 5v5 rosters, all targets, GW2's teams (split gw2; baseline)
SELECT count(*) FROM mm.match_rosters(
    'SELECT r.* FROM mm.queue q, mm._rosters(q.queue_id) r WHERE q.name = ''q10k'' ORDER BY r.queue_position',
    '{"split": "gw2", "rating": {"model": "glicko2"}, "filter": {"rosters": 10000, "limit": 600000}}', '2024-01-01 00:05:00+00');
