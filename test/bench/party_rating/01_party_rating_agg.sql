-- mm.party_rating_agg(mu, sigma) over one party of 20k rows, 10 times
SELECT mm.party_rating_agg(mu, sigma) FROM members;
SELECT mm.party_rating_agg(mu, sigma) FROM members;
SELECT mm.party_rating_agg(mu, sigma) FROM members;
SELECT mm.party_rating_agg(mu, sigma) FROM members;
SELECT mm.party_rating_agg(mu, sigma) FROM members;
SELECT mm.party_rating_agg(mu, sigma) FROM members;
SELECT mm.party_rating_agg(mu, sigma) FROM members;
SELECT mm.party_rating_agg(mu, sigma) FROM members;
SELECT mm.party_rating_agg(mu, sigma) FROM members;
SELECT mm.party_rating_agg(mu, sigma) FROM members;
