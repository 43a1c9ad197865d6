-- the GW2 wiki's pseudo-code ported literally to PL/pgSQL, 50 targets over the 10k queue (baseline)
SELECT count(*) FROM gw2_port.match_rosters(
    'SELECT r.* FROM mm.queue q, mm._rosters(q.queue_id) r WHERE q.name = ''q10k'' ORDER BY r.queue_position',
    '{"filter": {"rosters": 50, "limit": 600000}}', '2024-01-01 00:05:00+00');
