-- amcheck over mm's tables: every btree index with bt_index_parent_check
-- and heapallindexed (the parent/child structure and every heap tuple
-- found in the index), every table with verify_heapam. Prints
-- "indexes|corrupt indexes|other indexes|tables|corrupt tables|details".
\set ON_ERROR_STOP 1
CREATE TEMP TABLE checked (kind text, name text, error text);
DO $$
DECLARE
    r record;
    n bigint;
BEGIN
    FOR r IN SELECT c.oid, c.relname, a.amname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
             JOIN pg_class t ON t.oid = i.indrelid JOIN pg_am a ON a.oid = c.relam
             WHERE t.relnamespace = 'mm'::regnamespace ORDER BY c.relname LOOP
        IF r.amname <> 'btree' THEN
            INSERT INTO checked VALUES ('other index', r.relname || ' (' || r.amname || ')', NULL);
            CONTINUE;
        END IF;
        BEGIN
            PERFORM bt_index_parent_check(r.oid, heapallindexed => true);
            INSERT INTO checked VALUES ('index', r.relname, NULL);
        EXCEPTION WHEN OTHERS THEN
            INSERT INTO checked VALUES ('index', r.relname, SQLSTATE || ' ' || SQLERRM);
        END;
    END LOOP;
    FOR r IN SELECT c.oid, c.relname FROM pg_class c
             WHERE c.relnamespace = 'mm'::regnamespace AND c.relkind = 'r' ORDER BY c.relname LOOP
        SELECT count(*) INTO n FROM verify_heapam(r.oid, check_toast => true);
        INSERT INTO checked VALUES ('table', r.relname, CASE WHEN n > 0 THEN n || ' corrupt tuples' END);
    END LOOP;
END
$$;
SELECT count(*) FILTER (WHERE kind = 'index'), count(*) FILTER (WHERE kind = 'index' AND error IS NOT NULL),
       count(*) FILTER (WHERE kind = 'other index'),
       count(*) FILTER (WHERE kind = 'table'), count(*) FILTER (WHERE kind = 'table' AND error IS NOT NULL),
       coalesce(string_agg(name || ': ' || coalesce(error, 'not a btree'), '; ')
                FILTER (WHERE error IS NOT NULL OR kind = 'other index'), '')
FROM checked;
