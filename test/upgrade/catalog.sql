-- Describe every object of extension mm as sorted text lines, so that two
-- databases can be compared with diff: a fresh install of the current
-- version against one upgraded from an earlier release. Object identities
-- are by name, never by OID; column order is the visible order (dropped
-- columns skipped). A privilege list is compared by what it grants: a NULL
-- list reads as the default it stands for (acldefault), items sorted, so
-- that an explicit list equal to the default (a fresh install's GRANT to
-- PUBLIC) and the NULL that pg_upgrade restores for it compare equal. Used
-- by test/suites/upgrade.sh and test/suites/server_upgrade.sh.
\pset format unaligned
\pset tuples_only on
\pset footer off

WITH ext AS (
    SELECT oid FROM pg_extension WHERE extname = 'mm'
),
members AS (
    SELECT d.classid, d.objid
    FROM pg_depend d, ext
    WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = ext.oid AND d.deptype = 'e'
),
lines AS (
    -- the extension itself: config tables and their dump conditions
    SELECT 'extension config ' || coalesce((SELECT string_agg(c::regclass::text || ' [' || coalesce(cond, '') || ']', ', ' ORDER BY c::regclass::text)
                                           FROM unnest(e.extconfig, e.extcondition) AS u(c, cond)), '') AS line
    FROM pg_extension e WHERE e.extname = 'mm'
    UNION ALL
    -- every member object, by description
    SELECT 'member ' || pg_describe_object(classid, objid, 0) FROM members
    UNION ALL
    -- schemas owned by the extension: acl and comment
    SELECT 'schema ' || n.nspname || ' acl=' || (SELECT string_agg(x::text, ',' ORDER BY x::text) FROM unnest(coalesce(n.nspacl, acldefault('n', n.nspowner))) x) || ' comment=' || coalesce(obj_description(n.oid, 'pg_namespace'), '-')
    FROM pg_namespace n WHERE n.nspname = 'mm'
    UNION ALL
    -- functions, procedures and aggregates
    SELECT 'function ' || p.oid::regprocedure::text
        || ' kind=' || p.prokind::text || ' lang=' || l.lanname
        || ' args=(' || pg_get_function_arguments(p.oid) || ')'
        || ' result=' || coalesce(pg_get_function_result(p.oid), '-')
        || ' volatile=' || p.provolatile::text || ' strict=' || p.proisstrict
        || ' parallel=' || p.proparallel::text || ' secdef=' || p.prosecdef
        || ' leakproof=' || p.proleakproof
        || ' cost=' || p.procost || ' rows=' || p.prorows
        || ' config=' || coalesce(p.proconfig::text, '-')
        || ' body=' || CASE WHEN l.lanname = 'c' THEN p.prosrc || '@' || coalesce(p.probin, '')
                            ELSE md5(coalesce(p.prosrc, '') || coalesce(pg_get_function_sqlbody(p.oid), '')) END
        || ' acl=' || (SELECT string_agg(x::text, ',' ORDER BY x::text) FROM unnest(coalesce(p.proacl, acldefault('f', p.proowner))) x)
        || ' owner=' || p.proowner::regrole::text
        || ' comment=' || coalesce(obj_description(p.oid, 'pg_proc'), '-')
    FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
    WHERE p.pronamespace = 'mm'::regnamespace
    UNION ALL
    SELECT 'aggregate ' || a.aggfnoid::regprocedure::text
        || ' kind=' || a.aggkind::text || ' sfunc=' || a.aggtransfn::regproc::text
        || ' stype=' || format_type(a.aggtranstype, NULL)
        || ' sspace=' || a.aggtransspace
        || ' final=' || a.aggfinalfn::regproc::text || ' finalextra=' || a.aggfinalextra
        || ' finalmodify=' || a.aggfinalmodify::text
        || ' combine=' || a.aggcombinefn::regproc::text
        || ' serial=' || a.aggserialfn::regproc::text || ' deserial=' || a.aggdeserialfn::regproc::text
        || ' init=' || coalesce(a.agginitval, '-')
        || ' msfunc=' || a.aggmtransfn::regproc::text || ' minv=' || a.aggminvtransfn::regproc::text
        || ' sortop=' || a.aggsortop
    FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
    WHERE p.pronamespace = 'mm'::regnamespace
    UNION ALL
    -- relations: tables, views, sequences, indexes, composite types
    SELECT 'relation ' || c.oid::regclass::text || ' kind=' || c.relkind::text
        || ' persistence=' || c.relpersistence::text
        || ' options=' || coalesce(c.reloptions::text, '-')
        || ' rls=' || c.relrowsecurity || '/' || c.relforcerowsecurity
        || ' acl=' || (SELECT string_agg(x::text, ',' ORDER BY x::text) FROM unnest(coalesce(c.relacl, acldefault(CASE c.relkind WHEN 'S' THEN 's' ELSE 'r' END::"char", c.relowner))) x)
        || ' owner=' || c.relowner::regrole::text
        || ' comment=' || coalesce(obj_description(c.oid, 'pg_class'), '-')
        || CASE WHEN c.relkind IN ('v', 'm') THEN ' view=' || md5(pg_get_viewdef(c.oid)) ELSE '' END
        || CASE WHEN c.relkind = 'i' THEN ' index=' || pg_get_indexdef(c.oid) ELSE '' END
    FROM pg_class c
    WHERE c.relnamespace = 'mm'::regnamespace
    UNION ALL
    -- columns in visible order
    SELECT 'column ' || c.oid::regclass::text || ' #' || row_number() OVER (PARTITION BY c.oid ORDER BY a.attnum)
        || ' ' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
        || ' notnull=' || a.attnotnull
        || ' default=' || coalesce(pg_get_expr(ad.adbin, ad.adrelid), '-')
        || ' identity=' || a.attidentity::text || ' generated=' || a.attgenerated::text
        || ' collation=' || coalesce(NULLIF(a.attcollation, 0)::regcollation::text, '-')
        || ' acl=' || coalesce(a.attacl::text, '-')
        || ' comment=' || coalesce(col_description(c.oid, a.attnum), '-')
    FROM pg_class c
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
    LEFT JOIN pg_attrdef ad ON ad.adrelid = c.oid AND ad.adnum = a.attnum
    WHERE c.relnamespace = 'mm'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'c', 'f')
    UNION ALL
    -- constraints of tables and domains
    SELECT 'constraint ' || coalesce(co.conrelid::regclass::text, co.contypid::regtype::text) || ' ' || co.conname
        || ' ' || pg_get_constraintdef(co.oid)
        || ' deferrable=' || co.condeferrable || '/' || co.condeferred
        || ' comment=' || coalesce(obj_description(co.oid, 'pg_constraint'), '-')
    FROM pg_constraint co
    WHERE co.connamespace = 'mm'::regnamespace
    UNION ALL
    -- triggers
    SELECT 'trigger ' || t.tgrelid::regclass::text || ' ' || pg_get_triggerdef(t.oid)
        || ' enabled=' || t.tgenabled::text
        || ' comment=' || coalesce(obj_description(t.oid, 'pg_trigger'), '-')
    FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
    WHERE c.relnamespace = 'mm'::regnamespace AND NOT t.tgisinternal
    UNION ALL
    -- row security policies
    SELECT 'policy ' || schemaname || '.' || tablename || ' ' || policyname || ' ' || permissive || ' '
        || roles::text || ' ' || cmd || ' using=' || coalesce(qual, '-') || ' check=' || coalesce(with_check, '-')
    FROM pg_policies WHERE schemaname = 'mm'
    UNION ALL
    -- sequences' parameters (not their current values)
    SELECT 'sequence ' || s.seqrelid::regclass::text || ' type=' || format_type(s.seqtypid, NULL)
        || ' start=' || s.seqstart || ' inc=' || s.seqincrement || ' min=' || s.seqmin
        || ' max=' || s.seqmax || ' cache=' || s.seqcache || ' cycle=' || s.seqcycle
    FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid
    WHERE c.relnamespace = 'mm'::regnamespace
    UNION ALL
    -- types: base, enum, domain, composite, range
    SELECT 'type ' || t.oid::regtype::text || ' kind=' || t.typtype::text
        || ' comment=' || coalesce(obj_description(t.oid, 'pg_type'), '-')
        || ' acl=' || (SELECT string_agg(x::text, ',' ORDER BY x::text) FROM unnest(coalesce(t.typacl, acldefault('T', t.typowner))) x)
        || CASE WHEN t.typtype = 'e' THEN ' labels=' || (SELECT string_agg(enumlabel, ',' ORDER BY enumsortorder) FROM pg_enum WHERE enumtypid = t.oid) ELSE '' END
        || CASE WHEN t.typtype = 'd' THEN ' base=' || format_type(t.typbasetype, t.typtypmod) || ' notnull=' || t.typnotnull ELSE '' END
    FROM pg_type t
    WHERE t.typnamespace = 'mm'::regnamespace AND t.typcategory <> 'A'
    UNION ALL
    -- operators and casts
    SELECT 'operator ' || o.oid::regoperator::text || ' fn=' || o.oprcode::regproc::text
    FROM pg_operator o WHERE o.oprnamespace = 'mm'::regnamespace
    UNION ALL
    SELECT 'cast ' || format_type(c.castsource, NULL) || ' -> ' || format_type(c.casttarget, NULL)
        || ' fn=' || coalesce(c.castfunc::regprocedure::text, '-') || ' context=' || c.castcontext::text
    FROM pg_cast c JOIN members m ON m.classid = 'pg_cast'::regclass AND m.objid = c.oid
)
SELECT line FROM lines ORDER BY line COLLATE "C";
