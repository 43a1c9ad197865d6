
-- Async opponents: a pool of offline opponents (Metaplay's async matchmaker documentation, the Metaplay
-- asynchronous matchmaker). The bucket arithmetic and the pool config are
-- in C (src/async/async.c); the pool tables and the functions that read and write
-- them are here.

-- C helpers

-- @access public
CREATE FUNCTION mm.async_config(config jsonb)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'mm_async_config'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.async_config IS
    'check a pool config and return it with every key, defaults filled in';

-- @access public
CREATE FUNCTION mm.async_bucket(config jsonb, mmr float8)
RETURNS int
AS 'MODULE_PATHNAME', 'mm_async_bucket'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.async_bucket IS
    'MMR bucket label (0 .. mmr_bucket_count - 1) of an MMR under a pool config; MMRs outside the range go to the edge buckets';

-- @access public
CREATE FUNCTION mm.async_bucket_bounds(config jsonb, first int, last int,
                                       OUT lower_mmr float8, OUT upper_mmr float8)
AS 'MODULE_PATHNAME', 'mm_async_bucket_bounds'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.async_bucket_bounds IS
    'MMR interval [lower_mmr, upper_mmr) covered by buckets first..last; NULL where an edge bucket is unbounded';

-- @access public
CREATE FUNCTION mm.async_search(config jsonb, mmr float8, retries int,
                                OUT bucket int, OUT buckets int[],
                                OUT lower_mmr float8, OUT upper_mmr float8)
AS 'MODULE_PATHNAME', 'mm_async_search'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.async_search IS
    'buckets a query searches, in visiting order (own bucket, the adjacent one on the query''s side, then alternately outwards), and the MMR interval they cover (NULL where unbounded)';

-- @access public
CREATE FUNCTION mm.async_labels(labels text[])
RETURNS text[]
AS 'MODULE_PATHNAME', 'mm_async_labels'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.async_labels IS
    'hard labels as a set: sorted bytewise, duplicates removed; NULL and empty labels refused';

-- Tables

-- @access admin, analyst
CREATE TABLE mm.async_pools (
    pool       text PRIMARY KEY CHECK (pool <> ''),
    config     jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE mm.async_pools IS
    'async opponent pools and their configs (complete, as mm.async_config returns them)';

-- @access admin, analyst
CREATE TABLE mm.async_entries (
    entry_id   bigserial PRIMARY KEY,
    pool       text NOT NULL REFERENCES mm.async_pools ON DELETE CASCADE ON UPDATE CASCADE,
    player_id  bigint NOT NULL,
    mmr        float8 NOT NULL CHECK (mmr > '-Infinity' AND mmr < 'Infinity'),
    labels     text[] NOT NULL DEFAULT '{}',
    model      jsonb,
    updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
COMMENT ON TABLE mm.async_entries IS
    'offline opponents: one row per matchmaking entry (player, MMR, hard labels, the game''s model)';
CREATE INDEX async_entries_search ON mm.async_entries (pool, labels, mmr);
COMMENT ON SEQUENCE mm.async_entries_entry_id_seq IS
    'entry ids of mm.async_entries';
COMMENT ON INDEX mm.async_entries_search IS
    'nearest-MMR search inside a pool and label set';
CREATE INDEX async_entries_player ON mm.async_entries (pool, player_id);
COMMENT ON INDEX mm.async_entries_player IS
    'a player''s entries in a pool';

-- The rebalancing sample (Metaplay's collected labels of every player added
-- to the cache): one row per added entry, written by mm.put_entry while the
-- pool has a player_cache_size, summed per bucket by mm.rebalance_pool. Rows
-- are only ever added (and merged by mm.rebalance_pool), so concurrent puts
-- never update the same row; the table is dumped like the entries.
-- @access admin, analyst
CREATE TABLE mm.async_samples (
    sample_id bigserial PRIMARY KEY,
    pool      text NOT NULL REFERENCES mm.async_pools ON DELETE CASCADE ON UPDATE CASCADE,
    labels    text[] NOT NULL,
    bucket    int NOT NULL CHECK (bucket >= 0),
    inserts   bigint NOT NULL CHECK (inserts > 0)
);
COMMENT ON TABLE mm.async_samples IS
    'the rebalancing sample: entries added per (pool, labels, bucket), one row per put until mm.rebalance_pool merges them';
COMMENT ON SEQUENCE mm.async_samples_sample_id_seq IS
    'sample ids of mm.async_samples';
CREATE INDEX async_samples_bucket ON mm.async_samples (pool, labels, bucket);
COMMENT ON INDEX mm.async_samples_bucket IS
    'a pool''s samples by bucket';

-- The dynamic bucket sizing model (Metaplay's documentation's DynamicBucketSizingModel):
-- capacities set by mm.rebalance_pool. Buckets without a row use
-- bucket_initial_size.
-- @access admin, analyst
CREATE TABLE mm.async_bucket_sizes (
    pool     text NOT NULL REFERENCES mm.async_pools ON DELETE CASCADE ON UPDATE CASCADE,
    labels   text[] NOT NULL,
    bucket   int NOT NULL,
    capacity int NOT NULL CHECK (capacity > 0),
    CONSTRAINT async_bucket_sizes_pkey PRIMARY KEY (pool, labels, bucket)
);
COMMENT ON TABLE mm.async_bucket_sizes IS
    'bucket capacities from the last mm.rebalance_pool (the dynamic bucket sizing model)';

-- Fill bounds: a cache that spares mm.put_entry most counts. A row says
-- that when the bucket was last counted it held fill entries and the entry
-- id sequence stood at entry_seq, so the bucket holds at most
-- fill + (the sequence now - entry_seq) entries: every entry added since
-- took a new id. Rows are written only by a put that had to count, under
-- the bucket's advisory lock that put already holds, and never by an offer;
-- a row too high (entries removed, TRUNCATE) only makes a put count again,
-- and a sequence reset (TRUNCATE ... RESTART IDENTITY) is noticed by its new
-- storage (seq_file). The bucket's MMR range is part of the row, so a row
-- written under another bucket layout (a put that read the config before a
-- concurrent mm.alter_pool) never serves the new one. Not dumped: a
-- restored pool counts again.
-- @access internal
CREATE TABLE mm.async_fill_bounds (
    pool      text NOT NULL REFERENCES mm.async_pools ON DELETE CASCADE ON UPDATE CASCADE,
    labels    text[] NOT NULL,
    bucket    int NOT NULL CHECK (bucket >= 0),
    lower_mmr float8 NOT NULL,
    upper_mmr float8 NOT NULL CHECK (lower_mmr < upper_mmr),
    fill      int NOT NULL CHECK (fill >= 0),
    entry_seq bigint NOT NULL,
    seq_file  oid NOT NULL,
    CONSTRAINT async_fill_bounds_pkey PRIMARY KEY (pool, labels, bucket)
);
COMMENT ON TABLE mm.async_fill_bounds IS
    'internal cache: a bucket''s fill when last counted and the entry id sequence then; fill + ids handed out since bounds the fill';

SELECT pg_catalog.pg_extension_config_dump('mm.async_pools', '');
SELECT pg_catalog.pg_extension_config_dump('mm.async_entries', '');
SELECT pg_catalog.pg_extension_config_dump('mm.async_entries_entry_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('mm.async_bucket_sizes', '');
SELECT pg_catalog.pg_extension_config_dump('mm.async_samples', '');
SELECT pg_catalog.pg_extension_config_dump('mm.async_samples_sample_id_seq', '');

-- Internal helpers

-- @access internal
CREATE FUNCTION mm._async_pool_config(pool text)
RETURNS jsonb
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    cfg jsonb;
BEGIN
    IF _async_pool_config.pool IS NULL THEN
        RAISE EXCEPTION 'pool must not be NULL'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass the name of a pool made with mm.create_pool.';
    END IF;
    SELECT p.config INTO cfg FROM mm.async_pools p WHERE p.pool = _async_pool_config.pool;
    IF cfg IS NULL THEN
        RAISE EXCEPTION 'pool "%" does not exist', _async_pool_config.pool
            USING ERRCODE = 'undefined_object',
                  DETAIL = format('No row of mm.async_pools is named %L.', _async_pool_config.pool),
                  HINT = 'Create it with mm.create_pool(name, config).';
    END IF;
    RETURN cfg;
END
$$;
COMMENT ON FUNCTION mm._async_pool_config IS
    'internal: the config of a pool; an error if the pool does not exist';

-- @access internal
CREATE FUNCTION mm._async_capacity(pool text, labels text[], bucket int, config jsonb)
RETURNS int
LANGUAGE sql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
    SELECT coalesce((SELECT s.capacity FROM mm.async_bucket_sizes s
                     WHERE s.pool = $1 AND s.labels = $2 AND s.bucket = $3),
                    ($4 ->> 'bucket_initial_size')::int)
$$;
COMMENT ON FUNCTION mm._async_capacity IS
    'internal: capacity of a bucket: its rebalanced size, else bucket_initial_size';

-- @access internal
CREATE FUNCTION mm._async_fill(pool text, labels text[], lower_mmr float8, upper_mmr float8,
                              upto int)
RETURNS int
LANGUAGE sql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
    -- ordered by the index, so that it is read alone (an index-only scan)
    SELECT count(*)::int FROM (SELECT e.mmr FROM mm.async_entries e
                               WHERE e.pool = $1 AND e.labels = $2
                                 AND e.mmr >= $3 AND e.mmr < $4
                               ORDER BY e.mmr
                               LIMIT $5) f
$$;
COMMENT ON FUNCTION mm._async_fill IS
    'internal: entries a bucket holds, counted on the index up to upto (NULL: all)';

-- @access internal
CREATE FUNCTION mm._async_entry_seq(OUT entry_seq bigint, OUT seq_file oid)
LANGUAGE sql VOLATILE
SET search_path = mm, pg_catalog, pg_temp
AS $$
    SELECT coalesce(pg_catalog.pg_sequence_last_value('mm.async_entries_entry_id_seq'::pg_catalog.regclass), 0),
           pg_catalog.pg_relation_filenode('mm.async_entries_entry_id_seq'::pg_catalog.regclass)
$$;
COMMENT ON FUNCTION mm._async_entry_seq IS
    'internal: the last entry id handed out (0 before the first) and the storage of its sequence, which TRUNCATE ... RESTART IDENTITY renews';

-- @access internal
CREATE FUNCTION mm._async_fill_bound(pool text, labels text[], bucket int,
                                    lower_mmr float8, upper_mmr float8)
RETURNS bigint
LANGUAGE sql VOLATILE
SET search_path = mm, pg_catalog, pg_temp
AS $$
    SELECT f.fill + (s.entry_seq - f.entry_seq)
    FROM mm.async_fill_bounds f, mm._async_entry_seq() s
    WHERE f.pool = $1 AND f.labels = $2 AND f.bucket = $3
      AND f.lower_mmr = $4 AND f.upper_mmr = $5
      AND f.seq_file = s.seq_file AND f.entry_seq <= s.entry_seq
$$;
COMMENT ON FUNCTION mm._async_fill_bound IS
    'internal: at most this many entries are in a bucket [lower_mmr, upper_mmr) (from mm.async_fill_bounds); NULL when unknown';

-- @access internal
CREATE FUNCTION mm._async_check_ids(ids bigint[], what text)
RETURNS bigint[]
LANGUAGE plpgsql IMMUTABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF ids IS NULL THEN
        RAISE EXCEPTION '% must not be NULL', what
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass an empty array to exclude nobody.';
    END IF;
    IF array_position(ids, NULL) IS NOT NULL THEN
        RAISE EXCEPTION '% must not contain NULL elements', what
            USING ERRCODE = 'null_value_not_allowed',
                  DETAIL = format('Element %s is NULL.', array_position(ids, NULL)),
                  HINT = 'Leave the element out instead of passing NULL.';
    END IF;
    RETURN ids;
END
$$;
COMMENT ON FUNCTION mm._async_check_ids IS
    'internal: refuse a NULL id array or NULL elements';

-- @access internal
CREATE FUNCTION mm._async_check_query(mmr float8, labels text[], retries int)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF mmr IS NULL OR labels IS NULL OR retries IS NULL THEN
        RAISE EXCEPTION '% must not be NULL',
            CASE WHEN mmr IS NULL THEN 'mmr' WHEN labels IS NULL THEN 'labels' ELSE 'retries' END
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass a value (labels: ''{}'' for none, retries: 0 for a first attempt).';
    END IF;
END
$$;
COMMENT ON FUNCTION mm._async_check_query IS
    'internal: refuse NULL query arguments';

-- Pools

-- @access admin; definer
CREATE FUNCTION mm.create_pool(name text, config jsonb DEFAULT '{}')
RETURNS void
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF name IS NULL THEN PERFORM mm._null_arg('name'); END IF;
    IF config IS NULL THEN PERFORM mm._null_arg('config'); END IF;
    IF name IS NULL OR name = '' THEN
        RAISE EXCEPTION 'pool name must not be empty'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Name the pool, such as ''arena''.';
    END IF;
    PERFORM mm._check_name('pool name', name);
    IF EXISTS (SELECT 1 FROM mm.async_pools p WHERE p.pool = name) THEN
        RAISE EXCEPTION 'pool "%" already exists', name
            USING ERRCODE = 'duplicate_object',
                  HINT = 'Change its config with mm.alter_pool, or drop it with mm.drop_pool.';
    END IF;
    INSERT INTO mm.async_pools (pool, config)
    VALUES (name, mm.async_config(coalesce(config, '{}')));
END
$$;
COMMENT ON FUNCTION mm.create_pool IS
    'create an async opponent pool; config keys mirror Metaplay''s async matchmaker documentation (see docs/async.md), unknown keys are an error';

-- @access admin; definer
CREATE FUNCTION mm.alter_pool(name text, config jsonb, replace boolean DEFAULT false)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    old_cfg jsonb;
    new_cfg jsonb;
    rebucket boolean;
BEGIN
    IF name IS NULL THEN PERFORM mm._null_arg('name'); END IF;
    old_cfg := mm._async_pool_config(name);
    IF config IS NULL OR replace IS NULL THEN
        RAISE EXCEPTION 'pool config and replace must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass ''{}'' to change nothing.';
    END IF;
    -- merged: the given keys replace the old values (null is a value: a
    -- nullable key's "never"); replaced: the given keys, defaults for the rest
    new_cfg := mm.async_config(CASE WHEN replace THEN config ELSE old_cfg || config END);
    UPDATE mm.async_pools p SET config = new_cfg WHERE p.pool = name;
    rebucket := (new_cfg ->> 'min_mmr', new_cfg ->> 'max_mmr', new_cfg ->> 'mmr_bucket_count')
        IS DISTINCT FROM (old_cfg ->> 'min_mmr', old_cfg ->> 'max_mmr', old_cfg ->> 'mmr_bucket_count');
    IF rebucket THEN
        -- the buckets changed: forget the old sizing model and fill bounds
        DELETE FROM mm.async_bucket_sizes s WHERE s.pool = name;
        DELETE FROM mm.async_fill_bounds f WHERE f.pool = name;
    END IF;
    IF new_cfg ->> 'player_cache_size' IS NULL THEN
        -- no rebalancing, no sample
        DELETE FROM mm.async_samples s WHERE s.pool = name;
    ELSIF rebucket OR old_cfg ->> 'player_cache_size' IS NULL THEN
        -- a new sample (new buckets, or sampling just turned on) starts
        -- from the entries the pool holds
        DELETE FROM mm.async_samples s WHERE s.pool = name;
        INSERT INTO mm.async_samples (pool, labels, bucket, inserts)
        SELECT e.pool, e.labels, mm.async_bucket(new_cfg, e.mmr), count(*)
        FROM mm.async_entries e WHERE e.pool = name
        GROUP BY 1, 2, 3
        ORDER BY 1, 2, 3;
    END IF;
    RETURN new_cfg;
END
$$;
COMMENT ON FUNCTION mm.alter_pool IS
    'change some keys of a pool config (replace: set the whole config, defaults for keys left out); returns the new config. A new MMR range or bucket count forgets the sizing model and restarts the rebalancing sample from the entries held';

-- @access admin; definer
CREATE FUNCTION mm.drop_pool(name text)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF name IS NULL THEN PERFORM mm._null_arg('name'); END IF;
    DELETE FROM mm.async_pools p WHERE p.pool = name;
    RETURN FOUND;
END
$$;
COMMENT ON FUNCTION mm.drop_pool IS
    'drop a pool with its entries; false if there was none';

-- @access service, admin, analyst; definer
CREATE FUNCTION mm.pool_buckets(pool text)
RETURNS TABLE(labels text[], bucket int, lower_mmr float8, upper_mmr float8,
              fill int, capacity int, inserts bigint)
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    cfg jsonb := mm._async_pool_config(pool);
BEGIN
    RETURN QUERY
    WITH held AS (
        SELECT e.labels, mm.async_bucket(cfg, e.mmr) AS bucket, count(*)::int AS fill
        FROM mm.async_entries e WHERE e.pool = pool_buckets.pool
        GROUP BY 1, 2
    ), sampled AS (
        SELECT s.labels, s.bucket, sum(s.inserts)::bigint AS inserts
        FROM mm.async_samples s WHERE s.pool = pool_buckets.pool
        GROUP BY 1, 2
    )
    SELECT k.labels, k.bucket, r.lower_mmr, r.upper_mmr, coalesce(h.fill, 0),
           mm._async_capacity(pool_buckets.pool, k.labels, k.bucket, cfg), coalesce(x.inserts, 0)
    FROM (SELECT h2.labels, h2.bucket FROM held h2
          UNION SELECT x2.labels, x2.bucket FROM sampled x2) k
    LEFT JOIN held h ON h.labels = k.labels AND h.bucket = k.bucket
    LEFT JOIN sampled x ON x.labels = k.labels AND x.bucket = k.bucket
    CROSS JOIN LATERAL mm.async_bucket_bounds(cfg, k.bucket, k.bucket) r
    ORDER BY k.labels, k.bucket;
END
$$;
COMMENT ON FUNCTION mm.pool_buckets IS
    'the buckets of a pool that hold entries or were sampled: MMR interval (NULL where an edge bucket is unbounded), fill (counted now), capacity, entries added since the sample started';

-- Entries

-- @access service, admin; definer
CREATE FUNCTION mm.put_entry(pool text, player_id bigint, mmr float8,
                             labels text[] DEFAULT '{}', model jsonb DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    cfg jsonb := mm._async_pool_config(pool);
    lab text[];
    b int;
    lo float8;
    hi float8;
    existing bigint;
    is_new boolean;
    multi boolean := (cfg ->> 'allow_multiple_entries_per_player')::boolean;
    ignore_at float8 := (cfg ->> 'player_ignore_update_insert_threshold')::float8;
    f int;
    cap int;
    bound bigint;
    seq record;
    id bigint;
BEGIN
    PERFORM mm._require_primary('mm.put_entry');
    IF put_entry.player_id IS NULL THEN
        RAISE EXCEPTION 'player_id must not be NULL'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass the id of the player whose entry this is.';
    END IF;
    PERFORM mm._async_check_query(put_entry.mmr, put_entry.labels, 0);
    lab := mm.async_labels(put_entry.labels);
    b := mm.async_bucket(cfg, put_entry.mmr);
    SELECT coalesce(r.lower_mmr, '-Infinity'), coalesce(r.upper_mmr, 'Infinity') INTO lo, hi
    FROM mm.async_bucket_bounds(cfg, b, b) r;

    -- Lock order: the player, his entries, then the bucket (last).
    -- One put at a time per player, so the per-player rules hold.
    PERFORM pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('mm.async:' || pool),
                                             pg_catalog.hashint8(put_entry.player_id));
    -- his entries: an offer in flight that holds one is waited for here,
    -- before the bucket lock (an offer never waits, so this cannot cycle)
    PERFORM 1 FROM mm.async_entries e
    WHERE e.pool = put_entry.pool AND e.player_id = put_entry.player_id
    ORDER BY e.entry_id
    FOR UPDATE OF e;

    -- the player's entry in this bucket is updated in place
    SELECT e.entry_id INTO existing FROM mm.async_entries e
    WHERE e.pool = put_entry.pool AND e.player_id = put_entry.player_id
      AND e.labels = lab AND e.mmr >= lo AND e.mmr < hi
    LIMIT 1;
    IF existing IS NOT NULL THEN
        UPDATE mm.async_entries e
        SET mmr = put_entry.mmr, model = put_entry.model, updated_at = clock_timestamp()
        WHERE e.entry_id = existing;
        IF NOT multi THEN
            DELETE FROM mm.async_entries e
            WHERE e.pool = put_entry.pool AND e.player_id = put_entry.player_id
              AND e.entry_id <> existing;
        END IF;
        RETURN existing;
    END IF;

    is_new := NOT EXISTS (SELECT 1 FROM mm.async_entries e
                          WHERE e.pool = put_entry.pool AND e.player_id = put_entry.player_id);
    IF NOT multi THEN
        -- one entry per player: the entry moves to its new bucket
        DELETE FROM mm.async_entries e
        WHERE e.pool = put_entry.pool AND e.player_id = put_entry.player_id;
    END IF;

    -- Puts that add to a bucket take turns on its advisory lock until
    -- commit, so a full bucket never overflows; the fill is counted after
    -- the lock is granted (a new statement, a new snapshot). Nothing below
    -- waits for a row lock.
    PERFORM pg_catalog.pg_advisory_xact_lock(
        pg_catalog.hashtext('mm.async.bucket:' || pool || ':' || lab::text), b);
    cap := mm._async_capacity(pool, lab, b, cfg);
    -- Below both thresholds by the bound of mm.async_fill_bounds: nothing
    -- to decide, so nothing to count (a bucket far from full).
    bound := mm._async_fill_bound(pool, lab, b, lo, hi);
    IF bound IS NULL OR bound >= cap
       OR (is_new AND ignore_at IS NOT NULL AND bound >= ignore_at * cap) THEN
        -- the sequence is read before the count's snapshot is taken: an
        -- entry not counted has a later id (puts into the bucket committed
        -- before this one got the lock)
        SELECT * INTO seq FROM mm._async_entry_seq();
        -- counted up to a little past the capacity: exact unless the bucket
        -- is far over it (a lowered capacity, rows written directly), which
        -- then shrinks by 17 entries a put
        f := mm._async_fill(pool, lab, lo, hi, cap + 16);
        -- a new player is not added to a bucket filled to the threshold
        IF is_new AND ignore_at IS NOT NULL AND f >= ignore_at * cap THEN
            RETURN NULL;
        END IF;
        IF f >= cap THEN
            -- a full bucket replaces its oldest entries
            DELETE FROM mm.async_entries e
            WHERE e.entry_id IN (
                SELECT o.entry_id FROM mm.async_entries o
                WHERE o.pool = put_entry.pool AND o.labels = lab AND o.mmr >= lo AND o.mmr < hi
                ORDER BY o.updated_at, o.entry_id
                LIMIT f - cap + 1
                FOR UPDATE SKIP LOCKED);
        ELSIF pg_catalog.current_setting('transaction_isolation') = 'read committed' THEN
            -- room left: remember the count (under an older snapshot,
            -- in a repeatable read transaction, it may miss entries)
            INSERT INTO mm.async_fill_bounds (pool, labels, bucket, lower_mmr, upper_mmr,
                                              fill, entry_seq, seq_file)
            VALUES (put_entry.pool, lab, b, lo, hi, f, seq.entry_seq, seq.seq_file)
            ON CONFLICT ON CONSTRAINT async_fill_bounds_pkey DO UPDATE
            SET lower_mmr = EXCLUDED.lower_mmr, upper_mmr = EXCLUDED.upper_mmr, fill = EXCLUDED.fill,
                entry_seq = EXCLUDED.entry_seq, seq_file = EXCLUDED.seq_file;
        END IF;
    END IF;
    INSERT INTO mm.async_entries (pool, player_id, mmr, labels, model)
    VALUES (put_entry.pool, put_entry.player_id, put_entry.mmr, lab, put_entry.model)
    RETURNING entry_id INTO id;
    IF cfg ->> 'player_cache_size' IS NOT NULL THEN
        INSERT INTO mm.async_samples (pool, labels, bucket, inserts)
        VALUES (put_entry.pool, lab, b, 1);
    END IF;
    RETURN id;
END
$$;
COMMENT ON FUNCTION mm.put_entry IS
    'add or update a player''s entry (the player state update of Metaplay''s documentation); returns the entry id, NULL if ignored by player_ignore_update_insert_threshold';

-- @access service, admin; definer
CREATE FUNCTION mm.remove_entry(entry_id bigint)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF entry_id IS NULL THEN PERFORM mm._null_arg('entry_id'); END IF;
    DELETE FROM mm.async_entries e WHERE e.entry_id = remove_entry.entry_id;
    RETURN FOUND;
END
$$;
COMMENT ON FUNCTION mm.remove_entry IS
    'remove one entry; false if there was none';

-- @access service, admin; definer
CREATE FUNCTION mm.remove_entries(pool text, player_id bigint)
RETURNS int
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    n int;
BEGIN
    IF pool IS NULL THEN PERFORM mm._null_arg('pool'); END IF;
    IF player_id IS NULL THEN PERFORM mm._null_arg('player_id'); END IF;
    PERFORM mm._async_pool_config(pool);
    DELETE FROM mm.async_entries e
    WHERE e.pool = remove_entries.pool AND e.player_id = remove_entries.player_id;
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END
$$;
COMMENT ON FUNCTION mm.remove_entries IS
    'remove every entry of a player from a pool (he is no longer available); returns how many';

-- Offers

-- @access service, admin; definer
CREATE FUNCTION mm.offer_entry(entry_id bigint)
RETURNS boolean
AS 'MODULE_PATHNAME', 'mm_offer_entry'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION mm.offer_entry IS
    'offer an entry picked from mm.find_candidates: true if it was still available (then removed per the pool''s threshold), false if gone or taken by a concurrent query';

-- @access internal
CREATE FUNCTION mm._async_query(p_pool text, p_mmr float8, p_labels text[], p_retries int,
                               p_exclude bigint[], p_searcher bigint,
                               OUT cfg jsonb, OUT lab text[], OUT excl bigint[],
                               OUT lower_mmr float8, OUT upper_mmr float8)
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    cfg := mm._async_pool_config(p_pool);
    PERFORM mm._async_check_query(p_mmr, p_labels, p_retries);
    excl := mm._async_check_ids(p_exclude, 'exclude');
    lab := mm.async_labels(p_labels);
    SELECT s.lower_mmr, s.upper_mmr INTO lower_mmr, upper_mmr
    FROM mm.async_search(cfg, p_mmr, p_retries) s;
    IF p_searcher IS NOT NULL THEN
        excl := excl || p_searcher;
    END IF;
END
$$;
COMMENT ON FUNCTION mm._async_query IS
    'internal: check a find query and resolve it: the pool config, the label set, the ids never offered, the searched MMR interval (NULL where unbounded)';

-- @access service, admin; definer
CREATE FUNCTION mm.find_opponent(pool text, mmr float8, labels text[] DEFAULT '{}',
                                 retries int DEFAULT 0, exclude bigint[] DEFAULT '{}',
                                 searcher bigint DEFAULT NULL)
RETURNS TABLE(result text, player_id bigint, mmr float8, quality float8, model jsonb)
AS 'MODULE_PATHNAME', 'mm_find_opponent'
LANGUAGE C VOLATILE ROWS 1;
COMMENT ON FUNCTION mm.find_opponent IS
    'the best opponent for a query (Metaplay''s async matchmaker documentation): success, none_found or fake_opponent; never the searcher or an excluded player';

-- @access internal
CREATE FUNCTION mm._async_candidates(p_pool text, p_mmr float8, p_labels text[], p_retries int,
                                    p_exclude bigint[], p_searcher bigint, p_max int)
RETURNS TABLE(o_entry_id bigint, o_player_id bigint, o_mmr float8, o_labels text[],
              o_bucket int, o_quality float8, o_model jsonb, o_updated_at timestamptz)
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q record;
    maxd float8;
    minq float8;
BEGIN
    IF p_max IS NULL THEN PERFORM mm._null_arg('max_candidates'); END IF;
    SELECT * INTO q FROM mm._async_query(p_pool, p_mmr, p_labels, p_retries, p_exclude, p_searcher);
    maxd := (q.cfg ->> 'max_difference')::float8;
    minq := (q.cfg ->> 'min_quality')::float8;
    IF p_max IS NULL OR p_max < 1 THEN
        RAISE EXCEPTION 'max_candidates must be positive'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The value is %s.', coalesce(p_max::text, 'NULL')),
                  HINT = 'Ask for at least one candidate.';
    END IF;
    RETURN QUERY
    SELECT c.entry_id, c.player_id, c.mmr, c.labels, mm.async_bucket(q.cfg, c.mmr),
           maxd - abs(c.mmr - p_mmr), c.model, c.updated_at
    FROM ((SELECT e.* FROM mm.async_entries e
           WHERE e.pool = p_pool AND e.labels = q.lab AND e.mmr >= p_mmr
             AND e.mmr < coalesce(q.upper_mmr, 'Infinity')
             AND e.player_id <> ALL (q.excl)
           ORDER BY e.mmr LIMIT p_max)
          UNION ALL
          (SELECT e.* FROM mm.async_entries e
           WHERE e.pool = p_pool AND e.labels = q.lab AND e.mmr < p_mmr
             AND e.mmr >= coalesce(q.lower_mmr, '-Infinity')
             AND e.player_id <> ALL (q.excl)
           ORDER BY e.mmr DESC LIMIT p_max)) c
    WHERE minq IS NULL OR maxd - abs(c.mmr - p_mmr) >= minq
    ORDER BY abs(c.mmr - p_mmr), c.entry_id
    LIMIT p_max;
END
$$;
COMMENT ON FUNCTION mm._async_candidates IS
    'internal: the body of mm.find_candidates';

-- @access service, admin, analyst; definer
CREATE FUNCTION mm.find_candidates(pool text, mmr float8, labels text[] DEFAULT '{}',
                                   retries int DEFAULT 0, exclude bigint[] DEFAULT '{}',
                                   searcher bigint DEFAULT NULL, max_candidates int DEFAULT 100)
RETURNS TABLE(entry_id bigint, player_id bigint, mmr float8, labels text[], bucket int,
              quality float8, model jsonb, updated_at timestamptz)
LANGUAGE sql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
    SELECT * FROM mm._async_candidates($1, $2, $3, $4, $5, $6, $7)
$$;
COMMENT ON FUNCTION mm.find_candidates IS
    'the nearest candidates in the searched buckets, for ranking by the game''s own quality; claim the chosen one with mm.offer_entry';

-- Dynamic bucket sizing

-- @access admin; definer
CREATE FUNCTION mm.rebalance_pool(pool text)
RETURNS TABLE(labels text[], bucket int, capacity int)
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    cfg jsonb;
    cache int;
    min_size int;
    merged jsonb;
    total bigint;
BEGIN
    -- One rebalance of a pool at a time, and none while mm.alter_pool
    -- changes its config: the pool's row is locked FOR NO KEY UPDATE, which
    -- the puts' foreign key checks (FOR KEY SHARE) do not wait for.
    PERFORM 1 FROM mm.async_pools p WHERE p.pool = rebalance_pool.pool FOR NO KEY UPDATE;
    cfg := mm._async_pool_config(pool);
    cache := (cfg ->> 'player_cache_size')::int;
    min_size := (cfg ->> 'bucket_min_size')::int;
    IF cache IS NULL THEN
        RAISE EXCEPTION 'pool "%" has no player_cache_size', pool
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'Rebalancing shares player_cache_size among the buckets.',
                  HINT = format('Set it first: SELECT mm.alter_pool(%L, ''{"player_cache_size": 100000}'');', pool);
    END IF;
    -- Merge the sample to one row per bucket (puts keep adding rows), and
    -- keep the merged rows: the sizes are computed from them, in this one
    -- snapshot. A sample a put commits later stays a row of its own, for
    -- the next rebalance; a later read of mm.async_samples would see it
    -- beside its bucket's merged row.
    WITH gone AS (
        DELETE FROM mm.async_samples s WHERE s.pool = rebalance_pool.pool
        RETURNING s.pool, s.labels, s.bucket, s.inserts
    ), kept AS (
        INSERT INTO mm.async_samples (pool, labels, bucket, inserts)
        SELECT g.pool, g.labels, g.bucket, sum(g.inserts)
        FROM gone g GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        RETURNING mm.async_samples.labels, mm.async_samples.bucket, mm.async_samples.inserts
    )
    SELECT jsonb_agg(jsonb_build_object('labels', k.labels, 'bucket', k.bucket, 'inserts', k.inserts)),
           sum(k.inserts)
    INTO merged, total
    FROM kept k;
    IF coalesce(total, 0) > 0 THEN
        -- each bucket gets its share of the sampled inserts, at least the minimum
        DELETE FROM mm.async_bucket_sizes z WHERE z.pool = rebalance_pool.pool;
        INSERT INTO mm.async_bucket_sizes (pool, labels, bucket, capacity)
        SELECT rebalance_pool.pool, m.labels, m.bucket,
               least(cache, greatest(min_size, floor(cache::float8 * m.inserts / total)::int))
        FROM jsonb_to_recordset(merged) AS m(labels text[], bucket int, inserts bigint)
        ORDER BY m.labels, m.bucket;
        -- buckets now over capacity drop their oldest entries
        DELETE FROM mm.async_entries x
        WHERE x.entry_id IN (
            SELECT r.entry_id FROM (
                SELECT e.entry_id, e.labels, mm.async_bucket(cfg, e.mmr) AS bucket,
                       row_number() OVER (PARTITION BY e.labels, mm.async_bucket(cfg, e.mmr)
                                          ORDER BY e.updated_at DESC, e.entry_id DESC) AS rn
                FROM mm.async_entries e WHERE e.pool = rebalance_pool.pool) r
            JOIN mm.async_bucket_sizes z
              ON z.pool = rebalance_pool.pool AND z.labels = r.labels AND z.bucket = r.bucket
            WHERE r.rn > z.capacity);
    END IF;
    RETURN QUERY
    SELECT z.labels, z.bucket, z.capacity FROM mm.async_bucket_sizes z
    WHERE z.pool = rebalance_pool.pool ORDER BY z.labels, z.bucket;
END
$$;
COMMENT ON FUNCTION mm.rebalance_pool IS
    'size each bucket from the observed share of inserts (the dynamic bucket sizing of Metaplay''s documentation): capacity = max(bucket_min_size, player_cache_size * share)';
