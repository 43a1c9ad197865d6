-- The rows of one 10k queue for test/bench/citus_queues.sh (the rows of
-- test/bench/matcher): party sizes 1-5 (half solo), ratings ~ N(1500, 250)
-- clamped to [100, 3000], deviations 30-150, waits 0-300 s, nine
-- professions; the same rows in every database (fixed seed).
SELECT setseed(0.42);
CREATE TABLE fill_roster AS
SELECT i, CASE WHEN u < 0.50 THEN 1 WHEN u < 0.70 THEN 2 WHEN u < 0.82 THEN 3 WHEN u < 0.90 THEN 4 ELSE 5 END AS size,
       least(3000, greatest(100, 1500 + 250 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()))) AS rating,
       30 + 120 * random() AS deviation, floor(random() * 40) AS rank, floor(random() * 300) AS waited
FROM generate_series(1, 10000) i, LATERAL (SELECT random() AS u, i AS j) u;
-- queue order: longest waiting first, as they would have joined
ALTER TABLE fill_roster ADD COLUMN pos bigint;
UPDATE fill_roster f SET pos = o.pos FROM (SELECT i, row_number() OVER (ORDER BY waited DESC, i) AS pos FROM fill_roster) o
WHERE o.i = f.i;
CREATE TABLE fill_player AS
SELECT r.i, k AS seat,
       (ARRAY['guardian','warrior','thief','ranger','engineer','necromancer','mesmer','elementalist','revenant'])[1 + floor(random() * 9)::int] AS profession
FROM fill_roster r, generate_series(1, r.size) k;
