#!/usr/bin/env python3
"""Glicko-2 team games, worked independently of mm's C code.

    python3 test/vectors/glicko2/team.py

writes team.tsv beside this file, one player of a team game a line,
tab-separated for COPY:
    game, player_id, team, rank, rating, rd, vol,
    team's win probability, new rating, new rd, new vol

The team likelihood of docs/ratings.md ("Glicko-2 in teams"), from
Glickman's "Example of the Glicko-2 system" (steps 2-8, tau 0.5): on the
Glicko-2 scale a team's strength is its players' mean mu; team A beats
team B with probability E = 1 / (1 + exp(-g(phi) (M_A - M_B))), phi^2 the
sum over both teams' players of phi_k^2 / n_t^2. The prediction uses every
player's phi; a player's update leaves out its own, and its game against
team B has step 3's terms with g_j = g(phi) / n_A: v^-1 gets
(g / n_A)^2 E (1 - E) and the sum of step 4 gets (g / n_A) (s - E). More
than two teams: one such game per opposing team, and each pair of teams
splits one win by its E, so a team's win probability is the sum of its E
over the other teams divided by the number of pairs, k (k - 1) / 2.
Only the standard library; floats are IEEE doubles, as in C.
"""
import math
import os

SCALE = 173.7178
TAU = 0.5
EPS = 1e-7


def g(phi):
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def volatility(phi, sigma, v, delta):
    """Step 5, the Illinois method as in the paper."""
    a = math.log(sigma * sigma)

    def f(x):
        ex = math.exp(x)
        return (ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2)
                - (x - a) / (TAU * TAU))

    A = a
    if delta * delta > phi * phi + v:
        B = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * TAU) < 0:
            k += 1
        B = a - k * TAU
    fA, fB = f(A), f(B)
    while abs(B - A) > EPS:
        C = A + (A - B) * fA / (fB - fA)
        fC = f(C)
        if fC * fB <= 0:
            A, fA = B, fB
        else:
            fA = fA / 2.0
        B, fB = C, fC
    return math.exp(A / 2.0)


def rate_game(players):
    """players: list of (id, team, rank, rating, rd, vol). Returns rows."""
    teams = sorted({p[1] for p in players}, key=lambda t: [p[1] for p in players].index(t))
    mu = {p[0]: (p[3] - 1500.0) / SCALE for p in players}
    phi = {p[0]: p[4] / SCALE for p in players}
    members = {t: [p for p in players if p[1] == t] for t in teams}
    n = {t: len(members[t]) for t in teams}
    mean = {t: sum(mu[p[0]] for p in members[t]) / n[t] for t in teams}
    rank = {t: members[t][0][2] for t in teams}

    def var(t, leave_out=None):
        return sum(phi[p[0]] ** 2 for p in members[t] if p[0] != leave_out) / n[t] ** 2

    def expect(a, b, gg):
        return 1.0 / (1.0 + math.exp(-gg * (mean[a] - mean[b])))

    prob = {}
    for a in teams:
        es = [expect(a, b, g(math.sqrt(var(a) + var(b)))) for b in teams if b != a]
        prob[a] = sum(es) / (len(teams) * (len(teams) - 1) / 2)

    rows = []
    for pid, team, rk, rating, rd, vol in players:
        v_inv = 0.0
        dsum = 0.0
        for b in teams:
            if b == team:
                continue
            s = 1.0 if rk < rank[b] else (0.5 if rk == rank[b] else 0.0)
            gg = g(math.sqrt(var(team, pid) + var(b)))
            e = expect(team, b, gg)
            gw = gg / n[team]
            v_inv += gw * gw * e * (1.0 - e)
            dsum += gw * (s - e)
        v = 1.0 / v_inv
        delta = v * dsum
        sigma = volatility(phi[pid], vol, v, delta)
        phi_star = math.sqrt(phi[pid] ** 2 + sigma ** 2)
        phi_new = 1.0 / math.sqrt(1.0 / phi_star ** 2 + 1.0 / v)
        mu_new = mu[pid] + phi_new ** 2 * dsum
        rows.append((pid, team, rk, rating, rd, vol, prob[team],
                     SCALE * mu_new + 1500.0, SCALE * phi_new, sigma))
    return rows


# (player_id, team, rank, rating, rd, vol)
GAMES = [
    # 1: 2v2, the stronger team with one uncertain player loses
    [(1, 1, 2, 1700, 60, 0.06), (2, 1, 2, 1500, 200, 0.06),
     (3, 2, 1, 1600, 100, 0.05), (4, 2, 1, 1400, 300, 0.07)],
    # 2: 3v3, new players against settled ones, new ones win
    [(11, 1, 1, 1500, 350, 0.06), (12, 1, 1, 1500, 350, 0.06), (13, 1, 1, 1500, 350, 0.06),
     (14, 2, 2, 1650, 80, 0.06), (15, 2, 2, 1550, 90, 0.06), (16, 2, 2, 1450, 70, 0.06)],
    # 3: 2v3, a draw
    [(21, 1, 1, 1800, 50, 0.06), (22, 1, 1, 1300, 150, 0.06),
     (23, 2, 1, 1550, 120, 0.06), (24, 2, 1, 1500, 200, 0.06), (25, 2, 1, 1520, 60, 0.06)],
    # 4: three teams of two: first, second, third
    [(31, 1, 1, 1500, 100, 0.06), (32, 1, 1, 1400, 200, 0.06),
     (33, 2, 2, 1600, 80, 0.06), (34, 2, 2, 1550, 120, 0.06),
     (35, 3, 3, 1450, 300, 0.06), (36, 3, 3, 1700, 50, 0.06)],
]

if __name__ == '__main__':
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, 'team.tsv'), 'w') as out:
        for k, game in enumerate(GAMES, 1):
            for row in rate_game(game):
                out.write('\t'.join([str(k)] + [repr(float(x)) if isinstance(x, float) else str(x)
                                                 for x in row]) + '\n')
