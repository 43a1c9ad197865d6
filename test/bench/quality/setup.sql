-- Match quality a player feels, in simulated seasons of four shapes: 1v1
-- (duel), 3v3, 5v5 and a free-for-all of eight (ffa8), each run through
-- the queue (mm.tick every simulated second, mm.report_result at the end
-- of each round) once per config: each rating family with its defaults,
-- the config recommended for the shape, and for 3v3 and 5v5 the GW2 wiki's
-- teams (split gw2) and a balance rule. teardown.sh reports, per shape and
-- config, the waits, the favourite's mean odds, the fairness gap, the
-- balance rule's limit, and how fast the ratings learn: the Spearman
-- correlation of rating with hidden skill for players at 5, 10, 20 and 50
-- games beside an offline Bayesian fit of the same games (mm.bayes_fit).
--
--   - hidden skill: standard normal per player at the start, then a slow
--     drift: after each game a player's skill moves by N(0, 0.04^2) (0.28
--     after 50 games);
--   - the truth: a team performs the sum of its players' skills plus Gumbel
--     noise of scale 2, and the teams finish in order of performance: a
--     Plackett-Luce model of team sums, which at two teams is the season
--     bench's logistic truth (red beats blue with probability
--     1 / (1 + exp(-(sum red - sum blue) / 2))); no rating family is told it;
--   - the offline fit is mm.bayes_fit under that model (prior N(0, 1),
--     beta 2) of every game reported before the checkpoint;
--   - parties (the same all season): duel and ffa8 are solos only (a
--     party does not fit a team of one); 3v3: 160 solos, 60 duos, 40 trios;
--     5v5: 160 solos, 50 duos, 20 trios, 10 fours, 6 fives. A quarter of
--     the parties join at a time drawn uniformly in the first 1000 s, the
--     others at the start;
--   - a round lasts 5 to 20 s, then each party takes a break of 0 to 10
--     s and queues again, rated from mm.ratings (a NULL rating), until the
--     shape's number of matches is made;
--   - blocks: 200 random pairs of players 1 to 400 blocked each other
--     (mm.block) before the first season; the same blocks hold in every
--     season (a block is global), and teardown.sh counts the matches that
--     put a blocked pair together (the goal: none);
--   - every draw comes from setseed, in an order no plan decides; each
--     simulated second is one transaction.
\set ON_ERROR_STOP on
SET client_min_messages = warning;

-- The shapes: teams, players per team, parties of each size (1, 2, ...),
-- matches per season, and the reported matches between two fits.
CREATE TABLE quality_shape (shape text PRIMARY KEY, teams int, team_size int, parties int[],
                            matches int, every int, position int);
INSERT INTO quality_shape VALUES
    ('duel', 2, 1, '{160}', 4400, 40, 1),
    ('3v3', 2, 3, '{160, 60, 40}', 3700, 40, 2),
    ('5v5', 2, 5, '{160, 50, 20, 10, 6}', 2150, 20, 3),
    ('ffa8', 8, 1, '{128}', 880, 10, 4);

-- The configs run per shape: a queue config merged over {"teams": ...,
-- "team_size": ..., "rating": {"key": ...}}; recommended marks the
-- config docs/benchmarks.md recommends for the shape.
CREATE TABLE quality_config (shape text, config text, qcfg jsonb, recommended boolean DEFAULT false,
                             PRIMARY KEY (shape, config));
INSERT INTO quality_config (shape, config, qcfg)
SELECT s.shape, f.model, jsonb_build_object('rating', jsonb_build_object('model', f.model))
FROM quality_shape s, (VALUES ('openskill'), ('glicko2'), ('elo')) f(model);
-- the recommended configs (docs/benchmarks.md, "Match quality"): the
-- candidate that came closest to the offline fit at 10 games and beyond on
-- a season played with the earlier recommendation (teardown.sh's table of
-- candidates): Glicko-2 with a new player's rd at the spread of this game's
-- ratings on its team likelihood's scale for the two-team shapes, and
-- OpenSkill's defaults (Plackett-Luce) for the free-for-all
INSERT INTO quality_config VALUES
    ('duel', 'recommended', '{"rating": {"model": "glicko2", "options": {"rd": 90}}}', true),
    ('3v3', 'recommended', '{"rating": {"model": "glicko2", "options": {"rd": 600}}}', true),
    ('5v5', 'recommended', '{"rating": {"model": "glicko2", "options": {"rd": 430}}}', true),
    ('ffa8', 'recommended', '{"rating": {"model": "openskill"}}', true),
    -- GW2's teams, for the fairness gap; and a fairness limit that relaxes
    ('3v3', 'glicko2 gw2 split', '{"split": "gw2", "rating": {"model": "glicko2"}}', false),
    ('3v3', 'glicko2 balance', '{"rating": {"model": "glicko2"}, "rules": [{"type": "balance", "max_favourite": 0.6,
        "expand": [{"after": 20, "max_favourite": 0.7}, {"after": 60, "max_favourite": 1}]}]}', false);

-- the blocks, drawn once
SELECT setseed(0.17);
SELECT count(mm.block(a, b)) AS blocks
FROM (SELECT DISTINCT ON (least(a, b), greatest(a, b)) a, b
      FROM (SELECT n, 1 + floor(random() * 400)::bigint AS a, 1 + floor(random() * 400)::bigint AS b
            FROM generate_series(1, 220) n) x
      WHERE a <> b ORDER BY least(a, b), greatest(a, b), n LIMIT 200) y;

CREATE TABLE quality_player (shape text, config text, player_id bigint, party int, join_s int, skill float8,
                             PRIMARY KEY (shape, config, player_id));
-- every game of every player in report order, with its skill in it and after it
CREATE TABLE quality_game (shape text, config text, match_no int, match_id bigint, player_id bigint, team int,
                           rank int, skill float8, skill_after float8, PRIMARY KEY (shape, config, match_no, player_id));
CREATE TABLE quality_match (shape text, config text, match_id bigint, made_s int, match_no int,
                            odds float8[], odds_scale float8, favourite float8, target_wait float8,
                            PRIMARY KEY (shape, config, match_id));
CREATE TABLE quality_wait (shape text, config text, roster_id bigint, waited float8);
-- the offline fit after every "every" reported matches
CREATE TABLE quality_fit (shape text, config text, checkpoint int, player_id bigint, rating float8,
                          PRIMARY KEY (shape, config, checkpoint, player_id));
-- the fairest split of each match's rosters (for the fairness gap)
CREATE TABLE quality_fairest (shape text, config text, match_id bigint, favourite float8,
                              PRIMARY KEY (shape, config, match_id));

CREATE PROCEDURE quality_run(shape text, config text, seed float8 DEFAULT 0.42)
LANGUAGE plpgsql AS $$
DECLARE
    sh quality_shape;
    q text := 'quality_' || replace(shape || '_' || config, ' ', '_');
    qcfg jsonb;
    t0 timestamptz := date_trunc('second', now()) - interval '1 day';
    s int;
    mt record;
    pr record;
    made int := 0;
    reported int := 0;
    nparties int;
    pid bigint := 0;
    size int;
BEGIN
    SELECT * INTO sh FROM quality_shape x WHERE x.shape = quality_run.shape;
    SELECT mm._jsonb_merge(jsonb_build_object('teams', sh.teams, 'team_size', sh.team_size,
                                              'rating', jsonb_build_object('key', q)), c.qcfg)
      INTO qcfg FROM quality_config c WHERE c.shape = quality_run.shape AND c.config = quality_run.config;
    PERFORM setseed(seed);
    PERFORM mm.create_queue(q, qcfg);
    DROP TABLE IF EXISTS party, playing;
    CREATE TEMP TABLE party (party int PRIMARY KEY, players bigint[], free_s int, roster bigint, joined_s int);
    -- parties by size, then a quarter of them (every fourth) join late
    nparties := 0;
    FOR size IN 1 .. cardinality(sh.parties) LOOP
        FOR k IN 1 .. sh.parties[size] LOOP
            nparties := nparties + 1;
            INSERT INTO party VALUES (nparties, ARRAY(SELECT pid + x FROM generate_series(1, size) x), 0, NULL, NULL);
            pid := pid + size;
        END LOOP;
    END LOOP;
    FOR pr IN SELECT pa.party FROM party pa ORDER BY pa.party LOOP
        UPDATE party pa SET free_s = floor(random() * CASE WHEN pa.party % 4 = 0 THEN 1000 ELSE 10 END)::int
        WHERE pa.party = pr.party;
    END LOOP;
    FOR pr IN SELECT u.player_id, p.party, p.free_s FROM party p, unnest(p.players) u(player_id) ORDER BY u.player_id LOOP
        INSERT INTO quality_player
        VALUES (quality_run.shape, quality_run.config, pr.player_id, pr.party, pr.free_s, sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()));
    END LOOP;
    CREATE TEMP TABLE playing (match_id bigint PRIMARY KEY, end_s int);

    FOR s IN 0 .. 100000 LOOP
        -- rounds that end now: each team performs its players' skills plus
        -- Gumbel noise of scale 2; the teams rank by performance
        FOR mt IN SELECT pl.match_id FROM playing pl WHERE pl.end_s <= s ORDER BY pl.match_id LOOP
            reported := reported + 1;
            CREATE TEMP TABLE perf ON COMMIT DROP AS
            SELECT x.team, x.pos, x.perf, rank() OVER (ORDER BY x.perf DESC) AS rank
            FROM (SELECT t.team, t.pos, t.s - 2 * ln(-ln(greatest(random(), 1e-300))) AS perf
                  FROM (SELECT mr.team, array_position(m.teams, mr.team) AS pos, sum(k.skill) AS s
                        FROM mm.match_roster mr JOIN mm.match m ON m.match_id = mr.match_id,
                             unnest(mr.players) u(player_id)
                        JOIN quality_player k ON k.shape = quality_run.shape AND k.config = quality_run.config
                                              AND k.player_id = u.player_id
                        WHERE mr.match_id = mt.match_id GROUP BY mr.team, m.teams ORDER BY 2) t) x;
            PERFORM mm.report_result(mt.match_id, jsonb_build_object('teams',
                (SELECT jsonb_object_agg(p.team, jsonb_build_object('rank', p.rank)) FROM perf p)));
            -- the games, then each player's skill drifts (in player order)
            FOR pr IN SELECT u.player_id, p.pos, p.rank FROM mm.match_roster mr, unnest(mr.players) u(player_id), perf p
                      WHERE mr.match_id = mt.match_id AND p.team = mr.team ORDER BY u.player_id LOOP
                INSERT INTO quality_game
                SELECT quality_run.shape, quality_run.config, reported, mt.match_id, pr.player_id, pr.pos, pr.rank, k.skill,
                       k.skill + 0.04 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random())
                FROM quality_player k WHERE k.shape = quality_run.shape AND k.config = quality_run.config
                                        AND k.player_id = pr.player_id;
                UPDATE quality_player k SET skill = g.skill_after
                FROM quality_game g WHERE g.shape = quality_run.shape AND g.config = quality_run.config
                                      AND g.match_no = reported AND g.player_id = pr.player_id
                  AND k.shape = g.shape AND k.config = g.config AND k.player_id = g.player_id;
            END LOOP;
            UPDATE quality_match SET match_no = reported
            WHERE quality_match.shape = quality_run.shape AND quality_match.config = quality_run.config
              AND match_id = mt.match_id;
            DROP TABLE perf;
            -- the parties take their breaks, drawn in party order
            FOR pr IN SELECT pa.party FROM party pa JOIN mm.match_roster mr ON pa.roster = mr.roster_id
                     WHERE mr.match_id = mt.match_id ORDER BY pa.party LOOP
                UPDATE party pa SET free_s = s + (random() * 10)::int, roster = NULL WHERE pa.party = pr.party;
            END LOOP;
            DELETE FROM playing pl WHERE pl.match_id = mt.match_id;
        END LOOP;
        -- parties back from their break (or joining) queue, rated from mm.ratings
        IF made < sh.matches THEN
            FOR pr IN SELECT pa.party, pa.players FROM party pa
                     WHERE pa.roster IS NULL AND pa.free_s <= s ORDER BY pa.party LOOP
                UPDATE party pa SET roster = mm.enqueue(q, pr.players, NULL, joined_at => t0 + s * interval '1 second'),
                                    joined_s = s
                WHERE pa.party = pr.party;
            END LOOP;
        END IF;
        -- the tick of this second
        FOR mt IN SELECT DISTINCT t.match_id FROM mm.tick(q, t0 + s * interval '1 second') t ORDER BY t.match_id LOOP
            made := made + 1;
            INSERT INTO playing VALUES (mt.match_id, s + 5 + (random() * 15)::int);
            INSERT INTO quality_match
            SELECT quality_run.shape, quality_run.config, x.match_id, s, NULL, x.odds, x.odds_scale,
                   (SELECT max(o) FROM unnest(x.odds) o),
                   -- the target: the roster tried first, earliest in queue order
                   (SELECT extract(epoch FROM mr.waited) FROM mm.match_roster mr
                    WHERE mr.match_id = x.match_id ORDER BY mr.position LIMIT 1)
            FROM mm.match x WHERE x.match_id = mt.match_id;
            INSERT INTO quality_wait
            SELECT quality_run.shape, quality_run.config, mr.roster_id, extract(epoch FROM mr.waited) FROM mm.match_roster mr
            WHERE mr.match_id = mt.match_id;
        END LOOP;
        EXIT WHEN made >= sh.matches AND NOT EXISTS (SELECT FROM playing);
        COMMIT;
    END LOOP;
    PERFORM mm.leave(pa.roster) FROM party pa WHERE pa.roster IS NOT NULL;
    COMMIT;
    -- the fairest split of each two-team match's rosters, on the family's
    -- own odds (its odds before the calibration's scale: at two teams the
    -- scale does not change which split is fairest)
    INSERT INTO quality_fairest
    SELECT quality_run.shape, quality_run.config, m.match_id,
           (SELECT max(f.odds) FROM mm.match_rosters(
                format('SELECT mr.roster_id, mr.players, mr.rating, mr.deviation, mr.joined_at FROM mm.match_roster mr WHERE mr.match_id = %s ORDER BY mr.position', m.match_id),
                mm._jsonb_merge(mm._jsonb_merge(qcfg, '{"split": "fairest", "rules": []}'),
                                '{"filter": {"potentials_min": 0, "padding": 1e9, "padding_start": 0}}'),
                t0 + interval '2 days') f)
    FROM quality_match m WHERE m.shape = quality_run.shape AND m.config = quality_run.config AND sh.teams = 2;
    COMMIT;
    -- the offline fit of the games reported before each checkpoint
    FOR s IN 1 .. reported / sh.every LOOP
        INSERT INTO quality_fit
        SELECT quality_run.shape, quality_run.config, s * sh.every, f.player_id, f.rating
        FROM mm.bayes_fit(format('SELECT match_no, player_id, team, rank FROM quality_game WHERE shape = %L AND config = %L AND match_no <= %s ORDER BY match_no',
                                 quality_run.shape, quality_run.config, s * sh.every), 1, 2) f;
        COMMIT;
    END LOOP;
END
$$;

-- How the recommended configs were chosen: candidates replayed over each
-- shape's recommended season (the same games for each; mm.rating_history
-- rates them as mm.report_result would), their ratings read at the same
-- checkpoints (teardown.sh's table of candidates).
CREATE TABLE quality_candidate (label text PRIMARY KEY, model text, options jsonb, position int);
INSERT INTO quality_candidate VALUES
    ('openskill', 'openskill', '{}', 1),
    ('openskill beta 11.8 tau 0.33', 'openskill', '{"beta": 11.785, "tau": 0.333}', 2),
    ('glicko2', 'glicko2', '{}', 3),
    ('glicko2 rd 90', 'glicko2', '{"rd": 90}', 4),
    ('glicko2 rd 130', 'glicko2', '{"rd": 130}', 5),
    ('glicko2 rd 200', 'glicko2', '{"rd": 200}', 6),
    ('glicko2 rd 260', 'glicko2', '{"rd": 260}', 7),
    ('glicko2 rd 430', 'glicko2', '{"rd": 430}', 8),
    ('glicko2 rd 600', 'glicko2', '{"rd": 600}', 9),
    ('elo', 'elo', '{}', 10),
    ('elo k 16', 'elo', '{"k": 16}', 11),
    -- the truth's own scale: Gumbel noise of scale 2 per team is, at two
    -- teams, Bradley-Terry with c = 2, so beta = sqrt(2) on the skill's
    -- unit (11.8 on OpenSkill's, sigma 25/3 = 1) and a drift of 0.04 per
    -- game is tau 0.33; Plackett-Luce's c grows with the teams, so at 8
    -- teams beta = sqrt(1/2) (5.9)
    ('openskill beta 5.9 tau 0.33', 'openskill', '{"beta": 5.893, "tau": 0.333}', 12),
    ('openskill thurstone-mosteller beta 8 sigma 12', 'openskill',
     '{"model": "thurstone_mosteller_full", "beta": 8, "tau": 0.333, "sigma": 12}', 13);
CREATE TABLE quality_candidate_rating (shape text, label text, match_no int, player_id bigint, rating float8,
                                       PRIMARY KEY (shape, label, match_no, player_id));
CREATE PROCEDURE quality_candidates(shape text)
LANGUAGE plpgsql AS $$
DECLARE
    c quality_candidate;
BEGIN
    FOR c IN SELECT * FROM quality_candidate ORDER BY position LOOP
        INSERT INTO quality_candidate_rating
        SELECT quality_candidates.shape, c.label, h.game, h.player_id, h.state_after[1]
        FROM mm.rating_history(c.model,
                 format('SELECT match_no, player_id, team, rank FROM quality_game WHERE shape = %L AND config = %L ORDER BY match_no, player_id',
                        quality_candidates.shape, 'recommended'), NULL, c.options) h;
        COMMIT;
    END LOOP;
END
$$;

-- every season, shape by shape
CALL quality_run('duel', 'openskill');
CALL quality_run('duel', 'glicko2');
CALL quality_run('duel', 'elo');
CALL quality_run('duel', 'recommended');
CALL quality_run('3v3', 'openskill');
CALL quality_run('3v3', 'glicko2');
CALL quality_run('3v3', 'elo');
CALL quality_run('3v3', 'recommended');
CALL quality_run('3v3', 'glicko2 gw2 split');
CALL quality_run('3v3', 'glicko2 balance');
CALL quality_run('5v5', 'openskill');
CALL quality_run('5v5', 'glicko2');
CALL quality_run('5v5', 'elo');
CALL quality_run('5v5', 'recommended');
CALL quality_run('ffa8', 'openskill');
CALL quality_run('ffa8', 'glicko2');
CALL quality_run('ffa8', 'elo');
CALL quality_run('ffa8', 'recommended');
CALL quality_candidates('duel');
CALL quality_candidates('3v3');
CALL quality_candidates('5v5');
CALL quality_candidates('ffa8');
