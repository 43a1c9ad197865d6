-- Block lists: a player blocks another, and the two are never put in one
-- match, in any queue (ticks and backfills: src/queue/roster_limits.c reads
-- the blocks between the rosters a tick reads into the matcher,
-- src/queue/backfill.c keeps a running match's blocked players' rosters out
-- of its seats). A block is global, not per queue or rating key: it is what
-- one person asks about another, the same in every mode (a player who
-- blocks someone after a toxic game in one mode does not expect to meet
-- them in the next), and a player is in one roster across all queues
-- already (mm.queued_player). A block may end by itself ("until").

-- The most players one player may have blocked at a time.
-- (mm.block refuses one more: 55000; a cap keeps a population's matches
-- possible: each block takes a pair out of every match.)

-- @access admin, analyst
CREATE TABLE mm.player_block (
    player_id  bigint NOT NULL,
    blocked_id bigint NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    until      timestamptz,
    CONSTRAINT player_block_pkey PRIMARY KEY (player_id, blocked_id),
    CONSTRAINT player_block_self_check CHECK (player_id <> blocked_id),
    CONSTRAINT player_block_until_check CHECK (isfinite(created_at) AND until > created_at AND isfinite(until))
);
CREATE INDEX player_block_blocked_idx ON mm.player_block (blocked_id);
SELECT pg_catalog.pg_extension_config_dump('mm.player_block', '');
COMMENT ON TABLE mm.player_block IS 'blocks (mm.block): player_id blocked blocked_id, so the two are never put in one match, in any queue, until "until" (NULL: until mm.unblock); at most 100 in force per player';
COMMENT ON CONSTRAINT player_block_pkey ON mm.player_block IS 'a player blocks another once; a tick finds a waiting player''s blocks by it';
COMMENT ON INDEX mm.player_block_blocked_idx IS 'who blocked a player (a backfill keeps the rosters of players who blocked one of a running match, or were blocked by one, out of its seats)';
COMMENT ON CONSTRAINT player_block_self_check ON mm.player_block IS 'a player does not block itself';
COMMENT ON CONSTRAINT player_block_until_check ON mm.player_block IS 'a block that ends, ends after it was made; times are finite';

-- @access service, admin; definer
CREATE FUNCTION mm.block(player_id bigint, blocked_id bigint, until timestamptz DEFAULT NULL)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    n int;
BEGIN
    IF player_id IS NULL THEN PERFORM mm._null_arg('player_id'); END IF;
    IF blocked_id IS NULL THEN PERFORM mm._null_arg('blocked_id'); END IF;
    PERFORM mm._require_primary('mm.block');
    IF player_id = blocked_id THEN
        RAISE EXCEPTION 'a player cannot block itself'
            USING ERRCODE = 'invalid_parameter_value', DETAIL = format('Both ids are %s.', player_id);
    END IF;
    IF until IS NOT NULL AND (NOT isfinite(until) OR until <= now()) THEN
        RAISE EXCEPTION 'until must be a finite time after now'
            USING ERRCODE = 'invalid_parameter_value', DETAIL = format('until is %s.', until),
                  HINT = 'Leave until NULL for a block that lasts until mm.unblock.';
    END IF;
    -- one block at a time per player, so the cap holds under concurrency
    PERFORM pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('mm.block'),
                                             pg_catalog.hashint8(block.player_id));
    DELETE FROM mm.player_block b WHERE b.player_id = block.player_id AND b.until <= now();
    UPDATE mm.player_block b SET until = block.until
    WHERE b.player_id = block.player_id AND b.blocked_id = block.blocked_id;
    IF FOUND THEN
        RETURN false;
    END IF;
    SELECT count(*) INTO n FROM mm.player_block b WHERE b.player_id = block.player_id;
    IF n >= 100 THEN
        RAISE EXCEPTION 'player % has blocked 100 players', player_id
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'A player may have at most 100 blocks in force.',
                  HINT = 'Call mm.unblock for one of them first (mm.player_blocks lists them).';
    END IF;
    INSERT INTO mm.player_block (player_id, blocked_id, until) VALUES (block.player_id, block.blocked_id, block.until);
    RETURN true;
END
$$;
COMMENT ON FUNCTION mm.block IS
    'player_id blocks blocked_id: the two are never put in one match, in any queue, by a tick or a backfill, until "until" (NULL: until mm.unblock); true for a new block, false when it was there (its until is replaced); at most 100 blocks in force per player (55000 past that)';

-- @access service, admin; definer
CREATE FUNCTION mm.unblock(player_id bigint, blocked_id bigint)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF player_id IS NULL THEN PERFORM mm._null_arg('player_id'); END IF;
    IF blocked_id IS NULL THEN PERFORM mm._null_arg('blocked_id'); END IF;
    PERFORM mm._require_primary('mm.unblock');
    DELETE FROM mm.player_block b WHERE b.player_id = unblock.player_id AND b.blocked_id = unblock.blocked_id;
    RETURN FOUND;
END
$$;
COMMENT ON FUNCTION mm.unblock IS
    'end player_id''s block of blocked_id; true if there was one';

-- @access service, admin, analyst; definer
CREATE FUNCTION mm.player_blocks(player_id bigint, at timestamptz DEFAULT now())
RETURNS TABLE (blocked_id bigint, created_at timestamptz, until timestamptz)
LANGUAGE sql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
SELECT mm._null_arg('player_id') WHERE player_id IS NULL;
SELECT mm._null_arg('at') WHERE at IS NULL;
    SELECT b.blocked_id, b.created_at, b.until FROM mm.player_block b
    WHERE b.player_id = player_blocks.player_id AND (b.until IS NULL OR b.until > at)
    ORDER BY b.created_at, b.blocked_id
$$;
COMMENT ON FUNCTION mm.player_blocks IS
    'the blocks of player_id in force at "at", oldest first';
