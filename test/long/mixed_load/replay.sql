-- The sequential replay: every reported match of the load again, one at a
-- time in the order the reports took their rating rows, into copies of the
-- matches in copies of the queues whose rating key is <key>_replay; then
-- every live rating row against its replayed row. OpenSkill reads no clock,
-- so the replay must equal the live ratings to the last bit (float8send),
-- with the same ladder points and games. The suite runs it in a
-- transaction that it rolls back.
\set ON_ERROR_STOP 1
\set offset 1000000000
SELECT count(mm.create_queue(q.name || '_replay',
                             q.config || jsonb_build_object('rating', (q.config -> 'rating')
                                 || jsonb_build_object('key', (q.config #>> '{rating,key}') || '_replay'))))
FROM mm.queue q WHERE q.name IN ('duo', 'squad') \gset
INSERT INTO mm.match (match_id, queue_id, tick_id, created_at, prediction, red_odds, blue_odds, rating_spread, status)
SELECT m.match_id + :offset, rq.queue_id, m.tick_id, m.created_at, m.prediction, m.red_odds, m.blue_odds,
       m.rating_spread, 'matched'
FROM load.report_order o JOIN mm.match m USING (match_id) JOIN mm.queue q USING (queue_id)
JOIN mm.queue rq ON rq.name = q.name || '_replay';
INSERT INTO mm.match_roster (match_id, roster_id, team, players, rating, deviation, rank, ladder_points,
                             dishonor, professions, joined_at, waited, queue_id, position)
SELECT mr.match_id + :offset, mr.roster_id + :offset, mr.team, mr.players, mr.rating, mr.deviation, mr.rank,
       mr.ladder_points, mr.dishonor, mr.professions, mr.joined_at, mr.waited, rm.queue_id, mr.position
FROM load.report_order o JOIN mm.match_roster mr USING (match_id) JOIN mm.match rm ON rm.match_id = mr.match_id + :offset;
DO $$
DECLARE
    r record;
BEGIN
    FOR r IN SELECT o.match_id, x.result FROM load.report_order o JOIN mm.match_result x USING (match_id)
             ORDER BY o.seq LOOP
        PERFORM count(*) FROM mm.report_result(r.match_id + 1000000000, r.result);
    END LOOP;
END
$$;
\ir compare.sql
