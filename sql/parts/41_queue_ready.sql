
-- Ready check: a queue with an accept_timeout makes its matches "proposed";
-- each player accepts (mm.accept) or declines (mm.decline). When all have
-- accepted the match is matched (then notified and claimable); a decline,
-- or the end of the ready check (seen by the queue's next tick, or by a
-- decline), dissolves it: rosters without a dodger go back to the queue in
-- their old place with their old joined_at, the others are removed, and
-- each dodger gets the queue's dodge_reason dishonor (the Guild Wars 2
-- wiki's QueueDodge: "leaving or failing to confirm you're ready for a
-- match"). Everything in the transaction of the call or tick that decides.

-- One row per player who accepted a proposed match; the key makes an
-- accept count once.
-- @access admin, analyst
CREATE TABLE mm.match_accept (
    match_id    bigint NOT NULL,
    player_id   bigint NOT NULL,
    queue_id    int NOT NULL,
    accepted_at timestamptz NOT NULL,
    CONSTRAINT match_accept_pkey PRIMARY KEY (match_id, player_id),
    CONSTRAINT match_accept_match_fkey FOREIGN KEY (queue_id, match_id)
        REFERENCES mm.match (queue_id, match_id) ON DELETE CASCADE,
    CONSTRAINT match_accept_accepted_at_check CHECK (isfinite(accepted_at))
);
COMMENT ON TABLE mm.match_accept IS 'the players who accepted a match in its ready check (mm.accept), once each, and when';
SELECT pg_catalog.pg_extension_config_dump('mm.match_accept', '');

-- A queue's own dodge penalty (its dodge_timeout): until when each player
-- who dodged one of its ready checks may not queue in it again. One row per
-- queue and player; a later dodge moves "until" (no stacks). No foreign key
-- to mm.queue (mm.drop_queue and mm.purge delete a queue's rows).
-- @access admin, analyst
CREATE TABLE mm.queue_dodge (
    queue_id  int NOT NULL,
    player_id bigint NOT NULL,
    until     timestamptz NOT NULL,
    CONSTRAINT queue_dodge_pkey PRIMARY KEY (queue_id, player_id),
    CONSTRAINT queue_dodge_until_check CHECK (isfinite(until))
);
COMMENT ON TABLE mm.queue_dodge IS 'players who dodged a ready check of a queue with a dodge_timeout, and until when they may not queue in that queue again';
SELECT pg_catalog.pg_extension_config_dump('mm.queue_dodge', '');

-- Dissolve a proposed match the caller has locked, for a reason (declined,
-- accept_timeout, drop_queue). With "dodgers", they are the dodgers (a
-- decline: the decliner; none); NULL: every player who has not accepted
-- (the ready check ended). Rosters without a dodger go back to the
-- queue in their old place (unless one of their players queued again
-- meanwhile, or the queue was dropped); the others are removed; the dodgers get the queue's
-- dodge_reason dishonor in player-id order. A roster larger than a team
-- of the queue's config now (alter_queue during the ready check) never
-- goes back: it is removed with the reason team_size. A player who is queueing
-- elsewhere at this moment (an enqueue not yet committed) is waited for:
-- when it commits, that player's roster is removed like one whose player
-- had queued before; a dissolve never fails on a player's key. A
-- dodge_reason the dishonor config does not know (mm.set_dishonor_config
-- refuses to drop one a queue uses; a direct change of its table may
-- have) gives no dishonor: the caller warns (mm._dodge_reason_warning).
-- @access internal
CREATE FUNCTION mm._dissolve_match(queue_id int, match_id bigint, dodgers bigint[], reason text, at timestamptz)
RETURNS void
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    m mm.match;
    cfg jsonb;
    dodge text;
    dodge_for interval;
    dodged bigint[];
    back bigint[];
    large bigint[];
    taken bigint[];
    p bigint;
    pr bigint;
    wq int;
    wr bigint;
BEGIN
    SELECT * INTO m FROM mm.match x WHERE x.queue_id = _dissolve_match.queue_id AND x.match_id = _dissolve_match.match_id;
    cfg := mm.matcher_config((SELECT q.config FROM mm.queue q WHERE q.queue_id = m.queue_id));
    dodge := cfg ->> 'dodge_reason';
    -- a duration: seconds, or interval text
    dodge_for := CASE jsonb_typeof(cfg -> 'dodge_timeout')
                 WHEN 'number' THEN make_interval(secs => (cfg ->> 'dodge_timeout')::float8)
                 WHEN 'string' THEN (cfg ->> 'dodge_timeout')::interval END;
    dodged := ARRAY(SELECT u.p FROM mm.match_roster mr, unnest(mr.players) AS u(p)
                    WHERE mr.queue_id = m.queue_id AND mr.match_id = m.match_id
                      AND CASE WHEN dodgers IS NULL
                               THEN NOT EXISTS (SELECT FROM mm.match_accept a
                                                WHERE a.queue_id = m.queue_id AND a.match_id = m.match_id
                                                  AND a.player_id = u.p)
                               ELSE u.p = ANY (dodgers) END
                    ORDER BY u.p);
    -- a reason the dishonor config does not know gives no dishonor (the
    -- callers warn, once: mm._dodge_reason_warning)
    IF dodge IS NOT NULL AND NOT mm._dishonor_reason_known(dodge) THEN
        dodge := NULL;
    END IF;
    -- the players' rows of the match, locked in player order: an enqueue
    -- marking one requeued (it queued again once the ready check ended) is
    -- waited for, and then its roster is removed
    PERFORM FROM mm.queued_player qp
    WHERE qp.queue_id = m.queue_id
      AND qp.roster_id IN (SELECT r.roster_id FROM mm.roster r WHERE r.queue_id = m.queue_id AND r.match_id = m.match_id)
    ORDER BY qp.player_id FOR UPDATE;
    -- on Citus a player who queued again meanwhile, in another queue, has
    -- no row here marked requeued (that key holds per queue): its own row of
    -- mm.waiting_player names its new roster. The rows locked in player
    -- order, one at a time, as mm.enqueue takes them.
    IF mm._queues_distributed() THEN
        FOR pr, p IN SELECT mr.roster_id, u.p FROM mm.match_roster mr, unnest(mr.players) AS u(p)
                     WHERE mr.queue_id = m.queue_id AND mr.match_id = m.match_id ORDER BY u.p LOOP
            SELECT w.queue_id, w.roster_id INTO wq, wr FROM mm.waiting_player w WHERE w.player_id = p FOR UPDATE;
            IF FOUND AND (wq, wr) IS DISTINCT FROM (m.queue_id, pr) THEN
                taken := taken || pr;
            END IF;
        END LOOP;
    END IF;
    -- a roster larger than a team of the queue's config now (an
    -- alter_queue during the ready check) could never match: it is removed
    -- (reason team_size) instead of going back
    large := ARRAY(SELECT mr.roster_id FROM mm.match_roster mr
                   WHERE mr.queue_id = m.queue_id AND mr.match_id = m.match_id
                     AND cardinality(mr.players) > (cfg ->> 'team_size')::int);
    back := ARRAY(SELECT mr.roster_id FROM mm.match_roster mr
                  WHERE mr.queue_id = m.queue_id AND mr.match_id = m.match_id
                    AND NOT mr.players && dodged
                    AND cardinality(mr.players) > 0
                    AND NOT mr.roster_id = ANY (coalesce(taken, '{}'))
                    AND NOT mr.roster_id = ANY (large)
                    AND NOT EXISTS (SELECT FROM mm.queued_player qp
                                    WHERE qp.queue_id = mr.queue_id AND qp.roster_id = mr.roster_id AND qp.requeued)
                    AND NOT EXISTS (SELECT FROM mm.queue q WHERE q.queue_id = m.queue_id AND q.dropped_at IS NOT NULL)
                  ORDER BY mr.roster_id);

    -- each player's ticket: waiting again, or removed (with the reason:
    -- the dissolve's, or team_size for a roster too large now)
    INSERT INTO mm.ticket_event (roster_id, player_id, status, at, queue_id, match_id, reason)
    SELECT mr.roster_id, u.p, CASE WHEN mr.roster_id = ANY (back) THEN 'waiting' ELSE 'removed' END,
           _dissolve_match.at, mr.queue_id, m.match_id,
           CASE WHEN mr.roster_id = ANY (large) AND NOT mr.players && dodged THEN 'team_size'
                ELSE _dissolve_match.reason END
    FROM mm.match_roster mr, unnest(mr.players) AS u(p)
    WHERE mr.queue_id = m.queue_id AND mr.match_id = m.match_id
    ORDER BY mr.roster_id, u.p;

    -- the queue's event feed (mm.events): every player of the match, the
    -- rosters and players that go back to the queue, the dodgers
    INSERT INTO mm.queue_event (queue_id, at, kind, match_id, player_ids, detail)
    SELECT m.queue_id, _dissolve_match.at, 'dissolved', m.match_id, array_agg(u.p ORDER BY mr.roster_id, u.o),
           jsonb_build_object('reason', CASE _dissolve_match.reason WHEN 'accept_timeout' THEN 'timeout'
                                                                   ELSE _dissolve_match.reason END,
                              'requeued_rosters', to_jsonb(back),
                              'requeued_players', coalesce(jsonb_agg(u.p ORDER BY u.p) FILTER (WHERE mr.roster_id = ANY (back)),
                                                           '[]'),
                              'dodgers', to_jsonb(dodged))
    FROM mm.match_roster mr, unnest(mr.players) WITH ORDINALITY AS u(p, o)
    WHERE mr.queue_id = m.queue_id AND mr.match_id = m.match_id
    HAVING count(*) > 0;
    PERFORM mm._number_events(m.queue_id);  -- on Citus: the queue's own order

    -- the match gives its rosters up (a roster is in at most one match):
    -- back to the queue in the same row, with the same id, place and
    -- joined_at (no later than now(), which roster_joined_at_check holds
    -- it to: a transaction older than the roster's enqueue may be the one
    -- that dissolves) and players; the others are removed, their players
    -- with them
    UPDATE mm.roster r
    SET match_id = NULL, team = NULL, waited = NULL, backfill_id = NULL, joined_at = least(r.joined_at, now())
    WHERE r.queue_id = m.queue_id AND r.match_id = m.match_id AND r.roster_id = ANY (back);
    INSERT INTO mm.queue_change (queue_id, roster_id) SELECT m.queue_id, b.id FROM unnest(back) AS b(id);
    DELETE FROM mm.roster r WHERE r.queue_id = m.queue_id AND r.match_id = m.match_id;
    UPDATE mm.match x SET status = 'dissolved', accept_until = NULL WHERE x.queue_id = m.queue_id AND x.match_id = m.match_id;

    IF dodge IS NOT NULL THEN
        FOREACH p IN ARRAY dodged LOOP
            PERFORM mm.dishonor(p, dodge, _dissolve_match.at);
        END LOOP;
    END IF;
    -- the queue's own penalty: no queueing here again for dodge_timeout
    IF dodge_for IS NOT NULL THEN
        INSERT INTO mm.queue_dodge AS d (queue_id, player_id, until)
        SELECT m.queue_id, u.p, _dissolve_match.at + dodge_for FROM unnest(dodged) AS u(p)
        ON CONFLICT ON CONSTRAINT queue_dodge_pkey DO UPDATE SET until = greatest(d.until, excluded.until);
    END IF;
END
$$;
COMMENT ON FUNCTION mm._dissolve_match IS
    'internal: dissolve a proposed match the caller has locked, for a reason: the dodgers given (or, when NULL, every player who has not accepted) dodged; rosters without a dodger go back to the queue in their old place (not one whose player queued again, even in a transaction still running, nor one larger than a team of the queue''s config now: removed with the reason team_size), the others are removed; the dodgers get the queue''s dodge_reason dishonor (none when the dishonor config does not know the reason) and its dodge_timeout (mm.queue_dodge)';

-- Announce dissolved matches on the queue's channel, with the reason:
-- {"queue_id": .., "queue": "..", "dissolved": [match ids], "reason": ".."}
-- (delivered when the caller's transaction commits), in pieces of 250 ids
-- so that each payload stays under NOTIFY's 8000 bytes; the head as the
-- tick's payloads have it (mm._payload_head: the name only when its JSON
-- takes at most 1000 bytes).
-- @access internal
CREATE FUNCTION mm._notify_dissolved(queue_id int, match_ids bigint[], reason text)
RETURNS void
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    head text := mm._payload_head(queue_id, (SELECT q.name FROM mm.queue q WHERE q.queue_id = _notify_dissolved.queue_id));
    n int := coalesce(cardinality(match_ids), 0);
    i int := 1;
BEGIN
    WHILE i <= n LOOP
        PERFORM mm._notify('mm_queue_' || queue_id,
            format('%s, "dissolved": [%s], "reason": %s}', head,
                   array_to_string(match_ids[i:i + 249], ', '), to_json(reason)));
        i := i + 250;
    END LOOP;
END
$$;
COMMENT ON FUNCTION mm._notify_dissolved IS
    'internal: NOTIFY a queue''s channel that matches dissolved, with the reason (declined, accept_timeout, drop_queue): {"queue_id", "queue", "dissolved": [match ids], "reason"}, 250 ids per notification';

-- Warn, once for the matches given, when a queue's dodge_reason is not a
-- reason of the dishonor config (their dodgers get no dishonor).
-- @access internal
CREATE FUNCTION mm._dodge_reason_warning(queue_id int, match_ids bigint[])
RETURNS void
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q mm.queue;
    dodge text;
BEGIN
    SELECT * INTO q FROM mm.queue x WHERE x.queue_id = _dodge_reason_warning.queue_id;
    dodge := mm.matcher_config(q.config) ->> 'dodge_reason';
    IF cardinality(match_ids) > 0 AND dodge IS NOT NULL AND NOT mm._dishonor_reason_known(dodge) THEN
        RAISE WARNING 'dodge_reason "%" of queue "%" is not a known dishonor reason', dodge, q.name
            USING DETAIL = format('The dodgers of these matches get no dishonor: %s.', array_to_string(match_ids, ', ')),
                  HINT = 'Add the reason under "penalties" with mm.set_dishonor_config, or change the queue''s dodge_reason with mm.alter_queue.';
    END IF;
END
$$;
COMMENT ON FUNCTION mm._dodge_reason_warning IS
    'internal (mm.tick, mm.decline): a WARNING when the queue''s dodge_reason is not a reason of the dishonor config, naming the matches whose dodgers get no dishonor';

-- The ready checks of a queue that ended by "at", dissolved; those another
-- session is deciding (an accept or decline holds the match) are left to
-- it or to the next tick. Called by mm.tick first.
--
-- One match that cannot be dissolved never stops the queue: the matches
-- are dissolved in one subtransaction, and if one fails, again one
-- subtransaction each; a match that fails gets a WARNING, stays proposed
-- (the next tick tries again) and is counted in "failed"
-- (mm.tick_log.dissolves_failed).
-- @access internal
CREATE FUNCTION mm._resolve_proposals(queue_id int, at timestamptz, OUT dissolved int, OUT failed int)
RETURNS record
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    ids bigint[];
    done bigint[] := '{}';
    id bigint;
    msg text;
    state text;
BEGIN
    ids := ARRAY(SELECT m.match_id FROM mm.match m
                 WHERE m.queue_id = _resolve_proposals.queue_id AND m.accept_until IS NOT NULL
                   AND m.accept_until <= _resolve_proposals.at
                 ORDER BY m.match_id
                 FOR UPDATE SKIP LOCKED);
    dissolved := 0;
    failed := 0;
    IF cardinality(ids) = 0 THEN
        RETURN;   -- most ticks: no subtransaction, no config read
    END IF;
    PERFORM mm._dodge_reason_warning(_resolve_proposals.queue_id, ids);
    BEGIN
        FOREACH id IN ARRAY ids LOOP
            PERFORM mm._dissolve_match(_resolve_proposals.queue_id, id, NULL, 'accept_timeout', _resolve_proposals.at);
        END LOOP;
        dissolved := cardinality(ids);
        PERFORM mm._notify_dissolved(_resolve_proposals.queue_id, ids, 'accept_timeout');
        RETURN;
    EXCEPTION WHEN OTHERS THEN
        NULL;   -- one of them failed: each in its own subtransaction below
    END;
    FOREACH id IN ARRAY ids LOOP
        BEGIN
            PERFORM mm._dissolve_match(_resolve_proposals.queue_id, id, NULL, 'accept_timeout', _resolve_proposals.at);
            dissolved := dissolved + 1;
            done := done || id;
        EXCEPTION WHEN OTHERS THEN
            GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, state = RETURNED_SQLSTATE;
            failed := failed + 1;
            RAISE WARNING 'match % of queue "%" could not be dissolved: %', id,
                          (SELECT q.name FROM mm.queue q WHERE q.queue_id = _resolve_proposals.queue_id), msg
                USING ERRCODE = state,
                      DETAIL = 'The match stays proposed; the next tick tries again. The other matches and the tick went on.',
                      HINT = 'mm.tick_log.dissolves_failed counts such matches; fix what the message names.';
        END;
    END LOOP;
    PERFORM mm._notify_dissolved(_resolve_proposals.queue_id, done, 'accept_timeout');
END
$$;
COMMENT ON FUNCTION mm._resolve_proposals IS
    'internal (mm.tick): dissolve the proposed matches of a queue whose ready check ended by "at", skipping those another session holds, and announce those dissolved on the queue''s channel (reason accept_timeout); a match that cannot be dissolved gets a WARNING and stays proposed; returns how many were dissolved and how many failed';

-- Lock a match for mm.accept and mm.decline and find the player's roster
-- in it (NULL when the match is no longer proposed).
-- @access internal
CREATE FUNCTION mm._ready_match(match_id bigint, player_id bigint, OUT m mm.match, OUT roster_id bigint)
RETURNS record
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q int;
BEGIN
    IF match_id IS NULL OR player_id IS NULL THEN
        RAISE EXCEPTION 'match_id and player_id must not be NULL'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    -- one decision at a time per match: accepts, declines and ticks queue up
    -- (found by its queue too: on Citus, on its shard)
    q := mm._match_queue(match_id);
    SELECT * INTO m FROM mm.match x WHERE x.queue_id = q AND x.match_id = _ready_match.match_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'match % does not exist', match_id
            USING ERRCODE = 'undefined_object', HINT = 'mm.ticket_status tells a player''s match.';
    END IF;
    IF m.status = 'dissolved' THEN
        RETURN;
    END IF;
    SELECT mr.roster_id INTO roster_id FROM mm.match_roster mr
    WHERE mr.queue_id = m.queue_id AND mr.match_id = m.match_id AND _ready_match.player_id = ANY (mr.players);
    IF NOT FOUND THEN
        RAISE EXCEPTION 'player % is not in match %', player_id, match_id
            USING ERRCODE = 'invalid_parameter_value', HINT = 'mm.ticket_status tells a player''s match.';
    END IF;
END
$$;
COMMENT ON FUNCTION mm._ready_match IS
    'internal: lock a match for mm.accept or mm.decline and find the player''s roster in it (none when dissolved); errors for a missing match or a player not in it';

-- @access service, admin; definer
CREATE FUNCTION mm.accept(match_id bigint, player_id bigint)
RETURNS text
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
-- the two settings its body changes on a single node, restored on return
SET plan_cache_mode = auto
SET enable_seqscan = on
AS $$
DECLARE
    r record;
    m mm.match;
    players int;
    accepted int;
    ids bigint[];
    detail jsonb;
BEGIN
    -- as mm.enqueue: on a single node every statement of an accept reads
    -- the match, its rosters and its accepts by key, planned once per
    -- session, never a scan
    IF NOT mm._queues_distributed() THEN
        PERFORM pg_catalog.set_config('plan_cache_mode', 'force_generic_plan', true),
                pg_catalog.set_config('enable_seqscan', 'off', true);
    END IF;
    r := mm._ready_match(match_id, player_id);
    m := r.m;
    IF m.status = 'dissolved' THEN
        RAISE EXCEPTION 'match % was dissolved', match_id
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'A player declined or did not accept in time.',
                  HINT = 'mm.ticket_status tells whether the player is waiting again.';
    END IF;
    IF m.status <> 'proposed' THEN
        RETURN m.status;   -- matched or finished: nothing to accept
    END IF;
    IF now() >= m.accept_until THEN
        RAISE EXCEPTION 'the ready check of match % has ended', match_id
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = format('It ended at %s.', m.accept_until),
                  HINT = 'The next tick of the queue dissolves the match; rosters whose players all accepted go back to the queue.';
    END IF;
    INSERT INTO mm.match_accept AS a (match_id, player_id, queue_id, accepted_at)
    VALUES (m.match_id, accept.player_id, m.queue_id, now())
    ON CONFLICT ON CONSTRAINT match_accept_pkey DO NOTHING;
    IF FOUND THEN
        INSERT INTO mm.ticket_event (roster_id, player_id, status, at, queue_id, match_id)
        VALUES (r.roster_id, accept.player_id, 'accepted', now(), m.queue_id, m.match_id);
        INSERT INTO mm.queue_event (queue_id, kind, match_id, roster_id, player_ids)
        VALUES (m.queue_id, 'accepted', m.match_id, r.roster_id, ARRAY[accept.player_id]);
        PERFORM mm._number_events(m.queue_id);  -- on Citus: the queue's own order
    END IF;
    SELECT sum(cardinality(mr.players)) INTO players FROM mm.match_roster mr
    WHERE mr.queue_id = m.queue_id AND mr.match_id = m.match_id;
    SELECT count(*) INTO accepted FROM mm.match_accept a WHERE a.queue_id = m.queue_id AND a.match_id = m.match_id;
    IF accepted < players THEN
        RETURN 'proposed';
    END IF;

    -- everyone accepted: the match is ready to play, notified and claimable
    UPDATE mm.match x SET status = 'matched', accept_until = NULL WHERE x.queue_id = m.queue_id AND x.match_id = m.match_id;
    INSERT INTO mm.ticket_event (roster_id, player_id, status, at, queue_id, match_id)
    SELECT mr.roster_id, u.p, 'matched', now(), m.queue_id, m.match_id
    FROM mm.match_roster mr, unnest(mr.players) AS u(p)
    WHERE mr.queue_id = m.queue_id AND mr.match_id = m.match_id
    ORDER BY mr.roster_id, u.p;
    -- the queue's event feed (mm.events): the players, the rosters and
    -- their waits (the wait histogram of mm.queue_metrics)
    -- (read first, then written: Citus runs neither a subquery beside an
    -- aggregate nor a join of a view in an INSERT ... SELECT on a shard)
    ids := ARRAY(SELECT u.p FROM mm.match_roster x, unnest(x.players) WITH ORDINALITY AS u(p, o)
                 WHERE x.queue_id = m.queue_id AND x.match_id = m.match_id ORDER BY x.roster_id, u.o);
    SELECT jsonb_build_object('rosters', jsonb_agg(x.roster_id ORDER BY x.roster_id),
                              'waits', jsonb_agg(round(extract(epoch FROM x.waited), 3) ORDER BY x.roster_id))
    INTO detail
    FROM mm.roster x WHERE x.queue_id = m.queue_id AND x.match_id = m.match_id;
    INSERT INTO mm.queue_event (queue_id, kind, match_id, player_ids, detail)
    VALUES (m.queue_id, 'matched', m.match_id, ids, detail);
    PERFORM mm._number_events(m.queue_id);  -- on Citus: the queue's own order
    -- the payload's head as the tick's (the name only when its JSON is
    -- short enough: a queue of 0.1.0 may have any name)
    PERFORM mm._notify('mm_queue_' || m.queue_id,
                                 format('%s, "matches": [%s]}',
                                        mm._payload_head(m.queue_id, (SELECT q.name FROM mm.queue q WHERE q.queue_id = m.queue_id)),
                                        m.match_id));
    RETURN 'matched';
END
$$;
COMMENT ON FUNCTION mm.accept IS
    'a player accepts a proposed match (ready check); returns the match''s status: proposed while others have not accepted, matched once all have (the match is then notified on the queue''s channel and claimable); accepting again changes nothing; refused (55000) once the ready check has ended or the match was dissolved';

-- @access service, admin; definer
CREATE FUNCTION mm.decline(match_id bigint, player_id bigint)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    r record := mm._ready_match(match_id, player_id);
    m mm.match := r.m;
BEGIN
    IF m.status = 'dissolved' THEN
        RETURN false;
    END IF;
    IF m.status <> 'proposed' THEN
        RAISE EXCEPTION 'match % is % and can no longer be declined', match_id, m.status
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'Every player accepted it.',
                  HINT = 'A player who leaves a match that started deserted it: name the player in the desertions of mm.report_result.';
    END IF;
    PERFORM mm._dodge_reason_warning(m.queue_id, ARRAY[m.match_id]);
    INSERT INTO mm.queue_event (queue_id, kind, match_id, roster_id, player_ids)
    VALUES (m.queue_id, 'declined', m.match_id, r.roster_id, ARRAY[player_id]);
    PERFORM mm._number_events(m.queue_id);  -- on Citus: the queue's own order
    -- after the end of the ready check everyone who did not accept dodged
    IF now() < m.accept_until THEN
        PERFORM mm._dissolve_match(m.queue_id, m.match_id, ARRAY[player_id], 'declined', now());
        PERFORM mm._notify_dissolved(m.queue_id, ARRAY[m.match_id], 'declined');
    ELSE
        PERFORM mm._dissolve_match(m.queue_id, m.match_id, NULL, 'accept_timeout', now());
        PERFORM mm._notify_dissolved(m.queue_id, ARRAY[m.match_id], 'accept_timeout');
    END IF;
    RETURN true;
END
$$;
COMMENT ON FUNCTION mm.decline IS
    'a player declines a proposed match (ready check): the match dissolves at once; the player''s roster is removed and the player gets the queue''s dodge_reason dishonor; the other rosters go back to the queue in their old place; after the end of the ready check, every player who did not accept is a dodger; the queue''s channel announces the dissolved match with its reason at commit; true when it dissolved the match, false when it was already dissolved';
