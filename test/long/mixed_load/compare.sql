-- The live ratings against the replayed ones (replay.sql): prints
-- "reports replayed rating_rows differing moved"; differing must be 0.
\set offset 1000000000
SELECT (SELECT count(*) FROM load.report_order) AS reports,
       (SELECT count(*) FROM mm.match_result WHERE match_id > :offset) AS replayed,
       (SELECT count(*) FROM mm.ratings WHERE key IN ('duo', 'squad')) AS rating_rows,
       (SELECT count(*)
        FROM (SELECT * FROM mm.ratings WHERE key IN ('duo', 'squad')) l
        FULL JOIN (SELECT * FROM mm.ratings WHERE key IN ('duo_replay', 'squad_replay')) r
          ON r.player_id = l.player_id AND r.key = l.key || '_replay' AND r.model = l.model
        WHERE l.player_id IS NULL OR r.player_id IS NULL
           OR float8send(l.state[1]) <> float8send(r.state[1]) OR float8send(l.state[2]) <> float8send(r.state[2])
           OR cardinality(l.state) <> cardinality(r.state)
           OR l.ladder_points IS DISTINCT FROM r.ladder_points OR l.games <> r.games) AS differing,
       (SELECT count(*) FROM mm.ratings l JOIN mm.ratings r ON r.player_id = l.player_id AND r.key = l.key || '_replay'
                                                 AND r.model = l.model
        WHERE l.key IN ('duo', 'squad') AND l.state[1] <> 25) AS moved
\gset
\echo :reports :replayed :rating_rows :differing :moved
