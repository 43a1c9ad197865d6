-- 1,000 polls at the tail of 1M retained events (max_wait 0): 5 new events each
SELECT count(*) FROM (SELECT max(e.event_id) AS last FROM mm.queue_event e
                      WHERE e.queue_id = (SELECT queue_id FROM mm.queue WHERE name = 'tail')) m,
     generate_series(1, 1000) i,
     LATERAL mm.events('tail', m.last - 5, 100) e;
