
-- Signals and server scoring: the Roblox weighted-sum model (Roblox's matchmaking documentation).

-- Signal functions: each maps attributes to a score in [0, 1].

-- @access public
CREATE FUNCTION mm.numeric_signal(a float8, b float8, max_relevant_difference float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_numeric_signal'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.numeric_signal IS
    'numerical signal: 1 - min(|a - b| / max_relevant_difference, 1)';

-- @access public
CREATE FUNCTION mm.ratio_signal(part float8, whole float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_ratio_signal'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.ratio_signal IS
    'ratio signal: part / whole clamped to [0, 1]; 0 when whole is 0 (an empty server)';

-- @access public
CREATE FUNCTION mm.age_signal(server_average_age float8, joining_player_age float8,
                              max_relevant_difference float8 DEFAULT 25)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_age_signal'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.age_signal IS
    'Roblox Age signal: 1 - min(25, |avg server age - joining age|) / 25 (the normalizing factor defaults to 25)';

-- @access public
CREATE FUNCTION mm.latency_signal(estimated_ping_ms float8, max_relevant_difference float8 DEFAULT 250)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_latency_signal'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.latency_signal IS
    'Roblox Latency signal: 1 - min(250, estimated ping ms) / 250';

-- @access public
CREATE FUNCTION mm.occupancy_signal(players int, capacity int)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_occupancy_signal'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.occupancy_signal IS
    'Roblox Occupancy signal: players in server / server capacity';

-- @access public
CREATE FUNCTION mm.play_history_signal(server_average float8, joining_player float8,
                                       max_relevant_difference float8 DEFAULT 4.6)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_play_history_signal'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.play_history_signal IS
    'Roblox Play History signal: 1 - min(1, |avg server play history - joining| / 4.6) (log10 minutes over 28 days)';

-- @access public
CREATE FUNCTION mm.friends_signal(preferred_players_in_server bigint)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_friends_signal'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.friends_signal IS
    'Roblox Friends signal: min(preferred players in server, 1) / 1';

-- Inlined by the planner into the calling query, so it costs what the same
-- expression written inline costs. An inlinable SQL function may not pin its
-- search_path (a SET clause stops inlining) and, being polymorphic, cannot
-- have a BEGIN ATOMIC body; it stays schema-safe because every name in the
-- body is qualified (the operator and both types), so the caller's
-- search_path never changes what it means. The body is strict (an operator
-- and two casts), which a STRICT function needs to be inlined.
-- @access public
CREATE FUNCTION mm.categorical_signal(a anyelement, b anyelement)
RETURNS float8
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT (a OPERATOR(pg_catalog.=) b)::pg_catalog.int4::pg_catalog.float8 $$;
COMMENT ON FUNCTION mm.categorical_signal IS
    'categorical equality signal: 1 when the values are equal, else 0 (server categorical custom signals); inlined by the planner';

-- Aggregates over a server's players.

-- @access public
CREATE FUNCTION mm.share_accum(state float8[], value anyelement, target anyelement)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'mm_share_accum'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.share_accum IS
    'transition function of mm.share: state {players with the target value, players}';

-- @access public
CREATE FUNCTION mm.share_combine(a float8[], b float8[])
RETURNS float8[]
AS 'MODULE_PATHNAME', 'mm_share_combine'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.share_combine IS
    'combine function of mm.share';

-- @access public
CREATE FUNCTION mm.share_final(state float8[])
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_share_final'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.share_final IS
    'final function of mm.share: the fraction of players with the target value (0 over no players)';

-- @access public
CREATE AGGREGATE mm.share(value anyelement, target anyelement) (
    SFUNC = mm.share_accum,
    STYPE = float8[],
    FINALFUNC = mm.share_final,
    COMBINEFUNC = mm.share_combine,
    INITCOND = '{0,0}',
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE mm.share IS
    'fraction of rows whose value equals the target (the joining player''s): language, device type, voice chat, clustering; 1 - share diversifies';

-- @access public
CREATE FUNCTION mm.weighted_score_accum(state float8[], score float8, weight float8)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'mm_weighted_score_accum'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.weighted_score_accum IS
    'transition function of mm.weighted_score: state {sum of weight * score, signals counted}';

-- @access public
CREATE FUNCTION mm.weighted_score_combine(a float8[], b float8[])
RETURNS float8[]
AS 'MODULE_PATHNAME', 'mm_weighted_score_combine'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.weighted_score_combine IS
    'combine function of mm.weighted_score';

-- @access public
CREATE FUNCTION mm.weighted_score_final(state float8[])
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_weighted_score_final'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.weighted_score_final IS
    'final function of mm.weighted_score: the server score';

-- @access public
CREATE AGGREGATE mm.weighted_score(score float8, weight float8) (
    SFUNC = mm.weighted_score_accum,
    STYPE = float8[],
    FINALFUNC = mm.weighted_score_final,
    COMBINEFUNC = mm.weighted_score_combine,
    INITCOND = '{0,0}',
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE mm.weighted_score IS
    'server score: sum of weight * signal score; weights >= 0, weight 0 drops the signal, scores in [0, 1]';

-- The placement engine.

-- @access public
CREATE FUNCTION mm.check_place_config(config jsonb)
RETURNS boolean
AS 'MODULE_PATHNAME', 'mm_check_place_config'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.check_place_config IS
    'validate a place configuration: true, or an error saying what is wrong';

-- @access public
CREATE FUNCTION mm.place_config(config jsonb)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'mm_place_config'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.place_config IS
    'a place configuration checked and complete, as mm.set_place_config stores it: every key, each signal given with its kind and every key its kind takes (defaults written out), numbers in their shortest round-trip form';

-- @access admin, analyst
CREATE TABLE mm.place_configs (
    place  text PRIMARY KEY,
    config jsonb NOT NULL CHECK (mm.check_place_config(config))
);
COMMENT ON TABLE mm.place_configs IS
    'matchmaking configuration per place: {"voice_chat": bool, "include_defaults": bool, "signals": {name: {kind, weight, ...}}}, complete, as mm.place_config returns it; places without a row use the Roblox default configuration';
SELECT pg_catalog.pg_extension_config_dump('mm.place_configs', '');

-- @access internal
CREATE SEQUENCE mm.server_id_seq;
COMMENT ON SEQUENCE mm.server_id_seq IS 'server ids of mm.servers';
SELECT pg_catalog.pg_extension_config_dump('mm.server_id_seq', '');

-- @access admin, analyst
CREATE TABLE mm.servers (
    server_id        bigint PRIMARY KEY DEFAULT nextval('mm.server_id_seq'),
    place            text NOT NULL,
    capacity         int NOT NULL CHECK (capacity > 0),
    attributes       jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(attributes) = 'object'),
    occupancy        int NOT NULL DEFAULT 0,
    stats            jsonb NOT NULL DEFAULT '{}',
    age_n            int NOT NULL DEFAULT 0,
    age_sum          float8 NOT NULL DEFAULT 0,
    play_history_n   int NOT NULL DEFAULT 0,
    play_history_sum float8 NOT NULL DEFAULT 0,
    CONSTRAINT servers_not_over_capacity CHECK (occupancy >= 0 AND occupancy <= capacity)
);
ALTER SEQUENCE mm.server_id_seq OWNED BY mm.servers.server_id;
CREATE INDEX servers_place_idx ON mm.servers (place);
COMMENT ON TABLE mm.servers IS
    'live servers of each place: capacity, server attributes, and the occupancy and player-attribute aggregates that mm.refresh_servers maintains';
COMMENT ON INDEX mm.servers_place_idx IS 'the servers of a place (mm.place_player reads them)';
SELECT pg_catalog.pg_extension_config_dump('mm.servers', '');

-- @access admin, analyst
CREATE TABLE mm.server_players (
    player_id  bigint PRIMARY KEY,
    server_id  bigint NOT NULL REFERENCES mm.servers ON DELETE CASCADE,
    attributes jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(attributes) = 'object'),
    joined_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX server_players_server_idx ON mm.server_players (server_id);
COMMENT ON TABLE mm.server_players IS
    'players on servers with their attributes (a player is on at most one server)';
COMMENT ON INDEX mm.server_players_server_idx IS 'the players of a server';
SELECT pg_catalog.pg_extension_config_dump('mm.server_players', '');

-- @access service, admin; definer
CREATE FUNCTION mm.refresh_servers(server_ids bigint[])
RETURNS int
LANGUAGE sql VOLATILE
SET search_path = mm, pg_catalog, pg_temp
AS $$
SELECT mm._null_arg('server_ids') WHERE server_ids IS NULL;
WITH ids AS (
    SELECT DISTINCT i AS server_id FROM unnest(server_ids) i
), e AS (
    SELECT p.server_id, a.key, a.value
    FROM mm.server_players p
    JOIN ids ON ids.server_id = p.server_id
    CROSS JOIN LATERAL pg_catalog.jsonb_each(p.attributes) a
), num AS (
    SELECT server_id, key,
           pg_catalog.jsonb_build_object('n', count(*), 'sum', sum(value::float8),
                                         'min', min(value::float8), 'max', max(value::float8)) AS o
    FROM e WHERE pg_catalog.jsonb_typeof(value) = 'number'
    GROUP BY server_id, key
), cat AS (
    SELECT server_id, key, pg_catalog.jsonb_build_object('values', pg_catalog.jsonb_object_agg(v, c)) AS o
    FROM (SELECT server_id, key, value #>> '{}' AS v, count(*) AS c
          FROM e WHERE pg_catalog.jsonb_typeof(value) IN ('string', 'boolean')
          GROUP BY server_id, key, value #>> '{}') x
    GROUP BY server_id, key
), per AS (
    SELECT server_id,
           pg_catalog.jsonb_object_agg(key, COALESCE(num.o, '{}') || COALESCE(cat.o, '{}')) AS stats
    FROM num FULL JOIN cat USING (server_id, key)
    GROUP BY server_id
), cnt AS (
    SELECT p.server_id, count(*)::int AS n
    FROM mm.server_players p JOIN ids ON ids.server_id = p.server_id
    GROUP BY p.server_id
), upd AS (
    UPDATE mm.servers s
    SET occupancy = COALESCE(cnt.n, 0),
        stats = COALESCE(per.stats, '{}'),
        age_n = COALESCE((per.stats -> 'age' ->> 'n')::int, 0),
        age_sum = COALESCE((per.stats -> 'age' ->> 'sum')::float8, 0),
        play_history_n = COALESCE((per.stats -> 'play_history' ->> 'n')::int, 0),
        play_history_sum = COALESCE((per.stats -> 'play_history' ->> 'sum')::float8, 0)
    FROM ids LEFT JOIN cnt ON cnt.server_id = ids.server_id
             LEFT JOIN per ON per.server_id = ids.server_id
    WHERE s.server_id = ids.server_id
    RETURNING 1
)
SELECT count(*)::int FROM upd
$$;
COMMENT ON FUNCTION mm.refresh_servers IS
    'recompute occupancy and player-attribute aggregates of the given servers from mm.server_players; returns the number of servers updated';

-- @access service, admin; definer
CREATE FUNCTION mm.refresh_servers(place text)
RETURNS int
LANGUAGE sql VOLATILE
SET search_path = mm, pg_catalog, pg_temp
AS $$
SELECT mm._null_arg('place') WHERE place IS NULL;
SELECT mm.refresh_servers(ARRAY(SELECT s.server_id FROM mm.servers s WHERE s.place = refresh_servers.place))
$$;
COMMENT ON FUNCTION mm.refresh_servers IS
    'recompute occupancy and aggregates of every server of a place (after writing mm.server_players directly)';

-- @access service, admin; definer
CREATE FUNCTION mm.add_server(place text, capacity int, attributes jsonb DEFAULT '{}')
RETURNS bigint
LANGUAGE plpgsql VOLATILE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    id bigint;
BEGIN
    IF place IS NULL THEN PERFORM mm._null_arg('place'); END IF;
    IF capacity IS NULL THEN PERFORM mm._null_arg('capacity'); END IF;
    IF attributes IS NULL THEN PERFORM mm._null_arg('attributes'); END IF;
    IF capacity <= 0 THEN
        RAISE EXCEPTION 'capacity must be positive'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The value is %s.', capacity),
                  HINT = 'A server holds at least one player.';
    END IF;
    IF jsonb_typeof(attributes) <> 'object' THEN
        RAISE EXCEPTION 'server attributes must be a JSON object'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The value is %s.', attributes),
                  HINT = 'For example {"region": "eu", "GameMode": "Survival"}.';
    END IF;
    -- a new place's name follows the rule of every name (a place of 0.1.0
    -- keeps its name)
    IF NOT EXISTS (SELECT FROM mm.servers s WHERE s.place = add_server.place)
       AND NOT EXISTS (SELECT FROM mm.place_configs c WHERE c.place = add_server.place) THEN
        PERFORM mm._check_name('place name', place);
    END IF;
    INSERT INTO mm.servers AS s (place, capacity, attributes)
    VALUES (add_server.place, add_server.capacity, add_server.attributes)
    RETURNING s.server_id INTO id;
    RETURN id;
END
$$;
COMMENT ON FUNCTION mm.add_server IS
    'start a server of a place with a capacity and server attributes; returns its id';

-- @access admin; definer
CREATE FUNCTION mm.set_place_config(place text, config jsonb)
RETURNS void
LANGUAGE sql VOLATILE
SET search_path = mm, pg_catalog, pg_temp
AS $$
SELECT mm._null_arg('place') WHERE place IS NULL;
SELECT mm._null_arg('config') WHERE config IS NULL;
-- a new place's name follows the rule of every name (a place of 0.1.0
-- keeps its name)
SELECT mm._check_name('place name', place)
WHERE NOT EXISTS (SELECT FROM mm.servers s WHERE s.place = set_place_config.place)
  AND NOT EXISTS (SELECT FROM mm.place_configs c WHERE c.place = set_place_config.place);
INSERT INTO mm.place_configs (place, config)
VALUES (set_place_config.place, mm.place_config(set_place_config.config))
ON CONFLICT ON CONSTRAINT place_configs_pkey DO UPDATE SET config = EXCLUDED.config
$$;
COMMENT ON FUNCTION mm.set_place_config IS
    'set the matchmaking configuration of a place, the whole config (validated, errors say what is wrong; stored complete, as mm.place_config returns it)';

-- @access service, admin, analyst; definer
CREATE FUNCTION mm.rank_servers(place text, player jsonb, preferred bigint[] DEFAULT '{}')
RETURNS TABLE (server_id bigint, score float8, signals text[], signal_scores float8[])
AS 'MODULE_PATHNAME', 'mm_rank_servers'
LANGUAGE C STABLE PARALLEL RESTRICTED ROWS 1000;
COMMENT ON FUNCTION mm.rank_servers IS
    'every non-full server of a place scored for a joining player (attributes as jsonb, preferred = friends or same-IP player ids), best first, with each signal''s score';

-- @access public
CREATE FUNCTION mm.server_breakdown(signals text[], signal_scores float8[])
RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF pg_catalog.cardinality(signals) <> pg_catalog.cardinality(signal_scores) THEN
        RAISE EXCEPTION 'signals and signal_scores must have the same length'
            USING ERRCODE = 'array_subscript_error',
                  DETAIL = pg_catalog.format('signals has %s elements, signal_scores has %s.',
                                             pg_catalog.cardinality(signals),
                                             pg_catalog.cardinality(signal_scores)),
                  HINT = 'Pass the signals and signal_scores of one mm.rank_servers row.';
    END IF;
    IF EXISTS (SELECT 1 FROM pg_catalog.unnest(signal_scores) AS u(s)
               WHERE u.s IS NULL OR u.s IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8)) THEN
        RAISE EXCEPTION 'signal scores must be finite and not NULL'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = pg_catalog.format('The scores are %s.', signal_scores),
                  HINT = 'Pass the signals and signal_scores of one mm.rank_servers row.';
    END IF;
    RETURN (SELECT COALESCE(pg_catalog.jsonb_object_agg(u.n, u.s), '{}')
            FROM unnest(signals, signal_scores) AS u(n, s));  -- ROWS FROM form: not qualifiable
END
$$;
COMMENT ON FUNCTION mm.server_breakdown IS
    'the per-signal breakdown of a rank_servers row as a jsonb object {signal: score}';

-- @access service, admin; definer
CREATE FUNCTION mm.place_player(server_id bigint, player_id bigint, player jsonb DEFAULT '{}')
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF server_id IS NULL THEN PERFORM mm._null_arg('server_id'); END IF;
    IF player_id IS NULL THEN PERFORM mm._null_arg('player_id'); END IF;
    IF player IS NULL THEN PERFORM mm._null_arg('player'); END IF;
    IF jsonb_typeof(player) <> 'object' THEN
        RAISE EXCEPTION 'player attributes must be a JSON object'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The value is a JSON %s.', jsonb_typeof(player)),
                  HINT = 'For example {"age": 20, "language": "en"}.';
    END IF;
    -- Take a slot under the server row's lock: a concurrent joiner waits,
    -- then re-checks occupancy < capacity on the row it waited for.
    UPDATE mm.servers s SET occupancy = s.occupancy + 1
    WHERE s.server_id = place_player.server_id AND s.occupancy < s.capacity;
    IF NOT FOUND THEN
        IF NOT EXISTS (SELECT 1 FROM mm.servers s WHERE s.server_id = place_player.server_id) THEN
            RAISE EXCEPTION 'server % does not exist', place_player.server_id
                USING ERRCODE = 'undefined_object', HINT = 'Start it with mm.add_server.';
        END IF;
        RAISE EXCEPTION 'server % is full', place_player.server_id
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'Rank the servers with mm.rank_servers, or use mm.join_server.';
    END IF;
    BEGIN
        INSERT INTO mm.server_players (player_id, server_id, attributes)
        VALUES (place_player.player_id, place_player.server_id, place_player.player);
    EXCEPTION WHEN unique_violation THEN
        RAISE EXCEPTION 'player % is already on a server', place_player.player_id
            USING ERRCODE = 'unique_violation',
                  DETAIL = format('Server %s.', (SELECT p.server_id FROM mm.server_players p
                                                 WHERE p.player_id = place_player.player_id)),
                  HINT = 'Call mm.leave_server first.';
    END;
    -- A new statement, so a new snapshot: it sees every committed player.
    PERFORM mm.refresh_servers(ARRAY[place_player.server_id]);
END
$$;
COMMENT ON FUNCTION mm.place_player IS
    'put a player on a given server if it has a free slot (errors when full)';

-- @access service, admin; definer
CREATE FUNCTION mm.join_server(place text, player_id bigint, player jsonb DEFAULT '{}',
                               preferred bigint[] DEFAULT '{}')
RETURNS bigint
LANGUAGE plpgsql VOLATILE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    candidate bigint;
    taken bigint;
BEGIN
    IF place IS NULL THEN PERFORM mm._null_arg('place'); END IF;
    IF player_id IS NULL THEN PERFORM mm._null_arg('player_id'); END IF;
    IF player IS NULL THEN PERFORM mm._null_arg('player'); END IF;
    IF preferred IS NULL THEN PERFORM mm._null_arg('preferred'); END IF;
    PERFORM mm._require_primary('mm.join_server');
    IF EXISTS (SELECT 1 FROM mm.server_players p WHERE p.player_id = join_server.player_id) THEN
        RAISE EXCEPTION 'player % is already on a server', join_server.player_id
            USING ERRCODE = 'unique_violation',
                  DETAIL = format('Server %s.', (SELECT p.server_id FROM mm.server_players p
                                                 WHERE p.player_id = join_server.player_id)),
                  HINT = 'Call mm.leave_server first.';
    END IF;
    FOR candidate IN
        SELECT r.server_id FROM mm.rank_servers(join_server.place, join_server.player,
                                                join_server.preferred) r
    LOOP
        -- The best server that still has a slot once we hold its row lock.
        UPDATE mm.servers s SET occupancy = s.occupancy + 1
        WHERE s.server_id = candidate AND s.occupancy < s.capacity
        RETURNING s.server_id INTO taken;
        IF taken IS NOT NULL THEN
            INSERT INTO mm.server_players (player_id, server_id, attributes)
            VALUES (join_server.player_id, taken, join_server.player);
            PERFORM mm.refresh_servers(ARRAY[taken]);
            RETURN taken;
        END IF;
    END LOOP;
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION mm.join_server IS
    'put a joining player on the best-scoring server of a place with a free slot, atomically; NULL when every server is full';

-- @access service, admin; definer
CREATE FUNCTION mm.leave_server(player_id bigint)
RETURNS boolean
LANGUAGE plpgsql VOLATILE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    sid bigint;
BEGIN
    IF player_id IS NULL THEN PERFORM mm._null_arg('player_id'); END IF;
    SELECT p.server_id INTO sid FROM mm.server_players p WHERE p.player_id = leave_server.player_id;
    IF sid IS NULL THEN
        RETURN false;
    END IF;
    -- Lock the server row first, so the refresh below sees concurrent joins.
    PERFORM 1 FROM mm.servers s WHERE s.server_id = sid FOR UPDATE;
    DELETE FROM mm.server_players p WHERE p.player_id = leave_server.player_id AND p.server_id = sid;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    PERFORM mm.refresh_servers(ARRAY[sid]);
    RETURN true;
END
$$;
COMMENT ON FUNCTION mm.leave_server IS
    'take a player off their server; false when they were on none';

-- @access service, admin, analyst; definer
CREATE FUNCTION mm.get_server_attribute(server_id bigint, name text)
RETURNS jsonb
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    attrs jsonb;
BEGIN
    IF server_id IS NULL THEN PERFORM mm._null_arg('server_id'); END IF;
    IF name IS NULL THEN PERFORM mm._null_arg('name'); END IF;
    SELECT s.attributes INTO attrs FROM mm.servers s WHERE s.server_id = get_server_attribute.server_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'server % does not exist', get_server_attribute.server_id
            USING ERRCODE = 'undefined_object', HINT = 'Start it with mm.add_server.';
    END IF;
    IF NOT attrs ? name THEN
        RAISE EXCEPTION 'server % has no attribute "%"', get_server_attribute.server_id, name
            USING ERRCODE = 'undefined_object',
                  DETAIL = format('Its attributes are: %s.',
                                  COALESCE((SELECT string_agg(k, ', ' ORDER BY k) FROM jsonb_object_keys(attrs) k), 'none')),
                  HINT = 'Set it with mm.set_server_attribute.';
    END IF;
    RETURN attrs -> name;
END
$$;
COMMENT ON FUNCTION mm.get_server_attribute IS
    'a server attribute''s value (MatchmakingService:GetServerAttribute); errors when unset';

-- @access service, admin; definer
CREATE FUNCTION mm.set_server_attribute(server_id bigint, name text, value jsonb)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF server_id IS NULL THEN PERFORM mm._null_arg('server_id'); END IF;
    IF name IS NULL THEN PERFORM mm._null_arg('name'); END IF;
    IF value IS NULL THEN PERFORM mm._null_arg('value'); END IF;
    IF jsonb_typeof(value) NOT IN ('string', 'number', 'boolean') THEN
        RAISE EXCEPTION 'server attribute "%" must be a string, a number or a boolean', name
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The value is %s.', value);
    END IF;
    UPDATE mm.servers s SET attributes = s.attributes || jsonb_build_object(name, value)
    WHERE s.server_id = set_server_attribute.server_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'server % does not exist', set_server_attribute.server_id
            USING ERRCODE = 'undefined_object', HINT = 'Start it with mm.add_server.';
    END IF;
END
$$;
COMMENT ON FUNCTION mm.set_server_attribute IS
    'set a server attribute (MatchmakingService:SetServerAttribute): a string, number or boolean';

-- Placement, finished: remove a server, update a seated player, join a
-- party, the weights of a place's signals and a weighted breakdown.

-- @access service, admin; definer
CREATE FUNCTION mm.remove_server(server_id bigint)
RETURNS boolean
LANGUAGE plpgsql VOLATILE
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF server_id IS NULL THEN PERFORM mm._null_arg('server_id'); END IF;
    -- Takes the server row's lock, as joins do: a joiner waiting on it then
    -- finds the server gone and moves on to the next one. Its players go
    -- with it (mm.server_players references it ON DELETE CASCADE).
    DELETE FROM mm.servers s WHERE s.server_id = remove_server.server_id;
    RETURN FOUND;
END
$$;
COMMENT ON FUNCTION mm.remove_server IS
    'shut a server down: remove it and its players; false when there was none';

-- @access service, admin; definer
CREATE FUNCTION mm.set_player_attributes(player_id bigint, attributes jsonb)
RETURNS boolean
LANGUAGE plpgsql VOLATILE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    sid bigint;
BEGIN
    IF player_id IS NULL THEN PERFORM mm._null_arg('player_id'); END IF;
    IF attributes IS NULL THEN PERFORM mm._null_arg('attributes'); END IF;
    IF pg_catalog.jsonb_typeof(attributes) <> 'object' THEN
        RAISE EXCEPTION 'player attributes must be a JSON object'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The value is %s.', attributes),
                  HINT = 'For example {"age": 13, "language": "en"}; null removes an attribute.';
    END IF;
    SELECT p.server_id INTO sid FROM mm.server_players p
    WHERE p.player_id = set_player_attributes.player_id;
    IF sid IS NULL THEN
        RETURN false;
    END IF;
    -- Lock the server row first (as joins and leaves do), so the refresh
    -- below sees every committed player of the server.
    PERFORM 1 FROM mm.servers s WHERE s.server_id = sid FOR UPDATE;
    UPDATE mm.server_players p
    SET attributes = (p.attributes || set_player_attributes.attributes)
                     - ARRAY(SELECT a.key FROM pg_catalog.jsonb_each(set_player_attributes.attributes) a
                             WHERE a.value = 'null'::jsonb)
    WHERE p.player_id = set_player_attributes.player_id AND p.server_id = sid;
    IF NOT FOUND THEN
        -- left (or was moved) meanwhile
        RETURN false;
    END IF;
    PERFORM mm.refresh_servers(ARRAY[sid]);
    RETURN true;
END
$$;
COMMENT ON FUNCTION mm.set_player_attributes IS
    'update a seated player''s attributes: the given keys replace theirs, null removes one; the server''s aggregates follow; false when the player is on no server';

-- @access service, admin; definer
CREATE FUNCTION mm.join_party(place text, player_ids bigint[], players jsonb[] DEFAULT NULL,
                              preferred bigint[] DEFAULT '{}')
RETURNS bigint
LANGUAGE plpgsql VOLATILE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    n int := coalesce(pg_catalog.cardinality(player_ids), 0);
    attrs jsonb[] := coalesce(players, pg_catalog.array_fill('{}'::jsonb, ARRAY[n]));
    seated text;
    candidate bigint;
    taken bigint;
BEGIN
    PERFORM mm._require_primary('mm.join_party');
    IF place IS NULL OR player_ids IS NULL OR preferred IS NULL THEN
        RAISE EXCEPTION '% must not be NULL',
            CASE WHEN place IS NULL THEN 'place' WHEN player_ids IS NULL THEN 'player_ids' ELSE 'preferred' END
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass the place, the party''s player ids and ''{}'' for no preferred players.';
    END IF;
    IF n = 0 THEN
        RAISE EXCEPTION 'a party must have at least one player'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Pass the party''s player ids, such as ''{7, 8}''.';
    END IF;
    IF pg_catalog.array_position(player_ids, NULL) IS NOT NULL
       OR pg_catalog.array_position(attrs, NULL) IS NOT NULL THEN
        RAISE EXCEPTION '% must not contain NULL elements',
            CASE WHEN pg_catalog.array_position(player_ids, NULL) IS NOT NULL THEN 'player_ids' ELSE 'players' END
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Give every player an id, and ''{}'' for a player without attributes.';
    END IF;
    IF pg_catalog.cardinality(attrs) <> n THEN
        RAISE EXCEPTION 'players must have one element per player id'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('There are %s player ids and %s attribute objects.', n, pg_catalog.cardinality(attrs)),
                  HINT = 'players[i] holds the attributes of player_ids[i]; pass NULL for none.';
    END IF;
    IF (SELECT count(DISTINCT i) FROM pg_catalog.unnest(player_ids) i) <> n THEN
        RAISE EXCEPTION 'player_ids must not repeat a player'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The ids are %s.', player_ids);
    END IF;
    SELECT string_agg(format('%s (server %s)', p.player_id, p.server_id), ', ' ORDER BY p.player_id)
    INTO seated FROM mm.server_players p WHERE p.player_id = ANY (player_ids);
    IF seated IS NOT NULL THEN
        RAISE EXCEPTION 'players of the party are already on a server'
            USING ERRCODE = 'unique_violation',
                  DETAIL = format('Seated: %s.', seated),
                  HINT = 'Call mm.leave_server for them first.';
    END IF;
    -- ranked for the party's first player (its leader)
    FOR candidate IN
        SELECT r.server_id FROM mm.rank_servers(join_party.place, attrs[1], join_party.preferred) r
    LOOP
        -- the best server with a slot for everyone, once we hold its row lock
        UPDATE mm.servers s SET occupancy = s.occupancy + n
        WHERE s.server_id = candidate AND s.occupancy + n <= s.capacity
        RETURNING s.server_id INTO taken;
        IF taken IS NOT NULL THEN
            BEGIN
                INSERT INTO mm.server_players (player_id, server_id, attributes)
                SELECT u.id, taken, u.a FROM unnest(player_ids, attrs) AS u(id, a);
            EXCEPTION WHEN unique_violation THEN
                RAISE EXCEPTION 'players of the party joined a server meanwhile'
                    USING ERRCODE = 'unique_violation',
                          HINT = 'Nothing was changed; call mm.join_party again.';
            END;
            PERFORM mm.refresh_servers(ARRAY[taken]);
            RETURN taken;
        END IF;
    END LOOP;
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION mm.join_party IS
    'put a party on the best server (ranked for its first player) with a free slot for every member, all or none; NULL when no server has room';

-- @access service, admin, analyst; definer
CREATE FUNCTION mm.place_signals(place text)
RETURNS TABLE(signal text, kind text, weight float8)
AS 'MODULE_PATHNAME', 'mm_place_signals'
LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION mm.place_signals IS
    'the signals a place scores servers with (its config or the Roblox default), weight-0 signals left out, in rank_servers'' order';

-- @access service, admin, analyst; definer
CREATE FUNCTION mm.server_breakdown_weighted(place text, signals text[], signal_scores float8[])
RETURNS jsonb
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    result jsonb;
    unknown text;
BEGIN
    IF place IS NULL THEN PERFORM mm._null_arg('place'); END IF;
    IF signals IS NULL THEN PERFORM mm._null_arg('signals'); END IF;
    IF signal_scores IS NULL THEN PERFORM mm._null_arg('signal_scores'); END IF;
    IF coalesce(pg_catalog.cardinality(signals), 0) <> coalesce(pg_catalog.cardinality(signal_scores), 0) THEN
        RAISE EXCEPTION 'signals and signal_scores must have the same length'
            USING ERRCODE = 'array_subscript_error',
                  DETAIL = format('There are %s signals and %s scores.',
                                  pg_catalog.cardinality(signals), pg_catalog.cardinality(signal_scores)),
                  HINT = 'Pass the signals and signal_scores columns of one mm.rank_servers row.';
    END IF;
    IF pg_catalog.array_position(signals, NULL) IS NOT NULL
       OR pg_catalog.array_position(signal_scores, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'signals and signal_scores must not contain NULL elements'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF EXISTS (SELECT 1 FROM pg_catalog.unnest(signal_scores) x
               WHERE NOT (x >= 0 AND x <= 1)) THEN
        RAISE EXCEPTION 'signal scores must be between 0 and 1'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The scores are %s.', signal_scores),
                  HINT = 'Pass the signal_scores column of one mm.rank_servers row.';
    END IF;
    SELECT string_agg(u.n, ', ') INTO unknown
    FROM pg_catalog.unnest(signals) u(n)
    WHERE NOT EXISTS (SELECT 1 FROM mm.place_signals(place) w WHERE w.signal = u.n);
    IF unknown IS NOT NULL THEN
        RAISE EXCEPTION 'place "%" does not score with %', place, unknown
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'See the place''s signals with mm.place_signals.';
    END IF;
    SELECT coalesce(pg_catalog.jsonb_object_agg(u.n, pg_catalog.jsonb_build_object(
               'score', u.s, 'weight', w.weight, 'weighted', u.s * w.weight)), '{}')
    INTO result
    FROM unnest(signals, signal_scores) AS u(n, s)
    JOIN mm.place_signals(place) w ON w.signal = u.n;
    RETURN result;
END
$$;
COMMENT ON FUNCTION mm.server_breakdown_weighted IS
    'the breakdown of a rank_servers row with each signal''s weight: {signal: {"score", "weight", "weighted"}}; the weighted values sum to the row''s score';
