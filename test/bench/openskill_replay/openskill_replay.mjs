// Node baseline for the openskill_replay benchmark: the same 100k 5v5
// matches as setup.sql, generated in memory, rated one by one with
// openskill.js 5.0.1 (Plackett-Luce, defaults), ratings kept in an array.
import { join } from 'node:path';

const root = process.env.MM_ROOT ?? process.cwd();
const { rate } = await import(join(root, 'test/node/node_modules/openskill/dist/index.js'));

const players = 10000;
const mu = new Float64Array(players + 1).fill(25);
const sigma = new Float64Array(players + 1).fill(25 / 3);
for (let m = 1; m <= 100000; m++) {
  const ids = [[], []];
  for (let s = 0; s < 10; s++) ids[Math.floor(s / 5)].push(((m * 7919 + s * 1009) % 10000) + 1);
  for (const team of ids) team.sort((a, b) => a - b);
  const teams = ids.map((team) => team.map((id) => ({ mu: mu[id], sigma: sigma[id] })));
  const rank = m % 3 !== 0 ? [1, 2] : [2, 1];
  const out = rate(teams, { rank });
  ids.forEach((team, t) => team.forEach((id, j) => { mu[id] = out[t][j].mu; sigma[id] = out[t][j].sigma; }));
}
let sum = 0;
for (let i = 1; i <= players; i++) sum += mu[i];
console.log(players, sum);
