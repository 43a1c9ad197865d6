-- C matcher alone (mm.match_rosters) over the rows of the 10k tick, all 10k are targets
SELECT count(*) FROM mm.match_rosters(
    'SELECT r.* FROM mm.queue q, mm._rosters(q.queue_id) r WHERE q.name = ''q10k'' ORDER BY r.queue_position',
    '{"filter": {"rosters": 10000, "limit": 600000}}', '2024-01-01 00:05:00+00');
