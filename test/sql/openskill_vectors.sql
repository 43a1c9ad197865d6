-- OpenSkill against openskill.js 5.0.1: the committed vectors of
-- test/vectors/openskill/ (generate.mjs). Every player's new mu and sigma and
-- every prediction must agree to 1e-9 relative; the counts of mismatches
-- must be 0.

-- 300 random games: five models, 2-6 teams of 1-5 players, ties, scores and
-- margins, default and custom beta, kappa, tau, limit_sigma, balance, epsilon;
-- then 10 games too large to rate without allocating (20v20, 40-player
-- free-for-alls)
CREATE TEMP TABLE os_rate (game int, model text, beta float8, kappa float8, tau float8,
  limit_sigma bool, z float8, alpha float8, target float8, balance bool, epsilon float8,
  margin float8, by_score bool, team int, rank float8, score float8, mu float8, sigma float8,
  new_mu float8, new_sigma float8, idx serial);
\copy os_rate (game, model, beta, kappa, tau, limit_sigma, z, alpha, target, balance, epsilon, margin, by_score, team, rank, score, mu, sigma, new_mu, new_sigma) FROM 'test/vectors/openskill/rate.csv' WITH (FORMAT csv, HEADER true)

-- what the vectors cover
SELECT count(DISTINCT game) AS games, count(*) AS players,
       count(DISTINCT model) AS models,
       min(teams) AS min_teams, max(teams) AS max_teams,
       min(size) AS min_players, max(size) AS max_players
FROM os_rate
JOIN (SELECT game, count(DISTINCT team) AS teams FROM os_rate GROUP BY game) t USING (game)
JOIN (SELECT game, team, count(*) AS size FROM os_rate GROUP BY game, team) s USING (game, team);
SELECT count(DISTINCT game) FILTER (WHERE tied) AS games_with_ties,
       count(DISTINCT game) FILTER (WHERE by_score) AS games_by_score,
       count(DISTINCT game) FILTER (WHERE margin > 0) AS games_with_margin,
       count(DISTINCT game) FILTER (WHERE balance) AS games_with_balance,
       count(DISTINCT game) FILTER (WHERE limit_sigma) AS games_with_limit_sigma,
       count(DISTINCT game) FILTER (WHERE tau = 0) AS games_with_tau_0,
       count(DISTINCT game) FILTER (WHERE beta = 25.0 / 6 AND kappa = 0.0001 AND tau = 25.0 / 300) AS games_with_defaults
FROM os_rate
JOIN (SELECT game, count(DISTINCT team) > count(DISTINCT coalesce(rank, -score)) AS tied
      FROM os_rate GROUP BY game) t USING (game);

CREATE TEMP TABLE os_got AS
SELECT g.game, r.idx, r.mu, r.sigma
FROM (SELECT game, model, beta, kappa, tau, limit_sigma, z, alpha, target, balance, epsilon, margin, by_score,
             array_agg(team ORDER BY idx) AS team, array_agg(rank ORDER BY idx) AS rank,
             array_agg(score ORDER BY idx) AS score, array_agg(mu ORDER BY idx) AS mu,
             array_agg(sigma ORDER BY idx) AS sigma
      FROM os_rate GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13) g,
     mm.openskill_rate(g.team, CASE WHEN g.by_score THEN NULL ELSE g.rank END, g.mu, g.sigma,
        model => g.model, beta => g.beta, kappa => g.kappa, tau => g.tau, limit_sigma => g.limit_sigma,
        z => g.z, alpha => g.alpha, target => g.target, balance => g.balance, epsilon => g.epsilon,
        score => CASE WHEN g.by_score THEN g.score END, margin => g.margin) r;

-- per model: players, mismatches beyond 1e-9 relative, and the error bucket
WITH e AS (
  SELECT v.model, greatest(abs(o.mu - v.new_mu) / abs(v.new_mu),
                           abs(o.sigma - v.new_sigma) / v.new_sigma) AS rel
  FROM (SELECT *, row_number() OVER (PARTITION BY game ORDER BY idx) AS k FROM os_rate) v
  JOIN os_got o ON o.game = v.game AND o.idx = v.k)
SELECT coalesce(model, 'all') AS model, count(*) AS players,
       count(*) FILTER (WHERE rel > 1e-9 OR rel IS NULL) AS mismatches,
       CASE WHEN max(rel) < 1e-12 THEN '< 1e-12' WHEN max(rel) < 1e-9 THEN '< 1e-9' ELSE '>= 1e-9' END AS max_rel_error
FROM e GROUP BY ROLLUP (model) ORDER BY model NULLS LAST;

-- 120 random games' predictions: win, rank and draw
CREATE TEMP TABLE os_pred (game int, beta float8, team int, mu float8, sigma float8,
  win float8, rank int, draw float8, idx serial);
\copy os_pred (game, beta, team, mu, sigma, win, rank, draw) FROM 'test/vectors/openskill/predict.csv' WITH (FORMAT csv, HEADER true)
CREATE TEMP TABLE os_pgame AS
SELECT game, min(beta) AS beta, array_agg(team ORDER BY idx) AS team,
       array_agg(mu ORDER BY idx) AS mu, array_agg(sigma ORDER BY idx) AS sigma
FROM os_pred GROUP BY game;
CREATE TEMP TABLE os_pgot AS
SELECT g.game, w.team, w.probability AS win, r.rank,
       mm.openskill_predict_draw(g.team, g.mu, g.sigma, g.beta) AS draw
FROM os_pgame g
CROSS JOIN LATERAL mm.openskill_predict_win(g.team, g.mu, g.sigma, g.beta) w
JOIN LATERAL mm.openskill_predict_rank(g.team, g.mu, g.sigma, g.beta) r ON r.team = w.team;
WITH exp AS (SELECT DISTINCT game, team, win, rank, draw FROM os_pred)
SELECT count(DISTINCT game) AS games, count(*) AS teams,
       count(*) FILTER (WHERE NOT abs(got.win - exp.win) <= 1e-9 * abs(exp.win)) AS win_mismatches,
       count(*) FILTER (WHERE got.rank <> exp.rank) AS rank_mismatches,
       count(*) FILTER (WHERE NOT abs(got.draw - exp.draw) <= 1e-9 * abs(exp.draw)) AS draw_mismatches,
       max(abs(got.win - exp.win) / abs(exp.win)) < 1e-12 AS win_within_1e_12,
       max(abs(got.draw - exp.draw) / exp.draw) < 1e-12 AS draw_within_1e_12
FROM exp JOIN os_pgot got USING (game, team);

-- every game's win probabilities sum to 1
SELECT count(*) AS games_not_summing_to_1
FROM (SELECT game, sum(win) AS s FROM os_pgot GROUP BY game) x WHERE abs(s - 1) > 1e-12;
