-- 100k mm.openskill_rate calls, one 5v5 game each
SELECT count(*), sum(r.mu)
FROM generate_series(1, 100000) i,
     LATERAL mm.openskill_rate('{1,1,1,1,1,2,2,2,2,2}', '{1,1,1,1,1,2,2,2,2,2}',
         ARRAY[25 + i % 7, 27, 23, 30, 21, 26, 24, 28, 22, 25]::float8[],
         '{8.3,7,6,5,4,8,7,6,5,4}') r;
