-- OpenSkill ratings and musigma matchmaking: rate, predict, IMS endpoint, replay
\set QUIET on
CREATE TEMP TABLE demo_os_players (player_id bigint PRIMARY KEY, name text,
    mu float8 NOT NULL DEFAULT 25, sigma float8 NOT NULL DEFAULT 25.0 / 3);
INSERT INTO demo_os_players (player_id, name) VALUES
    (1, 'ana'), (2, 'bo'), (3, 'cy'), (4, 'di');
CREATE TEMP TABLE demo_os_results (match_id int, player_id bigint, team int, rank int);
INSERT INTO demo_os_results VALUES
    (1, 1, 1, 1), (1, 2, 1, 1), (1, 3, 2, 2), (1, 4, 2, 2),
    (2, 1, 1, 2), (2, 3, 1, 2), (2, 2, 2, 1), (2, 4, 2, 1),
    (3, 1, 1, 1), (3, 4, 1, 1), (3, 2, 2, 2), (3, 3, 2, 2);
\set QUIET off

-- Before match 1 (ana + bo against cy + di), who is expected to win?
SELECT * FROM mm.openskill_predict_win('{1,1,2,2}', '{25,25,25,25}', ARRAY[25.0 / 3, 25.0 / 3, 25.0 / 3, 25.0 / 3]);

-- A game backend rates a finished match and stores the new ratings in one
-- statement (Plackett-Luce, openskill.js 5.0.1 defaults).
WITH m AS (
  SELECT array_agg(r.player_id ORDER BY r.player_id) AS ids, array_agg(r.team ORDER BY r.player_id) AS team,
         array_agg(r.rank::float8 ORDER BY r.player_id) AS rank,
         array_agg(p.mu ORDER BY r.player_id) AS mu, array_agg(p.sigma ORDER BY r.player_id) AS sigma
  FROM demo_os_results r JOIN demo_os_players p USING (player_id) WHERE r.match_id = 1)
UPDATE demo_os_players p SET mu = n.mu, sigma = n.sigma
FROM m, mm.openskill_rate(m.team, m.rank, m.mu, m.sigma) n
WHERE p.player_id = m.ids[n.idx]
RETURNING p.name, round(p.mu::numeric, 3) AS mu, round(p.sigma::numeric, 3) AS sigma;

-- The IMS matchmaker's rate endpoint, as one SQL call: the IMS documentation's request in,
-- its response out (red beat blue).
SELECT jsonb_pretty(mm.rate('{"config": {"modelId": "PLACKETT_LUCE", "beta": 5, "epsilon": 0.001, "mu": 30, "sigma": 10},
  "teams": [{"rank": 0, "team": {"teamId": "red", "players": [{"playerId": "player1", "mu": 35.0, "sigma": 5.1},
                                                              {"playerId": "player2", "mu": 32.1, "sigma": 2.9}]}},
            {"rank": 1, "team": {"teamId": "blue", "players": [{"playerId": "player3", "mu": 30.5, "sigma": 4.4},
                                                               {"playerId": "player4", "mu": 29.5, "sigma": 9.4}]}}]}'));

-- An analyst replays the whole history with another model and beta, in one call.
SELECT p.name, round(r.mu::numeric, 3) AS mu, round(r.sigma::numeric, 3) AS sigma, r.games,
       round(mm.ordinal(r.mu, r.sigma)::numeric, 3) AS ordinal
FROM mm.openskill_replay('SELECT match_id, player_id, team, rank FROM demo_os_results ORDER BY match_id, team, player_id',
                         model => 'thurstone_mosteller_full', beta => 4) r
JOIN demo_os_players p USING (player_id)
ORDER BY ordinal DESC;

-- Matchmaking: a party's rating (2 x best + 1 x median mu, minus 3 x mean
-- sigma), the beta allowed after waiting 45 s, and the data point's score.
SELECT round(mm.party_rating('{31,29,24}', '{2,3,4}')::numeric, 3) AS party,
       round(mm.ordinal(28, 1.5)::numeric, 3) AS solo,
       mm.musigma_beta('45 seconds', 20, 5, '10 seconds') AS beta_after_45s,
       round(d.score::numeric, 3) AS score, d.accepted
FROM mm.musigma_data_point(ARRAY[mm.party_rating('{31,29,24}', '{2,3,4}'), mm.ordinal(28, 1.5)],
                           mm.musigma_beta('45 seconds', 20, 5, '10 seconds')) d;
