-- 6 hours (250,000 rosters, 21,600 ticks)
SELECT count(*) FROM mm.whatif('busy', '2026-01-01 09:00+00', '2026-01-01 15:00+00');
