-- Privileges: the classification in mm.privileges covers every object and
-- agrees with the catalog; mm.grant_roles creates and grants the roles; every
-- role is run against every function and table (allowed or refused with
-- 42501); a game backend works through functions alone; objects planted in
-- the caller's search_path (CVE-2018-1058) do not change what mm computes.
\set VERBOSITY terse

-- the tests after this one count on mm's sequences: put them back at the end
\i test/support/sequences_save.sql

-- every function, procedure, aggregate, table, view and sequence of schema
-- mm has a row (a new object needs its "-- @access" line above its CREATE;
-- sql/generate.pl writes the row into the install and upgrade scripts)
SELECT p.oid::regprocedure AS unclassified_function
FROM pg_proc p
WHERE p.pronamespace = 'mm'::regnamespace
  AND NOT EXISTS (SELECT FROM mm.privileges v
                  WHERE v.kind = 'function' AND (CASE WHEN v.kind = 'function' THEN to_regprocedure(v.object) END) = p.oid)
ORDER BY 1;
SELECT c.oid::regclass AS unclassified_relation, c.relkind
FROM pg_class c
WHERE c.relnamespace = 'mm'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
  AND NOT EXISTS (SELECT FROM mm.privileges v
                  WHERE v.kind = 'relation' AND (CASE WHEN v.kind = 'relation' THEN to_regclass(v.object) END) = c.oid)
ORDER BY 1;
-- every row names one object that exists, and no object has two rows
SELECT v.object AS stale_row
FROM mm.privileges v
WHERE (v.kind = 'function' AND (CASE WHEN v.kind = 'function' THEN to_regprocedure(v.object) END) IS NULL)
   OR (v.kind = 'relation' AND ((CASE WHEN v.kind = 'relation' THEN to_regclass(v.object) END) IS NULL
       OR (SELECT relkind FROM pg_class WHERE oid = (CASE WHEN v.kind = 'relation' THEN to_regclass(v.object) END)) NOT IN ('r', 'p', 'v', 'm', 'S', 'f')))
ORDER BY 1;
SELECT CASE v.kind WHEN 'function' THEN (CASE WHEN v.kind = 'function' THEN to_regprocedure(v.object) END)::text ELSE (CASE WHEN v.kind = 'relation' THEN to_regclass(v.object) END)::text END AS twice
FROM mm.privileges v
GROUP BY 1 HAVING count(*) > 1;

-- the catalog says what the list says: PUBLIC executes exactly the public
-- functions, SECURITY DEFINER exactly the definer ones, each with its
-- search_path pinned; PUBLIC has no rights on any table or sequence
SELECT p.oid::regprocedure AS public_mismatch, 'public' = ANY (v.roles) AS listed_public
FROM mm.privileges v JOIN pg_proc p ON v.kind = 'function' AND p.oid = (CASE WHEN v.kind = 'function' THEN to_regprocedure(v.object) END)
WHERE has_function_privilege('public', p.oid, 'EXECUTE') IS DISTINCT FROM ('public' = ANY (v.roles))
ORDER BY 1;
SELECT p.oid::regprocedure AS definer_mismatch, v.definer AS listed_definer
FROM mm.privileges v JOIN pg_proc p ON v.kind = 'function' AND p.oid = (CASE WHEN v.kind = 'function' THEN to_regprocedure(v.object) END)
WHERE p.prosecdef IS DISTINCT FROM v.definer
ORDER BY 1;
SELECT p.oid::regprocedure AS definer_unpinned
FROM pg_proc p
WHERE p.pronamespace = 'mm'::regnamespace AND p.prosecdef
  AND NOT ('search_path=mm, pg_catalog, pg_temp' = ANY (coalesce(p.proconfig, '{}')))
ORDER BY 1;
SELECT c.oid::regclass AS public_relation_acl
FROM pg_class c, aclexplode(c.relacl) a
WHERE c.relnamespace = 'mm'::regnamespace AND a.grantee = 0
ORDER BY 1;
-- PUBLIC keeps only functions that read no table and write nothing
SELECT p.oid::regprocedure AS public_but_volatile
FROM mm.privileges v JOIN pg_proc p ON v.kind = 'function' AND p.oid = (CASE WHEN v.kind = 'function' THEN to_regprocedure(v.object) END)
WHERE 'public' = ANY (v.roles) AND p.provolatile = 'v'
ORDER BY 1;
-- functions that run a caller's query keep the caller's rights
SELECT p.oid::regprocedure AS runs_caller_sql_as_definer
FROM pg_proc p
WHERE p.oid IN ('mm.match_rosters(text, jsonb, timestamptz)'::regprocedure,
                'mm._match_rosters(text, jsonb, timestamptz, boolean)'::regprocedure,
                'mm.glicko2_replay(text, interval, float8, jsonb, boolean)'::regprocedure,
                'mm.openskill_replay(text, text, text, float8, float8, float8, boolean, float8, float8, float8, float8, float8, boolean, float8)'::regprocedure,
                'mm.replay_openskill(text, text, text, float8, float8, float8, boolean, float8, float8, float8, float8, float8, boolean, float8)'::regprocedure)
  AND p.prosecdef;
-- the schema: usable by PUBLIC, creatable by nobody but its owner
SELECT has_schema_privilege('public', 'mm', 'USAGE') AS public_usage,
       has_schema_privilege('public', 'mm', 'CREATE') AS public_create;

-- the admin step creates the three roles (when missing) and grants them the
-- list; a second run creates nothing
SELECT role, functions > 0 AS has_functions, relations > 0 AS has_relations
FROM mm.grant_roles();
SELECT role, created FROM mm.grant_roles();
SELECT r.rolname, r.rolcanlogin, r.rolsuper, r.rolcreaterole, r.rolcreatedb
FROM pg_roles r WHERE r.rolname IN ('mm_service', 'mm_admin', 'mm_analyst') ORDER BY 1;
SELECT * FROM mm.grant_roles('a', 'a', 'b');
SELECT * FROM mm.grant_roles(NULL);
-- roles under other names: created, then gone with their grants
SELECT role, created FROM mm.grant_roles('regress_mm_s2', 'regress_mm_a2', 'regress_mm_n2');
-- what the service role holds is exactly the list's service rows
SELECT (SELECT array_agg(v.object::regprocedure::text ORDER BY v.object::regprocedure::text) FROM mm.privileges v
        WHERE v.kind = 'function' AND 'service' = ANY (v.roles))
     = (SELECT array_agg(p.oid::regprocedure::text ORDER BY p.oid::regprocedure::text) FROM pg_proc p, aclexplode(p.proacl) a
        WHERE p.pronamespace = 'mm'::regnamespace AND a.grantee = 'regress_mm_s2'::regrole)
       AS service_functions_are_the_list;
DROP OWNED BY regress_mm_s2, regress_mm_a2, regress_mm_n2;
DROP ROLE regress_mm_s2, regress_mm_a2, regress_mm_n2;
CREATE ROLE regress_mm_nobody;
CREATE ROLE regress_mm_game LOGIN IN ROLE mm_service;
CREATE ROLE regress_mm_ops LOGIN IN ROLE mm_admin;
CREATE ROLE regress_mm_data LOGIN IN ROLE mm_analyst;

-- the matrix: every role against every function, called with NULL
-- arguments in a subtransaction that is always rolled back; refused means
-- SQLSTATE 42501 (insufficient_privilege), anything else means it ran. The
-- NULLs come from subqueries (but for CALL, which takes none): the planner
-- folds a strict function of a constant NULL to NULL before the executor
-- checks EXECUTE.
CREATE TEMP TABLE matrix (role text, fn regprocedure, expected text, got text);
DO $$
DECLARE
    f record;
    r record;
    state text;
BEGIN
    FOR f IN
        SELECT p.oid, v.roles, p.prorettype = 'trigger'::regtype AS is_trigger,
               CASE p.prokind WHEN 'p' THEN 'CALL ' WHEN 'a' THEN 'SELECT ' ELSE 'SELECT count(*) FROM ' END
               || 'mm.' || quote_ident(p.proname) || '('
               || coalesce((SELECT string_agg(format(CASE p.prokind WHEN 'p' THEN 'NULL::%s' ELSE '(SELECT NULL::%s)' END,
                                                      CASE t WHEN 'anyelement'::regtype THEN 'int'
                                                             WHEN 'anyarray'::regtype THEN 'int[]'
                                                             ELSE format_type(t, NULL) END), ', ' ORDER BY i)
                            FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY AS a(t, i)), '')
               || ')' AS call
        FROM pg_proc p JOIN mm.privileges v ON v.kind = 'function' AND (CASE WHEN v.kind = 'function' THEN to_regprocedure(v.object) END) = p.oid
        WHERE p.pronamespace = 'mm'::regnamespace
    LOOP
        FOR r IN VALUES ('mm_service', 'service'), ('mm_admin', 'admin'), ('mm_analyst', 'analyst'),
                        ('regress_mm_nobody', 'none') LOOP
            IF f.is_trigger THEN
                -- a trigger function cannot be called: check the right itself
                state := CASE WHEN has_function_privilege(r.column1, f.oid, 'EXECUTE') THEN 'ran' ELSE '42501' END;
            ELSE
                BEGIN
                    EXECUTE format('SET LOCAL ROLE %I', r.column1);
                    EXECUTE f.call;
                    RAISE EXCEPTION USING ERRCODE = 'MM000';
                EXCEPTION WHEN OTHERS THEN
                    state := CASE SQLSTATE WHEN '42501' THEN '42501' ELSE 'ran' END;
                END;
            END IF;
            INSERT INTO matrix VALUES (r.column1, f.oid,
                CASE WHEN 'public' = ANY (f.roles) OR r.column2 = ANY (f.roles) THEN 'ran' ELSE '42501' END,
                state);
        END LOOP;
    END LOOP;
END
$$;
SELECT role, fn, expected, got FROM matrix WHERE expected <> got ORDER BY 1, 2;
SELECT role, count(*) > 100 AS every_function_tried,
       count(*) FILTER (WHERE got = 'ran') > 0 AS some_ran,
       count(*) FILTER (WHERE got = '42501') > 0 AS some_refused
FROM matrix GROUP BY role ORDER BY role;

-- every role against every table, view and sequence: SELECT as listed,
-- every write refused (DELETE and nextval run, the rest asked of the
-- catalog: a view that cannot be written errors before the privilege check)
CREATE TEMP TABLE rel_matrix (role text, rel regclass, action text, expected text, got text);
DO $$
DECLARE
    c record;
    r text;
    state text;
BEGIN
    FOR c IN
        SELECT cl.oid, cl.relkind, v.roles FROM pg_class cl
        JOIN mm.privileges v ON v.kind = 'relation' AND (CASE WHEN v.kind = 'relation' THEN to_regclass(v.object) END) = cl.oid
        WHERE cl.relnamespace = 'mm'::regnamespace
    LOOP
        FOREACH r IN ARRAY ARRAY['mm_service', 'mm_admin', 'mm_analyst', 'regress_mm_nobody'] LOOP
            BEGIN
                EXECUTE format('SET LOCAL ROLE %I', r);
                IF c.relkind = 'S' THEN
                    EXECUTE format('SELECT last_value FROM %s', c.oid::regclass);
                ELSE
                    EXECUTE format('SELECT 1 FROM %s LIMIT 0', c.oid::regclass);
                END IF;
                RAISE EXCEPTION USING ERRCODE = 'MM000';
            EXCEPTION WHEN OTHERS THEN
                state := CASE SQLSTATE WHEN '42501' THEN '42501' ELSE 'ran' END;
            END;
            INSERT INTO rel_matrix VALUES (r, c.oid, 'select',
                CASE WHEN replace(r, 'mm_', '') = ANY (c.roles) THEN 'ran' ELSE '42501' END, state);
            BEGIN
                EXECUTE format('SET LOCAL ROLE %I', r);
                IF c.relkind = 'S' THEN
                    EXECUTE format('SELECT nextval(%L)', c.oid::regclass);
                ELSIF c.relkind = 'r' THEN
                    EXECUTE format('DELETE FROM %s WHERE false', c.oid::regclass);
                ELSE
                    RAISE EXCEPTION USING ERRCODE = '42501';
                END IF;
                RAISE EXCEPTION USING ERRCODE = 'MM000';
            EXCEPTION WHEN OTHERS THEN
                state := CASE SQLSTATE WHEN '42501' THEN '42501' ELSE 'ran' END;
            END;
            IF has_table_privilege(r, c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER')
               OR (c.relkind = 'S' AND has_sequence_privilege(r, c.oid, 'USAGE, UPDATE')) THEN
                state := 'ran';
            END IF;
            INSERT INTO rel_matrix VALUES (r, c.oid, 'write', '42501', state);
        END LOOP;
    END LOOP;
END
$$;
SELECT role, rel, action, expected, got FROM rel_matrix WHERE expected <> got ORDER BY 1, 2, 3;
SELECT role, count(*) FILTER (WHERE action = 'select' AND got = 'ran') > 0 AS reads_some,
       count(*) FILTER (WHERE action = 'write' AND got = 'ran') AS writes
FROM rel_matrix GROUP BY role ORDER BY role;

-- a few by hand, with the message
SET ROLE regress_mm_nobody;
SELECT mm.ordinal(25, 25.0 / 3) AS public_math;
SELECT mm.enqueue('duel', ARRAY[1::bigint], 1500);
SELECT count(*) FROM mm.queue;
-- only a superuser may turn the version check off
SET mm.check_version = off;
\echo :LAST_ERROR_SQLSTATE
RESET ROLE;
SET ROLE regress_mm_game;
SELECT mm.create_queue('nope');
DELETE FROM mm.dishonor_players;
SELECT count(*) FROM mm.roster;
SELECT count(*) AS queues_visible FROM mm.queue;
RESET ROLE;
SET ROLE regress_mm_data;
SELECT mm.tick('duel');
TRUNCATE mm.match;
RESET ROLE;

-- a game backend through functions alone: the admin sets up, the service
-- queues, ticks, finds an opponent, places a player, reports dishonor, and
-- the analyst reads what happened
SET ROLE regress_mm_ops;
SELECT mm.create_queue('p_duel', '{"team_size": 1, "filter": {"potentials_min": 1}}');
SELECT mm.create_pool('p_arena', '{"mmr_bucket_count": 10}');
SELECT mm.set_place_config('p_obby', '{}');
RESET ROLE;
SET ROLE regress_mm_game;
SELECT count(*) AS queued
FROM (SELECT mm.enqueue('p_duel', ARRAY[p::bigint], 1500 + p, 10, joined_at => '2026-01-01 12:00+00')
      FROM generate_series(1, 4) p) e;
SELECT count(DISTINCT match_id) AS matches, count(*) AS rosters FROM mm.tick('p_duel', '2026-01-01 12:01+00');
SELECT mm.put_entry('p_arena', 7, 1100, '{eu}', '{"defence": 1}') > 0 AS stored;
SELECT result, player_id, mmr FROM mm.find_opponent('p_arena', 1100, '{eu}');
SELECT mm.add_server('p_obby', 8, '{"region": "eu"}') > 0 AS server_added;
SELECT mm.join_server('p_obby', 77, '{"age": 13, "language": "en", "voice_chat": true,
                                     "play_history": 2.4, "latency": {"eu": 30}}') > 0 AS joined;
SELECT stacks FROM mm.dishonor(9, 'abandon', '2026-01-01 12:00+00');
SELECT round(rating::numeric, 6) AS rating FROM mm.glicko2_rate((1500, 200, 0.06), '{1400}', '{30}', '{1}');
RESET ROLE;
SET ROLE regress_mm_data;
SELECT count(*) AS matches_seen FROM mm.match;
SELECT count(*) AS players_in_servers FROM mm.server_players;
RESET ROLE;
SET ROLE regress_mm_ops;
SELECT mm.drop_queue('p_duel', keep_history => false);
SELECT mm.drop_pool('p_arena');
SELECT mm.dishonor_clear(9);
RESET ROLE;
DELETE FROM mm.server_players;
DELETE FROM mm.servers;
DELETE FROM mm.place_configs;

-- CVE-2018-1058: functions and operators planted in public and in the
-- caller's search_path, ahead of pg_catalog, do not change what mm computes
CREATE SCHEMA regress_evil;
GRANT USAGE ON SCHEMA regress_evil TO PUBLIC;
CREATE FUNCTION regress_evil.isfinite(timestamptz) RETURNS boolean LANGUAGE sql AS 'SELECT false';
CREATE FUNCTION regress_evil.cardinality(anyarray) RETURNS int LANGUAGE sql AS 'SELECT 1';
CREATE FUNCTION regress_evil.array_position(anycompatiblearray, anycompatible) RETURNS int LANGUAGE sql AS 'SELECT NULL::int';
CREATE FUNCTION regress_evil.nextval(regclass) RETURNS bigint LANGUAGE sql AS 'SELECT 1::bigint';
CREATE FUNCTION regress_evil.abs(float8) RETURNS float8 LANGUAGE sql AS 'SELECT 0::float8';
CREATE FUNCTION regress_evil.sqrt(float8) RETURNS float8 LANGUAGE sql AS 'SELECT 0::float8';
CREATE FUNCTION regress_evil.random() RETURNS float8 LANGUAGE sql AS 'SELECT 0::float8';
CREATE FUNCTION regress_evil.evil_eq(bigint, bigint) RETURNS boolean LANGUAGE sql AS 'SELECT true';
CREATE OPERATOR regress_evil.= (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = regress_evil.evil_eq);
CREATE FUNCTION regress_evil.evil_teq(text, text) RETURNS boolean LANGUAGE sql AS 'SELECT true';
CREATE OPERATOR regress_evil.= (LEFTARG = text, RIGHTARG = text, FUNCTION = regress_evil.evil_teq);
CREATE FUNCTION regress_evil.evil_fminus(float8, float8) RETURNS float8 LANGUAGE sql AS 'SELECT 0::float8';
CREATE OPERATOR regress_evil.- (LEFTARG = float8, RIGHTARG = float8, FUNCTION = regress_evil.evil_fminus);
CREATE FUNCTION public.isfinite(timestamptz) RETURNS boolean LANGUAGE sql AS 'SELECT false';
CREATE FUNCTION public.cardinality(anyarray) RETURNS int LANGUAGE sql AS 'SELECT 1';

SET ROLE regress_mm_ops;
SELECT mm.create_queue('h_duel', '{"team_size": 1, "filter": {"potentials_min": 1}}');
SELECT mm.create_pool('h_arena', '{"mmr_bucket_count": 10}');
RESET ROLE;

-- the same calls, once with a clean search_path and once hijacked; each run
-- rolled back; a signature of what mm returned
\set run 'BEGIN; SET LOCAL ROLE regress_mm_game; CREATE TEMP TABLE r ON COMMIT DROP AS SELECT p, mm.enqueue(''h_duel'', ARRAY[p::bigint], 1500 + 10 * p, 10, joined_at => ''2026-01-01 12:00+00'') AS id FROM generate_series(1, 4) p; SELECT mm.put_entry(''h_arena'', 5, 1000, ''{eu}'', ''{}'') > 0 AS put \\gset'
\set sig 'SELECT (SELECT string_agg(t.team || r.p, '','' ORDER BY r.p) FROM mm.tick(''h_duel'', ''2026-01-01 12:05+00'') t JOIN r ON r.id OPERATOR(pg_catalog.=) t.roster_id) || ''|'' || (SELECT result || player_id || ''@'' || mmr FROM mm.find_opponent(''h_arena'', 1010, ''{eu}'')) || ''|'' || (SELECT string_agg(round(mu::numeric, 9) || ''/'' || round(sigma::numeric, 9), '','') FROM mm.openskill_rate(''{1,2}'', ''{1,2}'', ''{25,25}'', ''{8.333,8.333}'')) || ''|'' || mm.categorical_signal(''a''::text, ''b''::text) || ''|'' || round(mm.party_rating(''{20,30}'', ''{2,3}'')::numeric, 9) || ''|'' || (SELECT round(rating::numeric, 6) FROM mm.glicko2_rate((1500, 200, 0.06), ''{1400}'', ''{30}'', ''{1}'')) AS'
:run
SET LOCAL search_path = "$user", public;
:sig clean \gset
ROLLBACK;
:run
SET LOCAL search_path = regress_evil, public, pg_catalog;
:sig hijacked \gset
-- the plants do work on unqualified SQL in this session
SELECT cardinality(ARRAY[1, 2, 3]) AS planted_cardinality, 1::bigint = 2::bigint AS planted_equal;
ROLLBACK;
\echo :clean
SELECT :'clean' = :'hijacked' AS hijack_changes_nothing;

SET ROLE regress_mm_ops;
SELECT mm.drop_queue('h_duel', keep_history => false);
SELECT mm.drop_pool('h_arena');
RESET ROLE;
DROP SCHEMA regress_evil CASCADE;
DROP FUNCTION public.isfinite(timestamptz);
DROP FUNCTION public.cardinality(anyarray);

-- clean up the roles (as a DBA would: their grants first)
DROP ROLE regress_mm_nobody, regress_mm_game, regress_mm_ops, regress_mm_data;
DROP OWNED BY mm_service, mm_admin, mm_analyst;
DROP ROLE mm_service, mm_admin, mm_analyst;
\i test/support/sequences_restore.sql
