-- Every row of every table of schema mm and the state of every sequence of
-- it, one line each, in a fixed order ("table|column values"), for
-- test/suites/server_upgrade.sh to compare a database before and after its
-- server's upgrade. Timestamps at or after :'since' print as "now" (pass
-- 'infinity' to print them all): the suite also compares two databases
-- that ran the same statements minutes apart. With :'caches' = 'skip', the
-- tables whose COMMENT says they are an internal cache (derived data a dump
-- leaves out, rebuilt on use) are left out.
\set ON_ERROR_STOP 1
\pset footer off
\t on
\a
SELECT format('SELECT r FROM (SELECT %L || ''|'' || concat_ws(''|'', %s) AS r FROM %s) s ORDER BY r COLLATE "C"',
              c.oid::regclass,
              string_agg(CASE WHEN a.atttypid IN ('timestamptz'::regtype, 'timestamp'::regtype)
                              THEN format('CASE WHEN %1$I >= %2$L THEN ''now'' ELSE quote_nullable(%1$I) END',
                                          a.attname, :'since')
                              ELSE format('quote_nullable(%I)', a.attname) END,
                         ', ' ORDER BY a.attnum),
              c.oid::regclass)
FROM pg_class c
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
WHERE c.relnamespace = 'mm'::regnamespace AND c.relkind IN ('r', 'p')
  AND NOT (:'caches' = 'skip' AND coalesce(obj_description(c.oid, 'pg_class'), '') LIKE 'internal cache%')
GROUP BY c.oid
ORDER BY c.oid::regclass::text COLLATE "C"
\gexec
SELECT format('SELECT %L || ''|'' || last_value || ''|'' || is_called FROM %s', c.oid::regclass, c.oid::regclass)
FROM pg_class c
WHERE c.relnamespace = 'mm'::regnamespace AND c.relkind = 'S'
ORDER BY c.oid::regclass::text COLLATE "C"
\gexec
SELECT 'extension|' || extname || '|' || extversion FROM pg_extension WHERE extname = 'mm';
