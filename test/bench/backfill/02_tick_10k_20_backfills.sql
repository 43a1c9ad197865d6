-- mm.tick over the same 10k rosters that first fills 20 backfill requests (rolled back)
BEGIN;
SELECT count(*) FROM mm.tick('bf', '2024-01-01 00:05:00+00');
ROLLBACK;
