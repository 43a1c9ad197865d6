-- 1M musigma ratings to compute ordinals over.
CREATE TABLE ratings AS
SELECT i AS player_id, 25 + 5 * sin(i) AS mu, 1 + (i % 700) / 100.0 AS sigma
FROM generate_series(1, 1000000) i;
VACUUM ANALYZE ratings;
