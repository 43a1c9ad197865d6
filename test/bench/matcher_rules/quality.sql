-- Match quality beside speed (not timed; run by hand on either benchmark's
-- database after its setup.sql, so with its number of targets): for each
-- queue, the matches one tick makes, their mean rating spread (max - min
-- effective rating of its rosters), with the latency rule the mean worst
-- latency to the region the match is played in, and the share of matches
-- whose every team has exactly 1 tank, 2 damage and 2 support players (the
-- roles rule's counts; players without a role count as none). Each tick is
-- rolled back.
CREATE TEMP TABLE quality (name text, matches bigint, mean_rating_spread numeric,
                           mean_worst_latency_ms numeric, complete_roles numeric);
CREATE FUNCTION pg_temp.measure(qname text, label text)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    n bigint;
    spread numeric;
    worst numeric;
    complete numeric;
BEGIN
    BEGIN
        PERFORM count(*) FROM mm.tick(qname, '2024-01-01 00:05:00+00');
        SELECT count(*), round(avg(m.rating_spread)::numeric, 1),
               round(avg((SELECT max((mr.latencies ->> m.region)::float8) FROM mm.match_roster mr
                          WHERE mr.match_id = m.match_id))::numeric, 1),
               round(avg((SELECT CASE WHEN bool_and(t.tank = 1 AND t.damage = 2 AND t.support = 2) THEN 1 ELSE 0 END
                          FROM (SELECT mr.team, count(*) FILTER (WHERE qp.role = 'tank') AS tank,
                                       count(*) FILTER (WHERE qp.role = 'damage') AS damage,
                                       count(*) FILTER (WHERE qp.role = 'support') AS support
                                FROM mm.roster mr JOIN mm.queued_player qp USING (queue_id, roster_id)
                                WHERE mr.queue_id = m.queue_id AND mr.match_id = m.match_id
                                GROUP BY mr.team) t)) * 100, 1)
        INTO n, spread, worst, complete
        FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = qname;
        RAISE EXCEPTION 'roll back';
    EXCEPTION WHEN raise_exception THEN
        NULL;
    END;
    INSERT INTO quality VALUES (label, n, spread, worst, complete);
END
$$;
SELECT pg_temp.measure('single', '1 mode, no rules');
SELECT pg_temp.measure('rules', '20 modes x 6 regions, equal + latency + roles');
SELECT pg_temp.measure('latency', '20 modes x 6 regions, equal + latency');
SELECT * FROM quality ORDER BY name;
