-- Roles, the roles and party rules, and soft rules: the players' roles
-- given at enqueue and checked against the queue's declared roles; a team
-- is populated only with rosters whose roles it can still take; a
-- premade meets teams of parties; soft distance and latency rules score
-- instead of filtering. mm.explain names the blocking rule and when its
-- expansion relaxes it, the tick log counts failed targets per rule.
\set VERBOSITY terse
SET timezone = 'UTC';

-- Config: roles and the new rules are rendered complete; mistakes are refused.
SELECT mm.matcher_config('{}') -> 'roles' AS roles;
SELECT jsonb_pretty(mm.matcher_config($${"roles": ["tank", "damage", "support"],
    "attributes": {"skill": {"type": "number", "default": 0}},
    "rules": [{"type": "roles", "counts": {"tank": 1, "damage": 2, "support": 2}, "expand": [{"after": "1 minute", "flex": 5}]},
              {"type": "party", "min": 3, "expand": [{"after": 90, "min": 0}]},
              {"type": "distance", "attribute": "skill", "soft": true, "weight": 2},
              {"type": "latency", "soft": true, "weight": 0.5}]}$$)
       - ARRAY['filter', 'scoring', 'rating', 'prediction']);
SELECT mm.matcher_config('{"roles": ["tank", "tank"]}');
SELECT mm.matcher_config('{"roles": ["tank", ""]}');
SELECT mm.matcher_config('{"roles": "tank"}');
SELECT mm.matcher_config('{"rules": [{"type": "roles", "counts": {"tank": 1}}]}');
SELECT mm.matcher_config('{"roles": ["tank"], "rules": [{"type": "roles"}]}');
SELECT mm.matcher_config('{"roles": ["tank"], "rules": [{"type": "roles", "counts": {"healer": 1}}]}');
SELECT mm.matcher_config('{"roles": ["tank"], "rules": [{"type": "roles", "counts": {"tank": 6}}]}');
SELECT mm.matcher_config('{"roles": ["tank"], "rules": [{"type": "roles", "counts": {"tank": 1.5}}]}');
SELECT mm.matcher_config('{"roles": ["tank"], "rules": [{"type": "roles", "counts": {"tank": 1}, "expand": [{"after": 10, "max": 1}]}]}');
SELECT mm.matcher_config('{"roles": ["tank"], "rules": [{"type": "roles", "counts": {"tank": 1}, "flex": 2, "expand": [{"after": 10, "flex": 1}]}]}');
SELECT mm.matcher_config('{"rules": [{"type": "party"}]}');
SELECT mm.matcher_config('{"rules": [{"type": "party", "min": 6}]}');
SELECT mm.matcher_config('{"rules": [{"type": "party", "min": 2, "premade": 9}]}');
SELECT mm.matcher_config('{"rules": [{"type": "party", "min": 2, "expand": [{"after": 10, "min": 3}]}]}');
SELECT mm.matcher_config('{"rules": [{"type": "latency", "max": 50, "premade": 2}]}');
SELECT mm.matcher_config('{"attributes": {"m": {"type": "string"}}, "rules": [{"type": "equal", "attribute": "m", "soft": true}]}');
SELECT mm.matcher_config('{"rules": [{"type": "latency", "max": 50, "weight": 2}]}');
SELECT mm.matcher_config('{"rules": [{"type": "latency", "soft": true, "max": 50}]}');
SELECT mm.matcher_config('{"rules": [{"type": "latency", "soft": true, "expand": [{"after": 10, "max": 60}]}]}');

-- Roles are checked at enqueue (both forms): declared roles, one per player or none.
SELECT mm.create_queue('rl_rq', $${"team_size": 5, "roles": ["tank", "damage", "support"],
    "filter": {"potentials_min": 0, "padding": 1000, "padding_start": 0},
    "scoring": {"rating_distance": -5},
    "rules": [{"type": "roles", "counts": {"tank": 1, "damage": 2, "support": 2}}]}$$);
SELECT mm.enqueue('rl_rq', ARRAY[8800001, 8800002], 1500, roles => '{tank,healer}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue((SELECT queue_id FROM mm.queue WHERE name = 'rl_rq'), ARRAY[8800001], 1500, roles => '{healer}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.enqueue('rl_rq', ARRAY[8800001, 8800002], 1500, roles => '{tank}');
SELECT mm.enqueue('rl_rq', ARRAY[8800001], 1500, roles => '{NULL}');
SELECT mm.enqueue('rl_rq', ARRAY[8800001], 1500, roles => NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.create_queue('rl_plain', '{"team_size": 1}');
SELECT mm.enqueue('rl_plain', ARRAY[8800001], 1500, roles => '{tank}');
SELECT count(*) AS nothing_queued FROM mm.roster r JOIN mm.queue q USING (queue_id) WHERE q.name LIKE 'rl\_%';

-- Populate: the party of two supports (roster 3) fits blue, not red.
--   red holds the target [tank, support, support] (1400); blue, populated
--   first, takes [tank, damage, damage] (1600: perfect fit). Red, lower on
--   average, picks next: the two supports score best there (a party of 2
--   against a largest roster of 3), but red with them would have four
--   supports and no damage, and no seat left for the two it needs; so red
--   takes the two damage solos, and the supports complete blue. Without
--   the rule (queue nq, same rosters) red takes the supports.
SELECT mm.create_queue('rl_nq', $${"team_size": 5, "roles": ["tank", "damage", "support"],
    "filter": {"potentials_min": 0, "padding": 1000, "padding_start": 0},
    "scoring": {"rating_distance": -5}}$$);
CREATE TEMP TABLE ids (q text, k int, roster_id bigint);
INSERT INTO ids
SELECT q, k, mm.enqueue(q, p, r, joined_at => '2024-01-01 12:00+00', roles => ro)
FROM (VALUES ('rl_rq'), ('rl_nq')) AS v(q),
     (VALUES (1, ARRAY[8800001, 8800002, 8800003], 1400, '{tank,support,support}'::text[]),
             (2, ARRAY[8800004, 8800005, 8800006], 1600, '{tank,damage,damage}'),
             (3, ARRAY[8800007, 8800008], 1500, '{support,support}'),
             (4, ARRAY[8800009], 1500, '{damage}'),
             (5, ARRAY[8800010], 1500, '{damage}')) AS w(k, p, r, ro)
WHERE v.q = 'rl_rq' ORDER BY k;
SELECT i.k, l.players, l.roles FROM mm.list_queue('rl_rq') l JOIN ids i USING (roster_id) ORDER BY l.place;
SELECT (SELECT i.k FROM ids i WHERE i.roster_id = t.roster_id) AS k, team
FROM mm.tick('rl_rq', '2024-01-01 12:00:10+00') t ORDER BY team DESC, k;
-- the same rosters (other players) in nq
INSERT INTO ids
SELECT 'rl_nq', k, mm.enqueue('rl_nq', p, r, joined_at => '2024-01-01 12:00+00', roles => ro)
FROM (VALUES (1, ARRAY[8800101, 8800102, 8800103], 1400, '{tank,support,support}'::text[]),
             (2, ARRAY[8800104, 8800105, 8800106], 1600, '{tank,damage,damage}'),
             (3, ARRAY[8800107, 8800108], 1500, '{support,support}'),
             (4, ARRAY[8800109], 1500, '{damage}'),
             (5, ARRAY[8800110], 1500, '{damage}')) AS w(k, p, r, ro)
ORDER BY k;
SELECT (SELECT i.k FROM ids i WHERE i.roster_id = t.roster_id AND i.q = 'rl_nq') AS k, team
FROM mm.tick('rl_nq', '2024-01-01 12:00:10+00') t ORDER BY team DESC, k;

-- The filter: a party that no team could take is no potential; a target
-- whose own roles no team can take finds none, and explain names the rule.
SELECT mm.create_queue('rl_rq3', $${"team_size": 3, "roles": ["tank", "damage", "support"],
    "filter": {"potentials_min": 0, "padding": 1000, "padding_start": 0},
    "rules": [{"type": "roles", "counts": {"tank": 1, "damage": 1, "support": 1},
               "expand": [{"after": 60, "flex": 1}, {"after": 120, "flex": 3}]}]}$$);
SELECT mm.enqueue('rl_rq3', ARRAY[8800021, 8800022], 1500, joined_at => '2024-01-01 12:00+00', roles => '{tank,tank}') AS tt \gset
SELECT mm.enqueue('rl_rq3', ARRAY[8800023], 1500, joined_at => '2024-01-01 12:00+00', roles => '{damage}') AS d1 \gset
SELECT mm.enqueue('rl_rq3', ARRAY[8800024], 1500, joined_at => '2024-01-01 12:00+00', roles => '{damage}') AS d2 \gset
SELECT mm.enqueue('rl_rq3', ARRAY[8800025], 1500, joined_at => '2024-01-01 12:00+00', roles => '{support}') AS s1 \gset
SELECT mm.enqueue('rl_rq3', ARRAY[8800026], 1500, joined_at => '2024-01-01 12:00+00', roles => '{damage}') AS d3 \gset
SELECT outcome, potentials, detail FROM mm.explain(:tt, '2024-01-01 12:00:30+00');
SELECT outcome, potentials, detail FROM mm.explain(:d1, '2024-01-01 12:00:30+00');
SELECT count(*) FROM mm.tick('rl_rq3', '2024-01-01 12:00:30+00');
SELECT targets_failed, failed_reasons FROM mm.tick_log l JOIN mm.queue q USING (queue_id)
WHERE q.name = 'rl_rq3' ORDER BY tick_id DESC LIMIT 1;
-- after 60 s one seat of a team takes any role: the two tanks may share a
-- team (the support it lacks is the flex seat), the damage players fill the
-- other team with the support (lacking a tank: its flex seat)
SELECT outcome, detail FROM mm.explain(:tt, '2024-01-01 12:01:10+00');
CREATE TEMP TABLE made AS SELECT * FROM mm.tick('rl_rq3', '2024-01-01 12:01:10+00');
SELECT mr.players, t.team FROM made t JOIN mm.match_roster mr USING (match_id, roster_id)
ORDER BY t.team DESC, mr.players;

-- party: a full premade (3 players) meets only teams with at least 2
-- players in parties, until 60 s, when any team does.
SELECT mm.create_queue('rl_pq', $${"team_size": 3,
    "filter": {"potentials_min": 0, "padding": 1000, "padding_start": 0},
    "rules": [{"type": "party", "min": 2, "expand": [{"after": 60, "min": 0}]}]}$$);
SELECT mm.enqueue('rl_pq', ARRAY[8800031, 8800032, 8800033], 1500, joined_at => '2024-01-01 12:00+00') AS pre \gset
SELECT mm.enqueue('rl_pq', ARRAY[8800034], 1500, joined_at => '2024-01-01 12:00+00') AS s1 \gset
SELECT mm.enqueue('rl_pq', ARRAY[8800035], 1500, joined_at => '2024-01-01 12:00+00') AS s2 \gset
SELECT mm.enqueue('rl_pq', ARRAY[8800036], 1500, joined_at => '2024-01-01 12:00+00') AS s3 \gset
SELECT outcome, detail FROM mm.explain(:pre, '2024-01-01 12:00:30+00');
SELECT count(*) FROM mm.tick('rl_pq', '2024-01-01 12:00:30+00');
SELECT failed_reasons FROM mm.tick_log l JOIN mm.queue q USING (queue_id)
WHERE q.name = 'rl_pq' ORDER BY tick_id DESC LIMIT 1;
-- a party of two joins: the premade meets it and a solo
SELECT mm.enqueue('rl_pq', ARRAY[8800037, 8800038], 1500, joined_at => '2024-01-01 12:00+00') AS duo \gset
SELECT roster_id = :pre AS premade, roster_id = :duo AS duo, team
FROM mm.tick('rl_pq', '2024-01-01 12:00:40+00') ORDER BY team DESC, roster_id;
-- a new premade and three solos: only after 60 s of the premade's wait
SELECT count(mm.leave(roster_id)) FROM mm.list_queue('rl_pq');
SELECT mm.enqueue('rl_pq', ARRAY[8800041, 8800042, 8800043], 1500, joined_at => '2024-01-01 12:00:40+00') AS pre2 \gset
SELECT count(mm.enqueue('rl_pq', ARRAY[p], 1500, joined_at => '2024-01-01 12:00:40+00')) FROM generate_series(8800044, 8800046) p;
SELECT count(*) FROM mm.tick('rl_pq', '2024-01-01 12:01:00+00');
SELECT roster_id = :pre2 AS premade, team FROM mm.tick('rl_pq', '2024-01-01 12:01:45+00') ORDER BY team DESC, roster_id;

-- Soft rules: scored, never filtered. team_size 1; the first potential
-- scores as well as the second by GW2's scoring and wins the tie, unless a
-- soft rule prefers the other.
SELECT mm.create_queue('rl_sq', $${"team_size": 1, "filter": {"potentials_min": 0},
    "attributes": {"skill": {"type": "number", "default": 0}},
    "rules": [{"type": "distance", "attribute": "skill", "soft": true, "weight": 100}]}$$);
SELECT mm.create_queue('rl_hq', $${"team_size": 1, "filter": {"potentials_min": 0},
    "attributes": {"skill": {"type": "number", "default": 0}}}$$);
SELECT count(mm.enqueue(q, ARRAY[b + k], 1500, joined_at => '2024-01-01 12:00+00', attributes => a))
FROM (VALUES ('rl_sq', 8800050), ('rl_hq', 8800060)) v(q, b),
     (VALUES (1, '{"skill": 0}'::jsonb), (2, '{"skill": 5}'), (3, '{"skill": 1}')) w(k, a);
-- sq: the target (skill 0) meets skill 1; hq, without the rule: skill 5, the first
TRUNCATE made;
INSERT INTO made SELECT * FROM mm.tick('rl_sq', '2024-01-01 12:00:05+00');
INSERT INTO made SELECT * FROM mm.tick('rl_hq', '2024-01-01 12:00:05+00');
SELECT q.name, mr.players, t.team FROM made t JOIN mm.match_roster mr USING (match_id, roster_id)
JOIN mm.queue q ON q.queue_id = mr.queue_id ORDER BY q.name DESC, t.team DESC;
-- soft latency: the lower worst latency wins, and the match is played
-- where it is; a roster sharing no region with the match is still a potential
SELECT mm.create_queue('rl_lq', $${"team_size": 1, "filter": {"potentials_min": 0},
    "rules": [{"type": "latency", "soft": true, "weight": 1}]}$$);
SELECT mm.enqueue('rl_lq', ARRAY[8800071], 1500, joined_at => '2024-01-01 12:00+00', latencies => '{"eu": 20, "us": 100}'),
       mm.enqueue('rl_lq', ARRAY[8800072], 1500, joined_at => '2024-01-01 12:00+00', latencies => '{"eu": 200, "us": 90}'),
       mm.enqueue('rl_lq', ARRAY[8800073], 1500, joined_at => '2024-01-01 12:00+00', latencies => '{"eu": 30, "us": 300}'),
       mm.enqueue('rl_lq', ARRAY[8800074], 1500, joined_at => '2024-01-01 12:00+00', latencies => '{"asia": 10}'),
       mm.enqueue('rl_lq', ARRAY[8800075], 1500, joined_at => '2024-01-01 12:00+00', latencies => '{"asia": 500}');
TRUNCATE made;
INSERT INTO made SELECT * FROM mm.tick('rl_lq', '2024-01-01 12:00:05+00');
SELECT mr.players, t.team, m.region FROM made t
JOIN mm.match_roster mr USING (match_id, roster_id) JOIN mm.match m USING (match_id)
ORDER BY t.match_id, t.team DESC;

-- mm.match_rosters reads a roles column too, refusing undeclared roles
SELECT match_no, team, roster_id FROM mm.match_rosters(
    $$SELECT * FROM (VALUES (1, ARRAY[1], 1500, '{tank}'::text[]), (2, ARRAY[2], 1500, '{tank}'),
                            (3, ARRAY[3], 1500, '{damage}'), (4, ARRAY[4], 1500, '{damage}'))
      AS v(roster_id, players, rating, roles)$$,
    '{"team_size": 2, "filter": {"potentials_min": 0}, "roles": ["tank", "damage"],
      "rules": [{"type": "roles", "counts": {"tank": 1, "damage": 1}}]}') ORDER BY match_no, team DESC, roster_id;
SELECT count(*) FROM mm.match_rosters($$SELECT 1 AS roster_id, ARRAY[1] AS players, 1500 AS rating, '{healer}'::text[] AS roles$$,
    '{"team_size": 1, "roles": ["tank"]}');

-- mm.update_roster changes a waiting roster's roles (checked as at enqueue:
-- declared roles, one per player or none; '{}' clears them), its attributes
-- (checked, defaults filled in) and latencies. The roster keeps its place.
SELECT mm.create_queue('rl_up', $${"team_size": 2, "roles": ["tank", "damage"],
    "attributes": {"mode": {"type": "string", "required": true}, "tier": {"type": "number", "default": 1}},
    "filter": {"potentials_min": 0},
    "rules": [{"type": "roles", "counts": {"tank": 1, "damage": 1}},
              {"type": "equal", "attribute": "mode"},
              {"type": "latency", "max": 50}]}$$);
SELECT mm.enqueue('rl_up', ARRAY[8800081, 8800082], 1500, joined_at => '2024-01-01 12:00+00',
                  roles => '{tank,tank}', attributes => '{"mode": "ctf"}', latencies => '{"eu": 20}') AS up \gset
SELECT mm.enqueue('rl_up', ARRAY[8800083, 8800084], 1500, joined_at => '2024-01-01 12:00:01+00',
                  roles => '{damage,damage}', attributes => '{"mode": "ctf"}', latencies => '{"eu": 30}') AS up2 \gset
-- two tanks and two damage players cannot make two teams of a tank and a damage
-- player (a party stays on one team): no match
SELECT count(*) AS matched FROM mm.preview('rl_up', '2024-01-01 12:00:10+00');
-- refused, nothing changed
SELECT mm.update_roster(:up, roles => '{tank,healer}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.update_roster(:up, roles => '{tank}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.update_roster(:up, roles => '{tank,NULL}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.update_roster(:up, attributes => '{"mode": 3}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.update_roster(:up, attributes => '{"colour": "red"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.update_roster(:up, attributes => '{"tier": 2}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.update_roster(:up, latencies => '{}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.update_roster(:up, latencies => '{"eu": -1}');
\echo :LAST_ERROR_SQLSTATE
SELECT place, players, roles, attributes, latencies FROM mm.list_queue('rl_up') ORDER BY place;
-- a tank becomes a damage player: each party is now a tank and a damage
-- player, and the two make a match
SELECT mm.update_roster(:up, roles => '{tank,damage}') AS updated;
SELECT mm.update_roster(:up2, roles => '{tank,damage}', attributes => '{"mode": "ctf", "tier": 3}',
                        latencies => '{"eu": 40, "us": 10}') AS updated;
SELECT place, players, roles, attributes, latencies FROM mm.list_queue('rl_up') ORDER BY place;
SELECT count(*) AS matched FROM mm.preview('rl_up', '2024-01-01 12:00:10+00');
-- another mode: the equal rule keeps them apart
SELECT mm.update_roster(:up2, attributes => '{"mode": "koth"}') AS updated;
SELECT attributes FROM mm.list_queue('rl_up') ORDER BY place;
SELECT count(*) AS matched FROM mm.preview('rl_up', '2024-01-01 12:00:10+00');
-- roles '{}' clears them; after mm.remove_player the roles and professions
-- go to the players left in party order
SELECT mm.update_roster(:up2, roles => '{}', attributes => '{"mode": "ctf"}') AS updated;
SELECT players, roles FROM mm.list_queue('rl_up') ORDER BY place;
SELECT mm.remove_player(:up, 8800081);
SELECT mm.update_roster(:up, roles => '{damage}', professions => '{thief}') AS updated;
SELECT players, roles, professions FROM mm.list_queue('rl_up') ORDER BY place;
SELECT mm.update_roster(:up, roles => '{damage,tank}');
\echo :LAST_ERROR_SQLSTATE
-- a roster that is not waiting: false, but a bad value is still an error
SELECT mm.update_roster(-1, roles => '{tank}') AS updated;
SELECT mm.update_roster(-1, rating => 'NaN');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.drop_queue('rl_up', keep_history => false);
