-- Scale-out on Citus: queues over workers.
--
-- On a single node nothing here changes how queues work: mm.waiting_player
-- stays empty (mm.queued_player's primary key keeps a player in one waiting
-- roster) and the queue-id forms of tick, enqueue, leave and claim_matches
-- call the queue-name forms. mm.citus_distribute_queues() places each
-- queue's rows on one worker and lets Citus send those calls there
-- (docs/scaling.md).

-- The cluster-wide key of waiting players on Citus, distributed by player:
-- mm.queued_player is distributed by queue there, so its key holds per queue
-- only. mm.enqueue writes a player's row in the same distributed
-- transaction as the roster; a row whose roster has ended is taken over by
-- the player's next enqueue (ticks never write it). The row also carries
-- the last of the player's rosters known to have gone into a match: a
-- player's rosters are queued one after another (a new one only once the
-- last has left the queue), so the order of the takeovers is the order of
-- the player's matches, which the ids drawn on different nodes are not.
-- @access admin, analyst
CREATE TABLE mm.waiting_player (
    player_id         bigint NOT NULL,
    queue_id          int NOT NULL,
    roster_id         bigint NOT NULL,
    since             timestamptz NOT NULL DEFAULT now(),
    matched_queue_id  int,
    matched_roster_id bigint,
    CONSTRAINT waiting_player_pkey PRIMARY KEY (player_id),
    CONSTRAINT waiting_player_matched_check CHECK ((matched_queue_id IS NULL) = (matched_roster_id IS NULL))
);
COMMENT ON TABLE mm.waiting_player IS
    'on Citus (mm.citus_distribute_queues), the roster each player last queued in, one row per player, distributed by player: mm.enqueue refuses a player whose roster here still waits; empty on a single node, where mm.queued_player''s key does this';
COMMENT ON COLUMN mm.waiting_player.matched_roster_id IS
    'the player''s last roster before roster_id that went into a match (with matched_queue_id its queue), recorded when roster_id took the row over: with roster_id, the player''s last match, which requeue_while_in_match and the ready check look at';
SELECT pg_catalog.pg_extension_config_dump('mm.waiting_player', '');

-- @access internal
CREATE FUNCTION mm._queues_distributed()
RETURNS boolean
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    d boolean;
BEGIN
    IF pg_catalog.to_regclass('pg_catalog.pg_dist_partition') IS NULL THEN
        RETURN false;
    END IF;
    EXECUTE 'SELECT EXISTS (SELECT FROM pg_catalog.pg_dist_partition WHERE logicalrelid = ''mm.waiting_player''::regclass)'
        INTO d;
    RETURN d;
END
$$;
COMMENT ON FUNCTION mm._queues_distributed IS
    'internal: true when mm.citus_distribute_queues has distributed the queue tables (Citus metadata names mm.waiting_player)';

-- A live queue's name from its id, or an error.
-- @access internal
CREATE FUNCTION mm._queue_name(queue_id int)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    n text;
BEGIN
    SELECT q.name INTO n FROM mm.queue q WHERE q.queue_id = _queue_name.queue_id AND q.dropped_at IS NULL;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'queue % does not exist', coalesce(queue_id::text, 'NULL')
            USING ERRCODE = 'undefined_object', HINT = 'See the live queues and their ids in mm.queue.';
    END IF;
    RETURN n;
END
$$;
COMMENT ON FUNCTION mm._queue_name IS 'internal: the name of the live queue of that id, or an error';

-- Delivery on Citus: backends listen on the coordinator. A tick runs on
-- the worker holding its queue (the queue-id form), and a NOTIFY there
-- would reach nobody: mm's notifications are sent by a statement that
-- reads mm.notify_relay, a table of one row that mm.citus_distribute_queues
-- creates on the coordinator and adds to Citus's metadata as a local table
-- of the coordinator, so that Citus runs the NOTIFY there, inside the
-- distributed transaction of the tick: delivered when it commits, never
-- for one that rolls back. A single node has no such table and notifies
-- where it runs.

-- NOTIFY a queue's channel where backends listen: on Citus, through
-- mm.notify_relay on the coordinator; on a single node, here.
-- @access internal
CREATE FUNCTION mm._notify(channel text, payload text)
RETURNS void
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF mm._queues_distributed() THEN
        PERFORM pg_catalog.pg_notify(channel, payload) FROM mm.notify_relay;
    ELSE
        PERFORM pg_catalog.pg_notify(channel, payload);
    END IF;
END
$$;
COMMENT ON FUNCTION mm._notify IS
    'internal: NOTIFY a channel where backends listen (on Citus the coordinator, through mm.notify_relay), delivered when the transaction commits';

-- Where a row named by its id alone lives: the queue of a match, a
-- roster, a backfill request. On a single node each is a lookup in a key;
-- on Citus, where the queue tables are distributed by queue, an id names
-- no queue and the lookup reads every shard (in parallel, each by an
-- index): the calls that take such an id find the queue this way first,
-- then run every statement on the queue's shard. The queue-id forms skip
-- it.

-- @access internal
CREATE FUNCTION mm._match_queue(match_id bigint)
RETURNS int
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q int;
BEGIN
    SELECT m.queue_id INTO q FROM mm.match m WHERE m.match_id = _match_queue.match_id;
    RETURN q;
END
$$;
COMMENT ON FUNCTION mm._match_queue IS 'internal: the queue of a match, NULL if there is no such match';

-- A roster waiting or in an open match (mm.roster), in an ended match
-- (mm.ended_roster), or gone with its history kept (mm.ticket_event).
-- @access internal
CREATE FUNCTION mm._roster_queue(roster_id bigint)
RETURNS int
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q int;
BEGIN
    SELECT r.queue_id INTO q FROM mm.roster r WHERE r.roster_id = _roster_queue.roster_id;
    IF NOT FOUND THEN
        SELECT e.queue_id INTO q FROM mm.ended_roster e WHERE e.roster_id = _roster_queue.roster_id;
    END IF;
    IF NOT FOUND THEN
        SELECT e.queue_id INTO q FROM mm.ticket_event e WHERE e.roster_id = _roster_queue.roster_id LIMIT 1;
    END IF;
    RETURN q;
END
$$;
COMMENT ON FUNCTION mm._roster_queue IS
    'internal: the queue of a roster (waiting, in a match, in an ended match, or gone with its ticket history), NULL if none is known';

-- @access internal
CREATE FUNCTION mm._backfill_queue(backfill_id bigint)
RETURNS int
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q int;
BEGIN
    SELECT b.queue_id INTO q FROM mm.backfill b WHERE b.backfill_id = _backfill_queue.backfill_id;
    RETURN q;
END
$$;
COMMENT ON FUNCTION mm._backfill_queue IS 'internal: the queue of a backfill request, NULL if there is no such request';

-- On Citus, the roster a player queued in last, from its row of
-- mm.waiting_player (on the player's shard): the only roster where the
-- player may be waiting, and the one whose history says where it is now.
-- NULLs on a single node, where the player's rows of the queue tables are
-- found by their player_id indexes.
-- @access internal
CREATE FUNCTION mm._player_roster(player_id bigint, OUT queue_id int, OUT roster_id bigint)
RETURNS record
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF mm._queues_distributed() THEN
        SELECT w.queue_id, w.roster_id INTO queue_id, roster_id
        FROM mm.waiting_player w WHERE w.player_id = _player_roster.player_id;
    END IF;
END
$$;
COMMENT ON FUNCTION mm._player_roster IS
    'internal (Citus): the queue and roster a player last queued in (mm.waiting_player); NULLs on a single node';

-- Citus: hold the players of a new roster cluster-wide (mm.enqueue calls it
-- after inserting the roster). In player order, so that two enqueues sharing
-- players wait for each other instead of deadlocking. A row naming another
-- roster is taken over only on evidence that this player has left it: a
-- visible end in its ticket history (left, expired, removed, or a match:
-- an event, or the roster's row in mm.match_roster), or no
-- trace of it at all for long after its enqueue (a roster whose history
-- was truncated or purged). Without that evidence the player counts as
-- waiting: the enqueue that wrote the row may still be committing on the
-- roster's worker (a distributed commit does not become visible on every
-- node at the same instant). Under the row's lock it also applies what a
-- single node reads from the player's ticket history: a player in the
-- ready check of its last roster's match may not queue, nor, when the
-- queue refuses players in a match (requeue_while_in_match false), one
-- whose last match is still open. Each read names the roster's queue: on
-- its shard.
-- @access internal
CREATE FUNCTION mm._hold_players(queue_id int, roster_id bigint, players bigint[], queue text,
                                 refuse_in_match boolean)
RETURNS void
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    p bigint;
    w mm.waiting_player;
    m mm.match;
    mq int;
    mr bigint;
BEGIN
    FOR p IN SELECT x FROM unnest(players) x ORDER BY x LOOP
        INSERT INTO mm.waiting_player (player_id, queue_id, roster_id)
        VALUES (p, _hold_players.queue_id, _hold_players.roster_id)
        ON CONFLICT (player_id) DO NOTHING;
        CONTINUE WHEN FOUND;
        SELECT * INTO w FROM mm.waiting_player wp WHERE wp.player_id = p FOR UPDATE;
        IF EXISTS (SELECT FROM mm.queued_player qp JOIN mm.roster r ON r.queue_id = qp.queue_id AND r.roster_id = qp.roster_id
                   WHERE qp.queue_id = w.queue_id AND qp.roster_id = w.roster_id AND qp.player_id = p
                     AND NOT qp.requeued AND r.match_id IS NULL)
           OR (NOT EXISTS (SELECT FROM mm.ticket_event e
                           WHERE e.queue_id = w.queue_id AND e.roster_id = w.roster_id AND e.player_id = p
                             AND e.status <> 'waiting')
               AND NOT EXISTS (SELECT FROM mm.match_roster mr
                               WHERE mr.queue_id = w.queue_id AND mr.roster_id = w.roster_id)
               AND (w.since > now() - interval '10 minutes'
                    OR EXISTS (SELECT FROM mm.ticket_event e
                               WHERE e.queue_id = w.queue_id AND e.roster_id = w.roster_id AND e.player_id = p)))
        THEN
            RAISE EXCEPTION 'player % is already queued', p
                USING ERRCODE = 'unique_violation',
                      DETAIL = format('The player is in waiting roster %s of queue %s.', w.roster_id, w.queue_id),
                      HINT = format('Call mm.leave(%s) first.', w.roster_id);
        END IF;
        -- the player's last match: its last roster's, if that roster went
        -- into one with the player (open, or ended), else the one recorded
        mq := NULL;
        SELECT x.match_id INTO m.match_id
        FROM (SELECT r.match_id FROM mm.roster r
              WHERE r.queue_id = w.queue_id AND r.roster_id = w.roster_id AND r.match_id IS NOT NULL
                AND EXISTS (SELECT FROM mm.queued_player qp
                            WHERE qp.queue_id = w.queue_id AND qp.roster_id = w.roster_id AND qp.player_id = p)
              UNION ALL
              SELECT e.match_id FROM mm.ended_roster e
              WHERE e.queue_id = w.queue_id AND e.roster_id = w.roster_id AND p = ANY (e.players)) x;
        IF FOUND THEN
            mq := w.queue_id;
            mr := w.roster_id;
        ELSIF w.matched_roster_id IS NOT NULL THEN
            SELECT x.match_id INTO m.match_id
            FROM (SELECT r.match_id FROM mm.roster r
                  WHERE r.queue_id = w.matched_queue_id AND r.roster_id = w.matched_roster_id AND r.match_id IS NOT NULL
                  UNION ALL
                  SELECT e.match_id FROM mm.ended_roster e
                  WHERE e.queue_id = w.matched_queue_id AND e.roster_id = w.matched_roster_id) x;
            IF FOUND THEN
                mq := w.matched_queue_id;
            END IF;
            mr := w.matched_roster_id;
        END IF;
        IF mq IS NOT NULL THEN
            SELECT * INTO m FROM mm.match x WHERE x.queue_id = mq AND x.match_id = m.match_id;
            -- a player in a ready check (a proposed match, until its end)
            -- is not free to queue
            IF m.status = 'proposed' AND m.accept_until > now() AND mr = w.roster_id THEN
                RAISE EXCEPTION 'player % is in the ready check of match %', p, m.match_id
                    USING ERRCODE = 'object_not_in_prerequisite_state',
                          HINT = format('Accept the match with mm.accept(%s, %s), or decline it with mm.decline.',
                                        m.match_id, p);
            END IF;
            IF refuse_in_match AND m.status <> 'finished' THEN
                RAISE EXCEPTION 'player % is in match % that is not finished', p, m.match_id
                    USING ERRCODE = 'object_not_in_prerequisite_state',
                          DETAIL = format('Queue "%s" does not let players queue again while in a match.', queue),
                          HINT = 'Queue the player again once the match is finished, or set the queue''s requeue_while_in_match to true.';
            END IF;
        END IF;
        UPDATE mm.waiting_player wp
        SET queue_id = _hold_players.queue_id, roster_id = _hold_players.roster_id, since = now(),
            matched_queue_id = coalesce(mq, wp.matched_queue_id),
            matched_roster_id = CASE WHEN mq IS NULL THEN wp.matched_roster_id ELSE mr END
        WHERE wp.player_id = p;
    END LOOP;
END
$$;
COMMENT ON FUNCTION mm._hold_players IS
    'internal (Citus): record a new roster''s players in mm.waiting_player, refusing a player whose previous roster may still wait, who is in the ready check of its last match, or (refuse_in_match) whose last match is open; the row keeps the player''s last matched roster';

-- The queue-id forms: Citus sends a call whose distribution argument is the
-- queue id to the worker holding the queue (create_distributed_function in
-- mm.citus_distribute_queues; all but mm.report_result's, which runs on the
-- coordinator, see there). On a single node they call the name forms.

-- @access service, admin; definer
CREATE FUNCTION mm.tick(queue_id int, at timestamptz DEFAULT now())
RETURNS TABLE (match_id bigint, roster_id bigint, team text)
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF queue_id IS NULL THEN PERFORM mm._null_arg('queue_id'); END IF;
    PERFORM mm._citus_node_ids();
    RETURN QUERY SELECT t.match_id, t.roster_id, t.team FROM mm.tick(mm._queue_name(queue_id), at) t;
END
$$;
COMMENT ON FUNCTION mm.tick IS
    'mm.tick of the queue of that id; on Citus it runs on the worker holding the queue';

-- @access service, admin; definer
CREATE FUNCTION mm.enqueue(queue_id int, players bigint[], rating float8, deviation float8 DEFAULT 0,
                           rank float8 DEFAULT 0, ladder_points float8 DEFAULT 0,
                           dishonor int DEFAULT NULL, professions text[] DEFAULT '{}',
                           joined_at timestamptz DEFAULT now(), attributes jsonb DEFAULT '{}',
                           latencies jsonb DEFAULT '{}', roles text[] DEFAULT '{}',
                           max_latency float8 DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF queue_id IS NULL THEN PERFORM mm._null_arg('queue_id'); END IF;
    IF players IS NULL THEN PERFORM mm._null_arg('players'); END IF;
    PERFORM mm._citus_node_ids();
    RETURN mm.enqueue(mm._queue_name(queue_id), players, rating, deviation, rank, ladder_points,
                      dishonor, professions, joined_at, attributes, latencies, roles, max_latency);
END
$$;
COMMENT ON FUNCTION mm.enqueue IS
    'mm.enqueue into the queue of that id; on Citus it runs on the worker holding the queue';

-- @access service, admin; definer
CREATE FUNCTION mm.claim_matches(queue_id int, max int DEFAULT 100)
RETURNS TABLE (match_id bigint, created_at timestamptz, roster_id bigint, team text, players bigint[],
               kind text, backfill_id bigint)
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF queue_id IS NULL THEN PERFORM mm._null_arg('queue_id'); END IF;
    IF max IS NULL THEN PERFORM mm._null_arg('max'); END IF;
    RETURN QUERY SELECT c.match_id, c.created_at, c.roster_id, c.team, c.players, c.kind, c.backfill_id
                 FROM mm.claim_matches(mm._queue_name(queue_id), max) c;
END
$$;
COMMENT ON FUNCTION mm.claim_matches IS
    'mm.claim_matches of the queue of that id; on Citus it runs on the worker holding the queue';

-- @access service, admin; definer
CREATE FUNCTION mm.leave(queue_id int, roster_id bigint)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF queue_id IS NULL THEN PERFORM mm._null_arg('queue_id'); END IF;
    IF roster_id IS NULL THEN PERFORM mm._null_arg('roster_id'); END IF;
    PERFORM mm._require_primary('mm.leave');
    PERFORM mm._citus_node_ids();
    RETURN EXISTS (SELECT FROM mm._end_rosters(ARRAY[roster_id], 'left', NULL, false, now(), queue_id));
END
$$;
COMMENT ON FUNCTION mm.leave IS
    'mm.leave of a roster of the queue of that id (false if it is not waiting there); on Citus it runs on the worker holding the queue';

-- @access service, admin; definer
CREATE FUNCTION mm.report_result(queue_id int, match_id bigint, result jsonb)
RETURNS SETOF mm.match_result_player
AS 'MODULE_PATHNAME', 'mm_report_result_queue'
LANGUAGE C VOLATILE ROWS 10;
COMMENT ON FUNCTION mm.report_result IS
    'mm.report_result of a match of the queue of that id (a match of another queue does not exist for it); on Citus it runs on the coordinator, each statement sent to the queue''s shard, without looking the match up on every shard';

-- Each node of a Citus cluster holds mm's tables (its own on the
-- coordinator, the shells Citus keeps beside the shards on a worker) and
-- draws ids from mm's sequences. Distributed by queue, the tables need
-- every unique key and foreign key to carry queue_id; and ids made on
-- different nodes must not collide: each node draws from its own range of
-- 2^48 values, the node's group in the high bits (the coordinator's is
-- group 0's, 1 to 2^48). Both are done once per node: on the nodes present
-- by mm.citus_distribute_queues, on a worker added later by
-- mm.citus_prepare_nodes (its id range also by the first call of a
-- queue-id form there, mm._citus_node_ids).

-- This node's sequences in its group's range; a sequence already there is
-- left alone (its ids drawn so far stay drawn).
-- @access internal
CREATE FUNCTION mm._citus_node_ranges()
RETURNS int
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    g bigint;
    s text;
    lo bigint;
    hi bigint;
    changed int := 0;
BEGIN
    SELECT l.groupid INTO g FROM pg_catalog.pg_dist_local_group l;
    lo := CASE WHEN g = 0 THEN 1 ELSE 1 + (g << 48) END;
    hi := (g + 1) << 48;
    -- one node's sequences are set by one session at a time (the advisory
    -- lock 0x6d6d0003, beside the ticks' 0x6d6d0001 and 0x6d6d0002)
    PERFORM pg_catalog.pg_advisory_xact_lock(1835859971, 0);
    FOREACH s IN ARRAY ARRAY['mm.roster_id_seq', 'mm.roster_position_seq', 'mm.match_id_seq',
                             'mm.tick_id_seq', 'mm.ticket_event_id_seq', 'mm.backfill_id_seq',
                             'mm.queue_event_id_seq'] LOOP
        CONTINUE WHEN EXISTS (SELECT FROM pg_catalog.pg_sequence q
                              WHERE q.seqrelid = s::regclass AND q.seqmin = lo AND q.seqmax = hi);
        IF g = 0 THEN
            EXECUTE format('ALTER SEQUENCE %s MAXVALUE %s', s, hi);
        ELSE
            EXECUTE format('ALTER SEQUENCE %s MINVALUE %s MAXVALUE %s START WITH %s RESTART WITH %s', s, lo, hi, lo, lo);
        END IF;
        changed := changed + 1;
    END LOOP;
    RETURN changed;
END
$$;
COMMENT ON FUNCTION mm._citus_node_ranges IS
    'internal (Citus): put this node''s id sequences in its group''s range of 2^48 values (the coordinator''s: 1 to 2^48), those not there yet; returns how many it changed';

-- The queue-id forms draw ids where Citus sends them: on a worker added
-- after mm.citus_distribute_queues that nobody prepared, its range is set
-- here first (two catalog reads when it is already set).
-- @access internal
CREATE FUNCTION mm._citus_node_ids()
RETURNS void
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    -- (a statement naming Citus's catalog is planned only where it exists)
    IF pg_catalog.to_regclass('pg_catalog.pg_dist_local_group') IS NOT NULL THEN
        IF EXISTS (SELECT FROM pg_catalog.pg_dist_local_group l, pg_catalog.pg_sequence q
                   WHERE l.groupid > 0 AND q.seqrelid = 'mm.roster_id_seq'::regclass
                     AND q.seqmin <> 1 + (l.groupid::bigint << 48)) THEN
            PERFORM mm._citus_node_ranges();
        END IF;
    END IF;
END
$$;
COMMENT ON FUNCTION mm._citus_node_ids IS
    'internal (Citus): make sure this node draws ids from its own range (mm._citus_node_ranges) before a queue-id form draws one';

-- This node's tables with the keys of the distributed layout: every unique
-- key and foreign key that names a row without its queue gains queue_id
-- (Citus needs the distribution column in each), and the lookups by an id
-- alone get an index. Once: a node whose mm.match has no key on match_id
-- alone has them already. One transaction per node.
-- @access internal
CREATE FUNCTION mm._citus_node_keys()
RETURNS boolean
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF pg_catalog.to_regclass('pg_catalog.pg_dist_partition') IS NULL THEN
        RAISE EXCEPTION 'mm._citus_node_keys needs Citus'
            USING ERRCODE = 'feature_not_supported',
                  DETAIL = 'Extension citus is not installed in this database: a single node keeps its keys.';
    END IF;
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_constraint c
                   WHERE c.conrelid = 'mm.match'::regclass AND c.conname = 'match_pkey') THEN
        RETURN false;
    END IF;
    -- the shells of a worker are changed here, not through the coordinator
    PERFORM pg_catalog.set_config('citus.enable_ddl_propagation', 'off', true);
    ALTER TABLE mm.roster DROP CONSTRAINT roster_queue_id_fkey,
        DROP CONSTRAINT roster_match_fkey, DROP CONSTRAINT roster_backfill_fkey;
    ALTER TABLE mm.match DROP CONSTRAINT match_queue_id_fkey, DROP CONSTRAINT match_pkey;
    ALTER TABLE mm.tick_log DROP CONSTRAINT tick_log_queue_id_fkey, DROP CONSTRAINT tick_log_pkey,
        ADD CONSTRAINT tick_log_pkey PRIMARY KEY (queue_id, tick_id);
    ALTER TABLE mm.queued_player DROP CONSTRAINT queued_player_roster_fkey;
    DROP INDEX mm.queued_player_player_key;
    CREATE UNIQUE INDEX queued_player_player_key ON mm.queued_player (queue_id, player_id) WHERE NOT requeued;
    ALTER TABLE mm.ended_roster DROP CONSTRAINT ended_roster_match_fkey, DROP CONSTRAINT ended_roster_pkey,
        DROP CONSTRAINT ended_roster_roster_id_key, DROP CONSTRAINT ended_roster_backfill_fkey,
        ADD CONSTRAINT ended_roster_pkey PRIMARY KEY (queue_id, match_id, roster_id),
        ADD CONSTRAINT ended_roster_roster_id_key UNIQUE (queue_id, roster_id);
    ALTER TABLE mm.ticket_event DROP CONSTRAINT ticket_event_pkey,
        ADD CONSTRAINT ticket_event_pkey PRIMARY KEY (queue_id, event_id);
    ALTER TABLE mm.roster_arrival DROP CONSTRAINT roster_arrival_pkey,
        ADD CONSTRAINT roster_arrival_pkey PRIMARY KEY (queue_id, roster_id);
    ALTER TABLE mm.match_accept DROP CONSTRAINT match_accept_match_fkey, DROP CONSTRAINT match_accept_pkey,
        ADD CONSTRAINT match_accept_pkey PRIMARY KEY (queue_id, match_id, player_id);
    ALTER TABLE mm.backfill DROP CONSTRAINT backfill_match_fkey, DROP CONSTRAINT backfill_pkey,
        DROP CONSTRAINT backfill_match_team_key,
        ADD CONSTRAINT backfill_pkey PRIMARY KEY (queue_id, backfill_id),
        ADD CONSTRAINT backfill_match_team_key UNIQUE (queue_id, match_id, team, backfill_id);
    ALTER TABLE mm.match_result_player DROP CONSTRAINT match_result_player_match_fkey,
        DROP CONSTRAINT match_result_player_pkey,
        ADD CONSTRAINT match_result_player_pkey PRIMARY KEY (queue_id, match_id, player_id);
    ALTER TABLE mm.rating_period_game DROP CONSTRAINT rating_period_game_match_fkey;
    ALTER TABLE mm.match_result DROP CONSTRAINT match_result_match_fkey, DROP CONSTRAINT match_result_pkey,
        ADD CONSTRAINT match_result_pkey PRIMARY KEY (queue_id, match_id);
    ALTER TABLE mm.odds_calibration DROP CONSTRAINT odds_calibration_queue_id_fkey;
    ALTER TABLE mm.odds_result DROP CONSTRAINT odds_result_match_fkey;
    -- a match, an ended roster and a backfill request named by their id
    -- alone (mm._match_queue, mm._roster_queue, mm._backfill_queue): an
    -- index on each shard where the dropped keys were
    CREATE INDEX match_match_id_idx ON mm.match (match_id);
    CREATE INDEX ended_roster_roster_idx ON mm.ended_roster (roster_id);
    CREATE INDEX backfill_backfill_id_idx ON mm.backfill (backfill_id);
    -- the feed's events are written with a placeholder id below zero, then
    -- numbered per queue (mm._number_events)
    ALTER TABLE mm.queue_event ALTER COLUMN event_id SET DEFAULT -nextval('mm.queue_event_id_seq');
    RETURN true;
END
$$;
COMMENT ON FUNCTION mm._citus_node_keys IS
    'internal (Citus): give this node''s queue tables the keys of the distributed layout (each unique and foreign key with queue_id; indexes for lookups by an id alone), once; true when it changed them';

-- Run a command on every worker and stop at the first that failed, naming
-- the worker and its error (Citus's run_command_on_workers reports each
-- worker's outcome as a row and fails for none).
-- @access internal
CREATE FUNCTION mm._citus_on_workers(command text, what text)
RETURNS SETOF text
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    r record;
BEGIN
    FOR r IN EXECUTE format('SELECT nodename, nodeport, success, result FROM pg_catalog.run_command_on_workers(%L) '
                            'ORDER BY nodename, nodeport', command) LOOP
        IF NOT r.success THEN
            RAISE EXCEPTION 'worker %:% could not %', r.nodename, r.nodeport, what
                USING ERRCODE = 'external_routine_exception',
                      DETAIL = format('The worker answered: %s', r.result),
                      HINT = 'Fix what the worker says, then call the function again: the nodes already done are left as they are.';
        END IF;
        RETURN NEXT format('%s:%s %s', r.nodename, r.nodeport, r.result);
    END LOOP;
END
$$;
COMMENT ON FUNCTION mm._citus_on_workers IS
    'internal (Citus): run a command on every worker (run_command_on_workers); an error naming the first worker that failed and its answer';

-- @access internal
CREATE FUNCTION mm.citus_prepare_nodes()
RETURNS TABLE (node text, keys_changed boolean, sequences_changed int)
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    r text;
BEGIN
    IF pg_catalog.to_regclass('pg_catalog.pg_dist_partition') IS NULL THEN
        RAISE EXCEPTION 'mm.citus_prepare_nodes needs Citus'
            USING ERRCODE = 'feature_not_supported',
                  DETAIL = 'Extension citus is not installed in this database.',
                  HINT = 'On a single node the queues need no step.';
    END IF;
    IF NOT mm._queues_distributed() THEN
        RAISE EXCEPTION 'the queues are not distributed'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'Distribute them first with mm.citus_distribute_queues(), which prepares the nodes present.';
    END IF;
    FOR r IN SELECT x FROM mm._citus_on_workers(
                 'SELECT mm._citus_node_keys()::text || '' '' || mm._citus_node_ranges()::text',
                 'take the keys and the id range of the distributed queue tables') x LOOP
        node := split_part(r, ' ', 1);
        keys_changed := split_part(r, ' ', 2)::boolean;
        sequences_changed := split_part(r, ' ', 3)::int;
        RETURN NEXT;
    END LOOP;
END
$$;
COMMENT ON FUNCTION mm.citus_prepare_nodes IS
    'Citus coordinator, after citus_add_node (a DBA''s step; idempotent): give every worker the keys of the distributed queue tables and its own range of ids, those that lack them; one row per worker with what it changed; an error naming a worker that failed';

-- The DBA's step on a Citus coordinator.
-- @access internal
CREATE FUNCTION mm.citus_distribute_queues(shard_count int DEFAULT 32)
RETURNS SETOF text
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    t text;
    coordinator boolean;
BEGIN
    IF shard_count IS NULL THEN PERFORM mm._null_arg('shard_count'); END IF;
    IF pg_catalog.to_regclass('pg_catalog.pg_dist_partition') IS NULL THEN
        RAISE EXCEPTION 'mm.citus_distribute_queues needs Citus'
            USING ERRCODE = 'feature_not_supported',
                  DETAIL = 'Extension citus is not installed in this database.',
                  HINT = 'On a single node the queues need no step. On a Citus coordinator, CREATE EXTENSION citus first.';
    END IF;
    IF shard_count IS NULL OR shard_count < 1 THEN
        RAISE EXCEPTION 'shard_count must be at least 1'
            USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The value is %s.', shard_count);
    END IF;
    IF mm._queues_distributed() THEN
        RAISE EXCEPTION 'the queues are already distributed'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'See them with: SELECT * FROM citus_tables WHERE table_name::text LIKE ''mm.%''.';
    END IF;
    EXECUTE 'SELECT pg_catalog.citus_is_coordinator()' INTO coordinator;
    IF NOT coordinator THEN
        RAISE EXCEPTION 'mm.citus_distribute_queues must run on the Citus coordinator'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'Add the coordinator (citus_set_coordinator_host) and the workers (citus_add_node), then call it there.';
    END IF;
    PERFORM mm._require_primary('mm.citus_distribute_queues');
    -- foreign keys to reference tables need one connection per node
    PERFORM pg_catalog.set_config('citus.multi_shard_modify_mode', 'sequential', true);

    -- the same keys and an id range on every node: the workers first (each
    -- in a transaction of its own, once: a worker that refuses stops the
    -- step, naming it, and a second call after the fix skips the workers
    -- already done), then here, in this transaction
    PERFORM mm._citus_on_workers('SELECT mm._citus_node_keys()::text || '' '' || mm._citus_node_ranges()::text',
                                 'take the keys and the id range of the distributed queue tables');
    PERFORM mm._citus_node_keys();
    PERFORM pg_catalog.set_config('citus.enable_ddl_propagation', 'on', true);
    RETURN NEXT 'keys of the queue tables carry queue_id';

    -- notifications reach the coordinator, where backends listen, from
    -- any node: through a table of one row that lives there (created here,
    -- not by the extension: Citus makes the workers' copies of a local
    -- table of the coordinator itself)
    CREATE TABLE mm.notify_relay (
        relay int NOT NULL,
        CONSTRAINT notify_relay_pkey PRIMARY KEY (relay),
        CONSTRAINT notify_relay_one_row CHECK (relay = 1)
    );
    COMMENT ON TABLE mm.notify_relay IS
        'Citus: one row on the coordinator; mm''s NOTIFYs are sent by a statement reading it, which Citus runs on the coordinator, where backends listen, whichever node the tick runs on (created by mm.citus_distribute_queues)';
    INSERT INTO mm.notify_relay (relay) VALUES (1);
    EXECUTE 'SELECT pg_catalog.citus_add_local_table_to_metadata(''mm.notify_relay'')';
    RETURN NEXT 'mm.notify_relay: on the coordinator, where the queues'' notifications are sent from any node';

    -- read by every queue's worker: queues, dishonor
    FOREACH t IN ARRAY ARRAY['mm.queue', 'mm.dishonor_settings', 'mm.dishonor_players', 'mm.player_block'] LOOP
        EXECUTE format('SELECT pg_catalog.create_reference_table(%L)', t);
    END LOOP;
    RETURN NEXT 'reference tables: mm.queue, mm.dishonor_settings, mm.dishonor_players, mm.player_block';

    EXECUTE format('SELECT pg_catalog.create_distributed_table(%L, %L, shard_count => %s)',
                   'mm.roster', 'queue_id', shard_count);
    FOREACH t IN ARRAY ARRAY['mm.queued_player', 'mm.match', 'mm.match_accept', 'mm.backfill', 'mm.ended_roster', 'mm.ticket_event', 'mm.tick_log',
                             'mm.odds_calibration', 'mm.odds_result', 'mm.match_result', 'mm.match_result_player',
                             'mm.queue_dodge', 'mm.roster_arrival', 'mm.queue_event', 'mm.queue_event_position'] LOOP
        EXECUTE format('SELECT pg_catalog.create_distributed_table(%L, %L, colocate_with => %L)',
                       t, 'queue_id', 'mm.roster');
    END LOOP;
    EXECUTE format('SELECT pg_catalog.create_distributed_table(%L, %L, shard_count => %s)',
                   'mm.waiting_player', 'player_id', shard_count);
    FOREACH t IN ARRAY ARRAY['mm.ratings', 'mm.rating_period_game'] LOOP
        EXECUTE format('SELECT pg_catalog.create_distributed_table(%L, %L, colocate_with => %L)',
                       t, 'player_id', 'mm.waiting_player');
    END LOOP;
    RETURN NEXT 'distributed by queue_id, colocated: mm.roster, mm.queued_player, mm.match, mm.match_accept, mm.backfill, mm.ended_roster, mm.ticket_event, mm.tick_log, mm.odds_calibration, mm.odds_result, mm.match_result, mm.match_result_player, mm.queue_dodge, mm.roster_arrival, mm.queue_event, mm.queue_event_position';
    RETURN NEXT 'distributed by player_id, colocated: mm.waiting_player, mm.ratings, mm.rating_period_game';

    ALTER TABLE mm.roster ADD CONSTRAINT roster_queue_id_fkey FOREIGN KEY (queue_id) REFERENCES mm.queue ON DELETE CASCADE;
    ALTER TABLE mm.match ADD CONSTRAINT match_queue_id_fkey FOREIGN KEY (queue_id) REFERENCES mm.queue ON DELETE CASCADE;
    ALTER TABLE mm.tick_log ADD CONSTRAINT tick_log_queue_id_fkey FOREIGN KEY (queue_id) REFERENCES mm.queue ON DELETE CASCADE;
    ALTER TABLE mm.odds_calibration ADD CONSTRAINT odds_calibration_queue_id_fkey FOREIGN KEY (queue_id)
        REFERENCES mm.queue ON DELETE CASCADE;
    ALTER TABLE mm.odds_result ADD CONSTRAINT odds_result_match_fkey FOREIGN KEY (queue_id, match_id)
        REFERENCES mm.match (queue_id, match_id) ON DELETE CASCADE;
    ALTER TABLE mm.queued_player ADD CONSTRAINT queued_player_roster_fkey FOREIGN KEY (queue_id, roster_id)
        REFERENCES mm.roster (queue_id, roster_id) ON DELETE CASCADE;
    ALTER TABLE mm.roster ADD CONSTRAINT roster_match_fkey FOREIGN KEY (queue_id, match_id)
        REFERENCES mm.match (queue_id, match_id) ON DELETE CASCADE;
    ALTER TABLE mm.ended_roster ADD CONSTRAINT ended_roster_match_fkey FOREIGN KEY (queue_id, match_id)
        REFERENCES mm.match (queue_id, match_id) ON DELETE CASCADE;
    ALTER TABLE mm.match_accept ADD CONSTRAINT match_accept_match_fkey FOREIGN KEY (queue_id, match_id)
        REFERENCES mm.match (queue_id, match_id) ON DELETE CASCADE;
    ALTER TABLE mm.backfill ADD CONSTRAINT backfill_match_fkey FOREIGN KEY (queue_id, match_id)
        REFERENCES mm.match (queue_id, match_id) ON DELETE CASCADE;
    ALTER TABLE mm.roster ADD CONSTRAINT roster_backfill_fkey FOREIGN KEY (queue_id, match_id, team, backfill_id)
        REFERENCES mm.backfill (queue_id, match_id, team, backfill_id) ON DELETE CASCADE;
    ALTER TABLE mm.ended_roster ADD CONSTRAINT ended_roster_backfill_fkey FOREIGN KEY (queue_id, match_id, team, backfill_id)
        REFERENCES mm.backfill (queue_id, match_id, team, backfill_id) ON DELETE CASCADE;
    ALTER TABLE mm.match_result ADD CONSTRAINT match_result_match_fkey FOREIGN KEY (queue_id, match_id)
        REFERENCES mm.match (queue_id, match_id) ON DELETE CASCADE;
    ALTER TABLE mm.match_result_player ADD CONSTRAINT match_result_player_match_fkey FOREIGN KEY (queue_id, match_id)
        REFERENCES mm.match_result (queue_id, match_id) ON DELETE CASCADE;
    RETURN NEXT 'foreign keys restored with queue_id';

    -- ids made on different nodes must not collide (the workers' ranges
    -- were set above with their keys)
    PERFORM mm._citus_node_ranges();
    RETURN NEXT 'sequences: one range of 2^48 ids per node';

    -- calls sent to the worker holding the queue. Not mm.report_result's
    -- queue-id form: it writes the players' rows of mm.ratings, which live
    -- on every worker, and Citus opens a new connection for each node a
    -- delegated call writes beyond its own (a backend serving a Citus
    -- connection keeps none of its own); run on the coordinator, whose
    -- connections stay open, a report costs a third of the delegated one.
    -- mm.enqueue stays delegated although a player's row of
    -- mm.waiting_player may live on the other worker: the queue's
    -- positions must come from the node that ticks the queue (a roster
    -- queued from another node's range would go ahead of every roster the
    -- tick moved to the back)
    FOREACH t IN ARRAY ARRAY['mm.tick(int, timestamptz)',
                             'mm.enqueue(int, bigint[], float8, float8, float8, float8, int, text[], timestamptz, jsonb, jsonb, text[], float8)',
                             'mm.claim_matches(int, int)', 'mm.leave(int, bigint)'] LOOP
        EXECUTE format('SELECT pg_catalog.create_distributed_function(%L, %L, colocate_with => %L)',
                       t, 'queue_id', 'mm.roster');
    END LOOP;
    -- a delegated call reads and writes beyond the queue's shard (the
    -- players' rows of mm.waiting_player and mm.ratings on their workers,
    -- the notification on the coordinator)
    FOREACH t IN ARRAY ARRAY['mm.tick(int, timestamptz)',
                             'mm.enqueue(int, bigint[], float8, float8, float8, float8, int, text[], timestamptz, jsonb, jsonb, text[], float8)',
                             'mm.claim_matches(int, int)', 'mm.leave(int, bigint)'] LOOP
        EXECUTE format('ALTER FUNCTION %s SET citus.allow_nested_distributed_execution = on', t);
    END LOOP;
    RETURN NEXT 'delegated by queue_id: mm.tick, mm.enqueue, mm.claim_matches, mm.leave (queue-id forms)';
END
$$;
COMMENT ON FUNCTION mm.citus_distribute_queues IS
    'Citus coordinator only (a DBA''s step, once): give every node the keys of the distributed layout and its own range of ids (an error naming a worker that refuses; a second call completes), then put each queue''s rosters, players, matches, accepts, backfill requests, results, dodge timeouts, ticket history and tick log on one worker (distributed by queue_id, shard_count shards), queues and dishonor on every node (reference tables), mm.waiting_player, mm.ratings and mm.rating_period_game by player, mm.notify_relay on the coordinator, and let Citus send the queue-id forms of tick, enqueue, claim_matches and leave to the queue''s worker; refused without Citus';
