-- The queues of the matcher_rules benchmark (its setup.sql), ticked with
-- every roster a target.
\i test/bench/matcher_rules/setup.sql
