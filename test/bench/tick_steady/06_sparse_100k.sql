-- 20 ticks of a sparse queue of 100000 waiting rosters, refilled after each
CALL bench_ticks('sparse_100k', 100000, 'sparse', 20);
