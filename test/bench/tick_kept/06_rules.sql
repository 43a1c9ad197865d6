-- kept input: 20 ticks of rules in one backend after the first, refilled by mm.enqueue
SET mm.keep_tick_input = 'always';
CALL bench_kept_ticks('rules', 20);
