-- Backfill: a player left a running match; the next tick of the match's
-- queue fills the team's open seats from the queue, before it makes new
-- matches, with the matcher's own scoring against that team and the
-- queue's rules against the match (src/queue/backfill.c, mm_matcher_backfill
-- in src/matcher/matcher_backfill.c). The rosters are delivered like a
-- match: on the queue's NOTIFY channel and by mm.claim_matches, marked
-- kind 'backfill'.

-- @access internal
CREATE SEQUENCE mm.backfill_id_seq;
COMMENT ON SEQUENCE mm.backfill_id_seq IS 'ids of mm.backfill';

-- One row per request. Its match and team are keys: a request is for a
-- match of the queue (cascading with it) and for one of its teams; status
-- says where it is, and the columns each status needs are CHECKed.
-- @access admin, analyst
CREATE TABLE mm.backfill (
    backfill_id  bigint NOT NULL DEFAULT nextval('mm.backfill_id_seq'),
    queue_id     int NOT NULL,
    match_id     bigint NOT NULL,
    team         text NOT NULL,
    players      int NOT NULL,
    roles        text[] NOT NULL DEFAULT '{}',
    status       text NOT NULL DEFAULT 'open',
    requested_at timestamptz NOT NULL DEFAULT now(),
    ended_at     timestamptz,
    tick_id      bigint,
    delivered_at timestamptz,
    CONSTRAINT backfill_pkey PRIMARY KEY (backfill_id),
    CONSTRAINT backfill_match_team_key UNIQUE (match_id, team, backfill_id),
    CONSTRAINT backfill_match_fkey FOREIGN KEY (queue_id, match_id)
        REFERENCES mm.match (queue_id, match_id) ON DELETE CASCADE,
    CONSTRAINT backfill_team_check CHECK (mm._team_name_valid(team)),
    CONSTRAINT backfill_players_check CHECK (players BETWEEN 1 AND 1000),
    CONSTRAINT backfill_roles_check CHECK (array_ndims(roles) IS NULL
                                           OR (array_ndims(roles) = 1 AND array_lower(roles, 1) = 1
                                               AND cardinality(roles) = players
                                               AND array_position(roles, NULL) IS NULL)),
    CONSTRAINT backfill_status_check CHECK (status IN ('open', 'filled', 'cancelled', 'expired')),
    CONSTRAINT backfill_ended_check CHECK ((status = 'open') = (ended_at IS NULL)),
    CONSTRAINT backfill_tick_check CHECK ((status = 'filled') = (tick_id IS NOT NULL)),
    CONSTRAINT backfill_delivered_check CHECK (delivered_at IS NULL OR status = 'filled'),
    CONSTRAINT backfill_time_check CHECK (isfinite(requested_at) AND isfinite(ended_at) AND isfinite(delivered_at))
);
ALTER SEQUENCE mm.backfill_id_seq OWNED BY mm.backfill.backfill_id;
CREATE INDEX backfill_open_idx ON mm.backfill (queue_id, backfill_id) WHERE status = 'open';
CREATE INDEX backfill_undelivered_idx ON mm.backfill (queue_id, backfill_id)
    WHERE status = 'filled' AND delivered_at IS NULL;
COMMENT ON TABLE mm.backfill IS 'backfill requests (mm.request_backfill): open seats of a team of a running match; open until a tick fills them (filled, with the tick), mm.cancel_backfill cancels them, or the match is reported or abandoned (expired); delivered_at is set when mm.claim_matches hands the filled rosters out';
COMMENT ON CONSTRAINT backfill_team_check ON mm.backfill IS 'a team is named by 1 to 63 bytes, as a queue''s team_names';
COMMENT ON COLUMN mm.backfill.roles IS 'the roles of the players who left, one per seat, or none: a role queue''s backfill fills the roles the team lacks';
COMMENT ON CONSTRAINT backfill_roles_check ON mm.backfill IS 'roles are none, or one per seat';
COMMENT ON INDEX mm.backfill_open_idx IS 'open requests of a queue, oldest first (ticks)';
COMMENT ON INDEX mm.backfill_undelivered_idx IS 'filled requests of a queue not yet claimed (mm.claim_matches)';
COMMENT ON CONSTRAINT backfill_match_team_key ON mm.backfill IS 'the key the rosters of a backfill refer to (mm.roster, mm.ended_roster): a backfilled roster joins the request''s match and team';

-- A backfilled roster names its request; the foreign key holds it to the
-- request's match and team (in its match, and once the match has ended).
ALTER TABLE mm.roster
    ADD CONSTRAINT roster_backfill_fkey FOREIGN KEY (match_id, team, backfill_id)
        REFERENCES mm.backfill (match_id, team, backfill_id) ON DELETE CASCADE;
ALTER TABLE mm.ended_roster
    ADD CONSTRAINT ended_roster_backfill_fkey FOREIGN KEY (match_id, team, backfill_id)
        REFERENCES mm.backfill (match_id, team, backfill_id) ON DELETE CASCADE;

SELECT pg_catalog.pg_extension_config_dump('mm.backfill', '');
SELECT pg_catalog.pg_extension_config_dump('mm.backfill_id_seq', '');

-- @access service, admin; definer
CREATE FUNCTION mm.request_backfill(match_id bigint, team text, players int, roles text[] DEFAULT '{}')
RETURNS bigint
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    m mm.match;
    q mm.queue;
    size int;
    requested int;
    ended timestamptz;
    how text;
    id bigint;
    qid int;
BEGIN
    IF request_backfill.match_id IS NULL OR request_backfill.team IS NULL OR request_backfill.players IS NULL
       OR request_backfill.roles IS NULL THEN
        RAISE EXCEPTION 'match_id, team, players and roles must not be null'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF request_backfill.players < 1 THEN
        RAISE EXCEPTION 'players must be at least 1'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The value is %s.', request_backfill.players),
                  HINT = 'Give the number of players who left the team.';
    END IF;
    -- requests of one match one at a time (the room below); ticks, which
    -- lock the match FOR KEY SHARE, do not wait for it (every statement
    -- names the match's queue: on Citus, its shard)
    qid := mm._match_queue(request_backfill.match_id);
    SELECT * INTO m FROM mm.match x WHERE x.queue_id = qid AND x.match_id = request_backfill.match_id FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'match % does not exist', request_backfill.match_id
            USING ERRCODE = 'undefined_object', HINT = 'Give the match_id that mm.claim_matches delivered.';
    END IF;
    IF m.status <> 'matched' THEN
        SELECT r.status, r.reported_at INTO how, ended FROM mm.match_result r
        WHERE r.queue_id = m.queue_id AND r.match_id = m.match_id;
        RAISE EXCEPTION 'match % is %', m.match_id, m.status
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = CASE m.status
                      WHEN 'proposed' THEN format('Its ready check ends at %s; not every player has accepted it yet.', m.accept_until)
                      WHEN 'dissolved' THEN 'Its ready check failed: a player declined or did not accept in time.'
                      WHEN 'finished' THEN
                          CASE WHEN ended IS NULL THEN 'It is over.'
                               ELSE format('It was %s at %s.', how, ended) END
                      END,
                  HINT = CASE m.status
                      WHEN 'proposed' THEN 'Backfill a match once every player accepted it (mm.accept returns matched).'
                      ELSE 'Only a match being played can be backfilled.' END;
    END IF;
    IF request_backfill.team <> ALL (m.teams) THEN
        RAISE EXCEPTION 'match % has no team "%"', m.match_id, request_backfill.team
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = format('The teams of match %s are %s.', m.match_id,
                                (SELECT string_agg(format('"%s"', t), CASE WHEN o = cardinality(m.teams) THEN ' and ' ELSE ', ' END
                                                   ORDER BY o)
                                 FROM unnest(m.teams) WITH ORDINALITY AS u(t, o)));
    END IF;
    SELECT * INTO q FROM mm.queue x WHERE x.queue_id = m.queue_id;
    IF q.dropped_at IS NOT NULL THEN
        RAISE EXCEPTION 'queue "%" of match % was dropped', q.name, m.match_id
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = format('It was dropped at %s; no tick fills its matches.', q.dropped_at);
    END IF;
    -- the leavers' roles: one per seat or none, roles the queue declares
    PERFORM mm._check_roles(mm.matcher_config(q.config), q.name, request_backfill.roles,
                            request_backfill.players, 'request');
    size := (mm.matcher_config(q.config) ->> 'team_size')::int;
    SELECT coalesce(sum(b.players), 0) INTO requested FROM mm.backfill b
    WHERE b.queue_id = m.queue_id AND b.match_id = m.match_id AND b.team = request_backfill.team AND b.status = 'open';
    IF request_backfill.players > size - requested THEN
        RAISE EXCEPTION 'team "%" of match % has room for % players', request_backfill.team, m.match_id, size - requested
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('%s players were asked for; teams of queue "%s" have %s players and %s seats of this team are already requested.',
                                  request_backfill.players, q.name, size, requested),
                  HINT = 'Ask for the players who left and are not yet requested; mm.cancel_backfill cancels a request.';
    END IF;
    INSERT INTO mm.backfill (queue_id, match_id, team, players, roles)
    VALUES (m.queue_id, m.match_id, request_backfill.team, request_backfill.players, request_backfill.roles)
    RETURNING backfill.backfill_id INTO id;
    -- the queue's event feed (mm.events): the match's players
    INSERT INTO mm.queue_event (queue_id, kind, match_id, player_ids, detail)
    SELECT m.queue_id, 'backfill_requested', m.match_id, x.players,
           jsonb_build_object('backfill_id', id, 'team', request_backfill.team, 'players', request_backfill.players,
                              'roles', to_jsonb(request_backfill.roles))
    FROM (SELECT ARRAY(SELECT qp.player_id FROM mm.roster r
                       JOIN mm.queued_player qp ON qp.queue_id = r.queue_id AND qp.roster_id = r.roster_id
                       WHERE r.queue_id = m.queue_id AND r.match_id = m.match_id AND NOT qp.requeued
                       ORDER BY r.roster_id, qp.seat) AS players) x
    WHERE cardinality(x.players) > 0;
    PERFORM mm._number_events(m.queue_id);  -- on Citus: the queue's own order
    RETURN id;
END
$$;
COMMENT ON FUNCTION mm.request_backfill IS
    'ask the next tick of a match''s queue to fill "players" open seats of its team "team" (players left the running match, with roles, one per seat or none) from the queue, before new matches, with the matcher''s scoring against that team and the queue''s rules against the match; returns the request id; the filled rosters are delivered by mm.claim_matches (kind backfill) and the queue''s channel; refused for a finished match, an unknown team, players < 1 or more than the team''s room, roles the queue does not declare';

-- @access service, admin; definer
CREATE FUNCTION mm.cancel_backfill(backfill_id bigint)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    b mm.backfill;
    q int;
BEGIN
    IF cancel_backfill.backfill_id IS NULL THEN
        RAISE EXCEPTION 'backfill_id must not be null' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    -- a tick filling it holds the row: wait for it, then see it filled
    -- (found by its queue too: on Citus, on its shard)
    q := mm._backfill_queue(cancel_backfill.backfill_id);
    SELECT * INTO b FROM mm.backfill x WHERE x.queue_id = q AND x.backfill_id = cancel_backfill.backfill_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'backfill request % does not exist', cancel_backfill.backfill_id
            USING ERRCODE = 'undefined_object', HINT = 'Give the id mm.request_backfill returned.';
    END IF;
    IF b.status <> 'open' THEN
        RETURN false;
    END IF;
    UPDATE mm.backfill x SET status = 'cancelled', ended_at = now()
    WHERE x.queue_id = b.queue_id AND x.backfill_id = cancel_backfill.backfill_id;
    RETURN true;
END
$$;
COMMENT ON FUNCTION mm.cancel_backfill IS
    'cancel an open backfill request; false if it is no longer open (filled, cancelled, or expired with its match); waits for a tick that is filling it';
