#!/usr/bin/env python3
"""A queue's calibration of its odds, worked apart from mm's C code.

    python3 test/vectors/odds/scale.py

writes scale.tsv beside this file, one result a line, tab-separated for
COPY: sequence, window, step, the rating family's odds p of the first team,
the first team's score (1 won, 0.5 drew, 0 lost), then the belief after
the step: scale a and information P.

The calibration of docs/ratings.md ("Calibrated odds"): the stored odds are
1 / (1 + exp(-a z)), z = ln(p / (1 - p)); ln a has a Gaussian belief of mean
l = ln a and precision P, which starts at the prior N(0, 1) (a = 1, P = 1).
Each result first forgets (lambda = 1 - 1/window), then learns by one
Newton step of the likelihood of the result in ln a, the result being a
coin flip with the lapse rate e = 0.05 and otherwise drawn at the scaled
odds:

    P1 = lambda P + (1 - lambda),  l1 = lambda P l / P1
    x = exp(l1) z,  p1 = 1 / (1 + exp(-x))
    q = e/2 + (1 - e) p1,  q' = (1 - e) p1 (1 - p1) x
    P' = P1 + q'^2 / (q (1 - q)),  l' = l1 + (s - q) q' / (q (1 - q)) / P'

with the step l' - l1 at most 0.5 either way, and ln a within
[-ln 10, ln 10]. Only the standard library.
"""
import math
import os
import random

LIMIT = math.log(10.0)
LAPSE = 0.05
MAX_STEP = 0.5


def step(a, P, window, p, s):
    lam = 1.0 - 1.0 / window
    z = math.log(p) - math.log1p(-p)
    P1 = lam * P + (1.0 - lam)
    l1 = lam * P * math.log(a) / P1
    x = math.exp(l1) * z
    p1 = 1.0 / (1.0 + math.exp(-x))
    q = LAPSE / 2 + (1.0 - LAPSE) * p1
    dq = (1.0 - LAPSE) * p1 * (1.0 - p1) * x
    var = q * (1.0 - q)
    P2 = P1 + dq * dq / var
    d = (s - q) * dq / var / P2
    d = min(max(d, -MAX_STEP), MAX_STEP)
    l2 = min(max(l1 + d, -LIMIT), LIMIT)
    return math.exp(l2), P2


def sequences():
    # 1: the hand-worked start of docs/ratings.md: the favourite at 0.7
    # loses, then wins, then a draw at even odds, window 500
    yield 500, [(0.7, 0.0), (0.7, 1.0), (0.5, 0.5)]
    # 2: 60 results of odds too confident for the outcomes (the outcomes
    # drawn at half the family's logit), window 20: the scale falls below 1
    rng = random.Random(7)
    seq = []
    for _ in range(60):
        p = rng.choice([0.3, 0.4, 0.55, 0.65, 0.75, 0.85])
        z = math.log(p / (1 - p))
        seq.append((p, 1.0 if rng.random() < 1 / (1 + math.exp(-0.5 * z)) else 0.0))
    yield 20, seq
    # 3: odds too timid (outcomes at twice the logit), with draws, window 500
    seq = []
    for _ in range(60):
        p = rng.choice([0.45, 0.52, 0.58, 0.62])
        z = math.log(p / (1 - p))
        u = rng.random()
        seq.append((p, 0.5 if u < 0.05 else (1.0 if u < 1 / (1 + math.exp(-2 * z)) else 0.0)))
    yield 500, seq
    # 4: a window of 1 forgets all but the prior before each result
    yield 1, [(0.8, 0.0), (0.8, 0.0)]
    # 5: the limit: a first team barely favoured (0.505) wins 600 times,
    # window 10^9 (hardly any forgetting): ln a reaches ln 10 and stays there
    yield 1000000000, [(0.505, 1.0)] * 600
    # 6: upsets: the favourite at 0.999 loses, then at 0.99, then wins at
    # 0.999; each step bounded, the scale never near the limit
    yield 500, [(0.999, 0.0), (0.01, 1.0), (0.999, 1.0), (0.2, 1.0)]


if __name__ == '__main__':
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, 'scale.tsv'), 'w') as out:
        for k, (window, seq) in enumerate(sequences(), 1):
            a, P = 1.0, 1.0
            for i, (p, s) in enumerate(seq, 1):
                a, P = step(a, P, window, p, s)
                out.write('\t'.join([str(k), str(window), str(i), repr(p), repr(s), repr(a), repr(P)]) + '\n')
