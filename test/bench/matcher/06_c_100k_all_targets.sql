-- C matcher alone (mm.match_rosters) over the rows of the 100k tick, all 100k are targets
SELECT count(*) FROM mm.match_rosters(
    'SELECT r.* FROM mm.queue q, mm._rosters(q.queue_id) r WHERE q.name = ''q100k'' ORDER BY r.queue_position',
    '{"filter": {"rosters": 100000, "limit": 600000}}', '2024-01-01 00:05:00+00');
