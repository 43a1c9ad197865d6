
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

SELECT pg_catalog.pg_extension_config_dump('mm.ratings', '');
SELECT pg_catalog.pg_extension_config_dump('mm.match_result', '');
SELECT pg_catalog.pg_extension_config_dump('mm.match_result_player', '');

-- Check a result and return one row per player of the match: team, rank
-- (from the teams' ranks, or from their scores: higher is better), the
-- team's score, the player's weight and score, whether the player deserted.
CREATE FUNCTION mm._result_players(match_id bigint, result jsonb)
RETURNS TABLE (player_id bigint, team text, rank float8, team_score float8,
               weight float8, score float8, deserted boolean)
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    t_obj jsonb := result -> 'teams';
    p_obj jsonb := coalesce(result -> 'players', '{}');
    k text;
    t text;
    v jsonb;
    n_rank int;
    n_score int;
BEGIN
    IF jsonb_typeof(result) IS DISTINCT FROM 'object' OR jsonb_typeof(t_obj) IS DISTINCT FROM 'object'
       OR jsonb_typeof(p_obj) <> 'object' THEN
        RAISE EXCEPTION 'result must be an object with an object "teams"'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Pass {"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}, optionally with "players": {"<id>": {"weight": 0.5}}.';
    END IF;
    FOR k IN SELECT jsonb_object_keys(result) LOOP
        IF k NOT IN ('teams', 'players') THEN
            RAISE EXCEPTION 'result key "%" is unknown', k
                USING ERRCODE = 'invalid_parameter_value', HINT = 'A result has keys "teams" and "players".';
        END IF;
    END LOOP;
    FOR t IN SELECT DISTINCT r.team FROM mm.match_roster r WHERE r.match_id = _result_players.match_id LOOP
        IF jsonb_typeof(t_obj -> t) IS DISTINCT FROM 'object' THEN
            RAISE EXCEPTION 'result has no team "%"', t
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'Give every team of the match an object with its "rank" or "score".';
        END IF;
    END LOOP;
    FOR t, v IN SELECT * FROM jsonb_each(t_obj) LOOP
        IF NOT EXISTS (SELECT FROM mm.match_roster r WHERE r.match_id = _result_players.match_id AND r.team = t) THEN
            RAISE EXCEPTION 'match % has no team "%"', match_id, t
                USING ERRCODE = 'invalid_parameter_value', HINT = 'The teams of a match are "red" and "blue".';
        END IF;
        FOR k IN SELECT jsonb_object_keys(v) LOOP
            IF k NOT IN ('rank', 'score', 'desertions') THEN
                RAISE EXCEPTION 'result key "teams.%.%" is unknown', t, k
                    USING ERRCODE = 'invalid_parameter_value', HINT = 'A team has keys "rank", "score" and "desertions".';
            END IF;
        END LOOP;
        IF (v ? 'rank' AND jsonb_typeof(v -> 'rank') <> 'number')
           OR (v ? 'score' AND jsonb_typeof(v -> 'score') <> 'number')
           OR (v ? 'desertions' AND jsonb_typeof(v -> 'desertions') <> 'array') THEN
            RAISE EXCEPTION 'team "%" of the result has a value of the wrong type', t
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = '"rank" and "score" are numbers, "desertions" an array of player ids.';
        END IF;
        IF EXISTS (SELECT FROM jsonb_array_elements(coalesce(v -> 'desertions', '[]')) d
                   WHERE jsonb_typeof(d) <> 'number'
                      OR NOT (d::text)::numeric = ANY (ARRAY(SELECT unnest(r.players)::numeric FROM mm.match_roster r
                                                              WHERE r.match_id = _result_players.match_id AND r.team = t))) THEN
            RAISE EXCEPTION 'desertions of team "%" must be players of that team', t
                USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The desertions are %s.', v -> 'desertions');
        END IF;
    END LOOP;
    SELECT count(*) FILTER (WHERE e.value ? 'rank'), count(*) FILTER (WHERE e.value ? 'score')
      INTO n_rank, n_score FROM jsonb_each(t_obj) e;
    IF n_rank <> 2 AND n_score <> 2 THEN
        RAISE EXCEPTION 'every team of the result needs a rank, or every team a score'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Rank 1 is the winner; equal ranks are a draw. Without ranks, the higher score wins.';
    END IF;
    FOR k, v IN SELECT * FROM jsonb_each(p_obj) LOOP
        IF k !~ '^-?[0-9]{1,19}$' OR NOT EXISTS (SELECT FROM mm.match_roster r
                                                WHERE r.match_id = _result_players.match_id
                                                  AND k::numeric = ANY (r.players::numeric[])) THEN
            RAISE EXCEPTION 'result names player "%" who is not in match %', k, match_id
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        IF jsonb_typeof(v) <> 'object' OR EXISTS (SELECT FROM jsonb_object_keys(v) x WHERE x NOT IN ('weight', 'score'))
           OR (v ? 'weight' AND jsonb_typeof(v -> 'weight') <> 'number')
           OR (v ? 'score' AND jsonb_typeof(v -> 'score') <> 'number') THEN
            RAISE EXCEPTION 'player "%" of the result must be an object with numbers "weight" and "score"', k
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        IF v ? 'weight' AND NOT ((v ->> 'weight')::numeric BETWEEN 0 AND 1) THEN
            RAISE EXCEPTION 'weight of player % must be between 0 and 1', k
                USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The value is %s.', v -> 'weight'),
                      HINT = 'The weight is the share of the match the player played.';
        END IF;
    END LOOP;
    RETURN QUERY
    WITH tm AS (
        SELECT e.key AS team, (e.value ->> 'rank')::float8 AS rank, (e.value ->> 'score')::float8 AS score,
               e.value -> 'desertions' AS desertions
        FROM jsonb_each(t_obj) e
    ), tr AS (
        SELECT tm.*, CASE WHEN n_rank = 2 THEN tm.rank
                          ELSE 1 + (SELECT count(*) FROM tm o WHERE o.score > tm.score) END AS r
        FROM tm
    )
    SELECT p.id, tr.team, tr.r::float8, tr.score,
           coalesce((p_obj -> p.id::text ->> 'weight')::float8, 1),
           (p_obj -> p.id::text ->> 'score')::float8,
           coalesce(tr.desertions @> to_jsonb(p.id), false)
    FROM mm.match_roster r
    JOIN tr ON tr.team = r.team
    CROSS JOIN LATERAL unnest(r.players) AS p(id)
    WHERE r.match_id = _result_players.match_id
    ORDER BY p.id;
END
$$;
COMMENT ON FUNCTION mm._result_players(bigint, jsonb) IS
    'internal: check a result of mm.report_result against its match; one row per player in player-id order: team, rank (a team''s rank, or from the scores, higher first), team score, weight, score, deserted';

-- Lock the rating rows of players (creating missing ones) in player-id
-- order, so that concurrent reports that share players wait for each
-- other instead of losing an update, and never deadlock.
CREATE FUNCTION mm._lock_ratings(key text, player_ids bigint[])
RETURNS SETOF mm.ratings
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    -- a match has at most two teams of 1000 players
    IF cardinality(player_ids) > 2000 THEN
        RAISE EXCEPTION 'too many players'
            USING ERRCODE = 'program_limit_exceeded',
                  DETAIL = format('%s players were given; a match has at most 2000.', cardinality(player_ids));
    END IF;
    INSERT INTO mm.ratings AS r (player_id, key)
    SELECT DISTINCT p, _lock_ratings.key FROM unnest(player_ids) p ORDER BY p
    ON CONFLICT ON CONSTRAINT ratings_pkey DO NOTHING;
    RETURN QUERY
    SELECT * FROM mm.ratings r
    WHERE r.key = _lock_ratings.key AND r.player_id = ANY (player_ids)
    ORDER BY r.player_id
    FOR UPDATE;
END
$$;
COMMENT ON FUNCTION mm._lock_ratings(text, bigint[]) IS
    'internal: lock the mm.ratings rows of the players for a key, in player-id order, inserting missing ones first';

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

-- The rating of a roster from its players' mm.ratings rows (defaults of the
-- queue's "rating" config for players without one).
CREATE FUNCTION mm.roster_rating(rating_config jsonb, players bigint[], at timestamptz DEFAULT now(),
                                 OUT rating float8, OUT deviation float8)
RETURNS record
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    rc jsonb := mm.matcher_config(jsonb_build_object('rating', coalesce(rating_config, '{}'))) -> 'rating';
BEGIN
    IF players IS NULL OR cardinality(players) = 0 OR at IS NULL OR NOT isfinite(at) THEN
        RAISE EXCEPTION 'players must be a non-empty array and at a finite time'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF cardinality(players) > 1000 THEN
        RAISE EXCEPTION 'roster is larger than a team can be'
            USING ERRCODE = 'program_limit_exceeded',
                  DETAIL = format('The roster has %s players; teams have at most 1000.', cardinality(players));
    END IF;
    IF rc ->> 'model' = 'openskill' THEN
        -- the IMS party rating: weighted max and median mu minus 3 mean sigma
        SELECT mm.party_rating(array_agg(coalesce(r.mu, (rc ->> 'mu')::float8)),
                               array_agg(coalesce(r.sigma, (rc ->> 'sigma')::float8))), 0
          INTO rating, deviation
        FROM unnest(players) p
        LEFT JOIN mm.ratings r ON r.player_id = p AND r.key = rc ->> 'key';
    ELSE
        -- Glicko-2: the mean rating and mean deviation (their difference is
        -- the mean effective rating), with idle growth
        SELECT avg(coalesce((g).rating, (rc ->> 'rating')::float8)), avg(coalesce((g).rd, (rc ->> 'rd')::float8))
          INTO rating, deviation
        FROM (SELECT mm._glicko_now(r, roster_rating.at) AS g
              FROM unnest(players) p
              LEFT JOIN mm.ratings r ON r.player_id = p AND r.key = rc ->> 'key') x;
    END IF;
END
$$;
COMMENT ON FUNCTION mm.roster_rating(jsonb, bigint[], timestamptz) IS
    'a roster''s rating and deviation from its players'' mm.ratings rows under a queue''s "rating" config: OpenSkill, the IMS party rating (mm.party_rating) and deviation 0; Glicko-2, the mean rating and mean deviation with idle growth';

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

CREATE FUNCTION mm.report_result(match_id bigint, result jsonb)
RETURNS SETOF mm.match_result_player
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    m mm.match;
    prev mm.match_result;
    cfg jsonb;
    rc jsonb;
    rkey text;
    season jsonb;
    at timestamptz := now();
    ids bigint[];
BEGIN
    PERFORM mm._require_primary('mm.report_result');
    IF match_id IS NULL OR result IS NULL THEN
        RAISE EXCEPTION 'match_id and result must not be NULL'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    -- one report at a time per match: the second waits, then sees the first
    SELECT * INTO m FROM mm.match x WHERE x.match_id = report_result.match_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'match % does not exist', match_id
            USING ERRCODE = 'undefined_object', HINT = 'Report the match_id that mm.claim_matches delivered.';
    END IF;
    SELECT * INTO prev FROM mm.match_result x WHERE x.match_id = report_result.match_id;
    IF FOUND THEN
        IF prev.status = 'abandoned' THEN
            RAISE EXCEPTION 'match % was abandoned', match_id
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      DETAIL = format('mm.abandon_match ended it at %s.', prev.reported_at);
        ELSIF prev.result <> result THEN
            RAISE EXCEPTION 'match % already has a different result', match_id
                USING ERRCODE = 'unique_violation',
                      DETAIL = format('The reported result is %s.', prev.result),
                      HINT = 'A match is rated once; report the same result again to read its outcome.';
        END IF;
        RETURN QUERY SELECT * FROM mm.match_result_player p
                     WHERE p.match_id = report_result.match_id ORDER BY p.player_id;
        RETURN;
    END IF;
    IF m.status <> 'matched' THEN
        RAISE EXCEPTION 'match % is %', match_id, m.status
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    cfg := mm.matcher_config((SELECT q.config FROM mm.queue q WHERE q.queue_id = m.queue_id));
    rc := cfg -> 'rating';
    rkey := rc ->> 'key';
    season := jsonb_strip_nulls(jsonb_build_object('start', rc -> 'season_start', 'end', rc -> 'season_end'));

    -- a work table per session, emptied at commit
    IF pg_catalog.to_regclass('pg_temp.mm_result_work') IS NULL THEN
        CREATE TEMP TABLE pg_temp.mm_result_work (
            player_id bigint, team text, rank float8, team_score float8, weight float8, score float8,
            deserted boolean, ord int, mu float8, sigma float8, rating float8, rd float8, vol float8,
            ladder int, mu2 float8, sigma2 float8, rating2 float8, rd2 float8, vol2 float8,
            awarded int, ladder2 int, stacks int) ON COMMIT DELETE ROWS;
    END IF;
    DELETE FROM pg_temp.mm_result_work;
    INSERT INTO pg_temp.mm_result_work (player_id, team, rank, team_score, weight, score, deserted, ord)
    SELECT rp.*, row_number() OVER (ORDER BY rp.player_id)
    FROM mm._result_players(report_result.match_id, result) rp;
    ids := ARRAY(SELECT w.player_id FROM pg_temp.mm_result_work w ORDER BY w.player_id);

    -- the rating state before, locked in player-id order
    UPDATE pg_temp.mm_result_work w
       SET mu = coalesce(l.mu, (rc ->> 'mu')::float8), sigma = coalesce(l.sigma, (rc ->> 'sigma')::float8),
           rating = coalesce((l.g).rating, (rc ->> 'rating')::float8), rd = coalesce((l.g).rd, (rc ->> 'rd')::float8),
           vol = coalesce((l.g).vol, (rc ->> 'vol')::float8), ladder = l.ladder_points
      FROM (SELECT x.*, mm._glicko_now(x, at) AS g FROM mm._lock_ratings(rkey, ids) x) l
     WHERE l.player_id = w.player_id;

    IF rc ->> 'model' = 'openskill' THEN
        UPDATE pg_temp.mm_result_work w SET mu2 = o.mu, sigma2 = o.sigma
          FROM (SELECT * FROM mm.openskill_rate(
                    ARRAY(SELECT CASE x.team WHEN 'red' THEN 1 ELSE 2 END FROM pg_temp.mm_result_work x ORDER BY x.ord),
                    ARRAY(SELECT x.rank FROM pg_temp.mm_result_work x ORDER BY x.ord),
                    ARRAY(SELECT x.mu FROM pg_temp.mm_result_work x ORDER BY x.ord),
                    ARRAY(SELECT x.sigma FROM pg_temp.mm_result_work x ORDER BY x.ord),
                    model => rc ->> 'openskill_model', beta => (rc ->> 'beta')::float8,
                    kappa => (rc ->> 'kappa')::float8, tau => (rc ->> 'tau')::float8,
                    weight => ARRAY(SELECT x.weight FROM pg_temp.mm_result_work x ORDER BY x.ord))) o
         WHERE o.idx = w.ord;
    ELSE
        -- Glicko-2, one game: each player against every opposing player
        UPDATE pg_temp.mm_result_work w SET rating2 = (g).rating, rd2 = (g).rd, vol2 = (g).vol
          FROM (SELECT x.player_id,
                       mm.glicko2_rate(ROW(x.rating, x.rd, x.vol)::mm.glicko,
                                       ARRAY(SELECT o.rating FROM pg_temp.mm_result_work o WHERE o.team <> x.team ORDER BY o.ord),
                                       ARRAY(SELECT o.rd FROM pg_temp.mm_result_work o WHERE o.team <> x.team ORDER BY o.ord),
                                       ARRAY(SELECT CASE WHEN x.rank < o.rank THEN 1.0 WHEN x.rank = o.rank THEN 0.5 ELSE 0.0 END
                                             FROM pg_temp.mm_result_work o WHERE o.team <> x.team ORDER BY o.ord)) AS g
                FROM pg_temp.mm_result_work x) n
         WHERE n.player_id = w.player_id;
    END IF;

    -- ladder points from the match's prediction, with the team's final score
    IF (rc ->> 'ladder')::boolean THEN
        UPDATE pg_temp.mm_result_work w
           SET awarded = mm.ladder_points(CASE w.team WHEN 'red' THEN m.red_odds ELSE m.blue_odds END,
                                          w.team_score,
                                          CASE WHEN w.deserted THEN 'desertion'
                                               WHEN w.rank < (SELECT min(o.rank) FROM pg_temp.mm_result_work o WHERE o.team <> w.team)
                                               THEN 'victory' ELSE 'defeat' END,
                                          season, at)
         WHERE w.team_score IS NOT NULL;
        UPDATE pg_temp.mm_result_work w SET ladder2 = (mm.ladder_apply(w.ladder, w.awarded, season)).ladder_points
         WHERE w.awarded IS NOT NULL;
    END IF;

    -- dishonor for desertions, in player-id order
    IF rc ->> 'desertion_reason' IS NOT NULL THEN
        UPDATE pg_temp.mm_result_work w SET stacks = d.stacks
          FROM (SELECT x.player_id, (mm.dishonor(x.player_id, rc ->> 'desertion_reason', at)).stacks
                FROM pg_temp.mm_result_work x WHERE x.deserted ORDER BY x.player_id) d
         WHERE d.player_id = w.player_id;
    END IF;

    UPDATE mm.ratings r
       SET mu = coalesce(w.mu2, r.mu), sigma = coalesce(w.sigma2, r.sigma),
           rating = coalesce(w.rating2, r.rating), rd = coalesce(w.rd2, r.rd), vol = coalesce(w.vol2, r.vol),
           ladder_points = coalesce(w.ladder2, r.ladder_points),
           games = r.games + 1, last_played = at
      FROM pg_temp.mm_result_work w
     WHERE r.key = rkey AND r.player_id = w.player_id;

    INSERT INTO mm.match_result (match_id, queue_id, status, result, reported_at)
    VALUES (m.match_id, m.queue_id, 'reported', result, at);
    INSERT INTO mm.match_result_player
    SELECT m.match_id, w.player_id, m.queue_id, w.team, w.rank, w.score, w.weight, w.deserted, rkey,
           CASE WHEN w.mu2 IS NOT NULL THEN w.mu END, CASE WHEN w.mu2 IS NOT NULL THEN w.sigma END, w.mu2, w.sigma2,
           CASE WHEN w.rating2 IS NOT NULL THEN w.rating END, CASE WHEN w.rating2 IS NOT NULL THEN w.rd END,
           CASE WHEN w.rating2 IS NOT NULL THEN w.vol END, w.rating2, w.rd2, w.vol2,
           w.ladder, w.awarded, w.ladder2, w.stacks
    FROM pg_temp.mm_result_work w ORDER BY w.player_id;
    UPDATE mm.match x SET status = 'finished' WHERE x.match_id = m.match_id;
    -- open backfill requests end with the match
    UPDATE mm.backfill b SET status = 'expired', ended_at = at
    WHERE b.match_id = m.match_id AND b.status = 'open';
    DELETE FROM pg_temp.mm_result_work;

    RETURN QUERY SELECT * FROM mm.match_result_player p
                 WHERE p.match_id = report_result.match_id ORDER BY p.player_id;
END
$$;
COMMENT ON FUNCTION mm.report_result(bigint, jsonb) IS
    'rate a match exactly once with its queue''s "rating" config: OpenSkill or Glicko-2 ratings, ladder points from the match''s prediction, dishonor for desertions; records every player''s before and after (backfilled players included), marks the match finished and its open backfill requests expired; a repeated identical report returns the first outcome, a different one is an error (23505)';

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
