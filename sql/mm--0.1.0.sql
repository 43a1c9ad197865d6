-- mm: game matchmaking and skill rating inside PostgreSQL.
--
-- Install script source. The Makefile builds sql/mm--<version>.sql from this
-- file followed by sql/parts/*.sql in name order (one part per feature).
-- Every object lives in schema mm, created here, and every reference is
-- schema-qualified.

\echo Use "CREATE EXTENSION mm" to load this file. \quit

-- The schema is a member of the extension: DROP EXTENSION removes it with
-- everything in it. A schema mm that already exists is an error here rather
-- than being taken over.
CREATE SCHEMA mm;
COMMENT ON SCHEMA mm IS 'mm: game matchmaking and skill rating (Glicko-2, OpenSkill, server scoring, roster matching, async opponents)';

-- Types of the SQL contract (DESIGN.md section 4).

CREATE TYPE mm.rating AS (
    mu    float8,
    sigma float8
);
COMMENT ON TYPE mm.rating IS 'a musigma / OpenSkill rating: skill belief N(mu, sigma^2)';

CREATE TYPE mm.glicko AS (
    rating float8,
    rd     float8,
    vol    float8
);
COMMENT ON TYPE mm.glicko IS 'a Glicko-2 rating on the Glicko scale: rating, rating deviation, volatility';

-- musigma: ordinal

CREATE FUNCTION mm.ordinal(mu float8, sigma float8, z float8 DEFAULT 3)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_ordinal'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.ordinal(float8, float8, float8) IS
    'conservative skill estimate mu - z * sigma (z defaults to 3)';

-- OpenSkill (Weng-Lin) ratings and musigma matchmaking (issue 3, seed 002).

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
COMMENT ON FUNCTION mm.openskill_rate(int[], float8[], float8[], float8[], text, float8, float8, float8, bool, float8[], float8, float8, float8, bool, float8, float8[], float8) IS
    'rate one finished game with a Weng-Lin model (openskill.js 5.0.1): one array element per player, rows in input order';

CREATE FUNCTION mm.openskill_predict_win(team int[], mu float8[], sigma float8[], beta float8 DEFAULT 25.0 / 6)
RETURNS TABLE(team int, probability float8)
AS 'MODULE_PATHNAME', 'mm_openskill_predict_win'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 4;
COMMENT ON FUNCTION mm.openskill_predict_win(int[], float8[], float8[], float8) IS
    'probability of each team winning (openskill.js 5.0.1 predictWin); teams in order of first appearance';

CREATE FUNCTION mm.openskill_predict_draw(team int[], mu float8[], sigma float8[], beta float8 DEFAULT 25.0 / 6)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_openskill_predict_draw'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.openskill_predict_draw(int[], float8[], float8[], float8) IS
    'probability of a draw (openskill.js 5.0.1 predictDraw)';

CREATE FUNCTION mm.openskill_predict_rank(team int[], mu float8[], sigma float8[], beta float8 DEFAULT 25.0 / 6)
RETURNS TABLE(team int, rank int, probability float8)
AS 'MODULE_PATHNAME', 'mm_openskill_predict_rank'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 4;
COMMENT ON FUNCTION mm.openskill_predict_rank(int[], float8[], float8[], float8) IS
    'predicted finishing rank and win probability of each team (openskill.js 5.0.1 predictRank)';

CREATE FUNCTION mm.normal_quantile(p float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_normal_quantile'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.normal_quantile(float8) IS
    'inverse standard normal CDF (used by Thurstone-Mosteller and predict_draw)';

CREATE FUNCTION mm.rate(request jsonb)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'mm_ims_rate'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.rate(jsonb) IS
    'the IMS matchmaker rate endpoint (seed 002): a request with config and ranked teams in, new ratings out';

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
AS 'MODULE_PATHNAME', 'mm_replay_openskill'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION mm.replay_openskill(text, text, text, float8, float8, float8, bool, float8, float8, float8, float8, float8, bool, float8) IS
    're-rate a match history: history query yields (match key, player_id, team, rank[, weight]) in play order, initial query (player_id, mu, sigma); final rating and matches per player';

CREATE FUNCTION mm.party_rating(
    mu float8[], sigma float8[],
    max_mu_weight float8 DEFAULT 2,
    med_mu_weight float8 DEFAULT 1,
    ordinal_deviations float8 DEFAULT 3)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_party_rating'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.party_rating(float8[], float8[], float8, float8, float8) IS
    'IMS party rating: weighted max and median mu minus ordinal_deviations times the mean sigma';

CREATE FUNCTION mm.party_rating_accum(state float8[], mu float8, sigma float8,
    max_mu_weight float8, med_mu_weight float8, ordinal_deviations float8)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'mm_party_rating_accum'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.party_rating_accum(float8[], float8, float8, float8, float8, float8) IS
    'transition function of the party_rating_agg aggregate';

CREATE FUNCTION mm.party_rating_combine(a float8[], b float8[])
RETURNS float8[]
AS 'MODULE_PATHNAME', 'mm_party_rating_combine'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.party_rating_combine(float8[], float8[]) IS
    'combine function of the party_rating_agg aggregate';

CREATE FUNCTION mm.party_rating_final(state float8[])
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_party_rating_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.party_rating_final(float8[]) IS
    'final function of the party_rating_agg aggregate';

CREATE AGGREGATE mm.party_rating_agg(mu float8, sigma float8,
    max_mu_weight float8, med_mu_weight float8, ordinal_deviations float8) (
    SFUNC = mm.party_rating_accum,
    STYPE = float8[],
    FINALFUNC = mm.party_rating_final,
    COMBINEFUNC = mm.party_rating_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE mm.party_rating_agg(float8, float8, float8, float8, float8) IS
    'IMS party rating over a party''s rows (mu, sigma, max_mu_weight, med_mu_weight, ordinal_deviations)';

CREATE FUNCTION mm.party_rating_accum(state float8[], mu float8, sigma float8)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'mm_party_rating_accum'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.party_rating_accum(float8[], float8, float8) IS
    'transition function of the party_rating_agg aggregate with the seed''s defaults (2, 1, 3)';

CREATE AGGREGATE mm.party_rating_agg(mu float8, sigma float8) (
    SFUNC = mm.party_rating_accum,
    STYPE = float8[],
    FINALFUNC = mm.party_rating_final,
    COMBINEFUNC = mm.party_rating_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE mm.party_rating_agg(float8, float8) IS
    'IMS party rating over a party''s rows with max_mu_weight 2, med_mu_weight 1, ordinal_deviations 3';

CREATE FUNCTION mm.musigma_beta(waited interval, max_beta float8, buckets int, bucket_duration interval)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_musigma_beta'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.musigma_beta(interval, float8, int, interval) IS
    'IMS beta widening: bucket i starts at bucket_duration * (i - 1)^2 and uses max_beta * i / buckets';

CREATE FUNCTION mm.musigma_data_point(rating float8[], beta float8,
    floor float8 DEFAULT 0.5, weight float8 DEFAULT 1,
    OUT score float8, OUT accepted bool, OUT weighted_score float8)
AS 'MODULE_PATHNAME', 'mm_musigma_data_point'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.musigma_data_point(float8[], float8, float8, float8) IS
    'IMS musigma data point: score max(0, 1 - (max - min rating) / beta), accepted when score >= floor, weighted_score = weight * score';

-- Glicko-2 (Glickman's glicko2.pdf) and the GW2 rating policy (seed 003).

CREATE FUNCTION mm.glicko2_rate(player mm.glicko, opp_rating float8[], opp_rd float8[],
                                score float8[], tau float8 DEFAULT 0.5, policy jsonb DEFAULT NULL)
RETURNS mm.glicko
AS 'MODULE_PATHNAME', 'mm_glicko2_rate'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.glicko2_rate(mm.glicko, float8[], float8[], float8[], float8, jsonb) IS
    'rate one Glicko-2 rating period (Glickman steps 1-8); empty arrays are a period without games; a policy adds GW2 clamps and max change';

CREATE FUNCTION mm.glicko2_idle(player mm.glicko, periods float8, policy jsonb DEFAULT NULL)
RETURNS mm.glicko
AS 'MODULE_PATHNAME', 'mm_glicko2_idle'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.glicko2_idle(mm.glicko, float8, jsonb) IS
    'deviation growth over idle rating periods: sqrt(rd^2 + t vol^2) on the Glicko-2 scale, or the policy''s max_periods rule';

CREATE FUNCTION mm.glicko2_expect(rating float8, rd float8, opp_rating float8, opp_rd float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_glicko2_expect'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.glicko2_expect(float8, float8, float8, float8) IS
    'expected score of a player against an opponent, both deviations combined';

CREATE FUNCTION mm.glicko2_effective(player mm.glicko)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_glicko2_effective'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.glicko2_effective(mm.glicko) IS
    'effective rating rating - rd, as GW2 matchmaking uses it (seed 003)';

CREATE FUNCTION mm.glicko2_policy(policy jsonb DEFAULT NULL)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'mm_glicko2_policy'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.glicko2_policy(jsonb) IS
    'the GW2 rating policy with every key filled in (seed 003''s values as defaults); checks the policy';

CREATE FUNCTION mm.glicko2_rating_at(player mm.glicko, updated_at timestamptz,
                                     at timestamptz DEFAULT now(), policy jsonb DEFAULT NULL)
RETURNS mm.glicko
AS 'MODULE_PATHNAME', 'mm_glicko2_rating_at'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.glicko2_rating_at(mm.glicko, timestamptz, timestamptz, jsonb) IS
    'a rating as of a time: the default if last updated before the policy''s reset, else idle growth over the whole periods elapsed';

CREATE FUNCTION mm.glicko2_blend(core mm.glicko, profession mm.glicko, policy jsonb DEFAULT NULL)
RETURNS mm.glicko
AS 'MODULE_PATHNAME', 'mm_glicko2_blend'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.glicko2_blend(mm.glicko, mm.glicko, jsonb) IS
    'blend core and profession ratings by the policy''s rating.profession_ratio (0 core only, 1 profession only)';

CREATE FUNCTION mm.glicko2_replay(games text, period interval DEFAULT NULL, tau float8 DEFAULT NULL,
                                  policy jsonb DEFAULT NULL, per_game boolean DEFAULT false)
RETURNS TABLE(player_id bigint, rating float8, rd float8, vol float8, games bigint, last_played timestamptz)
AS 'MODULE_PATHNAME', 'mm_glicko2_replay'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION mm.glicko2_replay(text, interval, float8, jsonb, boolean) IS
    're-rate a game history (player_id, opponent_id, score, played_at) in rating periods or game by game; final ratings per player';

-- The rating-period aggregate: float8[] state
-- [rating, rd, vol, tau, sum g^2 E (1 - E), sum g (s - E), games].

CREATE FUNCTION mm.glicko2_period_step(state float8[], rating float8, rd float8, vol float8,
                                       opp_rating float8, opp_rd float8, score float8)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'mm_glicko2_period_step'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.glicko2_period_step(float8[], float8, float8, float8, float8, float8, float8) IS
    'transition function of mm.glicko2_period';

CREATE FUNCTION mm.glicko2_period_step(state float8[], rating float8, rd float8, vol float8,
                                       opp_rating float8, opp_rd float8, score float8, tau float8)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'mm_glicko2_period_step'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.glicko2_period_step(float8[], float8, float8, float8, float8, float8, float8, float8) IS
    'transition function of mm.glicko2_period with tau';

CREATE FUNCTION mm.glicko2_period_combine(a float8[], b float8[])
RETURNS float8[]
AS 'MODULE_PATHNAME', 'mm_glicko2_period_combine'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.glicko2_period_combine(float8[], float8[]) IS
    'combine function of mm.glicko2_period: adds the partial sums of one player';

CREATE FUNCTION mm.glicko2_period_final(state float8[])
RETURNS mm.glicko
AS 'MODULE_PATHNAME', 'mm_glicko2_period_final'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.glicko2_period_final(float8[]) IS
    'final function of mm.glicko2_period: Glickman steps 3-8 from the sums';

CREATE AGGREGATE mm.glicko2_period(rating float8, rd float8, vol float8,
                                   opp_rating float8, opp_rd float8, score float8) (
    SFUNC = mm.glicko2_period_step,
    STYPE = float8[],
    FINALFUNC = mm.glicko2_period_final,
    COMBINEFUNC = mm.glicko2_period_combine,
    INITCOND = '{}',
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE mm.glicko2_period(float8, float8, float8, float8, float8, float8) IS
    'one Glicko-2 rating period over a player''s games (GROUP BY player), tau 0.5; equal to mm.glicko2_rate';

CREATE AGGREGATE mm.glicko2_period(rating float8, rd float8, vol float8,
                                   opp_rating float8, opp_rd float8, score float8, tau float8) (
    SFUNC = mm.glicko2_period_step,
    STYPE = float8[],
    FINALFUNC = mm.glicko2_period_final,
    COMBINEFUNC = mm.glicko2_period_combine,
    INITCOND = '{}',
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE mm.glicko2_period(float8, float8, float8, float8, float8, float8, float8) IS
    'one Glicko-2 rating period over a player''s games (GROUP BY player) with tau; equal to mm.glicko2_rate';

-- Signals and server scoring: the Roblox weighted-sum model (seeds 000, 001).

-- Signal functions: each maps attributes to a score in [0, 1].

CREATE FUNCTION mm.numeric_signal(a float8, b float8, max_relevant_difference float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_numeric_signal'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.numeric_signal(float8, float8, float8) IS
    'numerical signal: 1 - min(|a - b| / max_relevant_difference, 1)';

CREATE FUNCTION mm.ratio_signal(part float8, whole float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_ratio_signal'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.ratio_signal(float8, float8) IS
    'ratio signal: part / whole clamped to [0, 1]; 0 when whole is 0 (an empty server)';

CREATE FUNCTION mm.age_signal(server_average_age float8, joining_player_age float8,
                              max_relevant_difference float8 DEFAULT 25)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_age_signal'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.age_signal(float8, float8, float8) IS
    'Roblox Age signal: 1 - min(25, |avg server age - joining age|) / 25 (the normalizing factor defaults to 25)';

CREATE FUNCTION mm.latency_signal(estimated_ping_ms float8, max_relevant_difference float8 DEFAULT 250)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_latency_signal'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.latency_signal(float8, float8) IS
    'Roblox Latency signal: 1 - min(250, estimated ping ms) / 250';

CREATE FUNCTION mm.occupancy_signal(players int, capacity int)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_occupancy_signal'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.occupancy_signal(int, int) IS
    'Roblox Occupancy signal: players in server / server capacity';

CREATE FUNCTION mm.play_history_signal(server_average float8, joining_player float8,
                                       max_relevant_difference float8 DEFAULT 4.6)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_play_history_signal'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.play_history_signal(float8, float8, float8) IS
    'Roblox Play History signal: 1 - min(1, |avg server play history - joining| / 4.6) (log10 minutes over 28 days)';

CREATE FUNCTION mm.friends_signal(preferred_players_in_server bigint)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_friends_signal'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.friends_signal(bigint) IS
    'Roblox Friends signal: min(preferred players in server, 1) / 1';

CREATE FUNCTION mm.categorical_signal(a anyelement, b anyelement)
RETURNS float8
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mm, pg_catalog, pg_temp
AS $$ SELECT CASE WHEN a = b THEN 1.0::float8 ELSE 0.0::float8 END $$;
COMMENT ON FUNCTION mm.categorical_signal(anyelement, anyelement) IS
    'categorical equality signal: 1 when the values are equal, else 0 (server categorical custom signals)';

-- Aggregates over a server's players.

CREATE FUNCTION mm.share_accum(state float8[], value anyelement, target anyelement)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'mm_share_accum'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.share_accum(float8[], anyelement, anyelement) IS
    'transition function of mm.share: state {players with the target value, players}';

CREATE FUNCTION mm.share_combine(a float8[], b float8[])
RETURNS float8[]
AS 'MODULE_PATHNAME', 'mm_share_combine'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.share_combine(float8[], float8[]) IS
    'combine function of mm.share';

CREATE FUNCTION mm.share_final(state float8[])
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_share_final'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.share_final(float8[]) IS
    'final function of mm.share: the fraction of players with the target value (0 over no players)';

CREATE AGGREGATE mm.share(value anyelement, target anyelement) (
    SFUNC = mm.share_accum,
    STYPE = float8[],
    FINALFUNC = mm.share_final,
    COMBINEFUNC = mm.share_combine,
    INITCOND = '{0,0}',
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE mm.share(anyelement, anyelement) IS
    'fraction of rows whose value equals the target (the joining player''s): language, device type, voice chat, clustering; 1 - share diversifies';

CREATE FUNCTION mm.weighted_score_accum(state float8[], score float8, weight float8)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'mm_weighted_score_accum'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.weighted_score_accum(float8[], float8, float8) IS
    'transition function of mm.weighted_score: state {sum of weight * score, signals counted}';

CREATE FUNCTION mm.weighted_score_combine(a float8[], b float8[])
RETURNS float8[]
AS 'MODULE_PATHNAME', 'mm_weighted_score_combine'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.weighted_score_combine(float8[], float8[]) IS
    'combine function of mm.weighted_score';

CREATE FUNCTION mm.weighted_score_final(state float8[])
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_weighted_score_final'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.weighted_score_final(float8[]) IS
    'final function of mm.weighted_score: the server score';

CREATE AGGREGATE mm.weighted_score(score float8, weight float8) (
    SFUNC = mm.weighted_score_accum,
    STYPE = float8[],
    FINALFUNC = mm.weighted_score_final,
    COMBINEFUNC = mm.weighted_score_combine,
    INITCOND = '{0,0}',
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE mm.weighted_score(float8, float8) IS
    'server score: sum of weight * signal score; weights >= 0, weight 0 drops the signal, scores in [0, 1]';

-- The placement engine.

CREATE FUNCTION mm.check_place_config(config jsonb)
RETURNS boolean
AS 'MODULE_PATHNAME', 'mm_check_place_config'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.check_place_config(jsonb) IS
    'validate a place configuration: true, or an error saying what is wrong';

CREATE TABLE mm.place_configs (
    place  text PRIMARY KEY,
    config jsonb NOT NULL CHECK (mm.check_place_config(config))
);
COMMENT ON TABLE mm.place_configs IS
    'matchmaking configuration per place: {"voice_chat": bool, "include_defaults": bool, "signals": {name: {kind, weight, ...}}}; places without a row use the Roblox default configuration';
SELECT pg_catalog.pg_extension_config_dump('mm.place_configs', '');

CREATE SEQUENCE mm.server_id_seq;
COMMENT ON SEQUENCE mm.server_id_seq IS 'server ids of mm.servers';
SELECT pg_catalog.pg_extension_config_dump('mm.server_id_seq', '');

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
SELECT pg_catalog.pg_extension_config_dump('mm.servers', '');

CREATE TABLE mm.server_players (
    player_id  bigint PRIMARY KEY,
    server_id  bigint NOT NULL REFERENCES mm.servers ON DELETE CASCADE,
    attributes jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(attributes) = 'object'),
    joined_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX server_players_server_idx ON mm.server_players (server_id);
COMMENT ON TABLE mm.server_players IS
    'players on servers with their attributes (a player is on at most one server)';
SELECT pg_catalog.pg_extension_config_dump('mm.server_players', '');

CREATE FUNCTION mm.refresh_servers(server_ids bigint[])
RETURNS int
LANGUAGE sql VOLATILE STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
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
COMMENT ON FUNCTION mm.refresh_servers(bigint[]) IS
    'recompute occupancy and player-attribute aggregates of the given servers from mm.server_players; returns the number of servers updated';

CREATE FUNCTION mm.refresh_servers(place text)
RETURNS int
LANGUAGE sql VOLATILE STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
SELECT mm.refresh_servers(ARRAY(SELECT s.server_id FROM mm.servers s WHERE s.place = refresh_servers.place))
$$;
COMMENT ON FUNCTION mm.refresh_servers(text) IS
    'recompute occupancy and aggregates of every server of a place (after writing mm.server_players directly)';

CREATE FUNCTION mm.add_server(place text, capacity int, attributes jsonb DEFAULT '{}')
RETURNS bigint
LANGUAGE plpgsql VOLATILE STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    id bigint;
BEGIN
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
    INSERT INTO mm.servers AS s (place, capacity, attributes)
    VALUES (add_server.place, add_server.capacity, add_server.attributes)
    RETURNING s.server_id INTO id;
    RETURN id;
END
$$;
COMMENT ON FUNCTION mm.add_server(text, int, jsonb) IS
    'start a server of a place with a capacity and server attributes; returns its id';

CREATE FUNCTION mm.set_place_config(place text, config jsonb)
RETURNS void
LANGUAGE sql VOLATILE STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
INSERT INTO mm.place_configs (place, config) VALUES (set_place_config.place, set_place_config.config)
ON CONFLICT ON CONSTRAINT place_configs_pkey DO UPDATE SET config = EXCLUDED.config
$$;
COMMENT ON FUNCTION mm.set_place_config(text, jsonb) IS
    'set the matchmaking configuration of a place (validated; errors say what is wrong)';

CREATE FUNCTION mm.rank_servers(place text, player jsonb, preferred bigint[] DEFAULT '{}')
RETURNS TABLE (server_id bigint, score float8, signals text[], signal_scores float8[])
AS 'MODULE_PATHNAME', 'mm_rank_servers'
LANGUAGE C STABLE STRICT PARALLEL RESTRICTED ROWS 1000;
COMMENT ON FUNCTION mm.rank_servers(text, jsonb, bigint[]) IS
    'every non-full server of a place scored for a joining player (attributes as jsonb, preferred = friends or same-IP player ids), best first, with each signal''s score';

CREATE FUNCTION mm.server_breakdown(signals text[], signal_scores float8[])
RETURNS jsonb
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mm, pg_catalog, pg_temp
AS $$
SELECT COALESCE(pg_catalog.jsonb_object_agg(n, s), '{}')
FROM unnest(signals, signal_scores) AS u(n, s)
$$;
COMMENT ON FUNCTION mm.server_breakdown(text[], float8[]) IS
    'the per-signal breakdown of a rank_servers row as a jsonb object {signal: score}';

CREATE FUNCTION mm.place_player(server_id bigint, player_id bigint, player jsonb DEFAULT '{}')
RETURNS void
LANGUAGE plpgsql VOLATILE STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    -- Take a slot under the server row's lock: a concurrent joiner waits,
    -- then re-checks occupancy < capacity on the row it waited for.
    UPDATE mm.servers s SET occupancy = s.occupancy + 1
    WHERE s.server_id = place_player.server_id AND s.occupancy < s.capacity;
    IF NOT FOUND THEN
        IF NOT EXISTS (SELECT 1 FROM mm.servers s WHERE s.server_id = place_player.server_id) THEN
            RAISE EXCEPTION 'server % does not exist', place_player.server_id
                USING ERRCODE = 'no_data_found', HINT = 'Start it with mm.add_server.';
        END IF;
        RAISE EXCEPTION 'server % is full', place_player.server_id
            USING ERRCODE = 'check_violation',
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
COMMENT ON FUNCTION mm.place_player(bigint, bigint, jsonb) IS
    'put a player on a given server if it has a free slot (errors when full)';

CREATE FUNCTION mm.join_server(place text, player_id bigint, player jsonb DEFAULT '{}',
                               preferred bigint[] DEFAULT '{}')
RETURNS bigint
LANGUAGE plpgsql VOLATILE STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    candidate bigint;
    taken bigint;
BEGIN
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
COMMENT ON FUNCTION mm.join_server(text, bigint, jsonb, bigint[]) IS
    'put a joining player on the best-scoring server of a place with a free slot, atomically; NULL when every server is full';

CREATE FUNCTION mm.leave_server(player_id bigint)
RETURNS boolean
LANGUAGE plpgsql VOLATILE STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    sid bigint;
BEGIN
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
COMMENT ON FUNCTION mm.leave_server(bigint) IS
    'take a player off their server; false when they were on none';

CREATE FUNCTION mm.get_server_attribute(server_id bigint, name text)
RETURNS jsonb
LANGUAGE plpgsql STABLE STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    attrs jsonb;
BEGIN
    SELECT s.attributes INTO attrs FROM mm.servers s WHERE s.server_id = get_server_attribute.server_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'server % does not exist', get_server_attribute.server_id
            USING ERRCODE = 'no_data_found';
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
COMMENT ON FUNCTION mm.get_server_attribute(bigint, text) IS
    'a server attribute''s value (MatchmakingService:GetServerAttribute); errors when unset';

CREATE FUNCTION mm.set_server_attribute(server_id bigint, name text, value jsonb)
RETURNS void
LANGUAGE plpgsql VOLATILE STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF jsonb_typeof(value) NOT IN ('string', 'number', 'boolean') THEN
        RAISE EXCEPTION 'server attribute "%" must be a string, a number or a boolean', name
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The value is %s.', value);
    END IF;
    UPDATE mm.servers s SET attributes = s.attributes || jsonb_build_object(name, value)
    WHERE s.server_id = set_server_attribute.server_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'server % does not exist', set_server_attribute.server_id
            USING ERRCODE = 'no_data_found';
    END IF;
END
$$;
COMMENT ON FUNCTION mm.set_server_attribute(bigint, text, jsonb) IS
    'set a server attribute (MatchmakingService:SetServerAttribute): a string, number or boolean';

-- GW2 dishonor (seed 003, "Dishonor"): penalties by reason, stacks that
-- decay one per stack_duration, timeouts of roundInterval(stacks^exponent *
-- timeout_duration, timeout_rounding) added to the player's timeout.

-- The dishonor config: one row when set with mm.set_dishonor_config; no row
-- means the seed's defaults. Dumped with the data (pg_dump keeps it).
CREATE TABLE mm.dishonor_settings (
    singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    config     jsonb NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE mm.dishonor_settings IS
    'the dishonor config set with mm.set_dishonor_config (at most one row; none means the defaults)';
SELECT pg_catalog.pg_extension_config_dump('mm.dishonor_settings', '');

-- Each player's dishonor: "stacks" counted at "stacks_at" (they decay from
-- there), and the end of the current timeout.
CREATE TABLE mm.dishonor_players (
    player_id     bigint PRIMARY KEY,
    stacks        integer NOT NULL CHECK (stacks >= 0),
    stacks_at     timestamptz NOT NULL,
    timeout_until timestamptz,
    reason        text NOT NULL,
    updated_at    timestamptz NOT NULL
);
COMMENT ON TABLE mm.dishonor_players IS
    'players'' dishonor: stacks as counted at stacks_at (decaying from there), end of the timeout, last reason';
SELECT pg_catalog.pg_extension_config_dump('mm.dishonor_players', '');

CREATE FUNCTION mm.dishonor_config_resolve(config jsonb)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'mm_dishonor_config_resolve'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.dishonor_config_resolve(jsonb) IS
    'check a dishonor config (overrides of the defaults) and return it complete';

CREATE FUNCTION mm.dishonor_config_defaults()
RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mm, pg_catalog, pg_temp
RETURN mm.dishonor_config_resolve('{}'::jsonb);
COMMENT ON FUNCTION mm.dishonor_config_defaults() IS
    'the seed''s dishonor config: stack_duration 15m, timeout_duration 30s, timeout_exponent 1.5, timeout_rounding 1m, penalties abandon 10, queue_dodge 4, banned 1000000';

CREATE FUNCTION mm.dishonor_config()
RETURNS jsonb
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = mm, pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT coalesce((SELECT s.config FROM mm.dishonor_settings s WHERE s.singleton),
                    mm.dishonor_config_defaults());
END;
COMMENT ON FUNCTION mm.dishonor_config() IS
    'the dishonor config in force: the one set with mm.set_dishonor_config, else the defaults';

CREATE FUNCTION mm.set_dishonor_config(config jsonb)
RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    resolved jsonb;
BEGIN
    IF config IS NULL THEN
        RAISE EXCEPTION 'dishonor config must not be NULL'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass ''{}'' for the defaults.';
    END IF;
    resolved := mm.dishonor_config_resolve(config);
    INSERT INTO mm.dishonor_settings AS s (singleton, config, updated_at)
    VALUES (true, resolved, pg_catalog.now())
    ON CONFLICT (singleton) DO UPDATE
        SET config = excluded.config, updated_at = excluded.updated_at;
    RETURN resolved;
END;
$$;
COMMENT ON FUNCTION mm.set_dishonor_config(jsonb) IS
    'set the dishonor config (overrides of the defaults, which replace any earlier setting); returns it complete';

CREATE FUNCTION mm.dishonor_timeout(stacks integer, config jsonb DEFAULT '{}')
RETURNS interval
AS 'MODULE_PATHNAME', 'mm_dishonor_timeout'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.dishonor_timeout(integer, jsonb) IS
    'timeout earned by a player who now has this many stacks: roundInterval(stacks^timeout_exponent * timeout_duration, timeout_rounding)';

CREATE FUNCTION mm.dishonor_decay(stacks integer, elapsed interval, config jsonb DEFAULT '{}')
RETURNS integer
AS 'MODULE_PATHNAME', 'mm_dishonor_decay'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.dishonor_decay(integer, interval, jsonb) IS
    'stacks left after elapsed: one stack expires per full stack_duration';

CREATE FUNCTION mm.dishonor_penalty(reason text, config jsonb DEFAULT '{}')
RETURNS integer
AS 'MODULE_PATHNAME', 'mm_dishonor_penalty'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.dishonor_penalty(text, jsonb) IS
    'stacks of dishonor a reason adds (config "penalties"); unknown reasons are an error';

CREATE FUNCTION mm.dishonor_apply(stacks integer, stacks_at timestamptz, timeout_until timestamptz,
                                  reason text, at timestamptz, config jsonb DEFAULT '{}',
                                  OUT new_stacks integer, OUT new_stacks_at timestamptz,
                                  OUT new_timeout_until timestamptz)
RETURNS record
AS 'MODULE_PATHNAME', 'mm_dishonor_apply'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.dishonor_apply(integer, timestamptz, timestamptz, text, timestamptz, jsonb) IS
    'applyDishonor on a player''s state (stacks counted at stacks_at, NULL: at "at"; end of the timeout, NULL: none): the state after the penalty at "at"';

CREATE FUNCTION mm.dishonor_current(stacks integer, stacks_at timestamptz, at timestamptz,
                                    config jsonb DEFAULT '{}')
RETURNS integer
AS 'MODULE_PATHNAME', 'mm_dishonor_current'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.dishonor_current(integer, timestamptz, timestamptz, jsonb) IS
    'stacks left at "at" of stacks counted at stacks_at (no decay before stacks_at)';

CREATE FUNCTION mm.dishonor(player_id bigint, reason text, at timestamptz DEFAULT now(),
                            OUT stacks integer, OUT timeout_until timestamptz)
RETURNS record
LANGUAGE plpgsql VOLATILE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    cfg  jsonb := mm.dishonor_config();
    cur  mm.dishonor_players;
    next record;
BEGIN
    IF player_id IS NULL OR reason IS NULL OR at IS NULL THEN
        RAISE EXCEPTION 'player_id, reason and at must not be NULL'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass the player, a reason from the dishonor config and the time.';
    END IF;
    -- check the reason before taking any lock
    PERFORM mm.dishonor_penalty(reason, cfg);
    SELECT * INTO cur FROM mm.dishonor_players d WHERE d.player_id = dishonor.player_id FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO mm.dishonor_players AS d (player_id, stacks, stacks_at, timeout_until, reason, updated_at)
        VALUES (dishonor.player_id, 0, at, NULL, dishonor.reason, at)
        ON CONFLICT ON CONSTRAINT dishonor_players_pkey DO NOTHING;
        SELECT * INTO cur FROM mm.dishonor_players d WHERE d.player_id = dishonor.player_id FOR UPDATE;
    END IF;
    next := mm.dishonor_apply(cur.stacks, cur.stacks_at, cur.timeout_until, reason, at, cfg);
    UPDATE mm.dishonor_players d
       SET stacks = next.new_stacks, stacks_at = next.new_stacks_at,
           timeout_until = next.new_timeout_until, reason = dishonor.reason, updated_at = at
     WHERE d.player_id = dishonor.player_id;
    stacks := next.new_stacks;
    timeout_until := next.new_timeout_until;
END;
$$;
COMMENT ON FUNCTION mm.dishonor(bigint, text, timestamptz) IS
    'give a player dishonor for a reason at a time: adds the reason''s stacks and a timeout; returns the stacks and the end of the timeout';

CREATE FUNCTION mm.dishonor_statuses(player_ids bigint[], at timestamptz DEFAULT now())
RETURNS TABLE (player_id bigint, stacks integer, timeout_until timestamptz)
LANGUAGE sql STABLE
SET search_path = mm, pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT p.id,
           coalesce(mm.dishonor_current(d.stacks, d.stacks_at, dishonor_statuses.at, mm.dishonor_config()), 0),
           CASE WHEN d.timeout_until > dishonor_statuses.at THEN d.timeout_until END
    FROM unnest(dishonor_statuses.player_ids) WITH ORDINALITY AS p(id, ord)
    LEFT JOIN mm.dishonor_players d ON d.player_id = p.id
    ORDER BY p.ord;
END;
COMMENT ON FUNCTION mm.dishonor_statuses(bigint[], timestamptz) IS
    'several players'' dishonor at a time: current (decayed) stacks and the end of the timeout (NULL when none); one row per element, in order';

CREATE FUNCTION mm.dishonor_status(player_id bigint, at timestamptz DEFAULT now())
RETURNS TABLE (stacks integer, timeout_until timestamptz)
LANGUAGE sql STABLE
SET search_path = mm, pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT s.stacks, s.timeout_until
    FROM mm.dishonor_statuses(ARRAY[dishonor_status.player_id], dishonor_status.at) s;
END;
COMMENT ON FUNCTION mm.dishonor_status(bigint, timestamptz) IS
    'a player''s dishonor at a time: current (decayed) stacks and the end of the timeout (NULL when none); always one row';

CREATE FUNCTION mm.dishonor_clear(player_id bigint)
RETURNS boolean
LANGUAGE sql VOLATILE
SET search_path = mm, pg_catalog, pg_temp
BEGIN ATOMIC
    WITH gone AS (DELETE FROM mm.dishonor_players d WHERE d.player_id = dishonor_clear.player_id RETURNING 1)
    SELECT count(*) > 0 FROM gone;
END;
COMMENT ON FUNCTION mm.dishonor_clear(bigint) IS
    'pardon a player: remove their stacks and timeout; true if they had any record';

-- GW2 match prediction (seed 003, "Match Prediction") and ladder points
-- (seed 003, "Ladder").

CREATE FUNCTION mm.prediction_config_defaults()
RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mm, pg_catalog, pg_temp
RETURN '{"rank":   {"method": "spread", "spread": 40,  "weight": 1, "enabled": true},
         "rating": {"method": "spread", "spread": 200, "weight": 5, "enabled": true},
         "roster": {"method": "spread", "spread": 4,   "weight": 2, "enabled": true}}'::jsonb;
COMMENT ON FUNCTION mm.prediction_config_defaults() IS
    'the seed''s <Prediction> config: rank spread 40 weight 1, rating spread 200 weight 5, roster spread 4 weight 2';

CREATE FUNCTION mm.match_prediction_teams(red_rank float8, red_rating_low float8, red_max_roster_size float8,
                                          blue_rank float8, blue_rating_low float8, blue_max_roster_size float8,
                                          config jsonb DEFAULT '{}',
                                          OUT prediction float8, OUT red_odds float8, OUT blue_odds float8)
RETURNS record
AS 'MODULE_PATHNAME', 'mm_match_prediction_teams'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.match_prediction_teams(float8, float8, float8, float8, float8, float8, jsonb) IS
    'predict a match from each team''s average rank, average effective rating and largest roster: prediction in [-1, 1] (-1 red dominates) and each team''s odds of victory';

CREATE FUNCTION mm.match_prediction(team text[], rating float8[], deviation float8[], rank float8[],
                                    players integer[], config jsonb DEFAULT '{}',
                                    OUT prediction float8, OUT red_odds float8, OUT blue_odds float8)
RETURNS record
AS 'MODULE_PATHNAME', 'mm_match_prediction'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.match_prediction(text[], float8[], float8[], float8[], integer[], jsonb) IS
    'predict a match from its rosters (one element per roster: team red/blue, rating, deviation, average rank, players): prediction in [-1, 1] and each team''s odds of victory';

CREATE FUNCTION mm.odds_of_victory(prediction float8, team text)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_odds_of_victory_sql'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.odds_of_victory(float8, text) IS
    'a team''s odds of victory (0 to 1) from a match prediction: blue = prediction / 2 + 0.5, red = 1 - blue';

CREATE FUNCTION mm.ladder_config_resolve(config jsonb)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'mm_ladder_config_resolve'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.ladder_config_resolve(jsonb) IS
    'check a ladder config (overrides of the defaults; NULL for none) and return it complete';

CREATE FUNCTION mm.ladder_config_defaults()
RETURNS jsonb
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = mm, pg_catalog, pg_temp
RETURN mm.ladder_config_resolve(NULL);
COMMENT ON FUNCTION mm.ladder_config_defaults() IS
    'the seed''s <Ladder> config: default 0, min 0, max 1000000, leaderboard_points 1, its five odds matrices, no season bounds';

CREATE FUNCTION mm.ladder_points(odds float8, final_score float8, result text,
                                 config jsonb DEFAULT NULL, at timestamptz DEFAULT now())
RETURNS integer
AS 'MODULE_PATHNAME', 'mm_ladder_points'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.ladder_points(float8, float8, text, jsonb, timestamptz) IS
    'ladder points for a game (seed 003 getPoints/processGame): result victory, defeat or desertion; 0 outside the season; a victory earns at least 1';

CREATE FUNCTION mm.ladder_apply(current integer, points integer, config jsonb DEFAULT NULL,
                                OUT ladder_points integer, OUT on_leaderboard boolean,
                                OUT leaderboard text)
RETURNS record
AS 'MODULE_PATHNAME', 'mm_ladder_apply'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.ladder_apply(integer, integer, jsonb) IS
    'add awarded points to a ladder total (NULL: the default) clamped to [min, max]; whether the player is on the leaderboard and the leaderboard action (update, remove or NULL)';
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

-- Async opponents: a pool of offline opponents (seed 004, the Metaplay
-- asynchronous matchmaker). The bucket arithmetic and the pool config are
-- in C (src/async.c); the pool tables and the functions that read and write
-- them are here.

-- C helpers

CREATE FUNCTION mm.async_config(config jsonb)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'mm_async_config'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.async_config(jsonb) IS
    'check a pool config and return it with every key, defaults filled in';

CREATE FUNCTION mm.async_bucket(config jsonb, mmr float8)
RETURNS int
AS 'MODULE_PATHNAME', 'mm_async_bucket'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.async_bucket(jsonb, float8) IS
    'MMR bucket label (0 .. mmr_bucket_count - 1) of an MMR under a pool config; MMRs outside the range go to the edge buckets';

CREATE FUNCTION mm.async_bucket_bounds(config jsonb, first int, last int,
                                       OUT lower_mmr float8, OUT upper_mmr float8)
AS 'MODULE_PATHNAME', 'mm_async_bucket_bounds'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.async_bucket_bounds(jsonb, int, int) IS
    'MMR interval [lower_mmr, upper_mmr) covered by buckets first..last (edge buckets are unbounded)';

CREATE FUNCTION mm.async_search(config jsonb, mmr float8, retries int,
                                OUT bucket int, OUT buckets int[],
                                OUT lower_mmr float8, OUT upper_mmr float8)
AS 'MODULE_PATHNAME', 'mm_async_search'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.async_search(jsonb, float8, int) IS
    'buckets a query searches, in visiting order (own bucket, the adjacent one on the query''s side, then alternately outwards), and the MMR interval they cover';

CREATE FUNCTION mm.async_labels(labels text[])
RETURNS text[]
AS 'MODULE_PATHNAME', 'mm_async_labels'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.async_labels(text[]) IS
    'hard labels as a set: sorted bytewise, duplicates removed; NULL and empty labels refused';

-- Tables

CREATE TABLE mm.async_pools (
    pool       text PRIMARY KEY CHECK (pool <> ''),
    config     jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE mm.async_pools IS
    'async opponent pools and their configs (complete, as mm.async_config returns them)';

CREATE TABLE mm.async_entries (
    entry_id   bigserial PRIMARY KEY,
    pool       text NOT NULL REFERENCES mm.async_pools ON DELETE CASCADE ON UPDATE CASCADE,
    player_id  bigint NOT NULL,
    mmr        float8 NOT NULL CHECK (mmr > '-Infinity' AND mmr < 'Infinity'),
    labels     text[] NOT NULL DEFAULT '{}',
    model      jsonb,
    updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
COMMENT ON TABLE mm.async_entries IS
    'offline opponents: one row per matchmaking entry (player, MMR, hard labels, the game''s model)';
CREATE INDEX async_entries_search ON mm.async_entries (pool, labels, mmr);
COMMENT ON SEQUENCE mm.async_entries_entry_id_seq IS
    'entry ids of mm.async_entries';
COMMENT ON INDEX mm.async_entries_search IS
    'nearest-MMR search inside a pool and label set';
CREATE INDEX async_entries_player ON mm.async_entries (pool, player_id);
COMMENT ON INDEX mm.async_entries_player IS
    'a player''s entries in a pool';

-- Fill and insert counts per bucket. Kept by triggers on mm.async_entries,
-- so not dumped: a restore re-counts them while it loads the entries.
CREATE TABLE mm.async_buckets (
    pool    text NOT NULL REFERENCES mm.async_pools ON DELETE CASCADE ON UPDATE CASCADE,
    labels  text[] NOT NULL,
    bucket  int NOT NULL,
    fill    int NOT NULL DEFAULT 0,
    inserts bigint NOT NULL DEFAULT 0,
    CONSTRAINT async_buckets_pkey PRIMARY KEY (pool, labels, bucket)
);
COMMENT ON TABLE mm.async_buckets IS
    'per (pool, labels, bucket): entries held now (fill) and entries ever added (inserts, the rebalancing sample)';

-- The dynamic bucket sizing model (seed 004's DynamicBucketSizingModel):
-- capacities set by mm.rebalance_pool. Buckets without a row use
-- bucket_initial_size.
CREATE TABLE mm.async_bucket_sizes (
    pool     text NOT NULL REFERENCES mm.async_pools ON DELETE CASCADE ON UPDATE CASCADE,
    labels   text[] NOT NULL,
    bucket   int NOT NULL,
    capacity int NOT NULL CHECK (capacity > 0),
    CONSTRAINT async_bucket_sizes_pkey PRIMARY KEY (pool, labels, bucket)
);
COMMENT ON TABLE mm.async_bucket_sizes IS
    'bucket capacities from the last mm.rebalance_pool (the dynamic bucket sizing model)';

SELECT pg_catalog.pg_extension_config_dump('mm.async_pools', '');
SELECT pg_catalog.pg_extension_config_dump('mm.async_entries', '');
SELECT pg_catalog.pg_extension_config_dump('mm.async_entries_entry_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('mm.async_bucket_sizes', '');

-- Fill counting

CREATE FUNCTION mm.async_count_fill()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        UPDATE mm.async_buckets b
        SET fill = b.fill - d.n
        FROM (SELECT o.pool, o.labels, mm.async_bucket(p.config, o.mmr) AS bucket, count(*) AS n
              FROM old_rows o JOIN mm.async_pools p ON p.pool = o.pool
              GROUP BY 1, 2, 3) d
        WHERE b.pool = d.pool AND b.labels = d.labels AND b.bucket = d.bucket;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO mm.async_buckets AS b (pool, labels, bucket, fill, inserts)
        SELECT n.pool, n.labels, mm.async_bucket(p.config, n.mmr), count(*),
               CASE WHEN TG_OP = 'INSERT' THEN count(*) ELSE 0 END
        FROM new_rows n JOIN mm.async_pools p ON p.pool = n.pool
        GROUP BY 1, 2, 3
        ORDER BY 1, 2, 3
        ON CONFLICT ON CONSTRAINT async_buckets_pkey
        DO UPDATE SET fill = b.fill + excluded.fill, inserts = b.inserts + excluded.inserts;
    END IF;
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION mm.async_count_fill() IS
    'statement trigger: keep mm.async_buckets fill and insert counts in step with mm.async_entries';

CREATE TRIGGER async_count_insert AFTER INSERT ON mm.async_entries
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION mm.async_count_fill();
CREATE TRIGGER async_count_delete AFTER DELETE ON mm.async_entries
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION mm.async_count_fill();
CREATE TRIGGER async_count_update AFTER UPDATE ON mm.async_entries
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION mm.async_count_fill();
COMMENT ON TRIGGER async_count_insert ON mm.async_entries IS 'count added entries per bucket';
COMMENT ON TRIGGER async_count_delete ON mm.async_entries IS 'count removed entries per bucket';
COMMENT ON TRIGGER async_count_update ON mm.async_entries IS 'count entries that moved between buckets';

-- Internal helpers

CREATE FUNCTION mm.async_pool_config(pool text)
RETURNS jsonb
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    cfg jsonb;
BEGIN
    IF async_pool_config.pool IS NULL THEN
        RAISE EXCEPTION 'pool must not be NULL'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass the name of a pool made with mm.create_pool.';
    END IF;
    SELECT p.config INTO cfg FROM mm.async_pools p WHERE p.pool = async_pool_config.pool;
    IF cfg IS NULL THEN
        RAISE EXCEPTION 'pool "%" does not exist', async_pool_config.pool
            USING ERRCODE = 'undefined_object',
                  DETAIL = format('No row of mm.async_pools is named %L.', async_pool_config.pool),
                  HINT = 'Create it with mm.create_pool(name, config).';
    END IF;
    RETURN cfg;
END
$$;
COMMENT ON FUNCTION mm.async_pool_config(text) IS
    'internal: the config of a pool; an error if the pool does not exist';

CREATE FUNCTION mm.async_capacity(pool text, labels text[], bucket int, config jsonb)
RETURNS int
LANGUAGE sql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
    SELECT coalesce((SELECT s.capacity FROM mm.async_bucket_sizes s
                     WHERE s.pool = $1 AND s.labels = $2 AND s.bucket = $3),
                    ($4 ->> 'bucket_initial_size')::int)
$$;
COMMENT ON FUNCTION mm.async_capacity(text, text[], int, jsonb) IS
    'internal: capacity of a bucket: its rebalanced size, else bucket_initial_size';

CREATE FUNCTION mm.async_fill(pool text, labels text[], bucket int)
RETURNS int
LANGUAGE sql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
    SELECT coalesce((SELECT b.fill FROM mm.async_buckets b
                     WHERE b.pool = $1 AND b.labels = $2 AND b.bucket = $3), 0)
$$;
COMMENT ON FUNCTION mm.async_fill(text, text[], int) IS
    'internal: number of entries a bucket holds';

CREATE FUNCTION mm.async_check_ids(ids bigint[], what text)
RETURNS bigint[]
LANGUAGE plpgsql IMMUTABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF ids IS NULL THEN
        RAISE EXCEPTION '% must not be NULL', what
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass an empty array to exclude nobody.';
    END IF;
    IF array_position(ids, NULL) IS NOT NULL THEN
        RAISE EXCEPTION '% must not contain NULL elements', what
            USING ERRCODE = 'null_value_not_allowed',
                  DETAIL = format('Element %s is NULL.', array_position(ids, NULL)),
                  HINT = 'Leave the element out instead of passing NULL.';
    END IF;
    RETURN ids;
END
$$;
COMMENT ON FUNCTION mm.async_check_ids(bigint[], text) IS
    'internal: refuse a NULL id array or NULL elements';

CREATE FUNCTION mm.async_check_query(mmr float8, labels text[], retries int)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF mmr IS NULL OR labels IS NULL OR retries IS NULL THEN
        RAISE EXCEPTION '% must not be NULL',
            CASE WHEN mmr IS NULL THEN 'mmr' WHEN labels IS NULL THEN 'labels' ELSE 'retries' END
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass a value (labels: ''{}'' for none, retries: 0 for a first attempt).';
    END IF;
END
$$;
COMMENT ON FUNCTION mm.async_check_query(float8, text[], int) IS
    'internal: refuse NULL query arguments';

-- Pools

CREATE FUNCTION mm.create_pool(name text, config jsonb DEFAULT '{}')
RETURNS void
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF name IS NULL OR name = '' THEN
        RAISE EXCEPTION 'pool name must not be empty'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Name the pool, such as ''arena''.';
    END IF;
    IF EXISTS (SELECT 1 FROM mm.async_pools p WHERE p.pool = name) THEN
        RAISE EXCEPTION 'pool "%" already exists', name
            USING ERRCODE = 'duplicate_object',
                  HINT = 'Change its config with mm.alter_pool, or drop it with mm.drop_pool.';
    END IF;
    INSERT INTO mm.async_pools (pool, config)
    VALUES (name, mm.async_config(coalesce(config, '{}')));
END
$$;
COMMENT ON FUNCTION mm.create_pool(text, jsonb) IS
    'create an async opponent pool; config keys mirror seed 004 (see README), unknown keys are an error';

CREATE FUNCTION mm.alter_pool(name text, config jsonb)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    old_cfg jsonb := mm.async_pool_config(name);
    new_cfg jsonb;
BEGIN
    -- the given keys replace the old values; null for a nullable key resets it
    new_cfg := mm.async_config(old_cfg || coalesce(config, '{}'));
    UPDATE mm.async_pools p SET config = new_cfg WHERE p.pool = name;
    IF (new_cfg ->> 'min_mmr', new_cfg ->> 'max_mmr', new_cfg ->> 'mmr_bucket_count')
       IS DISTINCT FROM (old_cfg ->> 'min_mmr', old_cfg ->> 'max_mmr', old_cfg ->> 'mmr_bucket_count') THEN
        -- the buckets changed: count again, and forget the old sizing model
        DELETE FROM mm.async_bucket_sizes s WHERE s.pool = name;
        DELETE FROM mm.async_buckets b WHERE b.pool = name;
        INSERT INTO mm.async_buckets (pool, labels, bucket, fill, inserts)
        SELECT e.pool, e.labels, mm.async_bucket(new_cfg, e.mmr), count(*), count(*)
        FROM mm.async_entries e WHERE e.pool = name
        GROUP BY 1, 2, 3;
    END IF;
    RETURN new_cfg;
END
$$;
COMMENT ON FUNCTION mm.alter_pool(text, jsonb) IS
    'change some keys of a pool config; returns the new config. A new MMR range or bucket count re-buckets the entries';

CREATE FUNCTION mm.drop_pool(name text)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    DELETE FROM mm.async_pools p WHERE p.pool = name;
    RETURN FOUND;
END
$$;
COMMENT ON FUNCTION mm.drop_pool(text) IS
    'drop a pool with its entries; false if there was none';

CREATE FUNCTION mm.pool_buckets(pool text)
RETURNS TABLE(labels text[], bucket int, lower_mmr float8, upper_mmr float8,
              fill int, capacity int, inserts bigint)
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    cfg jsonb := mm.async_pool_config(pool);
BEGIN
    RETURN QUERY
    SELECT b.labels, b.bucket, r.lower_mmr, r.upper_mmr, b.fill,
           mm.async_capacity(b.pool, b.labels, b.bucket, cfg), b.inserts
    FROM mm.async_buckets b,
         LATERAL mm.async_bucket_bounds(cfg, b.bucket, b.bucket) r
    WHERE b.pool = pool_buckets.pool
    ORDER BY b.labels, b.bucket;
END
$$;
COMMENT ON FUNCTION mm.pool_buckets(text) IS
    'the buckets of a pool that have held entries: MMR interval, fill, capacity, entries ever added';

-- Entries

CREATE FUNCTION mm.put_entry(pool text, player_id bigint, mmr float8,
                             labels text[] DEFAULT '{}', model jsonb DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    cfg jsonb := mm.async_pool_config(pool);
    lab text[];
    b int;
    lo float8;
    hi float8;
    existing bigint;
    is_new boolean;
    multi boolean := (cfg ->> 'allow_multiple_entries_per_player')::boolean;
    ignore_at float8 := (cfg ->> 'player_ignore_update_insert_threshold')::float8;
    f int;
    cap int;
    id bigint;
BEGIN
    IF put_entry.player_id IS NULL THEN
        RAISE EXCEPTION 'player_id must not be NULL'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass the id of the player whose entry this is.';
    END IF;
    PERFORM mm.async_check_query(put_entry.mmr, put_entry.labels, 0);
    lab := mm.async_labels(put_entry.labels);
    b := mm.async_bucket(cfg, put_entry.mmr);
    SELECT r.lower_mmr, r.upper_mmr INTO lo, hi FROM mm.async_bucket_bounds(cfg, b, b) r;

    -- one put at a time per player, so the per-player rules hold
    PERFORM pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('mm.async:' || pool),
                                             pg_catalog.hashint8(put_entry.player_id));

    -- lock the buckets this put touches, in key order (no deadlocks
    -- between two puts moving players in opposite directions)
    INSERT INTO mm.async_buckets AS k (pool, labels, bucket)
    VALUES (put_entry.pool, lab, b)
    ON CONFLICT ON CONSTRAINT async_buckets_pkey DO NOTHING;
    PERFORM 1 FROM mm.async_buckets k
    WHERE k.pool = put_entry.pool
      AND ((k.labels = lab AND k.bucket = b)
           OR (NOT multi AND (k.labels, k.bucket) IN
               (SELECT e.labels, mm.async_bucket(cfg, e.mmr) FROM mm.async_entries e
                WHERE e.pool = put_entry.pool AND e.player_id = put_entry.player_id)))
    ORDER BY k.labels, k.bucket
    FOR UPDATE OF k;

    -- the player's entry in this bucket is updated in place
    SELECT e.entry_id INTO existing FROM mm.async_entries e
    WHERE e.pool = put_entry.pool AND e.player_id = put_entry.player_id
      AND e.labels = lab AND e.mmr >= lo AND e.mmr < hi
    LIMIT 1;
    IF existing IS NOT NULL THEN
        UPDATE mm.async_entries e
        SET mmr = put_entry.mmr, model = put_entry.model, updated_at = clock_timestamp()
        WHERE e.entry_id = existing;
        IF NOT multi THEN
            DELETE FROM mm.async_entries e
            WHERE e.pool = put_entry.pool AND e.player_id = put_entry.player_id
              AND e.entry_id <> existing;
        END IF;
        RETURN existing;
    END IF;

    is_new := NOT EXISTS (SELECT 1 FROM mm.async_entries e
                          WHERE e.pool = put_entry.pool AND e.player_id = put_entry.player_id);
    f := mm.async_fill(pool, lab, b);
    cap := mm.async_capacity(pool, lab, b, cfg);
    -- a new player is not added to a bucket filled to the threshold
    IF is_new AND ignore_at IS NOT NULL AND f >= ignore_at * cap THEN
        RETURN NULL;
    END IF;
    IF NOT multi THEN
        -- one entry per player: the entry moves to its new bucket
        DELETE FROM mm.async_entries e
        WHERE e.pool = put_entry.pool AND e.player_id = put_entry.player_id;
    END IF;
    IF f >= cap THEN
        -- a full bucket replaces its oldest entries
        DELETE FROM mm.async_entries e
        WHERE e.entry_id IN (
            SELECT o.entry_id FROM mm.async_entries o
            WHERE o.pool = put_entry.pool AND o.labels = lab AND o.mmr >= lo AND o.mmr < hi
            ORDER BY o.updated_at, o.entry_id
            LIMIT f - cap + 1
            FOR UPDATE SKIP LOCKED);
    END IF;
    INSERT INTO mm.async_entries (pool, player_id, mmr, labels, model)
    VALUES (put_entry.pool, put_entry.player_id, put_entry.mmr, lab, put_entry.model)
    RETURNING entry_id INTO id;
    RETURN id;
END
$$;
COMMENT ON FUNCTION mm.put_entry(text, bigint, float8, text[], jsonb) IS
    'add or update a player''s entry (seed 004''s player state update); returns the entry id, NULL if ignored by player_ignore_update_insert_threshold';

CREATE FUNCTION mm.remove_entry(entry_id bigint)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    DELETE FROM mm.async_entries e WHERE e.entry_id = remove_entry.entry_id;
    RETURN FOUND;
END
$$;
COMMENT ON FUNCTION mm.remove_entry(bigint) IS
    'remove one entry; false if there was none';

CREATE FUNCTION mm.remove_player(pool text, player_id bigint)
RETURNS int
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    n int;
BEGIN
    PERFORM mm.async_pool_config(pool);
    DELETE FROM mm.async_entries e
    WHERE e.pool = remove_player.pool AND e.player_id = remove_player.player_id;
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END
$$;
COMMENT ON FUNCTION mm.remove_player(text, bigint) IS
    'remove every entry of a player from a pool (he is no longer available); returns how many';

-- Offers

CREATE FUNCTION mm.async_take(cfg jsonb, id bigint)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    e mm.async_entries;
    remove_at float8 := (cfg ->> 'player_remove_after_candidate_offer_threshold')::float8;
    b int;
BEGIN
    IF remove_at IS NULL THEN
        RETURN EXISTS (SELECT 1 FROM mm.async_entries x WHERE x.entry_id = id);
    END IF;
    -- another query holding this entry has it: skip it, never wait
    SELECT x.* INTO e FROM mm.async_entries x WHERE x.entry_id = id FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    b := mm.async_bucket(cfg, e.mmr);
    IF mm.async_fill(e.pool, e.labels, b) >= remove_at * mm.async_capacity(e.pool, e.labels, b, cfg) THEN
        DELETE FROM mm.async_entries x WHERE x.entry_id = id;
    END IF;
    RETURN true;
END
$$;
COMMENT ON FUNCTION mm.async_take(jsonb, bigint) IS
    'internal: claim an offered entry and remove it if its bucket is filled to player_remove_after_candidate_offer_threshold';

CREATE FUNCTION mm.offer_entry(entry_id bigint)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    cfg jsonb;
BEGIN
    SELECT p.config INTO cfg
    FROM mm.async_entries e JOIN mm.async_pools p ON p.pool = e.pool
    WHERE e.entry_id = offer_entry.entry_id;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    RETURN mm.async_take(cfg, offer_entry.entry_id);
END
$$;
COMMENT ON FUNCTION mm.offer_entry(bigint) IS
    'offer an entry picked from mm.find_candidates: true if it was still available (then removed per the pool''s threshold), false if gone or taken by a concurrent query';

CREATE FUNCTION mm.async_query(p_pool text, p_mmr float8, p_labels text[], p_retries int,
                               p_exclude bigint[], p_searcher bigint,
                               OUT cfg jsonb, OUT lab text[], OUT excl bigint[],
                               OUT lower_mmr float8, OUT upper_mmr float8)
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    cfg := mm.async_pool_config(p_pool);
    PERFORM mm.async_check_query(p_mmr, p_labels, p_retries);
    excl := mm.async_check_ids(p_exclude, 'exclude');
    lab := mm.async_labels(p_labels);
    SELECT s.lower_mmr, s.upper_mmr INTO lower_mmr, upper_mmr
    FROM mm.async_search(cfg, p_mmr, p_retries) s;
    IF p_searcher IS NOT NULL THEN
        excl := excl || p_searcher;
    END IF;
END
$$;
COMMENT ON FUNCTION mm.async_query(text, float8, text[], int, bigint[], bigint) IS
    'internal: check a find query and resolve it: the pool config, the label set, the ids never offered, the searched MMR interval';

CREATE FUNCTION mm.async_find(p_pool text, p_mmr float8, p_labels text[], p_retries int,
                              p_exclude bigint[], p_searcher bigint,
                              OUT o_result text, OUT o_player_id bigint, OUT o_mmr float8,
                              OUT o_quality float8, OUT o_model jsonb)
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q record;
    skipped bigint[] := '{}';
    up record;
    dn record;
    c record;
    maxd float8;
    minq float8;
BEGIN
    SELECT * INTO q FROM mm.async_query(p_pool, p_mmr, p_labels, p_retries, p_exclude, p_searcher);
    maxd := (q.cfg ->> 'max_difference')::float8;
    minq := (q.cfg ->> 'min_quality')::float8;
    LOOP
        -- the nearest MMR at or above and below the query, inside the searched buckets
        SELECT e.entry_id, e.player_id, e.mmr, e.model INTO up
        FROM mm.async_entries e
        WHERE e.pool = p_pool AND e.labels = q.lab AND e.mmr >= p_mmr AND e.mmr < q.upper_mmr
          AND e.player_id <> ALL (q.excl) AND e.entry_id <> ALL (skipped)
        ORDER BY e.mmr LIMIT 1;
        SELECT e.entry_id, e.player_id, e.mmr, e.model INTO dn
        FROM mm.async_entries e
        WHERE e.pool = p_pool AND e.labels = q.lab AND e.mmr < p_mmr AND e.mmr >= q.lower_mmr
          AND e.player_id <> ALL (q.excl) AND e.entry_id <> ALL (skipped)
        ORDER BY e.mmr DESC LIMIT 1;
        IF up.entry_id IS NULL AND dn.entry_id IS NULL THEN
            EXIT;
        ELSIF dn.entry_id IS NULL THEN
            c := up;
        ELSIF up.entry_id IS NULL THEN
            c := dn;
        ELSIF up.mmr - p_mmr < p_mmr - dn.mmr THEN
            c := up;
        ELSIF up.mmr - p_mmr > p_mmr - dn.mmr THEN
            c := dn;
        ELSE
            -- equally good: either side, at random (seed 004 iterates in random order)
            IF random() < 0.5 THEN
                c := up;
            ELSE
                c := dn;
            END IF;
        END IF;
        -- the nearest has the best quality: if it is not good enough, nobody is
        EXIT WHEN minq IS NOT NULL AND maxd - abs(c.mmr - p_mmr) < minq;
        IF mm.async_take(q.cfg, c.entry_id) THEN
            o_result := 'success';
            o_player_id := c.player_id;
            o_mmr := c.mmr;
            o_quality := maxd - abs(c.mmr - p_mmr);
            IF (q.cfg ->> 'return_model_in_query_response')::boolean THEN
                o_model := c.model;
            END IF;
            RETURN;
        END IF;
        skipped := skipped || c.entry_id;
    END LOOP;
    IF (q.cfg ->> 'enable_fake_opponents')::boolean THEN
        o_result := 'fake_opponent';
        o_mmr := p_mmr;
    ELSE
        o_result := 'none_found';
    END IF;
END
$$;
COMMENT ON FUNCTION mm.async_find(text, float8, text[], int, bigint[], bigint) IS
    'internal: the body of mm.find_opponent';

CREATE FUNCTION mm.find_opponent(pool text, mmr float8, labels text[] DEFAULT '{}',
                                 retries int DEFAULT 0, exclude bigint[] DEFAULT '{}',
                                 searcher bigint DEFAULT NULL)
RETURNS TABLE(result text, player_id bigint, mmr float8, quality float8, model jsonb)
LANGUAGE sql
SET search_path = mm, pg_catalog, pg_temp
AS $$
    SELECT f.o_result, f.o_player_id, f.o_mmr, f.o_quality, f.o_model
    FROM mm.async_find($1, $2, $3, $4, $5, $6) f
$$;
COMMENT ON FUNCTION mm.find_opponent(text, float8, text[], int, bigint[], bigint) IS
    'the best opponent for a query (seed 004): success, none_found or fake_opponent; never the searcher or an excluded player';

CREATE FUNCTION mm.async_candidates(p_pool text, p_mmr float8, p_labels text[], p_retries int,
                                    p_exclude bigint[], p_searcher bigint, p_max int)
RETURNS TABLE(o_entry_id bigint, o_player_id bigint, o_mmr float8, o_labels text[],
              o_bucket int, o_quality float8, o_model jsonb, o_updated_at timestamptz)
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q record;
    maxd float8;
    minq float8;
BEGIN
    SELECT * INTO q FROM mm.async_query(p_pool, p_mmr, p_labels, p_retries, p_exclude, p_searcher);
    maxd := (q.cfg ->> 'max_difference')::float8;
    minq := (q.cfg ->> 'min_quality')::float8;
    IF p_max IS NULL OR p_max < 1 THEN
        RAISE EXCEPTION 'max_candidates must be positive'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The value is %s.', coalesce(p_max::text, 'NULL')),
                  HINT = 'Ask for at least one candidate.';
    END IF;
    RETURN QUERY
    SELECT c.entry_id, c.player_id, c.mmr, c.labels, mm.async_bucket(q.cfg, c.mmr),
           maxd - abs(c.mmr - p_mmr), c.model, c.updated_at
    FROM ((SELECT e.* FROM mm.async_entries e
           WHERE e.pool = p_pool AND e.labels = q.lab AND e.mmr >= p_mmr AND e.mmr < q.upper_mmr
             AND e.player_id <> ALL (q.excl)
           ORDER BY e.mmr LIMIT p_max)
          UNION ALL
          (SELECT e.* FROM mm.async_entries e
           WHERE e.pool = p_pool AND e.labels = q.lab AND e.mmr < p_mmr AND e.mmr >= q.lower_mmr
             AND e.player_id <> ALL (q.excl)
           ORDER BY e.mmr DESC LIMIT p_max)) c
    WHERE minq IS NULL OR maxd - abs(c.mmr - p_mmr) >= minq
    ORDER BY abs(c.mmr - p_mmr), c.entry_id
    LIMIT p_max;
END
$$;
COMMENT ON FUNCTION mm.async_candidates(text, float8, text[], int, bigint[], bigint, int) IS
    'internal: the body of mm.find_candidates';

CREATE FUNCTION mm.find_candidates(pool text, mmr float8, labels text[] DEFAULT '{}',
                                   retries int DEFAULT 0, exclude bigint[] DEFAULT '{}',
                                   searcher bigint DEFAULT NULL, max_candidates int DEFAULT 100)
RETURNS TABLE(entry_id bigint, player_id bigint, mmr float8, labels text[], bucket int,
              quality float8, model jsonb, updated_at timestamptz)
LANGUAGE sql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
    SELECT * FROM mm.async_candidates($1, $2, $3, $4, $5, $6, $7)
$$;
COMMENT ON FUNCTION mm.find_candidates(text, float8, text[], int, bigint[], bigint, int) IS
    'the nearest candidates in the searched buckets, for ranking by the game''s own quality; claim the chosen one with mm.offer_entry';

-- Dynamic bucket sizing

CREATE FUNCTION mm.rebalance_pool(pool text)
RETURNS TABLE(labels text[], bucket int, capacity int)
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    cfg jsonb := mm.async_pool_config(pool);
    cache int := (cfg ->> 'player_cache_size')::int;
    min_size int := (cfg ->> 'bucket_min_size')::int;
    total bigint;
BEGIN
    IF cache IS NULL THEN
        RAISE EXCEPTION 'pool "%" has no player_cache_size', pool
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'Rebalancing shares player_cache_size among the buckets.',
                  HINT = format('Set it first: SELECT mm.alter_pool(%L, ''{"player_cache_size": 100000}'');', pool);
    END IF;
    SELECT sum(b.inserts) INTO total FROM mm.async_buckets b WHERE b.pool = rebalance_pool.pool;
    IF coalesce(total, 0) > 0 THEN
        -- each bucket gets its share of the sampled inserts, at least the minimum
        DELETE FROM mm.async_bucket_sizes z WHERE z.pool = rebalance_pool.pool;
        INSERT INTO mm.async_bucket_sizes (pool, labels, bucket, capacity)
        SELECT b.pool, b.labels, b.bucket,
               least(cache, greatest(min_size, floor(cache::float8 * b.inserts / total)::int))
        FROM mm.async_buckets b WHERE b.pool = rebalance_pool.pool;
        -- buckets now over capacity drop their oldest entries
        DELETE FROM mm.async_entries x
        WHERE x.entry_id IN (
            SELECT r.entry_id FROM (
                SELECT e.entry_id, e.labels, mm.async_bucket(cfg, e.mmr) AS bucket,
                       row_number() OVER (PARTITION BY e.labels, mm.async_bucket(cfg, e.mmr)
                                          ORDER BY e.updated_at DESC, e.entry_id DESC) AS rn
                FROM mm.async_entries e WHERE e.pool = rebalance_pool.pool) r
            JOIN mm.async_bucket_sizes z
              ON z.pool = rebalance_pool.pool AND z.labels = r.labels AND z.bucket = r.bucket
            WHERE r.rn > z.capacity);
    END IF;
    RETURN QUERY
    SELECT z.labels, z.bucket, z.capacity FROM mm.async_bucket_sizes z
    WHERE z.pool = rebalance_pool.pool ORDER BY z.labels, z.bucket;
END
$$;
COMMENT ON FUNCTION mm.rebalance_pool(text) IS
    'size each bucket from the observed share of inserts (seed 004''s dynamic bucket sizing): capacity = max(bucket_min_size, player_cache_size * share)';
