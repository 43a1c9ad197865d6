-- mm.config_keys: one row per key of every kind of config, from the key
-- tables the configs are parsed, checked, filled in and rendered with.
SELECT kind, count(*) AS keys FROM mm.config_keys() GROUP BY kind ORDER BY kind;
SELECT key, type, "default", min, max, unit FROM mm.config_keys('dishonor') ORDER BY key;
SELECT key, type, "default", min, max, unit FROM mm.config_keys('queue')
WHERE key LIKE 'filter.%' OR key IN ('ticket_ttl', 'team_size') ORDER BY key;
-- every key has a doc line
SELECT kind, key FROM mm.config_keys() WHERE doc = '' AND kind <> 'place';
-- the documented defaults are what each kind's resolver fills in
WITH resolved(kind, config) AS (
    VALUES ('queue', mm.matcher_config('{}')),
           ('pool', mm.async_config('{}')),
           ('policy', mm.glicko2_policy('{}')),
           ('dishonor', mm.dishonor_config_resolve('{}')),
           ('ladder', mm.ladder_config_resolve('{}')))
SELECT k.kind, k.key, k."default", r.config #> pg_catalog.string_to_array(k.key, '.') AS resolved
FROM mm.config_keys() k JOIN resolved r USING (kind)
WHERE k."default" IS DISTINCT FROM r.config #> pg_catalog.string_to_array(k.key, '.');
-- and every resolved key is in the table
WITH RECURSIVE resolved(kind, config) AS (
    VALUES ('queue', mm.matcher_config('{}')), ('pool', mm.async_config('{}')),
           ('policy', mm.glicko2_policy('{}')), ('dishonor', mm.dishonor_config_resolve('{}')),
           ('ladder', mm.ladder_config_resolve('{}'))),
leaves(kind, path, value) AS (
    SELECT r.kind, e.key, e.value FROM resolved r, pg_catalog.jsonb_each(r.config) e
    UNION ALL
    SELECT l.kind, l.path || '.' || e.key, e.value
    FROM leaves l, pg_catalog.jsonb_each(l.value) e
    WHERE pg_catalog.jsonb_typeof(l.value) = 'object' AND l.path NOT IN ('penalties', 'rating.options'))
SELECT kind, path FROM leaves l
WHERE pg_catalog.jsonb_typeof(value) <> 'object' OR path IN ('penalties', 'rating.options')
EXCEPT SELECT kind, key FROM mm.config_keys();
-- each rating family's options: a kind of their own, "<family>_options",
-- with the defaults a queue of that family shows under rating.options
SELECT f.model, o.key, o."default",
       mm.matcher_config(pg_catalog.jsonb_build_object('rating', pg_catalog.jsonb_build_object('model', f.model)))
           #> ARRAY['rating', 'options', o.key] AS resolved
FROM (VALUES ('openskill'), ('glicko2'), ('elo')) f(model)
JOIN mm.config_keys() o ON o.kind = f.model || '_options'
ORDER BY f.model, o.key;
SELECT f.model, e.key
FROM (VALUES ('openskill'), ('glicko2'), ('elo')) f(model),
     pg_catalog.jsonb_each(mm.matcher_config(pg_catalog.jsonb_build_object('rating', pg_catalog.jsonb_build_object('model', f.model))) #> '{rating,options}') e
EXCEPT SELECT pg_catalog.replace(kind, '_options', ''), key FROM mm.config_keys() WHERE kind LIKE '%\_options';
SELECT * FROM mm.config_keys('nope');

-- numbers are rendered in their shortest round-trip form
SELECT mm.matcher_config('{"scoring": {"age": 0.1}, "rating": {"model": "glicko2", "options": {"vol": 0.07}}}') #> '{scoring,age}' AS age,
       mm.async_config('{"max_difference": 0.3}') -> 'max_difference' AS max_difference,
       mm.glicko2_policy('{"volatility": {"default": 0.06}}') #> '{volatility,default}' AS vol;

-- durations: a number of seconds or an interval text of days, hours,
-- minutes and seconds; months, years and minus signs are refused
SELECT mm.dishonor_timeout(1, '{"timeout_duration": 90, "timeout_rounding": 1}') AS seconds,
       mm.dishonor_timeout(1, '{"timeout_duration": "1 min 30 s", "timeout_rounding": "1s"}') AS text;
SELECT mm.matcher_config('{"ticket_ttl": 600}') -> 'ticket_ttl' AS ttl_seconds,
       mm.matcher_config('{"ticket_ttl": "10 minutes"}') -> 'ticket_ttl' AS ttl_text;
SELECT mm.glicko2_policy('{"period": 86400}') -> 'period' AS period;
SELECT mm.glicko2_policy('{"period": "1 mon"}');
SELECT mm.dishonor_config_resolve('{"stack_duration": "1 year"}');
SELECT mm.matcher_config('{"ticket_ttl": 0}');
SELECT mm.matcher_config('{"ticket_ttl": true}');
SELECT mm.dishonor_config_resolve('{"stack_duration": "soon"}');

-- an interval argument counts as EXTRACT(EPOCH FROM interval): a year is
-- 365.25 days, a month 30 days (one stack of 10 days decays in both)
SELECT mm.dishonor_decay(2, '1 year', '{"stack_duration": "182 days 15 hours"}') AS one_year,
       mm.dishonor_decay(2, '365 days', '{"stack_duration": "182 days 15 hours"}') AS days_365,
       mm.dishonor_decay(3, '1 mon', '{"stack_duration": "10 days"}') AS one_month;
