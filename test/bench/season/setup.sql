-- A season in simulated time, with the queue defaults only, once per
-- rating model: 400 players with a hidden skill, in parties (solos, duos,
-- trios) that queue together in a 3v3 queue, tick every simulated second,
-- play a round, are rated from its result and queue again.
--
--   - hidden skill: standard normal per player; a team's performance in a
--     round is the sum of its players' skills plus logistic noise of scale 2
--     (standard deviation 2 pi / sqrt(3), about 3.6 skill units), and the
--     better performance wins: red beats blue with probability
--     1 / (1 + exp(-0.5 * (sum red - sum blue))) (a Bradley-Terry truth on
--     team sums, which neither model is told);
--   - parties: 160 solos, 60 duos and 40 trios (400 players, 260 parties),
--     the same all season;
--   - a round lasts 10 to 40 s (uniform), then the party takes a break of
--     0 to 10 s and queues again; with potentials_min 12 (the default at
--     3v3, 4 team_size) a target needs 12 rosters in range, which a
--     population this size (about 40 rosters waiting) sustains only with
--     rounds this short (see docs/benchmarks.md);
--   - the queue config is {"team_size": 3, "rating": {"model": M, "key": K}}
--     and nothing else: every filter, scoring and prediction key default;
--   - every random draw comes from setseed, in an order no plan decides,
--     so a run is deterministic.
-- Simulated times lie in the past (an enqueue's joined_at may not be in the
-- future); each simulated second is one transaction, and a result is rated
-- at the real now() of its transaction, milliseconds apart, so Glicko-2's
-- idle growth plays no part.
-- The favourite's odds are mm.match.red_odds as the tick stored them when
-- it made the match, before the result is drawn.
-- The figures are read by teardown.sh from season_match and season_skill.
\set ON_ERROR_STOP on
SET client_min_messages = warning;

CREATE TABLE season_skill (model text, player_id bigint, party int, skill float8,
                           PRIMARY KEY (model, player_id));
CREATE TABLE season_match (model text, match_id bigint, made_s int, red_odds float8,
                           red_won boolean, PRIMARY KEY (model, match_id));
CREATE TABLE season_wait (model text, roster_id bigint, waited float8);
CREATE TABLE season_rating (model text, player_id bigint, rating float8);
-- why a long waiter waits: mm.explain of every roster still waiting 25 s
-- after it queued (before padding starts at 30 s; a matched roster stays in
-- mm.roster with its match_id until its match ends)
CREATE TABLE season_explain (model text, roster_id bigint, made_s int, players int,
                             rating float8, deviation float8, potentials int,
                             potentials_min int, outcome text);
-- the reasons the season's ticks gave for their failed targets
CREATE TABLE season_reasons (model text, reason text, targets bigint);

-- seed: setseed's (the bench: 0.42); options: the queue's rating.options
-- (the bench: none, the family's defaults; seeds.sh may give some)
CREATE PROCEDURE season_run(model text, seconds int, target int, seed float8 DEFAULT 0.42,
                            options jsonb DEFAULT NULL)
LANGUAGE plpgsql AS $$
DECLARE
    q text := 'season_' || model;
    t0 timestamptz := date_trunc('second', now()) - interval '1 day';
    s int;
    mt record;
    pr record;
    made int := 0;
BEGIN
    PERFORM setseed(seed);
    PERFORM mm.create_queue(q, jsonb_build_object('team_size', 3,
        'rating', jsonb_build_object('model', model, 'key', q)
                  || CASE WHEN options IS NULL THEN '{}' ELSE jsonb_build_object('options', options) END));
    -- parties 1..160 solos, 161..220 duos, 221..260 trios
    DROP TABLE IF EXISTS party, playing;
    CREATE TEMP TABLE party (party int PRIMARY KEY, players bigint[], free_s int, roster bigint,
                             joined_s int);
    INSERT INTO party
    SELECT g, ARRAY(SELECT x FROM generate_series(lo, lo + size - 1) x), (random() * 10)::int, NULL, NULL
    FROM (SELECT g, CASE WHEN g <= 160 THEN 1 WHEN g <= 220 THEN 2 ELSE 3 END AS size,
                 CASE WHEN g <= 160 THEN g WHEN g <= 220 THEN 161 + 2 * (g - 161)
                      ELSE 281 + 3 * (g - 221) END AS lo
          FROM generate_series(1, 260) g) x;
    INSERT INTO season_skill
    SELECT model, u.player_id, p.party,
           sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random())
    FROM party p, unnest(p.players) u(player_id) ORDER BY u.player_id;
    CREATE TEMP TABLE playing (match_id bigint PRIMARY KEY, end_s int);

    FOR s IN 0 .. seconds LOOP
        -- rounds that end now: the result drawn from the hidden skills
        FOR mt IN SELECT pl.match_id FROM playing pl WHERE pl.end_s <= s ORDER BY pl.match_id LOOP
            SELECT random() < 1 / (1 + exp(-0.5 * (
                       sum(k.skill) FILTER (WHERE mr.team = 'red')
                     - sum(k.skill) FILTER (WHERE mr.team = 'blue')))) AS red_won
              INTO pr
            FROM mm.match_roster mr, unnest(mr.players) u(player_id)
            JOIN season_skill k ON k.model = season_run.model AND k.player_id = u.player_id
            WHERE mr.match_id = mt.match_id;
            UPDATE season_match sm SET red_won = pr.red_won
            WHERE sm.model = season_run.model AND sm.match_id = mt.match_id;
            PERFORM mm.report_result(mt.match_id, CASE WHEN pr.red_won
                THEN '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}'::jsonb
                ELSE '{"teams": {"red": {"rank": 2}, "blue": {"rank": 1}}}'::jsonb END);
            -- the parties take their breaks, drawn in party order (one row
            -- at a time: in a joined UPDATE the draws would follow the
            -- plan's row order, which the tables' statistics can change)
            FOR pr IN SELECT pa.party FROM party pa JOIN mm.match_roster mr ON pa.roster = mr.roster_id
                     WHERE mr.match_id = mt.match_id ORDER BY pa.party LOOP
                UPDATE party pa SET free_s = s + (random() * 10)::int, roster = NULL
                WHERE pa.party = pr.party;
            END LOOP;
            DELETE FROM playing pl WHERE pl.match_id = mt.match_id;
        END LOOP;
        -- parties back from their break queue, rated from mm.ratings
        IF made < target THEN
            FOR pr IN SELECT pa.party, pa.players FROM party pa
                     WHERE pa.roster IS NULL AND pa.free_s <= s ORDER BY pa.party LOOP
                UPDATE party pa SET roster = mm.enqueue(q, pr.players, NULL,
                                                        joined_at => t0 + s * interval '1 second'),
                                    joined_s = s
                WHERE pa.party = pr.party;
            END LOOP;
        END IF;
        -- the tick of this second
        FOR mt IN SELECT DISTINCT t.match_id FROM mm.tick(q, t0 + s * interval '1 second') t
                  ORDER BY t.match_id LOOP
            made := made + 1;
            INSERT INTO playing VALUES (mt.match_id, s + 10 + (random() * 30)::int);
            INSERT INTO season_match
            SELECT model, x.match_id, s, x.red_odds, NULL FROM mm.match x WHERE x.match_id = mt.match_id;
            INSERT INTO season_wait
            SELECT model, mr.roster_id, extract(epoch FROM mr.waited) FROM mm.match_roster mr
            WHERE mr.match_id = mt.match_id;
        END LOOP;
        INSERT INTO season_explain
        SELECT model, e.roster_id, s, cardinality(pa.players), w.rating, w.deviation,
               e.potentials, e.potentials_min, e.outcome
        FROM party pa JOIN mm.roster w ON w.roster_id = pa.roster AND w.match_id IS NULL
        CROSS JOIN LATERAL mm.explain(pa.roster, t0 + s * interval '1 second') e
        WHERE pa.joined_s = s - 25;
        EXIT WHEN made >= target AND NOT EXISTS (SELECT FROM playing);
        -- a transaction per simulated second, as a game's would be (the
        -- rows a tick or a report replaces can then be pruned)
        COMMIT;
    END LOOP;
    -- the rosters still waiting leave (a player waits in one queue at a time)
    PERFORM mm.leave(pa.roster) FROM party pa WHERE pa.roster IS NOT NULL;
    INSERT INTO season_reasons
    SELECT model, f.key, sum(f.value::bigint)
    FROM mm.tick_log tl JOIN mm.queue qu USING (queue_id), jsonb_each_text(tl.failed_reasons) f
    WHERE qu.name = q GROUP BY f.key;
    -- the ratings at the end of the season, beside the hidden skills
    INSERT INTO season_rating
    SELECT season_run.model, r.player_id, r.state[1]
    FROM mm.ratings r WHERE r.key = q AND r.model = season_run.model;
END
$$;

-- the figures teardown.sh checks: waits per model, and reliability bins of
-- the favourite's odds (the likelier side by the stored odds; red on a tie)
CREATE VIEW season_waits AS
SELECT model, percentile_cont(0.5) WITHIN GROUP (ORDER BY waited) AS p50,
       percentile_cont(0.99) WITHIN GROUP (ORDER BY waited) AS p99
FROM season_wait GROUP BY model;
CREATE VIEW season_bins AS
SELECT model, floor(f / 0.05) * 0.05 AS bin_lo, count(*) AS matches,
       avg(f) AS predicted, avg(won::int) AS observed
FROM (SELECT model, greatest(red_odds, 1 - red_odds) AS f,
             CASE WHEN red_odds >= 0.5 THEN red_won ELSE NOT red_won END AS won
      FROM season_match WHERE red_won IS NOT NULL) x
GROUP BY model, floor(f / 0.05);

CALL season_run('openskill', 20000, 3000);
CALL season_run('glicko2', 20000, 3000);
CALL season_run('elo', 20000, 3000);
