-- A simulated season: 400 players with a hidden skill are queued, matched 5v5 and rated
\set QUIET on
\set ECHO none
SELECT setseed(0.42) \g /dev/null
\set ECHO queries
-- Each player has a true skill (normal, mean 1500, sd 300) that only the
-- simulation knows. mm starts everyone at Glicko-2's default 1500/350/0.06
-- and OpenSkill's 25/8.33.
CREATE TEMP TABLE season_players AS
SELECT i AS player_id,
       1500 + 300 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()) AS skill,
       1500.0::float8 AS rating, 350.0::float8 AS rd, 0.06::float8 AS vol,
       25.0::float8 AS mu, (25.0 / 3)::float8 AS sigma, 0 AS games
FROM generate_series(1, 400) i;
-- The queue matches on the Glicko-2 scale, which the rosters' ratings are
-- on. The simulation plays and rates each match itself, so it ends each
-- match in mm without a result (mm.abandon_match): the players may queue
-- again.
SELECT mm.create_queue('season', '{"rating": {"model": "glicko2"}, "filter": {"rosters": 400, "potentials_min": 10}}') \g /dev/null
CREATE TEMP TABLE season_rounds (round int PRIMARY KEY, matches int, glicko2_corr numeric,
                                 openskill_corr numeric, rating_sd numeric, mean_rd numeric);
\set QUIET off

-- Twelve rounds. Each round: everyone not waiting joins the queue, one tick
-- matches them, every match is played out (the side with the higher true
-- skill wins with the Elo probability), and both rating systems are updated
-- from the result: Glicko-2 per game against the opposing team's average,
-- OpenSkill (Plackett-Luce) for the two teams at once.
DO $$
DECLARE
    at timestamptz := '2026-01-01 20:00+00';
    m record;
    made int;
BEGIN
    FOR round IN 1 .. 12 LOOP
        PERFORM mm.enqueue('season', ARRAY[p.player_id], p.rating, p.rd, joined_at => at - interval '60 seconds')
        FROM season_players p
        WHERE NOT EXISTS (SELECT 1 FROM mm.queued_player q WHERE q.player_id = p.player_id);

        CREATE TEMP TABLE round_tick ON COMMIT DROP AS SELECT * FROM mm.tick('season', at);
        CREATE TEMP TABLE round_rosters ON COMMIT DROP AS
        SELECT t.match_id, t.team, unnest(r.players) AS player_id
        FROM round_tick t
        JOIN mm.match_roster r USING (match_id, roster_id);

        -- play every match: red wins with probability 1 / (1 + 10^((blue - red) / 400))
        CREATE TEMP TABLE round_results ON COMMIT DROP AS
        SELECT match_id,
               CASE WHEN random() < 1 / (1 + 10 ^ ((avg(skill) FILTER (WHERE team = 'blue')
                                                    - avg(skill) FILTER (WHERE team = 'red')) / 400))
                    THEN 'red' ELSE 'blue' END AS winner
        FROM round_rosters JOIN season_players USING (player_id)
        GROUP BY match_id;

        -- Glicko-2: each player against the other team's average rating and deviation
        UPDATE season_players p
        SET rating = (g).rating, rd = (g).rd, vol = (g).vol, games = p.games + 1
        FROM (SELECT me.player_id,
                     mm.glicko2_rate((s.rating, s.rd, s.vol)::mm.glicko,
                                     ARRAY[avg(o.rating)], ARRAY[avg(o.rd)],
                                     ARRAY[CASE WHEN res.winner = me.team THEN 1.0 ELSE 0.0 END]) AS g
              FROM round_rosters me
              JOIN season_players s ON s.player_id = me.player_id
              JOIN round_results res ON res.match_id = me.match_id
              JOIN round_rosters opp ON opp.match_id = me.match_id AND opp.team <> me.team
              JOIN season_players o ON o.player_id = opp.player_id
              GROUP BY me.player_id, me.team, s.rating, s.rd, s.vol, res.winner) u
        WHERE p.player_id = u.player_id;

        -- OpenSkill: one call per match rates all ten players
        FOR m IN SELECT match_id, winner FROM round_results LOOP
            UPDATE season_players p
            SET mu = r.mu, sigma = r.sigma
            FROM (SELECT x.player_id, o.mu, o.sigma
                  FROM (SELECT array_agg(rr.player_id ORDER BY rr.player_id) AS ids,
                               array_agg(CASE rr.team WHEN 'red' THEN 1 ELSE 2 END ORDER BY rr.player_id) AS team,
                               array_agg(CASE WHEN rr.team = m.winner THEN 1.0 ELSE 2.0 END ORDER BY rr.player_id) AS rank,
                               array_agg(sp.mu ORDER BY rr.player_id) AS mu,
                               array_agg(sp.sigma ORDER BY rr.player_id) AS sigma
                        FROM round_rosters rr JOIN season_players sp USING (player_id)
                        WHERE rr.match_id = m.match_id) a,
                       mm.openskill_rate(a.team, a.rank, a.mu, a.sigma) o,
                       LATERAL (SELECT a.ids[o.idx] AS player_id) x) r
            WHERE p.player_id = r.player_id;
        END LOOP;

        PERFORM mm.abandon_match(match_id) FROM round_results;
        SELECT count(*) INTO made FROM round_results;
        INSERT INTO season_rounds
        SELECT round, made,
               (SELECT round(corr(rating, skill)::numeric, 3) FROM season_players),
               (SELECT round(corr(mm.ordinal(mu, sigma), skill)::numeric, 3) FROM season_players),
               (SELECT round(stddev(rating)::numeric) FROM season_players),
               (SELECT round(avg(rd)::numeric) FROM season_players);
        DROP TABLE round_tick, round_rosters, round_results;
        at := at + interval '5 minutes';
    END LOOP;
END
$$;

-- Per round: matches played, how well each rating system's ratings follow the
-- hidden skill (correlation), the spread of Glicko-2 ratings and the mean RD.
SELECT * FROM season_rounds ORDER BY round;

-- Per tick: matches made and the mean rating spread inside a match (max - min
-- effective rating). It stays within tens of points while the population's
-- ratings spread out over hundreds (rating_sd above).
SELECT row_number() OVER (ORDER BY at) AS round, matches_made, rosters_seen,
       round(mean_rating_spread::numeric) AS mean_rating_spread, round(duration_ms::numeric, 1) AS tick_ms
FROM mm.tick_log
WHERE queue_id = (SELECT queue_id FROM mm.queue WHERE name = 'season')
ORDER BY at;

-- The top ten by Glicko-2 rating beside their hidden skill and OpenSkill ordinal.
SELECT player_id, round(skill) AS true_skill, round(rating) AS glicko2_rating, round(rd) AS rd,
       round(mm.ordinal(mu, sigma)::numeric, 1) AS openskill_ordinal, games
FROM season_players ORDER BY rating DESC LIMIT 10;
