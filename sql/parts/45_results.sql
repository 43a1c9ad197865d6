
-- From match to result: ratings stored per player and rating key, and
-- mm.report_result, which rates a finished match of a queue exactly once
-- (ratings, ladder points, dishonor for desertions, before and after of
-- every player) in the caller's transaction.

-- One row per player and rating key (what the Guild Wars 2 wiki calls a
-- rating type: ranked, unranked, a profession). A queue's "rating" config
-- names the key and the model; the model's columns hold its state: mu and
-- sigma for OpenSkill, rating, rd and vol for Glicko-2. A key may hold both.
CREATE TABLE mm.ratings (
    player_id     bigint NOT NULL,
    key           text NOT NULL,
    mu            float8,
    sigma         float8,
    rating        float8,
    rd            float8,
    vol           float8,
    ladder_points int,
    games         int NOT NULL DEFAULT 0,
    last_played   timestamptz,
    CONSTRAINT ratings_pkey PRIMARY KEY (player_id, key),
    CONSTRAINT ratings_key_check CHECK (key <> ''),
    CONSTRAINT ratings_openskill_check CHECK ((mu IS NULL) = (sigma IS NULL)
        AND mu > '-Infinity' AND mu < 'Infinity' AND sigma > 0 AND sigma < 'Infinity'),
    CONSTRAINT ratings_glicko2_check CHECK ((rating IS NULL) = (rd IS NULL) AND (rd IS NULL) = (vol IS NULL)
        AND rating > '-Infinity' AND rating < 'Infinity' AND rd > 0 AND rd < 'Infinity'
        AND vol > 0 AND vol < 'Infinity'),
    CONSTRAINT ratings_games_check CHECK (games >= 0),
    CONSTRAINT ratings_last_played_check CHECK (isfinite(last_played))
);
COMMENT ON TABLE mm.ratings IS 'ratings kept by mm, one row per player and rating key: OpenSkill mu and sigma, Glicko-2 rating, rd and vol (NULL: not rated by that model yet), ladder points (NULL: none yet), games rated and when the last was reported';
COMMENT ON CONSTRAINT ratings_openskill_check ON mm.ratings IS 'mu and sigma are both set or both NULL; finite; sigma positive';
COMMENT ON CONSTRAINT ratings_glicko2_check ON mm.ratings IS 'rating, rd and vol are all set or all NULL; finite; rd and vol positive';

-- A match's result, at most one per match: its primary key is what makes a
-- report happen exactly once.
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

CREATE TABLE mm.match_result_player (
    match_id        bigint NOT NULL,
    player_id       bigint NOT NULL,
    queue_id        int NOT NULL,
    team            text NOT NULL,
    rank            float8 NOT NULL,
    score           float8,
    weight          float8 NOT NULL,
    deserted        boolean NOT NULL,
    key             text NOT NULL,
    mu_before       float8,
    sigma_before    float8,
    mu_after        float8,
    sigma_after     float8,
    rating_before   float8,
    rd_before       float8,
    vol_before      float8,
    rating_after    float8,
    rd_after        float8,
    vol_after       float8,
    ladder_before   int,
    ladder_awarded  int,
    ladder_after    int,
    dishonor_stacks int,
    CONSTRAINT match_result_player_pkey PRIMARY KEY (match_id, player_id),
    CONSTRAINT match_result_player_match_fkey FOREIGN KEY (match_id)
        REFERENCES mm.match_result ON DELETE CASCADE,
    CONSTRAINT match_result_player_team_check CHECK (team IN ('red', 'blue')),
    CONSTRAINT match_result_player_weight_check CHECK (weight >= 0 AND weight <= 1)
);
COMMENT ON TABLE mm.match_result_player IS 'per player of a reported match: team, rank, score, weight, desertion, the rating before and after (OpenSkill mu/sigma or Glicko-2 rating/rd/vol), ladder points before, awarded and after, dishonor stacks after a desertion';

-- The games of the open Glicko-2 rating period of a rating key (a queue
-- whose rating config says "period": "pending"): one row per player and
-- opposing player of a reported match, scored 1, 0.5 or 0.
-- mm.close_rating_period rates them all at once and removes them.
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

-- A rating row's Glicko-2 rating as of a time: idle deviation growth since
-- it was last played (mm.glicko2_rating_at), applied when read; NULL when
-- the row has none.
CREATE FUNCTION mm._glicko_now(r mm.ratings, at timestamptz)
RETURNS mm.glicko
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = mm, pg_catalog, pg_temp
RETURN CASE WHEN r.rating IS NULL THEN NULL
            WHEN r.last_played IS NULL THEN ROW(r.rating, r.rd, r.vol)::mm.glicko
            ELSE mm.glicko2_rating_at(ROW(r.rating, r.rd, r.vol)::mm.glicko, r.last_played, at) END;
COMMENT ON FUNCTION mm._glicko_now(mm.ratings, timestamptz) IS
    'internal: a mm.ratings row''s Glicko-2 rating at a time, with the idle deviation growth since it was last played';

-- A roster's figures (rating and deviation, on the model's scale) from its
-- players' states, each player's columns in turn (rating_model.h's
-- MmRatingScale.roster).
CREATE FUNCTION mm._roster_figures(rating_config jsonb, state float8[], OUT rating float8, OUT deviation float8)
RETURNS record
AS 'MODULE_PATHNAME', 'mm_roster_figures'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm._roster_figures(jsonb, float8[]) IS
    'internal: a roster''s rating and deviation from its players'' states (each player''s columns in turn) under a queue''s "rating" config: OpenSkill the mean mu and the root mean square of the sigmas, Glicko-2 the mean rating and mean deviation';

-- The rating of a roster from its players' mm.ratings rows (defaults of the
-- queue's "rating" config for players without one). With professions (one
-- per player) and a profession_ratio r > 0, each player's rating is
-- (1 - r) * core + r * profession, field by field (the Guild Wars 2 wiki's
-- Rating/@profession-ratio; mm.glicko2_blend), the profession's rating
-- being the row of key "<key>/<profession>".
CREATE FUNCTION mm.roster_rating(players bigint[], rating_config jsonb DEFAULT '{}', at timestamptz DEFAULT now(),
                                 professions text[] DEFAULT NULL,
                                 OUT rating float8, OUT deviation float8)
RETURNS record
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    rc jsonb := mm.matcher_config(jsonb_build_object('rating', coalesce(rating_config, '{}'))) -> 'rating';
    r float8;
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
    -- each player's state (blended), then the model's roster figures
    -- (mm._roster_figures: OpenSkill the mean mu and the root mean square
    -- sigma; Glicko-2 the mean rating and mean deviation, with idle growth)
    IF rc ->> 'model' = 'openskill' THEN
        SELECT f.rating, f.deviation INTO rating, deviation
        FROM mm._roster_figures(rc, ARRAY(
                 SELECT v FROM (SELECT u.o, coalesce(c.mu, (rc ->> 'mu')::float8) AS mu,
                                       coalesce(c.sigma, (rc ->> 'sigma')::float8) AS sigma,
                                       coalesce(pr.mu, (rc ->> 'mu')::float8) AS pmu,
                                       coalesce(pr.sigma, (rc ->> 'sigma')::float8) AS psigma
                                FROM unnest(players) WITH ORDINALITY u(p, o)
                                LEFT JOIN mm.ratings c ON c.player_id = u.p AND c.key = rc ->> 'key'
                                LEFT JOIN mm.ratings pr ON r > 0 AND pr.player_id = u.p
                                                       AND pr.key = (rc ->> 'key') || '/' || professions[u.o]) x,
                      LATERAL (VALUES (1, (1 - r) * x.mu + r * x.pmu),
                                      (2, (1 - r) * x.sigma + r * x.psigma)) s(c, v)
                 ORDER BY x.o, s.c)) f;
    ELSE
        SELECT f.rating, f.deviation INTO rating, deviation
        FROM mm._roster_figures(rc, ARRAY(
                 SELECT v FROM (SELECT u.o, mm._glicko_now(c, roster_rating.at) AS g,
                                       mm._glicko_now(pr, roster_rating.at) AS pg
                                FROM unnest(players) WITH ORDINALITY u(p, o)
                                LEFT JOIN mm.ratings c ON c.player_id = u.p AND c.key = rc ->> 'key'
                                LEFT JOIN mm.ratings pr ON r > 0 AND pr.player_id = u.p
                                                       AND pr.key = (rc ->> 'key') || '/' || professions[u.o]) x,
                      LATERAL (VALUES (1, (1 - r) * coalesce((x.g).rating, (rc ->> 'rating')::float8)
                                          + r * coalesce((x.pg).rating, (rc ->> 'rating')::float8)),
                                      (2, (1 - r) * coalesce((x.g).rd, (rc ->> 'rd')::float8)
                                          + r * coalesce((x.pg).rd, (rc ->> 'rd')::float8)),
                                      (3, (1 - r) * coalesce((x.g).vol, (rc ->> 'vol')::float8)
                                          + r * coalesce((x.pg).vol, (rc ->> 'vol')::float8))) s(c, v)
                 ORDER BY x.o, s.c)) f;
    END IF;
END
$$;
COMMENT ON FUNCTION mm.roster_rating(bigint[], jsonb, timestamptz, text[]) IS
    'a roster''s rating and deviation from its players'' mm.ratings rows under a queue''s "rating" config, on the model''s scale (mm._roster_figures): OpenSkill, the mean mu and the root mean square of the sigmas; Glicko-2, the mean rating and mean deviation with idle growth; with professions (one per player) each player''s rating blends core and profession ("<key>/<profession>") by profession_ratio';

-- Close the open Glicko-2 rating period of a rating key (Glickman's paper:
-- every player who played is rated with all of the period's games at once,
-- against the opponents' ratings as they stood when the period began).
-- Players who did not play keep their row; their idle deviation growth is
-- applied when their rating is read (mm.glicko2_rating_at from last_played).
CREATE FUNCTION mm.close_rating_period(key text, at timestamptz DEFAULT now())
RETURNS TABLE (player_id bigint, games bigint, rating float8, rd float8, vol float8)
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    k text := close_rating_period.key;
    matches bigint[];
    ids bigint[];
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
    PERFORM FROM mm.ratings r WHERE r.key = k AND r.player_id = ANY (ids) ORDER BY r.player_id FOR UPDATE;
    RETURN QUERY
    WITH g AS (
        DELETE FROM mm.rating_period_game g WHERE g.key = k AND g.match_id = ANY (matches) RETURNING g.*
    ), s AS (
        -- each player's rating when the period began, with idle growth
        -- until then (a rating period of mm reports nothing but its games)
        SELECT r.player_id, (mm._glicko_now(r, greatest(r.last_played, x.first))).*
        FROM mm.ratings r, (SELECT min(g.reported_at) AS first FROM g) x
        WHERE r.key = k AND r.player_id = ANY (ids)
    ), n AS (
        SELECT g.player_id, mm.glicko2_period(p.rating, p.rd, p.vol, o.rating, o.rd, g.score) AS n,
               count(DISTINCT g.match_id) AS games
        FROM g JOIN s p ON p.player_id = g.player_id JOIN s o ON o.player_id = g.opponent_id
        GROUP BY g.player_id
    )
    UPDATE mm.ratings r
       SET rating = (n.n).rating, rd = (n.n).rd, vol = (n.n).vol, games = r.games + n.games,
           last_played = greatest(r.last_played, close_rating_period.at)
      FROM n
     WHERE r.key = k AND r.player_id = n.player_id
    RETURNING r.player_id, n.games, r.rating, r.rd, r.vol;
END
$$;
COMMENT ON FUNCTION mm.close_rating_period(text, timestamptz) IS
    'close the open Glicko-2 rating period of a rating key: rate every player with games in mm.rating_period_game with all of them at once (mm.glicko2_period against the opponents'' ratings when the period began) and remove them; returns the players rated; players who did not play grow their deviation when read';

-- Leaderboards: per rating key, players by conservative rating.
CREATE VIEW mm.leaderboard AS
SELECT x.key, x.player_id, x.ordinal, x.conservative_rating, x.ladder_points, x.games, x.last_played,
       rank() OVER (PARTITION BY x.key ORDER BY coalesce(x.ordinal, x.conservative_rating) DESC) AS position
FROM (SELECT r.key, r.player_id, mm.ordinal(r.mu, r.sigma) AS ordinal,
             (mm._glicko_now(r, now())).rating - 2 * (mm._glicko_now(r, now())).rd AS conservative_rating,
             r.ladder_points, r.games, r.last_played
      FROM mm.ratings r WHERE r.games > 0) x;
COMMENT ON VIEW mm.leaderboard IS
    'players who played, per rating key, ranked by conservative rating: the OpenSkill ordinal mu - 3 sigma, else Glicko-2 rating - 2 rd with idle growth until now';

-- In C (src/results.c): the result is checked against the match's rosters
-- as they are at report time, the rating rows are locked in player-id
-- order, the players are rated in memory and every write is one prepared
-- multi-row statement.
-- The outcome a result states, in one spelling: each team's rank becomes
-- its dense rank among the teams (1 the best, equal ranks equal), so that
-- ranks 0 and 1, 1 and 2, or 10 and 20 of the same order state the same
-- outcome. Everything else (scores, desertions, players) stays as given. A
-- result that is not an object of teams with numeric ranks is left as it
-- is. mm.report_result compares a second report with the first by this.
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
COMMENT ON FUNCTION mm._result_outcome(jsonb) IS
    'internal (mm.report_result): a result with each team''s rank replaced by its dense rank among the teams (1 the best), so that two results stating the same order compare equal';

CREATE FUNCTION mm.report_result(match_id bigint, result jsonb)
RETURNS SETOF mm.match_result_player
AS 'MODULE_PATHNAME', 'mm_report_result'
LANGUAGE C VOLATILE ROWS 10;
COMMENT ON FUNCTION mm.report_result(bigint, jsonb) IS
    'rate a match exactly once with its queue''s "rating" config: OpenSkill or Glicko-2 ratings (with profession_ratio > 0 the players'' profession ratings too; with "period": "pending" the games wait for mm.close_rating_period), ladder points from the match''s prediction, dishonor for desertions; records every player''s before and after (backfilled players included), marks the match finished and its open backfill requests expired; a repeated report of the same outcome (the same result, team ranks compared by their order: ranks 0 and 1 repeat ranks 1 and 2) returns the first outcome, a different one is an error (23505)';

CREATE FUNCTION mm.abandon_match(match_id bigint)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    m mm.match;
    prev mm.match_result;
BEGIN
    IF match_id IS NULL THEN
        RAISE EXCEPTION 'match_id must not be NULL' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    SELECT * INTO m FROM mm.match x WHERE x.match_id = abandon_match.match_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'match % does not exist', match_id USING ERRCODE = 'undefined_object';
    END IF;
    SELECT * INTO prev FROM mm.match_result x WHERE x.match_id = abandon_match.match_id;
    IF FOUND THEN
        IF prev.status = 'reported' THEN
            RAISE EXCEPTION 'match % already has a result', match_id
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      DETAIL = format('It was reported at %s.', prev.reported_at);
        END IF;
        RETURN false;
    END IF;
    INSERT INTO mm.match_result (match_id, queue_id, status, result, reported_at)
    VALUES (m.match_id, m.queue_id, 'abandoned', NULL, now());
    UPDATE mm.match x SET status = 'finished' WHERE x.match_id = m.match_id;
    -- open backfill requests end with the match
    UPDATE mm.backfill b SET status = 'expired', ended_at = now()
    WHERE b.match_id = m.match_id AND b.status = 'open';
    RETURN true;
END
$$;
COMMENT ON FUNCTION mm.abandon_match(bigint) IS
    'end a match that will never be reported (its game server crashed): no rating, ladder or dishonor; the match is finished (its open backfill requests expired), so its players may queue again; true when it abandoned the match, false when it was already abandoned; a reported match is an error';
