-- Fixtures of the fuzz suite: mm with a queue, a place with servers and an
-- async pool that the fuzzed calls can reach, and fuzz.call, which runs one
-- call in a subtransaction that is always rolled back.
CREATE EXTENSION mm;
CREATE SCHEMA fuzz;
CREATE TABLE fuzz.victim (x int);
INSERT INTO fuzz.victim VALUES (1);

SELECT mm.create_queue('q', '{}');
SELECT mm.enqueue('q', ARRAY[i::bigint], 1500 + i, 50) FROM generate_series(1, 20) i;
SELECT mm.add_server('p', 10, '{"region": "eu"}') FROM generate_series(1, 3);
SELECT mm.create_pool('pool', '{}');
SELECT mm.put_entry('pool', i, 1000 + 10 * i, '{}', '{}') FROM generate_series(1, 20) i;

-- One line per call: id, ok / err / timeout, milliseconds, SQLSTATE, text.
CREATE FUNCTION fuzz.call(id int, q text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    r text;
    t0 timestamptz := clock_timestamp();
    state text;
    msg text;
    ms text;
BEGIN
    BEGIN
        EXECUTE q INTO r;
        -- roll the call back, carrying its result out
        RAISE EXCEPTION USING ERRCODE = 'MMFZ0', MESSAGE = coalesce(r, '<NULL>');
    EXCEPTION
        WHEN query_canceled THEN
            state := SQLSTATE; msg := SQLERRM;
            ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
            RETURN concat_ws(E'\t', id, 'timeout', ms, state, '');
        WHEN OTHERS THEN
            state := SQLSTATE; msg := SQLERRM;
            ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
            IF state = 'MMFZ0' THEN
                RETURN concat_ws(E'\t', id, 'ok', ms, '', replace(replace(msg, E'\n', ' '), E'\t', ' '));
            END IF;
            RETURN concat_ws(E'\t', id, 'err', ms, state, replace(replace(msg, E'\n', ' '), E'\t', ' '));
    END;
END
$$;

-- For the harness's self-test: a NaN result and an internal error, which it
-- must report (with a lost connection) when MM_FUZZ_SELFTEST is set.
CREATE FUNCTION fuzz.selftest_nan() RETURNS float8
LANGUAGE sql AS $$ SELECT 'NaN'::float8 $$;
CREATE FUNCTION fuzz.selftest_xx000() RETURNS void
LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected' USING ERRCODE = 'XX000'; END $$;
