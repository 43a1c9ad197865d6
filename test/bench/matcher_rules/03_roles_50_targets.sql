-- mm.tick over the 100k single-mode queue with players' roles and a roles rule (1 tank, 2 damage, 2 support), 50 targets (rolled back)
BEGIN;
SELECT mm.alter_queue('roles', '{"filter": {"rosters": 50}}');
SELECT count(*) FROM mm.tick('roles', '2024-01-01 00:05:00+00');
ROLLBACK;
