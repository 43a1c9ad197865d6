-- 20 ticks of a dense queue of 2000 waiting rosters, refilled after each
CALL bench_ticks('dense_2k', 2000, 'dense', 20);
