-- Match quality beside speed (not timed; run by hand on the benchmark's
-- database after setup.sql): for each queue and number of targets, the
-- matches one tick makes, their mean rating spread (max - min effective
-- rating of its rosters) and, with the latency rule, the mean worst latency
-- to the region the match is played in. Each tick is rolled back.
CREATE TEMP TABLE quality (name text, matches bigint, mean_rating_spread numeric, mean_worst_latency_ms numeric);
CREATE FUNCTION pg_temp.measure(qname text, targets int, label text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    n bigint;
    spread numeric;
    worst numeric;
BEGIN
    BEGIN
        PERFORM mm.alter_queue(qname, jsonb_build_object('filter', jsonb_build_object('rosters', targets)));
        PERFORM count(*) FROM mm.tick(qname, '2024-01-01 00:05:00+00');
        SELECT count(*), round(avg(m.rating_spread)::numeric, 1),
               round(avg((SELECT max((mr.latencies ->> m.region)::float8) FROM mm.match_roster mr
                          WHERE mr.match_id = m.match_id))::numeric, 1)
        INTO n, spread, worst
        FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = qname;
        RAISE EXCEPTION 'roll back';
    EXCEPTION WHEN raise_exception THEN
        NULL;
    END;
    INSERT INTO quality VALUES (label, n, spread, worst);
END
$$;
SELECT pg_temp.measure('single', 50, '1 mode, no rules, 50 targets');
SELECT pg_temp.measure('rules', 50, '20 modes x 6 regions, rules, 50 targets');
SELECT pg_temp.measure('single', 100000, '1 mode, no rules, all targets');
SELECT pg_temp.measure('rules', 100000, '20 modes x 6 regions, rules, all targets');
SELECT * FROM quality ORDER BY name;
