-- mm.tick over the same rosters, all targets, the fairest split (the default), rolled back
BEGIN;
SELECT count(*) FROM mm.tick('q10k', '2024-01-01 00:05:00+00');
ROLLBACK;
