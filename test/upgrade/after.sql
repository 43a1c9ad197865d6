-- Checks run in the database upgraded from 0.1.0 (after fill-0.1.0.sql):
-- the data is still there and the functions still work on it. Each check
-- raises an error when it fails.
\set ON_ERROR_STOP 1
DO $$
BEGIN
    IF (SELECT count(*) FROM mm.queue) <> 2 THEN
        RAISE EXCEPTION 'queues lost: %', (SELECT count(*) FROM mm.queue);
    END IF;
    IF (SELECT count(*) FROM mm.match) <> 3 THEN
        RAISE EXCEPTION 'matches lost: %', (SELECT count(*) FROM mm.match);
    END IF;
    IF (SELECT count(*) FROM mm.async_entries) <> 30 THEN
        RAISE EXCEPTION 'pool entries lost: %', (SELECT count(*) FROM mm.async_entries);
    END IF;
    IF (SELECT stacks FROM mm.dishonor_status(42, '2026-01-01 12:00+00')) <> 10 THEN
        RAISE EXCEPTION 'dishonor lost';
    END IF;
END
$$;
-- the waiting rosters still match: 3 parties of 2 make one 2v2 match in ranked
SELECT count(DISTINCT match_id) = 1 AS ranked_matched FROM mm.tick('ranked', '2026-01-01 12:10+00') \gset
\if :ranked_matched
\else
    \echo 'waiting rosters of ranked did not match after the upgrade'
    SELECT 1/0;
\endif
SELECT count(*) = 1 AS found FROM mm.find_opponent('arena', 1100, '{eu}') WHERE result = 'success' \gset
\if :found
\else
    SELECT 1/0;
\endif
-- queue engine: players are rows, the bad 0.1.0 roster is gone and
-- recorded, the orphaned player is free, waiting players cannot queue
-- twice, history and tick log carried over
DO $$
DECLARE
    ok boolean;
BEGIN
    IF (SELECT count(*) FROM mm.queued_player WHERE player_id = 50) <> 1 THEN
        RAISE EXCEPTION 'waiting duel player 50 lost';
    END IF;
    IF EXISTS (SELECT FROM mm.queued_player WHERE player_id IN (900, 901)) THEN
        RAISE EXCEPTION 'bad roster or orphaned player carried over';
    END IF;
    IF (SELECT status FROM mm.ticket_event WHERE player_id = 900) IS DISTINCT FROM 'removed' THEN
        RAISE EXCEPTION 'removed roster not recorded';
    END IF;
    -- 3 duels of 0.1.0 (6 players) and the 2v2 ranked tick above (4)
    IF (SELECT count(*) FROM mm.ticket_event WHERE status = 'matched') <> 10 THEN
        RAISE EXCEPTION 'matched history: %', (SELECT count(*) FROM mm.ticket_event WHERE status = 'matched');
    END IF;
    IF (SELECT count(*) FROM mm.match_roster WHERE queue_id IS NULL) > 0
       OR (SELECT count(*) FROM mm.match WHERE status <> 'matched') > 0
       -- 0.1.0's matches count as delivered; the ranked match above is new
       OR (SELECT count(*) FROM mm.match WHERE delivered_at IS NULL) <> 1 THEN
        RAISE EXCEPTION 'matches not migrated';
    END IF;
    IF (SELECT count(*) FROM mm.tick_log) < 1 THEN
        RAISE EXCEPTION 'tick log lost';
    END IF;
    BEGIN
        PERFORM mm.enqueue('duel', ARRAY[50::bigint], 1500);
        ok := false;
    EXCEPTION WHEN unique_violation THEN
        ok := true;
    END;
    IF NOT ok THEN
        RAISE EXCEPTION 'a waiting player queued twice after the upgrade';
    END IF;
    PERFORM mm.enqueue('duel', ARRAY[901::bigint], 1400);
    IF NOT mm.leave((SELECT roster_id FROM mm.queued_player WHERE player_id = 901)) THEN
        RAISE EXCEPTION 'leave failed after the upgrade';
    END IF;
END
$$;
-- the migrated duel roster still ticks: player 50 and a newcomer
SELECT mm.enqueue('duel', ARRAY[51::bigint], 1400) > 0 AS queued \gset
SELECT count(*) = 2 AS duel_matched FROM mm.tick('duel') \gset
\if :duel_matched
\else
    \echo 'migrated duel roster did not match after the upgrade'
    SELECT 1/0;
\endif
