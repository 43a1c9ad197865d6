-- The pool of the async benchmark: 1M offline opponents, 30 MMR buckets
-- over [0, 3000), labels eu and us, offered entries removed.
\ir ../async/setup.sql
