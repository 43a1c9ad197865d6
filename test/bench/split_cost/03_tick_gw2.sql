-- mm.tick over the 10k queue, all targets, GW2's teams (split gw2), rolled back
BEGIN;
SELECT count(*) FROM mm.tick('q10k_gw2', '2024-01-01 00:05:00+00');
ROLLBACK;
