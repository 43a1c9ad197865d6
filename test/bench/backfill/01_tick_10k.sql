-- mm.tick over 10k waiting rosters, no open backfill request (rolled back)
BEGIN;
SELECT count(*) FROM mm.tick('plain', '2024-01-01 00:05:00+00');
ROLLBACK;
