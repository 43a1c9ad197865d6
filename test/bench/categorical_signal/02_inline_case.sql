-- the same CASE written inline over 1M rows (baseline)
SELECT sum(CASE WHEN mode = 'Survival' THEN 1.0::float8 ELSE 0.0::float8 END) FROM players;
