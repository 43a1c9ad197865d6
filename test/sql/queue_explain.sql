-- Small queues never starve, and mm.explain says why a roster has not
-- matched yet.
\set VERBOSITY terse
SET timezone = 'UTC';

-- The default config (5v5, potentials_min 20, padding from 30 s to 240 s)
-- and 10 solo players rated 1501..1510 queued at 12:00.
-- (ratings near 1500: the Glicko scale, rating model glicko2, the GW2
-- wiki's range of one deviation)
SELECT mm.create_queue('small', '{"filter": {"deviations": 1}, "rating": {"model": "glicko2"}}');
SELECT count(mm.enqueue('small', ARRAY[p], 1500 + p, 0, joined_at => '2024-01-01 12:00:00+00'))
FROM generate_series(1, 10) p;
SELECT roster_id AS first FROM mm.list_queue('small') WHERE place = 1 \gset

-- At 12:02 the first roster has 9 potentials, fewer than 20: no match yet,
-- and explain says so and until when the rule holds.
SELECT queue, place, waited_s, rating_low, range_low, range_high, widening_from, widening_until,
       potentials, potentials_min, potentials_min_applies, outcome, detail
FROM mm.explain(:first, '2024-01-01 12:02:00+00');
SELECT count(*) FROM mm.tick('small', '2024-01-01 12:02:00+00');
SELECT matches_made, targets_failed, failed_reasons FROM mm.tick_log ORDER BY tick_id DESC LIMIT 1;

-- At 12:05 they have waited past padding_end: potentials_min no longer
-- holds, and the ten make one match.
SELECT potentials, potentials_min_applies, outcome, widening_from IS NULL AS done_widening
FROM mm.explain(:first, '2024-01-01 12:05:00+00');
SELECT count(DISTINCT match_id) AS matches, count(*) AS rosters FROM mm.tick('small', '2024-01-01 12:05:00+00');

-- Other outcomes: nobody in range, teams that cannot be filled, a roster
-- larger than the team (its config changed by hand: mm.alter_queue would
-- have removed the roster).
SELECT mm.create_queue('odd', '{"team_size": 2, "filter": {"deviations": 1, "potentials_min": 1}, "rating": {"model": "glicko2"}}');
SELECT mm.enqueue('odd', ARRAY[21], 1500, 10, joined_at => '2024-01-01 12:00:00+00') AS a \gset
SELECT mm.enqueue('odd', ARRAY[22], 1505, 10, joined_at => '2024-01-01 12:00:00+00') AS b \gset
SELECT mm.enqueue('odd', ARRAY[23, 24], 1502, 10, joined_at => '2024-01-01 12:00:00+00') AS c \gset
SELECT mm.enqueue('odd', ARRAY[25], 9000, 10, joined_at => '2024-01-01 12:00:00+00') AS d \gset
SELECT place, potentials, outcome, detail FROM mm.explain(:d, '2024-01-01 12:00:10+00');
-- a solo target: 22 (solo) and the duo 23+24 cannot make 2 + 2 with it
SELECT place, potentials, outcome, detail FROM mm.explain(:a, '2024-01-01 12:00:10+00');
-- the duo: red = duo, blue = 21 + 22
SELECT place, potentials, outcome FROM mm.explain(:c, '2024-01-01 12:00:10+00');
UPDATE mm.queue SET config = '{"team_size": 1, "filter": {"potentials_min": 1}}' WHERE name = 'odd';
SELECT outcome, detail FROM mm.explain(:c, '2024-01-01 12:00:10+00');

-- errors
SELECT * FROM mm.explain(-1);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.explain(:a, 'infinity');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.explain(NULL);
\echo :LAST_ERROR_SQLSTATE

SELECT mm.drop_queue('small', keep_history => false);
SELECT mm.drop_queue('odd', keep_history => false);
