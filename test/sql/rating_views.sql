-- The per-family rating views: each family's state by name, over mm.ratings
-- and over the result history, equal to mm.rating_fields of the same rows;
-- a game numbered per player and key in report order; a pending Glicko-2
-- rating period shows no state after.
\set VERBOSITY sqlstate
SET timezone = 'UTC';
-- the tests after this one count on mm's sequences: put them back at the end
\i test/support/sequences_save.sql

-- three queues, one per family; two 1v1 games each, player 9801 wins both
SELECT mm.create_queue('rv_' || f, format('{"team_size": 1, "filter": {"potentials_min": 1},
        "rating": {"model": "%s", "key": "rv_%s", "ladder": false}}', f, f)::jsonb)
FROM unnest(ARRAY['openskill', 'glicko2', 'elo']) f;
CREATE TEMP TABLE rv_games (family text, game int, match_id bigint);
DO $$
DECLARE
    f text;
    m bigint;
BEGIN
    FOREACH f IN ARRAY ARRAY['openskill', 'glicko2', 'elo'] LOOP
        FOR g IN 1 .. 2 LOOP
            PERFORM mm.enqueue('rv_' || f, ARRAY[p], NULL) FROM unnest(ARRAY[9801, 9802]::bigint[]) p;
            SELECT DISTINCT t.match_id INTO m FROM mm.tick('rv_' || f) t;
            PERFORM mm.claim_matches('rv_' || f);
            PERFORM mm.report_result(m, format('{"teams": {"%s": {"rank": 1}, "%s": {"rank": 2}}}',
                (SELECT team FROM mm.match_roster r WHERE r.match_id = m AND 9801 = ANY (r.players)),
                (SELECT team FROM mm.match_roster r WHERE r.match_id = m AND 9802 = ANY (r.players)))::jsonb);
            INSERT INTO rv_games VALUES (f, g, m);
        END LOOP;
    END LOOP;
END
$$;

-- the views hold the stored state by name: every named column equals the
-- state's element and mm.rating_fields of it
SELECT 'openskill' AS family, count(*) AS rows,
       bool_and(v.mu = r.state[1] AND v.sigma = r.state[2] AND v.ordinal = r.state[1] - 3 * r.state[2]
                AND v.games = r.games AND v.last_played = r.last_played
                AND (mm.rating_fields(r.model, r.state) ->> 'mu')::float8 = v.mu
                AND (mm.rating_fields(r.model, r.state) ->> 'sigma')::float8 = v.sigma) AS same
FROM mm.openskill_ratings v JOIN mm.ratings r ON r.key = v.key AND r.player_id = v.player_id AND r.model = 'openskill'
WHERE v.key = 'rv_openskill'
UNION ALL
SELECT 'glicko2', count(*),
       bool_and((mm.rating_fields(r.model, r.state) ->> 'rating')::float8 = v.rating
                AND (mm.rating_fields(r.model, r.state) ->> 'rd')::float8 = v.rd
                AND (mm.rating_fields(r.model, r.state) ->> 'vol')::float8 = v.volatility AND v.games = r.games)
FROM mm.glicko2_ratings v JOIN mm.ratings r ON r.key = v.key AND r.player_id = v.player_id AND r.model = 'glicko2'
WHERE v.key = 'rv_glicko2'
UNION ALL
SELECT 'elo', count(*),
       bool_and((mm.rating_fields(r.model, r.state) ->> 'rating')::float8 = v.rating
                AND (mm.rating_fields(r.model, r.state) ->> 'games')::float8 = v.elo_games AND v.games = r.games)
FROM mm.elo_ratings v JOIN mm.ratings r ON r.key = v.key AND r.player_id = v.player_id AND r.model = 'elo'
WHERE v.key = 'rv_elo';

-- the winner is ahead in every family
SELECT key, player_id, round(mu::numeric, 3) AS mu, round(sigma::numeric, 3) AS sigma, games
FROM mm.openskill_ratings WHERE key = 'rv_openskill' ORDER BY player_id;
SELECT key, player_id, round(rating::numeric, 2) AS rating, round(rd::numeric, 2) AS rd, games
FROM mm.glicko2_ratings WHERE key = 'rv_glicko2' ORDER BY player_id;
SELECT key, player_id, round(rating::numeric, 2) AS rating, elo_games, games
FROM mm.elo_ratings WHERE key = 'rv_elo' ORDER BY player_id;

-- the history: a game per report, numbered in report order, before and
-- after equal to the stored rows, and each game's after the next one's before
SELECT h.key, h.player_id, h.game, h.match_id = g.match_id AS its_match,
       h.mu_before = p.state_before[1] AND h.mu_after = p.state_after[1]
       AND h.sigma_after = p.state_after[2] AS same_state
FROM mm.openskill_rating_history h
JOIN rv_games g ON g.family = 'openskill' AND g.game = h.game
JOIN mm.match_result_player p ON p.match_id = h.match_id AND p.player_id = h.player_id
WHERE h.key = 'rv_openskill' ORDER BY 2, 3;
SELECT count(*) AS chained
FROM mm.glicko2_rating_history a JOIN mm.glicko2_rating_history b
  ON b.key = a.key AND b.player_id = a.player_id AND b.game = a.game + 1
WHERE a.key = 'rv_glicko2' AND b.rating_before = a.rating_after AND b.rd_before = a.rd_after;
SELECT player_id, game, round(rating_before::numeric, 2) AS before, round(rating_after::numeric, 2) AS after,
       round(change::numeric, 2) AS change
FROM mm.elo_rating_history WHERE key = 'rv_elo' ORDER BY 1, 2;
-- the last game in each view is the rating stored
SELECT bool_and(h.rating_after = r.rating) AS last_is_stored
FROM mm.elo_rating_history h JOIN mm.elo_ratings r USING (key, player_id)
WHERE h.key = 'rv_elo' AND h.game = r.elo_games;

-- a view shows only its family's rows
SELECT (SELECT count(*) FROM mm.openskill_ratings WHERE key IN ('rv_glicko2', 'rv_elo')) +
       (SELECT count(*) FROM mm.glicko2_ratings WHERE key IN ('rv_openskill', 'rv_elo')) +
       (SELECT count(*) FROM mm.elo_rating_history WHERE key IN ('rv_openskill', 'rv_glicko2')) AS foreign_rows;

-- a pending Glicko-2 rating period: the history shows the game, nothing after
SELECT mm.create_queue('rv_period', '{"team_size": 1, "filter": {"potentials_min": 1},
        "rating": {"model": "glicko2", "key": "rv_period", "period": "pending", "ladder": false}}');
SELECT count(mm.enqueue('rv_period', ARRAY[p], NULL)) AS queued FROM unnest(ARRAY[9803, 9804]::bigint[]) p;
SELECT DISTINCT match_id AS pm FROM mm.tick('rv_period') \gset
SELECT count(*) FROM mm.report_result(:pm, '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}');
SELECT player_id, game, rating_before IS NOT NULL AS before, rating_after IS NULL AS pending
FROM mm.glicko2_rating_history WHERE key = 'rv_period' ORDER BY player_id;

SELECT mm.drop_queue(q, keep_history => false)
FROM unnest(ARRAY['rv_openskill', 'rv_glicko2', 'rv_elo', 'rv_period']) q;
DELETE FROM mm.ratings WHERE key LIKE 'rv\_%';
DROP TABLE rv_games;
\i test/support/sequences_restore.sql
