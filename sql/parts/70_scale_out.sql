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
-- the player's next enqueue (ticks never write it).
-- @access admin, analyst
CREATE TABLE mm.waiting_player (
    player_id bigint NOT NULL,
    queue_id  int NOT NULL,
    roster_id bigint NOT NULL,
    since     timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT waiting_player_pkey PRIMARY KEY (player_id)
);
COMMENT ON TABLE mm.waiting_player IS
    'on Citus (mm.citus_distribute_queues), the roster each player last queued in, one row per player, distributed by player: mm.enqueue refuses a player whose roster here still waits; empty on a single node, where mm.queued_player''s key does this';
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
-- node at the same instant).
-- @access internal
CREATE FUNCTION mm._hold_players(queue_id int, roster_id bigint, players bigint[])
RETURNS void
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    p bigint;
    w mm.waiting_player;
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
        UPDATE mm.waiting_player wp
        SET queue_id = _hold_players.queue_id, roster_id = _hold_players.roster_id, since = now()
        WHERE wp.player_id = p;
    END LOOP;
END
$$;
COMMENT ON FUNCTION mm._hold_players IS
    'internal (Citus): record a new roster''s players in mm.waiting_player, refusing a player whose previous roster may still wait';

-- The queue-id forms: Citus sends a call whose distribution argument is the
-- queue id to the worker holding the queue (create_distributed_function in
-- mm.citus_distribute_queues). On a single node they call the name forms.

-- @access service, admin; definer
CREATE FUNCTION mm.tick(queue_id int, at timestamptz DEFAULT now())
RETURNS TABLE (match_id bigint, roster_id bigint, team text)
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF queue_id IS NULL THEN PERFORM mm._null_arg('queue_id'); END IF;
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
    RETURN EXISTS (SELECT FROM mm._end_rosters(ARRAY[roster_id], 'left', NULL, false, now(), queue_id));
END
$$;
COMMENT ON FUNCTION mm.leave IS
    'mm.leave of a roster of the queue of that id (false if it is not waiting there); on Citus it runs on the worker holding the queue';

-- The DBA's step on a Citus coordinator.
-- @access internal
CREATE FUNCTION mm.citus_distribute_queues(shard_count int DEFAULT 32)
RETURNS SETOF text
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    -- keys that name a row without its queue: Citus needs the distribution
    -- column in every unique key and foreign key
    keys text := $k$
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
        ALTER TABLE mm.match_accept DROP CONSTRAINT match_accept_match_fkey, DROP CONSTRAINT match_accept_pkey,
            ADD CONSTRAINT match_accept_pkey PRIMARY KEY (queue_id, match_id, player_id);
        ALTER TABLE mm.backfill DROP CONSTRAINT backfill_match_fkey, DROP CONSTRAINT backfill_pkey,
            DROP CONSTRAINT backfill_match_team_key,
            ADD CONSTRAINT backfill_pkey PRIMARY KEY (queue_id, backfill_id),
            ADD CONSTRAINT backfill_match_team_key UNIQUE (queue_id, match_id, team, backfill_id);
        ALTER TABLE mm.match_result DROP CONSTRAINT match_result_match_fkey;
        ALTER TABLE mm.odds_calibration DROP CONSTRAINT odds_calibration_queue_id_fkey;
        ALTER TABLE mm.odds_result DROP CONSTRAINT odds_result_match_fkey;
    $k$;
    t text;
    ok boolean;
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

    -- the same keys on every node (the workers' copies of mm's tables are
    -- the shells Citus keeps beside the shards)
    PERFORM pg_catalog.set_config('citus.enable_ddl_propagation', 'off', true);
    EXECUTE keys;
    EXECUTE format('SELECT pg_catalog.bool_and(success) FROM pg_catalog.run_command_on_workers(%L)',
                   'SET citus.enable_ddl_propagation = off; ' || keys) INTO STRICT ok;
    PERFORM pg_catalog.set_config('citus.enable_ddl_propagation', 'on', true);
    RETURN NEXT 'keys of the queue tables carry queue_id';

    -- read by every queue's worker: queues, dishonor
    FOREACH t IN ARRAY ARRAY['mm.queue', 'mm.dishonor_settings', 'mm.dishonor_players'] LOOP
        EXECUTE format('SELECT pg_catalog.create_reference_table(%L)', t);
    END LOOP;
    RETURN NEXT 'reference tables: mm.queue, mm.dishonor_settings, mm.dishonor_players';

    EXECUTE format('SELECT pg_catalog.create_distributed_table(%L, %L, shard_count => %s)',
                   'mm.roster', 'queue_id', shard_count);
    FOREACH t IN ARRAY ARRAY['mm.queued_player', 'mm.match', 'mm.match_accept', 'mm.backfill', 'mm.ended_roster', 'mm.ticket_event', 'mm.tick_log',
                             'mm.odds_calibration', 'mm.odds_result'] LOOP
        EXECUTE format('SELECT pg_catalog.create_distributed_table(%L, %L, colocate_with => %L)',
                       t, 'queue_id', 'mm.roster');
    END LOOP;
    EXECUTE format('SELECT pg_catalog.create_distributed_table(%L, %L, shard_count => %s)',
                   'mm.waiting_player', 'player_id', shard_count);
    EXECUTE format('SELECT pg_catalog.create_distributed_table(%L, %L, colocate_with => %L)',
                   'mm.ratings', 'player_id', 'mm.waiting_player');
    RETURN NEXT 'distributed by queue_id, colocated: mm.roster, mm.queued_player, mm.match, mm.match_accept, mm.backfill, mm.ended_roster, mm.ticket_event, mm.tick_log, mm.odds_calibration, mm.odds_result';
    RETURN NEXT 'distributed by player_id: mm.waiting_player, mm.ratings';

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
    RETURN NEXT 'foreign keys restored with queue_id';

    -- ids made on different nodes must not collide: each node draws from
    -- its own range of 2^48 values (the coordinator's is group 0's)
    t := $s$
        DO $d$
        DECLARE
            g bigint := (SELECT groupid FROM pg_catalog.pg_dist_local_group);
            s text;
        BEGIN
            FOREACH s IN ARRAY ARRAY['mm.roster_id_seq', 'mm.roster_position_seq', 'mm.match_id_seq',
                                     'mm.tick_id_seq', 'mm.ticket_event_id_seq', 'mm.backfill_id_seq'] LOOP
                IF g = 0 THEN
                    EXECUTE format('ALTER SEQUENCE %s MAXVALUE %s', s, 1::bigint << 48);
                ELSE
                    EXECUTE format('ALTER SEQUENCE %s MINVALUE %s MAXVALUE %s START WITH %s RESTART WITH %s',
                                   s, 1 + (g << 48), (g + 1) << 48, 1 + (g << 48), 1 + (g << 48));
                END IF;
            END LOOP;
        END
        $d$
    $s$;
    EXECUTE t;
    EXECUTE format('SELECT pg_catalog.bool_and(success) FROM pg_catalog.run_command_on_workers(%L)', t) INTO STRICT ok;
    RETURN NEXT 'sequences: one range of 2^48 ids per node';

    -- calls sent to the worker holding the queue
    FOREACH t IN ARRAY ARRAY['mm.tick(int, timestamptz)',
                             'mm.enqueue(int, bigint[], float8, float8, float8, float8, int, text[], timestamptz, jsonb, jsonb, text[], float8)',
                             'mm.claim_matches(int, int)', 'mm.leave(int, bigint)'] LOOP
        EXECUTE format('SELECT pg_catalog.create_distributed_function(%L, %L, colocate_with => %L)',
                       t, 'queue_id', 'mm.roster');
    END LOOP;
    -- a delegated enqueue writes mm.waiting_player and reads mm.ratings on
    -- the players' workers; a tick that expires rosters, and the checks of
    -- enqueue, read and write beyond the queue's shard
    FOREACH t IN ARRAY ARRAY['mm.tick(int, timestamptz)',
                             'mm.enqueue(int, bigint[], float8, float8, float8, float8, int, text[], timestamptz, jsonb, jsonb, text[], float8)',
                             'mm.claim_matches(int, int)', 'mm.leave(int, bigint)'] LOOP
        EXECUTE format('ALTER FUNCTION %s SET citus.allow_nested_distributed_execution = on', t);
    END LOOP;
    RETURN NEXT 'delegated by queue_id: mm.tick, mm.enqueue, mm.claim_matches, mm.leave (queue-id forms)';
END
$$;
COMMENT ON FUNCTION mm.citus_distribute_queues IS
    'Citus coordinator only (a DBA''s step, once): put each queue''s rosters, players, matches, accepts, backfill requests, ticket history and tick log on one worker (distributed by queue_id, shard_count shards), queues and dishonor on every node (reference tables), mm.waiting_player and mm.ratings by player, one id range per node, and let Citus send the queue-id forms of tick, enqueue, claim_matches and leave to the queue''s worker; refused without Citus';
