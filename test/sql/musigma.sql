-- musigma: ordinal.
-- Errors show their message, detail and hint; the SQLSTATE is echoed after each.
\set VERBOSITY default

-- mm.ordinal: mu - z * sigma, z defaults to 3.
SELECT mm.ordinal(25, 25.0 / 3) AS default_rating_is_zero;
SELECT mm.ordinal(30, 10) AS ims_default;
SELECT mm.ordinal(30, 10, 2) AS z2;
SELECT mm.ordinal(30, 10, 0) AS z0_is_mu;
SELECT mm.ordinal(-5, 0.5, -1) AS negative_z;
SELECT round(mm.ordinal(27.795084971874736, 8.263160757613477)::numeric, 12) AS seed_winner;
SELECT mm.ordinal(1e300, 1e300, 3) AS large_but_finite;
SELECT mm.ordinal(NULL, 1) IS NULL AS strict;

-- the ordinal is immutable and parallel safe
SELECT provolatile, proparallel, proisstrict FROM pg_proc WHERE oid = 'mm.ordinal(float8, float8, float8)'::regprocedure;

-- errors: sigma must be positive and finite, no NaN anywhere
SELECT mm.ordinal(25, 0);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ordinal(25, -1);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ordinal(25, 'NaN');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ordinal(25, 'Infinity');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ordinal('NaN', 8);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ordinal('-Infinity', 8);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ordinal(25, 8, 'NaN');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ordinal(25, 8, 'Infinity');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.ordinal(-1e308, 1e308, 3);
\echo :LAST_ERROR_SQLSTATE
