-- mm 0.1.0 -> 0.2.0 upgrade.
--
-- Every change to SQL objects made after 0.1.0 is here, data migration
-- included, in the same order as the install script that builds 0.2.0
-- (sql/mm.sql then sql/parts/*.sql). The upgrade suite
-- (test/suites/upgrade.sh) proves that a database upgraded with this file
-- has the same catalog as a fresh 0.2.0 install.

\echo Use "ALTER EXTENSION mm UPDATE TO '0.2.0'" to load this file. \quit

-- ==== async pool, placement and inlinable signals ====

-- categorical_signal: inlinable (no SET search_path; every name qualified).
CREATE OR REPLACE FUNCTION mm.categorical_signal(a anyelement, b anyelement)
RETURNS float8
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT (a OPERATOR(pg_catalog.=) b)::pg_catalog.int4::pg_catalog.float8 $$;
COMMENT ON FUNCTION mm.categorical_signal(anyelement, anyelement) IS
    'categorical equality signal: 1 when the values are equal, else 0 (server categorical custom signals); inlined by the planner';
