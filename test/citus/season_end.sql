-- The end of the scripted season (test/citus/season.sql), run by
-- test/citus/differential.sh after the tables were compared once: a queue
-- dropped with its history, then a purge of what is six hours old (the
-- matches of t0 and their history, then the dropped queue once nothing of
-- it is left).
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SELECT t0 FROM df_clock \gset
SELECT mm.enqueue('df_old', ARRAY[300300 + p]::bigint[], 1500, 20,
                  joined_at => :'t0'::timestamptz - make_interval(secs => 10 + p))
FROM generate_series(1, 3) p;
SELECT count(*) FROM mm.tick('df_old', :'t0'::timestamptz + interval '5 seconds');
SELECT mm.drop_queue('df_old');
SELECT mm.purge('6 hours', 1000000) > 0 AS purged;
SELECT mm.purge('6 hours', 1000000) AS purged_again;
