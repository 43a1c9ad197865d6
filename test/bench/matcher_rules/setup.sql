-- The queues of test/bench/matcher_rules/queues.sql, each trying 50 targets
-- a tick (the default filter.rosters).
\set targets 50
\i test/bench/matcher_rules/queues.sql
