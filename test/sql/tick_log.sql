-- The tick log: one row per tick, except that consecutive idle ticks of a
-- queue share one row, so that a queue nobody plays does not grow the log
-- by a row per tick (mm.run_ticks ticking every second: 86,400 a day).

-- Idle ticks (nothing waiting, nothing done) share one tick log row: its
-- ticks count them and last_at is the last one; a tick that does something
-- gets a row of its own, and the next idle stretch starts a new row.
SELECT mm.create_queue('quiet', '{"team_size": 1}');
SELECT now() - interval '1 minute' AS quiet_t0 \gset
SELECT count(*) FROM mm.tick('quiet', :'quiet_t0');
SELECT count(*) FROM mm.tick('quiet', :'quiet_t0'::timestamptz + interval '1 second');
SELECT count(*) FROM mm.tick('quiet', :'quiet_t0'::timestamptz + interval '2 seconds');
SELECT rosters_seen, ticks, last_at - at AS idle_for FROM mm.tick_log
WHERE queue_id = (SELECT queue_id FROM mm.queue WHERE name = 'quiet') ORDER BY tick_id;
SELECT mm.enqueue('quiet', ARRAY[9001::bigint], 1500) AS quiet_roster \gset
SELECT count(*) FROM mm.tick('quiet');
SELECT mm.leave(:quiet_roster);
SELECT count(*) FROM mm.tick('quiet');
SELECT count(*) FROM mm.tick('quiet');
SELECT rosters_seen, targets_failed, ticks FROM mm.tick_log
WHERE queue_id = (SELECT queue_id FROM mm.queue WHERE name = 'quiet') ORDER BY tick_id;
SELECT ticks_last_hour, last_tick = (SELECT max(last_at) FROM mm.tick_log l JOIN mm.queue q USING (queue_id)
                                     WHERE q.name = 'quiet') AS last_tick_is_latest
FROM mm.queue_stats WHERE queue = 'quiet';
-- the table holds the rule: only idle rows stand for more than one tick
\set VERBOSITY terse
UPDATE mm.tick_log SET ticks = 2
WHERE queue_id = (SELECT queue_id FROM mm.queue WHERE name = 'quiet') AND rosters_seen = 1;
\set VERBOSITY default
SELECT mm.drop_queue('quiet', keep_history => false);
