-- 20 ticks of a dense queue of 20000 waiting rosters, refilled after each
CALL bench_ticks('dense_20k', 20000, 'dense', 20);
