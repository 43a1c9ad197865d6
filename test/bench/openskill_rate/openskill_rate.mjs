// Node baseline for the openskill_rate benchmark: the same 100k 5v5 games
// as 01_rate.sql, each one openskill.js 5.0.1 rate() call.
import { join } from 'node:path';

const root = process.env.MM_ROOT ?? process.cwd();
const { rate } = await import(join(root, 'test/node/node_modules/openskill/dist/index.js'));

const sigma = [8.3, 7, 6, 5, 4, 8, 7, 6, 5, 4];
let sum = 0;
for (let i = 1; i <= 100000; i++) {
  const mu = [25 + (i % 7), 27, 23, 30, 21, 26, 24, 28, 22, 25];
  const teams = [0, 1].map((t) => [0, 1, 2, 3, 4].map((j) => ({ mu: mu[5 * t + j], sigma: sigma[5 * t + j] })));
  const out = rate(teams, { rank: [1, 2] });
  for (const team of out) for (const p of team) sum += p.mu;
}
console.log(sum);
