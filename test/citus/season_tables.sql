-- Every table of mm after the scripted season (season.sql), its rows as
-- text, one a line, "table: row", sorted, for test/citus/differential.sh to
-- compare between a single node and the Citus cluster. Ids differ between
-- the two (on Citus each node draws from its own range), so every id is
-- written as what it names: a queue by its name; a roster by its queue, the
-- offset of joined_at from t0 and its players; a match by its queue, the
-- offset of its time and its players (a dissolved match's from its history);
-- a tick by its time; a backfill request by its match, team and players.
-- Times given by the season are offsets from t0 (df_clock); the times of
-- the wall clock (when an event was recorded, a match delivered, a result
-- reported, a tick's duration) are left out. mm.waiting_player, kept on
-- Citus only, is left out too. The rows are copied into temporary tables
-- first, each of one queue or player range, so that the keys are computed
-- on the coordinator.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SELECT t0 FROM df_clock \gset
CREATE TEMP TABLE s_queue AS SELECT * FROM mm.queue WHERE name LIKE 'df\_%';
CREATE TEMP TABLE s_roster AS SELECT * FROM mm.roster WHERE queue_id IN (SELECT queue_id FROM s_queue);
CREATE TEMP TABLE s_queued_player AS SELECT * FROM mm.queued_player WHERE queue_id IN (SELECT queue_id FROM s_queue);
CREATE TEMP TABLE s_match AS SELECT * FROM mm.match WHERE queue_id IN (SELECT queue_id FROM s_queue);
CREATE TEMP TABLE s_ended_roster AS SELECT * FROM mm.ended_roster WHERE queue_id IN (SELECT queue_id FROM s_queue);
CREATE TEMP TABLE s_ticket_event AS SELECT * FROM mm.ticket_event WHERE queue_id IN (SELECT queue_id FROM s_queue);
CREATE TEMP TABLE s_tick_log AS SELECT * FROM mm.tick_log WHERE queue_id IN (SELECT queue_id FROM s_queue);
CREATE TEMP TABLE s_match_accept AS SELECT * FROM mm.match_accept WHERE queue_id IN (SELECT queue_id FROM s_queue);
CREATE TEMP TABLE s_queue_dodge AS SELECT * FROM mm.queue_dodge WHERE queue_id IN (SELECT queue_id FROM s_queue);
CREATE TEMP TABLE s_backfill AS SELECT * FROM mm.backfill WHERE queue_id IN (SELECT queue_id FROM s_queue);
CREATE TEMP TABLE s_match_result AS SELECT * FROM mm.match_result WHERE queue_id IN (SELECT queue_id FROM s_queue);
CREATE TEMP TABLE s_match_result_player AS SELECT * FROM mm.match_result_player WHERE queue_id IN (SELECT queue_id FROM s_queue);
CREATE TEMP TABLE s_odds_calibration AS SELECT * FROM mm.odds_calibration WHERE queue_id IN (SELECT queue_id FROM s_queue);
CREATE TEMP TABLE s_odds_result AS SELECT * FROM mm.odds_result WHERE queue_id IN (SELECT queue_id FROM s_queue);
CREATE TEMP TABLE s_queue_event AS SELECT * FROM mm.queue_event WHERE queue_id IN (SELECT queue_id FROM s_queue);
-- the feed of each live queue as a backend reads it (mm.events), in its order
CREATE TEMP TABLE s_feed AS
SELECT q.queue_id, e.* FROM s_queue q CROSS JOIN LATERAL mm.events(q.name, 0, 10000) WITH ORDINALITY e
WHERE q.dropped_at IS NULL;
CREATE TEMP TABLE s_ratings AS SELECT * FROM mm.ratings WHERE player_id BETWEEN 300001 AND 300999;
CREATE TEMP TABLE s_rating_period_game AS SELECT * FROM mm.rating_period_game WHERE player_id BETWEEN 300001 AND 300999;
CREATE TEMP TABLE s_dishonor_players AS SELECT * FROM mm.dishonor_players WHERE player_id BETWEEN 300001 AND 300999;

-- the keys
CREATE TEMP TABLE k_roster AS
SELECT x.queue_id, x.roster_id,
       format('%s@%s%s', q.name, x.joined_at - :'t0'::timestamptz, x.players) AS k
FROM (SELECT r.queue_id, r.roster_id, min(r.joined_at) AS joined_at,
             array_agg(DISTINCT r.p ORDER BY r.p) AS players
      FROM (SELECT queue_id, roster_id, joined_at, NULL::bigint AS p FROM s_roster
            UNION ALL SELECT queue_id, roster_id, joined_at, unnest(players) FROM s_ended_roster
            UNION ALL SELECT queue_id, roster_id, at, player_id FROM s_ticket_event WHERE status = 'waiting'
            UNION ALL SELECT queue_id, roster_id, NULL, player_id FROM s_queued_player) r
      GROUP BY r.queue_id, r.roster_id) x
JOIN s_queue q USING (queue_id);
CREATE TEMP TABLE k_match AS
SELECT m.queue_id, m.match_id,
       format('%s@%s%s', q.name, m.created_at - :'t0'::timestamptz,
              (SELECT array_agg(DISTINCT p ORDER BY p) FROM (
                  SELECT qp.player_id AS p FROM s_roster r JOIN s_queued_player qp USING (queue_id, roster_id)
                  WHERE r.queue_id = m.queue_id AND r.match_id = m.match_id
                  UNION ALL SELECT unnest(e.players) FROM s_ended_roster e WHERE e.queue_id = m.queue_id AND e.match_id = m.match_id
                  UNION ALL SELECT t.player_id FROM s_ticket_event t WHERE t.queue_id = m.queue_id AND t.match_id = m.match_id) x)) AS k
FROM s_match m JOIN s_queue q USING (queue_id);
CREATE TEMP TABLE k_tick AS
SELECT l.queue_id, l.tick_id, format('%s@%s', q.name, l.at - :'t0'::timestamptz) AS k FROM s_tick_log l JOIN s_queue q USING (queue_id)
UNION
SELECT m.queue_id, m.tick_id, format('%s@%s', q.name, m.created_at - :'t0'::timestamptz) FROM s_match m JOIN s_queue q USING (queue_id);
CREATE TEMP TABLE k_backfill AS
SELECT b.queue_id, b.backfill_id, format('%s/%s/%s', km.k, b.team, b.players) AS k
FROM s_backfill b JOIN k_match km USING (queue_id, match_id);

CREATE TEMP TABLE s_out (line text);
INSERT INTO s_out
SELECT 'queue: ' || concat_ws(' | ', name, config, dropped_at IS NULL) FROM s_queue;
INSERT INTO s_out
SELECT 'roster: ' || concat_ws(' | ', kr.k, x.rating, x.deviation, x.rank, x.ladder_points, x.dishonor, x.attributes, x.latencies,
                              km.k, x.team, x.waited, kb.k)
FROM s_roster x JOIN k_roster kr USING (queue_id, roster_id)
LEFT JOIN k_match km USING (queue_id, match_id) LEFT JOIN k_backfill kb USING (queue_id, backfill_id);
INSERT INTO s_out
SELECT 'queued_player: ' || concat_ws(' | ', kr.k, x.player_id, x.seat, x.profession, x.role, x.requeued)
FROM s_queued_player x JOIN k_roster kr USING (queue_id, roster_id);
INSERT INTO s_out
SELECT 'match: ' || concat_ws(' | ', km.k, kt.k, x.prediction, x.red_odds, x.blue_odds, x.rating_spread, x.status,
                             x.delivered_at IS NOT NULL, x.accept_until - :'t0'::timestamptz, x.region, x.teams, x.odds, x.odds_scale)
FROM s_match x JOIN k_match km USING (queue_id, match_id) LEFT JOIN k_tick kt USING (queue_id, tick_id);
INSERT INTO s_out
SELECT 'ended_roster: ' || concat_ws(' | ', km.k, kr.k, x.team, x.players, x.rating, x.deviation, x.rank, x.ladder_points,
                                    x.dishonor, x.professions, x.waited, kb.k, x.attributes, x.latencies)
FROM s_ended_roster x JOIN k_match km USING (queue_id, match_id) JOIN k_roster kr USING (queue_id, roster_id)
LEFT JOIN k_backfill kb USING (queue_id, backfill_id);
INSERT INTO s_out
SELECT 'ticket_event: ' || concat_ws(' | ', kr.k, x.player_id, x.status, km.k, x.reason)
FROM s_ticket_event x LEFT JOIN k_roster kr USING (queue_id, roster_id) LEFT JOIN k_match km USING (queue_id, match_id);
INSERT INTO s_out
SELECT 'tick_log: ' || concat_ws(' | ', kt.k, x.rosters_seen, x.matches_made, x.targets_failed, x.oldest_wait,
                                x.mean_rating_spread, x.matches_dropped, x.rosters_expired, x.failed_reasons, x.ticks,
                                x.last_at - :'t0'::timestamptz, x.dissolves_failed)
FROM s_tick_log x JOIN k_tick kt USING (queue_id, tick_id);
INSERT INTO s_out
SELECT 'match_accept: ' || concat_ws(' | ', km.k, x.player_id) FROM s_match_accept x JOIN k_match km USING (queue_id, match_id);
INSERT INTO s_out
SELECT 'queue_dodge: ' || concat_ws(' | ', q.name, x.player_id)
FROM s_queue_dodge x JOIN s_queue q USING (queue_id);
INSERT INTO s_out
SELECT 'backfill: ' || concat_ws(' | ', kb.k, x.status, x.roles, kt.k, x.delivered_at IS NOT NULL)
FROM s_backfill x JOIN k_backfill kb USING (queue_id, backfill_id) LEFT JOIN k_tick kt USING (queue_id, tick_id);
INSERT INTO s_out
SELECT 'match_result: ' || concat_ws(' | ', km.k, x.status, x.result) FROM s_match_result x JOIN k_match km USING (queue_id, match_id);
INSERT INTO s_out
SELECT 'match_result_player: ' || concat_ws(' | ', km.k, x.player_id, x.team, x.rank, x.score, x.weight, x.deserted, x.key, x.model,
                                           x.state_before, x.state_after, x.ladder_before, x.ladder_awarded, x.ladder_after,
                                           x.dishonor_stacks)
FROM s_match_result_player x JOIN k_match km USING (queue_id, match_id);
INSERT INTO s_out
SELECT 'odds_calibration: ' || concat_ws(' | ', q.name, x.model, x.scale, x.information, x.results, x.updated_at - :'t0'::timestamptz)
FROM s_odds_calibration x JOIN s_queue q USING (queue_id);
INSERT INTO s_out
SELECT 'odds_result: ' || concat_ws(' | ', km.k, x.logit, x.score) FROM s_odds_result x JOIN k_match km USING (queue_id, match_id);
INSERT INTO s_out
SELECT 'ratings: ' || concat_ws(' | ', x.player_id, x.key, x.model, x.state, x.ladder_points, x.games) FROM s_ratings x;
INSERT INTO s_out
SELECT 'rating_period_game: ' || concat_ws(' | ', x.key, x.player_id, x.opponent_id, x.score) FROM s_rating_period_game x;
INSERT INTO s_out
SELECT 'dishonor_players: ' || concat_ws(' | ', x.player_id) FROM s_dishonor_players x;
-- the event feed: each event by its place in its queue's order (ids differ),
-- the ids it names as what they name, the times of the wall clock left out
CREATE FUNCTION pg_temp.s_event_detail(q int, d jsonb) RETURNS text LANGUAGE sql AS $f$
    SELECT concat_ws(' | ', d - '{rosters,requeued_rosters,backfill_id,joined_at,accept_until}'::text[],
                     (SELECT string_agg(kr.k, ', ' ORDER BY x.o) FROM jsonb_array_elements_text(d -> 'rosters') WITH ORDINALITY x(r, o)
                      JOIN k_roster kr ON kr.queue_id = q AND kr.roster_id = x.r::bigint),
                     (SELECT string_agg(kr.k, ', ' ORDER BY x.o) FROM jsonb_array_elements_text(d -> 'requeued_rosters') WITH ORDINALITY x(r, o)
                      JOIN k_roster kr ON kr.queue_id = q AND kr.roster_id = x.r::bigint))
$f$;
INSERT INTO s_out
SELECT 'queue_event: ' || concat_ws(' | ', q.name, row_number() OVER (PARTITION BY x.queue_id ORDER BY x.event_id), x.kind,
                                    km.k, kr.k, x.player_ids, pg_temp.s_event_detail(x.queue_id, x.detail))
FROM s_queue_event x JOIN s_queue q USING (queue_id)
LEFT JOIN k_match km USING (queue_id, match_id) LEFT JOIN k_roster kr USING (queue_id, roster_id);
INSERT INTO s_out
SELECT 'feed: ' || concat_ws(' | ', q.name, x.ordinality, x.kind, km.k, kr.k, x.player_ids, pg_temp.s_event_detail(x.queue_id, x.detail))
FROM s_feed x JOIN s_queue q USING (queue_id)
LEFT JOIN k_match km USING (queue_id, match_id) LEFT JOIN k_roster kr USING (queue_id, roster_id);
-- each live queue's metrics (mm.queue_metrics), the times of the wall clock
-- (the oldest wait, the ticks' seconds) left out
INSERT INTO s_out
SELECT 'metrics: ' || concat_ws(' | ', m.queue, m.enqueued_total, m.left_total, m.expired_total, m.proposed_total,
                                m.dissolved_total, m.accepted_total, m.declined_total, m.matches_total,
                                m.players_matched_total, m.backfills_requested_total, m.backfills_filled_total,
                                m.results_total, m.abandoned_total, m.ticks_total, m.tick_errors_total,
                                m.waiting_rosters, m.waiting_players, m.open_matches, m.open_ready_checks,
                                m.wait_seconds_bucket, m.wait_seconds_count, round(m.wait_seconds_sum::numeric, 3))
FROM mm.queue_metrics m WHERE m.queue LIKE 'df\_%';
SELECT line FROM s_out ORDER BY line COLLATE "C";
