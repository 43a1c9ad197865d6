-- What-if: a queue's recorded traffic replayed under another config,
-- through the real matcher, before the config is deployed
-- (src/queue/whatif*.c; docs/whatif.md).
--
-- The record is what the queue's tables keep already (the ticket history
-- for when rosters left, the tick log for when the queue was ticked, the
-- matches and their ready checks) and one row per arrival below: what a
-- roster was queued with, which mm.roster forgets once the roster leaves
-- without a match.

-- One row per roster mm.enqueue queued, written in the enqueue's
-- transaction, kept whether or not the roster was ever matched: when it
-- arrived, its place in queue order then, and every value the matcher
-- reads. Players, professions and roles in party order; NULL professions,
-- roles, attributes and latencies: none given. No foreign key to the queue
-- (its check would cost an enqueue more than the row); mm.drop_queue
-- (keep_history => false) and mm.purge delete a queue's rows.
-- @access admin, analyst
CREATE TABLE mm.roster_arrival (
    roster_id     bigint NOT NULL,
    queue_id      int NOT NULL,
    arrived_at    timestamptz NOT NULL,
    position      bigint NOT NULL,
    joined_at     timestamptz NOT NULL,
    rating        float8 NOT NULL,
    deviation     float8 NOT NULL,
    rank          float8 NOT NULL,
    ladder_points float8 NOT NULL,
    dishonor      int NOT NULL,
    players       bigint[] NOT NULL,
    professions   text[],
    roles         text[],
    attributes    jsonb,
    latencies     jsonb,
    CONSTRAINT roster_arrival_pkey PRIMARY KEY (roster_id),
    CONSTRAINT roster_arrival_times_check CHECK (isfinite(arrived_at) AND joined_at <= arrived_at),
    CONSTRAINT roster_arrival_players_check CHECK (cardinality(players) >= 1)
);
-- arrivals by time: a block range index, nearly free to keep up at each
-- enqueue (rows arrive in time order), enough for a replay's window and
-- the purge
CREATE INDEX roster_arrival_arrived_idx ON mm.roster_arrival USING brin (arrived_at)
    WITH (autosummarize = on);
COMMENT ON TABLE mm.roster_arrival IS 'one row per roster that entered a queue (written by mm.enqueue), kept whether or not it was matched: when it arrived, its place in queue order then and every value the matcher reads (NULL professions, roles, attributes, latencies: none given); what mm.whatif replays; mm.purge trims it';
COMMENT ON COLUMN mm.roster_arrival.arrived_at IS 'when the roster was queued (the time of the enqueue''s transaction; joined_at may be earlier, as the caller gave it)';
COMMENT ON COLUMN mm.roster_arrival.position IS 'the roster''s place in queue order when it arrived (mm.roster.position then; a failed target later takes a new one)';
COMMENT ON INDEX mm.roster_arrival_arrived_idx IS 'arrivals by time (a replay''s window, the purge): a block range index, as rows arrive in time order';
COMMENT ON CONSTRAINT roster_arrival_times_check ON mm.roster_arrival IS 'an arrival has a finite time, and joined at or before it';
COMMENT ON CONSTRAINT roster_arrival_players_check ON mm.roster_arrival IS 'a roster has at least one player';

SELECT pg_catalog.pg_extension_config_dump('mm.roster_arrival', '');

-- The replays read and match in C; their reads are cheap per row but many,
-- which JIT compiling would slow by seconds (jit off: a day of a busy queue
-- replayed in 28 s instead of 2 minutes).
-- @access admin, analyst
CREATE FUNCTION mm.whatif(queue text, since timestamptz, until timestamptz, config jsonb DEFAULT '{}',
                          every interval DEFAULT NULL, accept_rate float8 DEFAULT NULL, seed bigint DEFAULT 0)
RETURNS TABLE (segment text, value text, rosters bigint, games bigint, players_matched bigint,
               wait_p50 interval, wait_p90 interval, wait_p99 interval, left_or_expired bigint,
               still_waiting bigint, favourite_odds float8, mean_latency float8)
AS 'MODULE_PATHNAME', 'mm_whatif'
LANGUAGE C STABLE
SET jit = off;
COMMENT ON FUNCTION mm.whatif IS
    'replay the rosters that arrived in a queue between since and until through the matcher under the queue''s config with "config" merged in (''{}'': as it is), at the recorded tick times (every: at that cadence instead), in memory: per segment (all, rating_decile, party_size, region, mode), the rosters, matches made (games), players matched, waits, rosters that left or expired before a match, still waiting at the end, the favourite''s mean odds and the mean latency; ready checks replayed as recorded where the same rosters meet, otherwise drawn at accept_rate (NULL: the recorded rate) with seed; reads, never writes or locks what a tick needs';

-- @access admin, analyst
CREATE FUNCTION mm.whatif_compare(queue text, since timestamptz, until timestamptz, configs jsonb[],
                                  every interval DEFAULT NULL, accept_rate float8 DEFAULT NULL, seed bigint DEFAULT 0)
RETURNS TABLE (config_no int, config jsonb, segment text, value text, rosters bigint, games bigint,
               players_matched bigint, wait_p50 interval, wait_p90 interval, wait_p99 interval,
               left_or_expired bigint, still_waiting bigint, favourite_odds float8, mean_latency float8)
AS 'MODULE_PATHNAME', 'mm_whatif_compare'
LANGUAGE C STABLE
SET jit = off;
COMMENT ON FUNCTION mm.whatif_compare IS
    'mm.whatif of each config over the same window, the queue''s current config first (config_no 0, config ''{}''), then configs[1], configs[2], ... (config_no 1, 2, ...): one row per config and segment';

-- @access admin, analyst
CREATE FUNCTION mm.whatif_matches(queue text, since timestamptz, until timestamptz, config jsonb DEFAULT '{}',
                                  every interval DEFAULT NULL, accept_rate float8 DEFAULT NULL, seed bigint DEFAULT 0)
RETURNS TABLE (tick_at timestamptz, match_no int, roster_id bigint, team text, waited interval,
               status text, live_match_id bigint)
AS 'MODULE_PATHNAME', 'mm_whatif_matches'
LANGUAGE C STABLE
SET jit = off;
COMMENT ON FUNCTION mm.whatif_matches IS
    'the matches mm.whatif''s replay makes, one row per roster: the tick, the match''s number in the replay, the roster, its team, its wait, status (matched, or dissolved by its ready check) and the live match made of the same rosters (NULL: none)';
