-- The live ratings against the replayed ones (replay.sql): prints
-- "reports replayed rating_rows differing moved"; differing must be 0.
\set offset 1000000000
SELECT (SELECT count(*) FROM load.report_order) AS reports,
       (SELECT count(*) FROM mm.match_result WHERE match_id > :offset) AS replayed,
       (SELECT count(*) FROM mm.ratings WHERE key IN ('duo', 'squad')) AS rating_rows,
       (SELECT count(*)
        FROM (SELECT * FROM mm.ratings WHERE key IN ('duo', 'squad')) l
        FULL JOIN (SELECT * FROM mm.ratings WHERE key IN ('duo_replay', 'squad_replay')) r
          ON r.player_id = l.player_id AND r.key = l.key || '_replay'
        WHERE l.player_id IS NULL OR r.player_id IS NULL
           OR float8send(l.mu) <> float8send(r.mu) OR float8send(l.sigma) <> float8send(r.sigma)
           OR l.ladder_points IS DISTINCT FROM r.ladder_points OR l.games <> r.games) AS differing,
       (SELECT count(*) FROM mm.ratings l JOIN mm.ratings r ON r.player_id = l.player_id AND r.key = l.key || '_replay'
        WHERE l.key IN ('duo', 'squad') AND l.mu <> 25) AS moved
\gset
\echo :reports :replayed :rating_rows :differing :moved
