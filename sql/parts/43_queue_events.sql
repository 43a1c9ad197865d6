-- The event feed of a queue: one row per thing that happened to a roster
-- (queued, left, expired) or a match (proposed, accepted, declined,
-- dissolved, matched, backfill_requested, backfilled, reported,
-- abandoned), written in the transaction that made it happen, read by
-- mm.events (src/queue/events.c) with a cursor "after the last event_id
-- seen". A backend reading it needs no session: it works through a
-- transaction pooler, where LISTEN does not (the queue's NOTIFY channel
-- stays, as a wake-up).
--
-- Why a reader never skips an event (docs/queue.md, "The event feed"):
-- event ids come from mm.queue_event_id_seq, and ids drawn from a sequence
-- are not in commit order. nextval() takes a RowExclusiveLock on the
-- sequence that its transaction holds until it ends, and it takes it
-- before it draws. mm.events reads the last id drawn (h), then waits for
-- every transaction that holds that lock then (GetLockConflicts, as CREATE
-- INDEX CONCURRENTLY waits for writers), then reads with a new snapshot:
-- every id up to h was drawn by a transaction that has ended by then, so
-- every event up to h that will ever commit is visible, and no event up to
-- h can appear later. It returns only events up to h, in id order: what a
-- reader has passed is final. The sequence must keep CACHE 1 (a cached
-- range would be drawn later without the lock being taken first).

-- The feed's CHECKs, as mm.match's (40_queue.sql): calls of immutable
-- functions (src/queue/row_checks.c) that PostgreSQL compiles in a fraction
-- of the SQL they replace, in every statement that writes an event.
-- @access internal
CREATE FUNCTION mm._queue_event_kind_valid(kind text)
RETURNS boolean
AS 'MODULE_PATHNAME', 'mm_queue_event_kind_valid'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm._queue_event_kind_valid IS
    'internal (CHECK of mm.queue_event): whether a kind is one of the feed''s: queued, left, expired, proposed, accepted, declined, dissolved, matched, backfill_requested, backfilled, reported, abandoned';
-- @access internal
CREATE FUNCTION mm._queue_event_subject_valid(kind text, roster_id bigint, match_id bigint)
RETURNS boolean
AS 'MODULE_PATHNAME', 'mm_queue_event_subject_valid'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm._queue_event_subject_valid IS
    'internal (CHECK of mm.queue_event): whether an event names its subject: a roster event (queued, left, expired) its roster and no match, any other its match';
-- @access internal
CREATE FUNCTION mm._id_list_valid(ids bigint[])
RETURNS boolean
AS 'MODULE_PATHNAME', 'mm_id_list_valid'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm._id_list_valid IS
    'internal (CHECK of mm.queue_event): whether a list of ids has at least one, in a one-dimensional array without NULLs';
-- @access internal
CREATE SEQUENCE mm.queue_event_id_seq;
COMMENT ON SEQUENCE mm.queue_event_id_seq IS 'ids of mm.queue_event; CACHE 1, which the feed''s proof needs (mm.events)';
-- @access admin, analyst
CREATE TABLE mm.queue_event (
    event_id   bigint NOT NULL DEFAULT nextval('mm.queue_event_id_seq'),
    queue_id   int NOT NULL,
    at         timestamptz NOT NULL DEFAULT now(),
    kind       text NOT NULL,
    match_id   bigint,
    roster_id  bigint,
    player_ids bigint[] NOT NULL,
    detail     jsonb NOT NULL DEFAULT '{}',
    CONSTRAINT queue_event_pkey PRIMARY KEY (queue_id, event_id),
    CONSTRAINT queue_event_kind_check CHECK (mm._queue_event_kind_valid(kind)),
    CONSTRAINT queue_event_subject_check CHECK (mm._queue_event_subject_valid(kind, roster_id, match_id)),
    CONSTRAINT queue_event_players_check CHECK (mm._id_list_valid(player_ids)),
    CONSTRAINT queue_event_detail_check CHECK (jsonb_typeof(detail) = 'object'),
    CONSTRAINT queue_event_at_check CHECK (isfinite(at))
);
ALTER SEQUENCE mm.queue_event_id_seq OWNED BY mm.queue_event.event_id;
COMMENT ON TABLE mm.queue_event IS 'the event feed of each queue (mm.events): one row per roster event (queued, left, expired) and per match event (proposed, accepted, declined, dissolved, matched, backfill_requested, backfilled, reported, abandoned), player_ids naming the players concerned; written in the transaction of the change; kept mm.event_retention, removed by mm.purge, which folds what it removes into mm.queue_counters';
COMMENT ON CONSTRAINT queue_event_pkey ON mm.queue_event IS 'a queue''s events in feed order: the one index, which a reader''s "events of this queue after id N" scans from N';
COMMENT ON CONSTRAINT queue_event_subject_check ON mm.queue_event IS 'a roster event names its roster and no match; a match event names its match';
COMMENT ON CONSTRAINT queue_event_kind_check ON mm.queue_event IS 'a kind of the feed: queued, left, expired (a roster''s), proposed, accepted, declined, dissolved, matched, backfill_requested, backfilled, reported, abandoned (a match''s)';
COMMENT ON CONSTRAINT queue_event_players_check ON mm.queue_event IS 'an event names at least one player, in a one-dimensional array without NULLs';
COMMENT ON COLUMN mm.queue_event.detail IS 'what the kind tells more (docs/queue.md lists it per kind): a reason, the end of a ready check, the rosters that went back to the queue, a backfill request, the waits of the rosters matched';
SELECT pg_catalog.pg_extension_config_dump('mm.queue_event', '');
SELECT pg_catalog.pg_extension_config_dump('mm.queue_event_id_seq', '');

-- The feed on Citus (mm.citus_distribute_queues): mm.queue_event is
-- distributed by queue_id beside the queue's rosters, and its writers run
-- on the queue's worker (a delegated call) or on the coordinator (a call
-- routed statement by statement), each node drawing from its own sequence:
-- a global id would not follow commit order there, and the sequence's lock
-- that mm.events waits for on one node is taken on another. So on Citus a
-- queue's events are numbered per queue instead: written with a
-- placeholder id (the negated draw of the node's sequence, below zero,
-- never read by mm.events), then renumbered at once by mm._number_events
-- after the queue's last number, kept in the queue's row of
-- mm.queue_event_position, which the renumbering locks until its
-- transaction ends. The writers of one queue's events therefore commit one
-- after another, each numbering after the last committed: ids of a queue
-- grow in commit order, and a reader's snapshot of the queue's shard sees
-- every event up to the largest id it sees. A single node keeps the global
-- sequence (and the wait of mm.events); this table stays empty there.
-- @access admin, analyst
CREATE TABLE mm.queue_event_position (
    queue_id      int NOT NULL,
    last_event_id bigint NOT NULL,
    CONSTRAINT queue_event_position_pkey PRIMARY KEY (queue_id),
    CONSTRAINT queue_event_position_last_check CHECK (last_event_id >= 0)
);
COMMENT ON TABLE mm.queue_event_position IS
    'on Citus (mm.citus_distribute_queues), each queue''s last event id in mm.queue_event, distributed by queue_id beside it: the writers of a queue''s events lock its row to number them, so that a queue''s event ids grow in commit order; empty on a single node, where the ids come from mm.queue_event_id_seq';
SELECT pg_catalog.pg_extension_config_dump('mm.queue_event_position', '');

-- @access internal
CREATE FUNCTION mm._events_deferred(queue_id int)
RETURNS boolean
AS 'MODULE_PATHNAME', 'mm_events_deferred'
LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION mm._events_deferred IS
    'internal (Citus): whether a tick of the queue running in this backend numbers the events written for it at its end (mm._number_events then leaves them)';

-- Number the events this transaction has just written for a queue (those
-- with a placeholder id below zero, in the order they were written) after
-- the queue's last event id, under the lock of its row. Nothing on a single
-- node.
-- @access internal
CREATE FUNCTION mm._number_events(queue_id int)
RETURNS void
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    base bigint;
    n bigint;
BEGIN
    -- a tick of the queue numbers them once, at its end
    IF mm._events_deferred(_number_events.queue_id) THEN
        RETURN;
    END IF;
    IF NOT mm._queues_distributed() THEN
        RETURN;
    END IF;
    INSERT INTO mm.queue_event_position AS p (queue_id, last_event_id) VALUES (_number_events.queue_id, 0)
    ON CONFLICT ON CONSTRAINT queue_event_position_pkey DO UPDATE SET last_event_id = p.last_event_id
    RETURNING p.last_event_id INTO base;
    UPDATE mm.queue_event e SET event_id = base + x.n
    FROM (SELECT y.event_id, row_number() OVER (ORDER BY y.event_id DESC) AS n
          FROM mm.queue_event y WHERE y.queue_id = _number_events.queue_id AND y.event_id < 0) x
    WHERE e.queue_id = _number_events.queue_id AND e.event_id = x.event_id;
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n > 0 THEN
        UPDATE mm.queue_event_position p SET last_event_id = base + n WHERE p.queue_id = _number_events.queue_id;
    END IF;
END
$$;
COMMENT ON FUNCTION mm._number_events IS
    'internal (Citus): give the events this transaction wrote for a queue with a placeholder id (below zero) the queue''s next ids, in the order written, locking the queue''s row of mm.queue_event_position until the transaction ends; nothing on a single node';

-- What events removed from the feed counted, added to mm.queue_counters
-- per queue (mm.purge): the counters of mm.queue_metrics never go back.
-- The events of a queue deleted meanwhile count for nothing.
-- @access internal
CREATE FUNCTION mm._fold_events(events mm.queue_event[])
RETURNS void
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    live int[] := ARRAY(SELECT q.queue_id FROM mm.queue q);
BEGIN
    INSERT INTO mm.queue_counters AS c
        (queue_id, enqueued_total, left_total, expired_total, proposed_total, dissolved_total, accepted_total,
         declined_total, matches_total, players_matched_total, backfills_requested_total, backfills_filled_total,
         results_total, abandoned_total, wait_le_5, wait_le_10, wait_le_30, wait_le_60, wait_le_120, wait_le_300,
         wait_count, wait_sum)
    SELECT t.* FROM (
        SELECT d.queue_id,
               count(*) FILTER (WHERE d.kind = 'queued'), count(*) FILTER (WHERE d.kind = 'left'),
               count(*) FILTER (WHERE d.kind = 'expired'), count(*) FILTER (WHERE d.kind = 'proposed'),
               count(*) FILTER (WHERE d.kind = 'dissolved'), count(*) FILTER (WHERE d.kind = 'accepted'),
               count(*) FILTER (WHERE d.kind = 'declined'), count(*) FILTER (WHERE d.kind = 'matched'),
               coalesce(sum(cardinality(d.player_ids)) FILTER (WHERE d.kind = 'matched'), 0),
               count(*) FILTER (WHERE d.kind = 'backfill_requested'), count(*) FILTER (WHERE d.kind = 'backfilled'),
               count(*) FILTER (WHERE d.kind = 'reported'), count(*) FILTER (WHERE d.kind = 'abandoned'),
               coalesce(sum(w.le_5), 0), coalesce(sum(w.le_10), 0), coalesce(sum(w.le_30), 0),
               coalesce(sum(w.le_60), 0), coalesce(sum(w.le_120), 0), coalesce(sum(w.le_300), 0),
               coalesce(sum(w.n), 0), coalesce(sum(w.s), 0)
        FROM unnest(events) AS d
        -- per event, its rosters' waits (seconds) in the buckets, as
        -- mm.queue_metrics counts them
        CROSS JOIN LATERAL (
            SELECT count(*) FILTER (WHERE x.v <= 5) AS le_5, count(*) FILTER (WHERE x.v <= 10) AS le_10,
                   count(*) FILTER (WHERE x.v <= 30) AS le_30, count(*) FILTER (WHERE x.v <= 60) AS le_60,
                   count(*) FILTER (WHERE x.v <= 120) AS le_120, count(*) FILTER (WHERE x.v <= 300) AS le_300,
                   count(*) AS n, sum(x.v) AS s
            FROM (SELECT t::float8 AS v
                  FROM jsonb_array_elements_text(CASE WHEN d.kind = 'matched' THEN d.detail -> 'waits' END) AS t) x
        ) w
        GROUP BY d.queue_id) t
    -- the events of a queue deleted meanwhile count for nothing
    WHERE t.queue_id = ANY (live)
    ON CONFLICT ON CONSTRAINT queue_counters_pkey DO UPDATE
    SET enqueued_total = c.enqueued_total + excluded.enqueued_total,
        left_total = c.left_total + excluded.left_total,
        expired_total = c.expired_total + excluded.expired_total,
        proposed_total = c.proposed_total + excluded.proposed_total,
        dissolved_total = c.dissolved_total + excluded.dissolved_total,
        accepted_total = c.accepted_total + excluded.accepted_total,
        declined_total = c.declined_total + excluded.declined_total,
        matches_total = c.matches_total + excluded.matches_total,
        players_matched_total = c.players_matched_total + excluded.players_matched_total,
        backfills_requested_total = c.backfills_requested_total + excluded.backfills_requested_total,
        backfills_filled_total = c.backfills_filled_total + excluded.backfills_filled_total,
        results_total = c.results_total + excluded.results_total,
        abandoned_total = c.abandoned_total + excluded.abandoned_total,
        wait_le_5 = c.wait_le_5 + excluded.wait_le_5, wait_le_10 = c.wait_le_10 + excluded.wait_le_10,
        wait_le_30 = c.wait_le_30 + excluded.wait_le_30, wait_le_60 = c.wait_le_60 + excluded.wait_le_60,
        wait_le_120 = c.wait_le_120 + excluded.wait_le_120, wait_le_300 = c.wait_le_300 + excluded.wait_le_300,
        wait_count = c.wait_count + excluded.wait_count, wait_sum = c.wait_sum + excluded.wait_sum;
END
$$;
COMMENT ON FUNCTION mm._fold_events IS
    'internal (mm.purge): add what the given events of the feed counted (mm.queue_metrics'' counters and wait histogram) to mm.queue_counters, per queue; events of queues that are gone count for nothing';

-- The counters of queues that are gone (one row per queue: no index
-- needed; the queues read apart, as Citus wants for a table of the
-- coordinator beside the reference table mm.queue).
-- @access internal
CREATE FUNCTION mm._drop_gone_counters()
RETURNS void
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    live int[] := ARRAY(SELECT q.queue_id FROM mm.queue q);
BEGIN
    DELETE FROM mm.queue_counters c WHERE c.queue_id <> ALL (live);
END
$$;
COMMENT ON FUNCTION mm._drop_gone_counters IS
    'internal (mm.purge): delete the rows of mm.queue_counters whose queue is gone';

-- Events older than mm.event_retention on Citus, queue by queue, each
-- statement on the queue's shard, oldest first, at most max_rows in all;
-- what they counted is added to mm.queue_counters (a table of the
-- coordinator) in the same transaction, as on one node.
-- @access internal
CREATE FUNCTION mm._purge_events_citus(max_rows int)
RETURNS int
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    cutoff timestamptz := now() - mm._event_retention();
    q int;
    gone mm.queue_event[];
    n int := 0;
BEGIN
    FOR q IN SELECT x.queue_id FROM mm.queue x ORDER BY x.queue_id LOOP
        EXIT WHEN n >= max_rows;
        WITH d AS (
            DELETE FROM mm.queue_event e
            WHERE e.queue_id = q
              AND e.event_id IN (SELECT y.event_id FROM mm.queue_event y
                                 WHERE y.queue_id = q AND y.event_id > 0 AND y.at < cutoff
                                 ORDER BY y.event_id LIMIT max_rows - n)
            RETURNING e.*
        )
        SELECT array_agg(ROW(d.*)::mm.queue_event) INTO gone FROM d;
        -- what they counted, in the same transaction (on the coordinator)
        PERFORM mm._fold_events(gone);
        n := n + coalesce(cardinality(gone), 0);
    END LOOP;
    PERFORM mm._drop_gone_counters();
    RETURN n;
END
$$;
COMMENT ON FUNCTION mm._purge_events_citus IS
    'internal (mm.purge on Citus): delete events older than mm.event_retention, queue by queue on its shard, each queue''s oldest first, at most max_rows in all, and add what they counted to mm.queue_counters; returns how many it deleted';

-- @access service, admin, analyst; definer
CREATE FUNCTION mm.events(queue text, after bigint DEFAULT 0, max_events int DEFAULT 1000,
                          max_wait interval DEFAULT '0')
RETURNS TABLE (event_id bigint, at timestamptz, kind text, match_id bigint, roster_id bigint,
               player_ids bigint[], detail jsonb)
AS 'MODULE_PATHNAME', 'mm_events'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION mm.events IS
    'the events of a queue after event id "after", in id order, at most max_events: never one that a later call could find before an event already returned (a reader that passes its last event_id back as "after" sees every event once, whatever order their transactions commit in); with max_wait above zero, waits inside the statement until one arrives or max_wait has passed (no session state: works through a transaction pooler); needs READ COMMITTED and a primary';

-- @access internal
CREATE FUNCTION mm._event_retention()
RETURNS interval
AS 'MODULE_PATHNAME', 'mm_event_retention'
LANGUAGE C STABLE;
COMMENT ON FUNCTION mm._event_retention IS
    'internal (mm.purge): the setting mm.event_retention, how long the queues'' events are kept, as an interval';

-- Events older than mm.event_retention, removed (mm.purge), each queue's
-- oldest first, at most max_rows: what they counted is added to
-- mm.queue_counters in the same transaction (mm._fold_events), so that
-- the counters of mm.queue_metrics never go back. The queues are found by a
-- skip over the key (one probe per queue), never a read of every event.
-- Returns how many were removed.
-- @access internal
CREATE FUNCTION mm._purge_events(max_rows int)
RETURNS int
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    cutoff timestamptz := now() - mm._event_retention();
    n int;
    gone mm.queue_event[];
BEGIN
    WITH RECURSIVE qs AS (
        SELECT min(x.queue_id) AS queue_id FROM mm.queue_event x
        UNION ALL
        SELECT (SELECT min(x.queue_id) FROM mm.queue_event x WHERE x.queue_id > qs.queue_id)
        FROM qs WHERE qs.queue_id IS NOT NULL
    ), old AS MATERIALIZED (
        SELECT e.queue_id, e.event_id
        FROM qs
        CROSS JOIN LATERAL (SELECT y.queue_id, y.event_id, y.at FROM mm.queue_event y
                            WHERE y.queue_id = qs.queue_id ORDER BY y.event_id LIMIT _purge_events.max_rows) e
        WHERE e.at < cutoff
        ORDER BY e.event_id
        LIMIT _purge_events.max_rows
    ), d AS (
        DELETE FROM mm.queue_event e USING old
        WHERE e.queue_id = old.queue_id AND e.event_id = old.event_id
        RETURNING e.*
    )
    SELECT array_agg(ROW(d.*)::mm.queue_event) INTO gone FROM d;
    -- what they counted, in the same transaction
    PERFORM mm._fold_events(gone);
    n := coalesce(cardinality(gone), 0);
    PERFORM mm._drop_gone_counters();
    RETURN n;
END
$$;
COMMENT ON FUNCTION mm._purge_events IS
    'internal (mm.purge): delete events older than mm.event_retention, each queue''s oldest first, at most max_rows, and add what they counted to mm.queue_counters in the same transaction; remove the counters of queues that are gone; returns how many events it deleted';
