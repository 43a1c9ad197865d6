-- Roster matcher (GW2 PvP): parties queue, a tick makes 5v5 matches
\set QUIET on
SELECT mm.create_queue('demo_ranked', '{"filter": {"potentials_min": 4}}');
-- Twelve parties (solo to five-stack) queued 40 s to 2 min ago.
SELECT count(mm.enqueue('demo_ranked', players, rating, deviation, rank => rank,
                        professions => professions, joined_at => now() - waited * interval '1 second'))
FROM (VALUES
    (ARRAY[101, 102, 103, 104, 105]::bigint[], 1620.0, 60.0, 20, '{guardian,warrior,thief,ranger,mesmer}'::text[], 120),
    (ARRAY[201, 202, 203, 204, 205], 1580, 70, 18, '{necromancer,elementalist,engineer,revenant,guardian}', 110),
    (ARRAY[301, 302], 1500, 50, 15, '{thief,thief}', 100),
    (ARRAY[401], 1550, 40, 16, '{mesmer}', 95),
    (ARRAY[501, 502, 503], 1470, 80, 12, '{warrior,ranger,engineer}', 90),
    (ARRAY[601], 1530, 90, 14, '{guardian}', 80),
    (ARRAY[701, 702], 1490, 60, 13, '{elementalist,necromancer}', 70),
    (ARRAY[801], 1510, 45, 15, '{revenant}', 60),
    (ARRAY[901], 1900, 30, 30, '{mesmer}', 50),
    (ARRAY[1001, 1002, 1003, 1004], 1450, 100, 10, '{warrior,warrior,thief,ranger}', 45),
    (ARRAY[1101], 1520, 70, 14, '{engineer}', 42),
    (ARRAY[1201], 1480, 55, 12, '{guardian}', 40)
) AS p(players, rating, deviation, rank, professions, waited);
\set QUIET off

-- The queue, oldest first.
SELECT place, players, rating, deviation, professions, waited FROM mm.list_queue('demo_ranked');

-- One tick: the matcher picks teams (scoring rating, rank, party size,
-- professions, wait) and writes the matches in one transaction.
CREATE TEMP TABLE demo_tick AS SELECT * FROM mm.tick('demo_ranked');
SELECT dense_rank() OVER (ORDER BY t.match_id) AS match, t.team, mr.players, mr.rating, mr.professions,
       round(CASE t.team WHEN 'red' THEN m.red_odds ELSE m.blue_odds END::numeric, 3) AS odds_of_victory
FROM demo_tick t
JOIN mm.match_roster mr USING (match_id, roster_id)
JOIN mm.match m USING (match_id)
ORDER BY t.match_id, t.team DESC, mr.rating DESC;

-- Who is still waiting: the 1900 outlier until padding widens its range,
-- the others until enough players to fill two teams arrive.
SELECT place, players, rating FROM mm.list_queue('demo_ranked');
SELECT queue, waiting_rosters, waiting_players, matches_last_hour, round(mean_rating_spread::numeric) AS mean_spread
FROM mm.queue_stats WHERE queue = 'demo_ranked';
