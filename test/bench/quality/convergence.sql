-- How fast the ratings learn (teardown.sh reads it; setup.sql made the
-- tables). For each season (shape and config), each checkpoint (every
-- "every" reported matches) and each player: its games so far, its rating
-- after its last game (mm.match_result_player's state after it: Glicko-2's
-- and Elo's rating, OpenSkill's mu), its hidden skill then (after its last
-- game's drift), and the offline fit of every game before the checkpoint
-- (quality_fit). A player is "at k games" at the first checkpoint where it
-- has played k games or more; the Spearman correlation of rating with
-- skill is taken over the players at k games, beside the fit's on the same
-- players at the same checkpoints. Ties share their mean rank.
DROP VIEW IF EXISTS quality_candidate_convergence, quality_convergence, quality_at_k CASCADE;
CREATE VIEW quality_at_k AS
WITH cp AS (SELECT DISTINCT shape, config, checkpoint FROM quality_fit),
     pg AS (SELECT c.shape, c.config, c.checkpoint, g.player_id, count(*) AS games, max(g.match_no) AS last_no
            FROM cp c JOIN quality_game g ON g.shape = c.shape AND g.config = c.config AND g.match_no <= c.checkpoint
            GROUP BY 1, 2, 3, 4),
     first_at AS (SELECT DISTINCT ON (pg.shape, pg.config, pg.player_id, k.k)
                         pg.shape, pg.config, pg.player_id, k.k, pg.checkpoint, pg.last_no
                  FROM pg, (VALUES (5), (10), (20), (50)) k(k)
                  WHERE pg.games >= k.k
                  ORDER BY pg.shape, pg.config, pg.player_id, k.k, pg.checkpoint)
SELECT f.shape, f.config, f.k, f.player_id, f.checkpoint, f.last_no, g.skill_after AS skill,
       r.state_after[1] AS online, x.rating AS offline
FROM first_at f
JOIN quality_game g ON g.shape = f.shape AND g.config = f.config AND g.match_no = f.last_no AND g.player_id = f.player_id
JOIN mm.match_result_player r ON r.match_id = g.match_id AND r.player_id = g.player_id
JOIN quality_fit x ON x.shape = f.shape AND x.config = f.config AND x.checkpoint = f.checkpoint AND x.player_id = f.player_id;

CREATE VIEW quality_convergence AS
WITH ranked AS (
    SELECT shape, config, k,
           rank() OVER w_s + (count(*) OVER (PARTITION BY shape, config, k, skill) - 1) / 2.0 AS r_skill,
           rank() OVER w_on + (count(*) OVER (PARTITION BY shape, config, k, online) - 1) / 2.0 AS r_online,
           rank() OVER w_off + (count(*) OVER (PARTITION BY shape, config, k, offline) - 1) / 2.0 AS r_offline
    FROM quality_at_k
    WINDOW w_s AS (PARTITION BY shape, config, k ORDER BY skill),
           w_on AS (PARTITION BY shape, config, k ORDER BY online),
           w_off AS (PARTITION BY shape, config, k ORDER BY offline))
SELECT shape, config, k, count(*) AS players, corr(r_online, r_skill) AS online, corr(r_offline, r_skill) AS offline,
       corr(r_online, r_skill) / nullif(corr(r_offline, r_skill), 0) AS ratio
FROM ranked GROUP BY shape, config, k;

-- The candidates (setup.sql's quality_candidates) on the same players and
-- checkpoints as the recommended season's own ratings.
CREATE VIEW quality_candidate_convergence AS
WITH a AS (SELECT k.shape, r.label, k.k, k.skill, k.offline, r.rating AS online
           FROM quality_at_k k
           JOIN quality_candidate_rating r ON r.shape = k.shape AND r.match_no = k.last_no AND r.player_id = k.player_id
           WHERE k.config = 'recommended'),
     ranked AS (SELECT shape, label, k,
                       rank() OVER w_s + (count(*) OVER (PARTITION BY shape, label, k, skill) - 1) / 2.0 AS r_skill,
                       rank() OVER w_on + (count(*) OVER (PARTITION BY shape, label, k, online) - 1) / 2.0 AS r_online,
                       rank() OVER w_off + (count(*) OVER (PARTITION BY shape, label, k, offline) - 1) / 2.0 AS r_offline
                FROM a
                WINDOW w_s AS (PARTITION BY shape, label, k ORDER BY skill),
                       w_on AS (PARTITION BY shape, label, k ORDER BY online),
                       w_off AS (PARTITION BY shape, label, k ORDER BY offline))
SELECT shape, label, k, count(*) AS players, corr(r_online, r_skill) / nullif(corr(r_offline, r_skill), 0) AS ratio
FROM ranked GROUP BY shape, label, k;

-- A queue config's balance limit after a wait of "waited" seconds (its
-- first rule, with its expansion steps; 1 without one).
CREATE OR REPLACE FUNCTION quality_limit(qcfg jsonb, waited float8) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce((SELECT (s ->> 'max_favourite')::float8
                     FROM jsonb_array_elements(r -> 'expand') WITH ORDINALITY e(s, o)
                     WHERE (s ->> 'after')::float8 <= waited ORDER BY o DESC LIMIT 1),
                    (r ->> 'max_favourite')::float8, 1)
    FROM (SELECT (SELECT x FROM jsonb_array_elements(qcfg -> 'rules') x WHERE x ->> 'type' = 'balance' LIMIT 1) AS r) y
$$;
