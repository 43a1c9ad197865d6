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

-- Names: every name mm accepts (queues, pools, rules, attributes, roles,
-- regions, teams, rating keys, dishonor reasons, professions, places,
-- signals) has 1 to 63 bytes (as PostgreSQL identifiers) and no control
-- characters, checked where it is created, so that a NOTIFY payload, an
-- index key or a message that carries one always fits and prints as it is.
-- One checker (src/core/names.c) serves the C code and, through this
-- wrapper, SQL and PL/pgSQL. STABLE, not IMMUTABLE: a call with constant
-- arguments is not folded (and raised) when a guarded query is planned.
-- @access internal
CREATE FUNCTION mm._check_name(kind text, name text)
RETURNS void
AS 'MODULE_PATHNAME', 'mm_check_name_sql'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm._check_name IS
    'internal: refuse (22023) a name that is empty, has more than 63 bytes or holds a control character (U+0000 to U+001F, U+007F to U+009F); kind names it in the message';

-- The limit of a list mm takes (src/core/mm_limits.h; the Limits table of
-- docs/operations.md), for SQL and PL/pgSQL callers.
-- @access internal
CREATE FUNCTION mm._check_list_length(what text, n bigint, max bigint)
RETURNS void
AS 'MODULE_PATHNAME', 'mm_check_list_length_sql'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm._check_list_length IS
    'internal: refuse (54000) a list of n elements, "what", over its limit max';
