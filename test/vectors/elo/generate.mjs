// Generate Elo test vectors from the npm package arpad 2.0.0 (package.json
// and package-lock.json beside this file; run `npm ci` here first).
//
//   node test/vectors/elo/generate.mjs
//
// writes vectors.tsv beside this file: one game between two players a line,
// tab-separated for COPY:
//   id, k, rating_a, rating_b, score_a (1, 0.5 or 0),
//   expected_a (arpad's expectedScore, unrounded),
//   new_a, new_b (arpad's newRating: the new rating rounded to a whole
//   number, as the package rounds it)
// 300 games from a fixed seed: K-factors 10, 16, 20, 24, 32 and 40, ratings
// from 100 to 3000 (far stronger and far weaker opponents), wins, draws and
// losses. Case 1 is the usual textbook one: 1500 beats 1500 with K 32.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const Elo = require('arpad');

// mulberry32: a small seeded PRNG, so the vectors are reproducible.
function rng(seed) {
	return function () {
		seed |= 0;
		seed = (seed + 0x6d2b79f5) | 0;
		let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
		t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}
const rand = rng(19600401);
const pick = (xs) => xs[Math.floor(rand() * xs.length)];

const lines = [];
function add(k, a, b, score) {
	const elo = new Elo(k);
	const expected = elo.expectedScore(a, b);
	const newA = elo.newRating(expected, score, a);
	const newB = elo.newRating(elo.expectedScore(b, a), 1 - score, b);
	lines.push([lines.length + 1, k, a, b, score, expected, newA, newB].join('\t'));
}
add(32, 1500, 1500, 1);
for (let i = 1; i < 300; i++) {
	const a = Math.round(100 + 2900 * rand());
	// mostly close games, some far apart
	const b = rand() < 0.7 ? Math.min(3000, Math.max(100, Math.round(a + (rand() - 0.5) * 600)))
		: Math.round(100 + 2900 * rand());
	add(pick([10, 16, 20, 24, 32, 40]), a, b, pick([1, 0.5, 0]));
}
writeFileSync(new URL('vectors.tsv', import.meta.url), lines.join('\n') + '\n');
