-- mm.tick over the same queue with the equal and latency rules only (no roles rule), 50 targets (rolled back)
BEGIN;
SELECT mm.alter_queue('rules', $${"filter": {"rosters": 50}, "rules": [{"type": "equal", "attribute": "mode"},
    {"type": "latency", "max": 80, "expand": [{"after": 60, "max": 120}, {"after": 180, "max": 200}]}]}$$);
SELECT count(*) FROM mm.tick('rules', '2024-01-01 00:05:00+00');
ROLLBACK;
