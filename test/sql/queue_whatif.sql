-- mm.whatif: a queue's recorded traffic replayed through the matcher.
-- The live traffic below is made step by step, each step its own
-- transaction (a procedure that commits), so that every enqueue, leave and
-- tick has its own time, as in production.

SET client_min_messages = warning;
-- the replays read their arrivals a few at a time: every batch boundary
-- must keep the ids of professions, attribute values and regions
SET mm.whatif_read_batch = 3;

-- A 2v2 queue with game modes, regions and parties; expiry; the ticks read
-- the queue in small steps.
SELECT mm.create_queue('wi_live', $${"team_size": 2, "filter": {"potentials_min": 1, "padding": 20},
    "rating": {"model": "glicko2"}, "ticket_ttl": "1 hour", "requeue_while_in_match": true,
    "attributes": {"mode": {"type": "string", "default": "ranked"}},
    "rules": [{"type": "equal", "attribute": "mode"}, {"type": "latency", "max": 120}]}$$);
SET mm.tick_read_batch = 2;

-- One step of live traffic: a tick every third step; otherwise a player of
-- 40 (with a friend 100 higher, a party of two, one time in four) queues,
-- or leaves if it waits; now and then a roster queued long ago, already
-- past the ticket_ttl (the next tick expires it).
CREATE FUNCTION wi_step(k int, queue text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    p bigint := 1 + floor(random() * 40);
    r bigint;
BEGIN
    IF k % 3 = 0 THEN
        PERFORM mm.tick(queue);
        RETURN;
    END IF;
    SELECT qp.roster_id INTO r FROM mm.queued_player qp JOIN mm.roster x USING (queue_id, roster_id)
    WHERE qp.player_id IN (p, p + 100) AND NOT qp.requeued AND x.match_id IS NULL;
    IF FOUND THEN
        IF random() < 0.4 THEN
            PERFORM mm.leave(r);
        END IF;
        RETURN;
    END IF;
    PERFORM mm.enqueue(queue, CASE WHEN random() < 0.25 THEN ARRAY[p, p + 100] ELSE ARRAY[p] END,
                       1400 + floor(random() * 300), 40,
                       joined_at => now() - CASE WHEN random() < 0.05 THEN interval '2 hours'
                                                 ELSE make_interval(secs => floor(random() * 60)) END,
                       professions => CASE WHEN random() < 0.5 THEN '{}'::text[]
                                           ELSE ARRAY['p' || floor(random() * 5)] END,
                       attributes => CASE WHEN random() < 0.5 THEN '{}'::jsonb ELSE '{"mode": "casual"}' END,
                       latencies => jsonb_build_object('eu', floor(random() * 150), 'us', floor(random() * 150)));
EXCEPTION WHEN unique_violation OR invalid_parameter_value THEN
    -- the friend already queued alone, or a party too large: skip the step
    NULL;
END
$$;
CREATE PROCEDURE wi_run(steps int, queue text) LANGUAGE plpgsql AS $$
BEGIN
    FOR k IN 1 .. steps LOOP
        PERFORM wi_step(k, queue);
        COMMIT;
    END LOOP;
END
$$;

SELECT now() - interval '1 minute' AS since \gset
SELECT setseed(0.25);
CALL wi_run(450, 'wi_live');

-- the live traffic did what the replay must reproduce: matches, leaves,
-- expiry, failed targets moved to the back, players queued again
SELECT count(*) > 20 AS matches FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'wi_live';
SELECT count(*) FILTER (WHERE status = 'left') > 0 AS left, count(*) FILTER (WHERE status = 'expired') > 0 AS expired
FROM mm.ticket_event e JOIN mm.queue q USING (queue_id) WHERE q.name = 'wi_live';
SELECT sum(targets_failed) > 0 AS failed_targets FROM mm.tick_log l JOIN mm.queue q USING (queue_id) WHERE q.name = 'wi_live';
SELECT count(*) > count(DISTINCT player_id) AS queued_again FROM mm.ticket_event e JOIN mm.queue q USING (queue_id)
WHERE q.name = 'wi_live' AND e.status = 'waiting';
SELECT count(DISTINCT attributes ->> 'mode') AS modes, count(DISTINCT professions) > 2 AS professions
FROM mm.roster_arrival a JOIN mm.queue q USING (queue_id) WHERE q.name = 'wi_live';

-- Same config, same matches: every live match of the window, made by the
-- live tick the replay made it at, of the same rosters in the same teams
CREATE TABLE wi_replay AS SELECT * FROM mm.whatif_matches('wi_live', :'since', now());
CREATE TABLE wi_played AS
SELECT m.match_id, m.created_at, mr.roster_id, mr.team, mr.waited
FROM mm.match m JOIN mm.queue q USING (queue_id) JOIN mm.match_roster mr USING (match_id)
WHERE q.name = 'wi_live';
SELECT (SELECT count(*) FROM wi_replay) = (SELECT count(*) FROM wi_played) AS same_count,
       NOT EXISTS (SELECT FROM wi_replay r FULL JOIN wi_played l
                   ON l.match_id = r.live_match_id AND l.roster_id = r.roster_id AND l.team = r.team
                      AND l.created_at = r.tick_at AND l.waited = r.waited
                   WHERE r.roster_id IS NULL OR l.roster_id IS NULL) AS same_matches,
       (SELECT count(DISTINCT match_no) FROM wi_replay) = (SELECT count(DISTINCT match_id) FROM wi_played) AS same_match_count,
       bool_and(status = 'matched') AS all_matched
FROM wi_replay;

-- and the figures are the live ones: matches, players, waits, rosters that
-- left or expired, rosters still waiting
WITH w AS (SELECT * FROM mm.whatif('wi_live', :'since', now()) WHERE segment = 'all'),
live AS (SELECT count(DISTINCT p.match_id) AS matches,
                (SELECT sum(cardinality(mr.players)) FROM mm.match_roster mr
                 WHERE mr.roster_id IN (SELECT roster_id FROM wi_played)) AS players,
                percentile_cont(0.5) WITHIN GROUP (ORDER BY p.waited) AS p50,
                percentile_cont(0.9) WITHIN GROUP (ORDER BY p.waited) AS p90,
                percentile_cont(0.99) WITHIN GROUP (ORDER BY p.waited) AS p99
         FROM wi_played p),
gone AS (SELECT count(DISTINCT e.roster_id) AS n FROM mm.ticket_event e JOIN mm.queue q USING (queue_id)
         WHERE q.name = 'wi_live' AND e.status IN ('left', 'expired')),
waiting AS (SELECT count(*) AS n FROM mm.roster r JOIN mm.queue q USING (queue_id)
            WHERE q.name = 'wi_live' AND r.match_id IS NULL),
arrived AS (SELECT count(*) AS n FROM mm.roster_arrival a JOIN mm.queue q USING (queue_id) WHERE q.name = 'wi_live')
SELECT w.rosters = arrived.n AS rosters, w.games = live.matches AS games,
       w.players_matched = live.players AS players,
       abs(extract(epoch FROM w.wait_p50 - live.p50)) < 1e-6 AS p50,
       abs(extract(epoch FROM w.wait_p90 - live.p90)) < 1e-6 AS p90,
       abs(extract(epoch FROM w.wait_p99 - live.p99)) < 1e-6 AS p99,
       w.left_or_expired = gone.n AS left_or_expired, w.still_waiting = waiting.n AS still_waiting,
       w.favourite_odds BETWEEN 0.5 AND 1 AS odds, w.mean_latency BETWEEN 0 AND 120 AS latency
FROM w, live, gone, waiting, arrived;

-- every segment adds up to its rosters: deciles of ten (or so) rosters,
-- party sizes, best regions, modes
SELECT segment, sum(rosters) = (SELECT rosters FROM mm.whatif('wi_live', :'since', now()) WHERE segment = 'all') AS adds_up,
       count(*) AS groups, string_agg(value, ',' ORDER BY value COLLATE "C") FILTER (WHERE segment <> 'rating_decile') AS values
FROM mm.whatif('wi_live', :'since', now()) GROUP BY segment ORDER BY min(segment);

-- a window from the middle: the rosters the live queue held then start it
SELECT count(*) > 0 AS carried_over
FROM mm.whatif_matches('wi_live', (SELECT min(created_at) + (max(created_at) - min(created_at)) / 2 FROM wi_played), now()) r
JOIN mm.roster_arrival a USING (roster_id)
WHERE a.arrived_at < (SELECT min(created_at) + (max(created_at) - min(created_at)) / 2 FROM wi_played);

-- Another config: a wider window matches sooner, less evenly
SELECT c.config_no, c.config, c.games > 0 AS games,
       c.wait_p50 <= (SELECT wait_p50 FROM mm.whatif('wi_live', :'since', now()) WHERE segment = 'all') AS waits_no_longer
FROM mm.whatif_compare('wi_live', :'since', now(), ARRAY['{"filter": {"padding": 200, "deviations": 4}}']::jsonb[]) c
WHERE c.segment = 'all' ORDER BY c.config_no;
-- the same config at a cadence of its own
SELECT count(*) > 0 AS at_a_cadence FROM mm.whatif('wi_live', :'since', now(), '{}', every => '1 second');

-- A ready check added to a queue that had none: outcomes drawn at the
-- accept rate given (none recorded): all accept, the live matches; none
-- accept, no match, every proposed roster removed
SELECT games = (SELECT count(DISTINCT match_id) FROM wi_played) AS all_accept
FROM mm.whatif('wi_live', :'since', now(), '{"accept_timeout": "10 seconds"}', accept_rate => 1)
WHERE segment = 'all';
SELECT games AS no_accept, left_or_expired + still_waiting = rosters AS all_removed
FROM mm.whatif('wi_live', :'since', now(), '{"accept_timeout": "10 seconds"}', accept_rate => 0)
WHERE segment = 'all';
-- drawn with a seed: the same seed, the same replay
SELECT (SELECT array_agg(roster_id ORDER BY match_no, roster_id) FROM mm.whatif_matches('wi_live', :'since', now(), '{"accept_timeout": "10 seconds"}', accept_rate => 0.8, seed => 7))
     = (SELECT array_agg(roster_id ORDER BY match_no, roster_id) FROM mm.whatif_matches('wi_live', :'since', now(), '{"accept_timeout": "10 seconds"}', accept_rate => 0.8, seed => 7))
       AS same_seed_same_replay;

-- A queue with a ready check: its outcomes replayed as recorded
SELECT mm.create_queue('wi_ready', '{"team_size": 1, "filter": {"potentials_min": 1}, "rating": {"model": "glicko2"},
    "accept_timeout": "30 seconds"}');
SELECT now() - interval '1 minute' AS since_ready \gset
CREATE PROCEDURE wi_ready_run() LANGUAGE plpgsql AS $$
DECLARE
    m bigint[];
BEGIN
    PERFORM mm.enqueue('wi_ready', ARRAY[p], 1500 + p, 50) FROM generate_series(201, 208) p;
    COMMIT;
    PERFORM mm.tick('wi_ready');
    COMMIT;
    m := ARRAY(SELECT match_id FROM mm.match x JOIN mm.queue q USING (queue_id) WHERE q.name = 'wi_ready' ORDER BY match_id);
    -- the first accepted by both, the second declined, the third half accepted, the fourth accepted
    PERFORM mm.accept(m[1], p) FROM (SELECT unnest(players) p FROM mm.match_roster WHERE match_id = m[1]) s;
    PERFORM mm.decline(m[2], (SELECT min(p) FROM (SELECT unnest(players) p FROM mm.match_roster WHERE match_id = m[2]) s));
    PERFORM mm.accept(m[3], (SELECT min(p) FROM (SELECT unnest(players) p FROM mm.match_roster WHERE match_id = m[3]) s));
    PERFORM mm.accept(m[4], p) FROM (SELECT unnest(players) p FROM mm.match_roster WHERE match_id = m[4]) s;
    COMMIT;
    -- the third's ready check ends: the next tick dissolves it
    PERFORM mm.tick('wi_ready', now() + interval '31 seconds');
    COMMIT;
END
$$;
CALL wi_ready_run();
SELECT m.status, count(*) AS matches FROM mm.match m JOIN mm.queue q USING (queue_id)
WHERE q.name = 'wi_ready' GROUP BY m.status ORDER BY m.status;
SELECT r.status, m.status AS live_status, count(*) AS rosters
FROM mm.whatif_matches('wi_ready', :'since_ready', now() + interval '1 minute') r
JOIN mm.match m ON m.match_id = r.live_match_id
GROUP BY r.status, m.status ORDER BY r.status, m.status;
SELECT rosters, games, left_or_expired, still_waiting
FROM mm.whatif('wi_ready', :'since_ready', now() + interval '1 minute') WHERE segment = 'all';

-- Errors
SET TIME ZONE 'UTC';
SELECT * FROM mm.whatif('no_such_queue', :'since', now());
SELECT * FROM mm.whatif(NULL, :'since', now());
SELECT * FROM mm.whatif('wi_live', '2030-01-01 12:00', '2030-01-01 11:00');
SELECT * FROM mm.whatif('wi_live', :'since', 'infinity');
SELECT * FROM mm.whatif('wi_live', :'since', now(), '{"filter": {"padding": -1}}');
SELECT * FROM mm.whatif('wi_live', :'since', now(), '{"no_such_key": 1}');
SELECT * FROM mm.whatif('wi_live', :'since', now(), '[]');
SELECT * FROM mm.whatif('wi_live', :'since', now(), '{}', accept_rate => 1.5);
SELECT * FROM mm.whatif('wi_live', :'since', now(), '{}', every => '10 milliseconds');
-- a cadence longer than the window (the fuzz suite's '178000000 years' overflowed int64
-- microseconds and the replay read tick times it had not kept: a crash)
\set VERBOSITY terse
SELECT * FROM mm.whatif('wi_live', :'since', now(), '{}', every => '178000000 years');
SELECT * FROM mm.whatif('wi_live', now() - interval '1 minute', now(), '{}', every => '2 minutes');
\set VERBOSITY default
SELECT * FROM mm.whatif('wi_live', '2001-01-01', '2001-01-02');
SELECT * FROM mm.whatif_compare('wi_live', :'since', now(), ARRAY[NULL]::jsonb[]);
SELECT * FROM mm.whatif_compare('wi_live', :'since', now(), ARRAY[['{}']]::jsonb[]);
RESET TIME ZONE;

-- The record: one row per roster queued, trimmed by mm.purge with the rest
SELECT count(*) = (SELECT count(DISTINCT roster_id) FROM mm.ticket_event e JOIN mm.queue q USING (queue_id)
                   WHERE q.name = 'wi_live' AND e.status = 'waiting') AS one_per_roster
FROM mm.roster_arrival a JOIN mm.queue q USING (queue_id) WHERE q.name = 'wi_live';
BEGIN;
SELECT mm.purge('0 seconds', 1000000) > 0 AS purged;
SELECT count(*) = (SELECT count(*) FROM mm.roster) AS only_rosters_still_queued FROM mm.roster_arrival;
ROLLBACK;
SELECT mm.drop_queue('wi_ready', keep_history => false);
SELECT count(*) AS ready_arrivals FROM mm.roster_arrival a
WHERE NOT EXISTS (SELECT FROM mm.queue q WHERE q.queue_id = a.queue_id);

DROP TABLE wi_replay, wi_played;
DROP PROCEDURE wi_run, wi_ready_run;
DROP FUNCTION wi_step;
SELECT mm.drop_queue('wi_live', keep_history => false);
RESET mm.tick_read_batch;
RESET mm.whatif_read_batch;
