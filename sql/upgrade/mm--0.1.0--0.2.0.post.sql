-- mm 0.1.0 -> 0.2.0 upgrade, part 3 of the generated script (sql/generate.pl):
-- data migration that needs the new functions, run after every function of
-- sql/parts has been created again. Written by hand.


-- Signal weights are capped at 1e12 (so that server scores stay finite): a
-- stored place configuration with a larger weight stops the upgrade here,
-- with the check's message saying which.
SELECT pg_catalog.count(*) FROM mm.place_configs c WHERE NOT mm.check_place_config(c.config);

-- A queue carried from 0.1.0 keeps letting its players queue again while
-- in a match ("requeue_while_in_match": true), as 0.1.0 did: 0.1.0 could
-- not report or abandon a match, so its matches stay unfinished for ever
-- and the new default (false) would refuse every player who ever played.
-- A queue created under 0.2.0 gets false. An admin turns it off with
-- mm.alter_queue once the old matches are abandoned.
UPDATE mm.queue SET config = config || '{"requeue_while_in_match": true}'
WHERE NOT config ? 'requeue_while_in_match';

-- Stored configs, normalised the same way: every key present, numbers
-- shortest (0.1, not 0.10000000000000001).
UPDATE mm.queue SET config = mm.matcher_config(config);
UPDATE mm.async_pools SET config = mm.async_config(config);

-- Durations have one meaning: seconds, or an interval of days, hours,
-- minutes and seconds; months and years are refused. 0.1.0 read a month of
-- a dishonor duration as 30 days: such a stored duration becomes that many
-- seconds.
UPDATE mm.dishonor_settings s
SET config = mm.dishonor_config_resolve((
    SELECT pg_catalog.jsonb_object_agg(e.key,
               CASE WHEN e.key IN ('stack_duration', 'timeout_duration', 'timeout_rounding')
                         AND pg_catalog.jsonb_typeof(e.value) = 'string'
                         AND pg_catalog.date_part('month', (e.value #>> '{}')::interval)
                             + 12 * pg_catalog.date_part('year', (e.value #>> '{}')::interval) <> 0
                    THEN pg_catalog.to_jsonb(
                             pg_catalog.date_part('epoch', (e.value #>> '{}')::interval
                                 - pg_catalog.make_interval(months => (pg_catalog.date_part('month', (e.value #>> '{}')::interval)
                                     + 12 * pg_catalog.date_part('year', (e.value #>> '{}')::interval))::int))
                             + 2592000 * (pg_catalog.date_part('month', (e.value #>> '{}')::interval)
                                 + 12 * pg_catalog.date_part('year', (e.value #>> '{}')::interval)))
                    ELSE e.value END)
    FROM pg_catalog.jsonb_each(s.config) e));

UPDATE mm.place_configs c SET config = mm.place_config(c.config)
WHERE c.config IS DISTINCT FROM mm.place_config(c.config);