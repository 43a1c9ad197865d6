
-- GW2 dishonor (the Guild Wars 2 wiki's PvP matchmaking page, "Dishonor"): penalties by reason, stacks that
-- decay one per stack_duration, timeouts of roundInterval(stacks^exponent *
-- timeout_duration, timeout_rounding) added to the player's timeout.

-- The dishonor config: one row when set with mm.set_dishonor_config; no row
-- means the GW2 wiki's defaults. Dumped with the data (pg_dump keeps it).
-- @access admin, analyst
CREATE TABLE mm.dishonor_settings (
    singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    config     jsonb NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE mm.dishonor_settings IS
    'the dishonor config set with mm.set_dishonor_config (at most one row; none means the defaults)';
SELECT pg_catalog.pg_extension_config_dump('mm.dishonor_settings', '');

-- Each player's dishonor: "stacks" counted at "stacks_at" (they decay from
-- there), and the end of the current timeout.
-- @access admin, analyst
CREATE TABLE mm.dishonor_players (
    player_id     bigint PRIMARY KEY,
    stacks        integer NOT NULL CHECK (stacks >= 0),
    stacks_at     timestamptz NOT NULL,
    timeout_until timestamptz,
    reason        text NOT NULL,
    updated_at    timestamptz NOT NULL
);
COMMENT ON TABLE mm.dishonor_players IS
    'players'' dishonor: stacks as counted at stacks_at (decaying from there), end of the timeout, last reason';
SELECT pg_catalog.pg_extension_config_dump('mm.dishonor_players', '');

-- @access public
CREATE FUNCTION mm.dishonor_config_resolve(config jsonb)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'mm_dishonor_config_resolve'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.dishonor_config_resolve IS
    'check a dishonor config (overrides of the defaults) and return it complete';

-- @access public
CREATE FUNCTION mm.dishonor_config_defaults()
RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mm, pg_catalog, pg_temp
RETURN mm.dishonor_config_resolve('{}'::jsonb);
COMMENT ON FUNCTION mm.dishonor_config_defaults IS
    'the GW2 wiki''s dishonor config: stack_duration 15m, timeout_duration 30s, timeout_exponent 1.5, timeout_rounding 1m, penalties abandon 10, queue_dodge 4, banned 1000000';

-- @access service, admin, analyst; definer
CREATE FUNCTION mm.dishonor_config()
RETURNS jsonb
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = mm, pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT coalesce((SELECT s.config FROM mm.dishonor_settings s WHERE s.singleton),
                    mm.dishonor_config_defaults());
END;
COMMENT ON FUNCTION mm.dishonor_config IS
    'the dishonor config in force: the one set with mm.set_dishonor_config, else the defaults';

-- @access admin; definer
CREATE FUNCTION mm.set_dishonor_config(config jsonb)
RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    resolved jsonb;
    used record;
BEGIN
    IF config IS NULL THEN
        RAISE EXCEPTION 'dishonor config must not be NULL'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass ''{}'' for the defaults.';
    END IF;
    resolved := mm.dishonor_config_resolve(config);
    PERFORM mm._check_name('dishonor reason', k) FROM jsonb_object_keys(resolved -> 'penalties') k;
    -- a queue's dodge_reason and rating.desertion_reason must stay known:
    -- queues created or altered meanwhile are waited for (they take this
    -- table in SHARE mode to check their reasons), so none is missed
    LOCK TABLE mm.dishonor_settings IN SHARE ROW EXCLUSIVE MODE;
    SELECT q.name, r.key, r.reason INTO used
    FROM mm.queue q, mm._queue_reasons(q.config) r
    WHERE q.dropped_at IS NULL AND NOT (resolved -> 'penalties') ? r.reason
    ORDER BY q.name, r.key LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'dishonor config drops reason "%", which queue "%" uses', used.reason, used.name
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('Queue "%s" has %s "%s".', used.name, used.key, used.reason),
                  HINT = format('Keep "%s" under "penalties", or first change the queue''s %s with mm.alter_queue.',
                                used.reason, used.key);
    END IF;
    INSERT INTO mm.dishonor_settings AS s (singleton, config, updated_at)
    VALUES (true, resolved, pg_catalog.now())
    ON CONFLICT (singleton) DO UPDATE
        SET config = excluded.config, updated_at = excluded.updated_at;
    RETURN resolved;
END;
$$;
COMMENT ON FUNCTION mm.set_dishonor_config IS
    'set the dishonor config (overrides of the defaults, which replace any earlier setting); returns it complete; refused (22023) when its penalties leave out a reason a live queue names as dodge_reason or rating.desertion_reason';

-- The dishonor reasons a complete queue config names, by key (null: none).
-- @access internal
CREATE FUNCTION mm._queue_reasons(config jsonb)
RETURNS TABLE (key text, reason text)
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mm, pg_catalog, pg_temp
AS $$
    SELECT k.key, k.reason
    FROM (VALUES (1, 'dodge_reason', config ->> 'dodge_reason'),
                 (2, 'rating.desertion_reason', config -> 'rating' ->> 'desertion_reason')) AS k(o, key, reason)
    WHERE k.reason IS NOT NULL
    ORDER BY k.o
$$;
COMMENT ON FUNCTION mm._queue_reasons IS
    'internal: the dishonor reasons a complete queue config names: its dodge_reason and rating.desertion_reason, those not null';

-- Whether a reason is one of the dishonor config's penalties.
-- @access internal
CREATE FUNCTION mm._dishonor_reason_known(reason text)
RETURNS boolean
LANGUAGE sql STABLE STRICT PARALLEL SAFE
SET search_path = mm, pg_catalog, pg_temp
RETURN (mm.dishonor_config() -> 'penalties') ? reason;
COMMENT ON FUNCTION mm._dishonor_reason_known IS
    'internal: true when the dishonor config in force has a penalty for the reason';

-- The reasons of the dishonor config in force, for hints.
-- @access internal
CREATE FUNCTION mm._dishonor_reasons()
RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = mm, pg_catalog, pg_temp
RETURN (SELECT string_agg(k, ', ' ORDER BY k) FROM jsonb_object_keys(mm.dishonor_config() -> 'penalties') k);
COMMENT ON FUNCTION mm._dishonor_reasons IS
    'internal: the reasons of the dishonor config in force, in order, for hints';

-- Check a queue's dishonor reasons against the dishonor config in force
-- (mm.create_queue and mm.alter_queue, after writing the queue). Takes
-- mm.dishonor_settings in SHARE mode: a mm.set_dishonor_config running
-- meanwhile has committed (its change is seen here) or waits for this
-- transaction (and sees the queue).
-- @access internal
CREATE FUNCTION mm._check_queue_reasons(name text, config jsonb)
RETURNS void
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    r record;
BEGIN
    LOCK TABLE mm.dishonor_settings IN SHARE MODE;
    FOR r IN SELECT * FROM mm._queue_reasons(config) LOOP
        IF NOT mm._dishonor_reason_known(r.reason) THEN
            RAISE EXCEPTION 'queue config key "%" is not a known dishonor reason', r.key
                USING ERRCODE = 'invalid_parameter_value',
                      DETAIL = format('Queue "%s" has %s "%s".', name, r.key, r.reason),
                      HINT = format('Known reasons are: %s (add others under "penalties" with mm.set_dishonor_config); null gives no dishonor.',
                                    mm._dishonor_reasons());
        END IF;
    END LOOP;
END
$$;
COMMENT ON FUNCTION mm._check_queue_reasons IS
    'internal (mm.create_queue, mm.alter_queue): refuse (22023) a queue config whose dodge_reason or rating.desertion_reason is not a reason of the dishonor config in force';

-- @access public
CREATE FUNCTION mm.dishonor_timeout(stacks integer, config jsonb DEFAULT '{}')
RETURNS interval
AS 'MODULE_PATHNAME', 'mm_dishonor_timeout'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.dishonor_timeout IS
    'timeout earned by a player who now has this many stacks: roundInterval(stacks^timeout_exponent * timeout_duration, timeout_rounding)';

-- @access public
CREATE FUNCTION mm.dishonor_decay(stacks integer, elapsed interval, config jsonb DEFAULT '{}')
RETURNS integer
AS 'MODULE_PATHNAME', 'mm_dishonor_decay'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.dishonor_decay IS
    'stacks left after elapsed: one stack expires per full stack_duration';

-- @access public
CREATE FUNCTION mm.dishonor_penalty(reason text, config jsonb DEFAULT '{}')
RETURNS integer
AS 'MODULE_PATHNAME', 'mm_dishonor_penalty'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.dishonor_penalty IS
    'stacks of dishonor a reason adds (config "penalties"); unknown reasons are an error';

-- @access public
CREATE FUNCTION mm.dishonor_apply(stacks integer, stacks_at timestamptz, timeout_until timestamptz,
                                  reason text, at timestamptz, config jsonb DEFAULT '{}',
                                  OUT new_stacks integer, OUT new_stacks_at timestamptz,
                                  OUT new_timeout_until timestamptz)
RETURNS record
AS 'MODULE_PATHNAME', 'mm_dishonor_apply'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.dishonor_apply IS
    'applyDishonor on a player''s state (stacks counted at stacks_at, NULL: at "at"; end of the timeout, NULL: none): the state after the penalty at "at"';

-- @access public
CREATE FUNCTION mm.dishonor_current(stacks integer, stacks_at timestamptz, at timestamptz,
                                    config jsonb DEFAULT '{}')
RETURNS integer
AS 'MODULE_PATHNAME', 'mm_dishonor_current'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.dishonor_current IS
    'stacks left at "at" of stacks counted at stacks_at (no decay before stacks_at)';

-- @access service, admin; definer
CREATE FUNCTION mm.dishonor(player_id bigint, reason text, at timestamptz DEFAULT now(),
                            OUT stacks integer, OUT timeout_until timestamptz)
RETURNS record
LANGUAGE plpgsql VOLATILE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    cfg  jsonb := mm.dishonor_config();
    cur  mm.dishonor_players;
    next record;
BEGIN
    PERFORM mm._require_primary('mm.dishonor');
    IF player_id IS NULL OR reason IS NULL OR at IS NULL THEN
        RAISE EXCEPTION 'player_id, reason and at must not be NULL'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass the player, a reason from the dishonor config and the time.';
    END IF;
    -- check the reason before taking any lock
    PERFORM mm.dishonor_penalty(reason, cfg);
    SELECT * INTO cur FROM mm.dishonor_players d WHERE d.player_id = dishonor.player_id FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO mm.dishonor_players AS d (player_id, stacks, stacks_at, timeout_until, reason, updated_at)
        VALUES (dishonor.player_id, 0, at, NULL, dishonor.reason, at)
        ON CONFLICT ON CONSTRAINT dishonor_players_pkey DO NOTHING;
        SELECT * INTO cur FROM mm.dishonor_players d WHERE d.player_id = dishonor.player_id FOR UPDATE;
    END IF;
    next := mm.dishonor_apply(cur.stacks, cur.stacks_at, cur.timeout_until, reason, at, cfg);
    UPDATE mm.dishonor_players d
       SET stacks = next.new_stacks, stacks_at = next.new_stacks_at,
           timeout_until = next.new_timeout_until, reason = dishonor.reason, updated_at = at
     WHERE d.player_id = dishonor.player_id;
    stacks := next.new_stacks;
    timeout_until := next.new_timeout_until;
END;
$$;
COMMENT ON FUNCTION mm.dishonor IS
    'give a player dishonor for a reason at a time: adds the reason''s stacks and a timeout; returns the stacks and the end of the timeout';

-- @access service, admin, analyst; definer
CREATE FUNCTION mm.dishonor_statuses(player_ids bigint[], at timestamptz DEFAULT now())
RETURNS TABLE (player_id bigint, stacks integer, timeout_until timestamptz)
LANGUAGE sql STABLE
SET search_path = mm, pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT mm._null_arg('player_ids') WHERE dishonor_statuses.player_ids IS NULL;
    SELECT mm._null_arg('at') WHERE dishonor_statuses.at IS NULL;
    SELECT mm._check_list_length('player_ids', cardinality(dishonor_statuses.player_ids), 10000);
    SELECT p.id,
           coalesce(mm.dishonor_current(d.stacks, d.stacks_at, dishonor_statuses.at, mm.dishonor_config()), 0),
           CASE WHEN d.timeout_until > dishonor_statuses.at THEN d.timeout_until END
    FROM unnest(dishonor_statuses.player_ids) WITH ORDINALITY AS p(id, ord)
    LEFT JOIN mm.dishonor_players d ON d.player_id = p.id
    ORDER BY p.ord;
END;
COMMENT ON FUNCTION mm.dishonor_statuses IS
    'several players'' dishonor at a time: current (decayed) stacks and the end of the timeout (NULL when none); one row per element, in order';

-- @access service, admin, analyst; definer
CREATE FUNCTION mm.dishonor_status(player_id bigint, at timestamptz DEFAULT now())
RETURNS TABLE (stacks integer, timeout_until timestamptz)
LANGUAGE sql STABLE
SET search_path = mm, pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT mm._null_arg('player_id') WHERE dishonor_status.player_id IS NULL;
    SELECT mm._null_arg('at') WHERE dishonor_status.at IS NULL;
    SELECT s.stacks, s.timeout_until
    FROM mm.dishonor_statuses(ARRAY[dishonor_status.player_id], dishonor_status.at) s;
END;
COMMENT ON FUNCTION mm.dishonor_status IS
    'a player''s dishonor at a time: current (decayed) stacks and the end of the timeout (NULL when none); always one row';

-- @access admin; definer
CREATE FUNCTION mm.dishonor_clear(player_id bigint)
RETURNS boolean
LANGUAGE sql VOLATILE
SET search_path = mm, pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT mm._null_arg('player_id') WHERE dishonor_clear.player_id IS NULL;
    WITH gone AS (DELETE FROM mm.dishonor_players d WHERE d.player_id = dishonor_clear.player_id RETURNING 1)
    SELECT count(*) > 0 FROM gone;
END;
COMMENT ON FUNCTION mm.dishonor_clear IS
    'pardon a player: remove their stacks and timeout; true if they had any record';
