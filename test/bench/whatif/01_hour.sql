-- 1 hour (41,667 rosters, 3,600 ticks)
SELECT count(*) FROM mm.whatif('busy', '2026-01-01 12:00+00', '2026-01-01 13:00+00');
