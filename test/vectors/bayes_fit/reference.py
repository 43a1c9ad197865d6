#!/usr/bin/env python3
"""Reference values for mm.bayes_fit, computed apart from its C code.

The model (src/analytics/bayes_fit.c): each player's skill theta ~ N(0,
prior_sd^2); a team performs u = sum of w * theta / beta over its players;
the teams' order is Plackett-Luce's, teams that share a rank each counted
against every team ranked as well or worse (Breslow). The posterior mode is
found here by Newton's method on the whole Hessian (not the C code's
coordinate steps), from zero, with step halving, to a gradient below 1e-13;
each player's deviation is the square root of the diagonal of the inverse
Hessian (Gauss-Jordan).

Writes histories.tsv (case, match, player_id, team, rank, weight) and
expected.tsv (case, prior_sd, beta, player_id, rating, deviation, games).
Pure Python, seeded: run it again and the files are the same.
"""
import math
import random

random.seed(20261206)


def games_of(rows):
    """Rows (match, player, team, rank, weight) into games: lists of teams
    in order of first appearance, each (rank, [(player, weight), ...])."""
    games = []
    cur = None
    for m, p, t, r, w in rows:
        if cur is None or cur[0] != m:
            cur = (m, {}, [])
            games.append(cur)
        teams, order = cur[1], cur[2]
        if t not in teams:
            teams[t] = (r, [])
            order.append(t)
        teams[t][1].append((p, w))
    return [[cur[1][t] for t in cur[2]] for cur in games]


def log_post(theta, games, prior_sd, beta):
    lp = -sum(x * x for x in theta.values()) / (2 * prior_sd * prior_sd)
    for g in games:
        u = [sum(w * theta[p] for p, w in team) / beta for _, team in g]
        for a, (ra, _) in enumerate(g):
            risk = [u[q] for q, (rq, _) in enumerate(g) if rq >= ra]
            top = max(risk)
            lp += u[a] - (top + math.log(sum(math.exp(x - top) for x in risk)))
    return lp


def grad_hess(theta, games, players, prior_sd, beta):
    n = len(players)
    idx = {p: i for i, p in enumerate(players)}
    gr = [-theta[p] / (prior_sd * prior_sd) for p in players]
    h = [[0.0] * n for _ in range(n)]
    for i in range(n):
        h[i][i] = 1 / (prior_sd * prior_sd)
    for g in games:
        u = [sum(w * theta[p] for p, w in team) / beta for _, team in g]
        top = max(u)
        e = [math.exp(x - top) for x in u]
        k = len(g)
        # d loglik / du_t and the curvature matrix C (positive semidefinite)
        d1 = [1.0] * k
        c = [[0.0] * k for _ in range(k)]
        for q in range(k):
            rq = g[q][0]
            members = [t for t in range(k) if g[t][0] >= rq]
            s = sum(e[t] for t in members)
            for t in members:
                pt = e[t] / s
                d1[t] -= pt
                for v in members:
                    pv = e[v] / s
                    c[t][v] += (pt if t == v else 0.0) - pt * pv
        for t, (_, team) in enumerate(g):
            for p, w in team:
                gr[idx[p]] += w / beta * d1[t]
                for v, (_, team2) in enumerate(g):
                    for p2, w2 in team2:
                        h[idx[p]][idx[p2]] += c[t][v] * w * w2 / (beta * beta)
    return gr, h


def solve(a, b):
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[piv] = m[piv], m[col]
        for r in range(n):
            if r != col:
                f = m[r][col] / m[col][col]
                for j in range(col, n + 1):
                    m[r][j] -= f * m[col][j]
    return [m[i][n] / m[i][i] for i in range(n)]


def inverse_diag(a):
    n = len(a)
    out = []
    for i in range(n):
        e = [0.0] * n
        e[i] = 1.0
        out.append(solve(a, e)[i])
    return out


def fit(rows, prior_sd, beta):
    games = games_of(rows)
    players = sorted({r[1] for r in rows})
    theta = {p: 0.0 for p in players}
    for _ in range(200):
        gr, h = grad_hess(theta, games, players, prior_sd, beta)
        if max(abs(x) for x in gr) < 1e-13:
            break
        step = solve(h, gr)
        lp0 = log_post(theta, games, prior_sd, beta)
        t = 1.0
        while True:
            cand = {p: theta[p] + t * step[i] for i, p in enumerate(players)}
            if log_post(cand, games, prior_sd, beta) >= lp0 - 1e-15 or t < 1e-6:
                break
            t /= 2
        theta = cand
    _, h = grad_hess(theta, games, players, prior_sd, beta)
    dev = [math.sqrt(x) for x in inverse_diag(h)]
    count = {p: 0 for p in players}
    for r in rows:
        count[r[1]] += 1
    return [(p, theta[p], dev[i], count[p]) for i, p in enumerate(players)]


def team_game(m, n_teams, size, pool, ties=False):
    picked = random.sample(pool, n_teams * size)
    ranks = list(range(1, n_teams + 1))
    random.shuffle(ranks)
    if ties and n_teams > 2 and random.random() < 0.3:
        ranks[1] = ranks[0]
    rows = []
    for t in range(n_teams):
        for k in range(size):
            rows.append((m, picked[t * size + k], t + 1, float(ranks[t]), 1.0))
    return rows


cases = []
# 1. hand-made: 1v1s, a 2v2, a three-team game with a tie for first
hand = [(1, 1, 1, 1.0, 1.0), (1, 2, 2, 2.0, 1.0), (2, 1, 1, 2.0, 1.0), (2, 3, 2, 1.0, 1.0),
        (3, 2, 1, 1.0, 1.0), (3, 3, 2, 2.0, 1.0), (4, 1, 1, 1.0, 1.0), (4, 2, 1, 1.0, 1.0),
        (4, 3, 2, 2.0, 1.0), (4, 4, 2, 2.0, 1.0), (5, 1, 1, 1.0, 1.0), (5, 2, 2, 1.0, 1.0),
        (5, 3, 3, 2.0, 1.0)]
cases.append(('hand', hand, [(1.0, 1.0), (2.0, 0.5)]))
# 2. 3v3 among 18 players, 60 games, weights of 1 and 0.5
rows = []
for m in range(1, 61):
    g = team_game(m, 2, 3, list(range(101, 119)))
    rows += [(a, b, c, d, 0.5 if random.random() < 0.1 else 1.0) for a, b, c, d, _ in g]
cases.append(('team3', rows, [(1.0, 2.0)]))
# 3. free-for-all of 4 among 12 players, 40 games, some ties
rows = []
for m in range(1, 41):
    rows += team_game(m, 4, 1, list(range(201, 213)), ties=True)
cases.append(('ffa4', rows, [(1.0, 2.0)]))

with open('histories.tsv', 'w') as h, open('expected.tsv', 'w') as e:
    for name, rows, params in cases:
        for m, p, t, r, w in rows:
            h.write(f'{name}\t{m}\t{p}\t{t}\t{r:g}\t{w:g}\n')
        for prior_sd, beta in params:
            for p, rating, dev, games in fit(rows, prior_sd, beta):
                e.write(f'{name}\t{prior_sd:g}\t{beta:g}\t{p}\t{rating:.15g}\t{dev:.15g}\t{games}\n')
