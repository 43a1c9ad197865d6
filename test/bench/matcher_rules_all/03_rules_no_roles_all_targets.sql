-- mm.tick over a queue drawn the same way with the equal and latency rules only (no roles rule), all 100k are targets (rolled back)
BEGIN;
SELECT count(*) FROM mm.tick('latency', '2024-01-01 00:05:00+00');
ROLLBACK;
