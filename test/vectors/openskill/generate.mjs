// Generate mm's OpenSkill reference vectors with openskill.js 5.0.1.
//
//   cd test/node && npm ci --no-audit --no-fund && cd ../..
//   node test/vectors/openskill/generate.mjs
//
// Writes rate.csv (one row per player of 300 random games: every model,
// 2-6 teams, 1-5 players, ties, default and custom options, ranks or
// scores with margins; then 10 larger games: 20v20 and 40-player
// free-for-alls) and predict.csv (one row per player of 120 random
// games with openskill.js's predictWin / predictDraw / predictRank).
// Deterministic: a seeded PRNG (mulberry32) drives everything.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, '../../node/package.json'));
const os = await import(require.resolve('openskill'));
const models = await import(join(here, '../../node/node_modules/openskill/dist/models/index.js'));

let seed = 20260301;
const rnd = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const uniform = (a, b) => a + (b - a) * rnd();
const int = (a, b) => a + Math.floor(rnd() * (b - a + 1));
const pick = (xs) => xs[Math.floor(rnd() * xs.length)];

const MODELS = {
  plackett_luce: models.plackettLuce,
  bradley_terry_full: models.bradleyTerryFull,
  bradley_terry_part: models.bradleyTerryPart,
  thurstone_mosteller_full: models.thurstoneMostellerFull,
  thurstone_mosteller_part: models.thurstoneMostellerPart,
};
const NAMES = Object.keys(MODELS);

const game = () => {
  const k = int(2, 6);
  const teams = [];
  for (let t = 0; t < k; t++) {
    const n = int(1, 5);
    teams.push(Array.from({ length: n }, () => ({ mu: uniform(5, 45), sigma: uniform(0.5, 10) })));
  }
  return teams;
};

const csv = (rows) => rows.map((r) => r.map((x) => (typeof x === 'number' ? String(x) : x)).join(',')).join('\n') + '\n';

// rate.csv
const head = ['game', 'model', 'beta', 'kappa', 'tau', 'limit_sigma', 'z', 'alpha', 'target',
  'balance', 'epsilon', 'margin', 'by_score', 'team', 'rank', 'score', 'mu', 'sigma', 'new_mu', 'new_sigma'];
const rows = [head];
for (let g = 1; g <= 300; g++) {
  const model = NAMES[(g - 1) % 5];
  const teams = game();
  const k = teams.length;
  const custom = g % 3 !== 0;  // a third of the games with default options
  const o = { model: MODELS[model] };
  const opt = { beta: 25 / 6, kappa: 0.0001, tau: 25 / 300, limitSigma: false, z: 3, alpha: 1,
    target: 0, balance: false, epsilon: 0.1, margin: 0 };
  if (custom) {
    opt.beta = uniform(1, 8); o.beta = opt.beta;
    if (rnd() < 0.5) { opt.kappa = pick([1e-3, 1e-5, 0.01]); o.kappa = opt.kappa; }
    opt.tau = pick([0, 0.1, 0.5, 25 / 300]); o.tau = opt.tau;
    if (rnd() < 0.5) { opt.limitSigma = true; o.limitSigma = true; }
    if (rnd() < 0.3) {
      opt.balance = true; o.balance = true;
      opt.z = uniform(1, 3); o.z = opt.z;
      opt.alpha = uniform(0.5, 2); o.alpha = opt.alpha;
      opt.target = uniform(0, 50); o.target = opt.target;
    }
    if (rnd() < 0.5) { opt.epsilon = uniform(0.01, 2); o.epsilon = opt.epsilon; }
  }
  // ranks with ties, or scores (with a margin half the time)
  const byScore = custom && rnd() < 0.25;
  let rank = null, score = null;
  if (byScore) {
    score = teams.map(() => int(0, 5));
    o.score = score;
    if (rnd() < 0.5) { opt.margin = pick([1, 2, 0.5]); o.margin = opt.margin; }
  } else {
    rank = teams.map(() => int(1, k));
    o.rank = rank;
  }
  const out = os.rate(teams, o);
  teams.forEach((team, t) => team.forEach((p, j) => {
    rows.push([g, model, opt.beta, opt.kappa, opt.tau, opt.limitSigma, opt.z, opt.alpha, opt.target,
      opt.balance, opt.epsilon, opt.margin, byScore, t + 1, rank ? rank[t] : '', score ? score[t] : '',
      p.mu, p.sigma, out[t][j].mu, out[t][j].sigma]);
  }));
}
writeFileSync(join(here, 'rate.csv'), csv(rows));

// predict.csv
const phead = ['game', 'beta', 'team', 'mu', 'sigma', 'win', 'rank', 'draw'];
const prows = [phead];
for (let g = 1; g <= 120; g++) {
  const teams = game();
  const o = g % 2 ? {} : { beta: uniform(1, 8) };
  const beta = o.beta ?? 25 / 6;
  const win = os.predictWin(teams, o);
  const draw = os.predictDraw(teams, o);
  const rank = os.predictRank(teams, o);
  teams.forEach((team, t) => team.forEach((p) => {
    prows.push([g, beta, t + 1, p.mu, p.sigma, win[t], rank[t][0], draw]);
  }));
}
writeFileSync(join(here, 'predict.csv'), csv(prows));

// rate.csv, continued: 10 games larger than mm rates without allocating
// (more than 32 players, or more than 32 teams), from a seed of their own
// so that the games above stay as they were
seed = 20261123;
for (let g = 301; g <= 310; g++) {
  const model = NAMES[(g - 1) % 5];
  const ffa = g % 2 === 0;
  const k = ffa ? 40 : 2;
  const teams = Array.from({ length: k }, () => Array.from({ length: ffa ? 1 : 20 },
    () => ({ mu: uniform(5, 45), sigma: uniform(0.5, 10) })));
  const rank = teams.map(() => int(1, ffa ? 30 : 2));
  const out = os.rate(teams, { model: MODELS[model], rank });
  teams.forEach((team, t) => team.forEach((p, j) => {
    rows.push([g, model, 25 / 6, 0.0001, 25 / 300, false, 3, 1, 0, false, 0.1, 0, false, t + 1, rank[t], '',
      p.mu, p.sigma, out[t][j].mu, out[t][j].sigma]);
  }));
}
writeFileSync(join(here, 'rate.csv'), csv(rows));
console.log(`rate.csv: ${rows.length - 1} players; predict.csv: ${prows.length - 1} players`);
