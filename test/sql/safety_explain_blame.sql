-- mm.explain names the rule that keeps a roster from matching, with the
-- time it relaxes. A roster that only a latency rule kept from matching
-- (the rosters it needed had no region within the rule's limit until the
-- rule relaxed) was explained as "their party sizes do not fit": the rule
-- had kept them out of its potentials, and no rule refused a pick among
-- the potentials left. The tick log counts it under the rule too.
\set VERBOSITY terse
SET timezone = 'UTC';
-- the tests after this one count on mm's sequences: put them back at the end
\i test/support/sequences_save.sql

-- 2v2 within 50 ms, 150 ms after a minute. 9951 (eu 30) is tried first;
-- the pair 9952-9953 (eu 30) is too large for its team; the solos 9954
-- (eu 120, us 30) and 9955 (eu 120) are not within 50 ms of it in any
-- region, but within 150 ms: the rule alone keeps the match from being made
SELECT mm.create_queue('blame_q', '{"team_size": 2, "filter": {"potentials_min": 1},
    "rules": [{"type": "latency", "name": "ping", "max": 50, "expand": [{"after": 60, "max": 150}]}]}');
SELECT mm.enqueue('blame_q', ARRAY[9951], 1500, 50, joined_at => '2024-01-01 12:00:00+00', latencies => '{"eu": 30}') AS r \gset
SELECT mm.enqueue('blame_q', ARRAY[9952, 9953], 1500, 50, joined_at => '2024-01-01 12:00:01+00', latencies => '{"eu": 30}') > 0 AS pair;
SELECT count(mm.enqueue('blame_q', ARRAY[p], 1500, 50, joined_at => '2024-01-01 12:00:02+00', latencies => l::jsonb))
FROM (VALUES (9954::bigint, '{"eu": 120, "us": 30}'), (9955, '{"eu": 120}')) v(p, l);
SELECT outcome, detail FROM mm.explain(:r, '2024-01-01 12:00:30+00');
-- the tick log names the rule too
SELECT count(*) AS matched FROM mm.preview('blame_q', '2024-01-01 12:00:30+00');
SELECT count(*) AS matched FROM mm.tick('blame_q', '2024-01-01 12:00:30+00');
SELECT failed_reasons FROM mm.tick_log l JOIN mm.queue q USING (queue_id)
WHERE q.name = 'blame_q' ORDER BY tick_id DESC LIMIT 1;
-- when the rule relaxes, the match is made
SELECT count(DISTINCT match_id) AS matches FROM mm.tick('blame_q', '2024-01-01 12:01:30+00');
-- party sizes alone (no rule kept anyone out) are still said so
SELECT mm.create_queue('blame_sizes', '{"team_size": 2, "filter": {"potentials_min": 1}}');
SELECT mm.enqueue('blame_sizes', ARRAY[9961], 1500, 50) AS s \gset
SELECT count(mm.enqueue('blame_sizes', ARRAY[p, p + 1], 1500, 50)) FROM unnest(ARRAY[9962, 9964]::bigint[]) p;
SELECT outcome, detail FROM mm.explain(:s);

SELECT mm.drop_queue(x, keep_history => false) FROM unnest(ARRAY['blame_q', 'blame_sizes']) x;
\i test/support/sequences_restore.sql
