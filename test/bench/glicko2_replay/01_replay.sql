-- mm.glicko2_replay of 1M games in daily rating periods (C, reads the table)
SELECT count(*), sum(rating) FROM mm.glicko2_replay('SELECT a, b, s, t FROM history', '1 day');
