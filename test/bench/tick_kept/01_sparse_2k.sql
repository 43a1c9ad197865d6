-- kept input: 20 ticks of sparse_2k in one backend after the first, refilled by mm.enqueue
SET mm.keep_tick_input = 'always';
CALL bench_kept_ticks('sparse_2k', 20);
