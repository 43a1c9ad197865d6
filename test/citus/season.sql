-- A scripted season, run by test/citus/differential.sh on a single node and
-- on the Citus cluster: four queues (duels by queue id, parties of two by
-- name, a ready check, one dropped), rounds of enqueues, parties leaving
-- and losing a player, ticks at given times, claims, results, an abandon,
-- a backfill, accepts, a decline and a ready check that times out, the
-- refusals of a player in a match, then a dropped queue and a purge. Times
-- are offsets from t0 (twelve hours before the run, kept in df_clock) so
-- that both runs make the same matches at the same times; within a queue
-- every enqueue and tick uses one form (docs/scaling.md: a queue takes
-- its order from the node that runs the call). Players 300001 and up.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DROP TABLE IF EXISTS df_clock;
CREATE TABLE df_clock AS SELECT date_trunc('second', now()) - interval '12 hours' AS t0;
SELECT t0 FROM df_clock \gset
SELECT mm.create_queue('df_duel', '{"team_size": 1, "filter": {"potentials_min": 1}}');
SELECT mm.create_queue('df_team', '{"team_size": 2, "filter": {"potentials_min": 1, "deviations": 5}}');
SELECT mm.create_queue('df_ready', '{"team_size": 1, "filter": {"potentials_min": 1}, "accept_timeout": "1 day",
                                     "dodge_timeout": "1 day"}');
SELECT mm.create_queue('df_old', '{"team_size": 1, "filter": {"potentials_min": 1}}');
SELECT queue_id AS duel FROM mm.queue WHERE name = 'df_duel' AND dropped_at IS NULL \gset
SELECT queue_id AS team FROM mm.queue WHERE name = 'df_team' AND dropped_at IS NULL \gset
SELECT queue_id AS ready FROM mm.queue WHERE name = 'df_ready' AND dropped_at IS NULL \gset

-- ---- round 1
-- duels: each call its own statement, by queue id (on Citus delegated to
-- the queue's worker)
SELECT format('SELECT mm.enqueue(%s, ARRAY[%s]::bigint[], %s, 30, joined_at => %L::timestamptz - interval ''%s seconds'')',
              :duel, 300000 + p, 1400 + (p * 53) % 300, :'t0', 60 + p)
FROM generate_series(1, 20) p \gexec
-- parties of two and solos, by name
SELECT mm.enqueue('df_team', ARRAY[300100 + 2 * p - 1, 300100 + 2 * p]::bigint[], 1500 + (p * 29) % 100, 20,
                  joined_at => :'t0'::timestamptz - make_interval(secs => 60 + p))
FROM generate_series(1, 6) p;
SELECT mm.enqueue('df_team', ARRAY[300150 + p]::bigint[], 1500 + (p * 31) % 100, 20,
                  joined_at => :'t0'::timestamptz - make_interval(secs => 50 + p))
FROM generate_series(1, 6) p;
-- a party loses a player, another leaves whole, a duelist leaves, a
-- roster leaves by its id
SELECT mm.remove_player((SELECT roster_id FROM mm.queued_player WHERE player_id = 300103), 300104);
SELECT mm.leave_player(300105);
SELECT mm.leave_player(300005);
SELECT mm.leave((SELECT roster_id FROM mm.queued_player WHERE player_id = 300156));
SELECT mm.update_roster((SELECT roster_id FROM mm.queued_player WHERE player_id = 300151), rating => 1590);
SELECT format('SELECT count(*) FROM mm.tick(%s, %L::timestamptz + interval ''10 seconds'')', :duel, :'t0') \gexec
SELECT count(*) FROM mm.tick('df_team', :'t0'::timestamptz + interval '10 seconds');
SELECT format('SELECT count(*) FROM mm.claim_matches(%s, 100)', :duel) \gexec
SELECT count(*) FROM mm.claim_matches('df_team', 100);

-- a player in a match may not queue again (requeue_while_in_match false)
\set ON_ERROR_STOP 0
SELECT mm.enqueue('df_team', '{300001}', 1500, 20);
\set ON_ERROR_STOP 1

-- results: red wins when its lowest player is lower than blue's; the match
-- of player 300007 is abandoned (its game server crashed)
-- (each query of one queue: on Citus it runs whole on the queue's shard)
CREATE TEMP TABLE df_round AS
SELECT mr.queue_id, mr.match_id, min(p) FILTER (WHERE mr.team = 'red') AS red, min(p) FILTER (WHERE mr.team = 'blue') AS blue,
       array_agg(p) AS players
FROM mm.match_roster mr, unnest(mr.players) p WHERE mr.queue_id = :duel GROUP BY mr.queue_id, mr.match_id;
INSERT INTO df_round
SELECT mr.queue_id, mr.match_id, min(p) FILTER (WHERE mr.team = 'red'), min(p) FILTER (WHERE mr.team = 'blue'), array_agg(p)
FROM mm.match_roster mr, unnest(mr.players) p WHERE mr.queue_id = :team GROUP BY mr.queue_id, mr.match_id;
SELECT format('SELECT count(*) FROM mm.report_result(%s, %L)', x.match_id,
              CASE WHEN x.red < x.blue THEN '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}'
                   ELSE '{"teams": {"red": {"rank": 2}, "blue": {"rank": 1}}}' END)
FROM df_round x
WHERE NOT 300007 = ANY (x.players) AND NOT x.players && '{300101,300102,300103,300107,300108,300109,300110,300111,300112}'::bigint[]
ORDER BY least(x.red, x.blue) \gexec
SELECT format('SELECT mm.abandon_match(%s)', mr.match_id) FROM mm.match_roster mr
WHERE mr.queue_id = :duel AND 300007 = ANY (mr.players) \gexec

-- a backfill: a player of the parties' match leaves, the next tick fills
-- its seat from the queue
SELECT format('SELECT mm.request_backfill(%s, %L, 1)', mr.match_id, mr.team) FROM mm.match_roster mr
WHERE mr.queue_id = :team AND 300101 = ANY (mr.players) \gexec
SELECT mm.enqueue('df_team', ARRAY[300160 + p]::bigint[], 1500, 20,
                  joined_at => :'t0'::timestamptz + make_interval(secs => 20 + p))
FROM generate_series(1, 2) p;
SELECT count(*) FROM mm.tick('df_team', :'t0'::timestamptz + interval '40 seconds');
SELECT count(*) FROM mm.claim_matches('df_team', 100);
SELECT format('SELECT count(*) FROM mm.report_result(%s, %L)', m.match_id, '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}')
FROM (SELECT mr.match_id, min(p) AS first FROM mm.match_roster mr, unnest(mr.players) p
      WHERE mr.queue_id = :team GROUP BY mr.match_id
      HAVING bool_or(p = ANY ('{300101,300102,300103,300107,300108,300109,300110,300111,300112}'::bigint[]))) m
JOIN mm.match x ON x.queue_id = :team AND x.match_id = m.match_id AND x.status = 'matched'
ORDER BY x.created_at, m.first \gexec

-- ---- the ready check
SELECT mm.enqueue('df_ready', ARRAY[300200 + p]::bigint[], 1500 + p, 20,
                  joined_at => :'t0'::timestamptz - make_interval(secs => 30 + p))
FROM generate_series(1, 6) p;
SELECT count(*) FROM mm.tick('df_ready', :'t0'::timestamptz + interval '20 seconds');
SELECT format('SELECT mm.accept(%s, %s)', mr.match_id, p) FROM mm.match_roster mr, unnest(mr.players) p
WHERE mr.queue_id = :ready AND p IN (300201, 300202, 300203)
ORDER BY p \gexec
\set ON_ERROR_STOP 0
SELECT format('SELECT mm.decline(%s, %s)', mr.match_id, p) FROM mm.match_roster mr, unnest(mr.players) p
WHERE mr.queue_id = :ready AND p = 300204 \gexec
\set ON_ERROR_STOP 1
-- a player of the proposed match may not queue anywhere
\set ON_ERROR_STOP 0
SELECT mm.enqueue('df_duel', '{300205}', 1500, 20);
\set ON_ERROR_STOP 1
-- after the end of the ready check the next tick dissolves the last match
SELECT count(*) FROM mm.tick('df_ready', :'t0'::timestamptz + interval '1 day 1 minute');
SELECT count(*) FROM mm.claim_matches('df_ready', 100);
SELECT format('SELECT count(*) FROM mm.report_result(%s, %L)', m.match_id, '{"teams": {"red": {"rank": 2}, "blue": {"rank": 1}}}')
FROM mm.match m WHERE m.queue_id = :ready AND m.status = 'matched' \gexec

-- ---- round 2: the duelists whose match ended queue again, by queue id
SELECT format('SELECT mm.enqueue(%s, ARRAY[%s]::bigint[], %s, 30, joined_at => %L::timestamptz + interval ''%s seconds'')',
              :duel, p, 1450 + (p * 7) % 100, :'t0', 70 + p % 10)
FROM unnest(ARRAY(SELECT unnest(e.players) FROM mm.ended_roster e WHERE e.queue_id = :duel)) p
ORDER BY p \gexec
SELECT format('SELECT count(*) FROM mm.tick(%s, %L::timestamptz + interval ''90 seconds'')', :duel, :'t0') \gexec
SELECT format('SELECT count(*) FROM mm.claim_matches(%s, 100)', :duel) \gexec
SELECT format('SELECT count(*) FROM mm.report_result(%s, %L)', x.match_id, '{"teams": {"red": {"rank": 1}, "blue": {"rank": 1}}}')
FROM (SELECT DISTINCT m.match_id, m.created_at FROM mm.match m
      WHERE m.queue_id = :duel AND m.status = 'matched' AND m.created_at > :'t0'::timestamptz + interval '1 minute') x
ORDER BY x.match_id \gexec

