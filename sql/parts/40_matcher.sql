-- Roster matcher (seed 003, GW2 PvP matchmaking): queue tables, enqueue and
-- leave, the matcher over any query, transactional ticks for pg_cron.

-- Queue tables. All are owned by the extension and dumped with the data
-- (pg_extension_config_dump), sequences too.

CREATE SEQUENCE mm.queue_id_seq;
COMMENT ON SEQUENCE mm.queue_id_seq IS 'ids of mm.queue';
CREATE TABLE mm.queue (
    queue_id   int PRIMARY KEY DEFAULT nextval('mm.queue_id_seq'),
    name       text NOT NULL UNIQUE CHECK (name <> ''),
    config     jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now()
);
ALTER SEQUENCE mm.queue_id_seq OWNED BY mm.queue.queue_id;
COMMENT ON TABLE mm.queue IS 'matchmaking queues and their matcher configuration (see mm.matcher_config)';

CREATE SEQUENCE mm.roster_id_seq;
COMMENT ON SEQUENCE mm.roster_id_seq IS 'ids of rosters (parties), waiting or matched';
CREATE SEQUENCE mm.roster_position_seq;
COMMENT ON SEQUENCE mm.roster_position_seq IS 'queue order of waiting rosters; a failed target takes a new, last position';
CREATE TABLE mm.roster (
    roster_id     bigint PRIMARY KEY DEFAULT nextval('mm.roster_id_seq'),
    queue_id      int NOT NULL REFERENCES mm.queue ON DELETE CASCADE,
    position      bigint NOT NULL DEFAULT nextval('mm.roster_position_seq'),
    players       bigint[] NOT NULL,
    rating        float8 NOT NULL,
    deviation     float8 NOT NULL DEFAULT 0,
    rank          float8 NOT NULL DEFAULT 0,
    ladder_points float8 NOT NULL DEFAULT 0,
    dishonor      int NOT NULL DEFAULT 0 CHECK (dishonor >= 0),
    professions   text[] NOT NULL DEFAULT '{}',
    joined_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX roster_queue_position_idx ON mm.roster (queue_id, position);
COMMENT ON TABLE mm.roster IS 'rosters (parties) waiting in a queue; a matched roster moves to mm.match_roster';
COMMENT ON INDEX mm.roster_queue_position_idx IS 'a queue in queue order';

CREATE TABLE mm.queued_player (
    player_id bigint PRIMARY KEY,
    roster_id bigint NOT NULL
);
CREATE INDEX queued_player_roster_idx ON mm.queued_player (roster_id);
COMMENT ON TABLE mm.queued_player IS 'the players of waiting rosters: a player is in at most one waiting roster across all queues (its primary key)';
COMMENT ON INDEX mm.queued_player_roster_idx IS 'players of a roster';

-- Deleting rosters (leave, tick, drop_queue, or by hand) frees their
-- players. One statement-level trigger rather than a cascading foreign key:
-- a tick deletes thousands of rosters at once, and per-row cascades cost
-- more than the matching.
CREATE FUNCTION mm._roster_deleted()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    -- IN, not a join: the planner then sorts or hashes the deleted rosters
    -- (few), not the players of every queue (many)
    DELETE FROM mm.queued_player qp WHERE qp.roster_id IN (SELECT d.roster_id FROM deleted d);
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION mm._roster_deleted() IS 'internal trigger: free the players of deleted rosters';
CREATE TRIGGER roster_deleted AFTER DELETE ON mm.roster
    REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION mm._roster_deleted();

CREATE SEQUENCE mm.match_id_seq;
COMMENT ON SEQUENCE mm.match_id_seq IS 'ids of mm.match';
CREATE SEQUENCE mm.tick_id_seq;
COMMENT ON SEQUENCE mm.tick_id_seq IS 'ids of mm.tick_log';
CREATE TABLE mm.match (
    match_id      bigint PRIMARY KEY DEFAULT nextval('mm.match_id_seq'),
    queue_id      int NOT NULL REFERENCES mm.queue ON DELETE CASCADE,
    tick_id       bigint NOT NULL,
    created_at    timestamptz NOT NULL,
    prediction    float8 NOT NULL,
    red_odds      float8 NOT NULL,
    blue_odds     float8 NOT NULL,
    rating_spread float8 NOT NULL
);
ALTER SEQUENCE mm.match_id_seq OWNED BY mm.match.match_id;
CREATE INDEX match_queue_idx ON mm.match (queue_id, created_at);
COMMENT ON TABLE mm.match IS 'matches made by ticks: prediction in [-1, 1] (-1 red dominates), each team''s odds of victory, rating spread (max - min effective rating of its rosters)';
COMMENT ON INDEX mm.match_queue_idx IS 'matches of a queue by time';

CREATE TABLE mm.match_roster (
    match_id      bigint NOT NULL,
    roster_id     bigint NOT NULL UNIQUE,
    team          text NOT NULL CHECK (team IN ('red', 'blue')),
    players       bigint[] NOT NULL,
    rating        float8 NOT NULL,
    deviation     float8 NOT NULL,
    rank          float8 NOT NULL,
    ladder_points float8 NOT NULL,
    dishonor      int NOT NULL,
    professions   text[] NOT NULL,
    joined_at     timestamptz NOT NULL,
    waited        interval NOT NULL,
    PRIMARY KEY (match_id, roster_id)
);
COMMENT ON TABLE mm.match_roster IS 'the rosters of each match, their team and their data when matched; a roster is matched at most once';

-- Deleting matches (drop_queue, or by hand) deletes their rosters; a
-- statement-level trigger for the same reason as above.
CREATE FUNCTION mm._match_deleted()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    DELETE FROM mm.match_roster mr WHERE mr.match_id IN (SELECT d.match_id FROM deleted d);
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION mm._match_deleted() IS 'internal trigger: delete the rosters of deleted matches';
CREATE TRIGGER match_deleted AFTER DELETE ON mm.match
    REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION mm._match_deleted();

CREATE TABLE mm.tick_log (
    tick_id            bigint PRIMARY KEY,
    queue_id           int NOT NULL REFERENCES mm.queue ON DELETE CASCADE,
    at                 timestamptz NOT NULL,
    started_at         timestamptz NOT NULL,
    duration_ms        float8 NOT NULL,
    rosters_seen       int NOT NULL,
    matches_made       int NOT NULL,
    targets_failed     int NOT NULL,
    oldest_wait        interval NOT NULL,
    mean_rating_spread float8
);
CREATE INDEX tick_log_queue_idx ON mm.tick_log (queue_id, at);
COMMENT ON TABLE mm.tick_log IS 'one row per mm.tick: duration, rosters seen (claimed), matches made, failed targets, oldest wait';
COMMENT ON INDEX mm.tick_log_queue_idx IS 'ticks of a queue by time';

SELECT pg_catalog.pg_extension_config_dump('mm.queue', '');
SELECT pg_catalog.pg_extension_config_dump('mm.queue_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('mm.roster', '');
SELECT pg_catalog.pg_extension_config_dump('mm.roster_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('mm.roster_position_seq', '');
SELECT pg_catalog.pg_extension_config_dump('mm.queued_player', '');
SELECT pg_catalog.pg_extension_config_dump('mm.match', '');
SELECT pg_catalog.pg_extension_config_dump('mm.match_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('mm.match_roster', '');
SELECT pg_catalog.pg_extension_config_dump('mm.tick_log', '');
SELECT pg_catalog.pg_extension_config_dump('mm.tick_id_seq', '');

-- The matcher in C.

CREATE FUNCTION mm.matcher_config(config jsonb DEFAULT '{}')
RETURNS jsonb
AS 'MODULE_PATHNAME', 'mm_matcher_config'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.matcher_config(jsonb) IS
    'check a queue config and return it with every default filled in';

CREATE FUNCTION mm.matcher_padding(config jsonb, waited float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_matcher_padding_sql'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.matcher_padding(jsonb, float8) IS
    'rating padding added on each side of a roster''s range after waiting "waited" seconds';

CREATE FUNCTION mm.match_rosters(rosters text, config jsonb DEFAULT '{}', at timestamptz DEFAULT now())
RETURNS TABLE (match_no int, roster_id bigint, team text, prediction float8, odds float8, rating_spread float8)
AS 'MODULE_PATHNAME', 'mm_match_rosters'
LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION mm.match_rosters(text, jsonb, timestamptz) IS
    'run the GW2 roster matcher over the rows of a query (roster_id, players, rating; optional deviation, rank, ladder_points, dishonor, professions, joined_at) in the order it returns them';

CREATE FUNCTION mm._match_rosters(rosters text, config jsonb, at timestamptz, naive bool DEFAULT false)
RETURNS TABLE (match_no int, roster_id bigint, team text, prediction float8, odds float8, rating_spread float8)
AS 'MODULE_PATHNAME', 'mm_match_rosters_internal'
LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION mm._match_rosters(text, jsonb, timestamptz, bool) IS
    'internal (mm.tick and tests): mm.match_rosters plus failed targets (team failed) and a last row (team seen: match_no rosters read, rating_spread oldest wait in seconds); naive scans the queue for potentials as the seed does';

-- Queues

CREATE FUNCTION mm.create_queue(name text, config jsonb DEFAULT '{}')
RETURNS void
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF name IS NULL OR name = '' THEN
        RAISE EXCEPTION 'queue name must not be empty'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Give the queue a name, such as ''ranked''.';
    END IF;
    IF config IS NULL THEN
        RAISE EXCEPTION 'queue config must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass ''{}'' for the defaults.';
    END IF;
    PERFORM mm.matcher_config(config);
    INSERT INTO mm.queue (name, config) VALUES (create_queue.name, create_queue.config);
EXCEPTION WHEN unique_violation THEN
    RAISE EXCEPTION 'queue "%" already exists', name
        USING ERRCODE = 'duplicate_object',
              HINT = 'Pick another name, or change its config with mm.alter_queue.';
END
$$;
COMMENT ON FUNCTION mm.create_queue(text, jsonb) IS
    'create a queue with a matcher config (keys: team_size, filter, scoring, prediction; see mm.matcher_config)';

CREATE FUNCTION mm.alter_queue(name text, config jsonb)
RETURNS void
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF config IS NULL THEN
        RAISE EXCEPTION 'queue config must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass ''{}'' for the defaults.';
    END IF;
    PERFORM mm.matcher_config(config);
    UPDATE mm.queue q SET config = alter_queue.config WHERE q.name = alter_queue.name;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'queue "%" does not exist', name
            USING ERRCODE = 'undefined_object', HINT = 'Create it with mm.create_queue.';
    END IF;
END
$$;
COMMENT ON FUNCTION mm.alter_queue(text, jsonb) IS
    'replace a queue''s matcher config; the next tick uses it';

CREATE FUNCTION mm.drop_queue(name text)
RETURNS void
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    DELETE FROM mm.queue q WHERE q.name = drop_queue.name;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'queue "%" does not exist', name
            USING ERRCODE = 'undefined_object', HINT = 'See the queues in mm.queue.';
    END IF;
END
$$;
COMMENT ON FUNCTION mm.drop_queue(text) IS
    'drop a queue with its waiting rosters, matches and tick log';

-- Look up a queue by name, or fail.
CREATE FUNCTION mm._queue(name text)
RETURNS mm.queue
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q mm.queue;
BEGIN
    SELECT * INTO q FROM mm.queue WHERE queue.name = _queue.name;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'queue "%" does not exist', name
            USING ERRCODE = 'undefined_object', HINT = 'Create it with mm.create_queue.';
    END IF;
    RETURN q;
END
$$;
COMMENT ON FUNCTION mm._queue(text) IS 'internal: the queue of that name, or an error';

-- Rosters

-- Check a roster's numbers (enqueue and update_roster).
CREATE FUNCTION mm._check_roster(rating float8, deviation float8, rank float8,
                                 ladder_points float8, dishonor int, professions text[], players int)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    v float8;
    n text;
BEGIN
    FOR n, v IN VALUES ('rating', rating), ('deviation', deviation), ('rank', rank), ('ladder_points', ladder_points) LOOP
        IF v IS NOT NULL AND (v = 'NaN' OR v IN ('Infinity', '-Infinity')) THEN
            RAISE EXCEPTION '% must be finite', n
                USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The value is %s.', v);
        END IF;
    END LOOP;
    IF deviation < 0 THEN
        RAISE EXCEPTION 'deviation must not be negative'
            USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The value is %s.', deviation);
    END IF;
    IF dishonor < 0 THEN
        RAISE EXCEPTION 'dishonor must not be negative'
            USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The value is %s.', dishonor);
    END IF;
    IF professions IS NOT NULL THEN
        IF array_position(professions, NULL) IS NOT NULL THEN
            RAISE EXCEPTION 'professions must not contain nulls'
                USING ERRCODE = 'null_value_not_allowed';
        END IF;
        IF cardinality(professions) NOT IN (0, players) THEN
            RAISE EXCEPTION 'professions must name one profession per player'
                USING ERRCODE = 'invalid_parameter_value',
                      DETAIL = format('The roster has %s players and %s professions.', players, cardinality(professions)),
                      HINT = 'Give one profession per player, in the order of players, or none.';
        END IF;
    END IF;
END
$$;
COMMENT ON FUNCTION mm._check_roster(float8, float8, float8, float8, int, text[], int) IS
    'internal: check a roster''s rating, deviation, rank, ladder points, dishonor and professions';

CREATE FUNCTION mm.enqueue(queue text, players bigint[], rating float8, deviation float8 DEFAULT 0,
                           rank float8 DEFAULT 0, ladder_points float8 DEFAULT 0,
                           dishonor int DEFAULT NULL, professions text[] DEFAULT '{}',
                           joined_at timestamptz DEFAULT now())
RETURNS bigint
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q mm.queue := mm._queue(queue);
    team_size int := (mm.matcher_config(q.config) ->> 'team_size')::int;
    n int := cardinality(players);
    p bigint;
    other bigint;
    s timestamptz;
    stacks int;
    id bigint;
BEGIN
    IF players IS NULL OR n = 0 THEN
        RAISE EXCEPTION 'roster must have at least one player'
            USING ERRCODE = 'invalid_parameter_value', HINT = 'Pass the party''s player ids, such as ARRAY[1, 2].';
    END IF;
    IF array_ndims(players) > 1 THEN
        RAISE EXCEPTION 'players must be a one-dimensional array'
            USING ERRCODE = 'array_subscript_error';
    END IF;
    IF n > team_size THEN
        RAISE EXCEPTION 'roster is larger than a team'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The roster has %s players; queue "%s" has teams of %s.', n, queue, team_size),
                  HINT = 'Split the party, or queue it where teams are larger.';
    END IF;
    IF array_position(players, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'players must not contain nulls' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    SELECT x INTO p FROM unnest(players) x GROUP BY x HAVING count(*) > 1 ORDER BY x LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'player % appears twice in the roster', p
            USING ERRCODE = 'invalid_parameter_value', HINT = 'List each player once.';
    END IF;
    IF rating IS NULL OR deviation IS NULL OR rank IS NULL OR ladder_points IS NULL
       OR professions IS NULL OR joined_at IS NULL THEN
        RAISE EXCEPTION 'rating, deviation, rank, ladder_points, professions and joined_at must not be null'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF NOT isfinite(joined_at) THEN
        RAISE EXCEPTION 'joined_at must be finite' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    PERFORM mm._check_roster(rating, deviation, rank, ladder_points, dishonor, professions, n);

    -- dishonor: players in a timeout may not queue; stacks default the roster's dishonor
    SELECT d.player_id, d.timeout_until INTO p, s
    FROM mm.dishonor_statuses(players, joined_at) d
    WHERE d.timeout_until > joined_at ORDER BY d.timeout_until DESC LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'player % is in a dishonor timeout', p
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = format('The timeout lasts until %s.', s),
                  HINT = format('The player can queue again at %s.', s);
    END IF;
    SELECT coalesce(sum(d.stacks), 0) INTO stacks FROM mm.dishonor_statuses(players, joined_at) d;

    SELECT qp.player_id, qp.roster_id INTO p, other
    FROM mm.queued_player qp WHERE qp.player_id = ANY (players) ORDER BY qp.player_id LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'player % is already queued', p
            USING ERRCODE = 'unique_violation',
                  DETAIL = format('The player is in waiting roster %s.', other),
                  HINT = format('Call mm.leave(%s) first.', other);
    END IF;

    INSERT INTO mm.roster (queue_id, players, rating, deviation, rank, ladder_points, dishonor, professions, joined_at)
    VALUES (q.queue_id, players, rating, deviation, rank, ladder_points, coalesce(dishonor, stacks), professions, joined_at)
    RETURNING roster.roster_id INTO id;
    BEGIN
        INSERT INTO mm.queued_player (player_id, roster_id) SELECT x, id FROM unnest(players) x;
    EXCEPTION WHEN unique_violation THEN
        RAISE EXCEPTION 'a player of the roster was queued at the same time'
            USING ERRCODE = 'unique_violation', HINT = 'Another session queued one of these players; see mm.queued_player.';
    END;
    RETURN id;
END
$$;
COMMENT ON FUNCTION mm.enqueue(text, bigint[], float8, float8, float8, float8, int, text[], timestamptz) IS
    'queue a roster (party); dishonor defaults to its players'' stacks (mm.dishonor_status); returns the roster id';

CREATE FUNCTION mm.leave(roster_id bigint)
RETURNS boolean
LANGUAGE sql STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
    WITH d AS (DELETE FROM mm.roster r WHERE r.roster_id = leave.roster_id RETURNING 1)
    SELECT count(*) > 0 FROM d
$$;
COMMENT ON FUNCTION mm.leave(bigint) IS
    'take a waiting roster out of its queue; false if it is not waiting (already matched or left)';

CREATE FUNCTION mm.update_roster(roster_id bigint, rating float8 DEFAULT NULL, deviation float8 DEFAULT NULL,
                                 rank float8 DEFAULT NULL, ladder_points float8 DEFAULT NULL,
                                 dishonor int DEFAULT NULL, professions text[] DEFAULT NULL)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    n int;
BEGIN
    IF roster_id IS NULL THEN
        RAISE EXCEPTION 'roster_id must not be null' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    SELECT cardinality(r.players) INTO n FROM mm.roster r WHERE r.roster_id = update_roster.roster_id;
    PERFORM mm._check_roster(rating, deviation, rank, ladder_points, dishonor, professions, coalesce(n, 0));
    UPDATE mm.roster r
    SET rating = coalesce(update_roster.rating, r.rating),
        deviation = coalesce(update_roster.deviation, r.deviation),
        rank = coalesce(update_roster.rank, r.rank),
        ladder_points = coalesce(update_roster.ladder_points, r.ladder_points),
        dishonor = coalesce(update_roster.dishonor, r.dishonor),
        professions = coalesce(update_roster.professions, r.professions)
    WHERE r.roster_id = update_roster.roster_id;
    RETURN FOUND;
END
$$;
COMMENT ON FUNCTION mm.update_roster(bigint, float8, float8, float8, float8, int, text[]) IS
    'change a waiting roster''s data (NULL keeps a value); false if it is not waiting; keeps its place in the queue';

CREATE FUNCTION mm.list_queue(queue text, at timestamptz DEFAULT now())
RETURNS TABLE (place bigint, roster_id bigint, players bigint[], rating float8, deviation float8,
               rank float8, ladder_points float8, dishonor int, professions text[],
               joined_at timestamptz, waited interval)
LANGUAGE sql STABLE STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
    SELECT row_number() OVER (ORDER BY r.position), r.roster_id, r.players, r.rating, r.deviation,
           r.rank, r.ladder_points, r.dishonor, r.professions, r.joined_at, at - r.joined_at
    FROM mm.roster r
    WHERE r.queue_id = (mm._queue(queue)).queue_id
    ORDER BY r.position
$$;
COMMENT ON FUNCTION mm.list_queue(text, timestamptz) IS
    'the waiting rosters of a queue in queue order (place 1 is tried first)';

-- Ticks

-- The query a tick runs the matcher over.
CREATE FUNCTION mm._queue_query(queue_id int, claim boolean)
RETURNS text
LANGUAGE sql IMMUTABLE STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
    SELECT format('SELECT r.roster_id, r.players, r.rating, r.deviation, r.rank, r.ladder_points, '
                  'r.dishonor, r.professions, r.joined_at FROM mm.roster r WHERE r.queue_id = %s '
                  'ORDER BY r.position%s', queue_id,
                  CASE WHEN claim THEN ' FOR UPDATE SKIP LOCKED' ELSE '' END)
$$;
COMMENT ON FUNCTION mm._queue_query(int, boolean) IS
    'internal: the rosters query of a queue, claiming the rows (FOR UPDATE SKIP LOCKED) for a tick';

CREATE FUNCTION mm.tick(queue text, at timestamptz DEFAULT now())
RETURNS TABLE (match_id bigint, roster_id bigint, team text)
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q mm.queue := mm._queue(queue);
    started timestamptz := clock_timestamp();
    tick bigint := nextval('mm.tick_id_seq');
    a_no int[];
    a_id bigint[];
    a_team text[];
    a_pred float8[];
    a_odds float8[];
    a_spread float8[];
    seen int;
    oldest float8;
    made int;
    failed int;
    spread float8;
BEGIN
    IF at IS NULL OR NOT isfinite(at) THEN
        RAISE EXCEPTION 'at must be finite' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT array_agg(x.match_no), array_agg(x.roster_id), array_agg(x.team),
           array_agg(x.prediction), array_agg(x.odds), array_agg(x.rating_spread)
    INTO a_no, a_id, a_team, a_pred, a_odds, a_spread
    FROM mm._match_rosters(mm._queue_query(q.queue_id, true), q.config, at) x;

    RETURN QUERY
    WITH res AS (
        SELECT * FROM unnest(a_no, a_id, a_team, a_pred, a_odds, a_spread)
            AS u(match_no, roster_id, team, prediction, odds, spread)
        WHERE u.team IN ('red', 'blue')
    ), m AS (
        SELECT res.match_no, nextval('mm.match_id_seq') AS match_id,
               min(res.prediction) AS prediction,
               min(res.odds) FILTER (WHERE res.team = 'red') AS red_odds,
               min(res.odds) FILTER (WHERE res.team = 'blue') AS blue_odds,
               min(res.spread) AS spread
        FROM res GROUP BY res.match_no
    ), ins_m AS (
        INSERT INTO mm.match (match_id, queue_id, tick_id, created_at, prediction, red_odds, blue_odds, rating_spread)
        SELECT m.match_id, q.queue_id, tick, at, m.prediction, m.red_odds, m.blue_odds, m.spread FROM m
    ), del AS (
        DELETE FROM mm.roster r USING res WHERE r.roster_id = res.roster_id
        RETURNING r.*
    ), ins_r AS (
        INSERT INTO mm.match_roster (match_id, roster_id, team, players, rating, deviation, rank,
                                     ladder_points, dishonor, professions, joined_at, waited)
        SELECT m.match_id, del.roster_id, res.team, del.players, del.rating, del.deviation, del.rank,
               del.ladder_points, del.dishonor, del.professions, del.joined_at, at - del.joined_at
        FROM del JOIN res ON res.roster_id = del.roster_id JOIN m ON m.match_no = res.match_no
        RETURNING match_roster.match_id, match_roster.roster_id, match_roster.team
    )
    SELECT i.match_id, i.roster_id, i.team FROM ins_r i ORDER BY i.match_id, i.team DESC, i.roster_id;

    -- failed targets go to the back of the queue, in the order they failed
    UPDATE mm.roster r SET position = f.pos
    FROM (SELECT s.roster_id, nextval('mm.roster_position_seq') AS pos
          FROM (SELECT u.roster_id FROM unnest(a_no, a_id, a_team) AS u(match_no, roster_id, team)
                WHERE u.team = 'failed' ORDER BY u.match_no) s) f
    WHERE r.roster_id = f.roster_id;

    SELECT max(u.no) FILTER (WHERE u.team = 'seen'), max(u.spread) FILTER (WHERE u.team = 'seen'),
           count(DISTINCT u.no) FILTER (WHERE u.team IN ('red', 'blue')),
           count(*) FILTER (WHERE u.team = 'failed'),
           avg(u.spread) FILTER (WHERE u.team IN ('red', 'blue'))
    INTO seen, oldest, made, failed, spread
    FROM unnest(a_no, a_team, a_spread) AS u(no, team, spread);
    INSERT INTO mm.tick_log (tick_id, queue_id, at, started_at, duration_ms, rosters_seen, matches_made,
                             targets_failed, oldest_wait, mean_rating_spread)
    VALUES (tick, q.queue_id, at, started,
            1000 * extract(epoch FROM clock_timestamp() - started)::float8,
            coalesce(seen, 0), made, failed, make_interval(secs => coalesce(oldest, 0)), spread);
END
$$;
COMMENT ON FUNCTION mm.tick(text, timestamptz) IS
    'one matchmaking tick of a queue in this transaction: claim waiting rosters (FOR UPDATE SKIP LOCKED), match, record matches, requeue failed targets, log';

CREATE FUNCTION mm.preview(queue text, at timestamptz DEFAULT now())
RETURNS TABLE (match_id bigint, roster_id bigint, team text)
LANGUAGE sql VOLATILE STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
    SELECT x.match_no::bigint, x.roster_id, x.team
    FROM mm._queue(queue) q,
         LATERAL mm.match_rosters(mm._queue_query(q.queue_id, false), q.config, at) x
    ORDER BY x.match_no, x.team DESC, x.roster_id
$$;
COMMENT ON FUNCTION mm.preview(text, timestamptz) IS
    'the matches a tick would make now, numbered from 1, without writing or locking anything';

CREATE PROCEDURE mm.run_ticks(queue text DEFAULT NULL, every interval DEFAULT '5 seconds',
                              span interval DEFAULT '55 seconds')
AS 'MODULE_PATHNAME', 'mm_run_ticks'
LANGUAGE C;
COMMENT ON PROCEDURE mm.run_ticks(text, interval, interval) IS
    'tick a queue (every queue when NULL) every "every" for "span", committing after each tick; schedule it each minute with pg_cron';

-- Statistics

CREATE VIEW mm.queue_stats AS
SELECT q.name AS queue,
       w.rosters AS waiting_rosters,
       w.players AS waiting_players,
       w.p50 AS wait_p50,
       w.p90 AS wait_p90,
       w.p99 AS wait_p99,
       t.ticks AS ticks_last_hour,
       t.matches AS matches_last_hour,
       t.matches_per_tick,
       t.mean_rating_spread,
       t.last_tick
FROM mm.queue q
LEFT JOIN LATERAL (
    SELECT count(*) AS rosters, coalesce(sum(cardinality(r.players)), 0) AS players,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY now() - r.joined_at) AS p50,
           percentile_cont(0.9) WITHIN GROUP (ORDER BY now() - r.joined_at) AS p90,
           percentile_cont(0.99) WITHIN GROUP (ORDER BY now() - r.joined_at) AS p99
    FROM mm.roster r WHERE r.queue_id = q.queue_id
) w ON true
LEFT JOIN LATERAL (
    SELECT count(*) AS ticks, coalesce(sum(l.matches_made), 0) AS matches,
           avg(l.matches_made) AS matches_per_tick,
           sum(l.mean_rating_spread * l.matches_made) / nullif(sum(l.matches_made), 0) AS mean_rating_spread,
           max(l.at) AS last_tick
    FROM mm.tick_log l WHERE l.queue_id = q.queue_id AND l.at > now() - interval '1 hour'
) t ON true;
COMMENT ON VIEW mm.queue_stats IS
    'per queue: waiting rosters and players, wait-time percentiles now, and over the last hour ticks, matches, matches per tick, mean rating spread inside matches';
