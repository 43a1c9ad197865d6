-- One party of 20,000 members (the size where the float8[] state of 0.1.0
-- took seconds: it was copied on every row).
CREATE TABLE members AS
SELECT i AS player_id, 20 + (i * 7919) % 13 + (i % 100) / 100.0 AS mu, 1 + (i % 500) / 100.0 AS sigma
FROM generate_series(1, 20000) i;
VACUUM ANALYZE members;
