-- Results: mm.report_result rates a match once (OpenSkill as mm.openskill_rate
-- does, Glicko-2 by its team likelihood), awards ladder points from the
-- match's prediction, gives dishonor for desertions, records before and
-- after, finishes the match; a repeated report changes nothing; a
-- conflicting one is refused; mm.abandon_match.
\set VERBOSITY sqlstate
SET timezone = 'UTC';
-- the tests after this one count on mm's sequences: put them back at the end
\i test/support/sequences_save.sql
SELECT mm.create_queue('res', '{"team_size": 2, "filter": {"potentials_min": 1}, "requeue_while_in_match": false}');
SELECT mm.matcher_config(config) -> 'rating' AS rating FROM mm.queue WHERE name = 'res';
-- bad rating configs
-- (the hint lists the rating families)
\set VERBOSITY default
\set SHOW_CONTEXT never
SELECT mm.alter_queue('res', '{"rating": {"model": "trueskill"}}');
\set SHOW_CONTEXT errors
\set VERBOSITY sqlstate
SELECT mm.alter_queue('res', '{"rating": {"options": {"model": "nope"}}}');
SELECT mm.alter_queue('res', '{"rating": {"options": {"sigma": 0}}}');
-- a family's keys live under rating.options, never beside the model
SELECT mm.alter_queue('res', '{"rating": {"mu": 30}}');
SELECT mm.alter_queue('res', '{"rating": {"key": ""}}');
SELECT mm.alter_queue('res', '{"rating": {"colour": 1}}');

-- 9001 and 9004 against 9002 and 9003 (equal ratings: prediction 0, odds 0.5)
SELECT count(mm.enqueue('res', ARRAY[p], 1500, joined_at => '2024-01-01 12:00:00+00'))
FROM unnest(ARRAY[9001, 9002, 9003, 9004]::bigint[]) p;
CREATE TEMP TABLE m1 AS SELECT DISTINCT match_id FROM mm.tick('res', '2024-01-01 12:10:00+00');
SELECT count(*) AS matches FROM m1;
SELECT match_id AS m1 FROM m1 \gset
SELECT r.team, array_agg(p ORDER BY p) AS players
FROM mm.match_roster r, unnest(r.players) p WHERE r.match_id = :m1 GROUP BY r.team ORDER BY r.team;
SELECT prediction, red_odds, blue_odds FROM mm.match WHERE match_id = :m1;
-- the match is not finished: its players may not queue again
SELECT mm.enqueue('res', ARRAY[9001], 1500);

-- bad results change nothing
SELECT mm.report_result(NULL, '{}');
SELECT mm.report_result(-1, '{"teams": {}}');
SELECT mm.report_result(:m1, '[]');
SELECT mm.report_result(:m1, '{"teams": {"red": {"rank": 1}}}');
SELECT mm.report_result(:m1, '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}, "green": {"rank": 3}}}');
SELECT mm.report_result(:m1, '{"teams": {"red": {"rank": 1}, "blue": {}}}');
SELECT mm.report_result(:m1, '{"teams": {"red": {"rank": "1"}, "blue": {"rank": 2}}}');
SELECT mm.report_result(:m1, '{"teams": {"red": {"rank": 1, "desertions": [9002]}, "blue": {"rank": 2}}}');
SELECT mm.report_result(:m1, '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}, "players": {"9001": {"weight": 2}}}');
SELECT mm.report_result(:m1, '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}, "players": {"42": {"weight": 1}}}');
SELECT mm.report_result(:m1, '{"teams": {"red": {"rank": 1e400}, "blue": {"rank": 2}}}');
SELECT mm.report_result(:m1, '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}, "extra": 1}');
SELECT count(*) AS ratings, (SELECT count(*) FROM mm.match_result) AS results FROM mm.ratings WHERE player_id > 9000;

-- red wins 500 to 450, 9001 played half the match, 9003 (blue) deserted
\set result '{"teams": {"red": {"rank": 1, "score": 500}, "blue": {"rank": 2, "score": 450, "desertions": [9003]}}, "players": {"9001": {"weight": 0.5}}}'
CREATE TEMP TABLE out1 AS SELECT * FROM mm.report_result(:m1, :'result');
SELECT player_id, team, rank, score, weight, deserted, key, model, state_before[1] AS mu_before,
       round(state_before[2]::numeric, 6) AS sigma_before,
       round(state_after[1]::numeric, 6) AS mu_after, round(state_after[2]::numeric, 6) AS sigma_after,
       ladder_before, ladder_awarded, ladder_after, dishonor_stacks
FROM out1 ORDER BY player_id;
-- OpenSkill: exactly mm.openskill_rate on the same inputs
SELECT count(*) AS equal_to_openskill_rate
FROM out1 o
JOIN mm.openskill_rate(ARRAY[1, 2, 2, 1], ARRAY[1, 2, 2, 1]::float8[], ARRAY[25, 25, 25, 25]::float8[],
                       ARRAY[25.0 / 3, 25.0 / 3, 25.0 / 3, 25.0 / 3], weight => ARRAY[0.5, 1, 1, 1]) r
  ON r.idx = o.player_id - 9000
WHERE o.state_after = ARRAY[r.mu, r.sigma];
-- ladder by hand: odds 0.5 use the 0.4 matrix (min 0: -1, 400: 0, 500: 1);
-- red won with 500: 1; blue lost with 450: 0; the deserter scores 0: -1,
-- and totals start at 0 and are clamped at 0
SELECT player_id, ladder_awarded, ladder_after FROM out1 ORDER BY player_id;
-- dishonor by hand: "abandon" is 10 stacks; timeout 10^1.5 * 30 s = 948.7 s,
-- rounded to 16 minutes
SELECT d.stacks, d.timeout_until - r.reported_at AS timeout
FROM mm.match_result r, mm.dishonor_players d WHERE r.match_id = :m1 AND d.player_id = 9003;
SELECT player_id, key, model, round(state[1]::numeric, 6) AS mu, ladder_points, games, last_played IS NOT NULL AS played
FROM mm.ratings WHERE player_id > 9000 ORDER BY player_id;
SELECT status FROM mm.match WHERE match_id = :m1;

-- the same report again: the first outcome, nothing changes
SELECT (SELECT array_agg(o::text ORDER BY o.player_id) FROM out1 o)
     = (SELECT array_agg(r::text ORDER BY r.player_id) FROM mm.report_result(:m1, :'result') r) AS same_outcome;
SELECT player_id, round(state[1]::numeric, 6) AS mu, games FROM mm.ratings WHERE player_id > 9000 ORDER BY player_id;
SELECT stacks FROM mm.dishonor_players WHERE player_id = 9003;
-- a different report is refused
SELECT mm.report_result(:m1, '{"teams": {"red": {"rank": 2}, "blue": {"rank": 1}}}');
SELECT mm.abandon_match(:m1);
-- the match is finished: its players may queue again
SELECT mm.enqueue('res', ARRAY[9001], 1500) > 0 AS queued;
SELECT mm.leave_player(9001) IS NOT NULL AS left_queue;
-- the deserter is in a timeout: pardon them to play on
SELECT mm.enqueue('res', ARRAY[9003], 1500);
SELECT mm.dishonor_clear(9003);

-- Glicko-2, ranks from scores; second match of the same players
SELECT mm.alter_queue('res', '{"rating": {"model": "glicko2", "key": "g2", "ladder": false, "desertion_reason": null}}') -> 'rating' ->> 'model' AS model;
SELECT count(mm.enqueue('res', ARRAY[p], 1500, joined_at => '2024-01-01 13:00:00+00'))
FROM unnest(ARRAY[9001, 9002, 9003, 9004]::bigint[]) p;
SELECT DISTINCT match_id AS m2 FROM mm.tick('res', '2024-01-01 13:10:00+00') \gset
CREATE TEMP TABLE out2 AS
SELECT * FROM mm.report_result(:m2, '{"teams": {"red": {"score": 3}, "blue": {"score": 7, "desertions": [9002]}}}');
SELECT player_id, team, rank, deserted, key, model, state_before[1] AS rating_before, state_before[2] AS rd_before,
       round(state_after[1]::numeric, 6) AS rating_after, round(state_after[2]::numeric, 6) AS rd_after,
       ladder_awarded, dishonor_stacks
FROM out2 ORDER BY player_id;
-- one game per opposing team by the team likelihood: exactly as
-- mm.rating_history rates the same match from the same states
SELECT count(*) AS equal_to_rating_history
FROM out2 o
JOIN mm.rating_history('glicko2', format('SELECT 1, player_id, CASE WHEN team = ''red'' THEN 1 ELSE 2 END::bigint, rank
                                          FROM mm.match_result_player WHERE match_id = %s', :m2)) h
  ON h.player_id = o.player_id AND h.state_before = o.state_before
WHERE o.state_after = h.state_after;
SELECT stacks FROM mm.dishonor_players WHERE player_id = 9002;

-- abandon: no rating; once only; a report afterwards is refused
SELECT count(mm.enqueue('res', ARRAY[p], 1500, joined_at => '2024-01-01 14:00:00+00'))
FROM unnest(ARRAY[9001, 9002, 9003, 9004]::bigint[]) p;
SELECT DISTINCT match_id AS m3 FROM mm.tick('res', '2024-01-01 14:10:00+00') \gset
SELECT mm.abandon_match(:m3) AS abandoned, mm.abandon_match(:m3) AS again;
SELECT mm.report_result(:m3, '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}');
SELECT status, result FROM mm.match_result WHERE match_id = :m3;
SELECT mm.abandon_match(NULL);
SELECT mm.abandon_match(-1);
SELECT key, model, count(*), sum(games) FROM mm.ratings WHERE player_id > 9000 GROUP BY key, model ORDER BY key, model;


-- a roster's rating from mm.ratings, on the model's scale: OpenSkill, the
-- players' mean mu and the root mean square of their sigmas (a team's
-- sums are the roster's figures times its players); Glicko-2, the mean
-- rating and mean deviation; defaults for players without a row (9999)
SELECT abs(r.rating - x.mean_mu) < 1e-12 AS mean_mu, abs(r.deviation - x.rms_sigma) < 1e-12 AS rms_sigma
FROM mm.roster_rating(ARRAY[9001, 9004]::bigint[], '{"key": "ranked"}') r,
     (SELECT avg(state[1]) AS mean_mu, sqrt(avg(state[2] ^ 2)) AS rms_sigma FROM mm.ratings
      WHERE key = 'ranked' AND model = 'openskill' AND player_id IN (9001, 9004)) x;
SELECT round(r.rating::numeric, 6) AS rating, round(r.deviation::numeric, 6) AS deviation
FROM mm.roster_rating(ARRAY[9001, 9002]::bigint[], '{"model": "glicko2", "key": "g2"}') r;
SELECT round(r.rating::numeric, 6) AS rating, round(r.deviation::numeric, 6) AS deviation
FROM mm.roster_rating(ARRAY[9001, 9999]::bigint[], '{"model": "glicko2", "key": "g2"}') r;
SELECT * FROM mm.roster_rating(ARRAY[1]::bigint[], '{"model": "trueskill"}');
SELECT * FROM mm.roster_rating('{}', '{}');
SELECT * FROM mm.roster_rating(ARRAY(SELECT i::bigint FROM generate_series(1, 1001) i), '{}');
-- enqueue without a rating takes it from there (the queue rates Glicko-2, key g2)
SELECT mm.enqueue('res', ARRAY[9002, 9003], NULL) AS g2_roster \gset
SELECT round(rating::numeric, 6) AS rating, round(deviation::numeric, 6) AS deviation FROM mm.roster WHERE roster_id = :g2_roster;
SELECT mm.leave(:g2_roster);
-- leaderboard: by ordinal (OpenSkill) or rating - 2 rd (Glicko-2), per key and family
SELECT key, model, player_id, round(conservative_rating::numeric, 4) AS conservative,
       ladder_points, games, position
FROM mm.leaderboard WHERE player_id > 9000 ORDER BY key, model, position, player_id;

-- profession ratings (the GW2 wiki's profession-ratio): a rating key per
-- profession beside the core key, "<key>/<profession>"; roster ratings
-- blend them by the ratio, results update both
SELECT mm.alter_queue('res', '{"rating": {"profession_ratio": 1.5}}');
-- a key may hold the states of several families, one row each
INSERT INTO mm.ratings (player_id, key, model, state) VALUES
    (9101, 'pg', 'glicko2', '{1600, 60, 0.05}'), (9101, 'pg', 'openskill', '{30, 5}'),
    (9101, 'pg/guardian', 'glicko2', '{1400, 200, 0.07}'), (9101, 'pg/guardian', 'openskill', '{20, 9}'),
    (9102, 'pg', 'glicko2', '{1700, 100, 0.06}');
-- a state is the family's: its columns in order, finite, positive where it says so
INSERT INTO mm.ratings (player_id, key, model, state) VALUES (9103, 'pg', 'glicko2', '{1600, 60}');
INSERT INTO mm.ratings (player_id, key, model, state) VALUES (9103, 'pg', 'openskill', '{25, 0}');
INSERT INTO mm.ratings (player_id, key, model, state) VALUES (9103, 'pg', 'openskill', '{25, NULL}');
INSERT INTO mm.ratings (player_id, key, model, state) VALUES (9103, 'pg', 'openskill', '{NaN, 8}');
INSERT INTO mm.ratings (player_id, key, model, state) VALUES (9103, 'pg', 'trueskill', '{25, 8}');
-- read by name
SELECT key, model, mm.rating_fields(model, state) FROM mm.ratings WHERE player_id = 9101 ORDER BY key, model;
SELECT mm.rating_fields('trueskill', '{25, 8}');
SELECT mm.rating_fields('glicko2', '{1500, 350}');
SELECT mm.rating_conservative('openskill', '{25, 5}') AS ordinal, mm.rating_conservative('glicko2', '{1500, 100, 0.06}') AS g2;
SELECT mm.rating_conservative(NULL, '{25, 5}');
-- by hand, ratio 0.25: 9101 is 0.75 * 1600 + 0.25 * 1400 = 1550, rd 0.75 * 60
-- + 0.25 * 200 = 95; 9102 has no necromancer row (defaults 1500, 350):
-- 1650, 162.5; the roster is their mean: 1600, 128.75
SELECT r.rating, r.deviation
FROM mm.roster_rating(ARRAY[9101]::bigint[], '{"model": "glicko2", "key": "pg", "profession_ratio": 0.25}',
                      professions => ARRAY['guardian']) r;
SELECT r.rating, r.deviation
FROM mm.roster_rating(ARRAY[9101, 9102]::bigint[], '{"model": "glicko2", "key": "pg", "profession_ratio": 0.25}',
                      professions => ARRAY['guardian', 'necromancer']) r;
-- without professions, or with ratio 0, the core ratings alone: 1650, 80
SELECT r.rating, r.deviation
FROM mm.roster_rating(ARRAY[9101, 9102]::bigint[], '{"model": "glicko2", "key": "pg", "profession_ratio": 0.25}') r;
SELECT r.rating, r.deviation
FROM mm.roster_rating(ARRAY[9101, 9102]::bigint[], '{"model": "glicko2", "key": "pg"}',
                      professions => ARRAY['guardian', 'necromancer']) r;
-- ratio 1: the profession rating alone (1400, 200)
SELECT r.rating, r.deviation
FROM mm.roster_rating(ARRAY[9101]::bigint[], '{"model": "glicko2", "key": "pg", "profession_ratio": 1}',
                      professions => ARRAY['guardian']) r;
-- OpenSkill, ratio 0.5: mu 0.5 * 30 + 0.5 * 20 = 25, sigma 0.5 * 5 + 0.5 * 9 = 7
SELECT r.rating, r.deviation
FROM mm.roster_rating(ARRAY[9101]::bigint[], '{"key": "pg", "profession_ratio": 0.5}',
                      professions => ARRAY['guardian']) r;
SELECT * FROM mm.roster_rating(ARRAY[9101]::bigint[], '{"key": "pg"}', professions => ARRAY['guardian', 'thief']);
-- a queue with profession_ratio 0.25: enqueue takes the blended rating (1600, 128.75)
SELECT mm.alter_queue('res', '{"rating": {"model": "glicko2", "key": "pg", "profession_ratio": 0.25}}') -> 'rating' ->> 'profession_ratio' AS ratio;
SELECT mm.enqueue('res', ARRAY[9101, 9102], NULL, professions => ARRAY['guardian', 'necromancer']) AS pg_roster \gset
SELECT rating, deviation FROM mm.roster WHERE roster_id = :pg_roster;
SELECT mm.leave(:pg_roster);
-- a result updates the core and the profession ratings: 9201 has a
-- guardian rating already, 9204's roster names no profession (it plays the
-- profession game with its core rating, which is not written back)
SELECT mm.alter_queue('res', '{"rating": {"model": "openskill", "key": "rp", "profession_ratio": 0.5, "ladder": false}}') IS NOT NULL AS altered;
INSERT INTO mm.ratings (player_id, key, model, state) VALUES (9201, 'rp/guardian', 'openskill', '{30, 6}');
SELECT count(mm.enqueue('res', ARRAY[p], 1500, professions => CASE WHEN p = 9204 THEN '{}' ELSE ARRAY[pr] END,
                        joined_at => '2024-01-01 15:00:00+00'))
FROM (VALUES (9201, 'guardian'), (9202, 'thief'), (9203, 'guardian'), (9204, NULL)) v(p, pr);
SELECT DISTINCT match_id AS m4 FROM mm.tick('res', '2024-01-01 15:10:00+00') \gset
CREATE TEMP TABLE out4 AS SELECT * FROM mm.report_result(:m4, '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}');
SELECT player_id, key, games FROM mm.ratings WHERE key LIKE 'rp%' ORDER BY player_id, key;
-- the core game: every player from the defaults, exactly mm.openskill_rate
SELECT count(*) AS core_equal_to_openskill_rate
FROM (SELECT array_agg(CASE o.team WHEN 'red' THEN 1 ELSE 2 END ORDER BY o.player_id) AS team,
             array_agg(o.rank ORDER BY o.player_id) AS rank, array_agg(o.player_id ORDER BY o.player_id) AS ids
      FROM out4 o) g
CROSS JOIN LATERAL mm.openskill_rate(g.team, g.rank, ARRAY[25, 25, 25, 25]::float8[], ARRAY[25.0 / 3, 25.0 / 3, 25.0 / 3, 25.0 / 3]) r
JOIN mm.ratings x ON x.player_id = g.ids[r.idx] AND x.key = 'rp'
WHERE x.state = ARRAY[r.mu, r.sigma];
-- the profession game: 9201 from its guardian rating (30, 6), the others
-- from the defaults; exactly mm.openskill_rate
SELECT count(*) AS profession_equal_to_openskill_rate
FROM (SELECT array_agg(CASE o.team WHEN 'red' THEN 1 ELSE 2 END ORDER BY o.player_id) AS team,
             array_agg(o.rank ORDER BY o.player_id) AS rank, array_agg(o.player_id ORDER BY o.player_id) AS ids
      FROM out4 o) g
CROSS JOIN LATERAL mm.openskill_rate(g.team, g.rank, ARRAY[30, 25, 25, 25]::float8[], ARRAY[6, 25.0 / 3, 25.0 / 3, 25.0 / 3]) r
JOIN mm.ratings x ON x.player_id = g.ids[r.idx] AND x.key LIKE 'rp/%'
WHERE x.state = ARRAY[r.mu, r.sigma];
-- the profession game differs from the core game for everyone (9201's start)
SELECT count(*) AS differ FROM mm.ratings c JOIN mm.ratings p ON p.player_id = c.player_id AND p.key LIKE 'rp/%'
WHERE c.key = 'rp' AND c.state[1] <> p.state[1];
DROP TABLE out4;

-- Glicko-2 rating periods: with "period": "pending" a result records its
-- games and changes no rating; mm.close_rating_period rates every player
-- with all of the period's games at once, exactly as mm.glicko2_period
SELECT mm.alter_queue('res', '{"rating": {"model": "openskill", "period": "pending"}}');
SELECT mm.alter_queue('res', '{"rating": {"period": "weekly"}}');
SELECT mm.alter_queue('res', '{"rating": {"model": "glicko2", "key": "gp", "period": "pending", "ladder": false, "profession_ratio": 0, "desertion_reason": null}}') -> 'rating' ->> 'period' AS period;
-- 9301 has a rating already, last played just now (no idle growth before
-- the period: the games are reported now)
INSERT INTO mm.ratings (player_id, key, model, state, games, last_played)
VALUES (9301, 'gp', 'glicko2', '{1700, 80, 0.06}', 5, now());
SELECT count(mm.enqueue('res', ARRAY[p], 1500, joined_at => '2024-01-01 16:00:00+00'))
FROM unnest(ARRAY[9301, 9302, 9303, 9304]::bigint[]) p;
SELECT DISTINCT match_id AS m5 FROM mm.tick('res', '2024-01-01 16:10:00+00') \gset
SELECT count(*) AS rows, count(state_before) AS befores, count(state_after) AS afters
FROM mm.report_result(:m5, '{"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}');
SELECT count(mm.enqueue('res', ARRAY[p], 1500, joined_at => '2024-01-01 16:20:00+00'))
FROM unnest(ARRAY[9301, 9302, 9303, 9304]::bigint[]) p;
SELECT DISTINCT match_id AS m6 FROM mm.tick('res', '2024-01-01 16:30:00+00') \gset
SELECT count(*) AS rows FROM mm.report_result(:m6, '{"teams": {"red": {"rank": 1}, "blue": {"rank": 1}}}');
-- nothing rated yet: new players start from the defaults, games not counted
SELECT player_id, state[1] AS rating, state[2] AS rd, state[3] AS vol, games FROM mm.ratings WHERE key = 'gp' ORDER BY player_id;
-- 2 matches, 4 players, 2 opponents each
SELECT count(*) AS pending_games FROM mm.rating_period_game WHERE key = 'gp';
-- the expected period by hand: each player's team games (one per opposing
-- team) against the ratings at the start, one mm.glicko2_period; a team game
-- is Glickman's game against an opponent of rating r - n (R_A - R_B) and
-- RD^2 = n^2 RD_-i^2 + (n^2 - 1) pi^2 173.7178^2 / 3, RD_-i^2 the others'
-- rd^2 over their team's size squared (docs/ratings.md, "Glicko-2 in teams")
CREATE TEMP TABLE expected_period AS
WITH p AS (
    SELECT mp.match_id, mp.player_id, mp.team, mp.rank, r.state AS st
    FROM mm.match_result_player mp JOIN mm.ratings r ON r.key = 'gp' AND r.player_id = mp.player_id
    WHERE mp.match_id IN (:m5, :m6)
), t AS (
    SELECT match_id, team, min(rank) AS rank, count(*) AS n, avg(st[1]) AS r, sum(st[2] ^ 2) AS d2
    FROM p GROUP BY match_id, team
)
SELECT p.player_id,
       mm.glicko2_period(p.st[1], p.st[2], p.st[3], p.st[1] - a.n * (a.r - b.r),
                         sqrt((a.d2 - p.st[2] ^ 2) + a.n ^ 2 * b.d2 / b.n ^ 2 + (a.n ^ 2 - 1) * pi() ^ 2 * 173.7178 ^ 2 / 3),
                         CASE WHEN a.rank < b.rank THEN 1 WHEN a.rank = b.rank THEN 0.5 ELSE 0 END) AS n
FROM p JOIN t a ON a.match_id = p.match_id AND a.team = p.team
JOIN t b ON b.match_id = p.match_id AND b.team <> p.team
GROUP BY p.player_id;
SELECT c.player_id, c.games, abs(c.rating - (e.n).rating) < 1e-9 AND abs(c.rd - (e.n).rd) < 1e-9
                             AND abs(c.vol - (e.n).vol) < 1e-12 AS equal_to_glicko2_period
FROM mm.close_rating_period('gp', '2024-01-01 17:00:00+00') c JOIN expected_period e USING (player_id)
ORDER BY c.player_id;
SELECT player_id, games, last_played >= '2024-01-01 17:00:00+00' AS dated FROM mm.ratings WHERE key = 'gp' ORDER BY player_id;
SELECT count(*) AS pending_games FROM mm.rating_period_game WHERE key = 'gp';
-- not the same as rating each match on its own (mm.rating_history rates
-- them as a queue with "period": "game" would)
SELECT count(*) AS differs_from_per_game
FROM mm.ratings r
JOIN mm.rating_history('glicko2', format('SELECT match_id, player_id, CASE WHEN team = ''red'' THEN 1 ELSE 2 END::bigint, rank
                                          FROM mm.match_result_player WHERE match_id IN (%s, %s) ORDER BY match_id', :m5, :m6),
                       'SELECT 9301::bigint, 1700::float8, 80::float8, 0.06::float8') h
  ON h.player_id = r.player_id AND h.game_key = :m6::text
WHERE r.key = 'gp' AND r.player_id = 9301 AND r.state[1] <> h.state_after[1];
-- a period of one match is that match rated as a queue with "period":
-- "game" rates it (mm.rating_history, the C team likelihood); last played
-- now, so that no idle period passes before it
UPDATE mm.ratings SET last_played = now() WHERE key = 'gp';
SELECT count(mm.enqueue('res', ARRAY[p], 1500, joined_at => '2024-01-01 18:00:00+00'))
FROM unnest(ARRAY[9301, 9302, 9303, 9304]::bigint[]) p;
SELECT DISTINCT match_id AS m7 FROM mm.tick('res', '2024-01-01 18:10:00+00') \gset
SELECT count(*) AS rows FROM mm.report_result(:m7, '{"teams": {"red": {"rank": 2}, "blue": {"rank": 1}}}');
CREATE TEMP TABLE before_m7 AS SELECT player_id, state FROM mm.ratings WHERE key = 'gp';
SELECT count(*) AS players,
       count(*) FILTER (WHERE abs(c.rating - h.state_after[1]) < 1e-9 AND abs(c.rd - h.state_after[2]) < 1e-9
                          AND abs(c.vol - h.state_after[3]) < 1e-12) AS equal_to_one_game
FROM mm.close_rating_period('gp', '2024-01-01 19:00:00+00') c
JOIN mm.rating_history('glicko2', format('SELECT match_id, player_id, CASE WHEN team = ''red'' THEN 1 ELSE 2 END::bigint, rank
                                          FROM mm.match_result_player WHERE match_id = %s', :m7),
                       'SELECT player_id, state[1], state[2], state[3] FROM before_m7') h USING (player_id);
DROP TABLE before_m7;
-- an empty period closes to nothing; bad arguments
SELECT count(*) AS rated FROM mm.close_rating_period('gp', '2024-01-02 17:00:00+00');
SELECT * FROM mm.close_rating_period(NULL);
SELECT * FROM mm.close_rating_period('gp', 'infinity');
DROP TABLE expected_period;

SELECT mm.drop_queue('res', keep_history => false);
SELECT count(*) AS results_left FROM mm.match_result;
DELETE FROM mm.ratings WHERE player_id > 9000;
SELECT count(*) AS ratings_left FROM mm.ratings WHERE player_id > 9000;
SELECT mm.dishonor_clear(9002);
DROP TABLE m1, out1, out2;
\i test/support/sequences_restore.sql
