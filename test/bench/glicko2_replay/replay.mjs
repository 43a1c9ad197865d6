// Replay of 1M games (100k players, 100 daily periods) with npm glicko2
// 1.2.2, the data built in memory by setup.sql's formula. Prints the
// player count and the sum of ratings (compare with 01_replay.sql).
import { Glicko2 } from '../../node/node_modules/glicko2/glicko2.js';

const ranking = new Glicko2({ tau: 0.5, rating: 1500, rd: 350, vol: 0.06 });
const players = new Map();
const get = (id) => {
	let p = players.get(id);
	if (p === undefined) {
		p = ranking.makePlayer(1500, 350, 0.06);
		players.set(id, p);
	}
	return p;
};
const scores = [0.5, 1, 1, 1, 0, 0, 0];
for (let day = 0; day < 100; day++) {
	const matches = [];
	for (let g = day * 10000; g < (day + 1) * 10000; g++) {
		const a = (g * 7919) % 100000 + 1;
		let b = (g * 104729 + 13) % 100000 + 1;
		if (b === a) b = (a % 100000) + 1;
		matches.push([get(a), get(b), scores[(g * 13) % 7]]);
	}
	ranking.updateRatings(matches);
}
let sum = 0;
for (const p of players.values()) sum += p.getRating();
console.log(players.size, sum);
