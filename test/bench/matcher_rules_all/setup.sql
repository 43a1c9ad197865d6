-- The queues of test/bench/matcher_rules/queues.sql, each ticked with every
-- one of its 100k rosters a target.
\set targets 100000
\i test/bench/matcher_rules/queues.sql
