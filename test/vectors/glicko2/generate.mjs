// Generate Glicko-2 test vectors from the npm package glicko2 1.2.2
// (test/node/package.json; run `npm ci` in test/node first).
//
//   node test/vectors/glicko2/generate.mjs
//
// writes, beside this file:
// vectors.tsv: one rating period of one player a line, tab-separated for COPY:
//   id, tau, rating, rd, vol, opp_rating[], opp_rd[], score[],
//   new rating, new rd, new vol
// 240 periods from a fixed seed: 1-10 games (wins, draws, losses, upsets
// against far stronger or weaker opponents) and about one in ten idle
// periods (no games: only the deviation grows). Case 0 is Glickman's
// worked example (glicko2.pdf).
// replay_games.tsv (player_id, opponent_id, score, played_at) and
// replay_expected.tsv (player_id, rating, rd, vol): a history of 60 players
// over 30 daily rating periods, rated by the package period by period
// (players who miss a period get its deviation growth, as in the package).
import { writeFileSync } from 'node:fs';
import { Glicko2 } from '../../node/node_modules/glicko2/glicko2.js';

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
const rand = rng(20140201);
const uniform = (lo, hi) => lo + (hi - lo) * rand();
const pick = (xs) => xs[Math.floor(rand() * xs.length)];

function ratePeriod(tau, p, games) {
	const ranking = new Glicko2({ tau, rating: 1500, rd: 350, vol: 0.06 });
	const player = ranking.makePlayer(p.rating, p.rd, p.vol);
	const matches = games.map((g) => [player, ranking.makePlayer(g.rating, g.rd, 0.06), g.score]);
	ranking.updateRatings(matches);
	return { rating: player.getRating(), rd: player.getRd(), vol: player.getVol() };
}

function line(id, tau, p, games, r) {
	const arr = (xs) => '{' + xs.join(',') + '}';
	return [id, tau, p.rating, p.rd, p.vol,
		arr(games.map((g) => g.rating)), arr(games.map((g) => g.rd)), arr(games.map((g) => g.score)),
		r.rating, r.rd, r.vol].join('\t');
}

const out = [];
// Glickman's example: 1500/200/0.06 against 1400/30 (win), 1550/100 (loss), 1700/300 (loss).
{
	const p = { rating: 1500, rd: 200, vol: 0.06 };
	const games = [{ rating: 1400, rd: 30, score: 1 }, { rating: 1550, rd: 100, score: 0 }, { rating: 1700, rd: 300, score: 0 }];
	out.push(line(0, 0.5, p, games, ratePeriod(0.5, p, games)));
}
for (let id = 1; id <= 240; id++) {
	const tau = pick([0.3, 0.5, 0.5, 0.8, 1.2]);
	const p = {
		rating: Math.round(uniform(800, 2400) * 100) / 100,
		rd: Math.round(uniform(30, 350) * 100) / 100,
		vol: Math.round(uniform(0.03, 0.1) * 1e5) / 1e5,
	};
	const n = rand() < 0.1 ? 0 : 1 + Math.floor(rand() * 10);
	const games = [];
	for (let i = 0; i < n; i++) {
		// mostly near the player's rating, sometimes far away (upsets)
		const spread = rand() < 0.2 ? 1200 : 400;
		const g = {
			rating: Math.round(uniform(p.rating - spread, p.rating + spread) * 100) / 100,
			rd: Math.round(uniform(30, 350) * 100) / 100,
		};
		const u = rand();
		g.score = u < 0.15 ? 0.5 : (u < 0.575 ? 1 : 0);
		games.push(g);
	}
	out.push(line(id, tau, p, games, ratePeriod(tau, p, games)));
}
const dir = new URL('.', import.meta.url);
writeFileSync(new URL('vectors.tsv', dir), out.join('\n') + '\n');

// Replay: 60 players, 30 one-day periods, 20-60 games in each.
{
	const ranking = new Glicko2({ tau: 0.5, rating: 1500, rd: 350, vol: 0.06 });
	const players = new Map();
	const strength = [];
	for (let i = 1; i <= 60; i++) strength[i] = uniform(1000, 2000);
	const get = (id) => {
		if (!players.has(id)) players.set(id, ranking.makePlayer(1500, 350, 0.06));
		return players.get(id);
	};
	const games = [];
	const t0 = Date.UTC(2024, 0, 1);
	for (let day = 0; day < 30; day++) {
		const matches = [];
		const n = 20 + Math.floor(rand() * 41);
		for (let i = 0; i < n; i++) {
			// the first ten days bring in the players gradually
			const pool = Math.min(60, 10 + day * 5);
			const a = 1 + Math.floor(rand() * pool);
			let b = 1 + Math.floor(rand() * pool);
			if (b === a) b = (a % pool) + 1;
			const pa = 1 / (1 + Math.pow(10, (strength[b] - strength[a]) / 400));
			const u = rand();
			const score = u < 0.1 ? 0.5 : (rand() < pa ? 1 : 0);
			const at = new Date(t0 + day * 86400000 + Math.floor(rand() * 86400000));
			games.push([a, b, score, at.toISOString()].join('\t'));
			matches.push([get(a), get(b), score]);
		}
		ranking.updateRatings(matches);
	}
	writeFileSync(new URL('replay_games.tsv', dir), games.join('\n') + '\n');
	const rows = [...players.entries()].sort((x, y) => x[0] - y[0])
		.map(([id, p]) => [id, p.getRating(), p.getRd(), p.getVol()].join('\t'));
	writeFileSync(new URL('replay_expected.tsv', dir), rows.join('\n') + '\n');
}
