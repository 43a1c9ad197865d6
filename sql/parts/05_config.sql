-- The keys of every kind of jsonb config, from the key tables the C code
-- parses, checks, fills in and renders with.

-- @access public
CREATE FUNCTION mm.config_keys(kind text DEFAULT NULL)
RETURNS TABLE (kind text, key text, type text, "default" jsonb, min float8, max float8,
               unit text, doc text)
AS 'MODULE_PATHNAME', 'mm_config_keys'
LANGUAGE C IMMUTABLE PARALLEL SAFE ROWS 200;
COMMENT ON FUNCTION mm.config_keys IS
    'the keys of a kind of config (queue, pool, policy, dishonor, ladder, prediction, rate, place; NULL: every kind): dotted key, type (number, integer, boolean, text, duration, object), default, range, unit and a one-line doc';

-- Names: queues, pools, rating keys, dishonor reasons and professions are
-- 1 to 63 bytes (as PostgreSQL identifiers) without control characters,
-- checked where they are created, so that a NOTIFY payload or a key that
-- carries one always fits.
-- @access internal
CREATE FUNCTION mm._check_name(kind text, name text)
RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF octet_length(name) > 63 THEN
        RAISE EXCEPTION '% is too long', kind
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('It has %s bytes: %s...', octet_length(name), left(name, 20)),
                  HINT = 'Names of queues, pools, rating keys, dishonor reasons and professions have 1 to 63 bytes.';
    END IF;
    IF name ~ '[[:cntrl:]]' THEN
        RAISE EXCEPTION '% must not contain control characters', kind
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The value is %s.', to_json(name)),
                  HINT = 'Use printable characters only.';
    END IF;
END
$$;
COMMENT ON FUNCTION mm._check_name IS
    'internal: refuse (22023) a name of more than 63 bytes or with control characters; kind names it in the message';
