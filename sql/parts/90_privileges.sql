-- Privileges: who may call what, in one place.
--
-- mm.privileges lists every function, procedure, aggregate, table, view and
-- sequence of schema mm with the roles that may use it:
--   public   everyone (EXECUTE to PUBLIC): pure functions only (math,
--            signals, predictions, config checks);
--   service  the game backend: enqueue, leave, tick, find opponents, join
--            servers, report dishonor;
--   admin    operations: create, alter and drop queues, pools, placement
--            and dishonor configs; ticks; reads;
--   analyst  reads every table and view, runs replays and previews; writes
--            nothing.
-- An empty list is internal: only the extension's owner, and functions
-- running with the owner's rights, use it. definer marks the functions that
-- run with the owner's rights (SECURITY DEFINER, search_path pinned): those
-- a service or admin role calls to change or read mm's tables, to which the
-- roles have no direct rights. Functions that run SQL a caller passes
-- (match_rosters, the replays) are never definer.
--
-- Each object's row is written beside its definition, as the "-- @access"
-- line above its CREATE (public, internal, or roles; "; definer"):
-- sql/generate.pl collects them into the list's INSERT, which it places
-- just before "SELECT mm._apply_privileges();" below, in the install script
-- and in every upgrade script (which replaces the stored list).
-- mm._apply_privileges() applies the public and definer columns;
-- mm.grant_roles() creates the three roles when asked to and grants them
-- what the list says. A test fails when an object of schema mm is missing
-- from the list.

-- @access admin, analyst
CREATE TABLE mm.privileges (
    object  text PRIMARY KEY,
    kind    text NOT NULL CHECK (kind IN ('function', 'relation')),
    roles   text[] NOT NULL DEFAULT '{}'
            CHECK (roles <@ ARRAY['public', 'service', 'admin', 'analyst']
                   AND array_position(roles, NULL) IS NULL),
    definer boolean NOT NULL DEFAULT false,
    CHECK (NOT definer OR kind = 'function'),
    CHECK (NOT definer OR NOT 'public' = ANY (roles)),
    CHECK (kind = 'function' OR NOT 'public' = ANY (roles))
);
COMMENT ON TABLE mm.privileges IS
    'every function, table, view and sequence of schema mm with the roles that may use it (public, service, admin, analyst; empty: internal) and whether it runs with the owner''s rights; applied by mm._apply_privileges and mm.grant_roles';

-- @access internal
CREATE FUNCTION mm._apply_privileges()
RETURNS void
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    r mm.privileges;
BEGIN
    EXECUTE 'GRANT USAGE ON SCHEMA mm TO PUBLIC';
    EXECUTE 'REVOKE ALL ON ALL ROUTINES IN SCHEMA mm FROM PUBLIC';
    -- the queues' metrics, for monitoring agents (monitoring/)
    EXECUTE 'GRANT SELECT ON mm.queue_metrics TO pg_monitor';
    FOR r IN SELECT * FROM mm.privileges p WHERE p.kind = 'function' ORDER BY p.object LOOP
        IF 'public' = ANY (r.roles) THEN
            EXECUTE format('GRANT EXECUTE ON ROUTINE %s TO PUBLIC', r.object::regprocedure);
        END IF;
        IF r.definer THEN
            EXECUTE format('ALTER ROUTINE %s SECURITY DEFINER SET search_path = mm, pg_catalog, pg_temp',
                           r.object::regprocedure);
        END IF;
    END LOOP;
END
$$;
COMMENT ON FUNCTION mm._apply_privileges IS
    'internal (install and upgrade scripts): grant PUBLIC what mm.privileges marks public, make its definer functions SECURITY DEFINER with search_path pinned';

-- @access internal
CREATE FUNCTION mm.grant_roles(service name DEFAULT 'mm_service', admin name DEFAULT 'mm_admin',
                               analyst name DEFAULT 'mm_analyst')
RETURNS TABLE (role name, created boolean, functions int, relations int)
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    kinds text[] := ARRAY['service', 'admin', 'analyst'];
    names name[] := ARRAY[service, admin, analyst];
    r mm.privileges;
BEGIN
    IF service IS NULL THEN PERFORM mm._null_arg('service'); END IF;
    IF admin IS NULL THEN PERFORM mm._null_arg('admin'); END IF;
    IF analyst IS NULL THEN PERFORM mm._null_arg('analyst'); END IF;
    IF service = admin OR service = analyst OR admin = analyst THEN
        RAISE EXCEPTION 'the three roles must have different names'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('service %s, admin %s, analyst %s.', service, admin, analyst);
    END IF;
    FOR i IN 1 .. 3 LOOP
        grant_roles.role := names[i];
        grant_roles.created := NOT EXISTS (SELECT FROM pg_catalog.pg_roles x WHERE x.rolname = names[i]);
        IF grant_roles.created THEN
            EXECUTE format('CREATE ROLE %I NOLOGIN', names[i]);
            EXECUTE format('COMMENT ON ROLE %I IS %L', names[i],
                           format('mm %s role (mm.grant_roles): grant it to login roles', kinds[i]));
        END IF;
        -- start from nothing, so that a second run leaves exactly the list
        EXECUTE format('REVOKE ALL ON ALL ROUTINES IN SCHEMA mm FROM %I', names[i]);
        EXECUTE format('REVOKE ALL ON ALL TABLES IN SCHEMA mm FROM %I', names[i]);
        EXECUTE format('REVOKE ALL ON ALL SEQUENCES IN SCHEMA mm FROM %I', names[i]);
        EXECUTE format('GRANT USAGE ON SCHEMA mm TO %I', names[i]);
        grant_roles.functions := 0;
        grant_roles.relations := 0;
        FOR r IN SELECT * FROM mm.privileges p WHERE kinds[i] = ANY (p.roles) ORDER BY p.object LOOP
            IF r.kind = 'function' THEN
                EXECUTE format('GRANT EXECUTE ON ROUTINE %s TO %I', r.object::regprocedure, names[i]);
                grant_roles.functions := grant_roles.functions + 1;
            ELSE
                EXECUTE format('GRANT SELECT ON %s TO %I', r.object::regclass, names[i]);
                grant_roles.relations := grant_roles.relations + 1;
            END IF;
        END LOOP;
        RETURN NEXT;
    END LOOP;
END
$$;
COMMENT ON FUNCTION mm.grant_roles IS
    'the documented admin step: create the service, admin and analyst roles (NOLOGIN) when missing and grant each exactly what mm.privileges lists; idempotent; run it again after ALTER EXTENSION mm UPDATE';

SELECT mm._apply_privileges();
