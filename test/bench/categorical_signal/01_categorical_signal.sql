-- mm.categorical_signal over 1M rows (SQL, inlined)
SELECT sum(mm.categorical_signal(mode, 'Survival')) FROM players;
