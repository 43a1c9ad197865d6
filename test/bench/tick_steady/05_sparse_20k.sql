-- 20 ticks of a sparse queue of 20000 waiting rosters, refilled after each
CALL bench_ticks('sparse_20k', 20000, 'sparse', 20);
