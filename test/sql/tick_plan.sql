-- A tick is linear in the queue whatever the statistics say. A new queue
-- (or a burst of enqueues) is read while the statistics still say the
-- queue holds next to nothing; a read that joined the rosters to their
-- grouped players then ran the grouping once per roster, and the statement
-- that moves the matched rosters joined them to their players once per
-- roster too (quadratic: a tick over 20000 rosters took minutes). Here a
-- queue is created and filled with 20000 rosters in one transaction, where
-- no ANALYZE has seen them, and listed, previewed and ticked (every roster
-- a target, every one matched) under a statement timeout of twice the time
-- the same tick takes over a queue the statistics know (at least 2 s).
\set VERBOSITY terse
SET timezone = 'UTC';

-- n rosters of one player each, as a burst of enqueues writes them, in
-- queue order; each "alike" rosters in a row rate alike, "gap" points from
-- the next: in pairs 10 apart, a tick that tries every roster makes n / 2
-- matches of two equal rosters; alone 1000 apart, every target fails
CREATE FUNCTION pg_temp.fill(qname text, n int, alike int DEFAULT 2, gap float8 DEFAULT 10) RETURNS bigint
LANGUAGE sql AS $$
    WITH r AS (
        INSERT INTO mm.roster (queue_id, rating, joined_at)
        SELECT q.queue_id, ((g + alike - 1) / alike) * gap, now() - interval '1 minute'
        FROM mm.queue q, generate_series(1, n) g WHERE q.name = qname
        ORDER BY g
        RETURNING roster_id, queue_id
    ), p AS (
        INSERT INTO mm.queued_player (player_id, roster_id, queue_id, seat)
        SELECT 900000000 + r.roster_id, r.roster_id, r.queue_id, 1 FROM r
        RETURNING 1
    )
    SELECT count(*) FROM p
$$;

-- the pairs a queue's matches were made of, by rating
CREATE FUNCTION pg_temp.pairs(qname text) RETURNS float8[]
LANGUAGE sql AS $$
    SELECT array_agg(m.rating ORDER BY m.rating)
    FROM (SELECT min(mr.rating) AS rating FROM mm.match_roster mr JOIN mm.queue q USING (queue_id)
          WHERE q.name = qname GROUP BY mr.match_id
          HAVING count(*) = 2 AND min(mr.rating) = max(mr.rating)) m
$$;

-- the measure: a queue the statistics know
SELECT mm.create_queue('plan_known', '{"team_size": 1, "filter": {"rosters": 20000, "potentials_min": 1, "limit": 600000}}');
SELECT pg_temp.fill('plan_known', 20000) AS players;
ANALYZE mm.roster;
ANALYZE mm.queued_player;
SELECT clock_timestamp() AS t0 \gset
SELECT count(*) AS rosters, count(DISTINCT match_id) AS matches FROM mm.tick('plan_known');
SELECT greatest(2000, ceil(2000 * extract(epoch FROM clock_timestamp() - :'t0'::timestamptz)))::int AS timeout_ms \gset

-- a new queue filled in this transaction: the statistics know nothing of it
BEGIN;
SELECT mm.create_queue('plan_fresh', '{"team_size": 1, "filter": {"rosters": 20000, "potentials_min": 1, "limit": 600000}}');
SELECT pg_temp.fill('plan_fresh', 20000) AS players;
SELECT set_config('statement_timeout', :'timeout_ms', true) IS NOT NULL AS timeout_set;
SELECT count(*) AS waiting FROM mm.list_queue('plan_fresh');
SELECT count(*) AS rosters, count(DISTINCT match_id) AS matches FROM mm.preview('plan_fresh');
SELECT count(*) AS rosters, count(DISTINCT match_id) AS matches FROM mm.tick('plan_fresh');
SELECT count(*) AS left_waiting FROM mm.list_queue('plan_fresh');
-- a new queue where every target fails: all go to the back in the order
-- they failed, so the queue keeps its order
SELECT mm.create_queue('plan_fail', '{"team_size": 1, "filter": {"rosters": 20000, "potentials_min": 1, "limit": 600000, "padding_end": 1e9}}');
SELECT pg_temp.fill('plan_fail', 20000, 1, 1000) AS players;
SELECT count(*) AS matched FROM mm.tick('plan_fail');
SELECT l.targets_failed, l.failed_reasons FROM mm.tick_log l JOIN mm.queue q USING (queue_id) WHERE q.name = 'plan_fail';
SELECT count(*) AS waiting, array_agg(roster_id ORDER BY place) = array_agg(roster_id ORDER BY roster_id) AS same_order
FROM mm.list_queue('plan_fail');
-- the same matches as over the known queue
SELECT cardinality(pg_temp.pairs('plan_fresh')) AS pairs,
       pg_temp.pairs('plan_fresh') = pg_temp.pairs('plan_known') AS same_matches;
COMMIT;

SELECT mm.drop_queue('plan_known', keep_history => false);
SELECT mm.drop_queue('plan_fresh', keep_history => false);
SELECT mm.drop_queue('plan_fail', keep_history => false);
