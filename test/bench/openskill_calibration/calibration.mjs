// Node baseline for the openskill_calibration benchmark: the same 100k 5v5
// matches as setup.sql, generated in memory; for each match openskill.js
// 5.0.1 predictWin (the favoured team's probability and whether it won),
// then rate (Plackett-Luce, defaults); Brier score, log loss and accuracy
// summed as mm.openskill_calibration sums them.
import { join } from 'node:path';

const root = process.env.MM_ROOT ?? process.cwd();
const { rate, predictWin } = await import(join(root, 'test/node/node_modules/openskill/dist/index.js'));

const players = 10000;
const eps = 1e-15;
const mu = new Float64Array(players + 1).fill(25);
const sigma = new Float64Array(players + 1).fill(25 / 3);
let n = 0;
let sq = 0;
let ll = 0;
let acc = 0;
for (let m = 1; m <= 100000; m++) {
  const ids = [[], []];
  for (let s = 0; s < 10; s++) ids[Math.floor(s / 5)].push(((m * 7919 + s * 1009) % 10000) + 1);
  for (const team of ids) team.sort((a, b) => a - b);
  const teams = ids.map((team) => team.map((id) => ({ mu: mu[id], sigma: sigma[id] })));
  const rank = m % 3 !== 0 ? [1, 2] : [2, 1];
  const prob = predictWin(teams);
  const f = prob[1] > prob[0] ? 1 : 0;
  const p = prob[f];
  const y = rank[f] < rank[1 - f] ? 1 : 0;
  const q = Math.min(Math.max(p, eps), 1 - eps);
  n++;
  sq += (p - y) * (p - y);
  ll -= y * Math.log(q) + (1 - y) * Math.log(1 - q);
  acc += p > 0.5 ? y : p < 0.5 ? 1 - y : 0.5;
  const out = rate(teams, { rank });
  ids.forEach((team, t) => team.forEach((id, j) => { mu[id] = out[t][j].mu; sigma[id] = out[t][j].sigma; }));
}
console.log(n, sq / n, ll / n, acc / n);
