-- Analytics: rating histories, calibration, the IMS beta tuning line and
-- maximum-likelihood fitting.
\set VERBOSITY default
\set SHOW_CONTEXT never

-- A fixed synthetic history: 400 matches among 30 players, 2-3 teams of 1-2
SELECT setseed(0.13);
CREATE TABLE an_history (match_id int, player_id bigint, team int, rank int);
DO $$
DECLARE
    pool bigint[];
    nteams int;
    size int;
    k int;
BEGIN
    FOR m IN 1..400 LOOP
        SELECT array_agg(p ORDER BY random()) INTO pool FROM generate_series(1, 30) p;
        nteams := 2 + floor(random() * 2)::int;
        size := 1 + floor(random() * 2)::int;
        k := 1;
        FOR t IN 1..nteams LOOP
            INSERT INTO an_history SELECT m, pool[k + j], t, 0 FROM generate_series(0, size - 1) j;
            k := k + size;
        END LOOP;
    END LOOP;
END $$;
UPDATE an_history h SET rank = x.rank
FROM (SELECT match_id, team, 1 + floor(random() * 3)::int AS rank FROM an_history GROUP BY match_id, team) x
WHERE h.match_id = x.match_id AND h.team = x.team;
SELECT count(DISTINCT match_id) AS matches, count(*) AS rows FROM an_history;

-- OpenSkill histories, every model: the last row per player equals the
-- replay's final rating, each before equals the previous after, the first
-- before is the initial rating, and the win probabilities of a match add to 1.
SELECT m AS model,
       (SELECT count(*) FROM (
            SELECT DISTINCT ON (player_id) player_id, mu_after, sigma_after
            FROM mm.openskill_history('SELECT * FROM an_history ORDER BY match_id', model => m)
            ORDER BY player_id, game DESC) l
        JOIN mm.openskill_replay('SELECT * FROM an_history ORDER BY match_id', model => m) r USING (player_id)
        WHERE l.mu_after = r.mu AND l.sigma_after = r.sigma) AS last_equals_final_of_30,
       (SELECT count(*) FILTER (WHERE prev_mu IS NULL AND (mu_before, sigma_before) <> (25, 25.0 / 3)
                                   OR prev_mu IS NOT NULL AND (mu_before, sigma_before) <> (prev_mu, prev_sigma))
        FROM (SELECT mu_before, sigma_before,
                     lag(mu_after) OVER w AS prev_mu, lag(sigma_after) OVER w AS prev_sigma
              FROM mm.openskill_history('SELECT * FROM an_history ORDER BY match_id', model => m)
              WINDOW w AS (PARTITION BY player_id ORDER BY game)) x) AS before_not_previous_after,
       (SELECT count(*) FROM (
            SELECT game FROM (SELECT DISTINCT game, team, win_probability
                               FROM mm.openskill_history('SELECT * FROM an_history ORDER BY match_id', model => m)) t
            GROUP BY game HAVING abs(sum(win_probability) - 1) > 1e-12) x) AS probabilities_not_adding_to_1
FROM unnest(ARRAY['plackett_luce', 'bradley_terry_full', 'bradley_terry_part',
                  'thurstone_mosteller_full', 'thurstone_mosteller_part']) m;

-- The win probability is mm.openskill_predict_win's with the ratings before
CREATE TABLE an_os AS SELECT * FROM mm.openskill_history('SELECT * FROM an_history WHERE match_id <= 50 ORDER BY match_id');
SELECT count(*) AS rows_checked, count(*) FILTER (WHERE p.probability <> h.win_probability) AS differing
FROM an_os h
JOIN (SELECT g.game, w.team, w.probability
      FROM (SELECT game, array_agg(team::int ORDER BY team, player_id) AS team,
                   array_agg(mu_before ORDER BY team, player_id) AS mu,
                   array_agg(sigma_before ORDER BY team, player_id) AS sigma
            FROM an_os GROUP BY game) g,
           mm.openskill_predict_win(g.team, g.mu, g.sigma) w) p
  ON p.game = h.game AND p.team = h.team;

-- Glicko-2 histories from 1v1 games of the same history's first two teams
CREATE TABLE an_games AS
SELECT a.player_id, b.player_id AS opponent_id,
       CASE WHEN a.rank < b.rank THEN 1 WHEN a.rank > b.rank THEN 0 ELSE 0.5 END::float8 AS score,
       '2024-01-01 00:00+00'::timestamptz + a.match_id * interval '97 minutes' AS played_at
FROM an_history a JOIN an_history b ON a.match_id = b.match_id AND a.team = 1 AND b.team = 2
WHERE NOT EXISTS (SELECT FROM an_history c WHERE c.match_id = a.match_id AND c.team = a.team AND c.player_id < a.player_id)
  AND NOT EXISTS (SELECT FROM an_history c WHERE c.match_id = b.match_id AND c.team = b.team AND c.player_id < b.player_id);
SELECT count(*) AS games, count(DISTINCT date_trunc('day', played_at)) AS days FROM an_games;
-- per game: the last after equals the final rating and volatility (the
-- final deviation also grows for the whole days idle up to the last game);
-- per period: the same as of each player's last period
SELECT per_game,
       (SELECT count(*) FROM (
            SELECT DISTINCT ON (player_id) player_id, rating_after, rd_after, vol_after
            FROM mm.glicko2_history('SELECT * FROM an_games', '1 day', per_game => per_game)
            ORDER BY player_id, game DESC) l
        JOIN mm.glicko2_replay('SELECT * FROM an_games', '1 day', per_game => per_game) r USING (player_id)
        WHERE l.rating_after = r.rating AND l.vol_after = r.vol) AS last_equals_final,
       (SELECT count(*) FILTER (WHERE prev IS NULL AND before <> (1500, 350, 0.06)::mm.glicko
                                   OR prev IS NOT NULL AND before <> prev)
        FROM (SELECT (rating_before, rd_before, vol_before)::mm.glicko AS before,
                     lag((rating_after, rd_after, vol_after)::mm.glicko) OVER w AS prev
              FROM (SELECT DISTINCT ON (player_id, rating_after, rd_after, vol_after) *
                    FROM mm.glicko2_history('SELECT * FROM an_games', '1 day', per_game => per_game)
                    ORDER BY player_id, rating_after, rd_after, vol_after, game) d
              WINDOW w AS (PARTITION BY player_id ORDER BY game)) x) AS before_not_previous_after
FROM (VALUES (true), (false)) v(per_game);
-- per game, the expected score is mm.glicko2_expect of the ratings the game used
SELECT count(*) AS games_checked,
       count(*) FILTER (WHERE abs(h.expected + o.expected - 1) > 1e-12) AS not_complementary
FROM mm.glicko2_history('SELECT * FROM an_games', '1 day', per_game => true) h
JOIN mm.glicko2_history('SELECT * FROM an_games', '1 day', per_game => true) o
  ON o.game = h.game AND o.player_id = h.opponent_id;

-- A games query in played_at order is read as it comes; out of order, the
-- replay starts again from the sorted query: the same ratings, history rows
-- and calibration either way
SELECT (SELECT count(*) FROM mm.glicko2_replay('SELECT * FROM an_games ORDER BY played_at', '1 day', per_game => true) a
        JOIN mm.glicko2_replay('SELECT * FROM an_games ORDER BY played_at DESC', '1 day', per_game => true) b USING (player_id)
        WHERE (a.rating, a.rd, a.vol, a.games) = (b.rating, b.rd, b.vol, b.games)) AS identical_of_30,
       (SELECT count(*) FROM mm.glicko2_history('SELECT * FROM an_games ORDER BY played_at DESC', '1 day') b
        JOIN mm.glicko2_history('SELECT * FROM an_games ORDER BY played_at', '1 day') a USING (game, player_id)
        WHERE (a.rating_after, a.expected) = (b.rating_after, b.expected)) AS history_rows_identical_of_800,
       mm.glicko2_calibration('SELECT * FROM an_games ORDER BY played_at DESC', '1 day')
       = mm.glicko2_calibration('SELECT * FROM an_games ORDER BY played_at', '1 day') AS calibration_equal;
-- errors name the row of the caller's query, sorted or not
SELECT * FROM mm.glicko2_replay('SELECT player_id, CASE WHEN played_at = (SELECT min(played_at) FROM an_games) THEN NULL ELSE opponent_id END, score, played_at FROM an_games ORDER BY played_at DESC');
\echo :LAST_ERROR_SQLSTATE

-- Team Glicko-2: 1v1 games written as teams of one rate exactly as
-- glicko2_replay, with either kind of opponent, game by game and in periods
CREATE TABLE an_team_games AS
SELECT g.n AS match, g.player_id, 1 AS team, CASE WHEN g.score = 0 THEN 2 ELSE 1 END AS rank, g.played_at
FROM (SELECT row_number() OVER (ORDER BY played_at) AS n, * FROM an_games) g
UNION ALL
SELECT g.n, g.opponent_id, 2, CASE WHEN g.score = 1 THEN 2 ELSE 1 END, g.played_at
FROM (SELECT row_number() OVER (ORDER BY played_at) AS n, * FROM an_games) g;
SELECT per_game, opponents,
       count(*) FILTER (WHERE (a.rating, a.rd, a.vol, a.games, a.last_played) = (b.rating, b.rd, b.vol, b.games, b.last_played)) AS identical_of_30
FROM (VALUES (true), (false)) v(per_game), (VALUES ('composite'), ('each')) w(opponents),
     LATERAL mm.glicko2_replay('SELECT * FROM an_games', '1 day', per_game => per_game) a
     JOIN LATERAL mm.glicko2_team_replay('SELECT * FROM an_team_games', '1 day', per_game => per_game,
                                         opponents => opponents) b USING (player_id)
GROUP BY 1, 2 ORDER BY 1, 2;
-- 2v2 by hand: 1 and 2 beat 3 and 4 (all new), then 1 and 3 beat 2 and 4
-- the same hour; composite: mean rating, root mean square deviation
CREATE TABLE an_2v2 (match int, player_id int, team int, rank int, played_at timestamptz);
INSERT INTO an_2v2 VALUES (1, 1, 1, 1, '2024-01-01 10:00+00'), (1, 2, 1, 1, '2024-01-01 10:00+00'),
                          (1, 3, 2, 2, '2024-01-01 10:00+00'), (1, 4, 2, 2, '2024-01-01 10:00+00'),
                          (2, 1, 1, 1, '2024-01-01 10:30+00'), (2, 3, 1, 1, '2024-01-01 10:30+00'),
                          (2, 2, 2, 2, '2024-01-01 10:30+00'), (2, 4, 2, 2, '2024-01-01 10:30+00');
WITH m1 AS (SELECT mm.glicko2_rate((1500, 350, 0.06), '{1500}', '{350}', '{1}') AS w,
                   mm.glicko2_rate((1500, 350, 0.06), '{1500}', '{350}', '{0}') AS l,
                   mm.glicko2_rate((1500, 350, 0.06), '{1500,1500}', '{350,350}', '{1,1}') AS ew,
                   mm.glicko2_rate((1500, 350, 0.06), '{1500,1500}', '{350,350}', '{0,0}') AS el),
m2 AS (SELECT mm.glicko2_rate(w, ARRAY[((w).rating + (l).rating) / 2], ARRAY[sqrt(((w).rd ^ 2 + (l).rd ^ 2) / 2)], '{1}') AS p1,
              mm.glicko2_rate(w, ARRAY[((w).rating + (l).rating) / 2], ARRAY[sqrt(((w).rd ^ 2 + (l).rd ^ 2) / 2)], '{0}') AS p2,
              mm.glicko2_rate(l, ARRAY[((w).rating + (l).rating) / 2], ARRAY[sqrt(((w).rd ^ 2 + (l).rd ^ 2) / 2)], '{1}') AS p3,
              mm.glicko2_rate(l, ARRAY[((w).rating + (l).rating) / 2], ARRAY[sqrt(((w).rd ^ 2 + (l).rd ^ 2) / 2)], '{0}') AS p4,
              mm.glicko2_rate(ew, ARRAY[(ew).rating, (el).rating], ARRAY[(ew).rd, (el).rd], '{1,1}') AS e1,
              mm.glicko2_rate(el, ARRAY[(ew).rating, (el).rating], ARRAY[(ew).rd, (el).rd], '{0,0}') AS e4
       FROM m1)
SELECT c.player_id,
       (c.rating, c.rd, c.vol)::mm.glicko = CASE c.player_id WHEN 1 THEN p1 WHEN 2 THEN p2 WHEN 3 THEN p3 ELSE p4 END AS composite_by_hand,
       (e.rating, e.rd, e.vol)::mm.glicko = CASE e.player_id WHEN 1 THEN e1 WHEN 4 THEN e4 END AS each_by_hand
FROM m2,
     mm.glicko2_team_replay('SELECT * FROM public.an_2v2', '1 day', per_game => true) c
     JOIN mm.glicko2_team_replay('SELECT * FROM public.an_2v2', '1 day', per_game => true, opponents => 'each') e USING (player_id)
ORDER BY 1;
SELECT * FROM mm.glicko2_team_replay('SELECT match, player_id, team, rank, played_at + player_id * interval ''1 s'' FROM an_2v2');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.glicko2_team_replay('SELECT match, player_id, 1, 1, played_at FROM an_2v2');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.glicko2_team_replay('SELECT * FROM an_2v2', opponents => 'all');
\echo :LAST_ERROR_SQLSTATE

-- Calibration equals the same figures written out longhand
CREATE TABLE an_pred AS
SELECT i, (0.02 + 0.96 * ((i * 37) % 101) / 100.0)::float8 AS p,
       CASE WHEN i % 7 = 0 THEN 0.5 WHEN ((i * 53) % 97) / 97.0 < 0.02 + 0.96 * ((i * 37) % 101) / 100.0 THEN 1 ELSE 0 END::float8 AS y
FROM generate_series(1, 500) i;
WITH c AS (SELECT mm.calibration(p, y, 5) AS c FROM an_pred),
longhand AS (
    SELECT count(*) AS n, avg((p - y) ^ 2) AS brier,
           avg(-(y * ln(p) + (1 - y) * ln(1 - p))) AS log_loss,
           avg(CASE WHEN p > 0.5 THEN y WHEN p < 0.5 THEN 1 - y ELSE 0.5 END) AS accuracy
    FROM an_pred)
SELECT (c ->> 'n')::bigint = n AS n_equal,
       abs((c ->> 'brier')::float8 - brier) < 1e-12 AS brier_equal,
       abs((c ->> 'log_loss')::float8 - log_loss) < 1e-12 AS log_loss_equal,
       abs((c ->> 'accuracy')::float8 - accuracy) < 1e-12 AS accuracy_equal
FROM c, longhand;
SELECT r.bin, r.lo, r.hi, r.n = l.n AS n_equal,
       abs(r.predicted - l.predicted) < 1e-12 AS predicted_equal,
       abs(r.observed - l.observed) < 1e-12 AS observed_equal
FROM mm.reliability((SELECT mm.calibration(p, y, 5) FROM an_pred)) r
JOIN (SELECT least(floor(p * 5), 4)::int + 1 AS bin, count(*) AS n, avg(p) AS predicted, avg(y) AS observed
      FROM an_pred GROUP BY 1) l USING (bin)
ORDER BY bin;
-- NULL pairs are skipped; no rows gives n 0; parallel-safe pieces combine
SELECT mm.calibration(p, y) ->> 'n' AS n_without_nulls
FROM (VALUES (0.7, 1), (NULL, 1), (0.4, NULL)) v(p, y);
SELECT mm.calibration(p, y) ->> 'n' AS n_empty, mm.calibration(p, y) ->> 'brier' AS brier_empty
FROM an_pred WHERE false;

-- openskill_calibration: the favoured team of each match, as the aggregate
-- over the history rows computes it
WITH h AS (SELECT * FROM mm.openskill_history('SELECT * FROM an_history ORDER BY match_id')),
fav AS (
    SELECT DISTINCT ON (game) game, team, rank, win_probability
    FROM h ORDER BY game, win_probability DESC, team),
per_match AS (
    SELECT f.game, f.win_probability AS p,
           CASE WHEN EXISTS (SELECT FROM h WHERE h.game = f.game AND h.rank < f.rank) THEN 0
                ELSE 1.0 / (SELECT count(DISTINCT h.team) FROM h WHERE h.game = f.game AND h.rank = f.rank) END AS y
    FROM fav f),
agg AS (SELECT mm.calibration(p, y) AS a FROM per_match),
one AS (SELECT mm.openskill_calibration('SELECT * FROM an_history ORDER BY match_id') AS o)
SELECT (o ->> 'n') = (a ->> 'n') AS n_equal,
       abs((o ->> 'brier')::float8 - (a ->> 'brier')::float8) < 1e-12 AS brier_equal,
       abs((o ->> 'log_loss')::float8 - (a ->> 'log_loss')::float8) < 1e-12 AS log_loss_equal,
       (o -> 'bins') -> 9 ->> 'n' = (a -> 'bins') -> 9 ->> 'n' AS top_bin_equal
FROM agg, one;
-- glicko2_calibration: the favoured player's expected score of each game
WITH h AS (SELECT * FROM mm.glicko2_history('SELECT * FROM an_games', '1 day') WHERE player_id < opponent_id),
agg AS (SELECT mm.calibration(greatest(expected, 1 - expected), CASE WHEN expected >= 0.5 THEN score ELSE 1 - score END) AS a FROM h),
one AS (SELECT mm.glicko2_calibration('SELECT * FROM an_games', '1 day') AS o)
SELECT (o ->> 'n') = (a ->> 'n') AS n_equal,
       abs((o ->> 'brier')::float8 - (a ->> 'brier')::float8) < 1e-12 AS brier_equal,
       abs((o ->> 'log_loss')::float8 - (a ->> 'log_loss')::float8) < 1e-12 AS log_loss_equal
FROM agg, one;

-- The IMS beta tuning on a hand-made scatter: (1, lost), (2, won), (3, won),
-- (4, won): mean delta 2.5, mean outcome 0.75, Sxx 5, Sxy 1.5, slope 0.3,
-- intercept 0; the line reaches 0.8 at delta 8/3. A negative delta is the
-- other team's view of the same match.
SELECT j ->> 'n' AS n, round((j ->> 'slope')::numeric, 12) AS slope,
       round((j ->> 'intercept')::numeric, 12) AS intercept,
       abs((j ->> 'beta')::float8 - 8.0 / 3) < 1e-12 AS beta_is_8_thirds
FROM (SELECT mm.ims_beta(d, w) AS j FROM (VALUES (1.0, false), (-2.0, false), (3.0, true), (4.0, true)) v(d, w)) x;
SELECT mm.ims_beta(d, w) AS no_slope FROM (VALUES (1.0, true)) v(d, w);

-- Maximum likelihood recovers a known beta: 100 players of known skill play
-- 3000 games whose performances are their skill plus N(0, 4^2) noise; started
-- at their skill with sigma 0.01, the log loss is least near beta 4 (within 10%).
SELECT setseed(0.5);
CREATE TABLE an_skill AS SELECT p AS player_id, 25 + 8 * (random() - 0.5) * 2 AS s FROM generate_series(1, 100) p;
CREATE TABLE an_sim (match_id int, player_id bigint, team int, rank int);
DO $$
DECLARE
    a int;
    b int;
    d float8;
BEGIN
    FOR m IN 1..3000 LOOP
        a := 1 + floor(random() * 100)::int;
        b := 1 + floor(random() * 99)::int;
        IF b >= a THEN b := b + 1; END IF;
        d := (SELECT s FROM an_skill WHERE player_id = a) + 4 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random())
           - (SELECT s FROM an_skill WHERE player_id = b) - 4 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random());
        INSERT INTO an_sim VALUES (m, a, 1, CASE WHEN d > 0 THEN 1 ELSE 2 END), (m, b, 2, CASE WHEN d > 0 THEN 2 ELSE 1 END);
    END LOOP;
END $$;
SELECT count(*) AS tried, abs(value - 4) < 0.4 AS near_4
FROM mm.openskill_fit('SELECT * FROM an_sim ORDER BY match_id', lo => 0.5, hi => 16, iterations => 20,
                      initial => 'SELECT player_id, s, 0.01 FROM an_skill') f
WHERE best GROUP BY value;
-- a grid returns every value tried, in order, with the best marked
SELECT step, value, best, games FROM mm.openskill_fit('SELECT * FROM an_sim ORDER BY match_id', grid => '{2,4,8}',
                                                         initial => 'SELECT player_id, s, 0.01 FROM an_skill');
-- each value's figures are the calibration's with that value; golden-section
-- search tries two points and one more per iteration
SELECT f.step, f.value, (f.log_loss, f.brier, f.accuracy) = ((c ->> 'log_loss')::float8, (c ->> 'brier')::float8, (c ->> 'accuracy')::float8) AS equals_calibration
FROM mm.openskill_fit('SELECT * FROM an_history ORDER BY match_id', 'tau', grid => '{0.05,0.5}') f,
     mm.openskill_calibration('SELECT * FROM an_history ORDER BY match_id', tau => f.value) c
ORDER BY f.step;
SELECT count(*) AS tried, count(*) FILTER (WHERE best) AS best, min(value) > 1 AND max(value) < 9 AS inside
FROM mm.openskill_fit('SELECT * FROM an_history ORDER BY match_id', lo => 1, hi => 9, iterations => 5);
SELECT count(*) AS tried, count(*) FILTER (WHERE best) AS best
FROM mm.glicko2_fit('SELECT * FROM an_games', grid => '{0.3,0.6,0.9}', period => '1 day');
-- the initial deviation: the fit's log loss is the calibration's with that initial_rd
SELECT f.value, f.log_loss = (mm.glicko2_calibration('SELECT * FROM an_games', '1 day', initial_rd => f.value) ->> 'log_loss')::float8 AS equals_calibration
FROM mm.glicko2_fit('SELECT * FROM an_games', 'rd', grid => '{100,350}', period => '1 day') f ORDER BY f.step;

-- The replays' shared input rules
-- a history whose match rows are not consecutive is refused, naming the row
-- (ordered by a column before the key, each part rates as a match of its own)
CREATE TABLE an_split (match_id int, player_id int, team int, rank int, late bool);
INSERT INTO an_split VALUES (1, 1, 1, 1, false), (1, 2, 2, 2, false), (2, 3, 1, 1, false), (2, 4, 2, 2, false),
                            (1, 5, 1, 1, true), (1, 6, 2, 2, true);
SELECT * FROM mm.openskill_replay('SELECT match_id, player_id, team, rank FROM an_split ORDER BY late, match_id, player_id');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_history('SELECT ''m'' || match_id, player_id, team, rank FROM an_split ORDER BY late, match_id, player_id');
\echo :LAST_ERROR_SQLSTATE
-- numbers of any numeric type; ids must be whole; NULLs name the row
SELECT count(*) AS players FROM mm.openskill_replay('SELECT match_id, player_id::numeric, team::float8, rank::real FROM an_history ORDER BY match_id');
SELECT * FROM mm.openskill_replay('SELECT 1, 1.5, 1, 1 UNION ALL SELECT 1, 2, 2, 2');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_history('SELECT 1, 1, 1, 1 UNION ALL SELECT 1, NULL, 2, 2');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.glicko2_history('SELECT player_id::int, opponent_id::numeric, score::real, played_at FROM an_games LIMIT 1');
SELECT * FROM mm.glicko2_history('SELECT player_id, opponent_id, score, played_at::text FROM an_games');
\echo :LAST_ERROR_SQLSTATE

-- Errors
SELECT mm.calibration(p, y) FROM (VALUES (1.5, 1)) v(p, y);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.calibration(p, y) FROM (VALUES ('NaN'::float8, 1)) v(p, y);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.calibration(p, y) FROM (VALUES (0.5, 2)) v(p, y);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.calibration(p, y, 0) FROM (VALUES (0.5, 1)) v(p, y);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.calibration(p, y, b) FROM (VALUES (0.5, 1, 2), (0.5, 1, 3)) v(p, y, b);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.calibration_final('{10,1,0,0,0}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.calibration_final('{1,2,0.5,1,1,1,1,1}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.calibration_step('{1,0,0,0,0,0,0,0}', 0.5, 1);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ims_beta_final('{1,NaN,0,0,0}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ims_beta(d, true) FROM (VALUES ('Infinity'::float8)) v(d);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.openskill_calibration('SELECT * FROM an_history ORDER BY match_id', bins => NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_fit('SELECT * FROM an_sim', parameter => 'mu', grid => '{1}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_fit('SELECT * FROM an_sim', grid => '{1}', lo => 1, hi => 2);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_fit('SELECT * FROM an_sim', lo => 2, hi => 1);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_fit('SELECT * FROM an_sim', lo => 1, hi => 2, iterations => 201);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_fit('SELECT * FROM an_sim', grid => '{}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_fit('SELECT * FROM an_sim');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_fit('SELECT * FROM an_sim ORDER BY match_id', grid => '{-1}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.glicko2_fit('SELECT * FROM an_games', parameter => 'vol', grid => '{1}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_calibration('SELECT * FROM an_games', initial_rd => 0);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_calibration('SELECT * FROM an_games', policy => '{}', initial_rd => 400);
\echo :LAST_ERROR_SQLSTATE
