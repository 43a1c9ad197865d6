-- 20 ticks of a dense queue of 100000 waiting rosters, refilled after each
CALL bench_ticks('dense_100k', 100000, 'dense', 20);
