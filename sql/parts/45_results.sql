
-- From match to result: ratings stored per player and rating key, and
-- mm.report_result, which rates a finished match of a queue exactly once
-- (ratings, ladder points, dishonor for desertions, before and after of
-- every player) in the caller's transaction.

-- A rating family's state, as mm.ratings and the result history keep it:
-- a float8[] of the family's columns in order (OpenSkill: mu, sigma;
-- Glicko-2: rating, rd, vol), checked by the family (src/rating/rating_model.h).
-- @access internal
CREATE FUNCTION mm._rating_state_valid(model text, state float8[])
RETURNS boolean
AS 'MODULE_PATHNAME', 'mm_rating_state_check'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm._rating_state_valid IS
    'internal (CHECK of mm.ratings and mm.match_result_player): whether a float8[] is a state of the named rating family: one dimension, one element per column of the family, no NULL, each finite (and positive where the family says so)';

-- @access public
CREATE FUNCTION mm.rating_fields(model text, state float8[])
RETURNS jsonb
AS 'MODULE_PATHNAME', 'mm_rating_fields'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.rating_fields IS
    'a rating family''s state as an object of its columns by name: openskill {"mu", "sigma"}, glicko2 {"rating", "rd", "vol"}; an unknown family or a state that is not the family''s is an error (22023)';

-- @access public
CREATE FUNCTION mm.rating_conservative(model text, state float8[], last_played timestamptz DEFAULT NULL,
                                       at timestamptz DEFAULT NULL)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_rating_conservative'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.rating_conservative IS
    'a rating family''s conservative rating of a state (higher is better): openskill the ordinal mu - 3 sigma, glicko2 rating - 2 rd; with last_played and at, of the state as of at (Glicko-2''s idle deviation growth)';

-- @access internal
CREATE FUNCTION mm._rating_state_at(model text, state float8[], last_played timestamptz, at timestamptz)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'mm_rating_state_at'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm._rating_state_at IS
    'internal: a stored state as of a time by its family (Glicko-2: the idle deviation growth since last_played, as mm.glicko2_rating_at with the default policy); as stored when last_played is NULL';

-- @access internal
CREATE FUNCTION mm._rating_defaults(config jsonb)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'mm_rating_defaults'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm._rating_defaults IS
    'internal (mm.roster_rating): a new player''s state under a queue config''s rating section, from its family';

-- @access internal
CREATE FUNCTION mm._roster_rating(config jsonb, at timestamptz, ratio float8,
                                  core float8[], core_played timestamptz[],
                                  profession float8[], profession_played timestamptz[],
                                  OUT rating float8, OUT deviation float8)
RETURNS record
AS 'MODULE_PATHNAME', 'mm_rating_roster'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm._roster_rating IS
    'internal (mm.roster_rating): a roster''s rating and deviation from its players'' core and profession states (one row of the family''s columns per player) as of a time, blended by ratio, formed by the queue''s rating family';

-- One row per player, rating key (what the Guild Wars 2 wiki calls a
-- rating type: ranked, unranked, a profession) and rating family. A
-- queue's "rating" config names the key and the family; the family's
-- state is one float8[] checked by the family, so that a family adds no
-- column. mm.rating_fields(model, state) reads it by name.
-- @access admin, analyst
CREATE TABLE mm.ratings (
    player_id     bigint NOT NULL,
    key           text NOT NULL,
    model         text NOT NULL,
    state         float8[] NOT NULL,
    ladder_points int,
    games         int NOT NULL DEFAULT 0,
    last_played   timestamptz,
    CONSTRAINT ratings_pkey PRIMARY KEY (player_id, key, model),
    CONSTRAINT ratings_key_check CHECK (key <> ''),
    CONSTRAINT ratings_state_check CHECK (mm._rating_state_valid(model, state)),
    CONSTRAINT ratings_games_check CHECK (games >= 0),
    CONSTRAINT ratings_last_played_check CHECK (isfinite(last_played))
);
COMMENT ON TABLE mm.ratings IS 'ratings kept by mm, one row per player, rating key and rating family: the family''s state (mm.rating_fields reads it by name), ladder points (NULL: none yet), games rated and when the last was reported';
COMMENT ON CONSTRAINT ratings_state_check ON mm.ratings IS 'the state is one of the family''s: its columns in order, finite, positive where the family says so (mm._rating_state_valid); an unknown family has none';

-- A match's result, at most one per match: its primary key is what makes a
-- report happen exactly once.
-- @access admin, analyst
CREATE TABLE mm.match_result (
    match_id    bigint NOT NULL,
    queue_id    int NOT NULL,
    status      text NOT NULL,
    result      jsonb,
    reported_at timestamptz NOT NULL,
    CONSTRAINT match_result_pkey PRIMARY KEY (match_id),
    CONSTRAINT match_result_match_fkey FOREIGN KEY (queue_id, match_id)
        REFERENCES mm.match (queue_id, match_id) ON DELETE CASCADE,
    CONSTRAINT match_result_status_check CHECK (status IN ('reported', 'abandoned')),
    CONSTRAINT match_result_result_check CHECK ((status = 'reported') = (result IS NOT NULL))
);
COMMENT ON TABLE mm.match_result IS 'the result of a match as mm.report_result received it (status reported), or its abandonment (mm.abandon_match); one per match';

-- @access admin, analyst
CREATE TABLE mm.match_result_player (
    match_id        bigint NOT NULL,
    player_id       bigint NOT NULL,
    queue_id        int NOT NULL,
    team            text NOT NULL,
    role            text,
    rank            float8 NOT NULL,
    score           float8,
    weight          float8 NOT NULL,
    deserted        boolean NOT NULL,
    key             text NOT NULL,
    model           text NOT NULL,
    state_before    float8[] NOT NULL,
    state_after     float8[],
    ladder_before   int,
    ladder_awarded  int,
    ladder_after    int,
    dishonor_stacks int,
    CONSTRAINT match_result_player_pkey PRIMARY KEY (match_id, player_id),
    CONSTRAINT match_result_player_match_fkey FOREIGN KEY (match_id)
        REFERENCES mm.match_result ON DELETE CASCADE,
    CONSTRAINT match_result_player_team_check CHECK (mm._team_name_valid(team)),
    CONSTRAINT match_result_player_weight_check CHECK (weight >= 0 AND weight <= 1),
    CONSTRAINT match_result_player_state_check CHECK (mm._rating_state_valid(model, state_before)
        AND (state_after IS NULL OR mm._rating_state_valid(model, state_after)))
);
COMMENT ON COLUMN mm.match_result_player.role IS 'the player''s role in the match (one of its queue''s roles), NULL when its roster gave none';
COMMENT ON TABLE mm.match_result_player IS 'per player of a reported match: team, role, rank, score, weight, desertion, the rating key and family and the family''s state before and after (after NULL: a pending rating period; mm.rating_fields reads a state by name), ladder points before, awarded and after, dishonor stacks after a desertion';
COMMENT ON CONSTRAINT match_result_player_team_check ON mm.match_result_player IS 'a team is named by 1 to 63 bytes, as a queue''s team_names';

-- The games of the open Glicko-2 rating period of a rating key (a queue
-- whose rating config says "period": "pending"): one row per player and
-- opposing player of a reported match, scored 1, 0.5 or 0.
-- mm.close_rating_period rates them all at once and removes them.
-- @access admin, analyst
CREATE TABLE mm.rating_period_game (
    key         text NOT NULL,
    match_id    bigint NOT NULL,
    player_id   bigint NOT NULL,
    opponent_id bigint NOT NULL,
    score       float8 NOT NULL,
    reported_at timestamptz NOT NULL,
    CONSTRAINT rating_period_game_pkey PRIMARY KEY (key, match_id, player_id, opponent_id),
    CONSTRAINT rating_period_game_match_fkey FOREIGN KEY (match_id)
        REFERENCES mm.match_result ON DELETE CASCADE,
    CONSTRAINT rating_period_game_score_check CHECK (score IN (0, 0.5, 1)),
    CONSTRAINT rating_period_game_opponent_check CHECK (opponent_id <> player_id)
);
COMMENT ON TABLE mm.rating_period_game IS
    'games of the open Glicko-2 rating period of a rating key ("period": "pending"): each player against each opposing player of a reported match, score 1 win, 0.5 draw, 0 loss; rated at once and removed by mm.close_rating_period';
SELECT pg_catalog.pg_extension_config_dump('mm.rating_period_game', '');

SELECT pg_catalog.pg_extension_config_dump('mm.ratings', '');
SELECT pg_catalog.pg_extension_config_dump('mm.match_result', '');
SELECT pg_catalog.pg_extension_config_dump('mm.match_result_player', '');

-- Calibrated odds (docs/ratings.md): a queue's odds are its rating family's
-- scaled by what its own results taught it. mm.report_result records each
-- result of a two-team match in mm.odds_result; the queue's next tick,
-- which runs alone per queue, folds them into mm.odds_calibration in
-- report order and removes them, so that reports never wait for each
-- other on the queue's row and every result is learnt from once.
-- @access admin, analyst
CREATE TABLE mm.odds_calibration (
    queue_id    int NOT NULL,
    model       text NOT NULL,
    scale       float8 NOT NULL,
    information float8 NOT NULL,
    results     bigint NOT NULL,
    updated_at  timestamptz NOT NULL,
    CONSTRAINT odds_calibration_pkey PRIMARY KEY (queue_id),
    CONSTRAINT odds_calibration_queue_id_fkey FOREIGN KEY (queue_id) REFERENCES mm.queue ON DELETE CASCADE,
    CONSTRAINT odds_calibration_scale_check CHECK (scale > 0 AND scale < 'Infinity'),
    CONSTRAINT odds_calibration_information_check CHECK (information > 0 AND information < 'Infinity'),
    CONSTRAINT odds_calibration_results_check CHECK (results >= 0)
);
COMMENT ON TABLE mm.odds_calibration IS
    'per queue, what its results taught it about the scale of its rating family''s odds (docs/ratings.md, "Calibrated odds"): the odds a tick stores are the family''s with their logit multiplied by scale; written by the queue''s ticks';
COMMENT ON COLUMN mm.odds_calibration.model IS 'the rating family the scale was learnt for; a tick of a queue whose rating.model changed starts again from scale 1';
COMMENT ON COLUMN mm.odds_calibration.scale IS 'the scale a: the stored odds are 1 / (1 + exp(-a ln(p / (1 - p)))) of the family''s p';
COMMENT ON COLUMN mm.odds_calibration.information IS 'the precision of the belief about ln(scale) (1 before any result: the prior N(0, 1))';
COMMENT ON COLUMN mm.odds_calibration.results IS 'results learnt from since the calibration started';
COMMENT ON COLUMN mm.odds_calibration.updated_at IS 'the time of the tick that last learnt from results';
COMMENT ON CONSTRAINT odds_calibration_scale_check ON mm.odds_calibration IS 'a scale is positive and finite';
COMMENT ON CONSTRAINT odds_calibration_information_check ON mm.odds_calibration IS 'a precision is positive and finite';
SELECT pg_catalog.pg_extension_config_dump('mm.odds_calibration', '');

-- @access admin, analyst
CREATE TABLE mm.odds_result (
    queue_id    int NOT NULL,
    match_id    bigint NOT NULL,
    model       text NOT NULL,
    logit       float8 NOT NULL,
    score       float8 NOT NULL,
    reported_at timestamptz NOT NULL,
    CONSTRAINT odds_result_pkey PRIMARY KEY (queue_id, match_id),
    CONSTRAINT odds_result_match_fkey FOREIGN KEY (queue_id, match_id)
        REFERENCES mm.match (queue_id, match_id) ON DELETE CASCADE,
    CONSTRAINT odds_result_logit_check CHECK (logit > '-Infinity' AND logit < 'Infinity'),
    CONSTRAINT odds_result_score_check CHECK (score IN (0, 0.5, 1))
);
COMMENT ON TABLE mm.odds_result IS
    'results of two-team matches that the queue''s calibration has not learnt from yet: the rating family''s logit of the first team''s odds when the match was made, and its score (1 it ranked better, 0.5 equal, 0 worse); written by mm.report_result, learnt from and removed by the queue''s next tick';
COMMENT ON COLUMN mm.odds_result.model IS 'the rating family whose odds the match''s tick stored and that rated the result; the queue''s next tick learns from the row only while the queue keeps that family';
COMMENT ON COLUMN mm.odds_result.logit IS 'ln(p / (1 - p)) of the rating family''s odds p of the first team (the stored odds before the queue''s scale)';
COMMENT ON CONSTRAINT odds_result_logit_check ON mm.odds_result IS 'a logit is finite (odds of exactly 0 or 1 teach nothing and are not recorded)';
COMMENT ON CONSTRAINT odds_result_score_check ON mm.odds_result IS 'the first team won (1), drew (0.5) or lost (0)';
SELECT pg_catalog.pg_extension_config_dump('mm.odds_result', '');

-- The rating of a roster from its players' mm.ratings rows (defaults of the
-- queue's "rating" config for players without one). With professions (one
-- per player) and a profession_ratio r > 0, each player's rating is
-- (1 - r) * core + r * profession, field by field (the Guild Wars 2 wiki's
-- Rating/@profession-ratio; mm.glicko2_blend), the profession's rating
-- being the row of key "<key>/<profession>".
-- @access service, admin, analyst; definer
CREATE FUNCTION mm.roster_rating(players bigint[], rating_config jsonb DEFAULT '{}', at timestamptz DEFAULT now(),
                                 professions text[] DEFAULT NULL,
                                 OUT rating float8, OUT deviation float8)
RETURNS record
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q jsonb := mm.matcher_config(jsonb_build_object('rating', coalesce(rating_config, '{}')));
    rc jsonb := q -> 'rating';
    r float8;
    d float8[];
BEGIN
    IF rating_config IS NULL THEN PERFORM mm._null_arg('rating_config'); END IF;
    IF players IS NULL THEN PERFORM mm._null_arg('players'); END IF;
    IF at IS NULL THEN PERFORM mm._null_arg('at'); END IF;
    IF players IS NULL OR cardinality(players) = 0 OR at IS NULL OR NOT isfinite(at) THEN
        RAISE EXCEPTION 'players must be a non-empty array and at a finite time'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF cardinality(players) > 1000 THEN
        RAISE EXCEPTION 'roster is larger than a team can be'
            USING ERRCODE = 'program_limit_exceeded',
                  DETAIL = format('The roster has %s players; teams have at most 1000.', cardinality(players));
    END IF;
    IF cardinality(professions) NOT IN (0, cardinality(players)) OR array_position(professions, NULL) IS NOT NULL
       OR array_position(professions, '') IS NOT NULL THEN
        RAISE EXCEPTION 'professions must name one profession per player'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The roster has %s players and the professions are %s.', cardinality(players), professions),
                  HINT = 'Give one non-empty profession per player, in the order of players, or none.';
    END IF;
    -- without professions, or a ratio of 0: the core rating alone
    r := CASE WHEN cardinality(professions) > 0 THEN (rc ->> 'profession_ratio')::float8 ELSE 0 END;
    d := mm._rating_defaults(q);
    -- the family forms the roster's rating from its players' states
    SELECT x.rating, x.deviation INTO rating, deviation
    FROM mm._roster_rating(q, roster_rating.at, r,
                           (SELECT array_agg(coalesce(c.state, d) ORDER BY u.o)
                            FROM unnest(players) WITH ORDINALITY u(p, o)
                            LEFT JOIN mm.ratings c ON c.player_id = u.p AND c.key = rc ->> 'key' AND c.model = rc ->> 'model'),
                           (SELECT array_agg(c.last_played ORDER BY u.o)
                            FROM unnest(players) WITH ORDINALITY u(p, o)
                            LEFT JOIN mm.ratings c ON c.player_id = u.p AND c.key = rc ->> 'key' AND c.model = rc ->> 'model'),
                           (SELECT array_agg(coalesce(pr.state, d) ORDER BY u.o)
                            FROM unnest(players) WITH ORDINALITY u(p, o)
                            LEFT JOIN mm.ratings pr ON r > 0 AND pr.player_id = u.p AND pr.model = rc ->> 'model'
                                                   AND pr.key = (rc ->> 'key') || '/' || professions[u.o]),
                           (SELECT array_agg(pr.last_played ORDER BY u.o)
                            FROM unnest(players) WITH ORDINALITY u(p, o)
                            LEFT JOIN mm.ratings pr ON r > 0 AND pr.player_id = u.p AND pr.model = rc ->> 'model'
                                                   AND pr.key = (rc ->> 'key') || '/' || professions[u.o])) x;
END
$$;
COMMENT ON FUNCTION mm.roster_rating IS
    'a roster''s rating and deviation from its players'' mm.ratings rows of the queue''s rating key and family (the family''s defaults for players without one), formed by the family: OpenSkill, the IMS party rating (mm.party_rating) and deviation 0; Glicko-2, the mean rating and mean deviation with idle growth; with professions (one per player) each player''s rating blends core and profession ("<key>/<profession>") by profession_ratio';

-- Close the open Glicko-2 rating period of a rating key (Glickman's paper:
-- every player who played is rated with all of the period's games at once,
-- against the opponents' ratings as they stood when the period began), one
-- game per opposing team by the team likelihood of mm.report_result.
-- Players who did not play keep their row; their idle deviation growth is
-- applied when their rating is read (mm.glicko2_rating_at from last_played).
-- @access service, admin; definer
CREATE FUNCTION mm.close_rating_period(key text, at timestamptz DEFAULT now())
RETURNS TABLE (player_id bigint, games bigint, rating float8, rd float8, vol float8)
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    k text := close_rating_period.key;
    matches bigint[];
    ids bigint[];
    p bigint;
BEGIN
    IF key IS NULL THEN PERFORM mm._null_arg('key'); END IF;
    IF at IS NULL THEN PERFORM mm._null_arg('at'); END IF;
    IF k IS NULL OR at IS NULL OR NOT isfinite(at) THEN
        RAISE EXCEPTION 'key must not be NULL and at must be a finite time'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- the period: the matches whose games are committed now (a report
    -- writes all the games of its match at once), their players' rows
    -- locked in player-id order as mm.report_result locks them; games
    -- reported meanwhile belong to the next period
    matches := ARRAY(SELECT DISTINCT g.match_id FROM mm.rating_period_game g WHERE g.key = k);
    ids := ARRAY(SELECT DISTINCT g.player_id FROM mm.rating_period_game g
                 WHERE g.key = k AND g.match_id = ANY (matches) ORDER BY 1);
    IF NOT mm._queues_distributed() THEN
        PERFORM FROM mm.ratings r WHERE r.key = k AND r.model = 'glicko2' AND r.player_id = ANY (ids)
        ORDER BY r.player_id FOR UPDATE;
    ELSE
        -- on Citus one row at a time, on its player's shard, in the same
        -- order (Citus refuses a SELECT ... FOR UPDATE over several shards)
        FOREACH p IN ARRAY ids LOOP
            PERFORM FROM mm.ratings r WHERE r.player_id = p AND r.key = k AND r.model = 'glicko2' FOR UPDATE;
        END LOOP;
    END IF;
    RETURN QUERY
    WITH g AS (
        DELETE FROM mm.rating_period_game g WHERE g.key = k AND g.match_id = ANY (matches) RETURNING g.*
    ), s AS (
        -- each player's rating when the period began, with idle growth
        -- until then (a rating period of mm reports nothing but its games)
        SELECT r.player_id, x.st[1] AS rating, x.st[2] AS rd, x.st[3] AS vol
        FROM mm.ratings r, (SELECT min(g.reported_at) AS first FROM g) f,
             LATERAL (SELECT mm._rating_state_at(r.model, r.state, r.last_played,
                                                 greatest(r.last_played, f.first)) AS st) x
        WHERE r.key = k AND r.model = 'glicko2' AND r.player_id = ANY (ids)
    ), tp AS (
        -- the players of the period's matches, their teams (the result's),
        -- each team's size, mean rating and sum of rd^2, at the start
        SELECT mp.match_id, mp.player_id, mp.team, s.rating, s.rd,
               count(*) OVER w AS size, avg(s.rating) OVER w AS mean, sum(s.rd ^ 2) OVER w AS rd2
        FROM mm.match_result_player mp JOIN s ON s.player_id = mp.player_id
        WHERE mp.key = k AND mp.model = 'glicko2' AND mp.match_id IN (SELECT g.match_id FROM g)
        WINDOW w AS (PARTITION BY mp.match_id, mp.team)
    ), tg AS (
        -- one game per player and opposing team by the team likelihood
        -- (docs/ratings.md, "Glicko-2 in teams"): Glickman's game against
        -- an opponent of rating r - n_A (R_A - R_B) and RD^2
        -- n_A^2 RD_-i^2 + (n_A^2 - 1) pi^2 173.7178^2 / 3 (its E and g are
        -- the team game's); between two teams of one player, the opponent
        SELECT g.player_id, min(g.score) AS score,
               CASE WHEN min(a.size) = 1 AND min(b.size) = 1 THEN min(b.rating)
                    ELSE min(a.rating - a.size * (a.mean - b.mean)) END AS opp_rating,
               CASE WHEN min(a.size) = 1 AND min(b.size) = 1 THEN min(b.rd)
                    ELSE min(sqrt(greatest(a.rd2 - a.rd ^ 2, 0) + a.size ^ 2 * b.rd2 / b.size ^ 2
                                  + (a.size ^ 2 - 1) * pi() ^ 2 * 173.7178::float8 ^ 2 / 3)) END AS opp_rd
        FROM g
        JOIN tp a ON a.match_id = g.match_id AND a.player_id = g.player_id
        JOIN tp b ON b.match_id = g.match_id AND b.player_id = g.opponent_id
        GROUP BY g.match_id, g.player_id, b.team
    ), n AS (
        SELECT tg.player_id, mm.glicko2_period(p.rating, p.rd, p.vol, tg.opp_rating, tg.opp_rd, tg.score) AS n,
               (SELECT count(DISTINCT g.match_id) FROM g WHERE g.player_id = tg.player_id) AS games
        FROM tg JOIN s p ON p.player_id = tg.player_id
        GROUP BY tg.player_id
    )
    UPDATE mm.ratings r
       SET state = ARRAY[(n.n).rating, (n.n).rd, (n.n).vol], games = r.games + n.games,
           last_played = greatest(r.last_played, close_rating_period.at)
      FROM n
     WHERE r.key = k AND r.model = 'glicko2' AND r.player_id = n.player_id
    RETURNING r.player_id, n.games, r.state[1], r.state[2], r.state[3];
END
$$;
COMMENT ON FUNCTION mm.close_rating_period IS
    'close the open Glicko-2 rating period of a rating key: rate every player with games in mm.rating_period_game with all of them at once (mm.glicko2_period, one game per opposing team by the team likelihood, from the ratings when the period began) and remove them; returns the players rated; players who did not play grow their deviation when read';

-- Leaderboards: per rating key and family, players by the family's
-- conservative rating as of now.
-- @access service, admin, analyst
CREATE VIEW mm.leaderboard AS
SELECT x.key, x.model, x.player_id, x.conservative_rating, x.ladder_points, x.games, x.last_played,
       rank() OVER (PARTITION BY x.key, x.model ORDER BY x.conservative_rating DESC) AS position
FROM (SELECT r.key, r.model, r.player_id,
             mm.rating_conservative(r.model, r.state, r.last_played, greatest(r.last_played, now())) AS conservative_rating,
             r.ladder_points, r.games, r.last_played
      FROM mm.ratings r WHERE r.games > 0) x;
COMMENT ON VIEW mm.leaderboard IS
    'players who played, per rating key and family, ranked by the family''s conservative rating as of now (mm.rating_conservative): OpenSkill the ordinal mu - 3 sigma, Glicko-2 rating - 2 rd with idle growth';

-- Ratings by name, per family, for analysts: each family's state read into
-- named columns (the order of mm.rating_fields), one view over the ratings
-- and one over the result history (a player's games in report order, with
-- the state before and after each). Views, so they read the tables as they
-- are; a condition on key and player_id reaches mm.ratings' primary key
-- and mm.match_result_player's rows by player.
-- @access admin, analyst
CREATE VIEW mm.openskill_ratings AS
SELECT r.key, r.player_id, r.state[1] AS mu, r.state[2] AS sigma,
       r.state[1] - 3 * r.state[2] AS ordinal, r.games, r.last_played, r.ladder_points
FROM mm.ratings r WHERE r.model = 'openskill';
COMMENT ON VIEW mm.openskill_ratings IS
    'OpenSkill ratings by name: rating key, player, mu, sigma, the ordinal mu - 3 sigma (the leaderboard''s order), games rated, when the last was reported, ladder points';

-- @access admin, analyst
CREATE VIEW mm.glicko2_ratings AS
SELECT r.key, r.player_id, r.state[1] AS rating, r.state[2] AS rd, r.state[3] AS volatility,
       r.games, r.last_played, r.ladder_points
FROM mm.ratings r WHERE r.model = 'glicko2';
COMMENT ON VIEW mm.glicko2_ratings IS
    'Glicko-2 ratings by name: rating key, player, rating, rd and volatility as stored after the last game (the matcher and the leaderboard grow rd over the rating periods idle since), games rated, when the last was reported, ladder points';

-- @access admin, analyst
CREATE VIEW mm.elo_ratings AS
SELECT r.key, r.player_id, r.state[1] AS rating, r.state[2]::int AS elo_games,
       r.games, r.last_played, r.ladder_points
FROM mm.ratings r WHERE r.model = 'elo';
COMMENT ON VIEW mm.elo_ratings IS
    'Elo ratings by name: rating key, player, rating, the games Elo counted (below the queue''s provisional_games a game moves the rating by k_provisional, else by k), games rated, when the last was reported, ladder points';

-- @access admin, analyst
CREATE VIEW mm.openskill_rating_history AS
SELECT p.key, p.player_id, row_number() OVER w AS game, p.match_id, r.reported_at, p.team, p.rank, p.weight,
       p.state_before[1] AS mu_before, p.state_before[2] AS sigma_before,
       p.state_after[1] AS mu_after, p.state_after[2] AS sigma_after,
       p.state_after[1] - 3 * p.state_after[2] AS ordinal_after
FROM mm.match_result_player p JOIN mm.match_result r ON r.queue_id = p.queue_id AND r.match_id = p.match_id
WHERE p.model = 'openskill'
WINDOW w AS (PARTITION BY p.key, p.player_id ORDER BY r.reported_at, p.match_id);
COMMENT ON VIEW mm.openskill_rating_history IS
    'each OpenSkill-rated game of each player in report order: rating key, player, its game number in the key, match, when reported, team, rank, weight, mu and sigma before and after, the ordinal after';

-- @access admin, analyst
CREATE VIEW mm.glicko2_rating_history AS
SELECT p.key, p.player_id, row_number() OVER w AS game, p.match_id, r.reported_at, p.team, p.rank, p.weight,
       p.state_before[1] AS rating_before, p.state_before[2] AS rd_before, p.state_before[3] AS volatility_before,
       p.state_after[1] AS rating_after, p.state_after[2] AS rd_after, p.state_after[3] AS volatility_after
FROM mm.match_result_player p JOIN mm.match_result r ON r.queue_id = p.queue_id AND r.match_id = p.match_id
WHERE p.model = 'glicko2'
WINDOW w AS (PARTITION BY p.key, p.player_id ORDER BY r.reported_at, p.match_id);
COMMENT ON VIEW mm.glicko2_rating_history IS
    'each Glicko-2-rated game of each player in report order: rating key, player, its game number in the key, match, when reported, team, rank, weight, rating, rd and volatility before and after (after NULL: a pending rating period not yet closed)';

-- @access admin, analyst
CREATE VIEW mm.elo_rating_history AS
SELECT p.key, p.player_id, row_number() OVER w AS game, p.match_id, r.reported_at, p.team, p.rank, p.weight,
       p.state_before[1] AS rating_before, p.state_after[1] AS rating_after,
       p.state_after[1] - p.state_before[1] AS change
FROM mm.match_result_player p JOIN mm.match_result r ON r.queue_id = p.queue_id AND r.match_id = p.match_id
WHERE p.model = 'elo'
WINDOW w AS (PARTITION BY p.key, p.player_id ORDER BY r.reported_at, p.match_id);
COMMENT ON VIEW mm.elo_rating_history IS
    'each Elo-rated game of each player in report order: rating key, player, its game number in the key, match, when reported, team, rank, weight, rating before and after and the change';

-- In C (src/results/results.c): the result is checked against the match's rosters
-- as they are at report time, the rating rows are locked in player-id
-- order, the players are rated in memory and every write is one prepared
-- multi-row statement.
-- The outcome a result states, in one spelling: each team's rank becomes
-- its dense rank among the teams (1 the best, equal ranks equal), so that
-- ranks 0 and 1, 1 and 2, or 10 and 20 of the same order state the same
-- outcome. Everything else (scores, desertions, players) stays as given. A
-- result that is not an object of teams with numeric ranks is left as it
-- is. mm.report_result compares a second report with the first by this.
-- @access internal
CREATE FUNCTION mm._result_outcome(result jsonb)
RETURNS jsonb
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mm, pg_catalog, pg_temp
RETURN CASE
    WHEN jsonb_typeof(result) = 'object' AND jsonb_typeof(result -> 'teams') = 'object'
         AND NOT EXISTS (SELECT FROM jsonb_each(result -> 'teams') t
                         WHERE jsonb_typeof(t.value) <> 'object'
                            OR (t.value ? 'rank' AND jsonb_typeof(t.value -> 'rank') <> 'number'))
    THEN jsonb_set(result, '{teams}',
                   coalesce((SELECT jsonb_object_agg(x.key, x.value)
                             FROM (SELECT t.key,
                                          CASE WHEN t.value ? 'rank'
                                               THEN jsonb_set(t.value, '{rank}',
                                                              to_jsonb(dense_rank() OVER (ORDER BY (t.value ->> 'rank')::numeric)))
                                               ELSE t.value END AS value
                                   FROM jsonb_each(result -> 'teams') t) x),
                            '{}'::jsonb))
    ELSE result END;
COMMENT ON FUNCTION mm._result_outcome IS
    'internal (mm.report_result): a result with each team''s rank replaced by its dense rank among the teams (1 the best), so that two results stating the same order compare equal';

-- @access service, admin; definer
CREATE FUNCTION mm.report_result(match_id bigint, result jsonb)
RETURNS SETOF mm.match_result_player
AS 'MODULE_PATHNAME', 'mm_report_result'
LANGUAGE C VOLATILE ROWS 10;
COMMENT ON FUNCTION mm.report_result IS
    'rate a match exactly once with its queue''s "rating" config and rating family (mm.ratings rows of the key and family) (with profession_ratio > 0 the players'' profession ratings too; with "period": "pending" the games wait for mm.close_rating_period), ladder points from the match''s prediction, dishonor for desertions; records every player''s before and after (backfilled players included), marks the match finished and its open backfill requests expired; a repeated report of the same outcome (the same result, team ranks compared by their order: ranks 0 and 1 repeat ranks 1 and 2) returns the first outcome, a different one is an error (23505)';

-- A match that ends (reported or abandoned) takes its rosters out of
-- mm.roster, their players with them by the foreign key's cascade (they
-- may queue again), and keeps them in mm.ended_roster with their players in
-- party order: the write a tick used to make per matched roster, made once
-- per match here. PL/pgSQL keeps the statement's plan for the session; as a
-- SQL function (a data-modifying WITH is never inlined) it was planned again
-- at every call, about 0.4 ms of a report's 1.1. mm.report_result calls it
-- on Citus only: on a single node it moves the rosters the same way in the
-- one statement that also reads them and finishes the match
-- (src/results/result_match.c, RS_END_MATCH).
-- @access internal
CREATE FUNCTION mm._end_match_rosters(queue_id int, match_id bigint)
RETURNS int
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    n int;
    reported boolean;
BEGIN
    -- the match's rosters, then each one's players by its key (a lateral
    -- aggregate is never turned into a join, so no plan reads the queue's
    -- players: one made on statistics that do not know a new queue would)
    WITH p AS MATERIALIZED (
        SELECT r.roster_id, x.players, x.professions, x.roles
        FROM mm.roster r
        CROSS JOIN LATERAL (
            SELECT array_agg(qp.player_id ORDER BY qp.seat) AS players,
                   coalesce(array_agg(qp.profession ORDER BY qp.seat) FILTER (WHERE qp.profession IS NOT NULL), '{}') AS professions,
                   coalesce(array_agg(qp.role ORDER BY qp.seat) FILTER (WHERE qp.role IS NOT NULL), '{}') AS roles
            FROM mm.queued_player qp
            WHERE qp.queue_id = _end_match_rosters.queue_id AND qp.roster_id = r.roster_id) x
        WHERE r.queue_id = _end_match_rosters.queue_id AND r.match_id = _end_match_rosters.match_id
    ), d AS (
        DELETE FROM mm.roster r
        WHERE r.queue_id = _end_match_rosters.queue_id AND r.match_id = _end_match_rosters.match_id
        RETURNING r.*
    ), i AS (
        INSERT INTO mm.ended_roster (match_id, roster_id, team, players, rating, deviation, rank, ladder_points, dishonor,
                                     professions, joined_at, waited, queue_id, position, backfill_id, attributes, latencies,
                                     roles)
        SELECT d.match_id, d.roster_id, d.team, coalesce(p.players, '{}'), d.rating, d.deviation, d.rank, d.ladder_points,
               d.dishonor, coalesce(p.professions, '{}'), d.joined_at, d.waited, d.queue_id, d.position, d.backfill_id,
               d.attributes, d.latencies, coalesce(p.roles, '{}')
        FROM d LEFT JOIN p ON p.roster_id = d.roster_id
        ORDER BY d.roster_id
        RETURNING 1
    )
    SELECT count(*)::int INTO n FROM i;
    -- the queue's event feed (mm.events): reported or abandoned, every
    -- player who played it
    -- (the result read first: Citus cannot push an INSERT ... SELECT joining
    -- it down to the shard)
    reported := coalesce((SELECT r.status <> 'abandoned' FROM mm.match_result r
                          WHERE r.queue_id = _end_match_rosters.queue_id AND r.match_id = _end_match_rosters.match_id), true);
    INSERT INTO mm.queue_event (queue_id, kind, match_id, player_ids)
    SELECT e.queue_id, CASE WHEN reported THEN 'reported' ELSE 'abandoned' END, e.match_id,
           array_agg(u.p ORDER BY e.roster_id, u.o)
    FROM mm.ended_roster e
    CROSS JOIN LATERAL unnest(e.players) WITH ORDINALITY AS u(p, o)
    WHERE e.match_id = _end_match_rosters.match_id AND e.queue_id = _end_match_rosters.queue_id
    GROUP BY e.queue_id, e.match_id;
    PERFORM mm._number_events(_end_match_rosters.queue_id);  -- on Citus: the queue's own order
    RETURN n;
END
$$;
COMMENT ON FUNCTION mm._end_match_rosters IS
    'internal (mm.abandon_match; mm.report_result on Citus): move the rosters of a match that ended from mm.roster (their players'' rows go with them) to mm.ended_roster, players, professions and roles in party order; returns how many';

-- A match's every state has its answer: matched (claimed or not) is
-- abandoned; one abandoned already gives false; a reported one, one in its
-- ready check and a dissolved one are refused (55000), and stay as they are.
-- @access service, admin; definer
CREATE FUNCTION mm.abandon_match(match_id bigint)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    m mm.match;
    prev mm.match_result;
    q int;
BEGIN
    IF match_id IS NULL THEN
        RAISE EXCEPTION 'match_id must not be NULL' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    -- every statement names the match's queue (on Citus, its shard)
    q := mm._match_queue(abandon_match.match_id);
    SELECT * INTO m FROM mm.match x WHERE x.queue_id = q AND x.match_id = abandon_match.match_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'match % does not exist', match_id
            USING ERRCODE = 'undefined_object',
                  HINT = 'Give a match id from mm.claim_matches or mm.open_matches; mm.purge may have removed an old one.';
    END IF;
    IF m.status = 'proposed' THEN
        RAISE EXCEPTION 'match % is in its ready check', match_id
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = CASE WHEN m.accept_until > now() THEN format('Its ready check lasts until %s.', m.accept_until)
                                ELSE format('Its ready check ended at %s; the queue''s next tick dissolves it.', m.accept_until) END,
                  HINT = 'A match never played is not abandoned: mm.decline dissolves it, and so does the end of its ready check.';
    END IF;
    IF m.status = 'dissolved' THEN
        RAISE EXCEPTION 'match % was dissolved', match_id
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'Its ready check failed: it was never played, and it stays dissolved.',
                  HINT = 'Nothing to end: mm.match_players tells which of its rosters went back to the queue.';
    END IF;
    SELECT * INTO prev FROM mm.match_result x WHERE x.queue_id = m.queue_id AND x.match_id = abandon_match.match_id;
    IF FOUND THEN
        IF prev.status = 'reported' THEN
            RAISE EXCEPTION 'match % already has a result', match_id
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      DETAIL = format('It was reported at %s.', prev.reported_at),
                      HINT = 'A reported match is finished: nothing to abandon.';
        END IF;
        RETURN false;
    END IF;
    INSERT INTO mm.match_result (match_id, queue_id, status, result, reported_at)
    VALUES (m.match_id, m.queue_id, 'abandoned', NULL, now());
    UPDATE mm.match x SET status = 'finished' WHERE x.queue_id = m.queue_id AND x.match_id = m.match_id;
    PERFORM mm._end_match_rosters(m.queue_id, m.match_id);
    -- open backfill requests end with the match
    UPDATE mm.backfill b SET status = 'expired', ended_at = now()
    WHERE b.queue_id = m.queue_id AND b.match_id = m.match_id AND b.status = 'open';
    RETURN true;
END
$$;
COMMENT ON FUNCTION mm.abandon_match IS
    'end a match being played that will never be reported (its game server crashed): no rating, ladder or dishonor; the match is finished (its open backfill requests expired), so its players may queue again; true when it abandoned the match, false when it was already abandoned; a reported match, a match in its ready check and a dissolved match are refused (55000) and stay as they are';
