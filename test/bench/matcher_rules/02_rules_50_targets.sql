-- mm.tick over the 100k queue of 20 modes x 6 regions (equal, latency and roles rules), 50 targets (rolled back)
BEGIN;
SELECT count(*) FROM mm.tick('rules', '2024-01-01 00:05:00+00');
ROLLBACK;
