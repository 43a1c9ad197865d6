
-- Glicko-2 (Glickman's glicko2.pdf) and the GW2 rating policy (the Guild Wars 2 wiki's PvP matchmaking page).

CREATE FUNCTION mm.glicko2_rate(player mm.glicko, opp_rating float8[], opp_rd float8[],
                                score float8[], tau float8 DEFAULT NULL, policy jsonb DEFAULT NULL)
RETURNS mm.glicko
AS 'MODULE_PATHNAME', 'mm_glicko2_rate'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.glicko2_rate(mm.glicko, float8[], float8[], float8[], float8, jsonb) IS
    'rate one Glicko-2 rating period (Glickman steps 1-8); empty arrays are a period without games; tau NULL is the policy''s system_constant (0.5 without one); a policy adds GW2 clamps and max change';

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

CREATE FUNCTION mm.glicko2_expect(player mm.glicko, opponent mm.glicko)
RETURNS float8
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT mm.glicko2_expect((player).rating, (player).rd, (opponent).rating, (opponent).rd) $$;
COMMENT ON FUNCTION mm.glicko2_expect(mm.glicko, mm.glicko) IS
    'expected score of a player against an opponent, both deviations combined (the mm.glicko form; inlined by the planner)';

CREATE FUNCTION mm.glicko2_effective(player mm.glicko)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_glicko2_effective'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.glicko2_effective(mm.glicko) IS
    'effective rating rating - rd, as GW2 matchmaking uses it (the Guild Wars 2 wiki''s PvP matchmaking page)';

CREATE FUNCTION mm.glicko2_policy(policy jsonb DEFAULT NULL)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'mm_glicko2_policy'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.glicko2_policy(jsonb) IS
    'the GW2 rating policy with every key filled in (the Guild Wars 2 wiki''s values as defaults); checks the policy';

CREATE FUNCTION mm.glicko2_rating_at(player mm.glicko, updated_at timestamptz,
                                     at timestamptz DEFAULT now(), policy jsonb DEFAULT '{}')
RETURNS mm.glicko
AS 'MODULE_PATHNAME', 'mm_glicko2_rating_at'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.glicko2_rating_at(mm.glicko, timestamptz, timestamptz, jsonb) IS
    'a rating as of a time: the default if last updated before the policy''s reset, else idle growth over the whole periods elapsed; policy defaults to the Guild Wars 2 wiki''s ({}); NULL is no policy (plain Glicko-2 growth, periods of the default length)';

CREATE FUNCTION mm.glicko2_blend(core mm.glicko, profession mm.glicko, policy jsonb DEFAULT '{}')
RETURNS mm.glicko
AS 'MODULE_PATHNAME', 'mm_glicko2_blend'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.glicko2_blend(mm.glicko, mm.glicko, jsonb) IS
    'blend core and profession ratings by the policy''s rating.profession_ratio (0 core only, 1 profession only); policy defaults to the Guild Wars 2 wiki''s ({}); NULL (no policy) is an error';

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
