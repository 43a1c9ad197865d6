-- mm.match_rosters against the Guild Wars 2 wiki's pseudo-code ported literally to
-- PL/pgSQL (test/bench/matcher/port.sql, the benchmark's baseline): the
-- same matches, the same teams, the same failed targets, on random queues
-- under several configs, with the GW2 wiki's teams ("split": "gw2"). With
-- the default split (the fairest of the chosen rosters) the matches hold
-- the same rosters and the same targets fail; only the teams may differ,
-- and no match's favourite is above the port's.
\set VERBOSITY default
SET timezone = 'UTC';
\set ECHO none
\i test/bench/matcher/port.sql
\set ECHO all

CREATE TEMP TABLE r (pos int, roster_id bigint, players bigint[], rating float8, deviation float8,
    rank float8, ladder_points float8, dishonor int, professions text[], joined_at timestamptz);

-- A random queue of n rosters (parties of 1..max_party), seeded.
CREATE FUNCTION fill(n int, max_party int, seed float8) RETURNS void LANGUAGE sql AS $$
    SELECT setseed(seed);
    TRUNCATE r;
    INSERT INTO r
    SELECT i, 1000 + i, (SELECT array_agg(i * 10 + k)::bigint[] FROM generate_series(1, s) k), round(1500 + 250 * (random() + random() + random() - 1.5)),
           round(30 + 120 * random()), floor(random() * 40), floor(random() * 100),
           CASE WHEN random() < 0.15 THEN floor(random() * 20)::int ELSE 0 END,
           (SELECT array_agg((ARRAY['guardian','warrior','thief','ranger','engineer','necromancer','mesmer','elementalist','revenant'])[1 + floor(random() * 9)::int]) FROM generate_series(1, s)),
           '2024-01-01 00:00:00+00'::timestamptz + floor(random() * 300) * interval '1 second'
    FROM generate_series(1, n) i, LATERAL (SELECT i AS i2, 1 + floor(random() * max_party)::int AS s) s;
$$;

-- Compare the C matcher (search and scan) with the port under a config as
-- given, with GW2's teams; then the C matcher with the fairest split: the
-- same rosters in each match and the same failed targets as the port
-- (same_matches), in teams whose favourite is never above the port's teams'
-- (never_less_fair), the favourite being the likelier team by the odds
-- mm.match_rosters gives.
CREATE FUNCTION compare_as_given(config jsonb, at timestamptz DEFAULT '2024-01-01 00:04:00+00')
RETURNS TABLE (matched bigint, failed bigint, c_equals_port boolean, scan_equals_port boolean,
               same_matches boolean, never_less_fair boolean, fairer bigint)
LANGUAGE sql AS $$
    WITH gw2 AS (SELECT mm._jsonb_merge(config, '{"split": "gw2"}') AS config),
         port AS (SELECT * FROM gw2_port.match_rosters('SELECT * FROM r ORDER BY pos', config, at)),
         c AS (SELECT coalesce(match_no, failed_no), roster_id, coalesce(team, 'failed')
               FROM gw2, mm._match_rosters('SELECT * FROM r ORDER BY pos', gw2.config, at)),
         scan AS (SELECT coalesce(match_no, failed_no), roster_id, coalesce(team, 'failed')
                  FROM gw2, mm._match_rosters('SELECT * FROM r ORDER BY pos', gw2.config, at, true)),
         fair AS (SELECT coalesce(match_no, failed_no), roster_id, team IS NULL AS failed
                  FROM mm._match_rosters('SELECT * FROM r ORDER BY pos', mm._jsonb_merge(config, '{"split": "fairest"}'), at)),
         port_members AS (SELECT match_no, roster_id, team = 'failed' AS failed FROM port),
         fav AS (SELECT f.match_no, f.favourite AS fairest, g.favourite AS gw2
                 FROM (SELECT match_no, max(odds) AS favourite
                       FROM mm.match_rosters('SELECT * FROM r ORDER BY pos', mm._jsonb_merge(config, '{"split": "fairest"}'), at)
                       GROUP BY match_no) f
                 JOIN (SELECT match_no, max(odds) AS favourite
                       FROM gw2, mm.match_rosters('SELECT * FROM r ORDER BY pos', gw2.config, at)
                       GROUP BY match_no) g USING (match_no))
    SELECT (SELECT count(DISTINCT match_no) FROM port WHERE team <> 'failed'),
           (SELECT count(*) FROM port WHERE team = 'failed'),
           NOT EXISTS (SELECT * FROM c EXCEPT SELECT * FROM port) AND NOT EXISTS (SELECT * FROM port EXCEPT SELECT * FROM c),
           NOT EXISTS (SELECT * FROM scan EXCEPT SELECT * FROM port) AND NOT EXISTS (SELECT * FROM port EXCEPT SELECT * FROM scan),
           NOT EXISTS (SELECT * FROM fair EXCEPT SELECT * FROM port_members)
               AND NOT EXISTS (SELECT * FROM port_members EXCEPT SELECT * FROM fair),
           (SELECT bool_and(fairest <= gw2 + 1e-12) FROM fav),
           (SELECT count(*) FROM fav WHERE fairest < gw2 - 1e-12)
$$;

-- Compare the C matcher (search and scan) with the port under a config;
-- the ratings are on the Glicko scale, so the queue's rating model is
-- glicko2 with the GW2 wiki's range of one deviation unless the config
-- says otherwise.
CREATE FUNCTION compare(config jsonb, at timestamptz DEFAULT '2024-01-01 00:04:00+00')
RETURNS TABLE (matched bigint, failed bigint, c_equals_port boolean, scan_equals_port boolean,
               same_matches boolean, never_less_fair boolean, fairer bigint)
LANGUAGE sql AS $$
    SELECT * FROM compare_as_given(mm._jsonb_merge('{"rating": {"model": "glicko2"}, "filter": {"deviations": 1}}', config), at)
$$;

-- 5v5, parties of 1..5, the GW2 wiki's scoring
SELECT fill(200, 5, 0.1);
SELECT * FROM compare('{"filter": {"rosters": 200, "potentials_min": 10, "potentials_max": 60, "limit": 600000}}');
-- another queue, later (more padding), potentials_min null: 4 team_size, the GW2 wiki's 20 at 5v5
SELECT fill(200, 5, 0.2);
SELECT * FROM compare('{"filter": {"rosters": 200, "potentials_max": 60, "limit": 600000}}', '2024-01-01 00:06:00+00');
-- 3v3, parties of 1..3, professions over the whole match, ladder scored
SELECT fill(150, 3, 0.3);
SELECT * FROM compare('{"team_size": 3, "filter": {"rosters": 150, "potentials_min": 5, "potentials_max": 40, "limit": 600000}, "scoring": {"type": "match", "ladder_distance": -1, "profession_max": 1}}');
-- 2v2 solos and duos, narrow padding, strong dishonor weights
SELECT fill(150, 2, 0.4);
SELECT * FROM compare('{"team_size": 2, "filter": {"rosters": 100, "potentials_min": 3, "potentials_max": 30, "padding": 1, "limit": 600000}, "scoring": {"dishonor_distance": -1000, "age": 1}}');

-- the defaults of the default model (OpenSkill: deviations 2, padding 0.25,
-- rating_distance -200 and spread 5 from mm.rating_scales) on the same queue: the port reads
-- the null keys as the C matcher does
SELECT * FROM compare_as_given('{"filter": {"rosters": 200, "potentials_max": 60, "limit": 600000}}', '2024-01-01 00:06:00+00');

DROP FUNCTION compare(jsonb, timestamptz);
DROP FUNCTION compare_as_given(jsonb, timestamptz);
DROP FUNCTION fill(int, int, float8);
DROP TABLE r;
DROP SCHEMA gw2_port CASCADE;
