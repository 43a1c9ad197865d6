-- mm.glicko2_replay of the same games queried in played_at order (an index on t: no sort)
SELECT count(*), sum(rating) FROM mm.glicko2_replay('SELECT a, b, s, t FROM history ORDER BY t', '1 day');
