-- The extension as a whole: install, drop, reinstall, and every object documented.
\set VERBOSITY default

-- Every member object of the extension has a COMMENT. A type PostgreSQL
-- makes for another object (a table's or view's row type, any type's array
-- type) is documented by that object; PostgreSQL 17 and later record such
-- types as members too, 15 and 16 do not.
SELECT pg_describe_object(d.classid, d.objid, d.objsubid) AS undocumented
FROM pg_depend d
JOIN pg_extension e ON e.oid = d.refobjid AND d.refclassid = 'pg_extension'::regclass
WHERE e.extname = 'mm' AND d.deptype = 'e'
  AND pg_catalog.obj_description(d.objid, (SELECT relname FROM pg_class WHERE oid = d.classid)) IS NULL
  AND NOT EXISTS (SELECT FROM pg_type t
                  WHERE d.classid = 'pg_type'::regclass AND t.oid = d.objid
                    AND (EXISTS (SELECT FROM pg_class c WHERE c.oid = t.typrelid AND c.relkind <> 'c')
                         OR EXISTS (SELECT FROM pg_type el WHERE el.oid = t.typelem AND el.typarray = t.oid)))
ORDER BY 1;

-- Every member object lives in schema mm (functions, types, tables, ...).
SELECT pg_describe_object(d.classid, d.objid, d.objsubid) AS outside_mm
FROM pg_depend d
JOIN pg_extension e ON e.oid = d.refobjid AND d.refclassid = 'pg_extension'::regclass
WHERE e.extname = 'mm' AND d.deptype = 'e'
  AND COALESCE(
        (SELECT pronamespace FROM pg_proc WHERE d.classid = 'pg_proc'::regclass AND oid = d.objid),
        (SELECT typnamespace FROM pg_type WHERE d.classid = 'pg_type'::regclass AND oid = d.objid),
        (SELECT relnamespace FROM pg_class WHERE d.classid = 'pg_class'::regclass AND oid = d.objid),
        'mm'::regnamespace) <> 'mm'::regnamespace
ORDER BY 1;

-- Functions written in SQL or PL/pgSQL pin their search_path, except the
-- inlinable signal helpers listed here (a SET clause stops inlining; their
-- bodies qualify every name instead).
SELECT p.oid::regprocedure AS unpinned
FROM pg_proc p
JOIN pg_language l ON l.oid = p.prolang
WHERE p.pronamespace = 'mm'::regnamespace
  AND l.lanname IN ('sql', 'plpgsql')
  AND NOT EXISTS (SELECT 1 FROM unnest(p.proconfig) c WHERE c LIKE 'search_path=%')
ORDER BY 1;

-- DROP EXTENSION leaves nothing behind: snapshot the catalogs without mm,
-- create and drop it, and compare.
CREATE TEMP TABLE before_mm (cat text, name text);
DROP EXTENSION mm;
INSERT INTO before_mm
SELECT 'pg_namespace' AS cat, nspname::text AS name FROM pg_namespace
UNION ALL SELECT 'pg_class', oid::regclass::text FROM pg_class WHERE relpersistence <> 't'
UNION ALL SELECT 'pg_type', oid::regtype::text FROM pg_type WHERE typnamespace <> pg_my_temp_schema()
UNION ALL SELECT 'pg_proc', oid::regprocedure::text FROM pg_proc
UNION ALL SELECT 'pg_depend', count(*)::text FROM pg_depend
UNION ALL SELECT 'pg_description', count(*)::text FROM pg_description;
CREATE EXTENSION mm;
SELECT count(*) > 0 AS has_members
FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
WHERE e.extname = 'mm' AND d.deptype = 'e';
DROP EXTENSION mm;
SELECT cat, name FROM (
    SELECT 'pg_namespace' AS cat, nspname::text AS name FROM pg_namespace
    UNION ALL SELECT 'pg_class', oid::regclass::text FROM pg_class WHERE relpersistence <> 't'
    UNION ALL SELECT 'pg_type', oid::regtype::text FROM pg_type WHERE typnamespace <> pg_my_temp_schema()
    UNION ALL SELECT 'pg_proc', oid::regprocedure::text FROM pg_proc
    UNION ALL SELECT 'pg_depend', count(*)::text FROM pg_depend
    UNION ALL SELECT 'pg_description', count(*)::text FROM pg_description
) after_mm
EXCEPT ALL
SELECT cat, name FROM before_mm
ORDER BY 1, 2;
DROP TABLE before_mm;

-- Creating it twice fails cleanly and changes nothing.
CREATE EXTENSION mm;
CREATE EXTENSION mm;
\echo :LAST_ERROR_SQLSTATE
SELECT extname, extversion, extrelocatable FROM pg_extension WHERE extname = 'mm';

-- A schema mm that is not the extension's is not taken over. (Terse: from
-- PostgreSQL 18 an error in an extension script also names the script's
-- line in a CONTEXT, 15 to 17 print none.)
DROP EXTENSION mm;
CREATE SCHEMA mm;
\set VERBOSITY terse
CREATE EXTENSION mm;
\echo :LAST_ERROR_SQLSTATE
\set VERBOSITY default
DROP SCHEMA mm;
CREATE EXTENSION mm;

-- mm.* settings are reserved: a misspelled one is refused.
SET mm.no_such_setting = 1;
\echo :LAST_ERROR_SQLSTATE
