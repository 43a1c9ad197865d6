-- mm 0.1.0 -> 0.2.0 upgrade, part 3 of the generated script (sql/generate.pl):
-- data migration that needs the new functions, run after every function of
-- sql/parts has been created again. Written by hand.


-- ==== requeue_while_in_match false by default: 0.1.0's queues keep true ====

-- Data migration: a queue carried from 0.1.0 keeps letting its players
-- queue again while in a match ("requeue_while_in_match": true), as 0.1.0
-- did: 0.1.0 could not report or abandon a match, so its matches stay
-- unfinished for ever and the new default (false) would refuse every player
-- who ever played. A queue created under 0.2.0 gets false. An admin turns
-- it off with mm.alter_queue once the old matches are abandoned. Before the
-- configs are rewritten below (which writes every key).
UPDATE mm.queue SET config = config || '{"requeue_while_in_match": true}'
WHERE pg_catalog.jsonb_typeof(config) = 'object' AND NOT config ? 'requeue_while_in_match';

-- ==== the fairest split by default: 0.1.0's queues keep GW2's teams ====

-- Data migration: 0.2.0 splits a match's chosen rosters into the teams
-- whose odds are closest to even ("split": "fairest"); 0.1.0 kept the
-- teams as the GW2 wiki's populateMatch filled them. A queue carried from
-- 0.1.0 keeps them ("split": "gw2"), so it matches as before; an admin
-- turns the fairest split on with mm.alter_queue. Before the configs are
-- rewritten below.
UPDATE mm.queue SET config = config || '{"split": "gw2"}'
WHERE pg_catalog.jsonb_typeof(config) = 'object' AND NOT config ? 'split';

-- ==== scale-bound queue keys: 0.1.0's queues keep the Glicko-scale figures ====

-- Data migration: filter.padding, filter.deviations,
-- scoring.rating_distance and prediction.rating.spread default to null in
-- 0.2.0, the scale of the queue's rating model (OpenSkill by default). A
-- queue carried from 0.1.0 was given its rosters' ratings by the caller, on
-- the scale 0.1.0's defaults were made for (the Guild Wars 2 wiki's,
-- Glicko): it keeps padding 10, a range of one deviation, rating_distance
-- -5 and spread 200 where its config did not set them, so it matches as
-- before; likewise filter.potentials_min, null in 0.2.0 (4 team_size),
-- keeps 0.1.0's 20. Before the configs are rewritten
-- below; a key whose parent is not an object is left to that rewrite.
DO $$
DECLARE
    k record;
BEGIN
    FOR k IN VALUES ('filter', 'padding', '10'::jsonb), ('filter', 'deviations', '1'::jsonb),
                    ('filter', 'potentials_min', '20'::jsonb),
                    ('scoring', 'rating_distance', '-5'::jsonb)
    LOOP
        UPDATE mm.queue q
        SET config = q.config || pg_catalog.jsonb_build_object(k.column1,
                         pg_catalog.jsonb_build_object(k.column2, k.column3)
                         || coalesce(q.config -> k.column1, '{}'))
        WHERE pg_catalog.jsonb_typeof(q.config) = 'object'
          AND pg_catalog.jsonb_typeof(coalesce(q.config -> k.column1, '{}')) = 'object';
    END LOOP;
    UPDATE mm.queue q
    SET config = q.config || pg_catalog.jsonb_build_object('prediction',
                     coalesce(q.config -> 'prediction', '{}')
                     || pg_catalog.jsonb_build_object('rating', '{"spread": 200}'::jsonb
                                                      || coalesce(q.config -> 'prediction' -> 'rating', '{}')))
    WHERE pg_catalog.jsonb_typeof(q.config) = 'object'
      AND pg_catalog.jsonb_typeof(coalesce(q.config -> 'prediction', '{}')) = 'object'
      AND pg_catalog.jsonb_typeof(coalesce(q.config -> 'prediction' -> 'rating', '{}')) = 'object';
END
$$;

-- ==== stored configs rewritten; the upgrade never stops on a config 0.1.0 accepted ====

-- Data migration: every stored config is rewritten as 0.2.0 stores it
-- (complete, numbers in their shortest form), and the upgrade never stops
-- on a config that 0.1.0 accepted. 0.2.0 checks some keys more narrowly:
-- a place signal's weight is at most 1e12, a dishonor duration is at most
-- 1e10 seconds and is written without months, years or minus signs. So,
-- per config (queues, pools, the dishonor config, places):
--   - a dishonor duration 0.2.0 refuses as written (months or years, which
--     0.1.0 read as 30 days and 12 months; a minus sign inside) becomes
--     the same number of seconds;
--   - a number outside the range of its key (mm.config_keys; 1e12 for a
--     place signal's weight) is clamped into it, with a WARNING naming the
--     queue, pool or place and the key, the old value and the new;
--   - a config that 0.2.0 still refuses is kept as 0.1.0 stored it, with a
--     WARNING naming it and saying why (a tick, put or placement that reads
--     it then fails with the same error until it is set again).
-- docs/operations.md lists what changes on upgrade.
DO $$
DECLARE
    c record;
    k record;
    cfg jsonb;
    path text[];
    v float8;
    clamped float8;
    months float8;
    sig text;
    normal jsonb;
BEGIN
    FOR c IN
        SELECT 'queue' AS kind, pg_catalog.format('queue "%s"', q.name) AS label, q.queue_id::text AS id,
               q.config, 'mm.alter_queue' AS fix
        FROM mm.queue q
        UNION ALL
        SELECT 'pool', pg_catalog.format('pool "%s"', p.pool), p.pool, p.config, 'mm.alter_pool'
        FROM mm.async_pools p
        UNION ALL
        SELECT 'dishonor', 'dishonor', NULL, s.config, 'mm.set_dishonor_config'
        FROM mm.dishonor_settings s
        UNION ALL
        SELECT 'place', pg_catalog.format('place "%s"', pc.place), pc.place, pc.config, 'mm.set_place_config'
        FROM mm.place_configs pc
        ORDER BY 1, 3
    LOOP
        cfg := c.config;
        -- dishonor durations as seconds where 0.2.0 refuses the text
        IF c.kind = 'dishonor' AND pg_catalog.jsonb_typeof(cfg) = 'object' THEN
            FOR k IN SELECT ck.key FROM mm.config_keys('dishonor') ck WHERE ck.type = 'duration' LOOP
                CONTINUE WHEN pg_catalog.jsonb_typeof(cfg -> k.key) IS DISTINCT FROM 'string';
                BEGIN
                    PERFORM mm.dishonor_config_resolve(pg_catalog.jsonb_build_object(k.key, cfg -> k.key));
                EXCEPTION WHEN OTHERS THEN
                    BEGIN
                        months := pg_catalog.date_part('month', (cfg ->> k.key)::interval)
                                  + 12 * pg_catalog.date_part('year', (cfg ->> k.key)::interval);
                        cfg := cfg || pg_catalog.jsonb_build_object(k.key,
                            pg_catalog.date_part('epoch', (cfg ->> k.key)::interval
                                                 - pg_catalog.make_interval(months => months::int))
                            + 2592000 * months);
                    EXCEPTION WHEN OTHERS THEN
                        NULL;   -- not an interval: refused below, and kept
                    END;
                END;
            END LOOP;
        END IF;
        -- numbers out of their key's range are clamped into it
        FOR k IN
            SELECT ck.key, ck.min, ck.max FROM mm.config_keys(c.kind) ck
            WHERE ck.type IN ('number', 'integer', 'duration') AND (ck.min IS NOT NULL OR ck.max IS NOT NULL)
            UNION ALL
            SELECT 'signals.' || e.key || '.weight', 0, 1e12
            FROM pg_catalog.jsonb_each(CASE WHEN c.kind = 'place' AND pg_catalog.jsonb_typeof(cfg -> 'signals') = 'object'
                                            THEN cfg -> 'signals' ELSE '{}' END) e
        LOOP
            path := CASE WHEN k.key LIKE 'signals.%.weight'
                         THEN ARRAY['signals', pg_catalog.substr(k.key, 9, pg_catalog.length(k.key) - 15), 'weight']
                         ELSE pg_catalog.string_to_array(k.key, '.') END;
            CONTINUE WHEN pg_catalog.jsonb_typeof(cfg #> path) IS DISTINCT FROM 'number';
            BEGIN
                v := (cfg #>> path)::float8;
            EXCEPTION WHEN OTHERS THEN
                CONTINUE;       -- beyond float8: refused below, and kept
            END;
            clamped := LEAST(GREATEST(v, coalesce(k.min, v)), coalesce(k.max, v));
            IF clamped <> v THEN
                cfg := pg_catalog.jsonb_set(cfg, path, pg_catalog.to_jsonb(clamped));
                RAISE WARNING '% config key "%" is out of range: clamped to %', c.label, k.key, clamped
                    USING DETAIL = pg_catalog.format('0.1.0 stored %s; 0.2.0 takes %s to %s.',
                                                     coalesce(c.config #> path, pg_catalog.to_jsonb(v)), coalesce(k.min::text, '-Infinity'), coalesce(k.max::text, 'Infinity')),
                          HINT = pg_catalog.format('Check the new value, and set another with %s if need be.', c.fix);
            END IF;
        END LOOP;
        -- stored complete, as 0.2.0 stores it; kept as it was if refused
        BEGIN
            normal := CASE c.kind
                WHEN 'queue' THEN mm.matcher_config(cfg)
                WHEN 'pool' THEN mm.async_config(cfg)
                WHEN 'dishonor' THEN mm.dishonor_config_resolve(cfg)
                ELSE mm.place_config(cfg) END;
        EXCEPTION WHEN OTHERS THEN
            RAISE WARNING '% config is kept as 0.1.0 stored it: 0.2.0 refuses it', c.label
                USING DETAIL = SQLERRM,
                      HINT = pg_catalog.format('Set a config 0.2.0 takes with %s.', c.fix);
            CONTINUE;
        END;
        CASE c.kind
            WHEN 'queue' THEN
                UPDATE mm.queue q SET config = normal WHERE q.queue_id = c.id::int AND q.config IS DISTINCT FROM normal;
            WHEN 'pool' THEN
                UPDATE mm.async_pools p SET config = normal WHERE p.pool = c.id AND p.config IS DISTINCT FROM normal;
            WHEN 'dishonor' THEN
                UPDATE mm.dishonor_settings s SET config = normal WHERE s.config IS DISTINCT FROM normal;
            ELSE
                UPDATE mm.place_configs pc SET config = normal WHERE pc.place = c.id AND pc.config IS DISTINCT FROM normal;
        END CASE;
    END LOOP;
END
$$;
