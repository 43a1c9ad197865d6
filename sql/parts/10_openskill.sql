
-- OpenSkill (Weng-Lin) ratings and musigma matchmaking (the IMS matchmaker documentation).

-- @access public
CREATE FUNCTION mm.ordinal(rating mm.rating, z float8 DEFAULT 3)
RETURNS float8
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT mm.ordinal((rating).mu, (rating).sigma, z) $$;
COMMENT ON FUNCTION mm.ordinal IS
    'the ordinal mu - z * sigma of an mm.rating (inlined by the planner)';

-- @access public
CREATE FUNCTION mm.openskill_rate(
    team int[], rank float8[], mu float8[], sigma float8[],
    model text DEFAULT 'plackett_luce',
    beta float8 DEFAULT 25.0 / 6,
    kappa float8 DEFAULT 0.0001,
    tau float8 DEFAULT 25.0 / 300,
    limit_sigma bool DEFAULT false,
    weight float8[] DEFAULT NULL,
    z float8 DEFAULT 3,
    alpha float8 DEFAULT 1,
    target float8 DEFAULT 0,
    balance bool DEFAULT false,
    epsilon float8 DEFAULT 0.1,
    score float8[] DEFAULT NULL,
    margin float8 DEFAULT 0)
RETURNS TABLE(idx int, mu float8, sigma float8)
AS 'MODULE_PATHNAME', 'mm_openskill_rate'
LANGUAGE C IMMUTABLE PARALLEL SAFE ROWS 10;
COMMENT ON FUNCTION mm.openskill_rate IS
    'rate one finished game with a Weng-Lin model (openskill.js 5.0.1): one array element per player, rows in input order';

-- @access public
CREATE FUNCTION mm.openskill_predict_win(team int[], mu float8[], sigma float8[], beta float8 DEFAULT 25.0 / 6)
RETURNS TABLE(team int, probability float8)
AS 'MODULE_PATHNAME', 'mm_openskill_predict_win'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 4;
COMMENT ON FUNCTION mm.openskill_predict_win IS
    'probability of each team winning (openskill.js 5.0.1 predictWin); teams in order of first appearance';

-- @access public
CREATE FUNCTION mm.openskill_predict_draw(team int[], mu float8[], sigma float8[], beta float8 DEFAULT 25.0 / 6)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_openskill_predict_draw'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.openskill_predict_draw IS
    'probability of a draw (openskill.js 5.0.1 predictDraw)';

-- @access public
CREATE FUNCTION mm.openskill_predict_rank(team int[], mu float8[], sigma float8[], beta float8 DEFAULT 25.0 / 6)
RETURNS TABLE(team int, rank int, probability float8)
AS 'MODULE_PATHNAME', 'mm_openskill_predict_rank'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 4;
COMMENT ON FUNCTION mm.openskill_predict_rank IS
    'predicted finishing rank and win probability of each team (openskill.js 5.0.1 predictRank)';

-- @access public
CREATE FUNCTION mm.normal_quantile(p float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_normal_quantile'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.normal_quantile IS
    'inverse standard normal CDF (used by Thurstone-Mosteller and predict_draw)';

-- @access public
CREATE FUNCTION mm.ims_rate(request jsonb)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'mm_ims_rate_v2'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.ims_rate IS
    'the IMS matchmaker rate endpoint (the IMS matchmaker documentation): a request with config and ranked teams in, new ratings out; config keys left out take mm.openskill_rate''s defaults; a playerId may appear once';

-- @access public
CREATE FUNCTION mm.rate(request jsonb)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'mm_ims_rate'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.rate IS
    'deprecated: use mm.ims_rate. The IMS matchmaker rate endpoint with the 0.1.0 defaults for config keys left out (beta 5, tau 0, mu 30, sigma 10)';

-- @access admin, analyst
CREATE FUNCTION mm.openskill_replay(
    games text,
    initial text DEFAULT NULL,
    model text DEFAULT 'plackett_luce',
    beta float8 DEFAULT 25.0 / 6,
    kappa float8 DEFAULT 0.0001,
    tau float8 DEFAULT 25.0 / 300,
    limit_sigma bool DEFAULT false,
    mu float8 DEFAULT 25,
    sigma float8 DEFAULT 25.0 / 3,
    z float8 DEFAULT 3,
    alpha float8 DEFAULT 1,
    target float8 DEFAULT 0,
    balance bool DEFAULT false,
    epsilon float8 DEFAULT 0.1)
RETURNS TABLE(player_id bigint, mu float8, sigma float8, games bigint)
AS 'MODULE_PATHNAME', 'mm_replay_openskill'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION mm.openskill_replay IS
    're-rate a game history: the games query yields (game key, player_id, team, rank[, weight]) in play order, the initial query (player_id, mu, sigma); final rating and games played per player';

-- 0.1.0's name, argument names and result columns (matches int), kept for
-- one version. It runs the caller's query, so it keeps the caller's
-- search_path (a C function, as mm.openskill_replay): an unqualified table
-- of the caller's is found.
-- @access admin, analyst
CREATE FUNCTION mm.replay_openskill(
    history text,
    initial text DEFAULT NULL,
    model text DEFAULT 'plackett_luce',
    beta float8 DEFAULT 25.0 / 6,
    kappa float8 DEFAULT 0.0001,
    tau float8 DEFAULT 25.0 / 300,
    limit_sigma bool DEFAULT false,
    mu float8 DEFAULT 25,
    sigma float8 DEFAULT 25.0 / 3,
    z float8 DEFAULT 3,
    alpha float8 DEFAULT 1,
    target float8 DEFAULT 0,
    balance bool DEFAULT false,
    epsilon float8 DEFAULT 0.1)
RETURNS TABLE(player_id bigint, mu float8, sigma float8, matches int)
AS 'MODULE_PATHNAME', 'mm_replay_openskill_deprecated'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION mm.replay_openskill IS
    'deprecated: use mm.openskill_replay (games bigint instead of matches int). Re-rate a match history: history query yields (match key, player_id, team, rank[, weight]) in play order, initial query (player_id, mu, sigma); final rating and matches per player';

-- @access public
CREATE FUNCTION mm.party_rating(
    mu float8[], sigma float8[],
    max_mu_weight float8 DEFAULT 2,
    med_mu_weight float8 DEFAULT 1,
    ordinal_deviations float8 DEFAULT 3)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_party_rating'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.party_rating IS
    'IMS party rating: weighted max and median mu minus ordinal_deviations times the mean sigma';

-- party_rating_agg keeps its members in an internal state (support
-- functions that SQL cannot feed a forged state), serialized to bytea for
-- parallel and partial aggregation.

-- @access public
CREATE FUNCTION mm.party_rating_accum(state internal, mu float8, sigma float8,
    max_mu_weight float8, med_mu_weight float8, ordinal_deviations float8)
RETURNS internal
AS 'MODULE_PATHNAME', 'mm_party_rating_accum'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.party_rating_accum IS
    'transition function of the party_rating_agg aggregate';

-- @access public
CREATE FUNCTION mm.party_rating_accum(state internal, mu float8, sigma float8)
RETURNS internal
AS 'MODULE_PATHNAME', 'mm_party_rating_accum'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.party_rating_accum IS
    'transition function of the party_rating_agg aggregate with the IMS defaults (2, 1, 3)';

-- @access public
CREATE FUNCTION mm.party_rating_combine(a internal, b internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'mm_party_rating_combine'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.party_rating_combine IS
    'combine function of the party_rating_agg aggregate';

-- @access public
CREATE FUNCTION mm.party_rating_serialize(state internal)
RETURNS bytea
AS 'MODULE_PATHNAME', 'mm_party_rating_serialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.party_rating_serialize IS
    'serialization function of the party_rating_agg aggregate';

-- @access public
CREATE FUNCTION mm.party_rating_deserialize(state bytea, dummy internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'mm_party_rating_deserialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.party_rating_deserialize IS
    'deserialization function of the party_rating_agg aggregate (checks every value)';

-- @access public
CREATE FUNCTION mm.party_rating_final(state internal)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_party_rating_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.party_rating_final IS
    'final function of the party_rating_agg aggregate';

-- @access public
CREATE AGGREGATE mm.party_rating_agg(mu float8, sigma float8,
    max_mu_weight float8, med_mu_weight float8, ordinal_deviations float8) (
    SFUNC = mm.party_rating_accum,
    STYPE = internal,
    FINALFUNC = mm.party_rating_final,
    COMBINEFUNC = mm.party_rating_combine,
    SERIALFUNC = mm.party_rating_serialize,
    DESERIALFUNC = mm.party_rating_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE mm.party_rating_agg IS
    'IMS party rating over a party''s rows (mu, sigma, max_mu_weight, med_mu_weight, ordinal_deviations)';

-- @access public
CREATE AGGREGATE mm.party_rating_agg(mu float8, sigma float8) (
    SFUNC = mm.party_rating_accum,
    STYPE = internal,
    FINALFUNC = mm.party_rating_final,
    COMBINEFUNC = mm.party_rating_combine,
    SERIALFUNC = mm.party_rating_serialize,
    DESERIALFUNC = mm.party_rating_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE mm.party_rating_agg IS
    'IMS party rating over a party''s rows with max_mu_weight 2, med_mu_weight 1, ordinal_deviations 3';

-- @access public
CREATE FUNCTION mm.musigma_beta(waited interval, max_beta float8, buckets int, bucket_duration interval)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_musigma_beta'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.musigma_beta IS
    'IMS beta widening: bucket i starts at bucket_duration * (i - 1)^2 and uses max_beta * i / buckets';

-- @access public
CREATE FUNCTION mm.musigma_data_point(rating float8[], beta float8,
    floor float8 DEFAULT 0.5, weight float8 DEFAULT 1,
    OUT score float8, OUT accepted bool, OUT weighted_score float8)
AS 'MODULE_PATHNAME', 'mm_musigma_data_point'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.musigma_data_point IS
    'IMS musigma data point: score max(0, 1 - (max - min rating) / beta), accepted when score >= floor, weighted_score = weight * score';
