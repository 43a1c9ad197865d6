-- Metrics of each queue for a monitoring system (monitoring/ has the
-- Prometheus exporter's query file, alert rules and a dashboard):
-- counters that only grow, gauges, and a histogram of the waits of matched
-- rosters, in one view, mm.queue_metrics.
--
-- A counter is what mm.queue_counters holds plus what is counted live in
-- the rows that hold it now: the events of the feed (mm.queue_event) and
-- the tick log (mm.tick_log). mm.purge removes old rows of both and adds
-- what they counted to mm.queue_counters in the same statement, so a
-- counter never goes back, survives restarts (it is a table) and purges.
-- Nothing is written for counting on the path of mm.enqueue or mm.leave:
-- their event is the count, and no row is shared by concurrent calls.

-- No foreign key to mm.queue, as mm.ticket_event has none (Citus makes
-- mm.queue a reference table and would convert every local table that
-- refers to it): mm.drop_queue (keep_history => false) deletes a queue's
-- row, and mm.purge the rows of queues that are gone.
-- @access admin, analyst
CREATE TABLE mm.queue_counters (
    queue_id                  int NOT NULL,
    enqueued_total            bigint NOT NULL DEFAULT 0,
    left_total                bigint NOT NULL DEFAULT 0,
    expired_total             bigint NOT NULL DEFAULT 0,
    proposed_total            bigint NOT NULL DEFAULT 0,
    dissolved_total           bigint NOT NULL DEFAULT 0,
    accepted_total            bigint NOT NULL DEFAULT 0,
    declined_total            bigint NOT NULL DEFAULT 0,
    matches_total             bigint NOT NULL DEFAULT 0,
    players_matched_total     bigint NOT NULL DEFAULT 0,
    backfills_requested_total bigint NOT NULL DEFAULT 0,
    backfills_filled_total    bigint NOT NULL DEFAULT 0,
    results_total             bigint NOT NULL DEFAULT 0,
    abandoned_total           bigint NOT NULL DEFAULT 0,
    ticks_total               bigint NOT NULL DEFAULT 0,
    tick_seconds_total        float8 NOT NULL DEFAULT 0,
    tick_errors_total         bigint NOT NULL DEFAULT 0,
    wait_le_5                 bigint NOT NULL DEFAULT 0,
    wait_le_10                bigint NOT NULL DEFAULT 0,
    wait_le_30                bigint NOT NULL DEFAULT 0,
    wait_le_60                bigint NOT NULL DEFAULT 0,
    wait_le_120               bigint NOT NULL DEFAULT 0,
    wait_le_300               bigint NOT NULL DEFAULT 0,
    wait_count                bigint NOT NULL DEFAULT 0,
    wait_sum                  float8 NOT NULL DEFAULT 0,
    CONSTRAINT queue_counters_pkey PRIMARY KEY (queue_id),
    CONSTRAINT queue_counters_not_negative CHECK (
        least(enqueued_total, left_total, expired_total, proposed_total, dissolved_total, accepted_total,
              declined_total, matches_total, players_matched_total, backfills_requested_total,
              backfills_filled_total, results_total, abandoned_total, ticks_total, tick_errors_total,
              wait_le_5, wait_le_10, wait_le_30, wait_le_60, wait_le_120, wait_le_300, wait_count) >= 0
        AND tick_seconds_total >= 0 AND tick_seconds_total < 'Infinity' AND wait_sum >= 0 AND wait_sum < 'Infinity'),
    CONSTRAINT queue_counters_buckets_check CHECK (
        wait_le_5 <= wait_le_10 AND wait_le_10 <= wait_le_30 AND wait_le_30 <= wait_le_60
        AND wait_le_60 <= wait_le_120 AND wait_le_120 <= wait_le_300 AND wait_le_300 <= wait_count)
);
COMMENT ON TABLE mm.queue_counters IS 'per queue, what the rows mm.purge removed had counted (events of mm.queue_event, ticks of mm.tick_log) and the ticks mm.run_ticks saw fail: the part of each counter of mm.queue_metrics that is no longer in those rows; written by mm.purge and by mm.run_ticks on a failed tick, never on the enqueue or leave path';
COMMENT ON CONSTRAINT queue_counters_buckets_check ON mm.queue_counters IS 'the wait histogram''s buckets are cumulative: each counts the waits up to its bound, the last all of them';
SELECT pg_catalog.pg_extension_config_dump('mm.queue_counters', '');

-- @access admin, analyst
CREATE VIEW mm.queue_metrics AS
SELECT q.name AS queue,
       coalesce(c0.enqueued_total, 0) + coalesce(e0.enqueued_total, 0) AS enqueued_total,
       coalesce(c0.left_total, 0) + coalesce(e0.left_total, 0) AS left_total,
       coalesce(c0.expired_total, 0) + coalesce(e0.expired_total, 0) AS expired_total,
       coalesce(c0.proposed_total, 0) + coalesce(e0.proposed_total, 0) AS proposed_total,
       coalesce(c0.dissolved_total, 0) + coalesce(e0.dissolved_total, 0) AS dissolved_total,
       coalesce(c0.accepted_total, 0) + coalesce(e0.accepted_total, 0) AS accepted_total,
       coalesce(c0.declined_total, 0) + coalesce(e0.declined_total, 0) AS declined_total,
       coalesce(c0.matches_total, 0) + coalesce(e0.matches_total, 0) AS matches_total,
       coalesce(c0.players_matched_total, 0) + coalesce(e0.players_matched_total, 0) AS players_matched_total,
       coalesce(c0.backfills_requested_total, 0) + coalesce(e0.backfills_requested_total, 0) AS backfills_requested_total,
       coalesce(c0.backfills_filled_total, 0) + coalesce(e0.backfills_filled_total, 0) AS backfills_filled_total,
       coalesce(c0.results_total, 0) + coalesce(e0.results_total, 0) AS results_total,
       coalesce(c0.abandoned_total, 0) + coalesce(e0.abandoned_total, 0) AS abandoned_total,
       coalesce(c0.ticks_total, 0) + coalesce(t0.ticks, 0) AS ticks_total,
       coalesce(c0.tick_errors_total, 0) AS tick_errors_total,
       coalesce(c0.tick_seconds_total, 0) + coalesce(t0.seconds, 0) AS tick_seconds_total,
       coalesce(w0.rosters, 0) AS waiting_rosters,
       coalesce(wp.players, 0) AS waiting_players,
       coalesce(w0.oldest, 0) AS oldest_wait_seconds,
       coalesce(om.in_matches, 0) - coalesce(rc.ready_checks, 0) AS open_matches,
       coalesce(rc.ready_checks, 0) AS open_ready_checks,
       ARRAY[5, 10, 30, 60, 120, 300]::float8[] AS wait_seconds,
       ARRAY[coalesce(c0.wait_le_5, 0) + coalesce(e0.wait_le_5, 0), coalesce(c0.wait_le_10, 0) + coalesce(e0.wait_le_10, 0), coalesce(c0.wait_le_30, 0) + coalesce(e0.wait_le_30, 0),
             coalesce(c0.wait_le_60, 0) + coalesce(e0.wait_le_60, 0), coalesce(c0.wait_le_120, 0) + coalesce(e0.wait_le_120, 0), coalesce(c0.wait_le_300, 0) + coalesce(e0.wait_le_300, 0)]
           AS wait_seconds_bucket,
       coalesce(c0.wait_sum, 0) + coalesce(e0.wait_sum, 0) AS wait_seconds_sum,
       coalesce(c0.wait_count, 0) + coalesce(e0.wait_count, 0) AS wait_seconds_count
FROM mm.queue q
-- each figure grouped by queue and joined to its queue by queue_id (as in
-- mm.queue_stats: Citus cannot run a lateral subquery per queue under
-- mm.queue, a reference table; grouped, each runs on every shard)
LEFT JOIN mm.queue_counters c0 ON c0.queue_id = q.queue_id
LEFT JOIN (
    SELECT x.queue_id,
           count(*) FILTER (WHERE x.kind = 'queued') AS enqueued_total,
           count(*) FILTER (WHERE x.kind = 'left') AS left_total,
           count(*) FILTER (WHERE x.kind = 'expired') AS expired_total,
           count(*) FILTER (WHERE x.kind = 'proposed') AS proposed_total,
           count(*) FILTER (WHERE x.kind = 'dissolved') AS dissolved_total,
           count(*) FILTER (WHERE x.kind = 'accepted') AS accepted_total,
           count(*) FILTER (WHERE x.kind = 'declined') AS declined_total,
           count(*) FILTER (WHERE x.kind = 'matched') AS matches_total,
           coalesce(sum(cardinality(x.player_ids)) FILTER (WHERE x.kind = 'matched'), 0) AS players_matched_total,
           count(*) FILTER (WHERE x.kind = 'backfill_requested') AS backfills_requested_total,
           count(*) FILTER (WHERE x.kind = 'backfilled') AS backfills_filled_total,
           count(*) FILTER (WHERE x.kind = 'reported') AS results_total,
           count(*) FILTER (WHERE x.kind = 'abandoned') AS abandoned_total,
           coalesce(sum(ew.le_5), 0) AS wait_le_5, coalesce(sum(ew.le_10), 0) AS wait_le_10,
           coalesce(sum(ew.le_30), 0) AS wait_le_30, coalesce(sum(ew.le_60), 0) AS wait_le_60,
           coalesce(sum(ew.le_120), 0) AS wait_le_120, coalesce(sum(ew.le_300), 0) AS wait_le_300,
           coalesce(sum(ew.n), 0) AS wait_count, coalesce(sum(ew.s), 0) AS wait_sum
    -- per event, its rosters' waits (seconds) in the buckets: those of a
    -- matched event, none of the others (mm._purge_events counts alike)
    FROM mm.queue_event x
    CROSS JOIN LATERAL (
        SELECT count(*) FILTER (WHERE w.v <= 5) AS le_5, count(*) FILTER (WHERE w.v <= 10) AS le_10,
               count(*) FILTER (WHERE w.v <= 30) AS le_30, count(*) FILTER (WHERE w.v <= 60) AS le_60,
               count(*) FILTER (WHERE w.v <= 120) AS le_120, count(*) FILTER (WHERE w.v <= 300) AS le_300,
               count(*) AS n, sum(w.v) AS s
        FROM (SELECT t::float8 AS v
              FROM jsonb_array_elements_text(CASE WHEN x.kind = 'matched' THEN x.detail -> 'waits' END) AS t) w
    ) ew
    GROUP BY x.queue_id
) e0 ON e0.queue_id = q.queue_id
LEFT JOIN (
    SELECT l.queue_id, sum(l.ticks) AS ticks, sum(l.duration_ms) / 1000 AS seconds
    FROM mm.tick_log l GROUP BY l.queue_id
) t0 ON t0.queue_id = q.queue_id
LEFT JOIN (
    SELECT r.queue_id, count(*) AS rosters, extract(epoch FROM now() - min(r.joined_at))::float8 AS oldest
    FROM mm.roster r WHERE r.match_id IS NULL GROUP BY r.queue_id
) w0 ON w0.queue_id = q.queue_id
LEFT JOIN (
    SELECT qp.queue_id, count(*) AS players
    FROM mm.queued_player qp
    JOIN mm.roster x ON x.queue_id = qp.queue_id AND x.roster_id = qp.roster_id
    WHERE x.match_id IS NULL
    GROUP BY qp.queue_id
) wp ON wp.queue_id = q.queue_id
-- open matches from the rosters in them (mm.roster holds only waiting rosters
-- and those of open matches), ready checks from their index: never a read
-- of the queue's match history
LEFT JOIN (
    SELECT r.queue_id, count(DISTINCT r.match_id) AS in_matches
    FROM mm.roster r WHERE r.match_id IS NOT NULL GROUP BY r.queue_id
) om ON om.queue_id = q.queue_id
LEFT JOIN (
    SELECT m.queue_id, count(*) AS ready_checks
    FROM mm.match m WHERE m.accept_until IS NOT NULL GROUP BY m.queue_id
) rc ON rc.queue_id = q.queue_id
WHERE q.dropped_at IS NULL;
COMMENT ON VIEW mm.queue_metrics IS
    'per live queue, for monitoring (readable by pg_monitor): counters that only grow (*_total: rosters queued, left, expired; ready checks proposed and dissolved; player answers accepted and declined; matches made and ready to play, their players; backfills requested and filled; results reported, matches abandoned; ticks, their seconds, ticks mm.run_ticks saw fail), gauges (waiting rosters and players, the oldest wait in seconds, matches being played, ready checks open) and the histogram of the waits of matched rosters (wait_seconds: the bucket bounds, wait_seconds_bucket: cumulative counts per bound, wait_seconds_sum and _count: all of them)';
