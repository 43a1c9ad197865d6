-- mm: game matchmaking and skill rating inside PostgreSQL.
--
-- Install script source. The Makefile builds sql/mm--<version>.sql from this
-- file followed by sql/parts/*.sql in name order (one part per feature), and
-- the upgrade scripts from the same files (sql/generate.pl).
-- Every object lives in schema mm, created here, and every reference is
-- schema-qualified.

\echo Use "CREATE EXTENSION mm" to load this file. \quit

-- The schema is a member of the extension: DROP EXTENSION removes it with
-- everything in it. A schema mm that already exists is an error here rather
-- than being taken over.
CREATE SCHEMA mm;
COMMENT ON SCHEMA mm IS 'mm: game matchmaking and skill rating (Glicko-2, OpenSkill, server scoring, roster matching, async opponents)';

-- Types of the SQL contract (docs/architecture.md).

CREATE TYPE mm.rating AS (
    mu    float8,
    sigma float8
);
COMMENT ON TYPE mm.rating IS 'a musigma / OpenSkill rating: skill belief N(mu, sigma^2)';

CREATE TYPE mm.glicko AS (
    rating float8,
    rd     float8,
    vol    float8
);
COMMENT ON TYPE mm.glicko IS 'a Glicko-2 rating on the Glicko scale: rating, rating deviation, volatility';

-- Calls that write refuse to run on a hot standby with mm's own message
-- (SQLSTATE 25006, read_only_sql_transaction) before PostgreSQL's
-- "cannot execute ... in a read-only transaction" deeper inside them.

-- @access internal
CREATE FUNCTION mm._require_primary(fname text)
RETURNS void
AS 'MODULE_PATHNAME', 'mm_require_primary_sql'
LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm._require_primary IS
    'internal: raise "<fname> must run on the primary" (SQLSTATE 25006) when this server is a standby in recovery; the functions that write call it first';

-- A NULL where a value is needed is refused with SQLSTATE 22004 naming the
-- argument (docs/conventions.md, NULL); SQL and PL/pgSQL functions call
-- this when an argument is NULL (C functions call mm_args_not_null). It is
-- STABLE, not IMMUTABLE: with a constant name an IMMUTABLE call would be
-- folded (and raise) when a query calling it is planned, whatever the WHERE
-- clause that guards it.

-- @access internal
CREATE FUNCTION mm._null_arg(arg text)
RETURNS void
AS 'MODULE_PATHNAME', 'mm_null_arg_sql'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm._null_arg IS
    'internal: raise "<arg> must not be null" (SQLSTATE 22004); a function calls it when its argument arg is NULL';

-- musigma: ordinal

-- @access public
CREATE FUNCTION mm.ordinal(mu float8, sigma float8, z float8 DEFAULT 3)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_ordinal'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.ordinal IS
    'conservative skill estimate mu - z * sigma (z defaults to 3)';
