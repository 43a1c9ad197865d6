-- Data a database with mm 0.2.0 holds before its server is upgraded
-- (test/suites/server_upgrade.sh): queues with waiting rosters, matches in
-- every state (proposed in a ready check, matched, claimed, dissolved,
-- finished, abandoned, backfilled), reported results in each rating family
-- with their history, a pending Glicko-2 rating period and a closed one,
-- ladder points and dishonor, an async pool and placement servers.
-- Times are fixed (January 2026) except the ready check's, which
-- mm.accept compares with now(). Written against the 0.2.0 API only.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;

-- OpenSkill 2v2, Glicko-2 with rating periods, Elo 1v1 and a 3-team queue
SELECT mm.create_queue('arena', '{"team_size": 2, "filter": {"potentials_min": 1},
    "rating": {"model": "openskill", "key": "arena"}}');
SELECT mm.create_queue('duel', '{"team_size": 1, "filter": {"potentials_min": 1},
    "requeue_while_in_match": false,
    "rating": {"model": "glicko2", "key": "duel", "period": "pending", "ladder": false}}');
SELECT mm.create_queue('elo', '{"team_size": 1, "filter": {"potentials_min": 1},
    "rating": {"model": "elo", "key": "elo"}}');
SELECT mm.create_queue('trio', '{"teams": 3, "team_size": 1, "filter": {"potentials_min": 1},
    "rating": {"model": "elo", "key": "trio"}}');
SELECT mm.create_queue('ready', '{"team_size": 1, "accept_timeout": "1 hour",
    "filter": {"potentials_min": 1}, "rating": {"key": "ready"}}');

-- three rounds of games in each queue, reported; ids and times fixed
CREATE TEMP TABLE round_at (round int, at timestamptz);
INSERT INTO round_at SELECT r, '2026-01-01 12:00+00'::timestamptz + r * interval '10 minutes'
FROM generate_series(1, 3) r;

DO $$
DECLARE
    r record;
    m bigint;
    n int := 0;
BEGIN
    FOR r IN SELECT * FROM round_at ORDER BY round LOOP
        PERFORM mm.enqueue('arena', ARRAY[1000 + 2 * p, 1001 + 2 * p]::bigint[], 25 + p % 3, 8,
                           joined_at => r.at - interval '2 minutes')
        FROM generate_series(1, 4) p;
        PERFORM mm.enqueue('duel', ARRAY[2000 + p]::bigint[], 1500 + 10 * p, 200,
                           joined_at => r.at - interval '2 minutes')
        FROM generate_series(1, 6) p;
        PERFORM mm.enqueue('elo', ARRAY[3000 + p]::bigint[], 1500 + 5 * p,
                           joined_at => r.at - interval '2 minutes')
        FROM generate_series(1, 4) p;
        PERFORM mm.enqueue('trio', ARRAY[4000 + p]::bigint[], 1500 + 7 * p,
                           joined_at => r.at - interval '2 minutes')
        FROM generate_series(1, 3) p;
        PERFORM mm.tick(q, r.at) FROM unnest(ARRAY['arena', 'duel', 'elo', 'trio']) q;
        -- every match of the round reported: red (or the first team) wins,
        -- except one abandoned match per round
        FOR m IN SELECT match_id FROM mm.match WHERE status = 'matched' ORDER BY match_id LOOP
            n := n + 1;
            IF n % 7 = 0 THEN
                PERFORM mm.abandon_match(m);
            ELSE
                PERFORM mm.report_result(m, (SELECT jsonb_build_object('teams',
                            jsonb_object_agg(t.name, jsonb_build_object('rank', t.i)))
                        FROM mm.match x, unnest(x.teams) WITH ORDINALITY t(name, i)
                        WHERE x.match_id = m));
            END IF;
        END LOOP;
        -- the Glicko-2 rating period of the first two rounds closes; the
        -- third round's games stay pending
        IF r.round = 2 THEN
            PERFORM mm.close_rating_period('duel');
        END IF;
    END LOOP;
END
$$;

-- a match claimed by a game server and not reported yet; a backfill asked
-- for one of its teams
SELECT mm.enqueue('arena', ARRAY[1100 + p, 1150 + p]::bigint[], 26, 8,
                  joined_at => '2026-01-01 12:40+00')
FROM generate_series(1, 2) p;
SELECT count(*) FROM mm.tick('arena', '2026-01-01 12:42+00');
SELECT count(*) FROM mm.claim_matches('arena');
SELECT mm.request_backfill(max(match_id), 'red', 1) IS NOT NULL AS backfill_requested
FROM mm.match WHERE status = 'matched';

-- a ready check: one match proposed and waiting, one accepted by both, one
-- declined (dissolved, the decliner dishonored)
SELECT mm.enqueue('ready', ARRAY[p]::bigint[], 1500 + p, 30, joined_at => now() - interval '1 minute')
FROM generate_series(5001, 5006) p;
SELECT count(*) FROM mm.tick('ready');
SELECT mm.accept(mr.match_id, p)
FROM mm.match_roster mr, unnest(mr.players) p
WHERE mr.match_id = (SELECT min(match_id) FROM mm.match WHERE status = 'proposed')
ORDER BY p;
SELECT mm.decline(mr.match_id, mr.players[1])
FROM mm.match_roster mr
WHERE mr.match_id = (SELECT max(match_id) FROM mm.match WHERE status = 'proposed')
ORDER BY mr.roster_id LIMIT 1;

-- rosters still waiting in each queue (the suite's continuation matches them)
SELECT mm.enqueue('arena', ARRAY[1200 + 2 * p, 1201 + 2 * p]::bigint[], 25, 8,
                  joined_at => '2026-01-01 12:50+00')
FROM generate_series(1, 3) p;
SELECT mm.enqueue('duel', ARRAY[2000 + p]::bigint[], NULL, joined_at => '2026-01-01 12:50+00')
FROM generate_series(1, 5) p;
SELECT mm.enqueue('elo', ARRAY[3000 + p]::bigint[], NULL, joined_at => '2026-01-01 12:50+00')
FROM generate_series(1, 3) p;

-- dishonor, an async pool, placement servers
SELECT mm.set_dishonor_config('{"stack_duration": "10m"}');
SELECT mm.dishonor(6000, 'abandon', '2026-01-01 12:00+00');
SELECT mm.create_pool('ladder', '{"mmr_bucket_count": 8}');
SELECT mm.put_entry('ladder', p, 1000 + 25 * p, '{eu}', jsonb_build_object('deck', p % 5))
FROM generate_series(1, 40) p;
SELECT mm.set_place_config('hub', '{"voice_chat": false}');
SELECT mm.add_server('hub', 16, '{"region": "eu"}') FROM generate_series(1, 2);
SELECT mm.place_player((SELECT min(server_id) FROM mm.servers), p, '{"age": 20, "language": "en"}')
FROM generate_series(7001, 7004) p;
