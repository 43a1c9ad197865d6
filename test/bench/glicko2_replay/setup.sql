-- A history of 1M games between 100k players over 100 days (10k a day),
-- the same formula as 02_node.mjs builds in memory.
CREATE TABLE history AS
SELECT a, CASE WHEN b = a THEN a % 100000 + 1 ELSE b END AS b, s, t
FROM (SELECT (g * 7919) % 100000 + 1 AS a,
             (g * 104729 + 13) % 100000 + 1 AS b,
             CASE (g * 13) % 7 WHEN 0 THEN 0.5 WHEN 1 THEN 1 WHEN 2 THEN 1 WHEN 3 THEN 1 ELSE 0 END::float8 AS s,
             '2024-01-01 00:00+00'::timestamptz + (g / 10000) * interval '1 day'
                 + ((g * 37) % 86400) * interval '1 second' AS t
      FROM generate_series(0::bigint, 999999) g) x;
VACUUM ANALYZE history;
CREATE INDEX ON history (t);
VACUUM ANALYZE history;
