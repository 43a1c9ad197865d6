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
