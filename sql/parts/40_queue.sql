-- The queue: its tables, enqueue and leave, the ticket lifecycle,
-- transactional ticks for pg_cron, match delivery and statistics. The
-- matcher it runs is sql/parts/39_matcher.sql (src/matcher/); ready checks
-- and backfill are 41_queue_ready.sql and 42_queue_backfill.sql; results
-- are 45_results.sql.

-- Queue tables. All are owned by the extension and dumped with the data
-- (pg_extension_config_dump), sequences too.

-- @access internal
CREATE SEQUENCE mm.queue_id_seq;
COMMENT ON SEQUENCE mm.queue_id_seq IS 'ids of mm.queue';
-- @access service, admin, analyst
CREATE TABLE mm.queue (
    queue_id   int PRIMARY KEY DEFAULT nextval('mm.queue_id_seq'),
    name       text NOT NULL CHECK (name <> ''),
    config     jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now(),
    dropped_at timestamptz
);
CREATE UNIQUE INDEX queue_name_idx ON mm.queue (name) WHERE dropped_at IS NULL;
COMMENT ON INDEX mm.queue_name_idx IS 'a live queue''s name is unique; a dropped queue whose history is kept keeps its name';
ALTER SEQUENCE mm.queue_id_seq OWNED BY mm.queue.queue_id;
COMMENT ON TABLE mm.queue IS 'matchmaking queues and their matcher configuration (see mm.matcher_config); dropped_at is set when mm.drop_queue keeps the history';

-- @access internal
CREATE SEQUENCE mm.roster_id_seq;
COMMENT ON SEQUENCE mm.roster_id_seq IS 'ids of rosters (parties), waiting or matched';
-- @access internal
CREATE SEQUENCE mm.roster_position_seq;
COMMENT ON SEQUENCE mm.roster_position_seq IS 'queue order of waiting rosters; a failed target takes a new, last position';

-- The CHECKs of the busiest tables (a roster's team, a match's teams and
-- odds, a ticket event's status and match; the event feed's in
-- 43_queue_events.sql, a backfill request's and a result player's team)
-- are calls of these immutable functions (src/queue/row_checks.c), each the
-- rule its constraint's comment states. PostgreSQL compiles a table's CHECKs
-- from their stored expressions again in every statement that writes it,
-- at a cost that follows the expression's size; a call with the row's
-- columns is a fraction of the SQL it replaces. They are internal: only
-- the owner writes mm's tables.
-- @access internal
CREATE FUNCTION mm._team_name_valid(team text)
RETURNS boolean
AS 'MODULE_PATHNAME', 'mm_team_name_valid'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm._team_name_valid IS
    'internal (CHECK of a team column): whether a team name has 1 to 63 bytes, as a queue''s team_names';
-- @access internal
CREATE FUNCTION mm._match_teams_valid(teams text[])
RETURNS boolean
AS 'MODULE_PATHNAME', 'mm_match_teams_valid'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm._match_teams_valid IS
    'internal (CHECK of mm.match): whether a match''s teams are 2 to 64 names, none empty, in a one-dimensional array from 1 without NULLs';
-- @access internal
CREATE FUNCTION mm._match_odds_valid(odds float8[], teams text[], red_odds float8, blue_odds float8)
RETURNS boolean
AS 'MODULE_PATHNAME', 'mm_match_odds_valid'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm._match_odds_valid IS
    'internal (CHECK of mm.match): whether odds are one per team, in a one-dimensional array from 1 without NULLs, whose first two are red_odds and blue_odds';
-- @access internal
CREATE FUNCTION mm._ticket_status_valid(status text)
RETURNS boolean
AS 'MODULE_PATHNAME', 'mm_ticket_status_valid'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm._ticket_status_valid IS
    'internal (CHECK of mm.ticket_event): whether a status is waiting, proposed, accepted, matched, expired, left or removed';
-- @access internal
CREATE FUNCTION mm._ticket_match_valid(status text, match_id bigint)
RETURNS boolean
AS 'MODULE_PATHNAME', 'mm_ticket_match_valid'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm._ticket_match_valid IS
    'internal (CHECK of mm.ticket_event): whether a ticket event names a match as its status requires: proposed, accepted and matched do, expired and left do not, waiting and removed may';

-- Every table a queue owns carries queue_id, so that its rows can be placed
-- beside the queue's (for example distributed by queue). Invariants are
-- keys, foreign keys and CHECKs: no triggers, so TRUNCATE, replication
-- role "replica" and pg_restore --disable-triggers cannot bypass them.
-- @access admin, analyst
CREATE TABLE mm.roster (
    roster_id     bigint NOT NULL DEFAULT nextval('mm.roster_id_seq'),
    queue_id      int NOT NULL,
    position      bigint NOT NULL DEFAULT nextval('mm.roster_position_seq'),
    rating        float8 NOT NULL,
    deviation     float8 NOT NULL DEFAULT 0,
    rank          float8 NOT NULL DEFAULT 0,
    ladder_points float8 NOT NULL DEFAULT 0,
    dishonor      int NOT NULL DEFAULT 0,
    joined_at     timestamptz NOT NULL DEFAULT now(),
    attributes    jsonb NOT NULL DEFAULT '{}',
    latencies     jsonb NOT NULL DEFAULT '{}',
    CONSTRAINT roster_pkey PRIMARY KEY (roster_id, queue_id),
    CONSTRAINT roster_queue_id_fkey FOREIGN KEY (queue_id) REFERENCES mm.queue ON DELETE CASCADE,
    CONSTRAINT roster_rating_finite CHECK (rating BETWEEN -1e9 AND 1e9),
    CONSTRAINT roster_deviation_finite CHECK (deviation BETWEEN 0 AND 1e9),
    CONSTRAINT roster_rank_finite CHECK (rank BETWEEN -1e9 AND 1e9),
    CONSTRAINT roster_ladder_points_finite CHECK (ladder_points BETWEEN -1e9 AND 1e9),
    CONSTRAINT roster_dishonor_check CHECK (dishonor >= 0),
    CONSTRAINT roster_joined_at_check CHECK (isfinite(joined_at) AND joined_at <= clock_timestamp()),
    CONSTRAINT roster_attributes_check CHECK (jsonb_typeof(attributes) = 'object' AND jsonb_typeof(latencies) = 'object'),
    -- a matched roster stays here, its match recorded (below)
    match_id      bigint,
    team          text,
    waited        interval,
    backfill_id   bigint,
    CONSTRAINT roster_team_check CHECK (mm._team_name_valid(team)),
    CONSTRAINT roster_match_check CHECK ((match_id IS NULL) = (team IS NULL) AND (match_id IS NULL) = (waited IS NULL)
                                         AND (backfill_id IS NULL OR match_id IS NOT NULL)),
    -- the players' own latency limit (mm.enqueue's max_latency), in ms
    max_latency   float8,
    CONSTRAINT roster_max_latency_check CHECK (max_latency > 0 AND max_latency <= 3600000)
);
CREATE INDEX roster_queue_position_idx ON mm.roster (queue_id, position) WHERE match_id IS NULL;
CREATE INDEX roster_queue_joined_idx ON mm.roster (queue_id, joined_at) WHERE match_id IS NULL;
CREATE INDEX roster_match_idx ON mm.roster (match_id) WHERE match_id IS NOT NULL;
CREATE INDEX roster_queue_max_latency_idx ON mm.roster (queue_id) WHERE match_id IS NULL AND max_latency IS NOT NULL;
COMMENT ON TABLE mm.roster IS 'rosters (tickets) of a queue, their players in mm.queued_player: waiting (match_id NULL), or in the match a tick made of them, which they stay in, with their team, until it is reported or abandoned (then they move to mm.ended_roster) or its ready check dissolves (then they wait again, or are removed)';
COMMENT ON CONSTRAINT roster_pkey ON mm.roster IS 'a roster is one row, named by its id and queue: the one index on roster_id, which serves a lookup by id alone and the players'' foreign key on (queue_id, roster_id); ids come from mm.roster_id_seq';
COMMENT ON INDEX mm.roster_queue_position_idx IS 'a queue''s waiting rosters in queue order';
COMMENT ON INDEX mm.roster_match_idx IS 'the rosters of a match being played (or in its ready check)';
COMMENT ON COLUMN mm.roster.match_id IS 'the match the roster is in (a foreign key to mm.match), NULL while it waits';
COMMENT ON COLUMN mm.roster.team IS 'the roster''s team in its match, one of the match''s teams (mm.match.teams: red, blue, ... or the queue''s team_names), NULL while it waits';
COMMENT ON CONSTRAINT roster_team_check ON mm.roster IS 'a team is named by 1 to 63 bytes, as a queue''s team_names';
COMMENT ON COLUMN mm.roster.waited IS 'how long the roster waited before its match (the tick''s time less joined_at), NULL while it waits';
COMMENT ON COLUMN mm.roster.backfill_id IS 'the backfill request that put the roster into its running match; NULL for the rosters the match was made with, and while it waits';
COMMENT ON CONSTRAINT roster_match_check ON mm.roster IS 'a roster in a match has its team and wait, a waiting roster none; only a matched roster names a backfill request';
COMMENT ON COLUMN mm.roster.attributes IS 'the roster''s values of the attributes its queue declares (config key "attributes"), defaults filled in by mm.enqueue; the queue''s rules read them';
COMMENT ON COLUMN mm.roster.latencies IS 'the roster''s latency to each region, in milliseconds (region -> ms, finite, at least 0); a queue''s latency rule reads it';
COMMENT ON CONSTRAINT roster_attributes_check ON mm.roster IS 'attributes and latencies are JSON objects';
COMMENT ON INDEX mm.roster_queue_joined_idx IS 'a queue''s waiting rosters by time joined (ticket expiry)';
COMMENT ON INDEX mm.roster_queue_max_latency_idx IS 'a queue''s waiting rosters with a latency limit of their own (a tick reads them: few, if any)';
COMMENT ON COLUMN mm.roster.max_latency IS 'the players'' own latency limit in milliseconds (mm.enqueue''s max_latency): the queue''s latency rule never puts the roster in a match played in a region farther than that; NULL: none';
COMMENT ON CONSTRAINT roster_max_latency_check ON mm.roster IS 'a latency limit is above 0 ms and at most an hour (the latency rule''s range)';
COMMENT ON CONSTRAINT roster_rating_finite ON mm.roster IS 'a waiting roster''s rating lies in [-1e9, 1e9] (finite, and so are the figures derived from it)';
COMMENT ON CONSTRAINT roster_deviation_finite ON mm.roster IS 'a waiting roster''s deviation lies in [0, 1e9]';
COMMENT ON CONSTRAINT roster_rank_finite ON mm.roster IS 'a roster''s rank lies in [-1e9, 1e9], so that a team''s or a match''s figures over up to 1000 players stay finite';
COMMENT ON CONSTRAINT roster_ladder_points_finite ON mm.roster IS 'a roster''s ladder points lie in [-1e9, 1e9], so that a team''s or a match''s figures over up to 1000 players stay finite';
COMMENT ON CONSTRAINT roster_joined_at_check ON mm.roster IS 'joined_at is finite and not in the future (the wall clock when the row is written: a tick whose transaction began before a roster was queued may still update it)';

-- A player is a row, from its enqueue until its roster leaves: waiting,
-- then in the match a tick made (a tick does not touch the players of the
-- rosters it matches). The unique index on player_id keeps a player in at
-- most one roster across all queues, waiting or in a match, and deleting a
-- roster (or TRUNCATE ... CASCADE) takes its players with it. The one
-- exception is a queue's requeue_while_in_match: a player who queues again
-- while its match is played keeps its row in that match, marked requeued,
-- which the unique index no longer counts.
-- @access admin, analyst
CREATE TABLE mm.queued_player (
    player_id  bigint NOT NULL,
    roster_id  bigint NOT NULL,
    queue_id   int NOT NULL,
    seat       int NOT NULL,
    profession text,
    role       text,
    requeued   boolean NOT NULL DEFAULT false,
    CONSTRAINT queued_player_seat_key UNIQUE (queue_id, roster_id, seat),
    CONSTRAINT queued_player_roster_fkey FOREIGN KEY (queue_id, roster_id)
        REFERENCES mm.roster (queue_id, roster_id) ON DELETE CASCADE,
    CONSTRAINT queued_player_seat_check CHECK (seat BETWEEN 1 AND 1000),
    CONSTRAINT queued_player_profession_check CHECK (profession <> ''),
    CONSTRAINT queued_player_role_check CHECK (role <> '')
);
CREATE UNIQUE INDEX queued_player_player_key ON mm.queued_player (player_id) WHERE NOT requeued;
COMMENT ON TABLE mm.queued_player IS 'the players of rosters, waiting or in a match being played, one row each: a player is in at most one roster across all queues (queued_player_player_key); seat is its place in the party, profession its profession if the roster has them, role its role (one of the queue''s declared roles) if the roster gave them';
COMMENT ON INDEX mm.queued_player_player_key IS 'a player is in at most one roster, waiting or in an open match, across all queues; a row marked requeued is not counted';
COMMENT ON COLUMN mm.queued_player.requeued IS 'the player queued again while the roster''s match was being played (requeue_while_in_match) or after its ready check ended: the row only records it in that match (a dissolve removes the roster)';
COMMENT ON INDEX mm.queued_player_seat_key IS 'players of a roster in party order';

-- @access internal
CREATE SEQUENCE mm.match_id_seq;
COMMENT ON SEQUENCE mm.match_id_seq IS 'ids of mm.match';
-- @access internal
CREATE SEQUENCE mm.tick_id_seq;
COMMENT ON SEQUENCE mm.tick_id_seq IS 'ids of mm.tick_log';
-- @access admin, analyst
CREATE TABLE mm.match (
    match_id      bigint NOT NULL DEFAULT nextval('mm.match_id_seq'),
    queue_id      int NOT NULL,
    tick_id       bigint NOT NULL,
    created_at    timestamptz NOT NULL,
    prediction    float8 NOT NULL,
    red_odds      float8 NOT NULL,
    blue_odds     float8 NOT NULL,
    rating_spread float8 NOT NULL,
    status        text NOT NULL DEFAULT 'matched',
    delivered_at  timestamptz,
    accept_until  timestamptz,
    region        text,
    teams         text[] NOT NULL,
    odds          float8[] NOT NULL,
    odds_scale    float8,
    model         text,
    CONSTRAINT match_pkey PRIMARY KEY (match_id),
    CONSTRAINT match_queue_match_key UNIQUE (queue_id, match_id),
    CONSTRAINT match_queue_id_fkey FOREIGN KEY (queue_id) REFERENCES mm.queue ON DELETE CASCADE,
    CONSTRAINT match_status_check CHECK (status IN ('proposed', 'matched', 'dissolved', 'finished')),
    CONSTRAINT match_accept_until_check CHECK ((status = 'proposed') = (accept_until IS NOT NULL) AND isfinite(accept_until)),
    CONSTRAINT match_teams_check CHECK (mm._match_teams_valid(teams)),
    CONSTRAINT match_odds_check CHECK (mm._match_odds_valid(odds, teams, red_odds, blue_odds)),
    CONSTRAINT match_odds_scale_check CHECK (odds_scale > 0 AND odds_scale < 'Infinity')
);
ALTER SEQUENCE mm.match_id_seq OWNED BY mm.match.match_id;
-- Matches by time (the last hour's of a queue, those old enough to purge):
-- on created_at alone, no index of mm.match but its keys leads with
-- queue_id. A lookup by (queue_id, match_id), the check of each foreign key
-- to a match (a matched roster's row in mm.roster above all), then has no
-- other index than a key to choose: over an index leading with queue_id it
-- read every match of the queue with match_id as a filter, which the
-- planner chose when the statistics said mm.match was empty (rolled-back
-- ticks, then ANALYZE): a tick that matched 4,000 rosters of 20,000 took
-- 3.9 s instead of 0.7 s, one of 100,000 several minutes.
CREATE INDEX match_created_idx ON mm.match (created_at);
CREATE INDEX match_undelivered_idx ON mm.match (queue_id, match_id) WHERE delivered_at IS NULL AND status IN ('matched', 'finished');
CREATE INDEX match_proposed_idx ON mm.match (queue_id, accept_until) WHERE accept_until IS NOT NULL;
COMMENT ON TABLE mm.match IS 'matches made by ticks: their teams in team order, prediction in [-1, 1] (-1 red, or with more teams the earlier team of the most lopsided pairing, dominates), each team''s odds of victory, rating spread (max - min effective rating of its rosters), status (proposed: in its ready check until accept_until; matched: ready to play; dissolved: its ready check failed; finished), when mm.claim_matches delivered it';
COMMENT ON COLUMN mm.match.teams IS 'the match''s teams in team order, as its queue named them when it was made (red, blue, team_3, ... or the queue''s team_names); its rosters'' teams are among them';
COMMENT ON COLUMN mm.match.odds IS 'each team''s odds of victory, in the order of teams (they add up to one)';
COMMENT ON COLUMN mm.match.odds_scale IS 'the scale the queue''s calibration applied to its rating family''s odds when the tick made the match (1: the family''s own odds; see mm.odds_calibration); NULL: odds a tick''s rating family did not make (a match carried over from 0.1.0, whose odds came from the GW2 prediction, or written directly), which the calibration does not learn from';
COMMENT ON CONSTRAINT match_odds_scale_check ON mm.match IS 'a scale is positive and finite';
COMMENT ON COLUMN mm.match.model IS 'the rating family whose odds the tick stored (the queue''s rating.model then); the calibration learns from the match''s result only while the queue keeps that family; NULL: a match carried over from 0.1.0 or written directly';
COMMENT ON COLUMN mm.match.red_odds IS 'the first team''s odds (odds[1]), kept for readers of two-team matches';
COMMENT ON COLUMN mm.match.blue_odds IS 'the second team''s odds (odds[2]), kept for readers of two-team matches';
COMMENT ON CONSTRAINT match_teams_check ON mm.match IS 'a match has 2 to 64 teams, named, in a one-dimensional array from 1';
COMMENT ON CONSTRAINT match_odds_check ON mm.match IS 'one odds per team, in team order; red_odds and blue_odds are the first two';
COMMENT ON COLUMN mm.match.accept_until IS 'end of the ready check of a proposed match (the queue''s accept_timeout after the tick); NULL once it is matched or dissolved, and for queues without a ready check';
COMMENT ON COLUMN mm.match.region IS 'the region the match is played in, chosen by the queue''s latency rule (the region with the lowest worst latency among those where every roster is within the rule''s limit); NULL without a latency rule';
COMMENT ON CONSTRAINT match_accept_until_check ON mm.match IS 'a proposed match, and only a proposed one, has a finite end of its ready check';
COMMENT ON INDEX mm.match_created_idx IS 'matches by time (a queue''s last hour, purge); not led by queue_id, so that a lookup by (queue_id, match_id), such as a foreign key''s check, only has the keys to choose from';
COMMENT ON INDEX mm.match_undelivered_idx IS 'matches of a queue not yet claimed (mm.claim_matches): matched or finished, never proposed or dissolved';
COMMENT ON INDEX mm.match_proposed_idx IS 'proposed matches of a queue by the end of their ready check (ticks dissolve those past it)';

-- A matched roster stays in mm.roster (its match id there is a foreign
-- key to the match) until its match ends; then it moves here, with its
-- players, as the match's history.
-- @access admin, analyst
CREATE TABLE mm.ended_roster (
    match_id      bigint NOT NULL,
    roster_id     bigint NOT NULL,
    team          text NOT NULL,
    players       bigint[] NOT NULL,
    rating        float8 NOT NULL,
    deviation     float8 NOT NULL,
    rank          float8 NOT NULL,
    ladder_points float8 NOT NULL,
    dishonor      int NOT NULL,
    professions   text[] NOT NULL,
    joined_at     timestamptz NOT NULL,
    waited        interval NOT NULL,
    queue_id      int NOT NULL,
    position      bigint,
    backfill_id   bigint,
    attributes    jsonb NOT NULL DEFAULT '{}',
    latencies     jsonb NOT NULL DEFAULT '{}',
    roles         text[] NOT NULL DEFAULT '{}',
    CONSTRAINT ended_roster_pkey PRIMARY KEY (match_id, roster_id),
    CONSTRAINT ended_roster_roster_id_key UNIQUE (roster_id),
    CONSTRAINT ended_roster_match_fkey FOREIGN KEY (queue_id, match_id)
        REFERENCES mm.match (queue_id, match_id) ON DELETE CASCADE,
    CONSTRAINT ended_roster_team_check CHECK (mm._team_name_valid(team))
);
COMMENT ON TABLE mm.ended_roster IS 'the rosters of ended matches (reported or abandoned), their team, players and data when matched, moved from mm.roster when the match ended; mm.match_roster shows them beside the rosters of open matches';
COMMENT ON CONSTRAINT ended_roster_team_check ON mm.ended_roster IS 'a team is named by 1 to 63 bytes, as a queue''s team_names';
COMMENT ON COLUMN mm.ended_roster.position IS 'the roster''s place in queue order when matched (NULL for matches made by 0.1.0)';
COMMENT ON COLUMN mm.ended_roster.backfill_id IS 'the backfill request that put the roster into the running match; NULL for the rosters the match was made with';
COMMENT ON COLUMN mm.ended_roster.attributes IS 'the roster''s attributes when matched (mm.roster.attributes)';
COMMENT ON COLUMN mm.ended_roster.latencies IS 'the roster''s latencies by region when matched (mm.roster.latencies)';
COMMENT ON COLUMN mm.ended_roster.roles IS 'each player''s role in the match, in party order (mm.queued_player.role), or empty when the roster gave none';

-- A roster of a match refers to it, by a foreign key on (queue_id, match_id).
ALTER TABLE mm.roster
    ADD CONSTRAINT roster_match_fkey FOREIGN KEY (queue_id, match_id)
        REFERENCES mm.match (queue_id, match_id) ON DELETE CASCADE;

-- Every roster of every match, open or ended, as one relation: the rosters
-- of open matches (proposed or being played) from mm.roster with their
-- players in party order, those of ended matches from mm.ended_roster.
-- An open match's rosters are joined to their players and grouped by
-- roster (every column of the roster a grouping column), not read by a
-- subquery per roster: a condition on the view's queue_id, match_id or
-- roster_id reaches mm.roster's indexes and, through the join's equality
-- on queue_id, mm.queued_player too, so that on Citus a read of one
-- queue's matches runs whole on the queue's shard (a correlated subquery
-- names no queue, and Citus would send it to every shard).
-- @access admin, analyst
CREATE VIEW mm.match_roster AS
SELECT r.match_id, r.roster_id, r.team,
       coalesce(array_agg(qp.player_id ORDER BY qp.seat) FILTER (WHERE qp.player_id IS NOT NULL), '{}') AS players,
       r.rating, r.deviation, r.rank, r.ladder_points, r.dishonor,
       coalesce(array_agg(qp.profession ORDER BY qp.seat) FILTER (WHERE qp.profession IS NOT NULL), '{}') AS professions,
       r.joined_at, r.waited, r.queue_id, r.position, r.backfill_id, r.attributes, r.latencies,
       coalesce(array_agg(qp.role ORDER BY qp.seat) FILTER (WHERE qp.role IS NOT NULL), '{}') AS roles
FROM mm.roster r
LEFT JOIN mm.queued_player qp ON qp.queue_id = r.queue_id AND qp.roster_id = r.roster_id
WHERE r.match_id IS NOT NULL
GROUP BY r.queue_id, r.roster_id, r.match_id, r.team, r.rating, r.deviation, r.rank, r.ladder_points, r.dishonor,
         r.joined_at, r.waited, r.position, r.backfill_id, r.attributes, r.latencies
UNION ALL
SELECT e.match_id, e.roster_id, e.team, e.players, e.rating, e.deviation, e.rank, e.ladder_points, e.dishonor,
       e.professions, e.joined_at, e.waited, e.queue_id, e.position, e.backfill_id, e.attributes, e.latencies,
       e.roles
FROM mm.ended_roster e;
COMMENT ON VIEW mm.match_roster IS 'the rosters of each match, open (from mm.roster, players in party order from mm.queued_player) or ended (mm.ended_roster), their team and their data when matched, each player''s role (roles, in party order; empty when the roster gave none); a roster is in at most one match (a dissolved match gives its rosters up)';

-- The life of each ticket, one row per player and event: waiting when
-- queued, then expired, left or removed; with a ready check proposed,
-- accepted, then matched, or removed or waiting again when the match
-- dissolves; a backfill's rosters matched. A roster a tick matches without
-- a ready check has no event of its own: its row of mm.match_roster (the
-- roster, its players, its match) records it once, instead of a row per
-- player here (which was most of a full tick's writes); mm.ticket_status
-- and mm.roster_status read both. Kept after the roster is gone; mm.purge
-- trims it. queue_id has no foreign key (a check per row would cost more
-- than the row); mm.drop_queue and mm.purge delete a queue's rows.
-- event_id orders the events as they happened (their "at" is the tick's
-- time, which a caller may give).
-- @access internal
CREATE SEQUENCE mm.ticket_event_id_seq;
COMMENT ON SEQUENCE mm.ticket_event_id_seq IS 'ids of mm.ticket_event, in the order events are recorded';
-- @access admin, analyst
CREATE TABLE mm.ticket_event (
    event_id  bigint NOT NULL DEFAULT nextval('mm.ticket_event_id_seq'),
    roster_id bigint NOT NULL,
    player_id bigint NOT NULL,
    status    text NOT NULL,
    at        timestamptz NOT NULL,
    queue_id  int NOT NULL,
    match_id  bigint,
    reason    text,
    CONSTRAINT ticket_event_pkey PRIMARY KEY (event_id),
    CONSTRAINT ticket_event_status_check CHECK (mm._ticket_status_valid(status)),
    CONSTRAINT ticket_event_match_check CHECK (mm._ticket_match_valid(status, match_id)),
    CONSTRAINT ticket_event_at_check CHECK (isfinite(at))
);
ALTER SEQUENCE mm.ticket_event_id_seq OWNED BY mm.ticket_event.event_id;
CREATE INDEX ticket_event_player_idx ON mm.ticket_event (player_id, event_id);
CREATE INDEX ticket_event_roster_idx ON mm.ticket_event (roster_id, event_id);
CREATE INDEX ticket_event_dissolved_idx ON mm.ticket_event (match_id)
    WHERE match_id IS NOT NULL AND status IN ('waiting', 'removed');
COMMENT ON TABLE mm.ticket_event IS 'ticket history: per roster and player, when it started waiting and how it ended (expired, left, removed, with a reason; a roster a tick matched without a ready check has its row in mm.match_roster instead); with a ready check also proposed and accepted (with the match), and waiting again or removed (with the dissolved match and the reason declined, accept_timeout or drop_queue)';
COMMENT ON CONSTRAINT ticket_event_status_check ON mm.ticket_event IS 'a status is waiting, proposed, accepted, matched, expired, left or removed';
COMMENT ON CONSTRAINT ticket_event_match_check ON mm.ticket_event IS 'proposed, accepted and matched name their match; waiting and removed may (a dissolved match); expired and left do not';
COMMENT ON INDEX mm.ticket_event_player_idx IS 'a player''s tickets by time (mm.ticket_status)';
COMMENT ON INDEX mm.ticket_event_roster_idx IS 'a roster''s history in order (mm.roster_status)';
COMMENT ON INDEX mm.ticket_event_dissolved_idx IS 'what became of the rosters of a dissolved match: waiting again or removed (mm.match_players)';

-- @access admin, analyst
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
    mean_rating_spread float8,
    matches_dropped    int NOT NULL DEFAULT 0,
    rosters_expired    int NOT NULL DEFAULT 0,
    failed_reasons     jsonb NOT NULL DEFAULT '{}',
    ticks              int NOT NULL DEFAULT 1,
    last_at            timestamptz NOT NULL,
    dissolves_failed   int NOT NULL DEFAULT 0,
    CONSTRAINT tick_log_failed_reasons_check CHECK (jsonb_typeof(failed_reasons) = 'object'),
    CONSTRAINT tick_log_ticks_check CHECK (ticks >= 1),
    CONSTRAINT tick_log_idle_check CHECK (ticks = 1 OR (rosters_seen = 0 AND matches_made = 0 AND targets_failed = 0
                                                         AND matches_dropped = 0 AND rosters_expired = 0)),
    CONSTRAINT tick_log_last_at_check CHECK (last_at >= at)
);
CREATE INDEX tick_log_queue_idx ON mm.tick_log (queue_id, at);
COMMENT ON TABLE mm.tick_log IS 'one row per mm.tick: duration, rosters seen, matches made, failed targets with their reasons counted, matches dropped because a roster left meanwhile, rosters expired, oldest wait, ready checks it could not dissolve; consecutive idle ticks (nothing waiting, nothing done) share one row, counted in ticks, the last at last_at';
COMMENT ON COLUMN mm.tick_log.rosters_seen IS 'the waiting rosters the tick read: the first ones in queue order as far as its targets needed, the whole queue when a target needed more (the queue''s length is in mm.queue_stats)';
COMMENT ON COLUMN mm.tick_log.ticks IS 'how many ticks the row stands for: 1, or more for consecutive idle ticks of the queue (nothing waiting, nothing done), which update one row instead of adding one each';
COMMENT ON COLUMN mm.tick_log.last_at IS 'the time of the last tick the row stands for (at for a single tick): the queue''s last tick is max(last_at)';
COMMENT ON COLUMN mm.tick_log.dissolves_failed IS 'proposed matches whose ready check had ended that the tick could not dissolve (each got a WARNING; they stay proposed and the next tick tries again)';
COMMENT ON INDEX mm.tick_log_queue_idx IS 'ticks of a queue by time';

SELECT pg_catalog.pg_extension_config_dump('mm.queue', '');
SELECT pg_catalog.pg_extension_config_dump('mm.queue_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('mm.roster', '');
SELECT pg_catalog.pg_extension_config_dump('mm.roster_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('mm.roster_position_seq', '');
SELECT pg_catalog.pg_extension_config_dump('mm.queued_player', '');
SELECT pg_catalog.pg_extension_config_dump('mm.match', '');
SELECT pg_catalog.pg_extension_config_dump('mm.match_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('mm.ended_roster', '');
SELECT pg_catalog.pg_extension_config_dump('mm.ticket_event', '');
SELECT pg_catalog.pg_extension_config_dump('mm.ticket_event_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('mm.tick_log', '');
SELECT pg_catalog.pg_extension_config_dump('mm.tick_id_seq', '');

-- A roster's attributes and latencies, checked at enqueue.

-- @access internal
CREATE FUNCTION mm._check_attributes(config jsonb, attributes jsonb, latencies jsonb)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'mm_check_attributes'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm._check_attributes IS
    'internal: check a roster''s attributes against the attributes a queue config declares (22023 naming the attribute) and its latencies (region -> finite ms, at least 0; at least one region when the config has a latency rule); returns the attributes with the declared defaults filled in';

-- Queues

-- @access admin; definer
CREATE FUNCTION mm.create_queue(name text, config jsonb DEFAULT '{}')
RETURNS void
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF name IS NULL THEN PERFORM mm._null_arg('name'); END IF;
    PERFORM mm._require_primary('mm.create_queue');
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
    PERFORM mm._check_name('queue name', name);
    INSERT INTO mm.queue (name, config) VALUES (create_queue.name, mm.matcher_config(config));
    PERFORM mm._check_queue_reasons(name, mm.matcher_config(config));
EXCEPTION WHEN unique_violation THEN
    RAISE EXCEPTION 'queue "%" already exists', name
        USING ERRCODE = 'duplicate_object',
              HINT = 'Pick another name, or change its config with mm.alter_queue.';
END
$$;
COMMENT ON FUNCTION mm.create_queue IS
    'create a queue with a matcher config (keys: team_size, filter, scoring, prediction; see mm.matcher_config); stores the config complete, as mm.matcher_config returns it';

-- Merge jsonb objects: b's keys replace a's, nested objects merge.
-- @access internal
CREATE FUNCTION mm._jsonb_merge(a jsonb, b jsonb)
RETURNS jsonb
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mm, pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN jsonb_typeof(a) = 'object' AND jsonb_typeof(b) = 'object' THEN
               a || coalesce((SELECT jsonb_object_agg(k.key,
                                                      CASE WHEN a ? k.key THEN mm._jsonb_merge(a -> k.key, k.value)
                                                           ELSE k.value END)
                              FROM jsonb_each(b) k), '{}')
           ELSE b END
$$;
COMMENT ON FUNCTION mm._jsonb_merge IS
    'internal: b merged into a: b''s keys replace a''s, nested objects are merged key by key';

-- @access admin; definer
CREATE FUNCTION mm.alter_queue(name text, config jsonb, replace boolean DEFAULT false)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q mm.queue;
    new_cfg jsonb;
    size int;
    removed int;
    too_large bigint[];
BEGIN
    IF name IS NULL THEN PERFORM mm._null_arg('name'); END IF;
    IF config IS NULL OR replace IS NULL THEN
        RAISE EXCEPTION 'queue config and replace must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass ''{}'' to change nothing.';
    END IF;
    -- FOR NO KEY UPDATE: ticks and enqueues (FOR KEY SHARE through their
    -- foreign keys) do not wait for it
    SELECT * INTO q FROM mm.queue WHERE queue.name = alter_queue.name AND queue.dropped_at IS NULL FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'queue "%" does not exist', name
            USING ERRCODE = 'undefined_object', HINT = 'Create it with mm.create_queue.';
    END IF;
    -- another rating family: its options start from its own defaults
    IF pg_catalog.jsonb_typeof(config -> 'rating') = 'object' AND config -> 'rating' ? 'model'
       AND config #>> '{rating,model}' IS DISTINCT FROM q.config #>> '{rating,model}' THEN
        q.config := q.config #- '{rating,options}';
    END IF;
    new_cfg := mm.matcher_config(CASE WHEN replace THEN config ELSE mm._jsonb_merge(q.config, config) END);
    size := (new_cfg ->> 'team_size')::int;
    UPDATE mm.queue SET config = new_cfg WHERE queue.queue_id = q.queue_id;
    PERFORM mm._check_queue_reasons(name, new_cfg);
    -- rosters larger than a team now could never match: take them out
    -- (found first, then taken out by a statement of their own: on Citus
    -- a function that runs statements on the queue's shard is not called
    -- from a statement that itself runs there)
    too_large := ARRAY(SELECT qp.roster_id FROM mm.queued_player qp
                       JOIN mm.roster r ON r.queue_id = qp.queue_id AND r.roster_id = qp.roster_id
                       WHERE qp.queue_id = q.queue_id AND r.match_id IS NULL
                       GROUP BY qp.roster_id HAVING count(*) > size);
    SELECT count(*) INTO removed FROM mm._end_rosters(too_large, 'removed', 'team_size', false, now(), q.queue_id);
    IF removed > 0 THEN
        RAISE NOTICE '% rosters of queue "%" had more players than the new team size and were removed', removed, name
            USING HINT = 'mm.ticket_status tells their players; they may queue again in smaller parties.';
    END IF;
    RETURN new_cfg;
END
$$;
COMMENT ON FUNCTION mm.alter_queue IS
    'change some keys of a queue''s config (nested objects merge; replace => true starts again from the defaults; a new rating.model starts rating.options from that family''s defaults); stores and returns the config complete; the next tick uses it; rosters larger than a new team_size are removed (reason team_size)';

-- @access admin; definer
CREATE FUNCTION mm.drop_queue(name text, keep_history boolean DEFAULT true)
RETURNS void
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    id int;
    dissolved bigint[];
    waiting bigint[];
BEGIN
    IF name IS NULL THEN PERFORM mm._null_arg('name'); END IF;
    IF keep_history IS NULL THEN PERFORM mm._null_arg('keep_history'); END IF;
    SELECT q.queue_id INTO id FROM mm.queue q
    WHERE q.name = drop_queue.name AND q.dropped_at IS NULL FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'queue "%" does not exist', name
            USING ERRCODE = 'undefined_object', HINT = 'See the queues in mm.queue.';
    END IF;
    IF keep_history IS DISTINCT FROM false THEN
        UPDATE mm.queue q SET dropped_at = now() WHERE q.queue_id = id;
        -- ready checks in progress end without a dodger (their rosters are
        -- removed: the queue is dropped)
        dissolved := ARRAY(SELECT m.match_id FROM mm.match m WHERE m.queue_id = id AND m.accept_until IS NOT NULL
                           ORDER BY m.match_id FOR UPDATE);
        PERFORM mm._dissolve_match(id, x, '{}', 'drop_queue', now()) FROM unnest(dissolved) x;
        PERFORM mm._notify_dissolved(id, dissolved, 'drop_queue');
        waiting := ARRAY(SELECT r.roster_id FROM mm.roster r WHERE r.queue_id = id AND r.match_id IS NULL);
        PERFORM mm._end_rosters(waiting, 'removed', 'drop_queue', false, now(), id);
    ELSE
        DELETE FROM mm.ticket_event e WHERE e.queue_id = id;
        DELETE FROM mm.roster_arrival a WHERE a.queue_id = id;
        DELETE FROM mm.queue_event e WHERE e.queue_id = id;
        DELETE FROM mm.queue_event_position p WHERE p.queue_id = id;
        DELETE FROM mm.queue_counters c WHERE c.queue_id = id;
        DELETE FROM mm.queue_dodge d WHERE d.queue_id = id;
        DELETE FROM mm.queue q WHERE q.queue_id = id;
    END IF;
END
$$;
COMMENT ON FUNCTION mm.drop_queue IS
    'drop a queue: its waiting rosters are removed, its matches in a ready check dissolved without dishonor; with keep_history (the default) its matches, ticket history and tick log stay (the queue row is marked dropped, its name free again) until mm.purge trims them; keep_history => false deletes them all';

-- Look up a queue by name, or fail.
-- @access internal
CREATE FUNCTION mm._queue(name text)
RETURNS mm.queue
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q mm.queue;
BEGIN
    IF name IS NULL THEN PERFORM mm._null_arg('queue'); END IF;
    SELECT * INTO q FROM mm.queue WHERE queue.name = _queue.name AND queue.dropped_at IS NULL;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'queue "%" does not exist', name
            USING ERRCODE = 'undefined_object', HINT = 'Create it with mm.create_queue.';
    END IF;
    RETURN q;
END
$$;
COMMENT ON FUNCTION mm._queue IS 'internal: the queue of that name, or an error';


-- Rosters

-- Check a roster's numbers (enqueue and update_roster); the table's CHECKs
-- hold the same rules, these give the message.
-- @access internal
CREATE FUNCTION mm._check_roster(rating float8, deviation float8, rank float8,
                                 ladder_points float8, dishonor int, professions text[], players int)
RETURNS void
LANGUAGE plpgsql STABLE
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
        IF array_position(professions, '') IS NOT NULL THEN
            RAISE EXCEPTION 'professions must not be empty strings'
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        IF cardinality(professions) NOT IN (0, players) THEN
            RAISE EXCEPTION 'professions must name one profession per player'
                USING ERRCODE = 'invalid_parameter_value',
                      DETAIL = format('The roster has %s players and %s professions.', players, cardinality(professions)),
                      HINT = 'Give one profession per player, in the order of players, or none.';
        END IF;
        -- a profession is part of a rating key (key/profession)
        PERFORM mm._check_name('profession', x) FROM unnest(professions) x;
    END IF;
    -- ratings, deviations, ranks and ladder points have a finite range
    -- (the table's CHECKs hold it too): every figure derived from them
    -- (effective ratings, ranges, spreads, team and match averages and
    -- sums over up to 1000 players, a backfill's team figures) stays finite
    FOR n, v IN VALUES ('rating', rating), ('deviation', deviation), ('rank', rank), ('ladder_points', ladder_points) LOOP
        IF abs(v) > 1e9 THEN
            RAISE EXCEPTION '% is out of range', n
                USING ERRCODE = 'invalid_parameter_value',
                      DETAIL = format('The value is %s.', v),
                      HINT = 'A roster''s rating, rank and ladder points lie between -1e9 and 1e9, its deviation between 0 and 1e9.';
        END IF;
    END LOOP;
END
$$;
COMMENT ON FUNCTION mm._check_roster IS
    'internal: check a roster''s rating, rank and ladder points (from -1e9 to 1e9), deviation (from 0 to 1e9), dishonor and professions (each a name of at most 63 bytes)';

-- Check a roster's roles (enqueue and update_roster): one per player, in the
-- order of its players, or none; each one of the queue's declared roles.
-- @access internal
CREATE FUNCTION mm._check_roles(config jsonb, queue text, roles text[], players int, what text DEFAULT 'roster')
RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    role text;
BEGIN
    IF array_position(roles, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'roles must not contain nulls' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF cardinality(roles) NOT IN (0, players) THEN
        RAISE EXCEPTION 'roles must name one role per player'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The %s has %s players and %s roles.', what, players, cardinality(roles)),
                  HINT = 'Give one role per player, in the order of players, or none.';
    END IF;
    SELECT x INTO role FROM unnest(roles) x
    WHERE NOT x = ANY (ARRAY(SELECT jsonb_array_elements_text(config -> 'roles'))) LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'unknown role "%"', role
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = CASE WHEN jsonb_array_length(config -> 'roles') = 0
                              THEN format('Queue "%s" declares no roles (config key "roles").', queue)
                              ELSE format('Queue "%s" declares: %s.', queue,
                                          (SELECT string_agg(x, ', ') FROM jsonb_array_elements_text(config -> 'roles') x)) END;
    END IF;
END
$$;
COMMENT ON FUNCTION mm._check_roles IS
    'internal: check a roster''s roles (or a backfill request''s, "what") against its queue''s complete config (mm.matcher_config): one per player or none, each a role the queue declares';

-- @access service, admin; definer
CREATE FUNCTION mm.enqueue(queue text, players bigint[], rating float8, deviation float8 DEFAULT 0,
                           rank float8 DEFAULT 0, ladder_points float8 DEFAULT 0,
                           dishonor int DEFAULT NULL, professions text[] DEFAULT '{}',
                           joined_at timestamptz DEFAULT now(), attributes jsonb DEFAULT '{}',
                           latencies jsonb DEFAULT '{}', roles text[] DEFAULT '{}',
                           max_latency float8 DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
-- the two settings its body changes on a single node, restored on return
SET plan_cache_mode = auto
SET enable_seqscan = on
AS $$
DECLARE
    q mm.queue := mm._queue(queue);
    cfg jsonb := mm.matcher_config(q.config);
    team_size int := (cfg ->> 'team_size')::int;
    n int := cardinality(players);
    p bigint;
    other bigint;
    s timestamptz;
    stacks int;
    id bigint;
    distributed boolean := mm._queues_distributed();
    held boolean;
BEGIN
    -- On a single node every statement below reads by a key (a player's
    -- rows, a roster, a match, an event by its player): each is planned
    -- once per session (generic plans; planning three of them again on
    -- every call, as the plan cache chose for their array parameter, cost
    -- two thirds of an enqueue), and no plan scans a table (one made while
    -- a table was empty or small would keep scanning it as it grows). The
    -- function's SET clause restores both on return. Not on Citus, which
    -- cannot plan a statement over every shard with parameters left in it.
    IF NOT distributed THEN
        PERFORM pg_catalog.set_config('plan_cache_mode', 'force_generic_plan', true),
                pg_catalog.set_config('enable_seqscan', 'off', true);
    END IF;
    IF queue IS NULL THEN PERFORM mm._null_arg('queue'); END IF;
    IF players IS NULL THEN PERFORM mm._null_arg('players'); END IF;
    PERFORM mm._require_primary('mm.enqueue');
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
    IF deviation IS NULL OR rank IS NULL OR ladder_points IS NULL
       OR professions IS NULL OR joined_at IS NULL OR attributes IS NULL OR latencies IS NULL OR roles IS NULL THEN
        RAISE EXCEPTION 'deviation, rank, ladder_points, professions, joined_at, attributes, latencies and roles must not be null'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    PERFORM mm._check_roles(cfg, queue, roles, n);
    IF NOT isfinite(joined_at) THEN
        RAISE EXCEPTION 'joined_at must be finite' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF joined_at > now() THEN
        RAISE EXCEPTION 'joined_at must not be in the future'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('joined_at is %s and the transaction started at %s.', joined_at, now()),
                  HINT = 'Leave joined_at out to queue the roster now.';
    END IF;
    PERFORM mm._check_roster(rating, deviation, rank, ladder_points, dishonor, professions, n);
    -- the queue's declared attributes, defaults filled in; latencies
    attributes := mm._check_attributes(q.config, attributes, latencies);
    -- the players' own latency limit: for the queue's latency rule
    IF max_latency IS NOT NULL THEN
        IF NOT (max_latency > 0 AND max_latency <= 3600000) THEN
            RAISE EXCEPTION 'max_latency is out of range'
                USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The value is %s.', max_latency),
                      HINT = 'A latency limit is a number of milliseconds above 0 and at most 3600000, or NULL for none.';
        END IF;
        IF NOT EXISTS (SELECT FROM jsonb_array_elements(cfg -> 'rules') x WHERE x ->> 'type' = 'latency') THEN
            RAISE EXCEPTION 'queue "%" has no latency rule to hold max_latency', queue
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'Leave max_latency NULL, or add a latency rule to the queue''s config.';
        END IF;
    END IF;

    -- dishonor: players in a timeout now may not queue (whatever joined_at
    -- says); stacks default the roster's dishonor. A player without a row in
    -- mm.dishonor_players has neither (most players, most of the time): one
    -- probe of its key decides that, and mm.dishonor_statuses, an SQL
    -- function whose statements PostgreSQL parses and plans again on every
    -- call, runs only for a roster with a record
    stacks := 0;
    IF EXISTS (SELECT FROM mm.dishonor_players d WHERE d.player_id = ANY (players)) THEN
        SELECT d.player_id, d.timeout_until INTO p, s
        FROM mm.dishonor_statuses(players, now()) d
        WHERE d.timeout_until > now() ORDER BY d.timeout_until DESC LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'player % is in a dishonor timeout', p
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      DETAIL = format('The timeout lasts until %s.', s),
                      HINT = format('The player can queue again at %s.', s);
        END IF;
        -- the roster's dishonor: its players' stacks, saturating at the
        -- largest int (a player's stacks saturate there too)
        SELECT least(coalesce(sum(d.stacks), 0), 2147483647)::int INTO stacks FROM mm.dishonor_statuses(players, now()) d;
    END IF;
    -- the queue's own dodge penalty (dodge_timeout): this queue only
    SELECT d.player_id, d.until INTO p, s
    FROM mm.queue_dodge d
    WHERE d.queue_id = q.queue_id AND d.player_id = ANY (players) AND d.until > now()
    ORDER BY d.until DESC LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'player % dodged a ready check of queue "%"', p, queue
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = format('The queue''s dodge_timeout keeps the player out of it until %s.', s),
                  HINT = format('The player can queue here again at %s, and in other queues now.', s);
    END IF;

    -- (on Citus mm._hold_players checks this below, on the players' own
    -- rows, without asking every shard of every queue)
    -- the players' rows, locked in player order first: a dissolve or a
    -- tick's backfill changing the roster of one is waited for, and what
    -- follows reads it as it is then
    PERFORM FROM mm.queued_player qp
    WHERE NOT distributed AND qp.player_id = ANY (players) AND NOT qp.requeued
    ORDER BY qp.player_id FOR UPDATE;
    held := FOUND;
    -- from the players' rows to their rosters, each by its key: a scalar
    -- subquery cannot become a join, so no plan reads the waiting rosters
    -- (one made on a new queue's empty statistics would, on every call)
    SELECT qp.player_id, qp.roster_id INTO p, other
    FROM mm.queued_player qp
    WHERE NOT distributed AND qp.player_id = ANY (players) AND NOT qp.requeued
      AND (SELECT r.match_id IS NULL FROM mm.roster r WHERE r.queue_id = qp.queue_id AND r.roster_id = qp.roster_id)
    ORDER BY qp.player_id LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'player % is already queued', p
            USING ERRCODE = 'unique_violation',
                  DETAIL = format('The player is in waiting roster %s.', other),
                  HINT = format('Call mm.leave(%s) first.', other);
    END IF;

    -- a player in a ready check (a proposed match, until its end) is not
    -- free to queue
    IF NOT distributed THEN
        SELECT e.player_id, e.match_id INTO p, other
        FROM unnest(players) AS u(x)
        CROSS JOIN LATERAL (SELECT e.player_id, e.match_id, e.status, e.queue_id FROM mm.ticket_event e
                            WHERE e.player_id = u.x ORDER BY e.event_id DESC LIMIT 1) e
        WHERE e.status IN ('proposed', 'accepted')
          AND (SELECT m.status = 'proposed' AND m.accept_until > now() FROM mm.match m
               WHERE m.queue_id = e.queue_id AND m.match_id = e.match_id)
        ORDER BY e.player_id LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'player % is in the ready check of match %', p, other
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      HINT = format('Accept the match with mm.accept(%s, %s), or decline it with mm.decline.', other, p);
        END IF;
    END IF;

    -- requeue_while_in_match false: a player whose last match is not
    -- finished waits for it (on Citus mm._hold_players checks both, below)
    IF NOT distributed AND NOT (cfg ->> 'requeue_while_in_match')::boolean THEN
        SELECT u.x, e.match_id INTO p, other
        -- each player's last roster that went into a match (with the player
        -- in it): its waiting events from the last, each event's roster
        -- looked up by its key, in the match it is in or ended in (never a
        -- read of every match's rosters), then that match by its key
        FROM unnest(players) AS u(x)
        CROSS JOIN LATERAL (
            SELECT x.queue_id, x.match_id
            FROM mm.ticket_event e
            CROSS JOIN LATERAL (
                SELECT r.queue_id, r.match_id FROM mm.roster r
                WHERE r.queue_id = e.queue_id AND r.roster_id = e.roster_id AND r.match_id IS NOT NULL
                  AND EXISTS (SELECT FROM mm.queued_player qp
                              WHERE qp.queue_id = r.queue_id AND qp.roster_id = r.roster_id AND qp.player_id = e.player_id)
                UNION ALL
                SELECT x.queue_id, x.match_id FROM mm.ended_roster x
                WHERE x.queue_id = e.queue_id AND x.roster_id = e.roster_id AND e.player_id = ANY (x.players)) x
            WHERE e.player_id = u.x AND e.status = 'waiting'
            ORDER BY e.event_id DESC LIMIT 1) e
        WHERE (SELECT m.status <> 'finished' FROM mm.match m WHERE m.queue_id = e.queue_id AND m.match_id = e.match_id)
        ORDER BY u.x LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'player % is in match % that is not finished', p, other
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      DETAIL = format('Queue "%s" does not let players queue again while in a match.', queue),
                      HINT = 'Queue the player again once the match is finished, or set the queue''s requeue_while_in_match to true.';
        END IF;
    END IF;

    -- a player still held by a roster in a match (requeue_while_in_match,
    -- or a ready check that ended and is not dissolved yet) keeps its row
    -- there, marked requeued: the player key counts the new roster only,
    -- and a dissolve removes the old one
    -- (on Citus the key holds per queue: this queue's rows only). Only when
    -- the lock above found a row of these players: a new player costs no
    -- more than that lookup.
    IF held OR distributed THEN
        UPDATE mm.queued_player qp SET requeued = true
        WHERE qp.player_id = ANY (players) AND NOT qp.requeued
          AND (NOT distributed OR qp.queue_id = q.queue_id)
          AND EXISTS (SELECT FROM mm.roster r
                      WHERE r.queue_id = qp.queue_id AND r.roster_id = qp.roster_id AND r.match_id IS NOT NULL);
    END IF;

    -- no rating given: the roster's rating and deviation from the players'
    -- mm.ratings rows of the queue's rating key
    IF rating IS NULL THEN
        SELECT r.rating, r.deviation INTO rating, deviation
        FROM mm.roster_rating(players, cfg -> 'rating', now(), professions) r;
        PERFORM mm._check_roster(rating, deviation, 0, 0, 0, NULL, n);
    END IF;
    INSERT INTO mm.roster (queue_id, rating, deviation, rank, ladder_points, dishonor, joined_at, attributes,
                           latencies, max_latency)
    VALUES (q.queue_id, rating, deviation, rank, ladder_points, coalesce(dishonor, stacks), joined_at, attributes,
            latencies, enqueue.max_latency)
    RETURNING roster.roster_id INTO id;
    -- a kept input of the queue reads it at the next tick (40_queue_input.sql)
    INSERT INTO mm.queue_change (queue_id, roster_id) VALUES (q.queue_id, id);
    BEGIN
        -- in player order, as a dissolve gives players back: an enqueue and
        -- a dissolve (or two enqueues) sharing players wait for each other
        -- instead of deadlocking
        INSERT INTO mm.queued_player (player_id, roster_id, queue_id, seat, profession, role)
        SELECT u.x, id, q.queue_id, u.o, professions[u.o], roles[u.o]
        FROM unnest(players) WITH ORDINALITY AS u(x, o)
        ORDER BY u.x;
    EXCEPTION WHEN unique_violation THEN
        RAISE EXCEPTION 'a player of the roster was queued at the same time'
            USING ERRCODE = 'unique_violation', HINT = 'Another session queued one of these players; see mm.queued_player.';
    END;
    INSERT INTO mm.ticket_event (roster_id, player_id, status, at, queue_id)
    SELECT id, u.x, 'waiting', joined_at, q.queue_id FROM unnest(players) AS u(x);
    -- the arrival as the matcher reads it (the roster's row as written), for mm.whatif
    INSERT INTO mm.roster_arrival (roster_id, queue_id, arrived_at, position, joined_at, rating, deviation, rank,
                                   ladder_points, dishonor, players, professions, roles, attributes, latencies)
    SELECT r.roster_id, r.queue_id, now(), r.position, r.joined_at, r.rating, r.deviation, r.rank, r.ladder_points,
           r.dishonor, players, nullif(professions, '{}'), nullif(roles, '{}'), nullif(r.attributes, '{}'),
           nullif(r.latencies, '{}')
    FROM mm.roster r WHERE r.queue_id = q.queue_id AND r.roster_id = id;
    -- the queue's event feed (mm.events)
    INSERT INTO mm.queue_event (queue_id, kind, roster_id, player_ids, detail)
    VALUES (q.queue_id, 'queued', id, players, jsonb_build_object('joined_at', joined_at));
    PERFORM mm._number_events(q.queue_id);  -- on Citus: the queue's own order
    -- on Citus the key above holds per queue: hold the players cluster-wide
    IF distributed THEN
        PERFORM mm._hold_players(q.queue_id, id, players, queue, NOT (cfg ->> 'requeue_while_in_match')::boolean);
    END IF;
    RETURN id;
END
$$;
COMMENT ON FUNCTION mm.enqueue IS
    'queue a roster (party); roles (one per player, or none) must be roles the queue declares; attributes are checked against the queue''s declared attributes (defaults filled in) and latencies (region -> ms) against its latency rule; max_latency (ms, NULL: none) is the players'' own limit, which the latency rule holds the roster to; rating NULL takes the roster''s rating and deviation from mm.ratings (mm.roster_rating, professions blended by the queue''s profession_ratio); joined_at may not lie in the future; players in a dishonor timeout now, kept out of this queue by its dodge_timeout, or in the ready check of a proposed match, are refused; dishonor defaults to its players'' stacks (mm.dishonor_status); returns the roster id';

-- Take rosters out of their queue with a reason and record it per player;
-- the rosters that are not waiting (or are locked by a tick, when
-- skip_locked) are left alone. Returns the rosters taken out.
-- @access internal
CREATE FUNCTION mm._end_rosters(roster_ids bigint[], status text, reason text, skip_locked boolean,
                                at timestamptz DEFAULT now(), queue_id int DEFAULT NULL)
RETURNS SETOF bigint
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    ids bigint[];
    q int;
    d record;
    p_roster bigint[] := '{}';
    p_player bigint[] := '{}';
    gone bigint[] := '{}';
    distributed boolean := mm._queues_distributed();
BEGIN
    IF _end_rosters.queue_id IS NOT NULL THEN
        -- one queue, named by the caller: every statement is kept to that
        -- queue by an equality on queue_id (on Citus, to its shard; the
        -- queue-id forms of mm.leave run there). The waiting rosters are
        -- locked first: a tick matching one is waited for (or skipped, when
        -- skip_locked), and then it is in a match, not waiting, and is left
        -- alone with its players.
        IF skip_locked THEN
            ids := ARRAY(SELECT r.roster_id FROM mm.roster r
                         WHERE r.queue_id = _end_rosters.queue_id AND r.roster_id = ANY (roster_ids)
                           AND r.match_id IS NULL
                         ORDER BY r.roster_id FOR UPDATE SKIP LOCKED);
        ELSE
            ids := ARRAY(SELECT r.roster_id FROM mm.roster r
                         WHERE r.queue_id = _end_rosters.queue_id AND r.roster_id = ANY (roster_ids)
                           AND r.match_id IS NULL
                         ORDER BY r.roster_id FOR UPDATE);
        END IF;
        -- one table a statement, none reading another's result (on Citus a
        -- CTE's result goes to every node of the cluster, the other
        -- workers included, in a two-phase commit)
        FOR d IN DELETE FROM mm.queued_player qp
                 WHERE qp.queue_id = _end_rosters.queue_id AND qp.roster_id = ANY (ids)
                 RETURNING qp.roster_id, qp.player_id LOOP
            p_roster := p_roster || d.roster_id;
            p_player := p_player || d.player_id;
        END LOOP;
        FOR d IN DELETE FROM mm.roster r
                 WHERE r.queue_id = _end_rosters.queue_id AND r.roster_id = ANY (ids)
                 RETURNING r.roster_id LOOP
            gone := gone || d.roster_id;
        END LOOP;
        INSERT INTO mm.queue_change (queue_id, roster_id)
        SELECT _end_rosters.queue_id, g.id FROM unnest(gone) g(id);
        INSERT INTO mm.ticket_event (roster_id, player_id, status, at, queue_id, reason)
        SELECT u.r, u.p, _end_rosters.status, _end_rosters.at, _end_rosters.queue_id, _end_rosters.reason
        FROM unnest(p_roster, p_player) u(r, p);
        -- the queue's event feed (mm.events): one per roster
        INSERT INTO mm.queue_event (queue_id, at, kind, roster_id, player_ids, detail)
        SELECT _end_rosters.queue_id, _end_rosters.at,
               CASE _end_rosters.status WHEN 'expired' THEN 'expired' ELSE 'left' END, u.r,
               array_agg(u.p ORDER BY u.p),
               jsonb_build_object('reason', coalesce(_end_rosters.reason, 'leave'))
        FROM unnest(p_roster, p_player) u(r, p) GROUP BY u.r ORDER BY u.r;
        RETURN QUERY SELECT g.id FROM unnest(gone) g(id);
        IF distributed THEN
            PERFORM mm._number_events(_end_rosters.queue_id);  -- on Citus: the queue's own order
        END IF;
        RETURN;
    END IF;
    -- rosters of any queues: each queue's in turn, in queue order (their
    -- queues read without a lock; a roster's queue never changes)
    FOR q IN SELECT DISTINCT r.queue_id FROM mm.roster r WHERE r.roster_id = ANY (roster_ids) ORDER BY 1 LOOP
        RETURN QUERY SELECT x FROM mm._end_rosters(roster_ids, status, reason, skip_locked, at, q) x;
    END LOOP;
END
$$;
COMMENT ON FUNCTION mm._end_rosters IS
    'internal: take waiting rosters out of their queue (left, expired or removed) and record it in mm.ticket_event, locked first (those another session holds skipped when skip_locked); with queue_id, only rosters of that queue; without it, each of their queues in turn, every statement kept to one queue';

-- @access service, admin; definer
CREATE FUNCTION mm.leave(roster_id bigint)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
SET plan_cache_mode = auto
SET enable_seqscan = on
AS $$
BEGIN
    -- as mm.enqueue: on a single node every statement of a leave
    -- (mm._end_rosters with its queue) reads by a key, planned once per
    -- session, never a scan
    IF NOT mm._queues_distributed() THEN
        PERFORM pg_catalog.set_config('plan_cache_mode', 'force_generic_plan', true),
                pg_catalog.set_config('enable_seqscan', 'off', true);
    END IF;
    IF roster_id IS NULL THEN PERFORM mm._null_arg('roster_id'); END IF;
    PERFORM mm._require_primary('mm.leave');
    RETURN EXISTS (SELECT FROM mm._end_rosters(ARRAY[roster_id], 'left', NULL, false, now(),
                                               mm._roster_queue(roster_id)));
END
$$;
COMMENT ON FUNCTION mm.leave IS
    'take a waiting roster out of its queue; false if it is not waiting (already matched or left); waits for a tick that is matching it';

-- @access service, admin; definer
CREATE FUNCTION mm.leave_player(player_id bigint)
RETURNS bigint
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
SET plan_cache_mode = auto
SET enable_seqscan = on
AS $$
DECLARE
    ids bigint[];
    -- on Citus the queue the player last queued in (NULL on a single node)
    w record := mm._player_roster(player_id);
BEGIN
    -- as mm.leave
    IF NOT mm._queues_distributed() THEN
        PERFORM pg_catalog.set_config('plan_cache_mode', 'force_generic_plan', true),
                pg_catalog.set_config('enable_seqscan', 'off', true);
    END IF;
    IF player_id IS NULL THEN PERFORM mm._null_arg('player_id'); END IF;
    PERFORM mm._require_primary('mm.leave_player');
    ids := ARRAY(SELECT qp.roster_id FROM mm.queued_player qp
                 WHERE qp.player_id = leave_player.player_id AND NOT qp.requeued
                   AND (w.queue_id IS NULL OR qp.queue_id = w.queue_id));
    RETURN (SELECT max(r) FROM mm._end_rosters(ids, 'left', 'leave_player', false, now(), w.queue_id) r);
END
$$;
COMMENT ON FUNCTION mm.leave_player IS
    'take the waiting roster of a player (with the whole party) out of its queue; returns its roster id, or NULL if the player is not waiting';

-- @access service, admin; definer
CREATE FUNCTION mm.remove_player(roster_id bigint, player_id bigint)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q int;
    others int;
BEGIN
    IF roster_id IS NULL THEN PERFORM mm._null_arg('roster_id'); END IF;
    IF player_id IS NULL THEN PERFORM mm._null_arg('player_id'); END IF;
    -- lock the roster: a tick that chose it drops that match, or has made
    -- it and we find the roster gone (every statement names the roster's
    -- queue: on Citus, its shard)
    q := mm._roster_queue(roster_id);
    SELECT r.queue_id INTO q FROM mm.roster r
    WHERE r.queue_id = q AND r.roster_id = remove_player.roster_id AND r.match_id IS NULL FOR UPDATE;
    IF NOT FOUND OR NOT EXISTS (SELECT FROM mm.queued_player qp
                                WHERE qp.queue_id = q AND qp.roster_id = remove_player.roster_id
                                  AND qp.player_id = remove_player.player_id) THEN
        RETURN false;
    END IF;
    SELECT count(*) - 1 INTO others FROM mm.queued_player qp
    WHERE qp.queue_id = q AND qp.roster_id = remove_player.roster_id;
    IF others = 0 THEN
        PERFORM mm._end_rosters(ARRAY[roster_id], 'removed', 'remove_player', false, now(), q);
        RETURN true;
    END IF;
    DELETE FROM mm.queued_player qp
    WHERE qp.queue_id = q AND qp.roster_id = remove_player.roster_id AND qp.player_id = remove_player.player_id;
    INSERT INTO mm.queue_change (queue_id, roster_id) VALUES (q, remove_player.roster_id);
    INSERT INTO mm.ticket_event (roster_id, player_id, status, at, queue_id, reason)
    VALUES (roster_id, player_id, 'removed', now(), q, 'remove_player');
    INSERT INTO mm.queue_event (queue_id, kind, roster_id, player_ids, detail)
    VALUES (q, 'left', roster_id, ARRAY[player_id], '{"reason": "remove_player", "roster_stays": true}');
    PERFORM mm._number_events(q);  -- on Citus: the queue's own order
    RETURN true;
END
$$;
COMMENT ON FUNCTION mm.remove_player IS
    'take one player out of a waiting roster; the rest of the party keeps waiting in its place (the last player takes the roster out); false if the player is not in that waiting roster';

-- @access service, admin; definer
CREATE FUNCTION mm.update_roster(roster_id bigint, rating float8 DEFAULT NULL, deviation float8 DEFAULT NULL,
                                 rank float8 DEFAULT NULL, ladder_points float8 DEFAULT NULL,
                                 dishonor int DEFAULT NULL, professions text[] DEFAULT NULL,
                                 attributes jsonb DEFAULT NULL, latencies jsonb DEFAULT NULL,
                                 roles text[] DEFAULT NULL)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    n int;
    r mm.roster;
    q mm.queue;
    qid int;
BEGIN
    IF roster_id IS NULL THEN
        RAISE EXCEPTION 'roster_id must not be null' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    -- lock the roster first: its players cannot change meanwhile (they are
    -- found by their key, queue and roster; every statement names the
    -- queue: on Citus, its shard)
    qid := mm._roster_queue(update_roster.roster_id);
    SELECT * INTO r FROM mm.roster x
    WHERE x.queue_id = qid AND x.roster_id = update_roster.roster_id AND x.match_id IS NULL FOR UPDATE;
    IF NOT FOUND THEN
        -- not waiting: a bad value is still an error, not false
        PERFORM mm._check_roster(rating, deviation, rank, ladder_points, dishonor, NULL, 0);
        RETURN false;
    END IF;
    SELECT count(*) INTO n FROM mm.queued_player qp
    WHERE qp.queue_id = r.queue_id AND qp.roster_id = update_roster.roster_id;
    PERFORM mm._check_roster(rating, deviation, rank, ladder_points, dishonor, professions, n);
    -- attributes, latencies and roles checked as mm.enqueue checks them
    -- (the stored attributes or latencies with the other one given)
    IF attributes IS NOT NULL OR latencies IS NOT NULL OR roles IS NOT NULL THEN
        SELECT * INTO q FROM mm.queue x WHERE x.queue_id = r.queue_id;
    END IF;
    IF attributes IS NOT NULL OR latencies IS NOT NULL THEN
        attributes := mm._check_attributes(q.config, coalesce(attributes, r.attributes),
                                           coalesce(latencies, r.latencies));
    END IF;
    IF roles IS NOT NULL THEN
        PERFORM mm._check_roles(mm.matcher_config(q.config), q.name, roles, n);
    END IF;
    UPDATE mm.roster x
    SET rating = coalesce(update_roster.rating, x.rating),
        deviation = coalesce(update_roster.deviation, x.deviation),
        rank = coalesce(update_roster.rank, x.rank),
        ladder_points = coalesce(update_roster.ladder_points, x.ladder_points),
        dishonor = coalesce(update_roster.dishonor, x.dishonor),
        attributes = coalesce(update_roster.attributes, x.attributes),
        latencies = coalesce(update_roster.latencies, x.latencies)
    WHERE x.queue_id = r.queue_id AND x.roster_id = update_roster.roster_id;
    INSERT INTO mm.queue_change (queue_id, roster_id) VALUES (r.queue_id, update_roster.roster_id);
    -- one per player in party order (seat order: mm.remove_player leaves gaps)
    IF professions IS NOT NULL OR roles IS NOT NULL THEN
        UPDATE mm.queued_player qp
        SET profession = CASE WHEN update_roster.professions IS NULL THEN qp.profession
                              ELSE update_roster.professions[o.place] END,
            role = CASE WHEN update_roster.roles IS NULL THEN qp.role ELSE update_roster.roles[o.place] END
        FROM (SELECT x.seat, row_number() OVER (ORDER BY x.seat) AS place FROM mm.queued_player x
              WHERE x.queue_id = r.queue_id AND x.roster_id = update_roster.roster_id) o
        WHERE qp.queue_id = r.queue_id AND qp.roster_id = update_roster.roster_id AND qp.seat = o.seat;
    END IF;
    RETURN true;
END
$$;
COMMENT ON FUNCTION mm.update_roster IS
    'change a waiting roster''s data (NULL keeps a value; professions or roles ''{}'' clears them); attributes, latencies and roles are checked as mm.enqueue checks them (attributes replace the stored ones, defaults filled in); false if it is not waiting; keeps its place in the queue';

-- A queue's waiting rosters with their players in party order. No join:
-- the rosters and their players are one append of two scans grouped by
-- roster, so no plan reads the grouped players once per roster (a nested
-- loop that the planner chose over a join when the statistics said the
-- queue held one roster: a new queue, a burst of enqueues).
-- @access internal
CREATE FUNCTION mm._rosters(queue_id int)
RETURNS TABLE (roster_id bigint, queue_position bigint, players bigint[], rating float8, deviation float8,
               rank float8, ladder_points float8, dishonor int, professions text[], joined_at timestamptz,
               attributes jsonb, latencies jsonb, roles text[], max_latency float8)
LANGUAGE plpgsql STABLE STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    -- PL/pgSQL, not SQL: Citus plans the statements of an SQL function
    -- without its arguments' values and cannot send them to the queue's
    -- shard; a PL/pgSQL statement is planned with them
    RETURN QUERY
    SELECT u.roster_id, max(u.position), array_agg(u.player_id ORDER BY u.seat) FILTER (WHERE u.seat IS NOT NULL),
           max(u.rating), max(u.deviation), max(u.rank), max(u.ladder_points), max(u.dishonor),
           coalesce(array_agg(u.profession ORDER BY u.seat) FILTER (WHERE u.profession IS NOT NULL), '{}'),
           max(u.joined_at),
           (array_agg(u.attributes) FILTER (WHERE u.attributes IS NOT NULL))[1],
           (array_agg(u.latencies) FILTER (WHERE u.latencies IS NOT NULL))[1],
           coalesce(array_agg(u.role ORDER BY u.seat) FILTER (WHERE u.role IS NOT NULL), '{}'),
           max(u.max_latency)
    FROM (SELECT r.roster_id, r.position, r.rating, r.deviation, r.rank, r.ladder_points, r.dishonor,
                 r.joined_at, NULL::bigint AS player_id, NULL::int AS seat, NULL::text AS profession,
                 r.attributes, r.latencies, NULL::text AS role, r.max_latency
          FROM mm.roster r WHERE r.queue_id = _rosters.queue_id AND r.match_id IS NULL
          UNION ALL
          SELECT qp.roster_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, qp.player_id, qp.seat, qp.profession,
                 NULL, NULL, qp.role, NULL
          FROM mm.queued_player qp WHERE qp.queue_id = _rosters.queue_id) u
    GROUP BY u.roster_id
    HAVING count(u.position) > 0 AND count(u.seat) > 0;
END
$$;
COMMENT ON FUNCTION mm._rosters IS
    'internal: a queue''s waiting rosters with their players, professions and roles in party order, attributes, latencies and latency limit (rosters without players are not waiting for anything and are left out)';

-- @access service, admin, analyst; definer
CREATE FUNCTION mm.list_queue(queue text, at timestamptz DEFAULT now())
RETURNS TABLE (place bigint, roster_id bigint, players bigint[], rating float8, deviation float8,
               rank float8, ladder_points float8, dishonor int, professions text[],
               joined_at timestamptz, waited interval, attributes jsonb, latencies jsonb, roles text[],
               max_latency float8)
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q int;
BEGIN
    IF queue IS NULL THEN PERFORM mm._null_arg('queue'); END IF;
    IF at IS NULL THEN PERFORM mm._null_arg('at'); END IF;
    q := (mm._queue(queue)).queue_id;
    RETURN QUERY
    SELECT row_number() OVER (ORDER BY r.queue_position), r.roster_id, r.players, r.rating, r.deviation,
           r.rank, r.ladder_points, r.dishonor, r.professions, r.joined_at, list_queue.at - r.joined_at,
           r.attributes, r.latencies, r.roles, r.max_latency
    FROM mm._rosters(q) r
    ORDER BY r.queue_position;
END
$$;
COMMENT ON FUNCTION mm.list_queue IS
    'the waiting rosters of a queue in queue order (place 1 is tried first), with their attributes, latencies, players'' roles and latency limit';

-- Ticket lifecycle

-- @access service, admin, analyst; definer
CREATE FUNCTION mm.ticket_status(player_id bigint)
RETURNS TABLE (status text, queue text, roster_id bigint, since timestamptz, match_id bigint,
               match_status text, reason text)
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    -- on Citus, the roster the player queued in last (mm.waiting_player):
    -- every statement is kept to its queue's shard; NULL on a single node
    wq int;
    wr bigint;
BEGIN
    IF player_id IS NULL THEN PERFORM mm._null_arg('player_id'); END IF;
    SELECT w.queue_id, w.roster_id INTO wq, wr FROM mm._player_roster(player_id) w;
    IF wq IS NULL AND mm._queues_distributed() THEN
        RETURN;   -- the player never queued
    END IF;
    RETURN QUERY
    SELECT x.status, q.name, x.roster_id, coalesce(x.since, m.created_at), x.match_id, m.status, x.reason
    FROM (
        SELECT 'waiting'::text AS status, r.queue_id, r.roster_id, r.joined_at AS since,
               NULL::bigint AS match_id, NULL::text AS reason, 0 AS pri
        FROM mm.queued_player qp JOIN mm.roster r ON r.queue_id = qp.queue_id AND r.roster_id = qp.roster_id
        WHERE qp.player_id = ticket_status.player_id AND NOT qp.requeued AND r.match_id IS NULL
          AND (wq IS NULL OR qp.queue_id = wq)
        UNION ALL
        -- its last event: how its ticket ended; or, when that is the
        -- waiting of a roster now gone without an event, the match the
        -- roster went to (a tick records it in mm.match_roster only)
        SELECT coalesce(e.end_status, 'matched'), e.queue_id, e.roster_id, e.since,
               coalesce(e.match_id, mr.match_id), e.reason, 1
        FROM (SELECT NULLIF(e.status, 'waiting') AS end_status, e.queue_id, e.roster_id, e.player_id,
                     CASE WHEN e.status <> 'waiting' THEN e.at END AS since, e.match_id, e.reason
              FROM mm.ticket_event e WHERE e.player_id = ticket_status.player_id
                AND (wq IS NULL OR (e.queue_id = wq AND e.roster_id = wr))
              -- (on Citus a roster's events may be written on its worker
              -- and on the coordinator, whose ids are of different ranges:
              -- by time first there)
              ORDER BY CASE WHEN wq IS NOT NULL THEN e.at END DESC, e.event_id DESC LIMIT 1) e
        -- (the roster looked up by its key where it is, in an open match or
        -- an ended one: never a read of every match's rosters; its queue is
        -- wq on Citus, which keeps each read on that queue's shard)
        LEFT JOIN LATERAL (
            SELECT r.roster_id, r.match_id FROM mm.roster r
            WHERE e.end_status IS NULL AND r.queue_id = coalesce(wq, e.queue_id) AND r.roster_id = e.roster_id
              AND r.match_id IS NOT NULL
              AND EXISTS (SELECT FROM mm.queued_player qp
                          WHERE qp.queue_id = r.queue_id AND qp.roster_id = r.roster_id AND qp.player_id = e.player_id)
            UNION ALL
            SELECT x.roster_id, x.match_id FROM mm.ended_roster x
            WHERE e.end_status IS NULL AND x.queue_id = coalesce(wq, e.queue_id) AND x.roster_id = e.roster_id
              AND e.player_id = ANY (x.players)) mr ON true
        WHERE e.end_status IS NOT NULL OR mr.roster_id IS NOT NULL
    ) x
    JOIN mm.queue q ON q.queue_id = x.queue_id
    LEFT JOIN mm.match m ON m.queue_id = coalesce(wq, x.queue_id) AND m.match_id = x.match_id
    ORDER BY x.pri LIMIT 1;
END
$$;
COMMENT ON FUNCTION mm.ticket_status IS
    'where a player is now: waiting (queue, roster, since when), in a ready check (proposed, or accepted, with the match id), or how its last ticket ended (matched with the match id and match status, expired, left, removed, with the reason and when; removed by a dissolved match names it); no row if the player never queued or its history was purged';

-- @access service, admin, analyst; definer
CREATE FUNCTION mm.roster_status(roster_id bigint)
RETURNS TABLE (status text, at timestamptz, players bigint[], match_id bigint, reason text)
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    -- the roster's queue: every statement is kept to it (on Citus, its shard)
    q int := mm._roster_queue(roster_id);
    -- on Citus a roster's events may be written on its worker and on the
    -- coordinator, whose ids are of different ranges: by time first there
    by_time boolean := mm._queues_distributed();
BEGIN
    IF roster_id IS NULL THEN PERFORM mm._null_arg('roster_id'); END IF;
    RETURN QUERY
    SELECT x.status, x.at, x.players, x.match_id, x.reason
    FROM (
        SELECT e.status, e.at, array_agg(e.player_id ORDER BY e.player_id) AS players,
               e.match_id, e.reason, min(e.event_id) AS seq
        FROM mm.ticket_event e
        WHERE e.queue_id = q AND e.roster_id = roster_status.roster_id
        GROUP BY e.status, e.at, e.match_id, e.reason
        UNION ALL
        -- matched by a tick: its row of mm.match_roster is the event (a
        -- match whose events are written, a ready check's or a
        -- backfill's, has its own rows above); always the roster's last
        SELECT 'matched', m.created_at, ARRAY(SELECT u.p FROM unnest(mr.players) AS u(p) ORDER BY u.p),
               mr.match_id, NULL, NULL
        FROM mm.match_roster mr JOIN mm.match m ON m.queue_id = mr.queue_id AND m.match_id = mr.match_id
        WHERE mr.queue_id = q AND mr.roster_id = roster_status.roster_id
          AND NOT EXISTS (SELECT FROM mm.ticket_event e
                          WHERE e.queue_id = q AND e.roster_id = mr.roster_id AND e.match_id = mr.match_id)
    ) x
    ORDER BY CASE WHEN by_time THEN x.at END, x.seq NULLS LAST;
END
$$;
COMMENT ON FUNCTION mm.roster_status IS
    'the history of a roster (ticket): when its players started waiting and how the roster, or a player removed from it, left the queue (matched with the match id, expired, left, removed, with the reason); with a ready check also proposed and accepted, and waiting again or removed when the match dissolved (with the match and the reason); its last row is its state now';

-- Ticks

-- @access service, admin; definer
CREATE FUNCTION mm.tick(queue text, at timestamptz DEFAULT now())
RETURNS TABLE (match_id bigint, roster_id bigint, team text)
AS 'MODULE_PATHNAME', 'mm_tick'
LANGUAGE C VOLATILE
-- the statement that moves a tick's matches has join estimates far above
-- its real size; JIT compiling it would cost more than running it
SET jit = off;
COMMENT ON FUNCTION mm.tick IS
    'one matchmaking tick of a queue in this transaction: returns at once if another tick of the queue is running; reads the queue without locking it, then locks, records and removes only the rosters of each match (a match whose roster left meanwhile is dropped whole), requeues failed targets at the back, logs';

-- @access service, admin, analyst; definer
CREATE FUNCTION mm.preview(queue text, at timestamptz DEFAULT now())
RETURNS TABLE (match_id bigint, roster_id bigint, team text)
AS 'MODULE_PATHNAME', 'mm_preview'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION mm.preview IS
    'the matches a tick would make now, numbered from 1, without writing or locking anything';

-- @access service, admin, analyst; definer
CREATE FUNCTION mm.explain(roster_id bigint, at timestamptz DEFAULT now())
RETURNS TABLE (roster_id bigint, queue text, place int, waited_s float8, rating_low float8,
               range_low float8, range_high float8, widening_from timestamptz, widening_until timestamptz,
               potentials int, potentials_min int, potentials_min_applies boolean,
               outcome text, detail text)
AS 'MODULE_PATHNAME', 'mm_explain'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION mm.explain IS
    'why a waiting roster has not matched: its place, rating range at "at" and when it widens, the potentials a tick trying it first would find against potentials_min, and the outcome (match, too_large, no_potentials, potentials_min, incomplete) in words; nothing is written';

-- Match delivery

-- The start of every payload of a queue's channel: {"queue_id": .. and
-- "queue": "..", the name only when its JSON takes at most 1000 bytes (a
-- queue 0.1.0 created may have a name that would not fit NOTIFY's limit).
-- @access internal
CREATE FUNCTION mm._payload_head(queue_id int, name text)
RETURNS text
AS 'MODULE_PATHNAME', 'mm_queue_payload_head_sql'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm._payload_head IS
    'internal: the start of a payload of a queue''s channel, {"queue_id": .. and, when the name''s JSON takes at most 1000 bytes, "queue": ".." (the payloads the tick, mm.accept and a dissolve send)';

-- @access service, admin, analyst; definer
CREATE FUNCTION mm.queue_channel(queue text)
RETURNS text
LANGUAGE sql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
SELECT mm._null_arg('queue') WHERE queue IS NULL;
    SELECT 'mm_queue_' || (mm._queue(queue)).queue_id
$$;
COMMENT ON FUNCTION mm.queue_channel IS
    'the NOTIFY channel of a queue (mm_queue_<queue id>): after a tick that made matches commits, it carries {"queue_id", "queue", "matches": [match ids]}; with a ready check "proposed" (then "matches" when the last accept commits) and "dissolved" with a "reason"; filled backfills under "backfills"; a payload is a hint (any role may LISTEN and NOTIFY on any channel), mm.claim_matches the authority';

-- @access service, admin; definer
CREATE FUNCTION mm.claim_matches(queue text, max int DEFAULT 100)
RETURNS TABLE (match_id bigint, created_at timestamptz, roster_id bigint, team text, players bigint[],
               kind text, backfill_id bigint)
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q mm.queue := mm._queue(queue);
    claimed_at timestamptz := clock_timestamp();
BEGIN
    IF queue IS NULL THEN PERFORM mm._null_arg('queue'); END IF;
    IF max IS NULL THEN PERFORM mm._null_arg('max'); END IF;
    PERFORM mm._require_primary('mm.claim_matches');
    IF max IS NULL OR max < 1 THEN
        RAISE EXCEPTION 'max must be at least 1'
            USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The value is %s.', max);
    END IF;
    -- every statement names the queue and the time is a value, so that
    -- on Citus the statement runs whole on the queue's shard
    RETURN QUERY
    WITH c AS (
        SELECT m.match_id FROM mm.match m
        WHERE m.queue_id = q.queue_id AND m.delivered_at IS NULL AND m.status IN ('matched', 'finished')
        ORDER BY m.match_id LIMIT max
        FOR UPDATE SKIP LOCKED
    ), d AS (
        UPDATE mm.match m SET delivered_at = claimed_at
        FROM c WHERE m.queue_id = q.queue_id AND m.match_id = c.match_id
        RETURNING m.match_id, m.created_at, m.teams
    ), cb AS (
        SELECT b.backfill_id FROM mm.backfill b
        WHERE b.queue_id = q.queue_id AND b.status = 'filled' AND b.delivered_at IS NULL
        ORDER BY b.backfill_id LIMIT max
        FOR UPDATE SKIP LOCKED
    ), db AS (
        UPDATE mm.backfill b SET delivered_at = claimed_at
        FROM cb WHERE b.queue_id = q.queue_id AND b.backfill_id = cb.backfill_id
        RETURNING b.backfill_id, b.match_id, b.ended_at
    )
    SELECT x.match_id, x.created_at, x.roster_id, x.team, x.players, x.kind, x.backfill_id
    FROM (SELECT d.match_id, d.created_at, mr.roster_id, mr.team, mr.players, 'match'::text AS kind,
                 NULL::bigint AS backfill_id, 0 AS part, array_position(d.teams, mr.team) AS team_no
          -- each match's rosters looked up by its id (OFFSET 0 keeps the
          -- lookup per match: never a read of every match's rosters)
          FROM d CROSS JOIN LATERAL (SELECT * FROM mm.match_roster mr
                                     WHERE mr.queue_id = q.queue_id AND mr.match_id = d.match_id OFFSET 0) mr
          WHERE mr.backfill_id IS NULL
          UNION ALL
          SELECT db.match_id, db.ended_at, mr.roster_id, mr.team, mr.players, 'backfill', db.backfill_id, 1, 0
          FROM db CROSS JOIN LATERAL (SELECT * FROM mm.match_roster mr
                                      WHERE mr.queue_id = q.queue_id AND mr.match_id = db.match_id OFFSET 0) mr
          WHERE mr.backfill_id = db.backfill_id) x
    ORDER BY x.part, x.match_id, x.backfill_id, x.team_no, x.roster_id;
END
$$;
COMMENT ON FUNCTION mm.claim_matches IS
    'hand up to "max" undelivered matches and up to "max" undelivered backfills of a queue to this caller, one row per roster: kind match (the rosters a match was made with; never a match in its ready check, nor a dissolved one) or backfill (the rosters a tick put into a running match, with the request''s backfill_id; created_at is when it was filled); each goes to exactly one caller whatever order ticks commit in (FOR UPDATE SKIP LOCKED); marked delivered in the caller''s transaction, so a rollback gives them back';

-- What a backend needs to know of its matches: who is in a match (the
-- proposed notification names only match ids), and, after a crash, the
-- matches it claimed and never reported or abandoned.
-- @access service, admin, analyst; definer
CREATE FUNCTION mm.match_players(match_ids bigint[])
RETURNS TABLE (match_id bigint, status text, accept_until timestamptz, roster_id bigint, team text,
               players bigint[], accepted bigint[], backfill_id bigint, requeued boolean)
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    missing bigint;
    ids bigint[][];
    queues int[];
    q int;
BEGIN
    IF match_ids IS NULL THEN PERFORM mm._null_arg('match_ids'); END IF;
    PERFORM mm._check_list_length('match_ids', cardinality(match_ids), 10000);
    IF array_position(match_ids, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'match_ids must not contain nulls' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    -- the matches that exist (and their queues: on Citus each match is
    -- read on its queue's shard, one after another in match order; on a
    -- single node all of them at once)
    SELECT array_agg(m.match_id ORDER BY m.match_id), array_agg(m.queue_id ORDER BY m.match_id) INTO ids, queues
    FROM mm.match m WHERE m.match_id = ANY (match_ids);
    SELECT u.id INTO missing FROM unnest(match_ids) AS u(id)
    WHERE u.id <> ALL (coalesce(ids, '{}')) ORDER BY u.id LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'match % does not exist', missing
            USING ERRCODE = 'undefined_object', HINT = 'Give match ids from the queue''s notifications or mm.claim_matches.';
    END IF;
    IF NOT mm._queues_distributed() THEN
        ids := ARRAY[ids];
        queues := ARRAY[NULL::int];
    ELSE
        ids := ARRAY(SELECT ARRAY[u.id] FROM unnest(ids) AS u(id));
    END IF;
    FOR i IN 1 .. coalesce(cardinality(queues), 0) LOOP
        q := queues[i];
        RETURN QUERY
        SELECT x.match_id, x.status, x.accept_until, x.roster_id, x.team, x.players,
               ARRAY(SELECT a.player_id FROM mm.match_accept a
                     WHERE a.match_id = x.match_id AND (q IS NULL OR a.queue_id = q) AND a.player_id = ANY (x.players)
                     ORDER BY a.player_id),
               x.backfill_id, x.requeued
        FROM (
            -- a match with its rosters: proposed, matched or finished
            SELECT m.match_id, m.status, m.accept_until, mr.roster_id, mr.team, mr.players, mr.backfill_id,
                   NULL::boolean AS requeued, array_position(m.teams, mr.team) AS team_no
            FROM mm.match m
            CROSS JOIN LATERAL (SELECT * FROM mm.match_roster mr
                                WHERE mr.queue_id = coalesce(q, m.queue_id) AND mr.match_id = m.match_id OFFSET 0) mr
            WHERE m.match_id = ANY (ids[i:i]) AND (q IS NULL OR m.queue_id = q) AND m.status <> 'dissolved'
            UNION ALL
            -- a dissolved match gave its rosters up: what became of each, from
            -- the ticket history (waiting again, or removed)
            SELECT m.match_id, m.status, m.accept_until, e.roster_id, NULL::text,
                   array_agg(e.player_id ORDER BY e.player_id), NULL::bigint, bool_and(e.status = 'waiting'), NULL::int
            FROM mm.match m
            JOIN mm.ticket_event e ON e.queue_id = coalesce(q, m.queue_id) AND e.match_id = m.match_id
                                  AND e.status IN ('waiting', 'removed')
            WHERE m.match_id = ANY (ids[i:i]) AND (q IS NULL OR m.queue_id = q) AND m.status = 'dissolved'
            GROUP BY m.match_id, m.status, m.accept_until, e.roster_id
        ) x
        ORDER BY x.match_id, x.backfill_id NULLS FIRST, x.team_no, x.roster_id;
    END LOOP;
END
$$;
COMMENT ON FUNCTION mm.match_players IS
    'who is in these matches, one row per roster: the match''s status (and end of its ready check), team, players, the players who accepted (ready check), and the backfill request that brought a roster in; for a dissolved match, each roster it gave up, requeued true when it went back to the queue and false when it was removed (team unknown); for the ids of a queue notification (ARRAY[id] for one match), so that a backend never asks per player; an unknown match id is an error (42704)';

-- @access service, admin, analyst; definer
CREATE FUNCTION mm.open_matches(queue text)
RETURNS TABLE (match_id bigint, created_at timestamptz, claimed_at timestamptz, roster_id bigint, team text,
               players bigint[], backfill_id bigint)
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    ids int[];
    q int;
BEGIN
    IF open_matches.queue IS NULL THEN PERFORM mm._null_arg('queue'); END IF;
    -- the live queue of that name, and the dropped ones whose matches are
    -- still played (mm.drop_queue keeps them; mm.purge keeps them live)
    ids := ARRAY(SELECT x.queue_id FROM mm.queue x WHERE x.name = open_matches.queue ORDER BY x.queue_id);
    IF cardinality(ids) = 0 THEN
        PERFORM mm._queue(open_matches.queue);
    END IF;
    -- one queue at a time (each statement on the queue's shard on Citus)
    FOREACH q IN ARRAY ids LOOP
        RETURN QUERY
        SELECT m.match_id, m.created_at, m.delivered_at, mr.roster_id, mr.team, mr.players, mr.backfill_id
        FROM mm.match m
        CROSS JOIN LATERAL (SELECT * FROM mm.match_roster mr
                            WHERE mr.queue_id = q AND mr.match_id = m.match_id OFFSET 0) mr
        LEFT JOIN mm.backfill b ON b.queue_id = q AND b.backfill_id = mr.backfill_id
        WHERE m.queue_id = q AND m.status = 'matched' AND m.delivered_at IS NOT NULL
          -- a backfill's rosters once claimed too (until then mm.claim_matches hands them out)
          AND (mr.backfill_id IS NULL OR b.delivered_at IS NOT NULL)
        ORDER BY m.match_id, mr.backfill_id NULLS FIRST, array_position(m.teams, mr.team), mr.roster_id;
    END LOOP;
END
$$;
COMMENT ON FUNCTION mm.open_matches IS
    'the matches of a queue (of that name, live or dropped) that mm.claim_matches delivered and that are neither reported nor abandoned, one row per roster as delivered (a backfill''s rosters once claimed): for a backend that restarts after a crash; claimed_at is when the match was claimed; mm.purge never removes one of them until its abandon_after has passed';

-- @access service, admin
CREATE PROCEDURE mm.run_ticks(queue text DEFAULT NULL, every interval DEFAULT '5 seconds',
                              span interval DEFAULT '75 seconds')
AS 'MODULE_PATHNAME', 'mm_run_ticks'
LANGUAGE C;
COMMENT ON PROCEDURE mm.run_ticks IS
    'tick a queue (every queue when NULL) every "every" (at least 100 ms) until "span" of wall time has passed, each tick of each queue in its own transaction; a queue whose tick fails gets a WARNING and the others go on; a queue another run_ticks is ticking is taken over at the first tick slot after that run ends, so runs scheduled each minute with a span over a minute (the default 75 seconds) overlap and hand over without a gap';

-- Statistics

-- @access service, admin, analyst
CREATE VIEW mm.queue_stats AS
SELECT q.name AS queue,
       coalesce(w.rosters, 0) AS waiting_rosters,
       coalesce(wp.players, 0) AS waiting_players,
       w.p50 AS wait_p50,
       w.p90 AS wait_p90,
       w.p99 AS wait_p99,
       coalesce(t.ticks, 0) AS ticks_last_hour,
       coalesce(mh.played, 0) AS matches_last_hour,
       coalesce(mh.dissolved, 0) AS dissolved_last_hour,
       t.matches_per_tick,
       t.mean_rating_spread,
       t.last_tick,
       m.p50 AS time_to_match_p50,
       m.p90 AS time_to_match_p90,
       m.p99 AS time_to_match_p99,
       m.p50 AS estimated_wait
FROM mm.queue q
-- each figure grouped by queue and joined to its queue by queue_id (not a
-- lateral subquery per queue: Citus cannot run one under mm.queue, a
-- reference table, where every figure grouped by queue runs whole on each
-- shard)
LEFT JOIN (
    SELECT r.queue_id, count(*) AS rosters,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY now() - r.joined_at) AS p50,
           percentile_cont(0.9) WITHIN GROUP (ORDER BY now() - r.joined_at) AS p90,
           percentile_cont(0.99) WITHIN GROUP (ORDER BY now() - r.joined_at) AS p99
    FROM mm.roster r WHERE r.match_id IS NULL
    GROUP BY r.queue_id
) w ON w.queue_id = q.queue_id
LEFT JOIN (
    SELECT qp.queue_id, count(*) AS players
    FROM mm.queued_player qp
    JOIN mm.roster x ON x.queue_id = qp.queue_id AND x.roster_id = qp.roster_id
    WHERE x.match_id IS NULL
    GROUP BY qp.queue_id
) wp ON wp.queue_id = q.queue_id
LEFT JOIN (
    SELECT l.queue_id, sum(l.ticks) AS ticks,
           sum(l.matches_made)::numeric / nullif(sum(l.ticks), 0) AS matches_per_tick,
           sum(l.mean_rating_spread * l.matches_made) / nullif(sum(l.matches_made), 0) AS mean_rating_spread,
           max(l.last_at) AS last_tick
    FROM mm.tick_log l WHERE l.last_at > now() - interval '1 hour'
    GROUP BY l.queue_id
) t ON t.queue_id = q.queue_id
LEFT JOIN (
    SELECT mt.queue_id, count(*) FILTER (WHERE mt.status IN ('matched', 'finished')) AS played,
           count(*) FILTER (WHERE mt.status = 'dissolved') AS dissolved
    FROM mm.match mt WHERE mt.created_at > now() - interval '1 hour'
    GROUP BY mt.queue_id
) mh ON mh.queue_id = q.queue_id
LEFT JOIN (
    SELECT mt.queue_id,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY mr.waited) AS p50,
           percentile_cont(0.9) WITHIN GROUP (ORDER BY mr.waited) AS p90,
           percentile_cont(0.99) WITHIN GROUP (ORDER BY mr.waited) AS p99
    FROM mm.match mt
    CROSS JOIN LATERAL (SELECT * FROM mm.match_roster mr
                        WHERE mr.queue_id = mt.queue_id AND mr.match_id = mt.match_id OFFSET 0) mr
    WHERE mt.created_at > now() - interval '1 hour'
    GROUP BY mt.queue_id
) m ON m.queue_id = q.queue_id
WHERE q.dropped_at IS NULL
-- in the order the queues were created, as the rows of mm.queue come
ORDER BY q.queue_id;
COMMENT ON VIEW mm.queue_stats IS
    'per live queue: waiting rosters and players, wait-time percentiles now; over the last hour ticks, matches played (made and not dissolved: matched or finished; a match still in its ready check is neither), proposals dissolved by a ready check, matches a tick made on average (proposals included), mean rating spread inside matches, time-to-match percentiles of the rosters matched, and the estimated wait of a new roster (the median time to match of the last hour; NULL without matches; mm.estimate_wait tells it for a rating)';

-- The wait a roster can expect, from the rosters of the queue matched in
-- the hour before "at" that are most like it: the 20 nearest by party size,
-- then by rating; their median time to match. For a waiting roster, only
-- those that waited at least as long as it has count, and the estimate is
-- what is left of their median. NULL when no such roster was matched.
-- @access internal
CREATE FUNCTION mm._estimate_wait(queue_id int, rating float8, players int, waited interval, at timestamptz)
RETURNS interval
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    RETURN (SELECT CASE WHEN count(*) > 0
                        THEN greatest(percentile_cont(0.5) WITHIN GROUP (ORDER BY n.waited) - _estimate_wait.waited,
                                      interval '0') END
    FROM (SELECT mr.waited
          FROM mm.match m
          CROSS JOIN LATERAL (SELECT * FROM mm.match_roster mr
                              WHERE mr.queue_id = _estimate_wait.queue_id AND mr.match_id = m.match_id OFFSET 0) mr
          WHERE m.queue_id = _estimate_wait.queue_id AND m.created_at > _estimate_wait.at - interval '1 hour'
            AND m.created_at <= _estimate_wait.at AND mr.backfill_id IS NULL
            AND mr.waited >= _estimate_wait.waited
          ORDER BY abs(cardinality(mr.players) - _estimate_wait.players), abs(mr.rating - _estimate_wait.rating),
                   m.match_id DESC
          LIMIT 20) n);
END
$$;
COMMENT ON FUNCTION mm._estimate_wait IS
    'internal: the median time to match of the 20 rosters of a queue matched in the hour before "at" nearest by party size, then rating, among those that waited at least "waited", less "waited"; NULL without any';

-- @access service, admin, analyst; definer
CREATE FUNCTION mm.estimate_wait(queue text, rating float8, players int DEFAULT 1, at timestamptz DEFAULT now())
RETURNS interval
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q mm.queue;
BEGIN
    IF estimate_wait.queue IS NULL THEN PERFORM mm._null_arg('queue'); END IF;
    IF estimate_wait.rating IS NULL THEN PERFORM mm._null_arg('rating'); END IF;
    IF estimate_wait.players IS NULL THEN PERFORM mm._null_arg('players'); END IF;
    IF estimate_wait.at IS NULL THEN PERFORM mm._null_arg('at'); END IF;
    q := mm._queue(estimate_wait.queue);
    IF NOT isfinite(estimate_wait.at) OR estimate_wait.rating IN ('NaN', 'Infinity', '-Infinity') THEN
        RAISE EXCEPTION 'rating and at must be finite'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('rating is %s and at is %s.', estimate_wait.rating, estimate_wait.at);
    END IF;
    IF estimate_wait.players < 1 THEN
        RAISE EXCEPTION 'players must be at least 1'
            USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The value is %s.', estimate_wait.players),
                  HINT = 'Give the number of players in the party.';
    END IF;
    RETURN mm._estimate_wait(q.queue_id, estimate_wait.rating, estimate_wait.players, interval '0', estimate_wait.at);
END
$$;
COMMENT ON FUNCTION mm.estimate_wait IS
    'the wait a new roster of this rating and party size can expect in a queue: the median time to match of the 20 rosters matched in the last hour nearest to it by party size, then by rating; NULL when nothing was matched in the last hour';

-- @access service, admin, analyst; definer
CREATE FUNCTION mm.estimate_roster_wait(roster_id bigint, at timestamptz DEFAULT now())
RETURNS interval
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    r mm.roster;
    n int;
BEGIN
    IF estimate_roster_wait.roster_id IS NULL THEN PERFORM mm._null_arg('roster_id'); END IF;
    IF estimate_roster_wait.at IS NULL THEN PERFORM mm._null_arg('at'); END IF;
    SELECT * INTO r FROM mm.roster x WHERE x.roster_id = estimate_roster_wait.roster_id AND x.match_id IS NULL;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'roster % is not waiting', estimate_roster_wait.roster_id
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'mm.roster_status tells where the roster is.';
    END IF;
    SELECT count(*) INTO n FROM mm.queued_player qp WHERE qp.queue_id = r.queue_id AND qp.roster_id = r.roster_id;
    RETURN mm._estimate_wait(r.queue_id, r.rating, n, greatest(estimate_roster_wait.at - r.joined_at, interval '0'),
                             estimate_roster_wait.at);
END
$$;
COMMENT ON FUNCTION mm.estimate_roster_wait IS
    'the wait left for a waiting roster: among the 20 rosters of its queue matched in the last hour that waited at least as long as it has, nearest by party size then rating, their median time to match less its wait so far; NULL when none waited that long';

-- Retention

-- A match is live while it may still be played or reported: proposed (in
-- its ready check), or matched: claimed (mm.open_matches lists it) or
-- waiting to be claimed in a live queue. Purge keeps a live match whatever
-- its age until abandon_after has passed since it was made; then it ends
-- it as mm.abandon_match does (or dissolves a proposal as a tick would),
-- and deletes it like any ended match once it is older than older_than.
-- @access admin; definer
CREATE FUNCTION mm.purge(older_than interval, max_rows int DEFAULT 10000, abandon_after interval DEFAULT '1 day')
RETURNS bigint
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    cutoff timestamptz;
    left_rows int := max_rows;
    n int;
    total bigint := 0;
    gone int[];
    stale bigint[];
    id bigint;
    kept int;
    qid int;
    dropped boolean;
    tick_queues int[];
    tick_counts int[];
    tick_ms float8[];
    live int[];
BEGIN
    IF older_than IS NULL THEN PERFORM mm._null_arg('older_than'); END IF;
    IF max_rows IS NULL THEN PERFORM mm._null_arg('max_rows'); END IF;
    IF abandon_after IS NULL THEN PERFORM mm._null_arg('abandon_after'); END IF;
    IF NOT isfinite(now() - older_than) OR older_than < interval '0' THEN
        RAISE EXCEPTION 'older_than must be a finite interval that is not negative'
            USING ERRCODE = 'invalid_parameter_value', HINT = 'Such as ''30 days''.';
    END IF;
    IF NOT isfinite(now() - abandon_after) OR abandon_after < interval '1 minute' THEN
        RAISE EXCEPTION 'abandon_after must be a finite interval of at least a minute'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The value is %s.', abandon_after),
                  HINT = 'Give the longest a match may be played and still be reported, such as ''1 day''.';
    END IF;
    IF max_rows < 1 THEN
        RAISE EXCEPTION 'max_rows must be at least 1'
            USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The value is %s.', max_rows);
    END IF;
    cutoff := now() - older_than;
    -- on Citus: the deletes that reach several shards go one shard after
    -- another, so that the queues (a reference table the others refer to)
    -- can be deleted from in the same transaction
    IF mm._queues_distributed() THEN
        PERFORM pg_catalog.set_config('citus.multi_shard_modify_mode', 'sequential', true);
    END IF;
    -- live matches older than the cutoff and than abandon_after: ended
    -- first (abandoned, or dissolved if still proposed), at most max_rows
    -- (queue by queue: on Citus each statement runs on the queue's shard)
    stale := '{}';
    FOR qid, dropped IN SELECT q.queue_id, q.dropped_at IS NOT NULL FROM mm.queue q ORDER BY q.queue_id LOOP
        EXIT WHEN cardinality(stale) >= left_rows;
        stale := stale || ARRAY(SELECT x.match_id FROM mm.match x
                                WHERE x.queue_id = qid AND x.created_at < least(cutoff, now() - abandon_after)
                                  AND (x.status = 'proposed'
                                       OR (x.status = 'matched' AND (x.delivered_at IS NOT NULL OR NOT dropped)))
                                ORDER BY x.match_id LIMIT left_rows - cardinality(stale)
                                FOR UPDATE OF x SKIP LOCKED);
    END LOOP;
    FOREACH id IN ARRAY stale LOOP
        qid := mm._match_queue(id);
        IF (SELECT x.status FROM mm.match x WHERE x.queue_id = qid AND x.match_id = id) = 'proposed' THEN
            PERFORM mm._dissolve_match(qid, id, NULL, 'accept_timeout', now());
            PERFORM mm._notify_dissolved(qid, ARRAY[id], 'accept_timeout');
        ELSE
            PERFORM mm.abandon_match(id);
        END IF;
    END LOOP;
    IF cardinality(stale) > 0 THEN
        RAISE NOTICE 'mm.purge ended matches still open % after they were made', abandon_after
            USING DETAIL = format('Abandoned or dissolved (%s): %s.', cardinality(stale),
                                  array_to_string(stale[1:20], ', ') || CASE WHEN cardinality(stale) > 20 THEN ', ...' ELSE '' END),
                  HINT = 'A late mm.report_result of one of them is refused (55000).';
    END IF;
    -- the queues' event feeds, older than mm.event_retention, counted on in
    -- mm.queue_counters (on Citus deleted queue by queue, each on its shard)
    n := CASE WHEN mm._queues_distributed() THEN mm._purge_events_citus(left_rows) ELSE mm._purge_events(left_rows) END;
    total := total + n; left_rows := left_rows - n;
    -- the tick log, its ticks counted on in mm.queue_counters (those of
    -- queues that are gone count for nothing)
    WITH d AS (
        DELETE FROM mm.tick_log l WHERE l.tick_id IN
            (SELECT x.tick_id FROM mm.tick_log x WHERE x.last_at < cutoff ORDER BY x.at LIMIT left_rows)
        RETURNING l.queue_id, l.ticks, l.duration_ms
    )
    SELECT array_agg(d.queue_id), array_agg(d.ticks), array_agg(d.duration_ms) INTO tick_queues, tick_counts, tick_ms
    FROM d;
    live := ARRAY(SELECT q.queue_id FROM mm.queue q);
    INSERT INTO mm.queue_counters AS c (queue_id, ticks_total, tick_seconds_total)
    SELECT u.queue_id, sum(u.ticks), sum(u.duration_ms) / 1000
    FROM unnest(tick_queues, tick_counts, tick_ms) AS u(queue_id, ticks, duration_ms)
    WHERE u.queue_id = ANY (live)
    GROUP BY u.queue_id
    ON CONFLICT ON CONSTRAINT queue_counters_pkey DO UPDATE
    SET ticks_total = c.ticks_total + excluded.ticks_total,
        tick_seconds_total = c.tick_seconds_total + excluded.tick_seconds_total;
    n := coalesce(cardinality(tick_queues), 0);
    total := total + n; left_rows := left_rows - n;
    -- ticket history of rosters that are not waiting
    IF left_rows > 0 THEN
        DELETE FROM mm.ticket_event e WHERE e.event_id IN
            (SELECT x.event_id FROM mm.ticket_event x
             WHERE x.at < cutoff
               AND NOT EXISTS (SELECT FROM mm.roster r WHERE r.queue_id = x.queue_id AND r.roster_id = x.roster_id)
               -- a matched roster's waiting events stay with its match
               AND NOT EXISTS (SELECT FROM mm.match_roster mr WHERE mr.queue_id = x.queue_id AND mr.roster_id = x.roster_id)
             ORDER BY x.event_id LIMIT left_rows);
        GET DIAGNOSTICS n = ROW_COUNT;
        total := total + n; left_rows := left_rows - n;
    END IF;
    -- arrivals of rosters that are not waiting (mm.whatif's record)
    IF left_rows > 0 THEN
        DELETE FROM mm.roster_arrival a WHERE a.roster_id IN
            (SELECT x.roster_id FROM mm.roster_arrival x
             WHERE x.arrived_at < cutoff
               AND NOT EXISTS (SELECT FROM mm.roster r WHERE r.queue_id = x.queue_id AND r.roster_id = x.roster_id)
             ORDER BY x.roster_id LIMIT left_rows);
        GET DIAGNOSTICS n = ROW_COUNT;
        total := total + n; left_rows := left_rows - n;
    END IF;
    -- matches that ended (finished or dissolved), and those nobody can
    -- claim any more (unclaimed, of a dropped queue), with their rosters;
    -- never a live one
    IF left_rows > 0 THEN
        DELETE FROM mm.match m WHERE m.match_id IN
            (SELECT x.match_id FROM mm.match x
             WHERE x.created_at < cutoff
               AND (x.status IN ('finished', 'dissolved')
                    OR (x.status = 'matched' AND x.delivered_at IS NULL
                        AND EXISTS (SELECT FROM mm.queue q WHERE q.queue_id = x.queue_id AND q.dropped_at IS NOT NULL)))
             ORDER BY x.match_id LIMIT left_rows);
        GET DIAGNOSTICS n = ROW_COUNT;
        total := total + n; left_rows := left_rows - n;
    END IF;
    -- what it kept: live matches older than the cutoff
    SELECT count(*) INTO kept
    FROM mm.match x JOIN mm.queue q ON q.queue_id = x.queue_id
    WHERE x.created_at < cutoff
      AND (x.status = 'proposed' OR (x.status = 'matched' AND (x.delivered_at IS NOT NULL OR q.dropped_at IS NULL)));
    IF kept > 0 THEN
        RAISE NOTICE 'mm.purge kept matches that are still open'
            USING DETAIL = format('It kept %s matches older than older_than that are proposed, being played or waiting to be claimed; it ends one once abandon_after (%s) has passed since it was made.',
                                  kept, abandon_after),
                  HINT = 'End them with mm.report_result or mm.abandon_match (mm.open_matches lists the claimed ones).';
    END IF;
    -- dodge timeouts that ended
    IF left_rows > 0 THEN
        DELETE FROM mm.queue_dodge d WHERE (d.queue_id, d.player_id) IN
            (SELECT x.queue_id, x.player_id FROM mm.queue_dodge x WHERE x.until < cutoff
             ORDER BY x.until LIMIT left_rows);
        GET DIAGNOSTICS n = ROW_COUNT;
        total := total + n; left_rows := left_rows - n;
    END IF;
    -- dropped queues whose history is all gone (found first, by set
    -- difference: on Citus mm.queue is a reference table, which Citus
    -- neither changes in a statement reading the distributed tables nor
    -- anti-joins to them)
    IF left_rows > 0 THEN
        gone := ARRAY(SELECT q.queue_id FROM mm.queue q WHERE q.dropped_at < cutoff);
        gone := ARRAY(SELECT u.x FROM unnest(gone) AS u(x)
                      EXCEPT SELECT m.queue_id FROM mm.match m WHERE m.queue_id = ANY (gone)
                      EXCEPT SELECT l.queue_id FROM mm.tick_log l WHERE l.queue_id = ANY (gone)
                      EXCEPT SELECT e.queue_id FROM mm.ticket_event e WHERE e.queue_id = ANY (gone)
                      EXCEPT SELECT a.queue_id FROM mm.roster_arrival a WHERE a.queue_id = ANY (gone)
                      EXCEPT SELECT d.queue_id FROM mm.queue_dodge d WHERE d.queue_id = ANY (gone));
        DELETE FROM mm.queue q WHERE q.queue_id = ANY (gone);
        GET DIAGNOSTICS n = ROW_COUNT;
        total := total + n;
    END IF;
    RETURN total;
END
$$;
COMMENT ON FUNCTION mm.purge IS
    'delete history older than "older_than": the queues'' events older than mm.event_retention (what they and the tick log counted stays in mm.queue_counters), tick log, ticket history and arrivals of rosters no longer waiting, matches that ended (finished or dissolved) or that nobody can claim any more (unclaimed, of a dropped queue), with their rosters, dodge timeouts that ended, then dropped queues left without history; never a live match (proposed, claimed, or claimable): one still open abandon_after (default 1 day) after it was made is ended first (abandoned, or dissolved when proposed), and a NOTICE says what was ended and what was kept; at most max_rows rows per call (call it until it returns 0, e.g. from pg_cron); returns the rows deleted';
