-- The calls a new game makes first keep their cost whatever the statistics
-- say. In a new database no table has statistics, and a plan made then is
-- kept by the session: enqueue's check that a player is not already
-- waiting read every waiting roster of the queue (a partial index on
-- "match_id IS NULL" looks cheap when IS NULL is assumed rare), and a
-- report's ratings updates read every rating of the key. Here one session
-- of a new database queues 1000 rosters, ticks, reports, and then counts
-- the rows its next calls read from mm.roster and mm.ratings (this
-- transaction's counters): a few per call, not a queue's or a table's worth.
\set VERBOSITY terse
\set regress_db :DBNAME
CREATE DATABASE mm_cold_plan;
\c mm_cold_plan
SET client_min_messages = warning;
CREATE EXTENSION mm;
SELECT mm.create_queue('cold', '{"team_size": 1}');

-- rows this transaction's index and bitmap scans read from a table (an
-- index scan counts on its index)
CREATE FUNCTION pg_temp.fetched(t regclass) RETURNS bigint
LANGUAGE sql AS $$
    SELECT pg_stat_get_xact_tuples_fetched(t)
           + (SELECT coalesce(sum(pg_stat_get_xact_tuples_fetched(i.indexrelid)), 0) FROM pg_index i WHERE i.indrelid = t)
$$;

BEGIN;
SELECT count(mm.enqueue('cold', ARRAY[g], 1000 + g, 50, joined_at => now() - interval '5 minutes')) AS queued FROM generate_series(1, 1000) g;
SELECT pg_temp.fetched('mm.roster') AS before \gset
SELECT count(mm.enqueue('cold', ARRAY[g], 1000 + g, 50, joined_at => now() - interval '5 minutes')) AS queued FROM generate_series(1001, 1100) g;
SELECT (pg_temp.fetched('mm.roster') - :before) / 100.0 < 5 AS few_rosters_read_per_enqueue;
COMMIT;

-- matches of two players, then their reports: the first 50 rate new
-- players, the next 50 as many
SELECT count(DISTINCT match_id) AS matched FROM mm.tick('cold');
SELECT count(DISTINCT match_id) AS matched FROM mm.tick('cold');
SELECT count(DISTINCT match_id) AS matched FROM mm.tick('cold');
SELECT count(DISTINCT match_id) AS matched FROM mm.tick('cold');

BEGIN;
SELECT count(*) AS players_rated FROM (
    SELECT mm.report_result(m.match_id, '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}')
    FROM (SELECT m.match_id FROM mm.match m ORDER BY m.match_id LIMIT 50) m) r;
SELECT pg_temp.fetched('mm.ratings') AS before \gset
SELECT count(*) AS players_rated FROM (
    SELECT mm.report_result(m.match_id, '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}')
    FROM (SELECT m.match_id FROM mm.match m ORDER BY m.match_id OFFSET 50 LIMIT 50) m) r;
SELECT (pg_temp.fetched('mm.ratings') - :before) / 50.0 <= 8 AS few_ratings_read_per_report;
COMMIT;

-- On a single node mm.enqueue and mm.leave plan their statements once per
-- connection (generic plans, no sequential scan), settings their function
-- definitions restore on return: the caller's own settings are back after
-- each call. The players of the reported matches queue again, each check
-- of their history (their last events, the match of each) read by key.
BEGIN;
SET LOCAL plan_cache_mode = force_custom_plan;
SET LOCAL enable_seqscan = on;
SELECT pg_temp.fetched('mm.ticket_event') + pg_temp.fetched('mm.ended_roster') + pg_temp.fetched('mm.match') AS before \gset
SELECT count(mm.enqueue('cold', ARRAY[p.player_id], 1000, 50)) AS queued_again
FROM (SELECT DISTINCT unnest(x.players) AS player_id FROM mm.ended_roster x) p;
SELECT (pg_temp.fetched('mm.ticket_event') + pg_temp.fetched('mm.ended_roster') + pg_temp.fetched('mm.match') - :before)
       / (SELECT count(DISTINCT p) FROM mm.ended_roster x, unnest(x.players) p)::float8 < 10 AS few_history_rows_read_per_enqueue;
SELECT current_setting('plan_cache_mode') AS plan_cache_mode, current_setting('enable_seqscan') AS enable_seqscan;
SELECT mm.leave(max(r.roster_id)) AS left FROM mm.roster r WHERE r.match_id IS NULL;
SELECT current_setting('plan_cache_mode') AS plan_cache_mode, current_setting('enable_seqscan') AS enable_seqscan;
ROLLBACK;

\c :regress_db
DROP DATABASE mm_cold_plan;
