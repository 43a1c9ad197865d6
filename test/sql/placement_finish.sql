-- Placement, finished: a joining player without some built-in attributes,
-- removing a server, updating a seated player, parties, the weights of a
-- place's signals and the weighted breakdown.

-- A player without a latency estimate (or any built-in attribute) is
-- placed: that signal scores 0 on every server, as a server without the
-- attribute does. The Roblox default configuration, two servers.
SELECT mm.add_server('fin', 4, '{"region": "eu"}') AS f1 \gset
SELECT mm.add_server('fin', 4, '{"region": "us"}') AS f2 \gset
SELECT mm.place_player(:f1, 501, '{"age": 20, "language": "en"}');
-- no latency: latency 0 on both; the rest as usual
SELECT r.server_id = :f1 AS is_f1, round(r.score::numeric, 12) AS score,
       mm.server_breakdown(r.signals, r.signal_scores) AS breakdown
FROM mm.rank_servers('fin', '{"age": 20, "language": "en", "voice_chat": true, "play_history": 1}') r;
-- with an estimate for eu only: us scores 0, as a server without a region would
SELECT r.server_id = :f1 AS is_f1, r.signal_scores[array_position(r.signals, 'latency')] AS latency
FROM mm.rank_servers('fin', '{"latency": {"eu": 50}}') r ORDER BY r.server_id;
-- nothing known about the player: join_server still places him (0.1.0 refused)
SELECT mm.join_server('fin', 502, '{}') = :f1 AS joined_f1;
-- a custom signal's attribute is still required (a typo is not silently 0)
SELECT mm.set_place_config('fin_custom', '{"signals": {"mode": {"kind": "server_categorical_joining", "weight": 1, "attribute": "GameMode"}}}');
SELECT * FROM mm.rank_servers('fin_custom', '{}');
\echo :LAST_ERROR_SQLSTATE

-- The signals and weights a place scores with.
SELECT * FROM mm.place_signals('fin');
SELECT * FROM mm.place_signals('fin_custom');
SELECT mm.set_place_config('fin_voice', '{"voice_chat": false, "include_defaults": false, "signals": {"occupancy": {"weight": 5}, "voice_chat": {"weight": 2}, "latency": {"weight": 0}}}');
SELECT * FROM mm.place_signals('fin_voice');

-- The weighted breakdown: each signal's score, weight and weighted score;
-- the weighted scores sum to the server's score.
SELECT r.server_id = :f1 AS is_f1,
       mm.server_breakdown_weighted('fin', r.signals, r.signal_scores) -> 'occupancy' AS occupancy,
       abs((SELECT sum((v ->> 'weighted')::float8)
            FROM jsonb_each(mm.server_breakdown_weighted('fin', r.signals, r.signal_scores)) e(k, v))
           - r.score) < 1e-12 AS sums_to_score
FROM mm.rank_servers('fin', '{"age": 20, "language": "en", "latency": {"eu": 50, "us": 100}}') r;
SELECT mm.server_breakdown_weighted('fin', '{}', '{}') AS empty;
SELECT mm.server_breakdown_weighted('fin', '{occupancy}', '{0.5, 1}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.server_breakdown_weighted('fin', '{occupancy}', '{NaN}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.server_breakdown_weighted('fin', '{occupancy}', '{Infinity}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.server_breakdown_weighted('fin', '{occupancy}', '{NULL}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.server_breakdown_weighted('fin', '{device_type}', '{1}');
\echo :LAST_ERROR_SQLSTATE

-- Updating a seated player: the given keys replace his, null removes one,
-- and the server's aggregates follow.
SELECT mm.set_player_attributes(501, '{"age": 30, "language": null, "guild": "Red"}') AS updated;
SELECT attributes FROM mm.server_players WHERE player_id = 501;
SELECT occupancy, age_n, age_sum, stats -> 'language' AS language, stats -> 'guild' AS guild
FROM mm.servers WHERE server_id = :f1;
SELECT mm.set_player_attributes(999, '{"age": 1}') AS unseated;
SELECT mm.set_player_attributes(501, '[1]');
\echo :LAST_ERROR_SQLSTATE

-- Parties: all members on one server with room for all of them, or none.
SELECT mm.add_server('party', 3) AS p1 \gset
SELECT mm.add_server('party', 5) AS p2 \gset
SELECT mm.set_place_config('party', '{"include_defaults": false, "signals": {"occupancy": {"weight": 1}}}');
SELECT mm.place_player(:p1, 600, '{}');
-- p1 ranks first (fuller) but has 2 free slots: a party of 3 goes to p2
SELECT mm.join_party('party', '{601, 602, 603}',
                     ARRAY['{"age": 10}', '{"age": 20}', '{}']::jsonb[]) = :p2 AS joined_p2;
SELECT s.server_id = :p2 AS is_p2, s.occupancy, s.age_n, s.age_sum,
       (SELECT array_agg(p.player_id ORDER BY p.player_id) FROM mm.server_players p WHERE p.server_id = s.server_id) AS players
FROM mm.servers s WHERE s.place = 'party' ORDER BY s.server_id;
-- p2 (3 of 5) now ranks first and has room for a party of 2
SELECT mm.join_party('party', '{604, 605}') = :p2 AS joined_p2_again;
-- no server with room for 3: NULL, nobody placed
SELECT mm.join_party('party', '{606, 607, 608}') IS NULL AS no_room;
SELECT count(*) AS placed FROM mm.server_players WHERE player_id IN (606, 607, 608);
-- a member already seated: an error, nothing changes (terse: the detail
-- names the server id)
\set VERBOSITY terse
SELECT mm.join_party('party', '{609, 601}');
\set VERBOSITY default
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) AS placed FROM mm.server_players WHERE player_id = 609;
SELECT mm.join_party('party', '{}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.join_party('party', '{610, 610}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.join_party('party', '{610, NULL}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.join_party('party', '{610, 611}', ARRAY['{}']::jsonb[]);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.join_party(NULL, '{610}');
\echo :LAST_ERROR_SQLSTATE

-- Removing a server removes its players; joiners go elsewhere.
SELECT mm.remove_server(:p2) AS removed, mm.remove_server(:p2) AS again;
SELECT count(*) AS left_on_p2 FROM mm.server_players WHERE player_id IN (601, 602, 603);
SELECT mm.join_party('party', '{601, 602, 603}') IS NULL AS p1_too_small;
SELECT mm.add_server('party', 8) AS p3 \gset
SELECT mm.join_party('party', '{601, 602, 603}') = :p3 AS joined_p3;

DELETE FROM mm.servers WHERE place IN ('fin', 'party');
DELETE FROM mm.place_configs WHERE place IN ('fin_custom', 'fin_voice', 'party');
