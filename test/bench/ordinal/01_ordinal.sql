-- mm.ordinal over 1M rows (C)
SELECT sum(mm.ordinal(mu, sigma)) FROM ratings;
