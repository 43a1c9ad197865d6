
-- Glicko-2 (Glickman's glicko2.pdf) and the GW2 rating policy (the Guild Wars 2 wiki's PvP matchmaking page).

-- @access public
CREATE FUNCTION mm.glicko2_rate(player mm.glicko, opp_rating float8[], opp_rd float8[],
                                score float8[], tau float8 DEFAULT NULL, policy jsonb DEFAULT NULL)
RETURNS mm.glicko
AS 'MODULE_PATHNAME', 'mm_glicko2_rate'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.glicko2_rate IS
    'rate one Glicko-2 rating period (Glickman steps 1-8); empty arrays are a period without games; tau NULL is the policy''s system_constant (0.5 without one); a policy adds GW2 clamps and max change';

-- @access public
CREATE FUNCTION mm.glicko2_idle(player mm.glicko, periods float8, policy jsonb DEFAULT NULL)
RETURNS mm.glicko
AS 'MODULE_PATHNAME', 'mm_glicko2_idle'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.glicko2_idle IS
    'deviation growth over idle rating periods: sqrt(rd^2 + t vol^2) on the Glicko-2 scale, or the policy''s max_periods rule';

-- @access public
CREATE FUNCTION mm.glicko2_expect(rating float8, rd float8, opp_rating float8, opp_rd float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_glicko2_expect'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.glicko2_expect IS
    'expected score of a player against an opponent, both deviations combined';

-- @access public
CREATE FUNCTION mm.glicko2_expect(player mm.glicko, opponent mm.glicko)
RETURNS float8
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT mm.glicko2_expect((player).rating, (player).rd, (opponent).rating, (opponent).rd) $$;
COMMENT ON FUNCTION mm.glicko2_expect IS
    'expected score of a player against an opponent, both deviations combined (the mm.glicko form; inlined by the planner)';

-- @access public
CREATE FUNCTION mm.glicko2_effective(player mm.glicko)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_glicko2_effective'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.glicko2_effective IS
    'effective rating rating - rd, as GW2 matchmaking uses it (the Guild Wars 2 wiki''s PvP matchmaking page)';

-- @access public
CREATE FUNCTION mm.glicko2_policy(policy jsonb DEFAULT '{}')
RETURNS jsonb
AS 'MODULE_PATHNAME', 'mm_glicko2_policy'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.glicko2_policy IS
    'the GW2 rating policy with every key filled in (the Guild Wars 2 wiki''s values as defaults); checks the policy; NULL (no policy) gives NULL';

-- @access public
CREATE FUNCTION mm.glicko2_rating_at(player mm.glicko, updated_at timestamptz,
                                     at timestamptz DEFAULT now(), policy jsonb DEFAULT '{}')
RETURNS mm.glicko
AS 'MODULE_PATHNAME', 'mm_glicko2_rating_at'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.glicko2_rating_at IS
    'a rating as of a time: the default if last updated before the policy''s reset, else idle growth over the whole periods elapsed; policy defaults to the Guild Wars 2 wiki''s ({}); NULL is no policy (plain Glicko-2 growth, periods of the default length)';

-- @access public
CREATE FUNCTION mm.glicko2_blend(core mm.glicko, profession mm.glicko, policy jsonb DEFAULT '{}')
RETURNS mm.glicko
AS 'MODULE_PATHNAME', 'mm_glicko2_blend'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.glicko2_blend IS
    'blend core and profession ratings by the policy''s rating.profession_ratio (0 core only, 1 profession only); policy defaults to the Guild Wars 2 wiki''s ({}); NULL (no policy) is an error';

-- @access admin, analyst
CREATE FUNCTION mm.glicko2_replay(games text, period interval DEFAULT NULL, tau float8 DEFAULT NULL,
                                  policy jsonb DEFAULT NULL, per_game boolean DEFAULT false)
RETURNS TABLE(player_id bigint, rating float8, rd float8, vol float8, games bigint, last_played timestamptz)
AS 'MODULE_PATHNAME', 'mm_glicko2_replay'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION mm.glicko2_replay IS
    're-rate a game history (player_id, opponent_id, score, played_at) in rating periods or game by game; final ratings per player';

-- The rating-period aggregate: float8[] state
-- [rating, rd, vol, tau, sum g^2 E (1 - E), sum g (s - E), games].

-- @access public
CREATE FUNCTION mm.glicko2_period_step(state float8[], rating float8, rd float8, vol float8,
                                       opp_rating float8, opp_rd float8, score float8)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'mm_glicko2_period_step'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.glicko2_period_step IS
    'transition function of mm.glicko2_period';

-- @access public
CREATE FUNCTION mm.glicko2_period_step(state float8[], rating float8, rd float8, vol float8,
                                       opp_rating float8, opp_rd float8, score float8, tau float8)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'mm_glicko2_period_step'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.glicko2_period_step IS
    'transition function of mm.glicko2_period with tau';

-- @access public
CREATE FUNCTION mm.glicko2_period_combine(a float8[], b float8[])
RETURNS float8[]
AS 'MODULE_PATHNAME', 'mm_glicko2_period_combine'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.glicko2_period_combine IS
    'combine function of mm.glicko2_period: adds the partial sums of one player';

-- @access public
CREATE FUNCTION mm.glicko2_period_final(state float8[])
RETURNS mm.glicko
AS 'MODULE_PATHNAME', 'mm_glicko2_period_final'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.glicko2_period_final IS
    'final function of mm.glicko2_period: Glickman steps 3-8 from the sums';

-- @access public
CREATE AGGREGATE mm.glicko2_period(rating float8, rd float8, vol float8,
                                   opp_rating float8, opp_rd float8, score float8) (
    SFUNC = mm.glicko2_period_step,
    STYPE = float8[],
    FINALFUNC = mm.glicko2_period_final,
    COMBINEFUNC = mm.glicko2_period_combine,
    INITCOND = '{}',
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE mm.glicko2_period IS
    'one Glicko-2 rating period over a player''s games (GROUP BY player), tau 0.5; equal to mm.glicko2_rate';

-- @access public
CREATE AGGREGATE mm.glicko2_period(rating float8, rd float8, vol float8,
                                   opp_rating float8, opp_rd float8, score float8, tau float8) (
    SFUNC = mm.glicko2_period_step,
    STYPE = float8[],
    FINALFUNC = mm.glicko2_period_final,
    COMBINEFUNC = mm.glicko2_period_combine,
    INITCOND = '{}',
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE mm.glicko2_period IS
    'one Glicko-2 rating period over a player''s games (GROUP BY player) with tau; equal to mm.glicko2_rate';

-- The rating-period aggregate with a policy: it collects one player's games
-- and rates them with mm.glicko2_rate, so it equals mm.glicko2_rate with
-- the same policy exactly (clamps, max change per game, the policy's idle
-- rule for a period without games). Its state is the call it will make.

CREATE TYPE mm.glicko2_period_state AS (
    player     mm.glicko,
    tau        float8,
    policy     jsonb,
    opp_rating float8[],
    opp_rd     float8[],
    score      float8[]
);
COMMENT ON TYPE mm.glicko2_period_state IS
    'state of mm.glicko2_period with a policy: the player, tau, the policy and the games so far (the arguments of mm.glicko2_rate)';

-- The transition and combine functions check every state they take as
-- mm.glicko2_rate would (a partial state from another worker as much as a
-- row), and take only one player's games; they call no helper, so that any
-- role may run the aggregate (mm's internal functions are the owner's).

-- @access public
CREATE FUNCTION mm.glicko2_period_policy_step(state mm.glicko2_period_state,
                                              rating float8, rd float8, vol float8,
                                              opp_rating float8, opp_rd float8, score float8,
                                              tau float8, policy jsonb)
RETURNS mm.glicko2_period_state
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    game_null boolean := opp_rating IS NULL AND opp_rd IS NULL AND score IS NULL;
    player mm.glicko := ROW(rating, rd, vol)::mm.glicko;
BEGIN
    IF NOT game_null AND (opp_rating IS NULL OR opp_rd IS NULL OR score IS NULL) THEN
        RAISE EXCEPTION 'opp_rating, opp_rd and score must be all NULL or all set'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'A row with all three NULL counts as no game.';
    END IF;
    -- this row alone, checked (its policy only on a group's first row)
    IF rating IS NULL OR rd IS NULL OR vol IS NULL THEN
        RAISE EXCEPTION 'rating, rd and vol must not be NULL'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Use the policy''s defaults for a new player, e.g. COALESCE(rd, 350).';
    END IF;
    IF NOT (rating > '-Infinity' AND rating < 'Infinity' AND rd > 0 AND rd < 'Infinity' AND vol > 0 AND vol < 'Infinity') THEN
        RAISE EXCEPTION 'rating must be finite, rd and vol positive and finite'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = pg_catalog.format('The rating is %s.', player);
    END IF;
    IF NOT coalesce(tau > 0 AND tau < 'Infinity', true) THEN
        RAISE EXCEPTION 'tau must be positive and finite'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = pg_catalog.format('The value is %s.', tau),
                  HINT = 'Pass NULL for the policy''s system_constant.';
    END IF;
    IF NOT game_null AND NOT (opp_rating > '-Infinity' AND opp_rating < 'Infinity' AND opp_rd > 0 AND opp_rd < 'Infinity'
                              AND score >= 0 AND score <= 1) THEN
        RAISE EXCEPTION 'every game needs a finite opp_rating, a positive opp_rd and a score between 0 and 1'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = pg_catalog.format('The games are %s, %s, %s.', ARRAY[opp_rating], ARRAY[opp_rd], ARRAY[score]),
                  HINT = 'Use 1 for a win, 0.5 for a draw and 0 for a loss.';
    END IF;
    IF state IS NULL THEN
        IF policy IS NOT NULL THEN
            PERFORM mm.glicko2_policy(policy);
        END IF;
        RETURN ROW(player, tau, policy,
                   CASE WHEN game_null THEN '{}' ELSE ARRAY[opp_rating] END,
                   CASE WHEN game_null THEN '{}' ELSE ARRAY[opp_rd] END,
                   CASE WHEN game_null THEN '{}' ELSE ARRAY[score] END)::mm.glicko2_period_state;
    END IF;
    IF (state).player IS DISTINCT FROM player OR (state).tau IS DISTINCT FROM tau
       OR (state).policy IS DISTINCT FROM policy THEN
        RAISE EXCEPTION 'glicko2_period needs one player rating per group'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = pg_catalog.format('The group has %s, tau %s, policy %s and also %s, tau %s, policy %s.',
                                             (state).player, coalesce((state).tau::text, 'NULL'), coalesce((state).policy::text, 'NULL'),
                                             player, coalesce(tau::text, 'NULL'), coalesce(policy::text, 'NULL')),
                  HINT = 'Group by player: each player''s rating, rd, vol, tau and policy are constant over a rating period.';
    END IF;
    IF NOT game_null THEN
        state.opp_rating := (state).opp_rating OPERATOR(pg_catalog.||) opp_rating;
        state.opp_rd := (state).opp_rd OPERATOR(pg_catalog.||) opp_rd;
        state.score := (state).score OPERATOR(pg_catalog.||) score;
    END IF;
    RETURN state;
END
$$;
COMMENT ON FUNCTION mm.glicko2_period_policy_step IS
    'transition function of mm.glicko2_period with a policy: checks the row and adds its game';

-- @access public
CREATE FUNCTION mm.glicko2_period_policy_combine(a mm.glicko2_period_state, b mm.glicko2_period_state)
RETURNS mm.glicko2_period_state
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    state mm.glicko2_period_state;
    p mm.glicko;
BEGIN
    -- each part checked as mm.glicko2_rate would check it (a's policy: b's
    -- is compared with it below)
    FOREACH state IN ARRAY ARRAY[a, b] LOOP
        CONTINUE WHEN state IS NULL;
        p := (state).player;
        IF p IS NULL OR (p).rating IS NULL OR (p).rd IS NULL OR (p).vol IS NULL THEN
            RAISE EXCEPTION 'rating, rd and vol must not be NULL'
                USING ERRCODE = 'null_value_not_allowed',
                      HINT = 'Use the policy''s defaults for a new player, e.g. COALESCE(rd, 350).';
        END IF;
        IF NOT ((p).rating > '-Infinity' AND (p).rating < 'Infinity'
                AND (p).rd > 0 AND (p).rd < 'Infinity' AND (p).vol > 0 AND (p).vol < 'Infinity') THEN
            RAISE EXCEPTION 'rating must be finite, rd and vol positive and finite'
                USING ERRCODE = 'invalid_parameter_value',
                      DETAIL = pg_catalog.format('The rating is %s.', p);
        END IF;
        IF NOT coalesce((state).tau > 0 AND (state).tau < 'Infinity', true) THEN
            RAISE EXCEPTION 'tau must be positive and finite'
                USING ERRCODE = 'invalid_parameter_value',
                      DETAIL = pg_catalog.format('The value is %s.', (state).tau),
                      HINT = 'Pass NULL for the policy''s system_constant.';
        END IF;
        IF (state).opp_rating IS NULL OR (state).opp_rd IS NULL OR (state).score IS NULL THEN
            RAISE EXCEPTION 'the games of a glicko2_period state must not be NULL'
                USING ERRCODE = 'null_value_not_allowed';
        END IF;
        IF pg_catalog.array_ndims((state).opp_rating) > 1 OR pg_catalog.array_ndims((state).opp_rd) > 1
           OR pg_catalog.array_ndims((state).score) > 1
           OR pg_catalog.cardinality((state).opp_rating) <> pg_catalog.cardinality((state).score)
           OR pg_catalog.cardinality((state).opp_rd) <> pg_catalog.cardinality((state).score) THEN
            RAISE EXCEPTION 'opp_rating, opp_rd and score must have the same length'
                USING ERRCODE = 'array_subscript_error',
                      HINT = 'Give one element per game in each array.';
        END IF;
        IF EXISTS (SELECT 1 FROM unnest((state).opp_rating, (state).opp_rd, (state).score) AS g(o, d, s)
                   WHERE NOT coalesce(g.o > '-Infinity' AND g.o < 'Infinity' AND g.d > 0 AND g.d < 'Infinity'
                                      AND g.s >= 0 AND g.s <= 1, false)) THEN
            RAISE EXCEPTION 'every game needs a finite opp_rating, a positive opp_rd and a score between 0 and 1'
                USING ERRCODE = 'invalid_parameter_value',
                      DETAIL = pg_catalog.format('The games are %s, %s, %s.',
                                                 (state).opp_rating, (state).opp_rd, (state).score),
                      HINT = 'Use 1 for a win, 0.5 for a draw and 0 for a loss.';
        END IF;
        IF (state).policy IS NOT NULL AND (a IS NULL OR b IS NULL OR state IS NOT DISTINCT FROM a) THEN
            PERFORM mm.glicko2_policy((state).policy);
        END IF;
    END LOOP;
    IF a IS NULL THEN
        RETURN b;
    ELSIF b IS NULL THEN
        RETURN a;
    END IF;
    IF (a).player IS DISTINCT FROM (b).player OR (a).tau IS DISTINCT FROM (b).tau
       OR (a).policy IS DISTINCT FROM (b).policy THEN
        RAISE EXCEPTION 'glicko2_period needs one player rating per group'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = pg_catalog.format('The group has %s, tau %s, policy %s and also %s, tau %s, policy %s.',
                                             (a).player, coalesce((a).tau::text, 'NULL'), coalesce((a).policy::text, 'NULL'),
                                             (b).player, coalesce((b).tau::text, 'NULL'), coalesce((b).policy::text, 'NULL')),
                  HINT = 'Group by player: each player''s rating, rd, vol, tau and policy are constant over a rating period.';
    END IF;
    a.opp_rating := (a).opp_rating OPERATOR(pg_catalog.||) (b).opp_rating;
    a.opp_rd := (a).opp_rd OPERATOR(pg_catalog.||) (b).opp_rd;
    a.score := (a).score OPERATOR(pg_catalog.||) (b).score;
    RETURN a;
END
$$;
COMMENT ON FUNCTION mm.glicko2_period_policy_combine IS
    'combine function of mm.glicko2_period with a policy: the games of both parts, for one player; both parts checked';

-- @access public
CREATE FUNCTION mm.glicko2_period_policy_final(state mm.glicko2_period_state)
RETURNS mm.glicko
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mm, pg_catalog, pg_temp
AS $$
    SELECT mm.glicko2_rate((state).player, (state).opp_rating, (state).opp_rd, (state).score,
                           (state).tau, (state).policy)
$$;
COMMENT ON FUNCTION mm.glicko2_period_policy_final IS
    'final function of mm.glicko2_period with a policy: mm.glicko2_rate over the games collected (which checks every field)';

-- @access public
CREATE AGGREGATE mm.glicko2_period(rating float8, rd float8, vol float8,
                                   opp_rating float8, opp_rd float8, score float8,
                                   tau float8, policy jsonb) (
    SFUNC = mm.glicko2_period_policy_step,
    STYPE = mm.glicko2_period_state,
    FINALFUNC = mm.glicko2_period_policy_final,
    COMBINEFUNC = mm.glicko2_period_policy_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE mm.glicko2_period IS
    'one Glicko-2 rating period over a player''s games (GROUP BY player) under a policy (NULL: none); tau NULL is the policy''s system_constant; equal to mm.glicko2_rate with that policy';
