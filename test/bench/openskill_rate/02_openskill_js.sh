# 100k openskill.js 5.0.1 rate() calls in node, one 5v5 game each (baseline)
node "$MM_ROOT/test/bench/openskill_rate/openskill_rate.mjs"
