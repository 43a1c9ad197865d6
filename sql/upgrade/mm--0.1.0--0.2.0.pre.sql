-- mm 0.1.0 -> 0.2.0 upgrade, part 1 of the generated script (sql/generate.pl):
-- what cannot be re-run from sql/parts. Written by hand, in order:
--   - DROPs of 0.1.0 objects that are gone, or whose signature, result type
--     or argument names changed (every function, aggregate and view is then
--     created again from its single definition in sql/parts);
--   - table, index, sequence and type changes, each with the data of 0.1.0
--     carried over beside it.
-- Data migration that needs the new functions is in the .post.sql file,
-- which runs after they are created. Nothing here creates a function or
-- writes a COMMENT: those come from sql/parts.

-- ==== robustness: aggregates that cannot be forged, finite results ====

-- party_rating_agg: an internal state (linear in the rows, support functions
-- SQL cannot feed a forged state) instead of a float8[] rebuilt on every row.
DROP AGGREGATE mm.party_rating_agg(float8, float8, float8, float8, float8);
DROP AGGREGATE mm.party_rating_agg(float8, float8);
DROP FUNCTION mm.party_rating_accum(float8[], float8, float8, float8, float8, float8);
DROP FUNCTION mm.party_rating_accum(float8[], float8, float8);
DROP FUNCTION mm.party_rating_combine(float8[], float8[]);
DROP FUNCTION mm.party_rating_final(float8[]);

-- Async pool: no per-bucket counter rows. The fill of a bucket is counted
-- from the entries' index when a decision needs it; the rebalancing sample
-- becomes rows that puts only add (mm.async_samples) and that are dumped;
-- find_opponent and offer_entry are C.
-- @create mm.async_samples

-- the 0.1.0 sample of pools that rebalance (player_cache_size set) carries over
INSERT INTO mm.async_samples (pool, labels, bucket, inserts)
SELECT b.pool, b.labels, b.bucket, b.inserts
FROM mm.async_buckets b JOIN mm.async_pools p ON p.pool = b.pool
WHERE b.inserts > 0 AND p.config ->> 'player_cache_size' IS NOT NULL
ORDER BY b.pool, b.labels, b.bucket;

DROP TRIGGER async_count_insert ON mm.async_entries;
DROP TRIGGER async_count_delete ON mm.async_entries;
DROP TRIGGER async_count_update ON mm.async_entries;
DROP FUNCTION mm.async_count_fill();
DROP TABLE mm.async_buckets;
DROP FUNCTION mm.async_fill(text, text[], int);

DROP FUNCTION mm.async_find(text, float8, text[], int, bigint[], bigint);
DROP FUNCTION mm.async_take(jsonb, bigint);


-- ==== queue engine ====
-- The queue tables hold their invariants as keys, foreign keys and CHECKs:
-- a player is a row of mm.queued_player (with its queue, seat and
-- profession) referencing its roster with a cascade, the statement
-- triggers go, rosters' numbers and joined_at are checked by the table,
-- matches get a status and a delivery time, ticket history is kept in
-- mm.ticket_event, and the tick log counts failed targets' reasons. The
-- data of 0.1.0 carries over: waiting rosters with their players, matches
-- with their rosters, the tick log; rosters that break the new CHECKs
-- (non-finite or future joined_at, non-finite numbers) are removed and
-- recorded as such.

DROP VIEW mm.queue_stats;
DROP TRIGGER roster_deleted ON mm.roster;
DROP FUNCTION mm._roster_deleted();
DROP TRIGGER match_deleted ON mm.match;
DROP FUNCTION mm._match_deleted();
DROP FUNCTION mm._queue_query(int, boolean);
DROP FUNCTION mm._match_rosters(text, jsonb, timestamptz, bool);
DROP INDEX mm.queued_player_roster_idx;
DROP FUNCTION mm.alter_queue(text, jsonb);
DROP FUNCTION mm.drop_queue(text);
-- mm.list_queue shows attributes, latencies and roles too: a new row type
DROP FUNCTION mm.list_queue(text, timestamptz);

-- queues: a dropped queue may keep its history; live names are unique
ALTER TABLE mm.queue DROP CONSTRAINT queue_name_key, ADD COLUMN dropped_at timestamptz;
CREATE UNIQUE INDEX queue_name_idx ON mm.queue (name) WHERE dropped_at IS NULL;

-- The life of each ticket, one row per player and state: waiting when
-- queued, then matched, expired, left or removed. Kept after the roster
-- is gone; mm.purge trims it. queue_id has no foreign key: a tick writes
-- a row per matched player, and a check per row cost a third of a
-- full-queue tick; mm.drop_queue and mm.purge delete a queue's rows. event_id orders the events as they
-- happened (their "at" is the tick's time, which a caller may give).
CREATE SEQUENCE mm.ticket_event_id_seq;
CREATE TABLE mm.ticket_event (
    event_id  bigint NOT NULL DEFAULT nextval('mm.ticket_event_id_seq'),
    roster_id bigint NOT NULL,
    player_id bigint NOT NULL,
    status    text NOT NULL,
    at        timestamptz NOT NULL,
    queue_id  int NOT NULL,
    match_id  bigint,
    reason    text,
    CONSTRAINT ticket_event_pkey PRIMARY KEY (roster_id, player_id, status),
    CONSTRAINT ticket_event_status_check CHECK (status IN ('waiting', 'matched', 'expired', 'left', 'removed')),
    CONSTRAINT ticket_event_match_check CHECK ((status = 'matched') = (match_id IS NOT NULL)),
    CONSTRAINT ticket_event_at_check CHECK (isfinite(at))
);
ALTER SEQUENCE mm.ticket_event_id_seq OWNED BY mm.ticket_event.event_id;
CREATE INDEX ticket_event_player_idx ON mm.ticket_event (player_id, event_id);

SELECT pg_catalog.pg_extension_config_dump('mm.ticket_event', '');
SELECT pg_catalog.pg_extension_config_dump('mm.ticket_event_id_seq', '');

-- players: one row each with queue, seat, profession and role (0.1.0 had no
-- roles: none); rows whose roster is gone (TRUNCATE in 0.1.0) are dropped,
-- players of a roster missing from mm.queued_player are added unless
-- queued elsewhere
ALTER TABLE mm.queued_player ADD COLUMN queue_id int, ADD COLUMN seat int, ADD COLUMN profession text,
    ADD COLUMN role text;
UPDATE mm.queued_player qp SET queue_id = r.queue_id, seat = u.o, profession = nullif(r.professions[u.o], '')
FROM mm.roster r, unnest(r.players) WITH ORDINALITY AS u(p, o)
WHERE r.roster_id = qp.roster_id AND u.p = qp.player_id
  AND NOT (NOT (r.rating > '-Infinity' AND r.rating < 'Infinity')
     OR NOT (r.deviation >= 0 AND r.deviation < 'Infinity')
     OR NOT (r.rank > '-Infinity' AND r.rank < 'Infinity')
     OR NOT (r.ladder_points > '-Infinity' AND r.ladder_points < 'Infinity')
     OR NOT (isfinite(r.joined_at) AND r.joined_at <= now()));
DELETE FROM mm.queued_player qp WHERE qp.queue_id IS NULL;
INSERT INTO mm.queued_player (player_id, roster_id, queue_id, seat, profession)
SELECT u.p, r.roster_id, r.queue_id, u.o, nullif(r.professions[u.o], '')
FROM mm.roster r, unnest(r.players) WITH ORDINALITY AS u(p, o)
WHERE u.p IS NOT NULL AND NOT (NOT (r.rating > '-Infinity' AND r.rating < 'Infinity')
     OR NOT (r.deviation >= 0 AND r.deviation < 'Infinity')
     OR NOT (r.rank > '-Infinity' AND r.rank < 'Infinity')
     OR NOT (r.ladder_points > '-Infinity' AND r.ladder_points < 'Infinity')
     OR NOT (isfinite(r.joined_at) AND r.joined_at <= now()))
ON CONFLICT (player_id) DO NOTHING;
-- ticket history: waiting rosters, and the rosters the new CHECKs refuse
-- (non-finite numbers, non-finite or future joined_at), which are removed
INSERT INTO mm.ticket_event (roster_id, player_id, status, at, queue_id)
SELECT qp.roster_id, qp.player_id, 'waiting', r.joined_at, r.queue_id
FROM mm.queued_player qp JOIN mm.roster r USING (roster_id);
INSERT INTO mm.ticket_event (roster_id, player_id, status, at, queue_id, reason)
SELECT DISTINCT ON (r.roster_id, u.p) r.roster_id, u.p, 'removed', now(), r.queue_id, 'invalid roster data in 0.1.0'
FROM mm.roster r, unnest(r.players) AS u(p)
WHERE u.p IS NOT NULL AND (NOT (r.rating > '-Infinity' AND r.rating < 'Infinity')
     OR NOT (r.deviation >= 0 AND r.deviation < 'Infinity')
     OR NOT (r.rank > '-Infinity' AND r.rank < 'Infinity')
     OR NOT (r.ladder_points > '-Infinity' AND r.ladder_points < 'Infinity')
     OR NOT (isfinite(r.joined_at) AND r.joined_at <= now()));
DELETE FROM mm.roster r WHERE (NOT (r.rating > '-Infinity' AND r.rating < 'Infinity')
     OR NOT (r.deviation >= 0 AND r.deviation < 'Infinity')
     OR NOT (r.rank > '-Infinity' AND r.rank < 'Infinity')
     OR NOT (r.ladder_points > '-Infinity' AND r.ladder_points < 'Infinity')
     OR NOT (isfinite(r.joined_at) AND r.joined_at <= now()));
DELETE FROM mm.roster r WHERE NOT EXISTS (SELECT FROM mm.queued_player qp WHERE qp.roster_id = r.roster_id);

ALTER TABLE mm.roster DROP COLUMN players, DROP COLUMN professions;
ALTER TABLE mm.roster
    DROP CONSTRAINT roster_pkey,
    ADD CONSTRAINT roster_pkey PRIMARY KEY (roster_id, queue_id),
    ADD CONSTRAINT roster_rating_finite CHECK (rating > '-Infinity' AND rating < 'Infinity'),
    ADD CONSTRAINT roster_deviation_finite CHECK (deviation >= 0 AND deviation < 'Infinity'),
    ADD CONSTRAINT roster_rank_finite CHECK (rank > '-Infinity' AND rank < 'Infinity'),
    ADD CONSTRAINT roster_ladder_points_finite CHECK (ladder_points > '-Infinity' AND ladder_points < 'Infinity'),
    ADD CONSTRAINT roster_joined_at_check CHECK (isfinite(joined_at) AND joined_at <= now());
CREATE INDEX roster_queue_joined_idx ON mm.roster (queue_id, joined_at);
ALTER TABLE mm.queued_player
    ALTER COLUMN queue_id SET NOT NULL,
    ALTER COLUMN seat SET NOT NULL,
    ADD CONSTRAINT queued_player_seat_key UNIQUE (queue_id, roster_id, seat),
    ADD CONSTRAINT queued_player_roster_fkey FOREIGN KEY (queue_id, roster_id)
        REFERENCES mm.roster (queue_id, roster_id) ON DELETE CASCADE,
    ADD CONSTRAINT queued_player_seat_check CHECK (seat BETWEEN 1 AND 1000),
    ADD CONSTRAINT queued_player_profession_check CHECK (profession <> ''),
    ADD CONSTRAINT queued_player_role_check CHECK (role <> '');

-- matches: status and delivery (0.1.0 matches count as delivered); match
-- rosters get their queue and a foreign key, orphans (a match deleted
-- with triggers off) go
ALTER TABLE mm.match ADD COLUMN status text NOT NULL DEFAULT 'matched', ADD COLUMN delivered_at timestamptz;
UPDATE mm.match SET delivered_at = created_at;
ALTER TABLE mm.match
    ADD CONSTRAINT match_queue_match_key UNIQUE (queue_id, match_id),
    ADD CONSTRAINT match_status_check CHECK (status IN ('matched', 'finished'));
CREATE INDEX match_undelivered_idx ON mm.match (queue_id, match_id) WHERE delivered_at IS NULL;
ALTER TABLE mm.match_roster ADD COLUMN queue_id int;
UPDATE mm.match_roster mr SET queue_id = m.queue_id FROM mm.match m WHERE m.match_id = mr.match_id;
DELETE FROM mm.match_roster mr WHERE mr.queue_id IS NULL;
ALTER TABLE mm.match_roster
    ALTER COLUMN queue_id SET NOT NULL,
    ADD CONSTRAINT match_roster_match_fkey FOREIGN KEY (queue_id, match_id)
        REFERENCES mm.match (queue_id, match_id) ON DELETE CASCADE;
INSERT INTO mm.ticket_event (roster_id, player_id, status, at, queue_id, match_id)
SELECT DISTINCT ON (mr.roster_id, u.p, s.status) mr.roster_id, u.p, s.status,
       CASE WHEN s.status = 'waiting' THEN mr.joined_at ELSE m.created_at END, mr.queue_id,
       CASE WHEN s.status = 'matched' THEN mr.match_id END
FROM mm.match_roster mr JOIN mm.match m USING (match_id), unnest(mr.players) AS u(p),
     (VALUES ('waiting'), ('matched')) AS s(status)
WHERE isfinite(mr.joined_at) AND isfinite(m.created_at);

-- tick log: reasons of failed targets (unknown for 0.1.0 ticks)
ALTER TABLE mm.tick_log
    ADD COLUMN matches_dropped int NOT NULL DEFAULT 0,
    ADD COLUMN rosters_expired int NOT NULL DEFAULT 0,
    ADD COLUMN failed_reasons jsonb NOT NULL DEFAULT '{}',
    ADD CONSTRAINT tick_log_failed_reasons_check CHECK (jsonb_typeof(failed_reasons) = 'object');

-- ==== results exactly once, ratings kept by mm ====

-- From match to result: ratings stored per player and rating key, and
-- mm.report_result, which rates a finished match of a queue exactly once
-- (ratings, ladder points, dishonor for desertions, before and after of
-- every player) in the caller's transaction.

-- One row per player, rating key (what the Guild Wars 2 wiki calls a
-- rating type: ranked, unranked, a profession) and rating family, whose
-- state is one float8[] checked by the family. The CHECK of a state calls its family's validation, which must exist
-- before the tables (the same definition is re-created from its part below).
CREATE FUNCTION mm._rating_state_valid(model text, state float8[])
RETURNS boolean
AS 'MODULE_PATHNAME', 'mm_rating_state_check'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- The same for the functions the queue tables' CHECKs call (a team name, a
-- match's teams and odds, a ticket event's status and match, the event
-- feed's kind, subject and players).
CREATE FUNCTION mm._team_name_valid(team text) RETURNS boolean
AS 'MODULE_PATHNAME', 'mm_team_name_valid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mm._match_teams_valid(teams text[]) RETURNS boolean
AS 'MODULE_PATHNAME', 'mm_match_teams_valid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mm._match_odds_valid(odds float8[], teams text[], red_odds float8, blue_odds float8) RETURNS boolean
AS 'MODULE_PATHNAME', 'mm_match_odds_valid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mm._ticket_status_valid(status text) RETURNS boolean
AS 'MODULE_PATHNAME', 'mm_ticket_status_valid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mm._ticket_match_valid(status text, match_id bigint) RETURNS boolean
AS 'MODULE_PATHNAME', 'mm_ticket_match_valid' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION mm._queue_event_kind_valid(kind text) RETURNS boolean
AS 'MODULE_PATHNAME', 'mm_queue_event_kind_valid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mm._queue_event_subject_valid(kind text, roster_id bigint, match_id bigint) RETURNS boolean
AS 'MODULE_PATHNAME', 'mm_queue_event_subject_valid' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION mm._id_list_valid(ids bigint[]) RETURNS boolean
AS 'MODULE_PATHNAME', 'mm_id_list_valid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- @create mm.ratings

-- A match's result, at most one per match: its primary key is what makes a
-- report happen exactly once.
-- @create mm.match_result

-- @create mm.match_result_player

-- ==== ready check: accept, decline, dissolve ====

-- Matches: proposed (in a ready check until accept_until) and dissolved;
-- only matched ones are claimable. A matched roster keeps its queue place,
-- for a dissolved ready check to give it back (NULL for 0.1.0's matches,
-- none of which had a ready check: they stay matched or finished).
ALTER TABLE mm.match ADD COLUMN accept_until timestamptz;
ALTER TABLE mm.match DROP CONSTRAINT match_status_check;
ALTER TABLE mm.match ADD CONSTRAINT match_status_check CHECK (status IN ('proposed', 'matched', 'dissolved', 'finished'));
ALTER TABLE mm.match ADD CONSTRAINT match_accept_until_check CHECK ((status = 'proposed') = (accept_until IS NOT NULL) AND isfinite(accept_until));
DROP INDEX mm.match_undelivered_idx;
CREATE INDEX match_undelivered_idx ON mm.match (queue_id, match_id) WHERE delivered_at IS NULL AND status IN ('matched', 'finished');
CREATE INDEX match_proposed_idx ON mm.match (queue_id, accept_until) WHERE accept_until IS NOT NULL;
ALTER TABLE mm.match_roster ADD COLUMN position bigint;

-- Ticket history: one row per event (a roster may wait, be proposed and
-- wait again), keyed by event_id; a roster's events by their own index.
ALTER TABLE mm.ticket_event DROP CONSTRAINT ticket_event_pkey;
ALTER TABLE mm.ticket_event ADD CONSTRAINT ticket_event_pkey PRIMARY KEY (event_id);
ALTER TABLE mm.ticket_event DROP CONSTRAINT ticket_event_status_check;
ALTER TABLE mm.ticket_event ADD CONSTRAINT ticket_event_status_check CHECK (mm._ticket_status_valid(status));
ALTER TABLE mm.ticket_event DROP CONSTRAINT ticket_event_match_check;
ALTER TABLE mm.ticket_event ADD CONSTRAINT ticket_event_match_check CHECK (mm._ticket_match_valid(status, match_id));
CREATE INDEX ticket_event_roster_idx ON mm.ticket_event (roster_id, event_id);

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
-- @create mm.match_accept


-- ==== backfill: open seats of running matches filled by the next tick ====

-- Backfill: a player left a running match; the next tick of the match's
-- queue fills the team's open seats from the queue, before it makes new
-- matches, with the matcher's own scoring against that team (src/queue/backfill.c,
-- mm_matcher_backfill in src/queue/matcher.c). The rosters are delivered like a
-- match: on the queue's NOTIFY channel and by mm.claim_matches, marked
-- kind 'backfill'.


-- One row per request. Its match and team are keys: a request is for a
-- match of the queue (cascading with it) and for one of its teams; status
-- says where it is, and the columns each status needs are CHECKed.
-- @create mm.backfill

-- A backfilled roster names its request; the foreign key holds it to the
-- request's match and team.
ALTER TABLE mm.match_roster
    ADD COLUMN backfill_id bigint,
    ADD CONSTRAINT match_roster_backfill_fkey FOREIGN KEY (match_id, team, backfill_id)
        REFERENCES mm.backfill (match_id, team, backfill_id) ON DELETE CASCADE;

-- Queues over Citus workers: the cluster-wide key of waiting players, the
-- queue-id forms Citus delegates, the DBA's step.

-- The cluster-wide key of waiting players on Citus, distributed by player:
-- mm.queued_player is distributed by queue there, so its key holds per queue
-- only. mm.enqueue writes a player's row in the same distributed
-- transaction as the roster; a row whose roster has ended is taken over by
-- the player's next enqueue (ticks never write it).
-- @create mm.waiting_player

-- ==== one vocabulary; async fill bounds ====

-- Async pools: a put counts its bucket only when a bound (the last count
-- plus the entry ids handed out since) does not rule out a decision.

-- @create mm.async_fill_bounds

-- One vocabulary (docs/conventions.md): alter_pool merges or replaces as
-- alter_queue does.

DROP FUNCTION mm.alter_pool(text, jsonb);

-- mm.glicko2_period takes a policy, as mm.glicko2_rate does.

-- The rating-period aggregate with a policy: it collects one player's games
-- and rates them with mm.glicko2_rate, so it equals mm.glicko2_rate with
-- the same policy exactly (clamps, max change per game, the policy's idle
-- rule for a period without games). Its state is the call it will make.

-- @create mm.glicko2_period_state

-- Glicko-2 rating periods: a queue whose rating config says "period":
-- "pending" records its games, mm.close_rating_period rates them.
-- The games of the open Glicko-2 rating period of a rating key (a queue
-- whose rating config says "period": "pending"): one row per player and
-- opposing player of a reported match, scored 1, 0.5 or 0.
-- mm.close_rating_period rates them all at once and removes them.
-- @create mm.rating_period_game

-- ==== the roster's joined_at checked against the wall clock ====

-- "Not in the future" is checked against the time the row is written, not
-- the writer's transaction start: a tick whose transaction began before a
-- roster was queued updates it (a failed target's new position) without
-- tripping over a joined_at later than its own now().
ALTER TABLE mm.roster DROP CONSTRAINT roster_joined_at_check,
    ADD CONSTRAINT roster_joined_at_check CHECK (isfinite(joined_at) AND joined_at <= clock_timestamp());

-- ==== idle ticks share a tick log row ====

-- Consecutive idle ticks of a queue update one row (ticks, last_at)
-- instead of adding one each; every 0.1.0 row stands for one tick.
ALTER TABLE mm.tick_log ADD COLUMN ticks int NOT NULL DEFAULT 1, ADD COLUMN last_at timestamptz;
UPDATE mm.tick_log SET last_at = at;
ALTER TABLE mm.tick_log ALTER COLUMN last_at SET NOT NULL,
    ADD CONSTRAINT tick_log_ticks_check CHECK (ticks >= 1),
    ADD CONSTRAINT tick_log_idle_check CHECK (ticks = 1 OR (rosters_seen = 0 AND matches_made = 0 AND targets_failed = 0
                                                         AND matches_dropped = 0 AND rosters_expired = 0)),
    ADD CONSTRAINT tick_log_last_at_check CHECK (last_at >= at);

-- ==== privileges ====

-- The list of every object with the roles that may use it; its rows are
-- written once, in sql/parts/90_privileges.sql, and the generated script
-- replaces the stored list with them at its end.
-- @create mm.privileges

-- ==== nothing stops a queue: ratings in range, failed dissolves counted ====

-- Table change: mm.tick_log counts the proposed matches a tick could not
-- dissolve (each got a WARNING and stays proposed).
ALTER TABLE mm.tick_log ADD COLUMN dissolves_failed int NOT NULL DEFAULT 0;

-- Data migration: a waiting roster's rating, rank and ladder points lie in
-- [-1e9, 1e9] and its deviation in [0, 1e9] (0.1.0 took any finite value). Rosters outside are
-- clamped into the range, each named by a WARNING (after 100, one WARNING
-- counts the rest), so that the upgrade never aborts on them.
DO $$
DECLARE
    r record;
    n int := 0;
BEGIN
    FOR r IN SELECT x.roster_id, q.name AS queue, x.rating, x.deviation
             FROM mm.roster x JOIN mm.queue q USING (queue_id)
             WHERE NOT (x.rating BETWEEN -1e9 AND 1e9 AND x.deviation BETWEEN 0 AND 1e9)
             ORDER BY x.roster_id LOOP
        n := n + 1;
        IF n <= 100 THEN
            RAISE WARNING 'roster % of queue "%" has rating % and deviation %, out of range: clamped to rating % and deviation %',
                          r.roster_id, r.queue, r.rating, r.deviation,
                          greatest(-1e9, least(1e9, r.rating)), least(1e9, greatest(0, r.deviation));
        END IF;
    END LOOP;
    IF n > 100 THEN
        RAISE WARNING '% more rosters were clamped the same way', n - 100;
    END IF;
    UPDATE mm.roster x SET rating = greatest(-1e9, least(1e9, x.rating)),
                           deviation = least(1e9, greatest(0, x.deviation))
    WHERE NOT (x.rating BETWEEN -1e9 AND 1e9 AND x.deviation BETWEEN 0 AND 1e9);
    -- ranks and ladder points likewise (a backfill's team figures sum them)
    n := 0;
    FOR r IN SELECT x.roster_id, q.name AS queue, x.rank, x.ladder_points
             FROM mm.roster x JOIN mm.queue q USING (queue_id)
             WHERE NOT (x.rank BETWEEN -1e9 AND 1e9 AND x.ladder_points BETWEEN -1e9 AND 1e9)
             ORDER BY x.roster_id LOOP
        n := n + 1;
        IF n <= 100 THEN
            RAISE WARNING 'roster % of queue "%" has rank % and ladder points %, out of range: clamped to rank % and ladder points %',
                          r.roster_id, r.queue, r.rank, r.ladder_points,
                          greatest(-1e9, least(1e9, r.rank)), greatest(-1e9, least(1e9, r.ladder_points));
        END IF;
    END LOOP;
    IF n > 100 THEN
        RAISE WARNING '% more rosters were clamped the same way', n - 100;
    END IF;
    UPDATE mm.roster x SET rank = greatest(-1e9, least(1e9, x.rank)),
                           ladder_points = greatest(-1e9, least(1e9, x.ladder_points))
    WHERE NOT (x.rank BETWEEN -1e9 AND 1e9 AND x.ladder_points BETWEEN -1e9 AND 1e9);
END
$$;
-- Table change: the ranges as CHECKs (the same names as before).
ALTER TABLE mm.roster
    DROP CONSTRAINT roster_rating_finite,
    DROP CONSTRAINT roster_deviation_finite,
    DROP CONSTRAINT roster_rank_finite,
    DROP CONSTRAINT roster_ladder_points_finite,
    ADD CONSTRAINT roster_rating_finite CHECK (rating BETWEEN -1e9 AND 1e9),
    ADD CONSTRAINT roster_deviation_finite CHECK (deviation BETWEEN 0 AND 1e9),
    ADD CONSTRAINT roster_rank_finite CHECK (rank BETWEEN -1e9 AND 1e9),
    ADD CONSTRAINT roster_ladder_points_finite CHECK (ladder_points BETWEEN -1e9 AND 1e9);

-- ==== one vocabulary: internal functions start with "_", the pool's remove_player is remove_entries ====
-- 0.1.0's internal async_* functions are created again as mm._async_*;
-- mm.remove_player(text, bigint) becomes mm.remove_entries (no alias: the
-- name belongs to the queue's mm.remove_player(bigint, bigint)).
-- mm.replay_openskill stays, as a deprecated wrapper of mm.openskill_replay
-- with 0.1.0's signature, so CREATE OR REPLACE rewrites it.
DROP FUNCTION mm.async_pool_config(text);
DROP FUNCTION mm.async_capacity(text, text[], int, jsonb);
DROP FUNCTION mm.async_check_ids(bigint[], text);
DROP FUNCTION mm.async_check_query(float8, text[], int);
DROP FUNCTION mm.async_query(text, float8, text[], int, bigint[], bigint);
DROP FUNCTION mm.async_candidates(text, float8, text[], int, bigint[], bigint, int);
DROP FUNCTION mm.remove_player(text, bigint);

-- ==== the service role sees its matches; a queue's own dodge penalty ====

-- Table change (index): what became of the rosters of a dissolved match
-- (mm.match_players)
CREATE INDEX ticket_event_dissolved_idx ON mm.ticket_event (match_id)
    WHERE match_id IS NOT NULL AND status IN ('waiting', 'removed');

-- Table change: a queue's own dodge penalty (its dodge_timeout)
-- @create mm.queue_dodge

-- ==== roster attributes, latencies and the queue's rules ====
-- Table changes: a roster carries the attributes its queue declares and its
-- latencies by region (carried into mm.match_roster and back when a ready
-- check dissolves); a match records the region its latency rule chose.
-- 0.1.0 rosters and matches have none: '{}' and NULL.
ALTER TABLE mm.roster
    ADD COLUMN attributes jsonb NOT NULL DEFAULT '{}',
    ADD COLUMN latencies jsonb NOT NULL DEFAULT '{}',
    ADD CONSTRAINT roster_attributes_check CHECK (jsonb_typeof(attributes) = 'object' AND jsonb_typeof(latencies) = 'object');
ALTER TABLE mm.match ADD COLUMN region text;
ALTER TABLE mm.match_roster
    ADD COLUMN attributes jsonb NOT NULL DEFAULT '{}',
    ADD COLUMN latencies jsonb NOT NULL DEFAULT '{}';
-- mm.enqueue takes attributes and latencies; mm.match_rosters returns the region
DROP FUNCTION mm.enqueue(text, bigint[], float8, float8, float8, float8, int, text[], timestamptz);
DROP FUNCTION mm.match_rosters(text, jsonb, timestamptz);

-- ==== a matched roster stays in mm.roster until its match ends ====
-- Table changes: a roster in a match keeps its row in mm.roster with its
-- match id (a foreign key to the match), team, wait and backfill request,
-- and its players keep their rows in mm.queued_player until the match is
-- reported or abandoned; the waiting rosters are those without a match
-- (partial indexes). The player key becomes a unique index over the rows
-- not marked requeued (a player who queued again while its match is
-- played). mm.match_roster, the rosters of every match, becomes a view;
-- the table of the rosters of ended matches is mm.ended_roster.
ALTER TABLE mm.roster
    ADD COLUMN match_id bigint,
    ADD COLUMN team text,
    ADD COLUMN waited interval,
    ADD COLUMN backfill_id bigint,
    ADD CONSTRAINT roster_team_check CHECK (mm._team_name_valid(team)),
    ADD CONSTRAINT roster_match_check CHECK ((match_id IS NULL) = (team IS NULL) AND (match_id IS NULL) = (waited IS NULL)
                                             AND (backfill_id IS NULL OR match_id IS NOT NULL));
DROP INDEX mm.roster_queue_position_idx;
CREATE INDEX roster_queue_position_idx ON mm.roster (queue_id, position) WHERE match_id IS NULL;
DROP INDEX mm.roster_queue_joined_idx;
CREATE INDEX roster_queue_joined_idx ON mm.roster (queue_id, joined_at) WHERE match_id IS NULL;
CREATE INDEX roster_match_idx ON mm.roster (match_id) WHERE match_id IS NOT NULL;
ALTER TABLE mm.queued_player ADD COLUMN requeued boolean NOT NULL DEFAULT false;
ALTER TABLE mm.queued_player DROP CONSTRAINT queued_player_pkey;
CREATE UNIQUE INDEX queued_player_player_key ON mm.queued_player (player_id) WHERE NOT requeued;
ALTER TABLE mm.match_roster RENAME TO ended_roster;
ALTER TABLE mm.ended_roster RENAME CONSTRAINT match_roster_pkey TO ended_roster_pkey;
ALTER TABLE mm.ended_roster RENAME CONSTRAINT match_roster_roster_id_key TO ended_roster_roster_id_key;
ALTER TABLE mm.ended_roster RENAME CONSTRAINT match_roster_match_fkey TO ended_roster_match_fkey;
ALTER TABLE mm.ended_roster DROP CONSTRAINT match_roster_team_check;
ALTER TABLE mm.ended_roster ADD CONSTRAINT ended_roster_team_check CHECK (mm._team_name_valid(team));
ALTER TABLE mm.ended_roster RENAME CONSTRAINT match_roster_backfill_fkey TO ended_roster_backfill_fkey;
-- From PostgreSQL 18 each NOT NULL is a constraint named after the table it
-- was made on: the renamed table's get the names a fresh install gives them
-- (before 18 there are none, and this renames nothing).
DO $$
DECLARE
    c name;
BEGIN
    FOR c IN SELECT conname FROM pg_catalog.pg_constraint
             WHERE conrelid = 'mm.ended_roster'::regclass AND contype = 'n' AND conname LIKE 'match\_roster\_%'
             ORDER BY conname
    LOOP
        EXECUTE format('ALTER TABLE mm.ended_roster RENAME CONSTRAINT %I TO %I',
                       c, 'ended_roster_' || substr(c, length('match_roster_') + 1));
    END LOOP;
END
$$;
-- the rosters of 0.1.0's matches that are not finished go back to
-- mm.roster, in their match (0.1.0 made no proposed or dissolved match)
INSERT INTO mm.roster (roster_id, queue_id, position, rating, deviation, rank, ladder_points, dishonor, joined_at,
                       attributes, latencies, match_id, team, waited, backfill_id)
SELECT e.roster_id, e.queue_id, coalesce(e.position, nextval('mm.roster_position_seq')),
       greatest(-1e9, least(1e9, CASE WHEN e.rating = 'NaN' THEN 0 ELSE e.rating END)),
       greatest(0, least(1e9, CASE WHEN e.deviation = 'NaN' THEN 0 ELSE e.deviation END)),
       CASE WHEN e.rank > '-Infinity' AND e.rank < 'Infinity' THEN greatest(-1e9, least(1e9, e.rank)) ELSE 0 END,
       CASE WHEN e.ladder_points > '-Infinity' AND e.ladder_points < 'Infinity'
            THEN greatest(-1e9, least(1e9, e.ladder_points)) ELSE 0 END,
       greatest(0, e.dishonor), least(e.joined_at, now()), e.attributes, e.latencies, e.match_id,
       e.team, e.waited, e.backfill_id
FROM mm.ended_roster e JOIN mm.match m ON m.queue_id = e.queue_id AND m.match_id = e.match_id
WHERE m.status <> 'finished' AND isfinite(e.joined_at)
ORDER BY e.roster_id;
-- their players, in party order: 0.1.0 let them queue again at once, so a
-- player waiting now, or in a later open match, is held there and its row
-- here is marked requeued; the others are held by their last open match
INSERT INTO mm.queued_player (player_id, roster_id, queue_id, seat, profession, requeued)
SELECT u.p, e.roster_id, e.queue_id, u.o,
       CASE WHEN cardinality(e.professions) = cardinality(e.players) THEN nullif(e.professions[u.o], '') END,
       row_number() OVER (PARTITION BY u.p ORDER BY e.match_id DESC, e.roster_id DESC) > 1
       OR EXISTS (SELECT FROM mm.queued_player qp WHERE qp.player_id = u.p)
FROM mm.ended_roster e JOIN mm.match m ON m.queue_id = e.queue_id AND m.match_id = e.match_id,
     unnest(e.players) WITH ORDINALITY AS u(p, o)
WHERE m.status <> 'finished' AND u.o <= 1000
  AND EXISTS (SELECT FROM mm.roster r WHERE r.queue_id = e.queue_id AND r.roster_id = e.roster_id)
ORDER BY u.p;
DELETE FROM mm.ended_roster e USING mm.match m
WHERE m.queue_id = e.queue_id AND m.match_id = e.match_id AND m.status <> 'finished';
ALTER TABLE mm.roster
    ADD CONSTRAINT roster_match_fkey FOREIGN KEY (queue_id, match_id)
        REFERENCES mm.match (queue_id, match_id) ON DELETE CASCADE,
    ADD CONSTRAINT roster_backfill_fkey FOREIGN KEY (match_id, team, backfill_id)
        REFERENCES mm.backfill (match_id, team, backfill_id) ON DELETE CASCADE;
-- mm.match by time alone: no index but its keys leads with queue_id, so
-- that a foreign key's check by (queue_id, match_id) only has the keys to
-- choose from
DROP INDEX mm.match_queue_idx;
CREATE INDEX match_created_idx ON mm.match (created_at);

-- ==== team shapes: any number of teams ====
-- A match names its teams in team order and keeps one odds per team; the
-- rosters' teams are any names (1 to 63 bytes) instead of red and blue.
-- 0.1.0's matches are red against blue, with the odds they had.
ALTER TABLE mm.match ADD COLUMN teams text[], ADD COLUMN odds float8[];
UPDATE mm.match SET teams = '{red,blue}', odds = ARRAY[red_odds, blue_odds];
ALTER TABLE mm.match
    ALTER COLUMN teams SET NOT NULL,
    ALTER COLUMN odds SET NOT NULL,
    ADD CONSTRAINT match_teams_check CHECK (mm._match_teams_valid(teams)),
    ADD CONSTRAINT match_odds_check CHECK (mm._match_odds_valid(odds, teams, red_odds, blue_odds));
-- mm.match_prediction takes the match's teams and both predictions return
-- every team's odds
DROP FUNCTION mm.match_prediction(text[], float8[], float8[], float8[], integer[], jsonb);
DROP FUNCTION mm.match_prediction_teams(float8, float8, float8, float8, float8, float8, jsonb);
-- mm.update_roster takes attributes, latencies and roles as mm.enqueue does
DROP FUNCTION mm.update_roster(bigint, float8, float8, float8, float8, int, text[]);

-- ==== calibrated odds ====
-- A queue's odds are its rating family's scaled by what its results taught
-- it (docs/ratings.md, "Calibrated odds"). A match records the scale its
-- tick applied; 0.1.0's matches, whose odds came from the GW2 prediction,
-- have none, and their results teach the calibration nothing.
ALTER TABLE mm.match ADD COLUMN odds_scale float8,
    ADD CONSTRAINT match_odds_scale_check CHECK (odds_scale > 0 AND odds_scale < 'Infinity');
-- per queue, what its results taught it
-- @create mm.odds_calibration
-- the results its next tick learns from
-- @create mm.odds_result

-- ==== what-if replays ====
-- One row per roster queued from now on: what it arrived with, kept after it
-- leaves (0.1.0 kept no such record: replays start with the update)
-- @create mm.roster_arrival

-- ==== production safety: roles kept when a match ends; odds by the family that made them ====
-- Table changes: an ended match's rosters keep each player's role (0.1.0
-- had no roles: none), and a match records the rating family whose odds
-- its tick stored (0.1.0's matches: NULL, their odds came from the GW2
-- prediction), so that a queue's calibration learns only from results of
-- its current family.
ALTER TABLE mm.ended_roster ADD COLUMN roles text[] NOT NULL DEFAULT '{}';
ALTER TABLE mm.match ADD COLUMN model text;

-- ==== the queues' event feed and metrics ====

-- The event feed a pooled backend reads (mm.events) and the counters purge
-- folds its old events into (mm.queue_metrics).
-- @create mm.queue_event
-- @create mm.queue_event_position
-- @create mm.queue_counters

-- ==== match quality: block lists, a player's own latency limit ====
-- Players block players (mm.block): one table, global. A roster carries its
-- players' own latency limit (mm.enqueue's max_latency); 0.1.0's rosters
-- have none.
-- @create mm.player_block
ALTER TABLE mm.roster ADD COLUMN max_latency float8,
    ADD CONSTRAINT roster_max_latency_check CHECK (max_latency > 0 AND max_latency <= 3600000);
CREATE INDEX roster_queue_max_latency_idx ON mm.roster (queue_id) WHERE match_id IS NULL AND max_latency IS NOT NULL;
-- ==== the matcher's input kept between ticks ====
-- What mm.run_ticks reads to prove the rosters it kept from its last tick
-- current (40_queue_input.sql): the changes since a queue's last tick and
-- which tick read them last. Unlogged and empty: no backend has kept
-- anything yet.
-- @create mm.queue_change
-- @create mm.queue_change_read
