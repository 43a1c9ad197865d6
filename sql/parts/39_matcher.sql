-- The matcher (the Guild Wars 2 wiki's PvP matchmaking page): the roster
-- matcher over any query's rows, and its config. Pure computation in C
-- (src/matcher/); the queue (40_queue.sql) runs it in ticks.

-- @access public
CREATE FUNCTION mm.matcher_config(config jsonb DEFAULT '{}')
RETURNS jsonb
AS 'MODULE_PATHNAME', 'mm_matcher_config'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.matcher_config IS
    'check a queue config and return it with every default filled in';

-- @access public
CREATE FUNCTION mm.rating_scales()
RETURNS TABLE (model text, deviations float8, padding float8, rating_distance float8, rating_spread float8)
AS 'MODULE_PATHNAME', 'mm_rating_scales'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.rating_scales IS
    'per rating model, on its own scale, what a queue''s filter.deviations, filter.padding, scoring.rating_distance and prediction.rating.spread are when its config leaves them null (the default)';

-- @access public
CREATE FUNCTION mm.matcher_padding(config jsonb, waited float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_matcher_padding_sql'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.matcher_padding IS
    'rating padding added on each side of a roster''s range after waiting "waited" seconds';

-- @access service, admin, analyst
CREATE FUNCTION mm.match_rosters(rosters text, config jsonb DEFAULT '{}', at timestamptz DEFAULT now())
RETURNS TABLE (match_no int, roster_id bigint, team text, prediction float8, odds float8, rating_spread float8,
               region text)
AS 'MODULE_PATHNAME', 'mm_match_rosters'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION mm.match_rosters IS
    'run the GW2 roster matcher over the rows of a query (roster_id, players, rating; optional deviation, rank, ladder_points, dishonor, professions, joined_at, attributes, latencies) in the order it returns them, with the config''s rules; region is the region a latency rule chose (NULL without one)';

-- @access internal
CREATE FUNCTION mm._match_rosters(rosters text, config jsonb, at timestamptz, naive bool DEFAULT false)
RETURNS TABLE (roster_id bigint, outcome text, match_no int, team text, failed_no int, reason text)
AS 'MODULE_PATHNAME', 'mm_match_rosters_outcomes'
LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION mm._match_rosters IS
    'internal (tests): the outcome of every matched roster and tried target of mm.match_rosters (matched with match_no and team, or failed with its order of failure and reason); naive scans the queue for potentials as the GW2 pseudo-code does';
