-- mm.party_rating(array_agg(mu), array_agg(sigma)) over the same 20k rows, 10 times (baseline)
SELECT mm.party_rating(array_agg(mu), array_agg(sigma)) FROM members;
SELECT mm.party_rating(array_agg(mu), array_agg(sigma)) FROM members;
SELECT mm.party_rating(array_agg(mu), array_agg(sigma)) FROM members;
SELECT mm.party_rating(array_agg(mu), array_agg(sigma)) FROM members;
SELECT mm.party_rating(array_agg(mu), array_agg(sigma)) FROM members;
SELECT mm.party_rating(array_agg(mu), array_agg(sigma)) FROM members;
SELECT mm.party_rating(array_agg(mu), array_agg(sigma)) FROM members;
SELECT mm.party_rating(array_agg(mu), array_agg(sigma)) FROM members;
SELECT mm.party_rating(array_agg(mu), array_agg(sigma)) FROM members;
SELECT mm.party_rating(array_agg(mu), array_agg(sigma)) FROM members;
