-- 24 hours (1,000,000 rosters, 86,400 ticks)
SELECT count(*) FROM mm.whatif('busy', '2026-01-01 00:00+00', '2026-01-02 00:00+00');
