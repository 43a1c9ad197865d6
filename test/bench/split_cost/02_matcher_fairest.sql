-- C matcher alone (mm.match_rosters), the same rows and targets, the fairest split of each match (the default)
SELECT count(*) FROM mm.match_rosters(
    'SELECT r.* FROM mm.queue q, mm._rosters(q.queue_id) r WHERE q.name = ''q10k'' ORDER BY r.queue_position',
    '{"rating": {"model": "glicko2"}, "filter": {"rosters": 10000, "limit": 600000}}', '2024-01-01 00:05:00+00');
