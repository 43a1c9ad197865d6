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
-- privileges after the upgrade: PUBLIC keeps only pure functions, the
-- roles of mm.grant_roles work on the data carried over
DO $$
BEGIN
    IF has_function_privilege('public', 'mm.enqueue(text, bigint[], float8, float8, float8, float8, int, text[], timestamptz)', 'EXECUTE')
       OR NOT has_function_privilege('public', 'mm.ordinal(float8, float8, float8)', 'EXECUTE') THEN
        RAISE EXCEPTION 'PUBLIC privileges not applied by the upgrade';
    END IF;
    IF NOT (SELECT prosecdef FROM pg_proc WHERE oid = 'mm.tick(text, timestamptz)'::regprocedure) THEN
        RAISE EXCEPTION 'mm.tick is not SECURITY DEFINER after the upgrade';
    END IF;
END
$$;
SELECT count(*) FROM mm.grant_roles('mm_up_service', 'mm_up_admin', 'mm_up_analyst');
SET ROLE mm_up_service;
SELECT mm.enqueue('duel', ARRAY[51::bigint], 1410, 10, joined_at => '2026-01-01 12:02+00') > 0 AS queued \gset
SELECT count(*) = 2 AS duel_matched FROM mm.tick('duel', '2026-01-01 12:10+00') \gset
SELECT count(*) = 1 AS service_found FROM mm.find_opponent('arena', 1200, '{eu}') WHERE result = 'success' \gset
RESET ROLE;
\if :duel_matched
\else
    \echo 'a service role could not tick the carried-over duel queue'
    SELECT 1/0;
\endif
\if :service_found
\else
    SELECT 1/0;
\endif
DROP OWNED BY mm_up_service, mm_up_admin, mm_up_analyst;
DROP ROLE mm_up_service, mm_up_admin, mm_up_analyst;
