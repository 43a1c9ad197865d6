-- The end of sequences_save.sql: each of mm's sequences back where it was,
-- but never below an id its column still holds (rows the test left on
-- purpose, such as events kept for mm.event_retention): a later insert
-- must not draw an id in use.
DO $$
DECLARE
    s record;
    top bigint;
BEGIN
    FOR s IN SELECT v.seq, v.last_value, v.is_called, a.attname, d.refobjid::regclass AS tab
             FROM saved_sequences v
             LEFT JOIN pg_depend d ON d.classid = 'pg_class'::regclass AND d.objid = v.seq
                                  AND d.refclassid = 'pg_class'::regclass AND d.deptype = 'a'
             LEFT JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid LOOP
        top := NULL;
        IF s.tab IS NOT NULL THEN
            EXECUTE format('SELECT max(%I) FROM %s', s.attname, s.tab) INTO top;
        END IF;
        IF top IS NOT NULL AND top >= s.last_value THEN
            PERFORM setval(s.seq, top, true);
        ELSE
            PERFORM setval(s.seq, s.last_value, s.is_called);
        END IF;
    END LOOP;
END
$$;
DROP TABLE saved_sequences;
