-- The mixed load's database: two queues the clients play on, one large
-- queue for the kill inside a tick, and schema "load", which holds what the
-- clients did. Every client call is one load.step(): one mm call in a
-- subtransaction, logged in load.ops with the SQLSTATE it ended with, in
-- the same transaction as the call (what the log says committed, did).
CREATE EXTENSION mm;
CREATE EXTENSION amcheck;
-- duo: 2v2 with a two-second ready check; squad: three teams of 3 (ash,
-- oak and elm) without one. Both
-- refuse a player whose last match is not finished, so no player can be in
-- two open matches; each rates with its own key (OpenSkill: a report reads
-- no clock, so a later replay must give the same bits).
SELECT mm.create_queue('duo', '{"team_size": 2, "filter": {"potentials_min": 1}, "accept_timeout": 2,
                                "requeue_while_in_match": false, "rating": {"key": "duo"}}');
SELECT mm.create_queue('squad', '{"team_size": 3, "team_names": ["ash", "oak", "elm"], "filter": {"potentials_min": 1},
                                  "requeue_while_in_match": false, "rating": {"key": "squad", "ladder": true}}');
-- big: one tick matches every roster (no target limit, no time limit), so
-- a tick over it runs long enough to be killed in the middle
SELECT mm.create_queue('big', '{"team_size": 1, "filter": {"potentials_min": 1, "potentials_max": 50,
                                "rosters": 1000000, "limit": 600000}}');

CREATE SCHEMA load;
CREATE TABLE load.ops (kind text NOT NULL, state text NOT NULL, message text);
CREATE TABLE load.rosters (roster_id bigint PRIMARY KEY, queue text NOT NULL);
-- the order reports took their rating rows: the number is drawn after
-- mm.report_result locked every rating row it changes, so among reports
-- that share a player it is their commit order
CREATE SEQUENCE load.report_seq;
CREATE TABLE load.report_order (match_id bigint PRIMARY KEY, seq bigint NOT NULL UNIQUE);

-- a match of the queue in that status, at random (NULL: none)
CREATE FUNCTION load.some_match(queue text, status text) RETURNS bigint LANGUAGE sql AS $$
    SELECT m.match_id FROM mm.match m JOIN mm.queue q USING (queue_id)
    WHERE q.name = some_match.queue AND m.status = some_match.status
    ORDER BY random() LIMIT 1
$$;

-- one call of the given kind; returns false when there was nothing to call it on
CREATE FUNCTION load.call(kind text, queue text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    size int := CASE queue WHEN 'duo' THEN 2 ELSE 3 END;
    n int;
    players bigint[];
    m bigint;
    p bigint;
    rid bigint;
    outcome text;
    teams text[];
    deserter bigint;
    result jsonb;
BEGIN
    CASE kind
    WHEN 'enqueue' THEN
        -- a solo or a party; mostly players who are not waiting, some at random
        n := CASE WHEN random() < 0.6 THEN 1 ELSE 1 + floor(random() * size)::int END;
        IF random() < 0.9 THEN
            players := ARRAY(SELECT x FROM generate_series(1, 600) x
                             WHERE NOT EXISTS (SELECT FROM mm.queued_player qp WHERE qp.player_id = x)
                             ORDER BY random() LIMIT n);
        ELSE
            players := ARRAY(SELECT DISTINCT 1 + floor(random() * 600)::bigint FROM generate_series(1, n));
        END IF;
        IF cardinality(players) = 0 THEN
            RETURN false;
        END IF;
        rid := mm.enqueue(queue, players, 1400 + random() * 200, 50);
        INSERT INTO load.rosters VALUES (rid, queue);
    WHEN 'tick' THEN
        PERFORM count(*) FROM mm.tick(queue);
    WHEN 'accept', 'decline' THEN
        SELECT mr.match_id, x.p INTO m, p
        FROM mm.match mt JOIN mm.match_roster mr USING (queue_id, match_id), unnest(mr.players) x(p)
        WHERE mt.status = 'proposed'
          AND NOT EXISTS (SELECT FROM mm.match_accept a WHERE a.match_id = mr.match_id AND a.player_id = x.p)
        ORDER BY random() LIMIT 1;
        IF NOT FOUND THEN
            RETURN false;
        END IF;
        IF kind = 'accept' THEN
            PERFORM mm.accept(m, p);
        ELSE
            PERFORM mm.decline(m, p);
        END IF;
    WHEN 'backfill' THEN
        m := load.some_match(queue, 'matched');
        IF m IS NULL THEN
            RETURN false;
        END IF;
        PERFORM mm.request_backfill(m, (SELECT t FROM mm.match x, unnest(x.teams) t WHERE x.match_id = m
                                        ORDER BY random() LIMIT 1), 1);
    WHEN 'report' THEN
        m := load.some_match(queue, 'matched');
        IF m IS NULL THEN
            RETURN false;
        END IF;
        -- a team of the match wins (the others lose) or a draw; sometimes a
        -- deserter of a losing team, sometimes a player who played half the
        -- match
        SELECT x.teams INTO teams FROM mm.match x WHERE x.match_id = m;
        outcome := CASE WHEN random() < 0.8 THEN teams[1 + floor(random() * cardinality(teams))::int] ELSE 'draw' END;
        IF outcome <> 'draw' AND random() < 0.15 THEN
            SELECT x.p INTO deserter FROM mm.match_roster mr, unnest(mr.players) x(p)
            WHERE mr.match_id = m AND mr.team <> outcome
            ORDER BY random() LIMIT 1;
        END IF;
        SELECT x.p INTO p FROM mm.match_roster mr, unnest(mr.players) x(p)
        WHERE mr.match_id = m ORDER BY random() LIMIT 1;
        result := jsonb_build_object(
            'teams', (SELECT jsonb_object_agg(t, jsonb_build_object(
                          'rank', CASE WHEN outcome IN (t, 'draw') THEN 1 ELSE 2 END,
                          'score', CASE WHEN outcome = t THEN 500 WHEN outcome = 'draw' THEN 400
                                        ELSE 200 + floor(random() * 290) END,
                          'desertions', CASE WHEN deserter IS NOT NULL
                                                  AND deserter = ANY (ARRAY(SELECT u FROM mm.match_roster mr, unnest(mr.players) u
                                                                            WHERE mr.match_id = m AND mr.team = t))
                                             THEN jsonb_build_array(deserter) ELSE '[]' END))
                      FROM unnest(teams) t),
            'players', CASE WHEN random() < 0.2 THEN jsonb_build_object(p::text, jsonb_build_object('weight', 0.5))
                            ELSE '{}' END);
        PERFORM count(*) FROM mm.report_result(m, result);
        INSERT INTO load.report_order VALUES (m, nextval('load.report_seq'));
    WHEN 'abandon' THEN
        m := load.some_match(queue, 'matched');
        IF m IS NULL THEN
            RETURN false;
        END IF;
        PERFORM mm.abandon_match(m);
    WHEN 'claim' THEN
        PERFORM count(*) FROM mm.claim_matches(queue, 10);
    WHEN 'leave' THEN
        SELECT r.roster_id INTO rid FROM mm.roster r JOIN mm.queue q USING (queue_id)
        WHERE q.name = call.queue ORDER BY random() LIMIT 1;
        IF NOT FOUND THEN
            RETURN false;
        END IF;
        PERFORM mm.leave(rid);
    END CASE;
    RETURN true;
END
$$;

-- one client step: a kind drawn by weight, a queue at random, the call in
-- a subtransaction; logs the outcome (00000, the SQLSTATE, or "idle" when
-- there was nothing to call it on)
CREATE FUNCTION load.step() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    r float8 := random() * 100;
    kind text := CASE WHEN r < 30 THEN 'enqueue' WHEN r < 42 THEN 'tick' WHEN r < 62 THEN 'accept'
                      WHEN r < 64 THEN 'decline' WHEN r < 70 THEN 'backfill' WHEN r < 88 THEN 'report'
                      WHEN r < 90 THEN 'abandon' WHEN r < 96 THEN 'claim' ELSE 'leave' END;
    queue text := CASE WHEN kind IN ('accept', 'decline') OR random() < 0.5 THEN 'duo' ELSE 'squad' END;
    done boolean;
BEGIN
    BEGIN
        done := load.call(kind, queue);
        INSERT INTO load.ops VALUES (kind, CASE WHEN done THEN '00000' ELSE 'idle' END, NULL);
    EXCEPTION WHEN OTHERS THEN
        INSERT INTO load.ops VALUES (kind, SQLSTATE, SQLERRM);
    END;
    RETURN kind;
END
$$;
