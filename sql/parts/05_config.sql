-- The keys of every kind of jsonb config, from the key tables the C code
-- parses, checks, fills in and renders with.

CREATE FUNCTION mm.config_keys(kind text DEFAULT NULL)
RETURNS TABLE (kind text, key text, type text, "default" jsonb, min float8, max float8,
               unit text, doc text)
AS 'MODULE_PATHNAME', 'mm_config_keys'
LANGUAGE C IMMUTABLE PARALLEL SAFE ROWS 200;
COMMENT ON FUNCTION mm.config_keys(text) IS
    'the keys of a kind of config (queue, pool, policy, dishonor, ladder, prediction, rate, place; NULL: every kind): dotted key, type (number, integer, boolean, text, duration, object), default, range, unit and a one-line doc';
