-- Where a matched roster goes: five ways of storing waiting rosters, their
-- players and matches, each given the same burst to write (10,000 waiting
-- rosters of 2 players, 8,000 of them matched into 2,000 matches of 4
-- rosters). Plain tables shaped like mm's, no mm functions, so that each
-- case times the row changes of its data model alone, as one statement in
-- its own committed transaction:
--   today       rosters deleted (their players go by the foreign key's
--               cascade), matches inserted, one match_roster row per roster
--               with its players, checked by a foreign key to the match;
--   no_fk       the same rows with no foreign key at all (players deleted
--               by the statement itself): the floor of these moves, and not
--               a design (a player row could dangle);
--   match_row   rosters deleted with the cascade, and each match is one row
--               holding its rosters (ids, teams, players) in arrays: no
--               match_roster rows, nothing that can dangle;
--   in_place    matches inserted and each matched roster updated in place
--               with its match id (a foreign key to the match); its players
--               are not touched;
--   in_place_no_fk  the same without the foreign key (its floor).
-- Every case runs on a fresh copy (one schema per run, made here, untimed).
CREATE FUNCTION probe_make(s text, shape text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('CREATE SCHEMA %I', s);
    EXECUTE format('SET LOCAL search_path = %I', s);
    CREATE TABLE match (match_id bigint PRIMARY KEY, queue_id int NOT NULL, prediction float8 NOT NULL,
                        rosters bigint[], teams text[], players bigint[]);
    IF shape IN ('in_place', 'in_place_no_fk') THEN
        CREATE TABLE roster (roster_id bigint PRIMARY KEY, queue_id int NOT NULL, position bigint NOT NULL,
                             rating float8 NOT NULL, deviation float8 NOT NULL, joined_at timestamptz NOT NULL,
                             match_id bigint, team text);
        IF shape = 'in_place' THEN
            ALTER TABLE roster ADD FOREIGN KEY (match_id) REFERENCES match;
        END IF;
        CREATE INDEX ON roster (queue_id, position) WHERE match_id IS NULL;
    ELSE
        CREATE TABLE roster (roster_id bigint PRIMARY KEY, queue_id int NOT NULL, position bigint NOT NULL,
                             rating float8 NOT NULL, deviation float8 NOT NULL, joined_at timestamptz NOT NULL);
        CREATE INDEX ON roster (queue_id, position);
    END IF;
    IF shape = 'no_fk' THEN
        CREATE TABLE queued_player (player_id bigint PRIMARY KEY, roster_id bigint NOT NULL, seat int NOT NULL,
                                    UNIQUE (roster_id, seat));
    ELSE
        CREATE TABLE queued_player (player_id bigint PRIMARY KEY,
                                    roster_id bigint NOT NULL REFERENCES roster ON DELETE CASCADE,
                                    seat int NOT NULL, UNIQUE (roster_id, seat));
    END IF;
    IF shape IN ('today', 'no_fk') THEN
        CREATE TABLE match_roster (match_id bigint NOT NULL, roster_id bigint NOT NULL UNIQUE, team text NOT NULL,
                                   players bigint[] NOT NULL, rating float8 NOT NULL, deviation float8 NOT NULL,
                                   joined_at timestamptz NOT NULL, PRIMARY KEY (match_id, roster_id));
        IF shape = 'today' THEN
            ALTER TABLE match_roster ADD FOREIGN KEY (match_id) REFERENCES match ON DELETE CASCADE;
        END IF;
    END IF;
    INSERT INTO roster (roster_id, queue_id, position, rating, deviation, joined_at)
    SELECT i, 1, i, (i * 7919) % 3000, 30 + i % 100, '2026-01-01 00:00+00'::timestamptz + i * interval '10 ms'
    FROM generate_series(1, 10000) i;
    INSERT INTO queued_player (player_id, roster_id, seat)
    SELECT 2 * i + k - 1, i, k FROM generate_series(1, 10000) i, generate_series(1, 2) k;
    -- the burst: rosters 1..8000, match m = rosters 4m-3..4m, red the first two
    CREATE TABLE burst AS
    SELECT i AS roster_id, (i + 3) / 4 AS match_id, CASE WHEN i % 4 IN (1, 2) THEN 'red' ELSE 'blue' END AS team
    FROM generate_series(1, 8000) i;
    ANALYZE;
END
$$;
SELECT count(probe_make(format('p_%s_%s', shape, k), shape))
FROM unnest(ARRAY['today', 'no_fk', 'match_row', 'in_place', 'in_place_no_fk']) shape, generate_series(1, 12) k;
CREATE SEQUENCE run_today;
CREATE SEQUENCE run_no_fk;
CREATE SEQUENCE run_match_row;
CREATE SEQUENCE run_in_place;
CREATE SEQUENCE run_in_place_no_fk;
CHECKPOINT;
