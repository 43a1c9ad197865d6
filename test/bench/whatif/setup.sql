-- A day of a busy queue, recorded: 1,000,000 rosters arriving evenly over
-- 24 hours (11.6 a second), ticked every second (86,400 tick log rows), a
-- tenth of them leaving after a wait of their own. 5v5 on the Glicko-2
-- scale: parties of 1 to 5 players (most solo), ratings ~ N(1500, 250),
-- deviations 30 to 150. Written straight into the record's tables (what
-- mm.enqueue, mm.leave and the ticks write), so that the setup takes
-- seconds, not the day; mm.whatif reads only those tables.
SELECT mm.create_queue('busy', '{"team_size": 5, "rating": {"model": "glicko2"}}');
SELECT setseed(0.36);
CREATE TABLE bench_arrival AS
SELECT i AS roster_id,
       timestamptz '2026-01-01 00:00+00' + make_interval(secs => (i - 1) * 0.0864) AS arrived_at,
       CASE WHEN u < 0.6 THEN 1 WHEN u < 0.8 THEN 2 WHEN u < 0.9 THEN 3 WHEN u < 0.95 THEN 4 ELSE 5 END AS size,
       1500 + 250 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()) AS rating,
       30 + 120 * random() AS deviation,
       CASE WHEN random() < 0.1 THEN 5 + 120 * random() END AS leaves_after
FROM (SELECT i, random() AS u FROM generate_series(1, 1000000) i) s;
INSERT INTO mm.roster_arrival (roster_id, queue_id, arrived_at, position, joined_at, rating, deviation, rank,
                               ladder_points, dishonor, players)
SELECT a.roster_id, q.queue_id, a.arrived_at, a.roster_id, a.arrived_at, least(greatest(a.rating, 0), 3000),
       a.deviation, 0, 0, 0, ARRAY(SELECT a.roster_id * 5 + k FROM generate_series(0, a.size - 1) k)
FROM bench_arrival a, mm.queue q WHERE q.name = 'busy';
INSERT INTO mm.ticket_event (roster_id, player_id, status, at, queue_id)
SELECT a.roster_id, a.roster_id * 5 + k, 'left', a.arrived_at + make_interval(secs => a.leaves_after), q.queue_id
FROM bench_arrival a CROSS JOIN LATERAL generate_series(0, a.size - 1) k, mm.queue q
WHERE q.name = 'busy' AND a.leaves_after IS NOT NULL;
INSERT INTO mm.tick_log (tick_id, queue_id, at, started_at, duration_ms, rosters_seen, matches_made, targets_failed,
                         oldest_wait, last_at)
SELECT nextval('mm.tick_id_seq'), q.queue_id, t, t, 1, 1, 1, 0, interval '0', t
FROM mm.queue q, generate_series(timestamptz '2026-01-01 00:00:00.5+00', timestamptz '2026-01-01 23:59:59.5+00',
                                 interval '1 second') t
WHERE q.name = 'busy';
DROP TABLE bench_arrival;
VACUUM ANALYZE mm.roster_arrival, mm.ticket_event, mm.tick_log;
