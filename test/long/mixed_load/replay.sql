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
INSERT INTO mm.match (match_id, queue_id, tick_id, created_at, prediction, red_odds, blue_odds, rating_spread, status,
                      teams, odds)
SELECT m.match_id + :offset, rq.queue_id, m.tick_id, m.created_at, m.prediction, m.red_odds, m.blue_odds,
       m.rating_spread, 'matched', m.teams, m.odds
FROM load.report_order o JOIN mm.match m USING (match_id) JOIN mm.queue q USING (queue_id)
JOIN mm.queue rq ON rq.name = q.name || '_replay';
-- the copies' rosters in their matches (rows of mm.roster), their players
-- rows of mm.queued_player marked requeued (the key holds the live ones)
INSERT INTO mm.roster (roster_id, queue_id, position, rating, deviation, rank, ladder_points, dishonor, joined_at,
                       match_id, team, waited)
SELECT mr.roster_id + :offset, rm.queue_id, mr.position, mr.rating, mr.deviation, mr.rank, mr.ladder_points,
       mr.dishonor, mr.joined_at, mr.match_id + :offset, mr.team, mr.waited
FROM load.report_order o JOIN mm.match_roster mr USING (match_id) JOIN mm.match rm ON rm.match_id = mr.match_id + :offset;
INSERT INTO mm.queued_player (player_id, roster_id, queue_id, seat, profession, requeued)
SELECT u.p, mr.roster_id + :offset, rm.queue_id, u.o,
       CASE WHEN cardinality(mr.professions) = cardinality(mr.players) THEN mr.professions[u.o] END, true
FROM load.report_order o JOIN mm.match_roster mr USING (match_id) JOIN mm.match rm ON rm.match_id = mr.match_id + :offset,
     unnest(mr.players) WITH ORDINALITY AS u(p, o);
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
