-- mm.tick over the 100k single-mode queue without rules, 50 targets (rolled back)
BEGIN;
SELECT count(*) FROM mm.tick('single', '2024-01-01 00:05:00+00');
ROLLBACK;
