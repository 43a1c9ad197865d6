
-- Analytics: rating histories, calibration of predictions, fitting.

-- Rating histories: the replays' per-match rows.

-- @access admin, analyst
CREATE FUNCTION mm.openskill_history(
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
RETURNS TABLE(game bigint, game_key text, player_id bigint, team bigint, rank float8,
              win_probability float8, mu_before float8, sigma_before float8,
              mu_after float8, sigma_after float8)
AS 'MODULE_PATHNAME', 'mm_openskill_history'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION mm.openskill_history IS
    'openskill_replay one row per player per game: the team''s pre-match win probability (openskill_predict_win), the rating before and after';

-- @access admin, analyst
CREATE FUNCTION mm.glicko2_history(games text, period interval DEFAULT NULL, tau float8 DEFAULT NULL,
                                   policy jsonb DEFAULT NULL, per_game boolean DEFAULT false)
RETURNS TABLE(game bigint, player_id bigint, opponent_id bigint, played_at timestamptz,
              score float8, expected float8,
              rating_before float8, rd_before float8, vol_before float8,
              rating_after float8, rd_after float8, vol_after float8)
AS 'MODULE_PATHNAME', 'mm_glicko2_history'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION mm.glicko2_history IS
    'glicko2_replay two rows per game (each player''s view): expected score (glicko2_expect) and the rating before and after its game or rating period';

-- Any rating family by name: the team-match replay with the family's
-- state as one float8[] (its columns in order, as mm.ratings keeps it) and
-- its parameters from a queue config's "rating" section.

-- @access admin, analyst
CREATE FUNCTION mm.rating_replay(model text, games text, initial text DEFAULT NULL, options jsonb DEFAULT '{}')
RETURNS TABLE(player_id bigint, state float8[], games bigint)
AS 'MODULE_PATHNAME', 'mm_rating_replay'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION mm.rating_replay IS
    're-rate a team match history (match key, player_id, team, rank[, weight]) with any rating family by name, each match one game of the family as mm.report_result rates it; options is a queue config''s "rating" section without "model" (a new player''s state and the family''s options); initial yields (player_id, then the family''s columns); final state per player';

-- @access admin, analyst
CREATE FUNCTION mm.rating_history(model text, games text, initial text DEFAULT NULL, options jsonb DEFAULT '{}')
RETURNS TABLE(game bigint, game_key text, player_id bigint, team bigint, rank float8,
              win_probability float8, state_before float8[], state_after float8[])
AS 'MODULE_PATHNAME', 'mm_rating_history'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION mm.rating_history IS
    'mm.rating_replay one row per player per match: the team''s pre-match win probability (the family''s prediction) and the state before and after';

-- @access admin, analyst
CREATE FUNCTION mm.rating_calibration(model text, games text, initial text DEFAULT NULL, options jsonb DEFAULT '{}',
                                      bins int DEFAULT 10)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'mm_rating_calibration'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION mm.rating_calibration IS
    'mm.rating_replay predicting each match before rating it: calibration of the favoured team''s win probability (n, brier, log_loss, accuracy, bins)';

-- Team Glicko-2: each player against the opposing team's composite or
-- against each opposing player.

-- @access admin, analyst
CREATE FUNCTION mm.glicko2_team_replay(games text, period interval DEFAULT NULL, tau float8 DEFAULT NULL,
                                       policy jsonb DEFAULT NULL, per_game boolean DEFAULT false,
                                       opponents text DEFAULT 'composite')
RETURNS TABLE(player_id bigint, rating float8, rd float8, vol float8, games bigint, last_played timestamptz)
AS 'MODULE_PATHNAME', 'mm_glicko2_team_replay'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION mm.glicko2_team_replay IS
    're-rate a team match history (match key, player_id, team, rank, played_at) with Glicko-2: each player against each opposing team''s composite (opponents composite) or every opposing player (each); final ratings per player';

-- Calibration: how well predicted probabilities foretold the outcomes.

-- @access public
CREATE FUNCTION mm.calibration_step(state float8[], probability float8, outcome float8)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'mm_calibration_step'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.calibration_step IS
    'transition function of mm.calibration';

-- @access public
CREATE FUNCTION mm.calibration_step(state float8[], probability float8, outcome float8, bins int)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'mm_calibration_step'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.calibration_step IS
    'transition function of mm.calibration with a number of bins';

-- @access public
CREATE FUNCTION mm.calibration_combine(a float8[], b float8[])
RETURNS float8[]
AS 'MODULE_PATHNAME', 'mm_calibration_combine'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.calibration_combine IS
    'combine function of mm.calibration: adds two checked states';

-- @access public
CREATE FUNCTION mm.calibration_final(state float8[])
RETURNS jsonb
AS 'MODULE_PATHNAME', 'mm_calibration_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.calibration_final IS
    'final function of mm.calibration: checks the state, renders n, brier, log_loss, accuracy and bins';

-- @access public
CREATE AGGREGATE mm.calibration(probability float8, outcome float8) (
    SFUNC = mm.calibration_step,
    STYPE = float8[],
    FINALFUNC = mm.calibration_final,
    COMBINEFUNC = mm.calibration_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE mm.calibration IS
    'calibration of predictions (probability of an event, outcome 1/0/0.5): n, Brier score, log loss, accuracy, reliability table of 10 bins';

-- @access public
CREATE AGGREGATE mm.calibration(probability float8, outcome float8, bins int) (
    SFUNC = mm.calibration_step,
    STYPE = float8[],
    FINALFUNC = mm.calibration_final,
    COMBINEFUNC = mm.calibration_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE mm.calibration IS
    'calibration of predictions (probability of an event, outcome 1/0/0.5): n, Brier score, log loss, accuracy, reliability table of the given bins';

-- @access public
CREATE FUNCTION mm.reliability(calibration jsonb)
RETURNS TABLE(bin int, lo float8, hi float8, n bigint, predicted float8, observed float8)
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mm, pg_catalog, pg_temp
AS $$
SELECT b.bin, b.lo, b.hi, b.n, b.predicted, b.observed
FROM pg_catalog.jsonb_to_recordset(calibration -> 'bins')
     AS b(bin int, lo float8, hi float8, n bigint, predicted float8, observed float8)
ORDER BY b.bin
$$;
COMMENT ON FUNCTION mm.reliability IS
    'the reliability table of a calibration as rows: per bin of predicted probability, the count, mean prediction and observed frequency';

-- @access admin, analyst
CREATE FUNCTION mm.openskill_calibration(
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
    epsilon float8 DEFAULT 0.1,
    bins int DEFAULT 10)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'mm_openskill_calibration'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION mm.openskill_calibration IS
    'replay a history predicting each match before rating it: calibration of the favoured team''s win probability (n, brier, log_loss, accuracy, bins)';

-- @access admin, analyst
CREATE FUNCTION mm.glicko2_calibration(games text, period interval DEFAULT NULL, tau float8 DEFAULT NULL,
                                       policy jsonb DEFAULT NULL, per_game boolean DEFAULT false,
                                       bins int DEFAULT 10, initial_rd float8 DEFAULT NULL)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'mm_glicko2_calibration'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION mm.glicko2_calibration IS
    'replay a game history predicting each game before rating it: calibration of the favoured player''s expected score (n, brier, log_loss, accuracy, bins); initial_rd replaces the deviation new players start with';

-- The IMS matchmaker documentation's beta tuning: line of best fit of
-- (rating delta, favoured team won) and the delta where it reaches 0.8.

-- @access public
CREATE FUNCTION mm.ims_beta_step(state float8[], delta float8, favoured_won boolean)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'mm_ims_beta_step'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.ims_beta_step IS
    'transition function of mm.ims_beta';

-- @access public
CREATE FUNCTION mm.ims_beta_combine(a float8[], b float8[])
RETURNS float8[]
AS 'MODULE_PATHNAME', 'mm_ims_beta_combine'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.ims_beta_combine IS
    'combine function of mm.ims_beta: merges two checked states';

-- @access public
CREATE FUNCTION mm.ims_beta_final(state float8[])
RETURNS jsonb
AS 'MODULE_PATHNAME', 'mm_ims_beta_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.ims_beta_final IS
    'final function of mm.ims_beta: checks the state, renders n, slope, intercept and beta';

-- @access public
CREATE AGGREGATE mm.ims_beta(delta float8, favoured_won boolean) (
    SFUNC = mm.ims_beta_step,
    STYPE = float8[],
    FINALFUNC = mm.ims_beta_final,
    COMBINEFUNC = mm.ims_beta_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE mm.ims_beta IS
    'IMS beta tuning: least-squares line of (rating delta, favoured team won) and beta, the delta where the line reaches 0.8';

-- Fitting: the parameter value that minimises log loss over a history.

-- @access admin, analyst
CREATE FUNCTION mm.openskill_fit(games text, parameter text DEFAULT 'beta', grid float8[] DEFAULT NULL,
                                 lo float8 DEFAULT NULL, hi float8 DEFAULT NULL, iterations int DEFAULT 20,
                                 initial text DEFAULT NULL, model text DEFAULT 'plackett_luce')
RETURNS TABLE(step int, value float8, log_loss float8, brier float8, accuracy float8, games bigint, best boolean)
AS 'MODULE_PATHNAME', 'mm_openskill_fit'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION mm.openskill_fit IS
    'maximum likelihood over a history: the beta, tau or kappa that minimises the log loss of the pre-match predictions, on a grid or by golden-section search; every value tried';

-- @access admin, analyst
CREATE FUNCTION mm.glicko2_fit(games text, parameter text DEFAULT 'tau', grid float8[] DEFAULT NULL,
                               lo float8 DEFAULT NULL, hi float8 DEFAULT NULL, iterations int DEFAULT 20,
                               period interval DEFAULT NULL, per_game boolean DEFAULT false)
RETURNS TABLE(step int, value float8, log_loss float8, brier float8, accuracy float8, games bigint, best boolean)
AS 'MODULE_PATHNAME', 'mm_glicko2_fit'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION mm.glicko2_fit IS
    'maximum likelihood over a game history: the tau or initial rd that minimises the log loss of the pre-game expected scores, on a grid or by golden-section search; every value tried';

-- The offline Bayesian fit: every player's skill from all the games at
-- once (src/analytics/bayes_fit.c), the limit an online rating approaches.

-- @access admin, analyst
CREATE FUNCTION mm.bayes_fit(games text, prior_sd float8 DEFAULT 1, beta float8 DEFAULT 1)
RETURNS TABLE(player_id bigint, rating float8, deviation float8, games bigint)
AS 'MODULE_PATHNAME', 'mm_bayes_fit'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION mm.bayes_fit IS
    'fit every player''s skill to a team match history (match key, player_id, team, rank[, weight]) at once: the posterior mode of a Plackett-Luce model of team sums (Bradley-Terry at two teams; a team performs the sum of its players'' weighted skills over beta) with a prior N(0, prior_sd^2) per player, and each player''s posterior deviation (Laplace: the whole Hessian up to 1000 players, the player''s own curvature beyond); per player by id, with its games';

-- (definer: it reads the match history as the owner, as the analyst role
-- may, and calls the owner's own argument check)
-- @access admin, analyst; definer
CREATE FUNCTION mm.bayes_refit(key text, prior_sd float8 DEFAULT 1, beta float8 DEFAULT 1)
RETURNS TABLE(player_id bigint, rating float8, deviation float8, games bigint)
LANGUAGE sql VOLATILE PARALLEL UNSAFE
SET search_path = mm, pg_catalog, pg_temp
AS $$
SELECT mm._null_arg('key') WHERE key IS NULL;
    SELECT f.player_id, f.rating, f.deviation, f.games
    FROM mm.bayes_fit(pg_catalog.format(
        'SELECT r.match_id, r.player_id, pg_catalog.array_position(m.teams, r.team) AS team, r.rank, r.weight'
        ' FROM mm.match_result_player r'
        ' JOIN mm.match_result x ON x.match_id = r.match_id'
        ' JOIN mm.match m ON m.queue_id = r.queue_id AND m.match_id = r.match_id'
        ' WHERE r.key = %L ORDER BY x.reported_at, r.match_id', key), prior_sd, beta) f
$$;
COMMENT ON FUNCTION mm.bayes_refit IS
    'mm.bayes_fit over a rating key''s reported matches (mm.match_result_player), in report order, every family''s alike: each player''s skill from the whole history, and its posterior deviation';
