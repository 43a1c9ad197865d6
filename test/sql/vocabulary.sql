-- One vocabulary (docs/conventions.md): every rule there, tested; the old
-- spellings still work.

-- The IMS endpoint by its name: mm.ims_rate takes mm.openskill_rate's
-- defaults for config keys left out (beta 25/6, tau 25/300, mu 25,
-- sigma 25/3, epsilon = kappa 0.0001), so with nothing in config it gives
-- what mm.openskill_rate gives.
WITH r AS (
    SELECT mm.ims_rate('{"teams": [
        {"rank": 0, "team": {"teamId": "red", "players": [{"playerId": "a", "mu": 27, "sigma": 7}, {"playerId": "b"}]}},
        {"rank": 1, "team": {"teamId": "blue", "players": [{"playerId": 7, "mu": 24, "sigma": 6}]}}]}') AS res
), ims AS (
    SELECT t.ord AS team, p.ord AS player, (p.v ->> 'mu')::float8 AS mu, (p.v ->> 'sigma')::float8 AS sigma
    FROM r, jsonb_array_elements(r.res -> 'teams') WITH ORDINALITY t(v, ord),
         jsonb_array_elements(t.v -> 'players') WITH ORDINALITY p(v, ord)
), os AS (
    SELECT * FROM mm.openskill_rate('{1,1,2}', '{1,1,2}', ARRAY[27, 25, 24]::float8[], ARRAY[7, 25.0 / 3, 6]::float8[])
)
SELECT os.idx, abs(os.mu - ims.mu) < 1e-12 AS same_mu, abs(os.sigma - ims.sigma) < 1e-12 AS same_sigma
FROM (SELECT row_number() OVER (ORDER BY team, player) AS idx, mu, sigma FROM ims) ims
JOIN os USING (idx) ORDER BY idx;

-- The IMS documentation's sample: with "tau": 0 (the IMS has no tau) the
-- new name gives what the deprecated mm.rate gives, to the last bit.
SELECT mm.ims_rate('{"config": {"modelId": "PLACKETT_LUCE", "beta": 5, "epsilon": 0.001, "mu": 30, "sigma": 10, "tau": 0},
  "teams": [{"rank": 0, "team": {"teamId": "red", "players": [{"playerId": "player1", "mu": 35.0, "sigma": 5.1},
                                                              {"playerId": "player2", "mu": 32.1, "sigma": 2.9}]}},
            {"rank": 1, "team": {"teamId": "blue", "players": [{"playerId": "player3", "mu": 30.5, "sigma": 4.4},
                                                               {"playerId": "player4", "mu": 29.5, "sigma": 9.4}]}}]}')
     = mm.rate('{"config": {"modelId": "PLACKETT_LUCE", "beta": 5, "epsilon": 0.001, "mu": 30, "sigma": 10},
  "teams": [{"rank": 0, "team": {"teamId": "red", "players": [{"playerId": "player1", "mu": 35.0, "sigma": 5.1},
                                                              {"playerId": "player2", "mu": 32.1, "sigma": 2.9}]}},
            {"rank": 1, "team": {"teamId": "blue", "players": [{"playerId": "player3", "mu": 30.5, "sigma": 4.4},
                                                               {"playerId": "player4", "mu": 29.5, "sigma": 9.4}]}}]}') AS same_as_rate;

-- mm.rate keeps its 0.1.0 defaults (beta 5, tau 0, mu 30, sigma 10): players
-- without mu/sigma start at 30 / 10 there, at 25 / 8.33 in mm.ims_rate.
SELECT f, t.ord - 1 AS team, round((t.v #>> '{players,0,mu}')::numeric, 4) AS mu,
       round((t.v #>> '{players,0,sigma}')::numeric, 4) AS sigma
FROM (SELECT '{"teams": [{"rank": 0, "team": {"teamId": 1, "players": [{"playerId": 1}]}},
                         {"rank": 1, "team": {"teamId": 2, "players": [{"playerId": 2}]}}]}'::jsonb AS r) x,
     LATERAL (VALUES ('rate', mm.rate(x.r)), ('ims_rate', mm.ims_rate(x.r))) AS y(f, res),
     jsonb_array_elements(y.res -> 'teams') WITH ORDINALITY t(v, ord)
ORDER BY 1, 2;

-- The same playerId twice, on two teams or in one, is refused (22023),
-- by both names; ids are JSON values: 1 and 1.0 are one player, 1 and "1"
-- two.
SELECT mm.ims_rate('{"teams": [{"rank": 0, "team": {"teamId": "a", "players": [{"playerId": "p1"}, {"playerId": "p2"}]}},
                               {"rank": 1, "team": {"teamId": "b", "players": [{"playerId": "p3"}, {"playerId": "p1"}]}}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ims_rate('{"teams": [{"rank": 0, "team": {"teamId": "a", "players": [{"playerId": 5}, {"playerId": 5.0}]}},
                               {"rank": 1, "team": {"teamId": "b", "players": [{"playerId": 6}]}}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.rate('{"teams": [{"rank": 0, "team": {"teamId": "a", "players": [{"playerId": 5}]}},
                           {"rank": 1, "team": {"teamId": "b", "players": [{"playerId": 5}]}}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT jsonb_array_length(mm.ims_rate('{"teams": [{"rank": 0, "team": {"teamId": "a", "players": [{"playerId": 1}]}},
                                                  {"rank": 1, "team": {"teamId": "b", "players": [{"playerId": "1"}]}}]}') -> 'teams') AS teams;

-- Deprecated names say so in their COMMENT (test/sql/surface.sql checks
-- each against its replacement).
SELECT p.oid::regproc AS deprecated
FROM pg_proc p WHERE p.pronamespace = 'mm'::regnamespace
  AND obj_description(p.oid, 'pg_proc') LIKE 'deprecated: use %'
ORDER BY 1;

-- SQLSTATEs: an unknown queue, pool or server is 42704 (undefined_object);
-- a server that exists but is full is 55000 (object_not_in_prerequisite_state).
SELECT * FROM mm.tick('no_such_queue');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.find_opponent('no_such_pool', 1000);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.put_entry('no_such_pool', 1, 1000);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.place_player(-1, 1);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.get_server_attribute(-1, 'Level');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.set_server_attribute(-1, 'Level', '1');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.add_server('voc', 1) AS s \gset
SELECT mm.place_player(:s, 1);
SELECT mm.place_player(:s, 2);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.remove_server(:s);
-- arrays of different lengths are 2202E everywhere
SELECT mm.server_breakdown_weighted('voc', '{occupancy}', '{}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_rate((1500, 200, 0.06), '{1400}', '{30, 40}', '{1}');
\echo :LAST_ERROR_SQLSTATE

-- alter_*: the given keys are merged into the stored config; replace => true
-- sets the whole config (defaults for the rest), as mm.alter_queue does.
SELECT mm.create_pool('voc', '{"mmr_bucket_count": 4, "max_difference": 100}');
SELECT c ->> 'mmr_bucket_count' AS buckets, c ->> 'max_difference' AS max_difference
FROM mm.alter_pool('voc', '{"max_difference": 50}') c;
SELECT c ->> 'mmr_bucket_count' AS buckets, c ->> 'max_difference' AS max_difference
FROM mm.alter_pool('voc', '{"max_difference": 70}', replace => true) c;
SELECT mm.alter_pool('voc', NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.drop_pool('voc');
SELECT mm.create_queue('voc', '{"team_size": 2}');
SELECT c ->> 'team_size' AS team_size FROM mm.alter_queue('voc', '{"filter": {"potentials_min": 1}}') c;
SELECT c ->> 'team_size' AS team_size FROM mm.alter_queue('voc', '{"filter": {"potentials_min": 1}}', replace => true) c;
SELECT mm.drop_queue('voc', keep_history => false);

-- Both forms where a user expects them: an mm.glicko or mm.rating argument
-- gives what the loose values give.
SELECT mm.glicko2_expect((1500, 200, 0.06)::mm.glicko, (1400, 30, 0.06)::mm.glicko)
     = mm.glicko2_expect(1500, 200, 1400, 30) AS expect_same,
       mm.ordinal((25, 25.0 / 3)::mm.rating) = mm.ordinal(25, 25.0 / 3) AS ordinal_same,
       mm.ordinal((30, 5)::mm.rating, 2) AS ordinal_z2;

-- A NULL policy is no policy, everywhere: plain Glicko-2. glicko2_rating_at
-- reads the Guild Wars 2 wiki's policy when it is left out ('{}'), and with
-- NULL grows the deviation as mm.glicko2_idle without a policy does, over
-- whole periods of the default length (3 days), with no reset.
SELECT mm.glicko2_rating_at((1500, 100, 0.06), '2026-01-01', '2026-01-10')
     = mm.glicko2_rating_at((1500, 100, 0.06), '2026-01-01', '2026-01-10', '{}') AS default_is_gw2,
       mm.glicko2_rating_at((1500, 100, 0.06), '2026-01-01', '2026-01-10', NULL)
     = mm.glicko2_idle((1500, 100, 0.06), 3, NULL) AS null_is_plain,
       mm.glicko2_rating_at((1500, 100, 0.06), '2026-01-01', '2026-01-10', NULL)
     = mm.glicko2_idle((1500, 100, 0.06), 3, '{}') AS null_is_not_gw2;
SELECT (mm.glicko2_rating_at((1700, 100, 0.06), '2026-01-01', '2026-01-10', '{"reset": "2026-01-05 00:00:00+00"}')).rating AS reset_rating,
       (mm.glicko2_rating_at((1700, 100, 0.06), '2026-01-01', '2026-01-10', NULL)).rating AS no_policy_rating;
-- glicko2_blend has nothing to blend by without a policy
SELECT mm.glicko2_blend((1600, 60, 0.05), (1400, 200, 0.07)) = mm.glicko2_blend((1600, 60, 0.05), (1400, 200, 0.07), '{}') AS default_is_gw2;
SELECT mm.glicko2_blend((1600, 60, 0.05), (1400, 200, 0.07), NULL);
\echo :LAST_ERROR_SQLSTATE

-- mm.glicko2_period takes a policy, as mm.glicko2_rate does, and equals it:
-- the upset is clamped by max_change (300 per game), a player without games
-- grows by the policy's idle rule, tau NULL is the policy's system constant.
CREATE TEMP TABLE voc_games (player_id int, rating float8, rd float8, vol float8,
                             opp_rating float8, opp_rd float8, score float8);
INSERT INTO voc_games VALUES
    (1, 1500, 350, 0.06, 2500, 30, 1),
    (2, 1500, 200, 0.06, 1400, 30, 1), (2, 1500, 200, 0.06, 1550, 100, 0), (2, 1500, 200, 0.06, 1700, 300, 0.5),
    (3, 1600, 40, 0.05, NULL, NULL, NULL);
SELECT g.player_id,
       mm.glicko2_period(g.rating, g.rd, g.vol, g.opp_rating, g.opp_rd, g.score, NULL, '{}') AS policy_period,
       mm.glicko2_period(g.rating, g.rd, g.vol, g.opp_rating, g.opp_rd, g.score, NULL, '{}')
         = mm.glicko2_rate((min(g.rating), min(g.rd), min(g.vol)),
                           coalesce(array_agg(g.opp_rating) FILTER (WHERE g.score IS NOT NULL), '{}'),
                           coalesce(array_agg(g.opp_rd) FILTER (WHERE g.score IS NOT NULL), '{}'),
                           coalesce(array_agg(g.score) FILTER (WHERE g.score IS NOT NULL), '{}'),
                           policy => '{}') AS equals_rate,
       mm.glicko2_period(g.rating, g.rd, g.vol, g.opp_rating, g.opp_rd, g.score, 0.5, NULL)
         = mm.glicko2_period(g.rating, g.rd, g.vol, g.opp_rating, g.opp_rd, g.score, 0.5) AS null_policy_is_plain
FROM voc_games g GROUP BY g.player_id ORDER BY 1;
-- parts combine to the whole (parallel and partial aggregation)
SELECT mm.glicko2_period_policy_final(mm.glicko2_period_policy_combine(
           mm.glicko2_period_policy_step(NULL, 1500, 200, 0.06, 1400, 30, 1, NULL, '{}'),
           mm.glicko2_period_policy_step(mm.glicko2_period_policy_step(NULL, 1500, 200, 0.06, 1550, 100, 0, NULL, '{}'),
                                         1500, 200, 0.06, 1700, 300, 0.5, NULL, '{}')))
     = (SELECT mm.glicko2_period(rating, rd, vol, opp_rating, opp_rd, score, NULL, '{}')
        FROM voc_games WHERE player_id = 2) AS combined;
-- one player per group; the policy is checked by mm.glicko2_rate
SELECT mm.glicko2_period(rating, rd, vol, opp_rating, opp_rd, score, NULL, '{}') FROM voc_games;
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_period(rating, rd, vol, opp_rating, opp_rd, score, NULL, '{"surprise": 1}')
FROM voc_games WHERE player_id = 1;
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_period(rating, NULL, vol, opp_rating, opp_rd, score, NULL, '{}') FROM voc_games WHERE player_id = 1;
\echo :LAST_ERROR_SQLSTATE
DROP TABLE voc_games;
-- a state handed to the combine function is checked as mm.glicko2_rate checks its arguments
SELECT mm.glicko2_period_policy_combine(NULL, ROW((2, 0.06, -1e308), '-Infinity', '{}', '{1}', '{1500}', '{-1e308}'));
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_period_policy_combine(NULL, ROW((1500, 200, 0.06), NULL, '{}', '{1400, 1500}', '{30}', '{1}'));
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_period_policy_combine(NULL, ROW((1500, 200, 0.06), NULL, '{}', '{1400}', '{30}', '{2}'));
\echo :LAST_ERROR_SQLSTATE
SELECT mm.glicko2_period_policy_step(NULL, 1500, 200, 0.06, 1400, 30, 1, 'NaN', '{}');
\echo :LAST_ERROR_SQLSTATE
