-- Dishonor saturates: a player's stacks at 2147483647 (they did), and a
-- roster's dishonor, the sum of its players' stacks, at 2147483647 too.
-- With timeout_exponent 0 and a reason worth 2147483647, two players given
-- it twice (their timeouts over) failed to queue as a party with 22003
-- "integer out of range".
\set VERBOSITY terse
SET timezone = 'UTC';
-- the tests after this one count on mm's sequences: put them back at the end
\i test/support/sequences_save.sql

CREATE TEMP TABLE dishonor_saved AS SELECT mm.dishonor_config() AS config;
SELECT mm.set_dishonor_config('{"timeout_exponent": 0, "penalties": {"huge": 2147483647, "one": 1}}') IS NOT NULL AS set;
-- twice each, a day ago: the stacks saturate (no overflow), the timeouts are over
SELECT p, (mm.dishonor(p, 'huge', now() - interval '1 day')).stacks AS first,
          (mm.dishonor(p, 'huge', now() - interval '1 day')).stacks AS second
FROM unnest(ARRAY[9921, 9922]::bigint[]) p;
-- the boundary: one stack below the largest int, then one more, then more
SELECT (mm.dishonor(9923, 'one', now() - interval '1 day')).stacks;
UPDATE mm.dishonor_players SET stacks = 2147483646, stacks_at = now() WHERE player_id = 9923;
SELECT (mm.dishonor(9923, 'one', now())).stacks AS at_the_limit;
SELECT (mm.dishonor(9923, 'one', now())).stacks AS saturated;
SELECT player_id, stacks, timeout_until IS NULL AS no_timeout
FROM mm.dishonor_statuses(ARRAY[9921, 9922]::bigint[]);
-- the party queues; its dishonor saturates at the largest int
SELECT mm.create_queue('dishonor_q', '{"team_size": 2, "rating": {"desertion_reason": null}}');
SELECT mm.enqueue('dishonor_q', ARRAY[9921, 9922], 1500) > 0 AS queued;
SELECT dishonor FROM mm.roster r JOIN mm.queue q USING (queue_id) WHERE q.name = 'dishonor_q';
-- a dishonor given outright is an int: at most the largest int
SELECT mm.enqueue('dishonor_q', ARRAY[9924], 1500, dishonor => 2147483647) > 0 AS queued;

SELECT mm.drop_queue('dishonor_q', keep_history => false);
DELETE FROM mm.dishonor_players WHERE player_id BETWEEN 9921 AND 9924;
SELECT mm.set_dishonor_config(config) IS NOT NULL AS restored FROM dishonor_saved;
\i test/support/sequences_restore.sql
