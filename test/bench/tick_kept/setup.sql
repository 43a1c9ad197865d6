-- The kept input (mm.keep_tick_input): ticks of one long-lived backend,
-- which keeps each queue's waiting rosters between its ticks and reads
-- only what changed since, as mm.run_ticks does. The queues are those of
-- the tick_steady benchmark (dense and sparse, 2k, 20k and 100k waiting
-- rosters) and of the matcher_rules benchmark (single mode and rules,
-- 100k, 50 targets), filled the same way. A case ticks one queue 20 times
-- in one session after a first tick that reads it whole, and refills it
-- after each tick through mm.enqueue (which the kept input hears of) with
-- rosters drawn as the queue's own. Every tick of a queue runs at the
-- same point of time (the queue's epoch, plus a millisecond a tick), so
-- the waits, and with them the ranges and the rules' steps, stay those
-- of the draw from the first run to the last. report.sh gives the tick
-- log's figures of the ticks after the first of each session.
\i test/bench/tick_steady/setup.sql
-- the matcher_rules queues number their players from 0: move these out of the way
UPDATE mm.queued_player SET player_id = player_id + 800000000;
\set targets 50
\i test/bench/matcher_rules/queues.sql

-- per queue, the point of time its draw's waits are measured from
CREATE TABLE bench_epoch (queue text PRIMARY KEY, epoch timestamptz NOT NULL, kind text NOT NULL);
INSERT INTO bench_epoch
SELECT q.name, (SELECT max(r.joined_at) FROM mm.roster r WHERE r.queue_id = q.queue_id),
       CASE WHEN q.name LIKE 'dense%' THEN 'dense' WHEN q.name LIKE 'sparse%' THEN 'sparse' ELSE q.name END
FROM mm.queue q WHERE q.name LIKE 'dense%' OR q.name LIKE 'sparse%';
INSERT INTO bench_epoch VALUES ('single', '2024-01-01 00:05:00+00', 'single'),
                               ('rules', '2024-01-01 00:05:00+00', 'rules'),
                               ('latency', '2024-01-01 00:05:00+00', 'rules');
CREATE SEQUENCE bench_clock;
-- the first tick of each session (the whole read that builds the kept input)
CREATE TABLE bench_first (tick_id bigint PRIMARY KEY);

-- n rosters of a queue's draw, through mm.enqueue, joined up to the
-- draw's longest wait before "at"
CREATE FUNCTION bench_enqueue(qname text, n int, kind text, at timestamptz) RETURNS void LANGUAGE sql AS $$
    SELECT count(mm.enqueue(qname, x.players, x.rating, x.deviation, floor(random() * 40),
                            professions => x.professions, joined_at => at - x.waited * interval '1 second',
                            attributes => CASE WHEN kind = 'rules' THEN jsonb_build_object('mode', 'm' || x.mode) ELSE '{}' END,
                            latencies => CASE WHEN kind = 'rules' THEN
                                (SELECT jsonb_object_agg('r' || k, round((CASE WHEN k = x.home THEN 15 + 45 * random()
                                                                              ELSE 70 + 180 * random() END)::numeric, 1))
                                 FROM generate_series(0, 5) k) ELSE '{}' END,
                            roles => CASE WHEN kind = 'rules' THEN x.roles ELSE '{}' END))
    FROM (
        SELECT (SELECT array_agg(nextval('bench_player_seq') + 900000000) FROM generate_series(1, s.size)) AS players,
               (SELECT array_agg((ARRAY['guardian','warrior','thief','ranger','engineer','necromancer','mesmer',
                                        'elementalist','revenant'])[1 + floor(random() * 9)::int])
                FROM generate_series(1, s.size)) AS professions,
               (SELECT array_agg(CASE WHEN u < 0.2 THEN 'tank' WHEN u < 0.6 THEN 'damage' ELSE 'support' END)
                FROM (SELECT random() AS u FROM generate_series(1, s.size)) v) AS roles,
               CASE WHEN kind = 'sparse' THEN floor(random() * 1e8)
                    ELSE least(3000, greatest(100, 1500 + 250 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()))) END AS rating,
               CASE WHEN kind = 'sparse' THEN 30 ELSE 30 + 120 * random() END AS deviation,
               CASE WHEN kind = 'sparse' THEN floor(random() * 20) ELSE floor(random() * 300) END AS waited,
               1 + floor(random() * 20)::int AS mode, floor(random() * 6)::int AS home
        FROM (SELECT CASE WHEN u < 0.50 THEN 1 WHEN u < 0.70 THEN 2 WHEN u < 0.82 THEN 3 WHEN u < 0.90 THEN 4 ELSE 5 END AS size
              FROM (SELECT random() AS u FROM generate_series(1, n)) u) s
    ) x;
$$;

-- "ticks" ticks of a queue in this session with its input kept, after a
-- first one (which reads the queue whole), refilled to its size after
-- each through mm.enqueue (unless refill is false: callgrind.sh)
CREATE PROCEDURE bench_kept_ticks(qname text, ticks int, refill boolean DEFAULT true) LANGUAGE plpgsql AS $$
DECLARE
    e bench_epoch;
    n int;
    waiting int;
    at timestamptz;
BEGIN
    SELECT * INTO STRICT e FROM bench_epoch WHERE queue = qname;
    SELECT count(*) INTO n FROM mm.roster r JOIN mm.queue q USING (queue_id) WHERE q.name = qname AND r.match_id IS NULL;
    FOR k IN 0 .. ticks LOOP
        at := e.epoch + nextval('bench_clock') * interval '1 millisecond';
        PERFORM count(*) FROM mm.tick(qname, at);
        IF k = 0 THEN
            INSERT INTO bench_first SELECT max(l.tick_id) FROM mm.tick_log l JOIN mm.queue q USING (queue_id) WHERE q.name = qname;
        END IF;
        COMMIT;
        SELECT count(*) INTO waiting FROM mm.roster r JOIN mm.queue q USING (queue_id)
        WHERE q.name = qname AND r.match_id IS NULL;
        IF refill AND waiting < n THEN
            PERFORM bench_enqueue(qname, n - waiting, e.kind, at);
        END IF;
        COMMIT;
    END LOOP;
END $$;

-- the figures of the kept ticks (report.sh)
CREATE VIEW bench_kept_report AS
SELECT q.name AS queue, count(*) AS ticks,
       round(avg(l.duration_ms)::numeric, 2) AS mean_ms,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY l.duration_ms)::numeric, 2) AS median_ms,
       round(avg(l.matches_made), 1) AS matches_per_tick,
       round(avg(l.targets_failed), 1) AS failed_per_tick
FROM mm.tick_log l JOIN mm.queue q USING (queue_id)
WHERE NOT EXISTS (SELECT FROM bench_first f WHERE f.tick_id = l.tick_id)
GROUP BY q.name;
