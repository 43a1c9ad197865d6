-- C matcher (mm.match_rosters), 50 targets (the GW2 wiki's default) over the 10k queue
SELECT count(*) FROM mm.match_rosters(
    'SELECT r.* FROM mm.queue q, mm._rosters(q.queue_id) r WHERE q.name = ''q10k'' ORDER BY r.queue_position',
    '{"filter": {"rosters": 50, "limit": 600000}}', '2024-01-01 00:05:00+00');
