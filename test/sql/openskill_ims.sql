-- mm.rate(jsonb): the IMS matchmaker's rate endpoint (the IMS matchmaker documentation).
\set VERBOSITY default

-- the IMS documentation's request gives the IMS documentation's response, to 1e-12
CREATE TEMP TABLE ims AS SELECT mm.rate('{
  "config": {"modelId": "PLACKETT_LUCE", "beta": 5, "epsilon": 0.001, "mu": 30, "sigma": 10},
  "teams": [
    {"rank": 0, "team": {"teamId": "red", "players": [
      {"playerId": "player1", "mu": 35.0, "sigma": 5.1},
      {"playerId": "player2", "mu": 32.1, "sigma": 2.9}]}},
    {"rank": 1, "team": {"teamId": "blue", "players": [
      {"playerId": "player3", "mu": 30.5, "sigma": 4.4},
      {"playerId": "player4", "mu": 29.5, "sigma": 9.4}]}}]}') AS response;
CREATE TEMP TABLE seed_response AS SELECT '{"teams": [
  {"teamId": "red", "players": [
    {"playerId": "player1", "mu": 35.703050324698204, "sigma": 5.065653319815339},
    {"playerId": "player2", "mu": 32.32732230798585, "sigma": 2.8936994946797667}]},
  {"teamId": "blue", "players": [
    {"playerId": "player3", "mu": 29.976699181616407, "sigma": 4.360939109491974},
    {"playerId": "player4", "mu": 27.111629116096374, "sigma": 9.012856163163935}]}]}'::jsonb AS response;
SELECT t.ord AS team_no, t.team->>'teamId' AS team_id, p.ord AS player_no, p.player->>'playerId' AS player_id,
       (p.player->>'mu')::float8 AS mu, (p.player->>'sigma')::float8 AS sigma,
       abs((p.player->>'mu')::float8 - (s.player->>'mu')::float8) < 1e-12
   AND abs((p.player->>'sigma')::float8 - (s.player->>'sigma')::float8) < 1e-12
   AND t.team->>'teamId' = st.team->>'teamId' AND p.player->>'playerId' = s.player->>'playerId' AS matches_seed
FROM ims, seed_response r,
     jsonb_array_elements(ims.response->'teams') WITH ORDINALITY t(team, ord)
     JOIN jsonb_array_elements(r.response->'teams') WITH ORDINALITY st(team, ord) ON st.ord = t.ord,
     jsonb_array_elements(t.team->'players') WITH ORDINALITY p(player, ord)
     JOIN jsonb_array_elements(st.team->'players') WITH ORDINALITY s(player, ord) ON s.ord = p.ord
ORDER BY 1, 3;
-- the response has exactly the IMS documentation's shape
SELECT jsonb_object_keys(response) FROM ims;
SELECT DISTINCT jsonb_object_keys(t) FROM ims, jsonb_array_elements(response->'teams') t ORDER BY 1;
SELECT DISTINCT jsonb_object_keys(p) FROM ims, jsonb_array_elements(response->'teams') t, jsonb_array_elements(t->'players') p ORDER BY 1;

-- the same as openskill_rate with tau 0 and kappa = epsilon
SELECT (SELECT array_agg((p->>'mu')::float8 ORDER BY t.o, p.o)
        FROM ims, jsonb_array_elements(response->'teams') WITH ORDINALITY t(t, o),
             jsonb_array_elements(t.t->'players') WITH ORDINALITY p(p, o))
     = (SELECT array_agg(mu ORDER BY idx) FROM mm.openskill_rate('{1,1,2,2}', '{0,0,1,1}',
          '{35.0,32.1,30.5,29.5}', '{5.1,2.9,4.4,9.4}', beta => 5, kappa => 0.001, tau => 0)) AS same_as_openskill_rate;

-- missing mu/sigma take the config's defaults; a draw is equal ranks; ids
-- may be numbers; teams and players keep their order; other models work
SELECT jsonb_pretty(mm.rate('{
  "config": {"modelId": "THURSTONE_MOSTELLER_FULL", "mu": 30, "sigma": 10},
  "teams": [
    {"rank": 2, "team": {"teamId": 7, "players": [{"playerId": 70}]}},
    {"rank": 1, "team": {"teamId": "b", "players": [{"playerId": "b1", "mu": 30}, {"playerId": "b2", "sigma": 10}]}},
    {"rank": 1, "team": {"teamId": "c", "players": [{"playerId": "c1", "mu": 30, "sigma": 10}]}}]}'));
-- without a config: PLACKETT_LUCE, beta 5, epsilon 1e-4, mu 30, sigma 10
SELECT mm.rate('{"teams": [{"rank": 1, "team": {"teamId": "a", "players": [{"playerId": "x"}]}},
                           {"rank": 2, "team": {"teamId": "b", "players": [{"playerId": "y"}]}}]}')
     = mm.rate('{"config": {"modelId": "PLACKETT_LUCE", "beta": 5, "epsilon": 0.0001, "mu": 30, "sigma": 10, "tau": 0, "limitSigma": false},
                 "teams": [{"rank": 1, "team": {"teamId": "a", "players": [{"playerId": "x", "mu": 30, "sigma": 10}]}},
                           {"rank": 2, "team": {"teamId": "b", "players": [{"playerId": "y", "mu": 30, "sigma": 10}]}}]}') AS defaults;

-- bad requests: each error names the bad key
SELECT mm.rate('[]');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.rate('{"teams": [], "colour": "red"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.rate('{"config": {}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.rate('{"config": {"modelId": "ELO"}, "teams": []}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.rate('{"config": {"beta": 0}, "teams": []}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.rate('{"config": {"epsilon": "small"}, "teams": []}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.rate('{"config": {"Beta": 5}, "teams": []}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.rate('{"config": {"sigma": -1}, "teams": []}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.rate('{"config": [], "teams": []}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.rate('{"teams": {}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.rate('{"teams": [{"rank": 0, "team": {"teamId": "a", "players": [{"playerId": 1}]}}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.rate('{"teams": [{"team": {"teamId": "a", "players": [{"playerId": 1}]}}, {"rank": 1, "team": {"teamId": "b", "players": [{"playerId": 2}]}}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.rate('{"teams": [{"rank": "first", "team": {"teamId": "a", "players": [{"playerId": 1}]}}, {"rank": 1, "team": {"teamId": "b", "players": [{"playerId": 2}]}}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.rate('{"teams": [{"rank": 0, "team": {"players": [{"playerId": 1}]}}, {"rank": 1, "team": {"teamId": "b", "players": [{"playerId": 2}]}}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.rate('{"teams": [{"rank": 0, "team": {"teamId": "a", "players": []}}, {"rank": 1, "team": {"teamId": "b", "players": [{"playerId": 2}]}}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.rate('{"teams": [{"rank": 0, "team": {"teamId": "a", "players": [{"playerId": 1, "mu": "high"}]}}, {"rank": 1, "team": {"teamId": "b", "players": [{"playerId": 2}]}}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.rate('{"teams": [{"rank": 0, "team": {"teamId": "a", "players": [{"playerId": 1, "sigma": 0}]}}, {"rank": 1, "team": {"teamId": "b", "players": [{"playerId": 2}]}}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.rate('{"teams": [{"rank": 0, "team": {"teamId": "a", "players": [{"playerId": 1, "skill": 3}]}}, {"rank": 1, "team": {"teamId": "b", "players": [{"playerId": 2}]}}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.rate('{"teams": [{"rank": 0, "team": {"teamId": "a", "players": [{"mu": 3}]}}, {"rank": 1, "team": {"teamId": "b", "players": [{"playerId": 2}]}}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.rate('{"teams": [{"rank": 0, "team": {"teamId": null, "players": [{"playerId": 1}]}}, {"rank": 1, "team": {"teamId": "b", "players": [{"playerId": 2}]}}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.rate('{"teams": [{"rank": 0, "team": {"teamId": "a", "players": [{"playerId": 1}]}, "score": 3}, {"rank": 1, "team": {"teamId": "b", "players": [{"playerId": 2}]}}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.rate('{"teams": [{"rank": 0, "team": {"teamId": "a", "players": [{"playerId": 1}], "name": "x"}}, {"rank": 1, "team": {"teamId": "b", "players": [{"playerId": 2}]}}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.rate('{"teams": [5, 6]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.rate('{"teams": [{"rank": 0, "team": {"teamId": "a", "players": [{"playerId": 1, "mu": 1e400}]}}, {"rank": 1, "team": {"teamId": "b", "players": [{"playerId": 2}]}}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.rate('{"teams": [{"rank": 0, "team": {"teamId": "a", "players": [{"playerId": 1}]}}, {"rank": 1e400, "team": {"teamId": "b", "players": [{"playerId": 2}]}}]}');
\echo :LAST_ERROR_SQLSTATE
