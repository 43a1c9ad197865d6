-- The SQL surface, read from the catalog (docs/conventions.md: Names,
-- Deprecated names). Every query below that lists violations must return no
-- rows.
--
-- Public and internal. A function of schema mm is internal when its row in
-- mm.privileges gives it no role or its COMMENT begins with "internal";
-- every other function is public. Three public functions without roles are
-- steps the extension's owner runs by hand, by their documented names:
-- mm.grant_roles, mm.citus_distribute_queues and mm.citus_prepare_nodes.
CREATE TEMP TABLE surface_owner_steps (fn text PRIMARY KEY);
INSERT INTO surface_owner_steps VALUES
('mm.grant_roles(name,name,name)'),
('mm.citus_distribute_queues(integer)'),
('mm.citus_prepare_nodes()');

CREATE TEMP VIEW surface_fn AS
SELECT p.oid, p.oid::regprocedure AS fn, p.proname AS name,
       pg_get_function_result(p.oid) AS result,
       coalesce(obj_description(p.oid, 'pg_proc'), '') AS comment,
       pr.roles,
       (coalesce(cardinality(pr.roles), 0) = 0
        AND p.oid::regprocedure::text NOT IN (SELECT fn FROM surface_owner_steps))
       OR coalesce(obj_description(p.oid, 'pg_proc'), '') LIKE 'internal%' AS internal
FROM pg_proc p
LEFT JOIN mm.privileges pr ON pr.kind = 'function' AND pr.object::regprocedure = p.oid
WHERE p.pronamespace = 'mm'::regnamespace;

-- Every function has its row in mm.privileges (none missing).
SELECT fn FROM surface_fn WHERE roles IS NULL ORDER BY fn::text;

-- Internal names start with "_" (none that do not).
SELECT fn, roles, left(comment, 40) AS comment
FROM surface_fn WHERE internal AND name !~ '^_' ORDER BY fn::text;

-- One name, one operation. Two public functions share a name only as one
-- of these overload sets: the same operation over either form of a value,
-- with more arguments, or by a queue's id (the forms Citus routes), with
-- the same result. Anything else that shares a name (the queue's
-- mm.remove_player(bigint, bigint) and the pool's 0.1.0
-- mm.remove_player(text, bigint) were one such pair) shows up here.
CREATE TEMP TABLE surface_overloads (name text, fn text PRIMARY KEY);
INSERT INTO surface_overloads VALUES
-- musigma and Glicko-2: loose values or the rating type
('ordinal', 'mm.ordinal(double precision,double precision,double precision)'),
('ordinal', 'mm.ordinal(mm.rating,double precision)'),
('glicko2_expect', 'mm.glicko2_expect(double precision,double precision,double precision,double precision)'),
('glicko2_expect', 'mm.glicko2_expect(mm.glicko,mm.glicko)'),
-- aggregates with optional columns, and their transition functions
('glicko2_period', 'mm.glicko2_period(double precision,double precision,double precision,double precision,double precision,double precision)'),
('glicko2_period', 'mm.glicko2_period(double precision,double precision,double precision,double precision,double precision,double precision,double precision)'),
('glicko2_period', 'mm.glicko2_period(double precision,double precision,double precision,double precision,double precision,double precision,double precision,jsonb)'),
('glicko2_period_step', 'mm.glicko2_period_step(double precision[],double precision,double precision,double precision,double precision,double precision,double precision)'),
('glicko2_period_step', 'mm.glicko2_period_step(double precision[],double precision,double precision,double precision,double precision,double precision,double precision,double precision)'),
('calibration', 'mm.calibration(double precision,double precision)'),
('calibration', 'mm.calibration(double precision,double precision,integer)'),
('calibration_step', 'mm.calibration_step(double precision[],double precision,double precision)'),
('calibration_step', 'mm.calibration_step(double precision[],double precision,double precision,integer)'),
('party_rating_agg', 'mm.party_rating_agg(double precision,double precision)'),
('party_rating_agg', 'mm.party_rating_agg(double precision,double precision,double precision,double precision,double precision)'),
('party_rating_accum', 'mm.party_rating_accum(internal,double precision,double precision)'),
('party_rating_accum', 'mm.party_rating_accum(internal,double precision,double precision,double precision,double precision,double precision)'),
-- match prediction: red and blue as loose values, or any teams as arrays
('match_prediction_teams', 'mm.match_prediction_teams(double precision,double precision,double precision,double precision,double precision,double precision,jsonb)'),
('match_prediction_teams', 'mm.match_prediction_teams(double precision[],double precision[],double precision[],jsonb)'),
-- placement: every server of a place, or the servers given
('refresh_servers', 'mm.refresh_servers(text)'),
('refresh_servers', 'mm.refresh_servers(bigint[])'),
-- queues: by name, or by the queue's id
('tick', 'mm.tick(text,timestamp with time zone)'),
('tick', 'mm.tick(integer,timestamp with time zone)'),
('enqueue', 'mm.enqueue(text,bigint[],double precision,double precision,double precision,double precision,integer,text[],timestamp with time zone,jsonb,jsonb,text[],double precision)'),
('enqueue', 'mm.enqueue(integer,bigint[],double precision,double precision,double precision,double precision,integer,text[],timestamp with time zone,jsonb,jsonb,text[],double precision)'),
('claim_matches', 'mm.claim_matches(text,integer)'),
('claim_matches', 'mm.claim_matches(integer,integer)'),
('leave', 'mm.leave(bigint)'),
('leave', 'mm.leave(integer,bigint)'),
('report_result', 'mm.report_result(bigint,jsonb)'),
('report_result', 'mm.report_result(integer,bigint,jsonb)');

-- public functions that share a name outside the sets (none)
SELECT f.fn, f.result FROM surface_fn f
WHERE NOT f.internal
  AND (SELECT count(*) FROM surface_fn g WHERE g.name = f.name AND NOT g.internal) > 1
  AND f.fn::text NOT IN (SELECT fn FROM surface_overloads)
ORDER BY f.fn::text;
-- a set whose members differ in their result, or a listed member that is
-- gone, internal or named otherwise (none)
SELECT o.name, o.fn, f.result FROM surface_overloads o LEFT JOIN surface_fn f ON f.fn::text = o.fn
WHERE f.fn IS NULL OR f.internal OR f.name <> o.name
   OR EXISTS (SELECT FROM surface_overloads q JOIN surface_fn g ON g.fn::text = q.fn
              WHERE q.name = o.name AND g.result <> f.result)
ORDER BY o.fn;
-- the sets: each of one result
SELECT o.name, count(*) AS forms, count(DISTINCT f.result) AS results
FROM surface_overloads o JOIN surface_fn f ON f.fn::text = o.fn
GROUP BY o.name ORDER BY o.name;

-- Deprecated names (docs/conventions.md lists them): a renamed public
-- function keeps its old name for one version, a thin wrapper of the new
-- one whose COMMENT begins "deprecated: use mm.<new name>", with the new
-- one's roles.
CREATE TEMP TABLE surface_deprecated (old text PRIMARY KEY, new text NOT NULL);
INSERT INTO surface_deprecated VALUES
('mm.rate(jsonb)', 'mm.ims_rate(jsonb)'),
('mm.replay_openskill(text,text,text,double precision,double precision,double precision,boolean,double precision,double precision,double precision,double precision,double precision,boolean,double precision)',
 'mm.openskill_replay(text,text,text,double precision,double precision,double precision,boolean,double precision,double precision,double precision,double precision,double precision,boolean,double precision)');

-- listed names that are not deprecated aliases of their replacement (none)
SELECT d.old, left(o.comment, 40) AS comment, o.roles AS old_roles, n.roles AS new_roles
FROM surface_deprecated d
LEFT JOIN surface_fn o ON o.fn::text = d.old
LEFT JOIN surface_fn n ON n.fn::text = d.new
WHERE o.fn IS NULL OR n.fn IS NULL OR o.internal OR n.internal
   OR o.comment NOT LIKE 'deprecated: use mm.' || n.name || '%'
   OR o.comment ~ ('^deprecated: use mm\.' || n.name || '[a-z0-9_]')
   OR o.roles IS DISTINCT FROM n.roles
   OR n.comment LIKE 'deprecated%'
ORDER BY d.old;
-- functions that say they are deprecated but are not listed, or say it
-- other than at the start of their COMMENT (none)
SELECT f.fn, left(f.comment, 40) AS comment FROM surface_fn f
WHERE f.comment ~* 'deprecated' AND f.fn::text NOT IN (SELECT old FROM surface_deprecated)
ORDER BY f.fn::text;

-- One word for a history's games (docs/conventions.md, Names): the query of
-- games a replay, history, calibration or fit reads is its argument
-- "games"; a count of games played is the column "games bigint". Outside
-- the deprecated names, no argument "history" and no column "matches".
SELECT f.fn, a.name, a.mode, format_type(a.type, NULL) AS type
FROM surface_fn f
JOIN pg_proc p ON p.oid = f.oid,
     unnest(p.proargnames, coalesce(p.proallargtypes, p.proargtypes::oid[]),
            coalesce(p.proargmodes, array_fill('i'::"char", ARRAY[cardinality(p.proargnames)])))
         AS a(name, type, mode)
WHERE p.proargnames IS NOT NULL AND NOT f.internal AND f.fn::text NOT IN (SELECT old FROM surface_deprecated)
  AND ((a.mode IN ('i', 'b', 'v') AND a.name = 'history')
       OR (a.mode IN ('o', 't') AND a.name = 'matches')
       OR (a.mode IN ('o', 't') AND a.name = 'games' AND a.type <> 'bigint'::regtype))
ORDER BY f.fn::text, a.name;

-- A config comes after the data (docs/conventions.md, Argument order): an
-- argument config, rating_config or policy has nothing after it but
-- arguments with defaults, or follows the name of the object it configures
-- (mm.create_queue(name, config), mm.set_place_config(place, config)).
-- Exception, kept from 0.1.0: the pool and queue arithmetic that takes the
-- config first, as the object it stands for (listed: none other may).
SELECT f.fn, a.name, a.ord AS position, p.pronargs AS arguments, p.pronargdefaults AS defaults
FROM surface_fn f
JOIN pg_proc p ON p.oid = f.oid,
     unnest(p.proargnames, coalesce(p.proargmodes, array_fill('i'::"char", ARRAY[cardinality(p.proargnames)])))
         WITH ORDINALITY AS a(name, mode, ord)
WHERE p.proargnames IS NOT NULL AND NOT f.internal
  AND a.mode IN ('i', 'b') AND a.name IN ('config', 'rating_config', 'policy')
  AND a.ord < p.pronargs - p.pronargdefaults
  AND NOT (a.ord = 2 AND p.proargnames[1] IN ('name', 'place'))
  AND f.fn::text NOT IN ('mm.async_bucket(jsonb,double precision)',
                         'mm.async_bucket_bounds(jsonb,integer,integer)',
                         'mm.async_search(jsonb,double precision,integer)',
                         'mm.matcher_padding(jsonb,double precision)')
ORDER BY f.fn::text;
