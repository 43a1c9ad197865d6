-- mm.tick over 100k waiting rosters, all 100k are targets (rolled back)
BEGIN;
SELECT count(*) FROM mm.tick('q100k', '2024-01-01 00:05:00+00');
ROLLBACK;
