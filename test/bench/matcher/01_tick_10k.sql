-- mm.tick over 10k waiting rosters, all 10k are targets (rolled back)
BEGIN;
SELECT count(*) FROM mm.tick('q10k', '2024-01-01 00:05:00+00');
ROLLBACK;
