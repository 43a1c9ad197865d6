-- mm.run_ticks frees what it allocated however the call ends: twenty
-- calls cancelled by a statement timeout left twenty "mm.run_ticks"
-- memory contexts behind (about 18 kB each); none now. (The spacing of
-- ticks across runs, and a run whose client is gone: the run_ticks_safety
-- suite.)
\set VERBOSITY terse
-- the tests after this one count on mm's sequences: put them back at the end
\i test/support/sequences_save.sql
SELECT mm.create_queue('rt_q', '{"team_size": 1}');
SELECT count(*) AS before FROM pg_backend_memory_contexts WHERE name = 'mm.run_ticks';
SET statement_timeout = '150ms';
CALL mm.run_ticks('rt_q', '100 milliseconds', '10 seconds');
CALL mm.run_ticks('rt_q', '100 milliseconds', '10 seconds');
CALL mm.run_ticks('rt_q', '100 milliseconds', '10 seconds');
CALL mm.run_ticks('rt_q', '100 milliseconds', '10 seconds');
CALL mm.run_ticks('rt_q', '100 milliseconds', '10 seconds');
CALL mm.run_ticks('rt_q', '100 milliseconds', '10 seconds');
CALL mm.run_ticks('rt_q', '100 milliseconds', '10 seconds');
CALL mm.run_ticks('rt_q', '100 milliseconds', '10 seconds');
CALL mm.run_ticks('rt_q', '100 milliseconds', '10 seconds');
CALL mm.run_ticks('rt_q', '100 milliseconds', '10 seconds');
CALL mm.run_ticks('rt_q', '100 milliseconds', '10 seconds');
CALL mm.run_ticks('rt_q', '100 milliseconds', '10 seconds');
CALL mm.run_ticks('rt_q', '100 milliseconds', '10 seconds');
CALL mm.run_ticks('rt_q', '100 milliseconds', '10 seconds');
CALL mm.run_ticks('rt_q', '100 milliseconds', '10 seconds');
CALL mm.run_ticks('rt_q', '100 milliseconds', '10 seconds');
CALL mm.run_ticks('rt_q', '100 milliseconds', '10 seconds');
CALL mm.run_ticks('rt_q', '100 milliseconds', '10 seconds');
CALL mm.run_ticks('rt_q', '100 milliseconds', '10 seconds');
CALL mm.run_ticks('rt_q', '100 milliseconds', '10 seconds');
RESET statement_timeout;
SELECT count(*) AS left_behind FROM pg_backend_memory_contexts WHERE name = 'mm.run_ticks';
-- an error inside the run (a name that names no queue) too
CALL mm.run_ticks('no such queue', '1 second', '1 second');
SELECT count(*) AS left_behind FROM pg_backend_memory_contexts WHERE name = 'mm.run_ticks';
-- and a run that ends as it should
CALL mm.run_ticks('rt_q', '100 milliseconds', '250 milliseconds');
SELECT count(*) AS left_behind FROM pg_backend_memory_contexts WHERE name = 'mm.run_ticks';
SELECT mm.drop_queue('rt_q', keep_history => false);
\i test/support/sequences_restore.sql
