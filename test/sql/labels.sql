-- Every function's volatility, strictness and parallel label is true, as far
-- as the catalog can tell: the bodies of SQL and PL/pgSQL functions are read
-- for writes, table reads, clocks, casts to time types and calls of other mm
-- functions; defaults are read for NULL and now(). Each query lists the
-- functions that break a rule (none). C functions are audited by the tests
-- of their feature and by test/suites/datestyle.sh.

-- Bodies whose words look like a rule's match but are not one.
CREATE TEMP TABLE label_exceptions (fn regprocedure, rule text, why text);
INSERT INTO label_exceptions VALUES
    ('mm._async_pool_config(text)', 'calls', 'names mm.create_pool in an error hint; calls nothing');

CREATE TEMP VIEW mm_functions AS
SELECT p.oid, p.oid::regprocedure AS fn, p.proname, p.provolatile AS v, p.proparallel AS par,
       p.proisstrict AS strict, p.prorettype, l.lanname AS lang,
       coalesce(pg_get_function_sqlbody(p.oid), p.prosrc) AS body
FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
WHERE p.pronamespace = 'mm'::regnamespace;

-- a function that writes is VOLATILE and PARALLEL UNSAFE
SELECT fn AS writes_but_labelled, v, par FROM mm_functions
WHERE lang IN ('sql', 'plpgsql')
  AND body ~* '\m(insert\s+into|update\s+mm\.|delete\s+from|truncate|nextval|setval|pg_notify)\M'
  AND (v <> 'v' OR par <> 'u')
ORDER BY 1;

-- an IMMUTABLE function reads no table or view of mm
SELECT f.fn AS immutable_reads_table FROM mm_functions f
WHERE f.lang IN ('sql', 'plpgsql') AND f.v = 'i'
  AND EXISTS (SELECT FROM pg_class c
              WHERE c.relnamespace = 'mm'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm')
                AND f.body ~ ('\mmm\.' || c.relname || '\M(?!\s*\()'))
  AND NOT EXISTS (SELECT FROM label_exceptions x WHERE x.fn = f.oid AND x.rule = 'reads')
ORDER BY 1;

-- a function is at least as volatile, and at most as parallel safe, as the
-- mm functions it calls
SELECT f.fn AS caller, f.v, f.par, g.fn AS callee, g.v AS callee_v, g.par AS callee_par
FROM mm_functions f JOIN mm_functions g ON f.oid <> g.oid AND f.body ~ ('\mmm\.' || g.proname || '\s*\(')
WHERE f.lang IN ('sql', 'plpgsql')
  AND ((f.v = 'i' AND g.v IN ('s', 'v')) OR (f.v = 's' AND g.v = 'v')
       OR (f.par = 's' AND g.par IN ('r', 'u')) OR (f.par = 'r' AND g.par = 'u'))
  AND NOT EXISTS (SELECT FROM label_exceptions x WHERE x.fn = f.oid AND x.rule = 'calls')
ORDER BY 1, 4;

-- clocks and random numbers make a function VOLATILE; now() at least STABLE
SELECT fn AS clock_but_labelled, v FROM mm_functions
WHERE lang IN ('sql', 'plpgsql')
  AND ((body ~* '\m(clock_timestamp|random|timeofday|statement_timestamp)\s*\(' AND v <> 'v')
       OR (body ~* '(\mnow\s*\(|\mcurrent_timestamp\M|\mcurrent_date\M|\mlocaltimestamp\M)' AND v = 'i'))
ORDER BY 1;
SELECT p.oid::regprocedure AS immutable_with_now_default FROM pg_proc p
WHERE p.pronamespace = 'mm'::regnamespace AND p.provolatile = 'i'
  AND pg_get_function_arguments(p.oid) ~* 'DEFAULT now\(\)'
ORDER BY 1;

-- text read as a date, time or interval depends on DateStyle, TimeZone or
-- IntervalStyle: not in an IMMUTABLE function
SELECT fn AS immutable_time_cast FROM mm_functions
WHERE lang IN ('sql', 'plpgsql') AND v = 'i'
  AND body ~* '::\s*(timestamptz|timestamp|date|time|timetz|interval)\M'
ORDER BY 1;

-- a STRICT function has no parameter that defaults to NULL (the default
-- would make every call that leaves it out return NULL)
SELECT p.oid::regprocedure AS strict_with_null_default FROM pg_proc p
WHERE p.pronamespace = 'mm'::regnamespace AND p.proisstrict
  AND pg_get_function_arguments(p.oid) ~* 'DEFAULT NULL'
ORDER BY 1;

-- trigger functions and procedures are VOLATILE
SELECT fn AS trigger_or_procedure_not_volatile FROM mm_functions f
WHERE (f.prorettype = 'trigger'::regtype OR (SELECT prokind FROM pg_proc WHERE oid = f.oid) = 'p') AND f.v <> 'v'
ORDER BY 1;

-- aggregates: transition, combine and final functions are as parallel safe
-- as the aggregate, and a PARALLEL SAFE aggregate has a combine function
SELECT a.aggfnoid::regprocedure AS aggregate, s.proname AS support, s.proparallel
FROM pg_aggregate a JOIN pg_proc ap ON ap.oid = a.aggfnoid
JOIN pg_proc s ON s.oid IN (a.aggtransfn, a.aggcombinefn, a.aggfinalfn)
WHERE ap.pronamespace = 'mm'::regnamespace AND ap.proparallel = 's' AND s.proparallel <> 's'
ORDER BY 1, 2;
SELECT a.aggfnoid::regprocedure AS parallel_aggregate_without_combine
FROM pg_aggregate a JOIN pg_proc ap ON ap.oid = a.aggfnoid
WHERE ap.pronamespace = 'mm'::regnamespace AND ap.proparallel = 's' AND a.aggcombinefn = 0
ORDER BY 1;

-- the rules looked at something: functions of each language were read
SELECT lang, count(*) > 0 AS read FROM mm_functions GROUP BY lang ORDER BY lang;
DROP VIEW mm_functions;
DROP TABLE label_exceptions;
