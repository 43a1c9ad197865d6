-- The tiny SQL signal helpers are inlined by the planner and stay
-- schema-safe without a pinned search_path.

-- values, NULLs (STRICT: NULL in, NULL out) and types
SELECT mm.categorical_signal('Survival'::text, 'Survival') AS same_text,
       mm.categorical_signal('Creative'::text, 'Survival') AS other_text,
       mm.categorical_signal(3, 3) AS same_int,
       mm.categorical_signal(1.0, 1.00) AS same_numeric,
       mm.categorical_signal(true, false) AS other_bool,
       mm.categorical_signal(NULL::text, 'a') AS null_arg;

-- inlined: the plan holds the comparison itself, no call of the function
CREATE TEMP TABLE cat_rows (mode text);
INSERT INTO cat_rows VALUES ('Survival'), ('Creative'), ('Survival'), (NULL);
EXPLAIN (VERBOSE, COSTS OFF)
SELECT sum(mm.categorical_signal(mode, 'Survival')) FROM cat_rows;
SELECT sum(mm.categorical_signal(mode, 'Survival')) AS survival,
       count(mm.categorical_signal(mode, 'Survival')) AS counted
FROM cat_rows;

-- no SET search_path, yet a hostile search_path changes nothing: an
-- operator = for text that always says true, found first on the path,
-- is not the one the body uses
CREATE SCHEMA hostile;
CREATE FUNCTION hostile.always(a text, b text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$ SELECT true $$;
CREATE OPERATOR hostile.= (LEFTARG = text, RIGHTARG = text, FUNCTION = hostile.always);
SET search_path = hostile, pg_catalog;
SELECT 'a'::text = 'b'::text AS hostile_equal,
       mm.categorical_signal('a'::text, 'b') AS signal;
SELECT sum(mm.categorical_signal(mode, 'Survival')) AS survival FROM pg_temp.cat_rows;
RESET search_path;
DROP SCHEMA hostile CASCADE;
DROP TABLE cat_rows;

-- the helper is declared what it is
SELECT p.provolatile, p.proisstrict, p.proparallel, p.proconfig, l.lanname
FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
WHERE p.oid = 'mm.categorical_signal(anyelement, anyelement)'::regprocedure;
