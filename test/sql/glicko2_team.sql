-- Glicko-2 in teams (docs/ratings.md): the team likelihood rates and
-- predicts a team game. Games worked independently in Python
-- (test/vectors/glicko2/team.py writes team.tsv): 2v2, 3v3, 2v3 with a
-- draw, three teams of two; a game of single players is Glickman's game
-- against each opponent, to the bit; a queue's odds are the same E.
\set VERBOSITY sqlstate
-- the tests after this one count on mm's sequences: put them back at the end
\i test/support/sequences_save.sql
CREATE TEMP TABLE g2_team (game int, player_id bigint, team bigint, rank float8,
                           rating float8, rd float8, vol float8, win_probability float8,
                           rating_after float8, rd_after float8, vol_after float8);
\copy g2_team FROM 'test/vectors/glicko2/team.tsv'
-- every player's new state and its team's win probability, as the worked
-- games give them (rating and rd to 1e-6, vol to 1e-9, probability to 1e-12)
SELECT t.game, count(*) AS players,
       count(*) FILTER (WHERE abs(h.win_probability - t.win_probability) < 1e-12) AS probability,
       count(*) FILTER (WHERE abs(h.state_after[1] - t.rating_after) < 1e-6
                          AND abs(h.state_after[2] - t.rd_after) < 1e-6
                          AND abs(h.state_after[3] - t.vol_after) < 1e-9) AS rated
FROM g2_team t
JOIN mm.rating_history('glicko2', 'SELECT game, player_id, team, rank FROM g2_team ORDER BY game, player_id',
                       'SELECT player_id, rating, rd, vol FROM g2_team') h
  ON h.game_key = t.game::text AND h.player_id = t.player_id
GROUP BY t.game ORDER BY t.game;
-- what the 2v2 did: the favourite (mean 1600 against 1500, 0.62) lost; the
-- uncertain players moved most, each by its share of the team's gradient
SELECT player_id, team, round(win_probability::numeric, 4) AS p_win, rating, rd,
       round(rating_after::numeric, 2) AS rating_after, round(rd_after::numeric, 2) AS rd_after
FROM g2_team WHERE game = 1 ORDER BY player_id;
-- a game of teams of one: each player's period is Glickman's with one game
-- against every opponent, exactly mm.glicko2_rate (1v1 and a free-for-all)
CREATE TEMP TABLE g2_ffa (game int, player_id bigint, rank float8, rating float8, rd float8, vol float8);
INSERT INTO g2_ffa VALUES (1, 1, 1, 1500, 200, 0.06), (1, 2, 2, 1400, 30, 0.06),
    (2, 3, 2, 1500, 200, 0.06), (2, 4, 1, 1550, 100, 0.05), (2, 5, 3, 1700, 300, 0.07), (2, 6, 2, 1350, 80, 0.06);
SELECT h.game, count(*) AS players,
       count(*) FILTER (WHERE h.state_after = ARRAY[r.rating, r.rd, r.vol]) AS equal_to_glicko2_rate
FROM mm.rating_history('glicko2', 'SELECT game, player_id, player_id AS team, rank FROM g2_ffa ORDER BY game, player_id',
                       'SELECT player_id, rating, rd, vol FROM g2_ffa') h
JOIN g2_ffa me ON me.player_id = h.player_id
CROSS JOIN LATERAL (
    SELECT (mm.glicko2_rate((me.rating, me.rd, me.vol)::mm.glicko, array_agg(o.rating ORDER BY o.player_id),
                            array_agg(o.rd ORDER BY o.player_id),
                            array_agg(CASE WHEN me.rank < o.rank THEN 1 WHEN me.rank = o.rank THEN 0.5 ELSE 0 END::float8
                                      ORDER BY o.player_id))).*
    FROM g2_ffa o WHERE o.game = me.game AND o.player_id <> me.player_id) r
GROUP BY h.game ORDER BY h.game;
-- a 1v1's prediction is mm.glicko2_expect
SELECT h.player_id, h.win_probability = mm.glicko2_expect(me.rating, me.rd, o.rating, o.rd) AS equal_to_expect
FROM mm.rating_history('glicko2', 'SELECT game, player_id, player_id AS team, rank FROM g2_ffa WHERE game = 1',
                       'SELECT player_id, rating, rd, vol FROM g2_ffa') h
JOIN g2_ffa me ON me.player_id = h.player_id
JOIN g2_ffa o ON o.game = 1 AND o.player_id <> me.player_id
ORDER BY h.player_id;
-- a team game is one game per opposing team: a 2v2 of new players is, for
-- each player, Glickman's game against one opponent of the same rating
-- whose g is g(phi) / 2, phi^2 = 3 phi_new^2 / 4 (the others' phi_k^2 / 2^2)
SELECT count(*) AS players,
       count(*) FILTER (WHERE abs(h.state_after[1] - r.rating) < 1e-9 AND abs(h.state_after[2] - r.rd) < 1e-9
                          AND abs(h.state_after[3] - r.vol) < 1e-12) AS equal_to_one_game
FROM mm.rating_history('glicko2', 'SELECT * FROM (VALUES (1, 41::bigint, 1::bigint, 1::float8), (1, 42, 1, 1),
                                                         (1, 43, 2, 2), (1, 44, 2, 2)) g(m, p, t, r)') h
CROSS JOIN LATERAL (SELECT 350 / 173.7178 AS phi) c
CROSS JOIN LATERAL (SELECT 1 / sqrt(1 + 3 * (3 * c.phi ^ 2 / 4) / pi() ^ 2) / 2 AS gw) w
-- the opponent's rd whose g is gw: g(phi_o) = gw
CROSS JOIN LATERAL (SELECT 173.7178 * sqrt((1 / w.gw ^ 2 - 1) * pi() ^ 2 / 3) AS rd_o) o
CROSS JOIN LATERAL mm.glicko2_rate((1500, 350, 0.06)::mm.glicko, ARRAY[1500::float8], ARRAY[o.rd_o],
                                   ARRAY[CASE WHEN h.team = 1 THEN 1 ELSE 0 END::float8]) r;
-- a queue's stored odds: the same E from the rosters' figures (rosters of
-- one player: g2_team's game 1 exactly as mm.rating_history predicts it)
INSERT INTO mm.ratings (player_id, key, model, state)
SELECT 9500 + player_id, 'g2_team', 'glicko2', ARRAY[rating, rd, vol] FROM g2_team WHERE game = 1;
SELECT mm.create_queue('g2_team', '{"team_size": 2, "filter": {"potentials_min": 1, "padding": 500},
                                    "rating": {"model": "glicko2", "key": "g2_team"}}');
SELECT count(mm.enqueue('g2_team', ARRAY[9500 + player_id], NULL, joined_at => '2024-01-01 12:00:00+00'))
FROM g2_team WHERE game = 1;
SELECT count(*) AS rosters_matched FROM mm.tick('g2_team', '2024-01-01 12:01:00+00');
-- the teams the tick made, and its odds against the team likelihood's
SELECT abs(m.red_odds - p.e) < 1e-12 AS odds_are_the_likelihood
FROM mm.match m JOIN mm.queue q USING (queue_id),
LATERAL (SELECT max(h.win_probability) FILTER (WHERE h.team = 1) AS e
         FROM mm.rating_history('glicko2',
             format('SELECT 1, p, CASE WHEN t = ''red'' THEN 1 ELSE 2 END::bigint, 1::float8
                     FROM mm.match_roster mr, unnest(mr.players) p, LATERAL (SELECT mr.team) x(t)
                     WHERE mr.match_id = %s', m.match_id),
             'SELECT player_id, state[1], state[2], state[3] FROM mm.ratings WHERE key = ''g2_team''') h) p
WHERE q.name = 'g2_team';
-- a roster of two players who queue together: their errors are not
-- independent, so the roster adds (2 d)^2 to its team's variance (d its
-- mean rd): odds nearer one half than rosters of one with the same players
INSERT INTO mm.ratings (player_id, key, model, state)
SELECT 9510 + player_id, 'g2_team', 'glicko2', ARRAY[rating, rd, vol] FROM g2_team WHERE game = 1;
SELECT mm.create_queue('g2_duo', '{"team_size": 2, "filter": {"potentials_min": 1, "padding": 500},
                                   "rating": {"model": "glicko2", "key": "g2_team"}}');
SELECT mm.enqueue('g2_duo', ARRAY[9511, 9512], NULL, joined_at => '2024-01-01 12:00:00+00') > 0 AS red,
       mm.enqueue('g2_duo', ARRAY[9513, 9514], NULL, joined_at => '2024-01-01 12:00:00+00') > 0 AS blue;
SELECT count(*) AS rosters_matched FROM mm.tick('g2_duo', '2024-01-01 12:01:00+00');
SELECT round(greatest(m.red_odds, 1 - m.red_odds)::numeric, 6) AS favourite_odds,
       abs(greatest(m.red_odds, 1 - m.red_odds) - e.e) < 1e-12 AS by_hand,
       (SELECT round(t.win_probability::numeric, 6) FROM g2_team t WHERE t.game = 1 AND t.team = 1 LIMIT 1)
           AS as_rosters_of_one
FROM mm.match m JOIN mm.queue q USING (queue_id),
LATERAL (SELECT 1 / (1 + exp(-abs(1600 - 1500) / 173.7178
                             / sqrt(1 + 3 * ((2 * 130 / 173.7178) ^ 2 / 4 + (2 * 200 / 173.7178) ^ 2 / 4) / pi() ^ 2))) AS e) e
WHERE q.name = 'g2_duo';
SELECT mm.drop_queue('g2_team', keep_history => false), mm.drop_queue('g2_duo', keep_history => false);
DELETE FROM mm.ratings WHERE key = 'g2_team';
SELECT (SELECT count(*) FROM mm.queue) AS queues, (SELECT count(*) FROM mm.match) AS matches,
       (SELECT count(*) FROM mm.tick_log) AS ticks, (SELECT count(*) FROM mm.ticket_event) AS events;
\i test/support/sequences_restore.sql
DROP TABLE g2_team, g2_ffa;
