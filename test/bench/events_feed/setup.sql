-- A queue for the wake-up delay, and one with 1M retained events for the
-- poll at the tail (written directly: the feed's table as a busy day leaves it)
SELECT mm.create_queue('wake', '{"team_size": 1, "filter": {"potentials_min": 1}}');
SELECT mm.create_queue('tail', '{"team_size": 1}');
INSERT INTO mm.queue_event (queue_id, at, kind, roster_id, player_ids, detail)
SELECT q.queue_id, now() - interval '1 hour' + g * interval '3 ms', 'queued', g, ARRAY[g], '{}'
FROM mm.queue q, generate_series(1, 1000000) g WHERE q.name = 'tail' ORDER BY g;
VACUUM ANALYZE mm.queue_event;
