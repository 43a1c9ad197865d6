-- Names (docs/conventions.md, "Names mm accepts"): every name mm accepts --
-- queue, pool, rule, attribute and its string values (a game mode),
-- role, region, team, rating key, dishonor reason, profession, place,
-- signal -- has 1 to 63 bytes and no control character (U+0000 to U+001F,
-- U+007F to U+009F), checked by one checker (src/core/names.c) where the
-- name is given. Control characters in rule and attribute names were
-- accepted (and printed raw by mm.explain); each kind is refused with 22023.
\set VERBOSITY terse
SET timezone = 'UTC';
-- the tests after this one count on mm's sequences: put them back at the end
\i test/support/sequences_save.sql

-- an attribute "mo\nde", a rule "lat\u0001x" (JSON escapes: a newline and U+0001)
SELECT mm.matcher_config('{"attributes": {"mo\nde": {"type": "string"}}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"rules": [{"type": "latency", "name": "lat\u0001x", "max": 50}]}');
\echo :LAST_ERROR_SQLSTATE
-- a rule name with a newline added by mm.alter_queue: refused, the config unchanged
SELECT mm.create_queue('names_q', '{"team_size": 1, "rules": [{"type": "latency", "name": "lat", "max": 50}]}');
SELECT mm.alter_queue('names_q', '{"rules": [{"type": "latency", "name": "la\nt", "max": 50}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT config -> 'rules' -> 0 ->> 'name' AS rule_name FROM mm.queue WHERE name = 'names_q';
-- the C1 controls too (U+0085, U+009F), and DEL
SELECT mm.matcher_config('{"rules": [{"type": "latency", "name": "lat\u0085", "max": 50}]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"attributes": {"x\u007f": {"type": "number"}}}');
\echo :LAST_ERROR_SQLSTATE

-- every other kind of name, one refusal each
SELECT mm.matcher_config('{"roles": ["tank", "dam\tage"]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"team_names": ["north", "so\u009futh"]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.matcher_config('{"rating": {"key": "ranked\r"}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.create_queue(E'eu\x01ranked');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.create_queue(repeat('q', 64));
\echo :LAST_ERROR_SQLSTATE
SELECT mm.create_pool(E'pool\n');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.set_dishonor_config('{"penalties": {"ab\u0001andon": 1}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.add_server(E'obby\n', 8);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.set_place_config('names_place', '{"signals": {"fr\niends": {"kind": "friends", "weight": 1}}}');
\echo :LAST_ERROR_SQLSTATE
-- a game mode (a string attribute's value), a region, a profession
SELECT mm.create_queue('names_mode', '{"team_size": 1, "attributes": {"mode": {"type": "string"}},
    "rules": [{"type": "equal", "attribute": "mode"}, {"type": "latency", "max": 80}]}');
SELECT mm.enqueue('names_mode', ARRAY[9201], 1500, attributes => '{"mode": "ranked\n"}', latencies => '{"eu": 20}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('names_mode', ARRAY[9201], 1500, attributes => '{"mode": "ranked"}', latencies => '{"e\nu": 20}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('names_mode', ARRAY[9201], 1500, attributes => '{"mode": "ranked"}', latencies => '{"eu": 20}',
                  professions => ARRAY[E'thi\x02ef']);
\echo :LAST_ERROR_SQLSTATE
-- printable names of any script, up to 63 bytes, are names
SELECT mm.enqueue('names_mode', ARRAY[9201], 1500, attributes => '{"mode": "дуэль"}',
                  latencies => jsonb_build_object(repeat('r', 63), 20)) > 0 AS queued;
SELECT mm.create_queue(repeat('q', 63));
SELECT mm.drop_queue(repeat('q', 63), keep_history => false);

-- one checker: the SQL wrapper and the config spine say the same
SELECT mm._check_name('queue name', E'a\nb');
SELECT mm._check_name('queue name', '');
SELECT mm._check_name('queue name', 'ranked');

SELECT mm.drop_queue('names_q', keep_history => false);
SELECT mm.drop_queue('names_mode', keep_history => false);
\i test/support/sequences_restore.sql
