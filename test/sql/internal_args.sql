-- Calls SQL cannot make: a support function of an aggregate whose state is
-- internal (party_rating_agg's) cannot be called with a state from SQL.
--
-- Its expected output differs by PostgreSQL version, so it has two files:
-- expected/internal_args.out for 15 and 16, where a NULL of unknown type
-- matches no function taking internal (42883, "function ... does not
-- exist"), and expected/internal_args_1.out for 17 and later, where the NULL
-- is resolved to internal and then refused as a value of that type (0A000,
-- "cannot accept a value of type internal"). Either way nothing runs.
\set VERBOSITY default
SELECT mm.party_rating_final(NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.party_rating_combine(NULL, NULL);
\echo :LAST_ERROR_SQLSTATE
