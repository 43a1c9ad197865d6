-- mu - 3 * sigma inline in SQL over 1M rows (baseline)
SELECT sum(mu - 3 * sigma) FROM ratings;
