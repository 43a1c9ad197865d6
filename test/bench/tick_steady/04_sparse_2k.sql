-- 20 ticks of a sparse queue of 2000 waiting rosters, refilled after each
CALL bench_ticks('sparse_2k', 2000, 'sparse', 20);
