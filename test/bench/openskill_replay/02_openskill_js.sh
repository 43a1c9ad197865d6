# openskill.js 5.0.1 rate() over the same 100k matches in node, data in memory (baseline)
node "$MM_ROOT/test/bench/openskill_replay/openskill_replay.mjs"
