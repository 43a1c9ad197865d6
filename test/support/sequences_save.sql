-- Included (\i, from the top folder, where pg_regress runs) by a regression test that makes rows it removes again:
-- note mm's sequences here, and put them back with sequences_restore.sql at
-- the end, so that the ids the tests after it print do not depend on it.
CREATE TEMP TABLE saved_sequences (seq regclass, last_value bigint, is_called boolean);
DO $$
DECLARE
    c regclass;
BEGIN
    FOR c IN SELECT oid FROM pg_class WHERE relnamespace = 'mm'::regnamespace AND relkind = 'S' LOOP
        EXECUTE format('INSERT INTO saved_sequences SELECT %L, last_value, is_called FROM %s', c, c);
    END LOOP;
END
$$;
