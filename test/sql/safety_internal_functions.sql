-- Internal functions (a leading underscore) are the extension's own: no
-- role but the owner may call them (mm's definer functions run as the
-- owner), none is granted to PUBLIC or to the service, admin and analyst
-- roles, and no function those roles may call reaches one without running
-- as the owner. Before, EXECUTE on mm._roster_rating and six others was
-- granted to PUBLIC, and mm._roster_rating raised XX000 on a bad array.
\set VERBOSITY terse
SELECT count(*) FROM mm.grant_roles('regress_int_service', 'regress_int_admin', 'regress_int_analyst');
CREATE ROLE regress_int_all LOGIN IN ROLE regress_int_service, regress_int_admin, regress_int_analyst;
CREATE ROLE regress_int_nobody LOGIN;

-- every internal function: listed without roles, executable by no role
-- but the owner
SELECT count(*) > 40 AS many,
       count(*) FILTER (WHERE v.roles <> '{}' OR v.roles IS NULL) AS with_roles,
       count(*) FILTER (WHERE has_function_privilege('public', p.oid, 'EXECUTE')) AS public,
       count(*) FILTER (WHERE has_function_privilege('regress_int_all', p.oid, 'EXECUTE')) AS service_admin_analyst,
       count(*) FILTER (WHERE has_function_privilege('regress_int_nobody', p.oid, 'EXECUTE')) AS nobody
FROM pg_proc p LEFT JOIN mm.privileges v ON v.kind = 'function' AND v.object::regprocedure = p.oid
WHERE p.pronamespace = 'mm'::regnamespace AND p.proname LIKE '\_%';
-- and each one called by a role with every grant: 42501, none runs (its
-- arguments NULLs from a subquery, which the planner does not fold away)
CREATE TEMP TABLE internal_calls AS
SELECT p.oid::regprocedure AS fn,
       format('SELECT %s(%s)', p.oid::regproc,
              (SELECT string_agg(format('(SELECT NULL::%s)', format_type(t, NULL)), ', ') FROM unnest(p.proargtypes) t)) AS sql
FROM pg_proc p WHERE p.pronamespace = 'mm'::regnamespace AND p.proname LIKE '\_%' AND p.prokind = 'f';
GRANT SELECT ON internal_calls TO regress_int_all;
SET ROLE regress_int_all;
DO $$
DECLARE
    c record;
    n int := 0;
    other text := '';
BEGIN
    FOR c IN SELECT * FROM internal_calls LOOP
        BEGIN
            EXECUTE c.sql;
            other := other || ' ' || c.fn || ' ran';
        EXCEPTION WHEN insufficient_privilege THEN
            n := n + 1;
        WHEN OTHERS THEN
            other := other || ' ' || c.fn || ' ' || SQLSTATE;
        END;
    END LOOP;
    RAISE NOTICE 'refused: %, other: %', n = (SELECT count(*) FROM internal_calls), nullif(other, '');
END
$$;
RESET ROLE;

-- no function a role may call reaches an internal one unless it runs as
-- the owner (SECURITY DEFINER): read from the bodies of the SQL and
-- PL/pgSQL functions
SELECT p.oid::regprocedure AS reaches_internal
FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
JOIN mm.privileges v ON v.kind = 'function' AND v.object::regprocedure = p.oid
WHERE p.pronamespace = 'mm'::regnamespace AND l.lanname IN ('sql', 'plpgsql')
  AND v.roles <> '{}' AND NOT p.prosecdef AND p.prosrc ~ 'mm\._[a-z]'
ORDER BY 1;

-- a bad argument of an internal function is an error with a code, never XX000
SELECT mm._roster_rating('{}', now(), 0, '{{1,2}}', '{}', '{{1,2},{3,4}}', '{}');
\echo :LAST_ERROR_SQLSTATE

DROP TABLE internal_calls;
DROP ROLE regress_int_all, regress_int_nobody;
SELECT count(*) FROM mm.grant_roles('regress_int_service', 'regress_int_admin', 'regress_int_analyst');
DO $$
BEGIN
    EXECUTE 'REVOKE ALL ON ALL ROUTINES IN SCHEMA mm FROM regress_int_service, regress_int_admin, regress_int_analyst';
    EXECUTE 'REVOKE ALL ON ALL TABLES IN SCHEMA mm FROM regress_int_service, regress_int_admin, regress_int_analyst';
    EXECUTE 'REVOKE ALL ON ALL SEQUENCES IN SCHEMA mm FROM regress_int_service, regress_int_admin, regress_int_analyst';
    EXECUTE 'REVOKE ALL ON SCHEMA mm FROM regress_int_service, regress_int_admin, regress_int_analyst';
END
$$;
DROP ROLE regress_int_service, regress_int_admin, regress_int_analyst;
