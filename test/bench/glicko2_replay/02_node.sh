# npm glicko2 1.2.2 in node, the same 1M games built in memory (baseline)
node "$MM_ROOT/test/bench/glicko2_replay/replay.mjs"
