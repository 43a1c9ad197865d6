# openskill.js 5.0.1 predictWin then rate over the same matches in node, data in memory, with the same figures (baseline)
node "$MM_ROOT/test/bench/openskill_calibration/calibration.mjs"
