-- Block lists: mm.block, mm.unblock and mm.player_blocks; a blocked pair is
-- never in one match, in a tick (hand-made and random queues), a backfill or
-- mm.match_rosters; mm.explain names the blocks; the cap; what the table
-- refuses; who may call what.
\set VERBOSITY terse
SET timezone = 'UTC';

-- the tests after this one count on mm's sequences: put them back at the end
CREATE TEMP TABLE saved_sequences_blocks (seq regclass, last_value bigint, is_called boolean);
DO $$
DECLARE
    c regclass;
BEGIN
    FOR c IN SELECT oid FROM pg_class WHERE relnamespace = 'mm'::regnamespace AND relkind = 'S' LOOP
        EXECUTE format('INSERT INTO saved_sequences_blocks SELECT %L, last_value, is_called FROM %s', c, c);
    END LOOP;
END
$$;

-- The calls
SELECT mm.block(9001, 9002) AS new_block, mm.block(9001, 9002) AS again;
SELECT blocked_id, until FROM mm.player_blocks(9001);
-- a block that ends: in force until then, not after
SELECT mm.block(9001, 9003, now() + interval '1 day') AS new_block;
SELECT count(*) AS in_force_now, (SELECT count(*) FROM mm.player_blocks(9001, now() + interval '2 days')) AS in_two_days
FROM mm.player_blocks(9001);
-- blocking again replaces its end (here: never)
SELECT mm.block(9001, 9003) AS new_block;
SELECT blocked_id, until FROM mm.player_blocks(9001) ORDER BY blocked_id;
SELECT mm.unblock(9001, 9003) AS removed, mm.unblock(9001, 9003) AS again;
-- refused: oneself, an end that is past or infinite, NULL ids
SELECT mm.block(9001, 9001);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.block(9001, 9004, now() - interval '1 second');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.block(9001, 9004, 'infinity');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.block(NULL, 9004);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.unblock(9001, NULL);
\echo :LAST_ERROR_SQLSTATE
-- the table holds the same rules
INSERT INTO mm.player_block (player_id, blocked_id) VALUES (9005, 9005);
\echo :LAST_ERROR_SQLSTATE
INSERT INTO mm.player_block (player_id, blocked_id, created_at, until) VALUES (9005, 9006, now(), now() - interval '1 day');
\echo :LAST_ERROR_SQLSTATE

-- The cap: 100 blocks in force per player; the 101st is refused until one
-- ends (an expired one does not count: mm.block removes it first)
SELECT count(*) FILTER (WHERE b) AS blocked FROM (SELECT mm.block(9100, 9100 + k) AS b FROM generate_series(1, 100) k) x;
SELECT mm.block(9100, 9300);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.block(9100, 9150) AS new_block;   -- already there: not a new one
SELECT mm.unblock(9100, 9101) AS removed, mm.block(9100, 9300) AS new_block;
UPDATE mm.player_block SET created_at = now() - interval '2 days', until = now() - interval '1 day'
WHERE player_id = 9100 AND blocked_id = 9102;
SELECT mm.block(9100, 9301) AS new_block, (SELECT count(*) FROM mm.player_block WHERE player_id = 9100) AS rows;
DELETE FROM mm.player_block WHERE player_id = 9100;

-- A tick never puts a blocked pair in one match. A 1v1 queue of four
-- players rated 1500 in queue order 9011, 9012, 9013, 9014: GW2's
-- populateMatch gives the first target (9011) its first potential in
-- queue order, 9012; 9012 blocked 9011 (a block counts both ways), so
-- 9011 meets 9013 and 9012 meets 9014.
SELECT mm.create_queue('blk', '{"team_size": 1, "filter": {"potentials_min": 0}, "rating": {"model": "elo"}}');
SELECT mm.block(9012, 9011) AS new_block;
SELECT count(mm.enqueue('blk', ARRAY[p::bigint], 1500, joined_at => '2024-01-01 00:00:00+00'::timestamptz + (p - 9011) * interval '1 second'))
FROM generate_series(9011, 9014) p;
SELECT count(*) AS rosters_matched FROM mm.tick('blk', '2024-01-01 00:01:00+00');
SELECT string_agg(mr.players[1]::text, ' v ' ORDER BY mr.players[1]) AS pair
FROM mm.match_roster mr JOIN mm.queue q USING (queue_id) WHERE q.name = 'blk'
GROUP BY mr.match_id ORDER BY 1;
SELECT mm.drop_queue('blk', keep_history => false);

-- mm.explain names the blocks when they are why a roster waits: 9021
-- blocked 9022, the only other roster in the queue
SELECT mm.create_queue('blk2', '{"team_size": 1, "filter": {"potentials_min": 0}, "rating": {"model": "elo"}}');
SELECT mm.block(9021, 9022) AS new_block;
SELECT mm.enqueue('blk2', ARRAY[9021]::bigint[], 1500, joined_at => '2024-01-01 00:00:00+00') AS r1 \gset
SELECT mm.enqueue('blk2', ARRAY[9022]::bigint[], 1500, joined_at => '2024-01-01 00:00:00+00') AS r2 \gset
SELECT outcome, potentials, detail FROM mm.explain(:r1, '2024-01-01 00:01:00+00');
SELECT count(*) AS rosters_matched FROM mm.tick('blk2', '2024-01-01 00:01:00+00');
SELECT failed_reasons FROM mm.tick_log l JOIN mm.queue q USING (queue_id)
WHERE q.name = 'blk2' ORDER BY l.tick_id DESC LIMIT 1;
-- the block ends: they meet
SELECT mm.unblock(9021, 9022) AS removed;
SELECT count(*) AS rosters_matched FROM mm.tick('blk2', '2024-01-01 00:01:01+00');
SELECT mm.drop_queue('blk2', keep_history => false);

-- Random queues: 2v2, 80 solos and 20 duos with ratings drawn at random,
-- 120 random blocks among the first 40 solos; five ticks. Not one
-- match holds a blocked pair (looked up in mm.player_block itself), while
-- the same rosters matched without the blocks (mm.match_rosters, which
-- reads none from the tables) put blocked players together in some
-- matches: the check is not vacuous.
SELECT mm.create_queue('blk3', '{"team_size": 2, "filter": {"potentials_min": 0}, "rating": {"model": "elo"}}');
SELECT setseed(0.25);
SELECT count(mm.enqueue('blk3', CASE WHEN k <= 80 THEN ARRAY[10000 + k] ELSE ARRAY[10000 + k, 20000 + k] END::bigint[],
                        round(1400 + 200 * random()), joined_at => '2024-01-01 00:00:00+00'::timestamptz + k * interval '1 second'))
FROM generate_series(1, 100) k;
INSERT INTO mm.player_block (player_id, blocked_id)
SELECT DISTINCT a, b FROM (SELECT 10001 + floor(random() * 40)::int AS a, 10001 + floor(random() * 40)::int AS b
                           FROM generate_series(1, 140)) x WHERE a <> b
ORDER BY 1, 2 LIMIT 120;
SELECT count(*) AS blocks FROM mm.player_block WHERE player_id > 10000;
CREATE TEMP TABLE blk3_q AS SELECT place, roster_id, players, rating, joined_at FROM mm.list_queue('blk3');
CREATE TEMP TABLE blk3_free AS
SELECT x.match_no, x.roster_id, q.players
FROM mm.match_rosters('SELECT * FROM blk3_q ORDER BY place',
                      '{"team_size": 2, "filter": {"potentials_min": 0}, "rating": {"model": "elo"}}',
                      '2024-01-01 00:05:00+00') x JOIN blk3_q q USING (roster_id);
SELECT count(DISTINCT a.match_no) AS matches_without_blocks,
       count(DISTINCT a.match_no) FILTER (WHERE EXISTS (SELECT FROM mm.player_block k
                                                       WHERE k.player_id = ANY (a.players) AND k.blocked_id = ANY (b.players)))
           AS of_them_with_a_blocked_pair
FROM blk3_free a JOIN blk3_free b ON b.match_no = a.match_no AND b.roster_id <> a.roster_id;
DO $$
BEGIN
    FOR s IN 1 .. 5 LOOP
        PERFORM count(*) FROM mm.tick('blk3', '2024-01-01 00:05:00+00'::timestamptz + s * interval '1 second');
    END LOOP;
END
$$;
SELECT count(DISTINCT a.match_id) AS matches,
       count(DISTINCT a.match_id) FILTER (WHERE EXISTS (SELECT FROM mm.player_block k
                                                       WHERE k.player_id = ANY (a.players) AND k.blocked_id = ANY (b.players)))
           AS of_them_with_a_blocked_pair
FROM mm.match_roster a JOIN mm.match_roster b ON b.match_id = a.match_id AND b.roster_id <> a.roster_id
JOIN mm.queue q ON q.queue_id = a.queue_id WHERE q.name = 'blk3';
SELECT mm.drop_queue('blk3', keep_history => false);
DELETE FROM mm.player_block WHERE player_id > 10000;
DROP TABLE blk3_q, blk3_free;

-- A backfill never brings in a player blocked by, or blocking, a player of
-- the running match. A 2v2 of 9031 to 9034 (all 1500, GW2's teams); a seat
-- of 9034's team is asked for. Waiting, oldest first: 9035 (9032, in the
-- match, blocked 9035), 9036 (who blocked 9031), then 9037 and 9038. The
-- oldest would score best; the seat goes to 9037, the older two are kept
-- out (three players are left: no new match).
SELECT mm.create_queue('blk4', '{"team_size": 2, "split": "gw2", "filter": {"potentials_min": 0}, "rating": {"model": "elo"}}');
SELECT count(mm.enqueue('blk4', ARRAY[p::bigint], 1500, joined_at => '2024-01-01 00:00:00+00'::timestamptz + (p - 9031) * interval '1 second'))
FROM generate_series(9031, 9034) p;
SELECT count(*) AS rosters_matched FROM mm.tick('blk4', '2024-01-01 00:01:00+00');
SELECT match_id AS bm FROM mm.match m JOIN mm.queue q USING (queue_id) WHERE q.name = 'blk4' \gset
SELECT team AS bteam FROM mm.match_roster WHERE match_id = :bm AND players = '{9034}' \gset
SELECT mm.block(9032, 9035) AS b1, mm.block(9036, 9031) AS b2;
SELECT count(mm.enqueue('blk4', ARRAY[p::bigint], 1500, joined_at => '2024-01-01 00:00:00+00'::timestamptz + (p - 9035) * interval '1 second'))
FROM generate_series(9035, 9038) p;
SELECT mm.request_backfill(:bm, :'bteam', 1) AS breq \gset
SELECT count(*) AS new_match_rows FROM mm.tick('blk4', '2024-01-01 00:02:00+00');
SELECT mr.players FROM mm.match_roster mr WHERE mr.backfill_id = :breq;
SELECT string_agg(players::text, ' ' ORDER BY place) AS still_waiting FROM mm.list_queue('blk4');
SELECT mm.drop_queue('blk4', keep_history => false);
DELETE FROM mm.player_block WHERE player_id BETWEEN 9000 AND 9100;

-- mm.match_rosters takes the blocks as a column: roster ids a roster may
-- not meet (either roster's list is enough). Roster 1 would meet 2 (first
-- in queue order); listing 2 sends it to 3.
SELECT match_no, roster_id, team
FROM mm.match_rosters($$SELECT * FROM (VALUES (1::bigint, '{1}'::bigint[], 1500::float8, '{2}'::bigint[]),
                                               (2, '{2}', 1500, NULL), (3, '{3}', 1500, NULL))
                        AS r(roster_id, players, rating, blocks)$$,
                      '{"team_size": 1, "filter": {"potentials_min": 0}}')
ORDER BY roster_id;
SELECT * FROM mm.match_rosters($$SELECT 1::bigint AS roster_id, '{1}'::bigint[] AS players, 1500::float8 AS rating, '{1,2}'::int[] AS blocks$$);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.match_rosters($$SELECT 1::bigint AS roster_id, '{1}'::bigint[] AS players, 1500::float8 AS rating, '{NULL}'::bigint[] AS blocks$$);
\echo :LAST_ERROR_SQLSTATE

-- Who may call what: the service role blocks and unblocks; the analyst
-- role reads the table but calls neither.
SELECT count(*) > 0 AS roles FROM mm.grant_roles();
SET ROLE mm_service;
SELECT mm.block(9041, 9042) AS new_block, mm.unblock(9041, 9042) AS removed;
SELECT count(*) FROM mm.player_block;
\echo :LAST_ERROR_SQLSTATE
RESET ROLE;
SET ROLE mm_analyst;
SELECT mm.block(9041, 9042);
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) AS readable FROM mm.player_block WHERE player_id = 9041;
RESET ROLE;

SELECT count(*) > 0 AS sequences_restored
FROM (SELECT setval(seq, last_value, is_called) FROM saved_sequences_blocks) s;
DROP TABLE saved_sequences_blocks;
