-- mm 0.1.0 -> 0.2.0 upgrade.
--
-- Every change to SQL objects made after 0.1.0 is here, data migration
-- included, in the same order as the install script that builds 0.2.0
-- (sql/mm.sql then sql/parts/*.sql). The upgrade suite
-- (test/suites/upgrade.sh) proves that a database upgraded with this file
-- has the same catalog as a fresh 0.2.0 install.

\echo Use "ALTER EXTENSION mm UPDATE TO '0.2.0'" to load this file. \quit


-- ==== robustness: aggregates that cannot be forged, finite results ====

-- party_rating_agg: an internal state (linear in the rows, support functions
-- SQL cannot feed a forged state) instead of a float8[] rebuilt on every row.
DROP AGGREGATE mm.party_rating_agg(float8, float8, float8, float8, float8);
DROP AGGREGATE mm.party_rating_agg(float8, float8);
DROP FUNCTION mm.party_rating_accum(float8[], float8, float8, float8, float8, float8);
DROP FUNCTION mm.party_rating_accum(float8[], float8, float8);
DROP FUNCTION mm.party_rating_combine(float8[], float8[]);
DROP FUNCTION mm.party_rating_final(float8[]);

-- party_rating_agg keeps its members in an internal state (support
-- functions that SQL cannot feed a forged state), serialized to bytea for
-- parallel and partial aggregation.

CREATE FUNCTION mm.party_rating_accum(state internal, mu float8, sigma float8,
    max_mu_weight float8, med_mu_weight float8, ordinal_deviations float8)
RETURNS internal
AS 'MODULE_PATHNAME', 'mm_party_rating_accum'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.party_rating_accum(internal, float8, float8, float8, float8, float8) IS
    'transition function of the party_rating_agg aggregate';

CREATE FUNCTION mm.party_rating_accum(state internal, mu float8, sigma float8)
RETURNS internal
AS 'MODULE_PATHNAME', 'mm_party_rating_accum'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.party_rating_accum(internal, float8, float8) IS
    'transition function of the party_rating_agg aggregate with the IMS defaults (2, 1, 3)';

CREATE FUNCTION mm.party_rating_combine(a internal, b internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'mm_party_rating_combine'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.party_rating_combine(internal, internal) IS
    'combine function of the party_rating_agg aggregate';

CREATE FUNCTION mm.party_rating_serialize(state internal)
RETURNS bytea
AS 'MODULE_PATHNAME', 'mm_party_rating_serialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.party_rating_serialize(internal) IS
    'serialization function of the party_rating_agg aggregate';

CREATE FUNCTION mm.party_rating_deserialize(state bytea, dummy internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'mm_party_rating_deserialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.party_rating_deserialize(bytea, internal) IS
    'deserialization function of the party_rating_agg aggregate (checks every value)';

CREATE FUNCTION mm.party_rating_final(state internal)
RETURNS float8
AS 'MODULE_PATHNAME', 'mm_party_rating_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.party_rating_final(internal) IS
    'final function of the party_rating_agg aggregate';

CREATE AGGREGATE mm.party_rating_agg(mu float8, sigma float8,
    max_mu_weight float8, med_mu_weight float8, ordinal_deviations float8) (
    SFUNC = mm.party_rating_accum,
    STYPE = internal,
    FINALFUNC = mm.party_rating_final,
    COMBINEFUNC = mm.party_rating_combine,
    SERIALFUNC = mm.party_rating_serialize,
    DESERIALFUNC = mm.party_rating_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE mm.party_rating_agg(float8, float8, float8, float8, float8) IS
    'IMS party rating over a party''s rows (mu, sigma, max_mu_weight, med_mu_weight, ordinal_deviations)';

CREATE AGGREGATE mm.party_rating_agg(mu float8, sigma float8) (
    SFUNC = mm.party_rating_accum,
    STYPE = internal,
    FINALFUNC = mm.party_rating_final,
    COMBINEFUNC = mm.party_rating_combine,
    SERIALFUNC = mm.party_rating_serialize,
    DESERIALFUNC = mm.party_rating_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE mm.party_rating_agg(float8, float8) IS
    'IMS party rating over a party''s rows with max_mu_weight 2, med_mu_weight 1, ordinal_deviations 3';


-- server_breakdown refuses arrays of different lengths and scores that are
-- not finite, instead of passing NaN or Infinity into its jsonb.
CREATE OR REPLACE FUNCTION mm.server_breakdown(signals text[], signal_scores float8[])
RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF pg_catalog.cardinality(signals) <> pg_catalog.cardinality(signal_scores) THEN
        RAISE EXCEPTION 'signals and signal_scores must have the same length'
            USING ERRCODE = 'array_subscript_error',
                  DETAIL = pg_catalog.format('signals has %s elements, signal_scores has %s.',
                                             pg_catalog.cardinality(signals),
                                             pg_catalog.cardinality(signal_scores)),
                  HINT = 'Pass the signals and signal_scores of one mm.rank_servers row.';
    END IF;
    IF EXISTS (SELECT 1 FROM pg_catalog.unnest(signal_scores) AS u(s)
               WHERE u.s IS NULL OR u.s IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8)) THEN
        RAISE EXCEPTION 'signal scores must be finite and not NULL'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = pg_catalog.format('The scores are %s.', signal_scores),
                  HINT = 'Pass the signals and signal_scores of one mm.rank_servers row.';
    END IF;
    RETURN (SELECT COALESCE(pg_catalog.jsonb_object_agg(u.n, u.s), '{}')
            FROM unnest(signals, signal_scores) AS u(n, s));  -- ROWS FROM form: not qualifiable
END
$$;
COMMENT ON FUNCTION mm.server_breakdown(text[], float8[]) IS
    'the per-signal breakdown of a rank_servers row as a jsonb object {signal: score}';

-- Signal weights are capped at 1e12 (so that server scores stay finite): a
-- stored place configuration with a larger weight stops the upgrade here,
-- with the check's message saying which.
SELECT pg_catalog.count(*) FROM mm.place_configs c WHERE NOT mm.check_place_config(c.config);


-- ==== async pool, placement and inlinable signals ====

-- categorical_signal: inlinable (no SET search_path; every name qualified).
CREATE OR REPLACE FUNCTION mm.categorical_signal(a anyelement, b anyelement)
RETURNS float8
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT (a OPERATOR(pg_catalog.=) b)::pg_catalog.int4::pg_catalog.float8 $$;
COMMENT ON FUNCTION mm.categorical_signal(anyelement, anyelement) IS
    'categorical equality signal: 1 when the values are equal, else 0 (server categorical custom signals); inlined by the planner';

-- Async pool: no per-bucket counter rows. The fill of a bucket is counted
-- from the entries' index when a decision needs it; the rebalancing sample
-- becomes rows that puts only add (mm.async_samples) and that are dumped;
-- find_opponent and offer_entry are C.
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
SELECT pg_catalog.pg_extension_config_dump('mm.async_samples', '');
SELECT pg_catalog.pg_extension_config_dump('mm.async_samples_sample_id_seq', '');

-- the 0.1.0 sample of pools that rebalance (player_cache_size set) carries over
INSERT INTO mm.async_samples (pool, labels, bucket, inserts)
SELECT b.pool, b.labels, b.bucket, b.inserts
FROM mm.async_buckets b JOIN mm.async_pools p ON p.pool = b.pool
WHERE b.inserts > 0 AND p.config ->> 'player_cache_size' IS NOT NULL
ORDER BY b.pool, b.labels, b.bucket;

DROP TRIGGER async_count_insert ON mm.async_entries;
DROP TRIGGER async_count_delete ON mm.async_entries;
DROP TRIGGER async_count_update ON mm.async_entries;
DROP FUNCTION mm.async_count_fill();
DROP TABLE mm.async_buckets;
DROP FUNCTION mm.async_fill(text, text[], int);
CREATE FUNCTION mm.async_fill(pool text, labels text[], lower_mmr float8, upper_mmr float8,
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
COMMENT ON FUNCTION mm.async_fill(text, text[], float8, float8, int) IS
    'internal: entries a bucket holds, counted on the index up to upto (NULL: all)';

CREATE OR REPLACE FUNCTION mm.alter_pool(name text, config jsonb)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    old_cfg jsonb := mm.async_pool_config(name);
    new_cfg jsonb;
    rebucket boolean;
BEGIN
    -- the given keys replace the old values; null for a nullable key resets it
    new_cfg := mm.async_config(old_cfg || coalesce(config, '{}'));
    UPDATE mm.async_pools p SET config = new_cfg WHERE p.pool = name;
    rebucket := (new_cfg ->> 'min_mmr', new_cfg ->> 'max_mmr', new_cfg ->> 'mmr_bucket_count')
        IS DISTINCT FROM (old_cfg ->> 'min_mmr', old_cfg ->> 'max_mmr', old_cfg ->> 'mmr_bucket_count');
    IF rebucket THEN
        -- the buckets changed: forget the old sizing model
        DELETE FROM mm.async_bucket_sizes s WHERE s.pool = name;
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
COMMENT ON FUNCTION mm.alter_pool(text, jsonb) IS
    'change some keys of a pool config; returns the new config. A new MMR range or bucket count forgets the sizing model and restarts the rebalancing sample from the entries held';

CREATE OR REPLACE FUNCTION mm.pool_buckets(pool text)
RETURNS TABLE(labels text[], bucket int, lower_mmr float8, upper_mmr float8,
              fill int, capacity int, inserts bigint)
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    cfg jsonb := mm.async_pool_config(pool);
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
           mm.async_capacity(pool_buckets.pool, k.labels, k.bucket, cfg), coalesce(x.inserts, 0)
    FROM (SELECT h2.labels, h2.bucket FROM held h2
          UNION SELECT x2.labels, x2.bucket FROM sampled x2) k
    LEFT JOIN held h ON h.labels = k.labels AND h.bucket = k.bucket
    LEFT JOIN sampled x ON x.labels = k.labels AND x.bucket = k.bucket
    CROSS JOIN LATERAL mm.async_bucket_bounds(cfg, k.bucket, k.bucket) r
    ORDER BY k.labels, k.bucket;
END
$$;
COMMENT ON FUNCTION mm.pool_buckets(text) IS
    'the buckets of a pool that hold entries or were sampled: MMR interval, fill (counted now), capacity, entries added since the sample started';

CREATE OR REPLACE FUNCTION mm.put_entry(pool text, player_id bigint, mmr float8,
                             labels text[] DEFAULT '{}', model jsonb DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    cfg jsonb := mm.async_pool_config(pool);
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
    id bigint;
BEGIN
    IF put_entry.player_id IS NULL THEN
        RAISE EXCEPTION 'player_id must not be NULL'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass the id of the player whose entry this is.';
    END IF;
    PERFORM mm.async_check_query(put_entry.mmr, put_entry.labels, 0);
    lab := mm.async_labels(put_entry.labels);
    b := mm.async_bucket(cfg, put_entry.mmr);
    SELECT r.lower_mmr, r.upper_mmr INTO lo, hi FROM mm.async_bucket_bounds(cfg, b, b) r;

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
    cap := mm.async_capacity(pool, lab, b, cfg);
    -- counted up to a little past the capacity: exact unless the bucket is
    -- far over it (a lowered capacity, rows written directly), which then
    -- shrinks by 17 entries a put
    f := mm.async_fill(pool, lab, lo, hi, cap + 16);
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
COMMENT ON FUNCTION mm.put_entry(text, bigint, float8, text[], jsonb) IS
    'add or update a player''s entry (the player state update of Metaplay''s documentation); returns the entry id, NULL if ignored by player_ignore_update_insert_threshold';

CREATE OR REPLACE FUNCTION mm.offer_entry(entry_id bigint)
RETURNS boolean
AS 'MODULE_PATHNAME', 'mm_offer_entry'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION mm.offer_entry(bigint) IS
    'offer an entry picked from mm.find_candidates: true if it was still available (then removed per the pool''s threshold), false if gone or taken by a concurrent query';

CREATE OR REPLACE FUNCTION mm.find_opponent(pool text, mmr float8, labels text[] DEFAULT '{}',
                                 retries int DEFAULT 0, exclude bigint[] DEFAULT '{}',
                                 searcher bigint DEFAULT NULL)
RETURNS TABLE(result text, player_id bigint, mmr float8, quality float8, model jsonb)
AS 'MODULE_PATHNAME', 'mm_find_opponent'
LANGUAGE C VOLATILE ROWS 1;
COMMENT ON FUNCTION mm.find_opponent(text, float8, text[], int, bigint[], bigint) IS
    'the best opponent for a query (Metaplay''s async matchmaker documentation): success, none_found or fake_opponent; never the searcher or an excluded player';

CREATE OR REPLACE FUNCTION mm.rebalance_pool(pool text)
RETURNS TABLE(labels text[], bucket int, capacity int)
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    cfg jsonb := mm.async_pool_config(pool);
    cache int := (cfg ->> 'player_cache_size')::int;
    min_size int := (cfg ->> 'bucket_min_size')::int;
    total bigint;
BEGIN
    IF cache IS NULL THEN
        RAISE EXCEPTION 'pool "%" has no player_cache_size', pool
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'Rebalancing shares player_cache_size among the buckets.',
                  HINT = format('Set it first: SELECT mm.alter_pool(%L, ''{"player_cache_size": 100000}'');', pool);
    END IF;
    -- merge the sample to one row per bucket (puts keep adding rows)
    WITH gone AS (
        DELETE FROM mm.async_samples s WHERE s.pool = rebalance_pool.pool
        RETURNING s.pool, s.labels, s.bucket, s.inserts
    )
    INSERT INTO mm.async_samples (pool, labels, bucket, inserts)
    SELECT g.pool, g.labels, g.bucket, sum(g.inserts)
    FROM gone g GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;
    SELECT sum(s.inserts) INTO total FROM mm.async_samples s WHERE s.pool = rebalance_pool.pool;
    IF coalesce(total, 0) > 0 THEN
        -- each bucket gets its share of the sampled inserts, at least the minimum
        DELETE FROM mm.async_bucket_sizes z WHERE z.pool = rebalance_pool.pool;
        INSERT INTO mm.async_bucket_sizes (pool, labels, bucket, capacity)
        SELECT s.pool, s.labels, s.bucket,
               least(cache, greatest(min_size, floor(cache::float8 * s.inserts / total)::int))
        FROM mm.async_samples s WHERE s.pool = rebalance_pool.pool;
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
COMMENT ON FUNCTION mm.rebalance_pool(text) IS
    'size each bucket from the observed share of inserts (the dynamic bucket sizing of Metaplay''s documentation): capacity = max(bucket_min_size, player_cache_size * share)';

DROP FUNCTION mm.async_find(text, float8, text[], int, bigint[], bigint);
DROP FUNCTION mm.async_take(jsonb, bigint);

-- Placement, finished: remove a server, update a seated player, join a
-- party, the weights of a place's signals and a weighted breakdown.

CREATE FUNCTION mm.remove_server(server_id bigint)
RETURNS boolean
LANGUAGE plpgsql VOLATILE STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    -- Takes the server row's lock, as joins do: a joiner waiting on it then
    -- finds the server gone and moves on to the next one. Its players go
    -- with it (mm.server_players references it ON DELETE CASCADE).
    DELETE FROM mm.servers s WHERE s.server_id = remove_server.server_id;
    RETURN FOUND;
END
$$;
COMMENT ON FUNCTION mm.remove_server(bigint) IS
    'shut a server down: remove it and its players; false when there was none';

CREATE FUNCTION mm.set_player_attributes(player_id bigint, attributes jsonb)
RETURNS boolean
LANGUAGE plpgsql VOLATILE STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    sid bigint;
BEGIN
    IF pg_catalog.jsonb_typeof(attributes) <> 'object' THEN
        RAISE EXCEPTION 'player attributes must be a JSON object'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The value is %s.', attributes),
                  HINT = 'For example {"age": 13, "language": "en"}; null removes an attribute.';
    END IF;
    SELECT p.server_id INTO sid FROM mm.server_players p
    WHERE p.player_id = set_player_attributes.player_id;
    IF sid IS NULL THEN
        RETURN false;
    END IF;
    -- Lock the server row first (as joins and leaves do), so the refresh
    -- below sees every committed player of the server.
    PERFORM 1 FROM mm.servers s WHERE s.server_id = sid FOR UPDATE;
    UPDATE mm.server_players p
    SET attributes = (p.attributes || set_player_attributes.attributes)
                     - ARRAY(SELECT a.key FROM pg_catalog.jsonb_each(set_player_attributes.attributes) a
                             WHERE a.value = 'null'::jsonb)
    WHERE p.player_id = set_player_attributes.player_id AND p.server_id = sid;
    IF NOT FOUND THEN
        -- left (or was moved) meanwhile
        RETURN false;
    END IF;
    PERFORM mm.refresh_servers(ARRAY[sid]);
    RETURN true;
END
$$;
COMMENT ON FUNCTION mm.set_player_attributes(bigint, jsonb) IS
    'update a seated player''s attributes: the given keys replace theirs, null removes one; the server''s aggregates follow; false when the player is on no server';

CREATE FUNCTION mm.join_party(place text, player_ids bigint[], players jsonb[] DEFAULT NULL,
                              preferred bigint[] DEFAULT '{}')
RETURNS bigint
LANGUAGE plpgsql VOLATILE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    n int := coalesce(pg_catalog.cardinality(player_ids), 0);
    attrs jsonb[] := coalesce(players, pg_catalog.array_fill('{}'::jsonb, ARRAY[n]));
    seated text;
    candidate bigint;
    taken bigint;
BEGIN
    IF place IS NULL OR player_ids IS NULL OR preferred IS NULL THEN
        RAISE EXCEPTION '% must not be NULL',
            CASE WHEN place IS NULL THEN 'place' WHEN player_ids IS NULL THEN 'player_ids' ELSE 'preferred' END
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass the place, the party''s player ids and ''{}'' for no preferred players.';
    END IF;
    IF n = 0 THEN
        RAISE EXCEPTION 'a party must have at least one player'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Pass the party''s player ids, such as ''{7, 8}''.';
    END IF;
    IF pg_catalog.array_position(player_ids, NULL) IS NOT NULL
       OR pg_catalog.array_position(attrs, NULL) IS NOT NULL THEN
        RAISE EXCEPTION '% must not contain NULL elements',
            CASE WHEN pg_catalog.array_position(player_ids, NULL) IS NOT NULL THEN 'player_ids' ELSE 'players' END
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Give every player an id, and ''{}'' for a player without attributes.';
    END IF;
    IF pg_catalog.cardinality(attrs) <> n THEN
        RAISE EXCEPTION 'players must have one element per player id'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('There are %s player ids and %s attribute objects.', n, pg_catalog.cardinality(attrs)),
                  HINT = 'players[i] holds the attributes of player_ids[i]; pass NULL for none.';
    END IF;
    IF (SELECT count(DISTINCT i) FROM pg_catalog.unnest(player_ids) i) <> n THEN
        RAISE EXCEPTION 'player_ids must not repeat a player'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The ids are %s.', player_ids);
    END IF;
    SELECT string_agg(format('%s (server %s)', p.player_id, p.server_id), ', ' ORDER BY p.player_id)
    INTO seated FROM mm.server_players p WHERE p.player_id = ANY (player_ids);
    IF seated IS NOT NULL THEN
        RAISE EXCEPTION 'players of the party are already on a server'
            USING ERRCODE = 'unique_violation',
                  DETAIL = format('Seated: %s.', seated),
                  HINT = 'Call mm.leave_server for them first.';
    END IF;
    -- ranked for the party's first player (its leader)
    FOR candidate IN
        SELECT r.server_id FROM mm.rank_servers(join_party.place, attrs[1], join_party.preferred) r
    LOOP
        -- the best server with a slot for everyone, once we hold its row lock
        UPDATE mm.servers s SET occupancy = s.occupancy + n
        WHERE s.server_id = candidate AND s.occupancy + n <= s.capacity
        RETURNING s.server_id INTO taken;
        IF taken IS NOT NULL THEN
            BEGIN
                INSERT INTO mm.server_players (player_id, server_id, attributes)
                SELECT u.id, taken, u.a FROM unnest(player_ids, attrs) AS u(id, a);
            EXCEPTION WHEN unique_violation THEN
                RAISE EXCEPTION 'players of the party joined a server meanwhile'
                    USING ERRCODE = 'unique_violation',
                          HINT = 'Nothing was changed; call mm.join_party again.';
            END;
            PERFORM mm.refresh_servers(ARRAY[taken]);
            RETURN taken;
        END IF;
    END LOOP;
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION mm.join_party(text, bigint[], jsonb[], bigint[]) IS
    'put a party on the best server (ranked for its first player) with a free slot for every member, all or none; NULL when no server has room';

CREATE FUNCTION mm.place_signals(place text)
RETURNS TABLE(signal text, kind text, weight float8)
AS 'MODULE_PATHNAME', 'mm_place_signals'
LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION mm.place_signals(text) IS
    'the signals a place scores servers with (its config or the Roblox default), weight-0 signals left out, in rank_servers'' order';

CREATE FUNCTION mm.server_breakdown_weighted(place text, signals text[], signal_scores float8[])
RETURNS jsonb
LANGUAGE plpgsql STABLE STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    result jsonb;
    unknown text;
BEGIN
    IF coalesce(pg_catalog.cardinality(signals), 0) <> coalesce(pg_catalog.cardinality(signal_scores), 0) THEN
        RAISE EXCEPTION 'signals and signal_scores must have the same length'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('There are %s signals and %s scores.',
                                  pg_catalog.cardinality(signals), pg_catalog.cardinality(signal_scores)),
                  HINT = 'Pass the signals and signal_scores columns of one mm.rank_servers row.';
    END IF;
    IF pg_catalog.array_position(signals, NULL) IS NOT NULL
       OR pg_catalog.array_position(signal_scores, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'signals and signal_scores must not contain NULL elements'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF EXISTS (SELECT 1 FROM pg_catalog.unnest(signal_scores) x
               WHERE NOT (x >= 0 AND x <= 1)) THEN
        RAISE EXCEPTION 'signal scores must be between 0 and 1'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The scores are %s.', signal_scores),
                  HINT = 'Pass the signal_scores column of one mm.rank_servers row.';
    END IF;
    SELECT string_agg(u.n, ', ') INTO unknown
    FROM pg_catalog.unnest(signals) u(n)
    WHERE NOT EXISTS (SELECT 1 FROM mm.place_signals(place) w WHERE w.signal = u.n);
    IF unknown IS NOT NULL THEN
        RAISE EXCEPTION 'place "%" does not score with %', place, unknown
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'See the place''s signals with mm.place_signals.';
    END IF;
    SELECT coalesce(pg_catalog.jsonb_object_agg(u.n, pg_catalog.jsonb_build_object(
               'score', u.s, 'weight', w.weight, 'weighted', u.s * w.weight)), '{}')
    INTO result
    FROM unnest(signals, signal_scores) AS u(n, s)
    JOIN mm.place_signals(place) w ON w.signal = u.n;
    RETURN result;
END
$$;
COMMENT ON FUNCTION mm.server_breakdown_weighted(text, text[], float8[]) IS
    'the breakdown of a rank_servers row with each signal''s weight: {signal: {"score", "weight", "weighted"}}; the weighted values sum to the row''s score';


-- ==== queue engine ====
-- The queue tables hold their invariants as keys, foreign keys and CHECKs:
-- a player is a row of mm.queued_player (with its queue, seat and
-- profession) referencing its roster with a cascade, the statement
-- triggers go, rosters' numbers and joined_at are checked by the table,
-- matches get a status and a delivery time, ticket history is kept in
-- mm.ticket_event, and the tick log counts failed targets' reasons. The
-- data of 0.1.0 carries over: waiting rosters with their players, matches
-- with their rosters, the tick log; rosters that break the new CHECKs
-- (non-finite or future joined_at, non-finite numbers) are removed and
-- recorded as such.

DROP VIEW mm.queue_stats;
DROP TRIGGER roster_deleted ON mm.roster;
DROP FUNCTION mm._roster_deleted();
DROP TRIGGER match_deleted ON mm.match;
DROP FUNCTION mm._match_deleted();
DROP FUNCTION mm._queue_query(int, boolean);
DROP FUNCTION mm._match_rosters(text, jsonb, timestamptz, bool);
DROP INDEX mm.queued_player_roster_idx;
DROP FUNCTION mm.alter_queue(text, jsonb);
DROP FUNCTION mm.drop_queue(text);

-- queues: a dropped queue may keep its history; live names are unique
ALTER TABLE mm.queue DROP CONSTRAINT queue_name_key, ADD COLUMN dropped_at timestamptz;
CREATE UNIQUE INDEX queue_name_idx ON mm.queue (name) WHERE dropped_at IS NULL;

-- The life of each ticket, one row per player and state: waiting when
-- queued, then matched, expired, left or removed. Kept after the roster
-- is gone; mm.purge trims it. queue_id has no foreign key: a tick writes
-- a row per matched player, and a check per row cost a third of a
-- full-queue tick; mm.drop_queue and mm.purge delete a queue's rows. event_id orders the events as they
-- happened (their "at" is the tick's time, which a caller may give).
CREATE SEQUENCE mm.ticket_event_id_seq;
COMMENT ON SEQUENCE mm.ticket_event_id_seq IS 'ids of mm.ticket_event, in the order events are recorded';
CREATE TABLE mm.ticket_event (
    event_id  bigint NOT NULL DEFAULT nextval('mm.ticket_event_id_seq'),
    roster_id bigint NOT NULL,
    player_id bigint NOT NULL,
    status    text NOT NULL,
    at        timestamptz NOT NULL,
    queue_id  int NOT NULL,
    match_id  bigint,
    reason    text,
    CONSTRAINT ticket_event_pkey PRIMARY KEY (roster_id, player_id, status),
    CONSTRAINT ticket_event_status_check CHECK (status IN ('waiting', 'matched', 'expired', 'left', 'removed')),
    CONSTRAINT ticket_event_match_check CHECK ((status = 'matched') = (match_id IS NOT NULL)),
    CONSTRAINT ticket_event_at_check CHECK (isfinite(at))
);
ALTER SEQUENCE mm.ticket_event_id_seq OWNED BY mm.ticket_event.event_id;
CREATE INDEX ticket_event_player_idx ON mm.ticket_event (player_id, event_id);
COMMENT ON TABLE mm.ticket_event IS 'ticket history: per roster and player, when it started waiting and how it ended (matched with its match, expired, left, removed) with a reason';
COMMENT ON INDEX mm.ticket_event_player_idx IS 'a player''s tickets by time (mm.ticket_status)';

SELECT pg_catalog.pg_extension_config_dump('mm.ticket_event', '');
SELECT pg_catalog.pg_extension_config_dump('mm.ticket_event_id_seq', '');

-- players: one row each with queue, seat and profession; rows whose roster
-- is gone (TRUNCATE in 0.1.0) are dropped, players of a roster missing
-- from mm.queued_player are added unless queued elsewhere
ALTER TABLE mm.queued_player ADD COLUMN queue_id int, ADD COLUMN seat int, ADD COLUMN profession text;
UPDATE mm.queued_player qp SET queue_id = r.queue_id, seat = u.o, profession = nullif(r.professions[u.o], '')
FROM mm.roster r, unnest(r.players) WITH ORDINALITY AS u(p, o)
WHERE r.roster_id = qp.roster_id AND u.p = qp.player_id
  AND NOT (NOT (r.rating > '-Infinity' AND r.rating < 'Infinity')
     OR NOT (r.deviation >= 0 AND r.deviation < 'Infinity')
     OR NOT (r.rank > '-Infinity' AND r.rank < 'Infinity')
     OR NOT (r.ladder_points > '-Infinity' AND r.ladder_points < 'Infinity')
     OR NOT (isfinite(r.joined_at) AND r.joined_at <= now()));
DELETE FROM mm.queued_player qp WHERE qp.queue_id IS NULL;
INSERT INTO mm.queued_player (player_id, roster_id, queue_id, seat, profession)
SELECT u.p, r.roster_id, r.queue_id, u.o, nullif(r.professions[u.o], '')
FROM mm.roster r, unnest(r.players) WITH ORDINALITY AS u(p, o)
WHERE u.p IS NOT NULL AND NOT (NOT (r.rating > '-Infinity' AND r.rating < 'Infinity')
     OR NOT (r.deviation >= 0 AND r.deviation < 'Infinity')
     OR NOT (r.rank > '-Infinity' AND r.rank < 'Infinity')
     OR NOT (r.ladder_points > '-Infinity' AND r.ladder_points < 'Infinity')
     OR NOT (isfinite(r.joined_at) AND r.joined_at <= now()))
ON CONFLICT (player_id) DO NOTHING;
-- ticket history: waiting rosters, and the rosters the new CHECKs refuse
-- (non-finite numbers, non-finite or future joined_at), which are removed
INSERT INTO mm.ticket_event (roster_id, player_id, status, at, queue_id)
SELECT qp.roster_id, qp.player_id, 'waiting', r.joined_at, r.queue_id
FROM mm.queued_player qp JOIN mm.roster r USING (roster_id);
INSERT INTO mm.ticket_event (roster_id, player_id, status, at, queue_id, reason)
SELECT DISTINCT ON (r.roster_id, u.p) r.roster_id, u.p, 'removed', now(), r.queue_id, 'invalid roster data in 0.1.0'
FROM mm.roster r, unnest(r.players) AS u(p)
WHERE u.p IS NOT NULL AND (NOT (r.rating > '-Infinity' AND r.rating < 'Infinity')
     OR NOT (r.deviation >= 0 AND r.deviation < 'Infinity')
     OR NOT (r.rank > '-Infinity' AND r.rank < 'Infinity')
     OR NOT (r.ladder_points > '-Infinity' AND r.ladder_points < 'Infinity')
     OR NOT (isfinite(r.joined_at) AND r.joined_at <= now()));
DELETE FROM mm.roster r WHERE (NOT (r.rating > '-Infinity' AND r.rating < 'Infinity')
     OR NOT (r.deviation >= 0 AND r.deviation < 'Infinity')
     OR NOT (r.rank > '-Infinity' AND r.rank < 'Infinity')
     OR NOT (r.ladder_points > '-Infinity' AND r.ladder_points < 'Infinity')
     OR NOT (isfinite(r.joined_at) AND r.joined_at <= now()));
DELETE FROM mm.roster r WHERE NOT EXISTS (SELECT FROM mm.queued_player qp WHERE qp.roster_id = r.roster_id);

ALTER TABLE mm.roster DROP COLUMN players, DROP COLUMN professions;
ALTER TABLE mm.roster
    ADD CONSTRAINT roster_queue_roster_key UNIQUE (queue_id, roster_id),
    ADD CONSTRAINT roster_rating_finite CHECK (rating > '-Infinity' AND rating < 'Infinity'),
    ADD CONSTRAINT roster_deviation_finite CHECK (deviation >= 0 AND deviation < 'Infinity'),
    ADD CONSTRAINT roster_rank_finite CHECK (rank > '-Infinity' AND rank < 'Infinity'),
    ADD CONSTRAINT roster_ladder_points_finite CHECK (ladder_points > '-Infinity' AND ladder_points < 'Infinity'),
    ADD CONSTRAINT roster_joined_at_check CHECK (isfinite(joined_at) AND joined_at <= now());
CREATE INDEX roster_queue_joined_idx ON mm.roster (queue_id, joined_at);
ALTER TABLE mm.queued_player
    ALTER COLUMN queue_id SET NOT NULL,
    ALTER COLUMN seat SET NOT NULL,
    ADD CONSTRAINT queued_player_seat_key UNIQUE (queue_id, roster_id, seat),
    ADD CONSTRAINT queued_player_roster_fkey FOREIGN KEY (queue_id, roster_id)
        REFERENCES mm.roster (queue_id, roster_id) ON DELETE CASCADE,
    ADD CONSTRAINT queued_player_seat_check CHECK (seat BETWEEN 1 AND 1000),
    ADD CONSTRAINT queued_player_profession_check CHECK (profession <> '');

-- matches: status and delivery (0.1.0 matches count as delivered); match
-- rosters get their queue and a foreign key, orphans (a match deleted
-- with triggers off) go
ALTER TABLE mm.match ADD COLUMN status text NOT NULL DEFAULT 'matched', ADD COLUMN delivered_at timestamptz;
UPDATE mm.match SET delivered_at = created_at;
ALTER TABLE mm.match
    ADD CONSTRAINT match_queue_match_key UNIQUE (queue_id, match_id),
    ADD CONSTRAINT match_status_check CHECK (status IN ('matched', 'finished'));
CREATE INDEX match_undelivered_idx ON mm.match (queue_id, match_id) WHERE delivered_at IS NULL;
ALTER TABLE mm.match_roster ADD COLUMN queue_id int;
UPDATE mm.match_roster mr SET queue_id = m.queue_id FROM mm.match m WHERE m.match_id = mr.match_id;
DELETE FROM mm.match_roster mr WHERE mr.queue_id IS NULL;
ALTER TABLE mm.match_roster
    ALTER COLUMN queue_id SET NOT NULL,
    ADD CONSTRAINT match_roster_match_fkey FOREIGN KEY (queue_id, match_id)
        REFERENCES mm.match (queue_id, match_id) ON DELETE CASCADE;
INSERT INTO mm.ticket_event (roster_id, player_id, status, at, queue_id, match_id)
SELECT DISTINCT ON (mr.roster_id, u.p, s.status) mr.roster_id, u.p, s.status,
       CASE WHEN s.status = 'waiting' THEN mr.joined_at ELSE m.created_at END, mr.queue_id,
       CASE WHEN s.status = 'matched' THEN mr.match_id END
FROM mm.match_roster mr JOIN mm.match m USING (match_id), unnest(mr.players) AS u(p),
     (VALUES ('waiting'), ('matched')) AS s(status)
WHERE isfinite(mr.joined_at) AND isfinite(m.created_at);

-- tick log: reasons of failed targets (unknown for 0.1.0 ticks)
ALTER TABLE mm.tick_log
    ADD COLUMN matches_dropped int NOT NULL DEFAULT 0,
    ADD COLUMN rosters_expired int NOT NULL DEFAULT 0,
    ADD COLUMN failed_reasons jsonb NOT NULL DEFAULT '{}',
    ADD CONSTRAINT tick_log_failed_reasons_check CHECK (jsonb_typeof(failed_reasons) = 'object');

COMMENT ON INDEX mm.queue_name_idx IS 'a live queue''s name is unique; a dropped queue whose history is kept keeps its name';
COMMENT ON TABLE mm.queue IS 'matchmaking queues and their matcher configuration (see mm.matcher_config); dropped_at is set when mm.drop_queue keeps the history';
COMMENT ON TABLE mm.roster IS 'rosters (tickets) waiting in a queue, their players in mm.queued_player; a matched roster moves to mm.match_roster';
COMMENT ON INDEX mm.roster_queue_joined_idx IS 'a queue by time joined (ticket expiry)';
COMMENT ON CONSTRAINT roster_joined_at_check ON mm.roster IS 'joined_at is finite and not in the future';
COMMENT ON TABLE mm.queued_player IS 'the players of waiting rosters, one row each: a player is in at most one waiting roster across all queues (its primary key); seat is its place in the party, profession its profession if the roster has them';
COMMENT ON INDEX mm.queued_player_seat_key IS 'players of a roster in party order';
COMMENT ON TABLE mm.match IS 'matches made by ticks: prediction in [-1, 1] (-1 red dominates), each team''s odds of victory, rating spread (max - min effective rating of its rosters), status (matched, finished), when mm.claim_matches delivered it';
COMMENT ON INDEX mm.match_undelivered_idx IS 'matches of a queue not yet claimed (mm.claim_matches)';
COMMENT ON TABLE mm.tick_log IS 'one row per mm.tick: duration, rosters seen, matches made, failed targets with their reasons counted, matches dropped because a roster left meanwhile, rosters expired, oldest wait';

CREATE FUNCTION mm._match_rosters(rosters text, config jsonb, at timestamptz, naive bool DEFAULT false)
RETURNS TABLE (roster_id bigint, outcome text, match_no int, team text, failed_no int, reason text)
AS 'MODULE_PATHNAME', 'mm_match_rosters_outcomes'
LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION mm._match_rosters(text, jsonb, timestamptz, bool) IS
    'internal (tests): the outcome of every matched roster and tried target of mm.match_rosters (matched with match_no and team, or failed with its order of failure and reason); naive scans the queue for potentials as the GW2 pseudo-code does';

-- Merge jsonb objects: b's keys replace a's, nested objects merge.
CREATE OR REPLACE FUNCTION mm._jsonb_merge(a jsonb, b jsonb)
RETURNS jsonb
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mm, pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN jsonb_typeof(a) = 'object' AND jsonb_typeof(b) = 'object' THEN
               a || coalesce((SELECT jsonb_object_agg(k.key,
                                                      CASE WHEN a ? k.key THEN mm._jsonb_merge(a -> k.key, k.value)
                                                           ELSE k.value END)
                              FROM jsonb_each(b) k), '{}')
           ELSE b END
$$;
COMMENT ON FUNCTION mm._jsonb_merge(jsonb, jsonb) IS
    'internal: b merged into a: b''s keys replace a''s, nested objects are merged key by key';

CREATE OR REPLACE FUNCTION mm.alter_queue(name text, config jsonb, replace boolean DEFAULT false)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q mm.queue;
    new_cfg jsonb;
    size int;
    removed int;
BEGIN
    IF config IS NULL OR replace IS NULL THEN
        RAISE EXCEPTION 'queue config and replace must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass ''{}'' to change nothing.';
    END IF;
    -- FOR NO KEY UPDATE: ticks and enqueues (FOR KEY SHARE through their
    -- foreign keys) do not wait for it
    SELECT * INTO q FROM mm.queue WHERE queue.name = alter_queue.name AND queue.dropped_at IS NULL FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'queue "%" does not exist', name
            USING ERRCODE = 'undefined_object', HINT = 'Create it with mm.create_queue.';
    END IF;
    new_cfg := CASE WHEN replace THEN config ELSE mm._jsonb_merge(q.config, config) END;
    size := (mm.matcher_config(new_cfg) ->> 'team_size')::int;
    UPDATE mm.queue SET config = new_cfg WHERE queue.queue_id = q.queue_id;
    -- rosters larger than a team now could never match: take them out
    SELECT count(*) INTO removed
    FROM mm._end_rosters(ARRAY(SELECT qp.roster_id FROM mm.queued_player qp
                               WHERE qp.queue_id = q.queue_id
                               GROUP BY qp.roster_id HAVING count(*) > size),
                         'removed', 'team_size', false);
    IF removed > 0 THEN
        RAISE NOTICE '% rosters of queue "%" had more players than the new team size and were removed', removed, name
            USING HINT = 'mm.ticket_status tells their players; they may queue again in smaller parties.';
    END IF;
    RETURN new_cfg;
END
$$;
COMMENT ON FUNCTION mm.alter_queue(text, jsonb, boolean) IS
    'change some keys of a queue''s config (nested objects merge; replace => true stores the config as given); returns the stored config; the next tick uses it; rosters larger than a new team_size are removed (reason team_size)';

CREATE OR REPLACE FUNCTION mm.drop_queue(name text, keep_history boolean DEFAULT true)
RETURNS void
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    id int;
BEGIN
    SELECT q.queue_id INTO id FROM mm.queue q
    WHERE q.name = drop_queue.name AND q.dropped_at IS NULL FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'queue "%" does not exist', name
            USING ERRCODE = 'undefined_object', HINT = 'See the queues in mm.queue.';
    END IF;
    IF keep_history IS DISTINCT FROM false THEN
        PERFORM mm._end_rosters(ARRAY(SELECT r.roster_id FROM mm.roster r WHERE r.queue_id = id),
                                'removed', 'drop_queue', false);
        UPDATE mm.queue q SET dropped_at = now() WHERE q.queue_id = id;
    ELSE
        DELETE FROM mm.ticket_event e WHERE e.queue_id = id;
        DELETE FROM mm.queue q WHERE q.queue_id = id;
    END IF;
END
$$;
COMMENT ON FUNCTION mm.drop_queue(text, boolean) IS
    'drop a queue: its waiting rosters are removed; with keep_history (the default) its matches, ticket history and tick log stay (the queue row is marked dropped, its name free again) until mm.purge trims them; keep_history => false deletes them all';

-- Look up a queue by name, or fail.
CREATE OR REPLACE FUNCTION mm._queue(name text)
RETURNS mm.queue
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q mm.queue;
BEGIN
    SELECT * INTO q FROM mm.queue WHERE queue.name = _queue.name AND queue.dropped_at IS NULL;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'queue "%" does not exist', name
            USING ERRCODE = 'undefined_object', HINT = 'Create it with mm.create_queue.';
    END IF;
    RETURN q;
END
$$;
COMMENT ON FUNCTION mm._queue(text) IS 'internal: the queue of that name, or an error';

-- Check a roster's numbers (enqueue and update_roster); the table's CHECKs
-- hold the same rules, these give the message.
CREATE OR REPLACE FUNCTION mm._check_roster(rating float8, deviation float8, rank float8,
                                 ladder_points float8, dishonor int, professions text[], players int)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    v float8;
    n text;
BEGIN
    FOR n, v IN VALUES ('rating', rating), ('deviation', deviation), ('rank', rank), ('ladder_points', ladder_points) LOOP
        IF v IS NOT NULL AND (v = 'NaN' OR v IN ('Infinity', '-Infinity')) THEN
            RAISE EXCEPTION '% must be finite', n
                USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The value is %s.', v);
        END IF;
    END LOOP;
    IF deviation < 0 THEN
        RAISE EXCEPTION 'deviation must not be negative'
            USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The value is %s.', deviation);
    END IF;
    IF dishonor < 0 THEN
        RAISE EXCEPTION 'dishonor must not be negative'
            USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The value is %s.', dishonor);
    END IF;
    IF professions IS NOT NULL THEN
        IF array_position(professions, NULL) IS NOT NULL THEN
            RAISE EXCEPTION 'professions must not contain nulls'
                USING ERRCODE = 'null_value_not_allowed';
        END IF;
        IF array_position(professions, '') IS NOT NULL THEN
            RAISE EXCEPTION 'professions must not be empty strings'
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        IF cardinality(professions) NOT IN (0, players) THEN
            RAISE EXCEPTION 'professions must name one profession per player'
                USING ERRCODE = 'invalid_parameter_value',
                      DETAIL = format('The roster has %s players and %s professions.', players, cardinality(professions)),
                      HINT = 'Give one profession per player, in the order of players, or none.';
        END IF;
    END IF;
END
$$;
COMMENT ON FUNCTION mm._check_roster(float8, float8, float8, float8, int, text[], int) IS
    'internal: check a roster''s rating, deviation, rank, ladder points, dishonor and professions';

CREATE OR REPLACE FUNCTION mm.enqueue(queue text, players bigint[], rating float8, deviation float8 DEFAULT 0,
                           rank float8 DEFAULT 0, ladder_points float8 DEFAULT 0,
                           dishonor int DEFAULT NULL, professions text[] DEFAULT '{}',
                           joined_at timestamptz DEFAULT now())
RETURNS bigint
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q mm.queue := mm._queue(queue);
    cfg jsonb := mm.matcher_config(q.config);
    team_size int := (cfg ->> 'team_size')::int;
    n int := cardinality(players);
    p bigint;
    other bigint;
    s timestamptz;
    stacks int;
    id bigint;
BEGIN
    IF players IS NULL OR n = 0 THEN
        RAISE EXCEPTION 'roster must have at least one player'
            USING ERRCODE = 'invalid_parameter_value', HINT = 'Pass the party''s player ids, such as ARRAY[1, 2].';
    END IF;
    IF array_ndims(players) > 1 THEN
        RAISE EXCEPTION 'players must be a one-dimensional array'
            USING ERRCODE = 'array_subscript_error';
    END IF;
    IF n > team_size THEN
        RAISE EXCEPTION 'roster is larger than a team'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The roster has %s players; queue "%s" has teams of %s.', n, queue, team_size),
                  HINT = 'Split the party, or queue it where teams are larger.';
    END IF;
    IF array_position(players, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'players must not contain nulls' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    SELECT x INTO p FROM unnest(players) x GROUP BY x HAVING count(*) > 1 ORDER BY x LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'player % appears twice in the roster', p
            USING ERRCODE = 'invalid_parameter_value', HINT = 'List each player once.';
    END IF;
    IF rating IS NULL OR deviation IS NULL OR rank IS NULL OR ladder_points IS NULL
       OR professions IS NULL OR joined_at IS NULL THEN
        RAISE EXCEPTION 'rating, deviation, rank, ladder_points, professions and joined_at must not be null'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF NOT isfinite(joined_at) THEN
        RAISE EXCEPTION 'joined_at must be finite' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF joined_at > now() THEN
        RAISE EXCEPTION 'joined_at must not be in the future'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('joined_at is %s and the transaction started at %s.', joined_at, now()),
                  HINT = 'Leave joined_at out to queue the roster now.';
    END IF;
    PERFORM mm._check_roster(rating, deviation, rank, ladder_points, dishonor, professions, n);

    -- dishonor: players in a timeout now may not queue (whatever joined_at
    -- says); stacks default the roster's dishonor
    SELECT d.player_id, d.timeout_until INTO p, s
    FROM mm.dishonor_statuses(players, now()) d
    WHERE d.timeout_until > now() ORDER BY d.timeout_until DESC LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'player % is in a dishonor timeout', p
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = format('The timeout lasts until %s.', s),
                  HINT = format('The player can queue again at %s.', s);
    END IF;
    SELECT coalesce(sum(d.stacks), 0) INTO stacks FROM mm.dishonor_statuses(players, now()) d;

    SELECT qp.player_id, qp.roster_id INTO p, other
    FROM mm.queued_player qp WHERE qp.player_id = ANY (players) ORDER BY qp.player_id LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'player % is already queued', p
            USING ERRCODE = 'unique_violation',
                  DETAIL = format('The player is in waiting roster %s.', other),
                  HINT = format('Call mm.leave(%s) first.', other);
    END IF;

    -- requeue_while_in_match false: a player whose last match is not
    -- finished waits for it
    IF NOT (cfg ->> 'requeue_while_in_match')::boolean THEN
        SELECT e.player_id, e.match_id INTO p, other
        FROM unnest(players) AS u(x)
        CROSS JOIN LATERAL (SELECT e.player_id, e.match_id FROM mm.ticket_event e
                            WHERE e.player_id = u.x AND e.status = 'matched'
                            ORDER BY e.event_id DESC LIMIT 1) e
        JOIN mm.match m ON m.match_id = e.match_id
        WHERE m.status <> 'finished'
        ORDER BY e.player_id LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'player % is in match % that is not finished', p, other
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      DETAIL = format('Queue "%s" does not let players queue again while in a match.', queue),
                      HINT = 'Queue the player again once the match is finished, or set the queue''s requeue_while_in_match to true.';
        END IF;
    END IF;

    INSERT INTO mm.roster (queue_id, rating, deviation, rank, ladder_points, dishonor, joined_at)
    VALUES (q.queue_id, rating, deviation, rank, ladder_points, coalesce(dishonor, stacks), joined_at)
    RETURNING roster.roster_id INTO id;
    BEGIN
        INSERT INTO mm.queued_player (player_id, roster_id, queue_id, seat, profession)
        SELECT u.x, id, q.queue_id, u.o, professions[u.o]
        FROM unnest(players) WITH ORDINALITY AS u(x, o);
    EXCEPTION WHEN unique_violation THEN
        RAISE EXCEPTION 'a player of the roster was queued at the same time'
            USING ERRCODE = 'unique_violation', HINT = 'Another session queued one of these players; see mm.queued_player.';
    END;
    INSERT INTO mm.ticket_event (roster_id, player_id, status, at, queue_id)
    SELECT id, u.x, 'waiting', joined_at, q.queue_id FROM unnest(players) AS u(x);
    RETURN id;
END
$$;
COMMENT ON FUNCTION mm.enqueue(text, bigint[], float8, float8, float8, float8, int, text[], timestamptz) IS
    'queue a roster (party); joined_at may not lie in the future; players in a dishonor timeout now are refused; dishonor defaults to its players'' stacks (mm.dishonor_status); returns the roster id';

-- Take rosters out of their queue with a reason and record it per player;
-- the rosters that are not waiting (or are locked by a tick, when
-- skip_locked) are left alone. Returns the rosters taken out.
CREATE OR REPLACE FUNCTION mm._end_rosters(roster_ids bigint[], status text, reason text, skip_locked boolean,
                                at timestamptz DEFAULT now())
RETURNS SETOF bigint
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    ids bigint[];
BEGIN
    IF skip_locked THEN
        ids := ARRAY(SELECT r.roster_id FROM mm.roster r
                     WHERE r.roster_id = ANY (roster_ids) FOR UPDATE SKIP LOCKED);
    ELSE
        ids := roster_ids;
    END IF;
    RETURN QUERY
    WITH r AS (
        DELETE FROM mm.roster r WHERE r.roster_id = ANY (ids) RETURNING r.queue_id, r.roster_id
    ), p AS (
        DELETE FROM mm.queued_player qp USING r
        WHERE qp.queue_id = r.queue_id AND qp.roster_id = r.roster_id
        RETURNING qp.queue_id, qp.roster_id, qp.player_id
    ), e AS (
        INSERT INTO mm.ticket_event (roster_id, player_id, status, at, queue_id, reason)
        SELECT p.roster_id, p.player_id, _end_rosters.status, _end_rosters.at, p.queue_id, _end_rosters.reason FROM p
    )
    SELECT r.roster_id FROM r;
END
$$;
COMMENT ON FUNCTION mm._end_rosters(bigint[], text, text, boolean, timestamptz) IS
    'internal: take waiting rosters out of their queue (left, expired or removed) and record it in mm.ticket_event';

CREATE OR REPLACE FUNCTION mm.leave(roster_id bigint)
RETURNS boolean
LANGUAGE sql STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
    SELECT count(*) > 0 FROM mm._end_rosters(ARRAY[roster_id], 'left', NULL, false)
$$;
COMMENT ON FUNCTION mm.leave(bigint) IS
    'take a waiting roster out of its queue; false if it is not waiting (already matched or left); waits for a tick that is matching it';

CREATE OR REPLACE FUNCTION mm.leave_player(player_id bigint)
RETURNS bigint
LANGUAGE sql STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
    SELECT r FROM mm._end_rosters(ARRAY(SELECT qp.roster_id FROM mm.queued_player qp
                                        WHERE qp.player_id = leave_player.player_id),
                                  'left', 'leave_player', false) r
$$;
COMMENT ON FUNCTION mm.leave_player(bigint) IS
    'take the waiting roster of a player (with the whole party) out of its queue; returns its roster id, or NULL if the player is not waiting';

CREATE OR REPLACE FUNCTION mm.remove_player(roster_id bigint, player_id bigint)
RETURNS boolean
LANGUAGE plpgsql STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q int;
    others int;
BEGIN
    -- lock the roster: a tick that chose it drops that match, or has made
    -- it and we find the roster gone
    SELECT r.queue_id INTO q FROM mm.roster r WHERE r.roster_id = remove_player.roster_id FOR UPDATE;
    IF NOT FOUND OR NOT EXISTS (SELECT FROM mm.queued_player qp
                                WHERE qp.roster_id = remove_player.roster_id
                                  AND qp.player_id = remove_player.player_id) THEN
        RETURN false;
    END IF;
    SELECT count(*) - 1 INTO others FROM mm.queued_player qp WHERE qp.roster_id = remove_player.roster_id;
    IF others = 0 THEN
        PERFORM mm._end_rosters(ARRAY[roster_id], 'removed', 'remove_player', false);
        RETURN true;
    END IF;
    DELETE FROM mm.queued_player qp
    WHERE qp.roster_id = remove_player.roster_id AND qp.player_id = remove_player.player_id;
    INSERT INTO mm.ticket_event (roster_id, player_id, status, at, queue_id, reason)
    VALUES (roster_id, player_id, 'removed', now(), q, 'remove_player');
    RETURN true;
END
$$;
COMMENT ON FUNCTION mm.remove_player(bigint, bigint) IS
    'take one player out of a waiting roster; the rest of the party keeps waiting in its place (the last player takes the roster out); false if the player is not in that waiting roster';

CREATE OR REPLACE FUNCTION mm.update_roster(roster_id bigint, rating float8 DEFAULT NULL, deviation float8 DEFAULT NULL,
                                 rank float8 DEFAULT NULL, ladder_points float8 DEFAULT NULL,
                                 dishonor int DEFAULT NULL, professions text[] DEFAULT NULL)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    n int;
BEGIN
    IF roster_id IS NULL THEN
        RAISE EXCEPTION 'roster_id must not be null' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    -- lock the roster first: its players cannot change meanwhile
    PERFORM FROM mm.roster r WHERE r.roster_id = update_roster.roster_id FOR UPDATE;
    SELECT count(*) INTO n FROM mm.queued_player qp WHERE qp.roster_id = update_roster.roster_id;
    PERFORM mm._check_roster(rating, deviation, rank, ladder_points, dishonor, professions, n);
    UPDATE mm.roster r
    SET rating = coalesce(update_roster.rating, r.rating),
        deviation = coalesce(update_roster.deviation, r.deviation),
        rank = coalesce(update_roster.rank, r.rank),
        ladder_points = coalesce(update_roster.ladder_points, r.ladder_points),
        dishonor = coalesce(update_roster.dishonor, r.dishonor)
    WHERE r.roster_id = update_roster.roster_id;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    IF professions IS NOT NULL THEN
        UPDATE mm.queued_player qp SET profession = professions[qp.seat]
        WHERE qp.roster_id = update_roster.roster_id;
    END IF;
    RETURN true;
END
$$;
COMMENT ON FUNCTION mm.update_roster(bigint, float8, float8, float8, float8, int, text[]) IS
    'change a waiting roster''s data (NULL keeps a value; professions ''{}'' clears them); false if it is not waiting; keeps its place in the queue';

-- A queue's waiting rosters with their players in party order.
CREATE OR REPLACE FUNCTION mm._rosters(queue_id int)
RETURNS TABLE (roster_id bigint, queue_position bigint, players bigint[], rating float8, deviation float8,
               rank float8, ladder_points float8, dishonor int, professions text[], joined_at timestamptz)
LANGUAGE sql STABLE STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
    SELECT r.roster_id, r.position, p.players, r.rating, r.deviation, r.rank, r.ladder_points,
           r.dishonor, p.professions, r.joined_at
    FROM mm.roster r
    JOIN (SELECT qp.roster_id, array_agg(qp.player_id ORDER BY qp.seat) AS players,
                 coalesce(array_agg(qp.profession ORDER BY qp.seat) FILTER (WHERE qp.profession IS NOT NULL),
                          '{}') AS professions
          FROM mm.queued_player qp WHERE qp.queue_id = _rosters.queue_id
          GROUP BY qp.roster_id) p ON p.roster_id = r.roster_id
    WHERE r.queue_id = _rosters.queue_id
$$;
COMMENT ON FUNCTION mm._rosters(int) IS
    'internal: a queue''s waiting rosters with their players and professions in party order (rosters without players are not waiting for anything and are left out)';

CREATE OR REPLACE FUNCTION mm.list_queue(queue text, at timestamptz DEFAULT now())
RETURNS TABLE (place bigint, roster_id bigint, players bigint[], rating float8, deviation float8,
               rank float8, ladder_points float8, dishonor int, professions text[],
               joined_at timestamptz, waited interval)
LANGUAGE sql STABLE STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
    SELECT row_number() OVER (ORDER BY r.queue_position), r.roster_id, r.players, r.rating, r.deviation,
           r.rank, r.ladder_points, r.dishonor, r.professions, r.joined_at, at - r.joined_at
    FROM mm._rosters((mm._queue(queue)).queue_id) r
    ORDER BY r.queue_position
$$;
COMMENT ON FUNCTION mm.list_queue(text, timestamptz) IS
    'the waiting rosters of a queue in queue order (place 1 is tried first)';

CREATE OR REPLACE FUNCTION mm.ticket_status(player_id bigint)
RETURNS TABLE (status text, queue text, roster_id bigint, since timestamptz, match_id bigint,
               match_status text, reason text)
LANGUAGE sql STABLE STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
    SELECT x.status, q.name, x.roster_id, x.since, x.match_id, m.status, x.reason
    FROM (
        SELECT 'waiting'::text AS status, r.queue_id, r.roster_id, r.joined_at AS since,
               NULL::bigint AS match_id, NULL::text AS reason, 0 AS pri
        FROM mm.queued_player qp JOIN mm.roster r ON r.roster_id = qp.roster_id
        WHERE qp.player_id = ticket_status.player_id
        UNION ALL
        (SELECT e.status, e.queue_id, e.roster_id, e.at, e.match_id, e.reason, 1
         FROM mm.ticket_event e
         WHERE e.player_id = ticket_status.player_id AND e.status <> 'waiting'
         ORDER BY e.event_id DESC LIMIT 1)
    ) x
    JOIN mm.queue q ON q.queue_id = x.queue_id
    LEFT JOIN mm.match m ON m.match_id = x.match_id
    ORDER BY x.pri LIMIT 1
$$;
COMMENT ON FUNCTION mm.ticket_status(bigint) IS
    'where a player is now: waiting (queue, roster, since when), or how its last ticket ended (matched with the match id and match status, expired, left, removed, with the reason and when); no row if the player never queued or its history was purged';

CREATE OR REPLACE FUNCTION mm.roster_status(roster_id bigint)
RETURNS TABLE (status text, at timestamptz, players bigint[], match_id bigint, reason text)
LANGUAGE sql STABLE STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
    SELECT e.status, e.at, array_agg(e.player_id ORDER BY e.player_id), e.match_id, e.reason
    FROM mm.ticket_event e
    WHERE e.roster_id = roster_status.roster_id
    GROUP BY e.status, e.at, e.match_id, e.reason
    ORDER BY min(e.event_id)
$$;
COMMENT ON FUNCTION mm.roster_status(bigint) IS
    'the history of a roster (ticket): when its players started waiting and how the roster, or a player removed from it, left the queue (matched with the match id, expired, left, removed, with the reason); its last row is its state now';

CREATE OR REPLACE FUNCTION mm.tick(queue text, at timestamptz DEFAULT now())
RETURNS TABLE (match_id bigint, roster_id bigint, team text)
AS 'MODULE_PATHNAME', 'mm_tick'
LANGUAGE C VOLATILE
-- the statement that moves a tick's matches has join estimates far above
-- its real size; JIT compiling it would cost more than running it
SET jit = off;
COMMENT ON FUNCTION mm.tick(text, timestamptz) IS
    'one matchmaking tick of a queue in this transaction: returns at once if another tick of the queue is running; reads the queue without locking it, then locks, records and removes only the rosters of each match (a match whose roster left meanwhile is dropped whole), requeues failed targets at the back, logs';

CREATE OR REPLACE FUNCTION mm.preview(queue text, at timestamptz DEFAULT now())
RETURNS TABLE (match_id bigint, roster_id bigint, team text)
AS 'MODULE_PATHNAME', 'mm_preview'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION mm.preview(text, timestamptz) IS
    'the matches a tick would make now, numbered from 1, without writing or locking anything';

CREATE OR REPLACE FUNCTION mm.explain(roster_id bigint, at timestamptz DEFAULT now())
RETURNS TABLE (roster_id bigint, queue text, place int, waited_s float8, rating_low float8,
               range_low float8, range_high float8, widening_from timestamptz, widening_until timestamptz,
               potentials int, potentials_min int, potentials_min_applies boolean,
               outcome text, detail text)
AS 'MODULE_PATHNAME', 'mm_explain'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION mm.explain(bigint, timestamptz) IS
    'why a waiting roster has not matched: its place, rating range at "at" and when it widens, the potentials a tick trying it first would find against potentials_min, and the outcome (match, too_large, no_potentials, potentials_min, incomplete) in words; nothing is written';

CREATE OR REPLACE FUNCTION mm.queue_channel(queue text)
RETURNS text
LANGUAGE sql STABLE STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
    SELECT 'mm_queue_' || (mm._queue(queue)).queue_id
$$;
COMMENT ON FUNCTION mm.queue_channel(text) IS
    'the NOTIFY channel of a queue (mm_queue_<queue id>): after a tick that made matches commits, it carries {"queue_id", "queue", "matches": [match ids]}';

CREATE OR REPLACE FUNCTION mm.claim_matches(queue text, max int DEFAULT 100)
RETURNS TABLE (match_id bigint, created_at timestamptz, roster_id bigint, team text, players bigint[])
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q mm.queue := mm._queue(queue);
BEGIN
    IF max IS NULL OR max < 1 THEN
        RAISE EXCEPTION 'max must be at least 1'
            USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The value is %s.', max);
    END IF;
    RETURN QUERY
    WITH c AS (
        SELECT m.match_id FROM mm.match m
        WHERE m.queue_id = q.queue_id AND m.delivered_at IS NULL
        ORDER BY m.match_id LIMIT max
        FOR UPDATE SKIP LOCKED
    ), d AS (
        UPDATE mm.match m SET delivered_at = clock_timestamp()
        FROM c WHERE m.match_id = c.match_id
        RETURNING m.match_id, m.created_at
    )
    SELECT d.match_id, d.created_at, mr.roster_id, mr.team, mr.players
    FROM d JOIN mm.match_roster mr ON mr.queue_id = q.queue_id AND mr.match_id = d.match_id
    ORDER BY d.match_id, mr.team DESC, mr.roster_id;
END
$$;
COMMENT ON FUNCTION mm.claim_matches(text, int) IS
    'hand up to "max" undelivered matches of a queue to this caller, one row per roster: each match goes to exactly one caller whatever order ticks commit in (FOR UPDATE SKIP LOCKED); marked delivered in the caller''s transaction, so a rollback gives them back';

CREATE OR REPLACE PROCEDURE mm.run_ticks(queue text DEFAULT NULL, every interval DEFAULT '5 seconds',
                              span interval DEFAULT '55 seconds')
AS 'MODULE_PATHNAME', 'mm_run_ticks'
LANGUAGE C;
COMMENT ON PROCEDURE mm.run_ticks(text, interval, interval) IS
    'tick a queue (every queue when NULL) every "every" (at least 100 ms) until "span" of wall time has passed, each tick of each queue in its own transaction; a queue whose tick fails gets a WARNING and the others go on; a queue another run_ticks is ticking is skipped; schedule it each minute with pg_cron';

CREATE VIEW mm.queue_stats AS
SELECT q.name AS queue,
       w.rosters AS waiting_rosters,
       w.players AS waiting_players,
       w.p50 AS wait_p50,
       w.p90 AS wait_p90,
       w.p99 AS wait_p99,
       t.ticks AS ticks_last_hour,
       t.matches AS matches_last_hour,
       t.matches_per_tick,
       t.mean_rating_spread,
       t.last_tick,
       m.p50 AS time_to_match_p50,
       m.p90 AS time_to_match_p90,
       m.p99 AS time_to_match_p99,
       m.p50 AS estimated_wait
FROM mm.queue q
LEFT JOIN LATERAL (
    SELECT count(*) AS rosters,
           (SELECT count(*) FROM mm.queued_player qp WHERE qp.queue_id = q.queue_id) AS players,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY now() - r.joined_at) AS p50,
           percentile_cont(0.9) WITHIN GROUP (ORDER BY now() - r.joined_at) AS p90,
           percentile_cont(0.99) WITHIN GROUP (ORDER BY now() - r.joined_at) AS p99
    FROM mm.roster r WHERE r.queue_id = q.queue_id
) w ON true
LEFT JOIN LATERAL (
    SELECT count(*) AS ticks, coalesce(sum(l.matches_made), 0) AS matches,
           avg(l.matches_made) AS matches_per_tick,
           sum(l.mean_rating_spread * l.matches_made) / nullif(sum(l.matches_made), 0) AS mean_rating_spread,
           max(l.at) AS last_tick
    FROM mm.tick_log l WHERE l.queue_id = q.queue_id AND l.at > now() - interval '1 hour'
) t ON true
LEFT JOIN LATERAL (
    SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY mr.waited) AS p50,
           percentile_cont(0.9) WITHIN GROUP (ORDER BY mr.waited) AS p90,
           percentile_cont(0.99) WITHIN GROUP (ORDER BY mr.waited) AS p99
    FROM mm.match mt JOIN mm.match_roster mr ON mr.queue_id = mt.queue_id AND mr.match_id = mt.match_id
    WHERE mt.queue_id = q.queue_id AND mt.created_at > now() - interval '1 hour'
) m ON true
WHERE q.dropped_at IS NULL;
COMMENT ON VIEW mm.queue_stats IS
    'per live queue: waiting rosters and players, wait-time percentiles now; over the last hour ticks, matches, matches per tick, mean rating spread inside matches, time-to-match percentiles of the rosters matched, and the estimated wait of a new roster (the median time to match of the last hour; NULL without matches)';

-- Retention

CREATE FUNCTION mm.purge(older_than interval, max_rows int DEFAULT 10000)
RETURNS bigint
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    cutoff timestamptz;
    left_rows int := max_rows;
    n int;
    total bigint := 0;
BEGIN
    IF older_than IS NULL OR NOT isfinite(now() - older_than) OR older_than < interval '0' THEN
        RAISE EXCEPTION 'older_than must be a finite interval that is not negative'
            USING ERRCODE = 'invalid_parameter_value', HINT = 'Such as ''30 days''.';
    END IF;
    IF max_rows IS NULL OR max_rows < 1 THEN
        RAISE EXCEPTION 'max_rows must be at least 1'
            USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The value is %s.', max_rows);
    END IF;
    cutoff := now() - older_than;
    -- the tick log
    DELETE FROM mm.tick_log l WHERE l.tick_id IN
        (SELECT x.tick_id FROM mm.tick_log x WHERE x.at < cutoff ORDER BY x.at LIMIT left_rows);
    GET DIAGNOSTICS n = ROW_COUNT;
    total := total + n; left_rows := left_rows - n;
    -- ticket history of rosters that are not waiting
    IF left_rows > 0 THEN
        DELETE FROM mm.ticket_event e WHERE e.event_id IN
            (SELECT x.event_id FROM mm.ticket_event x
             WHERE x.at < cutoff AND NOT EXISTS (SELECT FROM mm.roster r WHERE r.roster_id = x.roster_id)
             ORDER BY x.event_id LIMIT left_rows);
        GET DIAGNOSTICS n = ROW_COUNT;
        total := total + n; left_rows := left_rows - n;
    END IF;
    -- matches that are finished or delivered, or of a dropped queue (nobody
    -- can claim those any more), with their rosters
    IF left_rows > 0 THEN
        DELETE FROM mm.match m WHERE m.match_id IN
            (SELECT x.match_id FROM mm.match x
             WHERE x.created_at < cutoff
               AND (x.status = 'finished' OR x.delivered_at IS NOT NULL
                    OR EXISTS (SELECT FROM mm.queue q WHERE q.queue_id = x.queue_id AND q.dropped_at IS NOT NULL))
             ORDER BY x.match_id LIMIT left_rows);
        GET DIAGNOSTICS n = ROW_COUNT;
        total := total + n; left_rows := left_rows - n;
    END IF;
    -- dropped queues whose history is all gone
    IF left_rows > 0 THEN
        DELETE FROM mm.queue q
        WHERE q.dropped_at < cutoff
          AND NOT EXISTS (SELECT FROM mm.match m WHERE m.queue_id = q.queue_id)
          AND NOT EXISTS (SELECT FROM mm.tick_log l WHERE l.queue_id = q.queue_id)
          AND NOT EXISTS (SELECT FROM mm.ticket_event e WHERE e.queue_id = q.queue_id);
        GET DIAGNOSTICS n = ROW_COUNT;
        total := total + n;
    END IF;
    RETURN total;
END
$$;
COMMENT ON FUNCTION mm.purge(interval, int) IS
    'delete history older than "older_than": tick log, ticket history of rosters no longer waiting, matches that are finished, delivered or of a dropped queue (with their rosters), then dropped queues left without history; at most max_rows rows per call (call it until it returns 0, e.g. from pg_cron); returns the rows deleted';


-- ==== analytics: rating histories, calibration, fitting ====

-- Analytics: rating histories, calibration of predictions, fitting.

-- Rating histories: the replays' per-match rows.

CREATE FUNCTION mm.openskill_history(
    history text,
    initial text DEFAULT NULL,
    model text DEFAULT 'plackett_luce',
    beta float8 DEFAULT 25.0 / 6,
    kappa float8 DEFAULT 0.0001,
    tau float8 DEFAULT 25.0 / 300,
    limit_sigma bool DEFAULT false,
    mu float8 DEFAULT 25,
    sigma float8 DEFAULT 25.0 / 3,
    z float8 DEFAULT 3,
    alpha float8 DEFAULT 1,
    target float8 DEFAULT 0,
    balance bool DEFAULT false,
    epsilon float8 DEFAULT 0.1)
RETURNS TABLE(match bigint, match_key text, player_id bigint, team bigint, rank float8,
              win_probability float8, mu_before float8, sigma_before float8,
              mu_after float8, sigma_after float8)
AS 'MODULE_PATHNAME', 'mm_openskill_history'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION mm.openskill_history(text, text, text, float8, float8, float8, bool, float8, float8, float8, float8, float8, bool, float8) IS
    'replay_openskill one row per player per match: the team''s pre-match win probability (openskill_predict_win), the rating before and after';

CREATE FUNCTION mm.glicko2_history(games text, period interval DEFAULT NULL, tau float8 DEFAULT NULL,
                                   policy jsonb DEFAULT NULL, per_game boolean DEFAULT false)
RETURNS TABLE(game bigint, player_id bigint, opponent_id bigint, played_at timestamptz,
              score float8, expected float8,
              rating_before float8, rd_before float8, vol_before float8,
              rating_after float8, rd_after float8, vol_after float8)
AS 'MODULE_PATHNAME', 'mm_glicko2_history'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION mm.glicko2_history(text, interval, float8, jsonb, boolean) IS
    'glicko2_replay two rows per game (each player''s view): expected score (glicko2_expect) and the rating before and after its game or rating period';

-- Team Glicko-2: each player against the opposing team's composite or
-- against each opposing player.

CREATE FUNCTION mm.glicko2_team_replay(history text, period interval DEFAULT NULL, tau float8 DEFAULT NULL,
                                       policy jsonb DEFAULT NULL, per_game boolean DEFAULT false,
                                       opponents text DEFAULT 'composite')
RETURNS TABLE(player_id bigint, rating float8, rd float8, vol float8, games bigint, last_played timestamptz)
AS 'MODULE_PATHNAME', 'mm_glicko2_team_replay'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION mm.glicko2_team_replay(text, interval, float8, jsonb, boolean, text) IS
    're-rate a team match history (match key, player_id, team, rank, played_at) with Glicko-2: each player against each opposing team''s composite (opponents composite) or every opposing player (each); final ratings per player';

-- Calibration: how well predicted probabilities foretold the outcomes.

CREATE FUNCTION mm.calibration_step(state float8[], probability float8, outcome float8)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'mm_calibration_step'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.calibration_step(float8[], float8, float8) IS
    'transition function of mm.calibration';

CREATE FUNCTION mm.calibration_step(state float8[], probability float8, outcome float8, bins int)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'mm_calibration_step'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.calibration_step(float8[], float8, float8, int) IS
    'transition function of mm.calibration with a number of bins';

CREATE FUNCTION mm.calibration_combine(a float8[], b float8[])
RETURNS float8[]
AS 'MODULE_PATHNAME', 'mm_calibration_combine'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.calibration_combine(float8[], float8[]) IS
    'combine function of mm.calibration: adds two checked states';

CREATE FUNCTION mm.calibration_final(state float8[])
RETURNS jsonb
AS 'MODULE_PATHNAME', 'mm_calibration_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.calibration_final(float8[]) IS
    'final function of mm.calibration: checks the state, renders n, brier, log_loss, accuracy and bins';

CREATE AGGREGATE mm.calibration(probability float8, outcome float8) (
    SFUNC = mm.calibration_step,
    STYPE = float8[],
    FINALFUNC = mm.calibration_final,
    COMBINEFUNC = mm.calibration_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE mm.calibration(float8, float8) IS
    'calibration of predictions (probability of an event, outcome 1/0/0.5): n, Brier score, log loss, accuracy, reliability table of 10 bins';

CREATE AGGREGATE mm.calibration(probability float8, outcome float8, bins int) (
    SFUNC = mm.calibration_step,
    STYPE = float8[],
    FINALFUNC = mm.calibration_final,
    COMBINEFUNC = mm.calibration_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE mm.calibration(float8, float8, int) IS
    'calibration of predictions (probability of an event, outcome 1/0/0.5): n, Brier score, log loss, accuracy, reliability table of the given bins';

CREATE FUNCTION mm.reliability(calibration jsonb)
RETURNS TABLE(bin int, lo float8, hi float8, n bigint, predicted float8, observed float8)
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mm, pg_catalog, pg_temp
AS $$
SELECT b.bin, b.lo, b.hi, b.n, b.predicted, b.observed
FROM pg_catalog.jsonb_to_recordset(calibration -> 'bins')
     AS b(bin int, lo float8, hi float8, n bigint, predicted float8, observed float8)
ORDER BY b.bin
$$;
COMMENT ON FUNCTION mm.reliability(jsonb) IS
    'the reliability table of a calibration as rows: per bin of predicted probability, the count, mean prediction and observed frequency';

CREATE FUNCTION mm.openskill_calibration(
    history text,
    initial text DEFAULT NULL,
    model text DEFAULT 'plackett_luce',
    beta float8 DEFAULT 25.0 / 6,
    kappa float8 DEFAULT 0.0001,
    tau float8 DEFAULT 25.0 / 300,
    limit_sigma bool DEFAULT false,
    mu float8 DEFAULT 25,
    sigma float8 DEFAULT 25.0 / 3,
    z float8 DEFAULT 3,
    alpha float8 DEFAULT 1,
    target float8 DEFAULT 0,
    balance bool DEFAULT false,
    epsilon float8 DEFAULT 0.1,
    bins int DEFAULT 10)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'mm_openskill_calibration'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION mm.openskill_calibration(text, text, text, float8, float8, float8, bool, float8, float8, float8, float8, float8, bool, float8, int) IS
    'replay a history predicting each match before rating it: calibration of the favoured team''s win probability (n, brier, log_loss, accuracy, bins)';

CREATE FUNCTION mm.glicko2_calibration(games text, period interval DEFAULT NULL, tau float8 DEFAULT NULL,
                                       policy jsonb DEFAULT NULL, per_game boolean DEFAULT false,
                                       bins int DEFAULT 10, initial_rd float8 DEFAULT NULL)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'mm_glicko2_calibration'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION mm.glicko2_calibration(text, interval, float8, jsonb, boolean, int, float8) IS
    'replay a game history predicting each game before rating it: calibration of the favoured player''s expected score (n, brier, log_loss, accuracy, bins); initial_rd replaces the deviation new players start with';

-- The IMS matchmaker documentation's beta tuning: line of best fit of
-- (rating delta, favoured team won) and the delta where it reaches 0.8.

CREATE FUNCTION mm.ims_beta_step(state float8[], delta float8, favoured_won boolean)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'mm_ims_beta_step'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.ims_beta_step(float8[], float8, boolean) IS
    'transition function of mm.ims_beta';

CREATE FUNCTION mm.ims_beta_combine(a float8[], b float8[])
RETURNS float8[]
AS 'MODULE_PATHNAME', 'mm_ims_beta_combine'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.ims_beta_combine(float8[], float8[]) IS
    'combine function of mm.ims_beta: merges two checked states';

CREATE FUNCTION mm.ims_beta_final(state float8[])
RETURNS jsonb
AS 'MODULE_PATHNAME', 'mm_ims_beta_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.ims_beta_final(float8[]) IS
    'final function of mm.ims_beta: checks the state, renders n, slope, intercept and beta';

CREATE AGGREGATE mm.ims_beta(delta float8, favoured_won boolean) (
    SFUNC = mm.ims_beta_step,
    STYPE = float8[],
    FINALFUNC = mm.ims_beta_final,
    COMBINEFUNC = mm.ims_beta_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE mm.ims_beta(float8, boolean) IS
    'IMS beta tuning: least-squares line of (rating delta, favoured team won) and beta, the delta where the line reaches 0.8';

-- Fitting: the parameter value that minimises log loss over a history.

CREATE FUNCTION mm.openskill_fit(history text, parameter text DEFAULT 'beta', grid float8[] DEFAULT NULL,
                                 lo float8 DEFAULT NULL, hi float8 DEFAULT NULL, iterations int DEFAULT 20,
                                 initial text DEFAULT NULL, model text DEFAULT 'plackett_luce')
RETURNS TABLE(step int, value float8, log_loss float8, brier float8, accuracy float8, matches bigint, best boolean)
AS 'MODULE_PATHNAME', 'mm_openskill_fit'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION mm.openskill_fit(text, text, float8[], float8, float8, int, text, text) IS
    'maximum likelihood over a history: the beta, tau or kappa that minimises the log loss of the pre-match predictions, on a grid or by golden-section search; every value tried';

CREATE FUNCTION mm.glicko2_fit(games text, parameter text DEFAULT 'tau', grid float8[] DEFAULT NULL,
                               lo float8 DEFAULT NULL, hi float8 DEFAULT NULL, iterations int DEFAULT 20,
                               period interval DEFAULT NULL, per_game boolean DEFAULT false)
RETURNS TABLE(step int, value float8, log_loss float8, brier float8, accuracy float8, matches bigint, best boolean)
AS 'MODULE_PATHNAME', 'mm_glicko2_fit'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION mm.glicko2_fit(text, text, float8[], float8, float8, int, interval, boolean) IS
    'maximum likelihood over a game history: the tau or initial rd that minimises the log loss of the pre-game expected scores, on a grid or by golden-section search; every value tried';


-- ==== sources named by what they are ====
-- Catalog comments that named the source documents by number now name
-- them: the Guild Wars 2 wiki's PvP matchmaking page, the IMS matchmaker
-- documentation, Metaplay's async matchmaker documentation.
COMMENT ON FUNCTION mm.create_pool(text, jsonb) IS
    'create an async opponent pool; config keys mirror Metaplay''s async matchmaker documentation (see docs/async.md), unknown keys are an error';
COMMENT ON FUNCTION mm.dishonor_config_defaults() IS 'the GW2 wiki''s dishonor config: stack_duration 15m, timeout_duration 30s, timeout_exponent 1.5, timeout_rounding 1m, penalties abandon 10, queue_dodge 4, banned 1000000';
COMMENT ON FUNCTION mm.find_opponent(text,double precision,text[],integer,bigint[],bigint) IS 'the best opponent for a query (Metaplay''s async matchmaker documentation): success, none_found or fake_opponent; never the searcher or an excluded player';
COMMENT ON FUNCTION mm.glicko2_effective(mm.glicko) IS 'effective rating rating - rd, as GW2 matchmaking uses it (the Guild Wars 2 wiki''s PvP matchmaking page)';
COMMENT ON FUNCTION mm.glicko2_policy(jsonb) IS 'the GW2 rating policy with every key filled in (the Guild Wars 2 wiki''s values as defaults); checks the policy';
COMMENT ON FUNCTION mm.ladder_config_defaults() IS 'the GW2 wiki''s <Ladder> config: default 0, min 0, max 1000000, leaderboard_points 1, its five odds matrices, no season bounds';
COMMENT ON FUNCTION mm.ladder_points(double precision,double precision,text,jsonb,timestamp with time zone) IS 'ladder points for a game (getPoints and processGame of the Guild Wars 2 wiki''s PvP matchmaking page): result victory, defeat or desertion; 0 outside the season; a victory earns at least 1';
COMMENT ON FUNCTION mm.prediction_config_defaults() IS 'the GW2 wiki''s <Prediction> config: rank spread 40 weight 1, rating spread 200 weight 5, roster spread 4 weight 2';
COMMENT ON FUNCTION mm.put_entry(text,bigint,double precision,text[],jsonb) IS 'add or update a player''s entry (the player state update of Metaplay''s documentation); returns the entry id, NULL if ignored by player_ignore_update_insert_threshold';
COMMENT ON FUNCTION mm.rate(jsonb) IS 'the IMS matchmaker rate endpoint (the IMS matchmaker documentation): a request with config and ranked teams in, new ratings out';
COMMENT ON FUNCTION mm.rebalance_pool(text) IS 'size each bucket from the observed share of inserts (the dynamic bucket sizing of Metaplay''s documentation): capacity = max(bucket_min_size, player_cache_size * share)';

-- ==== async pool: unbounded edges are NULL, not infinite ====
-- mm.async_bucket_bounds, mm.async_search and mm.pool_buckets show an edge
-- bucket's open side as NULL (no mm function returns an infinite number);
-- the functions that search between the bounds read NULL as unbounded.
COMMENT ON FUNCTION mm.async_bucket_bounds(jsonb, int, int) IS
    'MMR interval [lower_mmr, upper_mmr) covered by buckets first..last; NULL where an edge bucket is unbounded';
COMMENT ON FUNCTION mm.async_search(jsonb, float8, int) IS
    'buckets a query searches, in visiting order (own bucket, the adjacent one on the query''s side, then alternately outwards), and the MMR interval they cover (NULL where unbounded)';
COMMENT ON FUNCTION mm.pool_buckets(text) IS
    'the buckets of a pool that hold entries or were sampled: MMR interval (NULL where an edge bucket is unbounded), fill (counted now), capacity, entries added since the sample started';
COMMENT ON FUNCTION mm.async_query(text, float8, text[], int, bigint[], bigint) IS
    'internal: check a find query and resolve it: the pool config, the label set, the ids never offered, the searched MMR interval (NULL where unbounded)';

CREATE OR REPLACE FUNCTION mm.put_entry(pool text, player_id bigint, mmr float8,
                             labels text[] DEFAULT '{}', model jsonb DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    cfg jsonb := mm.async_pool_config(pool);
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
    id bigint;
BEGIN
    IF put_entry.player_id IS NULL THEN
        RAISE EXCEPTION 'player_id must not be NULL'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass the id of the player whose entry this is.';
    END IF;
    PERFORM mm.async_check_query(put_entry.mmr, put_entry.labels, 0);
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
    cap := mm.async_capacity(pool, lab, b, cfg);
    -- counted up to a little past the capacity: exact unless the bucket is
    -- far over it (a lowered capacity, rows written directly), which then
    -- shrinks by 17 entries a put
    f := mm.async_fill(pool, lab, lo, hi, cap + 16);
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
COMMENT ON FUNCTION mm.put_entry(text, bigint, float8, text[], jsonb) IS
    'add or update a player''s entry (the player state update of Metaplay''s documentation); returns the entry id, NULL if ignored by player_ignore_update_insert_threshold';

CREATE OR REPLACE FUNCTION mm.async_candidates(p_pool text, p_mmr float8, p_labels text[], p_retries int,
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
    SELECT * INTO q FROM mm.async_query(p_pool, p_mmr, p_labels, p_retries, p_exclude, p_searcher);
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
COMMENT ON FUNCTION mm.async_candidates(text, float8, text[], int, bigint[], bigint, int) IS
    'internal: the body of mm.find_candidates';

-- ==== results exactly once, ratings kept by mm ====

-- From match to result: ratings stored per player and rating key, and
-- mm.report_result, which rates a finished match of a queue exactly once
-- (ratings, ladder points, dishonor for desertions, before and after of
-- every player) in the caller's transaction.

-- One row per player and rating key (what the Guild Wars 2 wiki calls a
-- rating type: ranked, unranked, a profession). A queue's "rating" config
-- names the key and the model; the model's columns hold its state: mu and
-- sigma for OpenSkill, rating, rd and vol for Glicko-2. A key may hold both.
CREATE TABLE mm.ratings (
    player_id     bigint NOT NULL,
    key           text NOT NULL,
    mu            float8,
    sigma         float8,
    rating        float8,
    rd            float8,
    vol           float8,
    ladder_points int,
    games         int NOT NULL DEFAULT 0,
    last_played   timestamptz,
    CONSTRAINT ratings_pkey PRIMARY KEY (player_id, key),
    CONSTRAINT ratings_key_check CHECK (key <> ''),
    CONSTRAINT ratings_openskill_check CHECK ((mu IS NULL) = (sigma IS NULL)
        AND mu > '-Infinity' AND mu < 'Infinity' AND sigma > 0 AND sigma < 'Infinity'),
    CONSTRAINT ratings_glicko2_check CHECK ((rating IS NULL) = (rd IS NULL) AND (rd IS NULL) = (vol IS NULL)
        AND rating > '-Infinity' AND rating < 'Infinity' AND rd > 0 AND rd < 'Infinity'
        AND vol > 0 AND vol < 'Infinity'),
    CONSTRAINT ratings_games_check CHECK (games >= 0),
    CONSTRAINT ratings_last_played_check CHECK (isfinite(last_played))
);
COMMENT ON TABLE mm.ratings IS 'ratings kept by mm, one row per player and rating key: OpenSkill mu and sigma, Glicko-2 rating, rd and vol (NULL: not rated by that model yet), ladder points (NULL: none yet), games rated and when the last was reported';
COMMENT ON CONSTRAINT ratings_openskill_check ON mm.ratings IS 'mu and sigma are both set or both NULL; finite; sigma positive';
COMMENT ON CONSTRAINT ratings_glicko2_check ON mm.ratings IS 'rating, rd and vol are all set or all NULL; finite; rd and vol positive';

-- A match's result, at most one per match: its primary key is what makes a
-- report happen exactly once.
CREATE TABLE mm.match_result (
    match_id    bigint NOT NULL,
    queue_id    int NOT NULL,
    status      text NOT NULL,
    result      jsonb,
    reported_at timestamptz NOT NULL,
    CONSTRAINT match_result_pkey PRIMARY KEY (match_id),
    CONSTRAINT match_result_match_fkey FOREIGN KEY (queue_id, match_id)
        REFERENCES mm.match (queue_id, match_id) ON DELETE CASCADE,
    CONSTRAINT match_result_status_check CHECK (status IN ('reported', 'abandoned')),
    CONSTRAINT match_result_result_check CHECK ((status = 'reported') = (result IS NOT NULL))
);
COMMENT ON TABLE mm.match_result IS 'the result of a match as mm.report_result received it (status reported), or its abandonment (mm.abandon_match); one per match';

CREATE TABLE mm.match_result_player (
    match_id        bigint NOT NULL,
    player_id       bigint NOT NULL,
    queue_id        int NOT NULL,
    team            text NOT NULL,
    rank            float8 NOT NULL,
    score           float8,
    weight          float8 NOT NULL,
    deserted        boolean NOT NULL,
    key             text NOT NULL,
    mu_before       float8,
    sigma_before    float8,
    mu_after        float8,
    sigma_after     float8,
    rating_before   float8,
    rd_before       float8,
    vol_before      float8,
    rating_after    float8,
    rd_after        float8,
    vol_after       float8,
    ladder_before   int,
    ladder_awarded  int,
    ladder_after    int,
    dishonor_stacks int,
    CONSTRAINT match_result_player_pkey PRIMARY KEY (match_id, player_id),
    CONSTRAINT match_result_player_match_fkey FOREIGN KEY (match_id)
        REFERENCES mm.match_result ON DELETE CASCADE,
    CONSTRAINT match_result_player_team_check CHECK (team IN ('red', 'blue')),
    CONSTRAINT match_result_player_weight_check CHECK (weight >= 0 AND weight <= 1)
);
COMMENT ON TABLE mm.match_result_player IS 'per player of a reported match: team, rank, score, weight, desertion, the rating before and after (OpenSkill mu/sigma or Glicko-2 rating/rd/vol), ladder points before, awarded and after, dishonor stacks after a desertion';

SELECT pg_catalog.pg_extension_config_dump('mm.ratings', '');
SELECT pg_catalog.pg_extension_config_dump('mm.match_result', '');
SELECT pg_catalog.pg_extension_config_dump('mm.match_result_player', '');

-- Check a result and return one row per player of the match: team, rank
-- (from the teams' ranks, or from their scores: higher is better), the
-- team's score, the player's weight and score, whether the player deserted.
CREATE FUNCTION mm._result_players(match_id bigint, result jsonb)
RETURNS TABLE (player_id bigint, team text, rank float8, team_score float8,
               weight float8, score float8, deserted boolean)
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    t_obj jsonb := result -> 'teams';
    p_obj jsonb := coalesce(result -> 'players', '{}');
    k text;
    t text;
    v jsonb;
    n_rank int;
    n_score int;
BEGIN
    IF jsonb_typeof(result) IS DISTINCT FROM 'object' OR jsonb_typeof(t_obj) IS DISTINCT FROM 'object'
       OR jsonb_typeof(p_obj) <> 'object' THEN
        RAISE EXCEPTION 'result must be an object with an object "teams"'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Pass {"teams": {"red": {"rank": 1}, "blue": {"rank": 2}}}, optionally with "players": {"<id>": {"weight": 0.5}}.';
    END IF;
    FOR k IN SELECT jsonb_object_keys(result) LOOP
        IF k NOT IN ('teams', 'players') THEN
            RAISE EXCEPTION 'result key "%" is unknown', k
                USING ERRCODE = 'invalid_parameter_value', HINT = 'A result has keys "teams" and "players".';
        END IF;
    END LOOP;
    FOR t IN SELECT DISTINCT r.team FROM mm.match_roster r WHERE r.match_id = _result_players.match_id LOOP
        IF jsonb_typeof(t_obj -> t) IS DISTINCT FROM 'object' THEN
            RAISE EXCEPTION 'result has no team "%"', t
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'Give every team of the match an object with its "rank" or "score".';
        END IF;
    END LOOP;
    FOR t, v IN SELECT * FROM jsonb_each(t_obj) LOOP
        IF NOT EXISTS (SELECT FROM mm.match_roster r WHERE r.match_id = _result_players.match_id AND r.team = t) THEN
            RAISE EXCEPTION 'match % has no team "%"', match_id, t
                USING ERRCODE = 'invalid_parameter_value', HINT = 'The teams of a match are "red" and "blue".';
        END IF;
        FOR k IN SELECT jsonb_object_keys(v) LOOP
            IF k NOT IN ('rank', 'score', 'desertions') THEN
                RAISE EXCEPTION 'result key "teams.%.%" is unknown', t, k
                    USING ERRCODE = 'invalid_parameter_value', HINT = 'A team has keys "rank", "score" and "desertions".';
            END IF;
        END LOOP;
        IF (v ? 'rank' AND jsonb_typeof(v -> 'rank') <> 'number')
           OR (v ? 'score' AND jsonb_typeof(v -> 'score') <> 'number')
           OR (v ? 'desertions' AND jsonb_typeof(v -> 'desertions') <> 'array') THEN
            RAISE EXCEPTION 'team "%" of the result has a value of the wrong type', t
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = '"rank" and "score" are numbers, "desertions" an array of player ids.';
        END IF;
        IF EXISTS (SELECT FROM jsonb_array_elements(coalesce(v -> 'desertions', '[]')) d
                   WHERE jsonb_typeof(d) <> 'number'
                      OR NOT (d::text)::numeric = ANY (ARRAY(SELECT unnest(r.players)::numeric FROM mm.match_roster r
                                                              WHERE r.match_id = _result_players.match_id AND r.team = t))) THEN
            RAISE EXCEPTION 'desertions of team "%" must be players of that team', t
                USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The desertions are %s.', v -> 'desertions');
        END IF;
    END LOOP;
    SELECT count(*) FILTER (WHERE e.value ? 'rank'), count(*) FILTER (WHERE e.value ? 'score')
      INTO n_rank, n_score FROM jsonb_each(t_obj) e;
    IF n_rank <> 2 AND n_score <> 2 THEN
        RAISE EXCEPTION 'every team of the result needs a rank, or every team a score'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Rank 1 is the winner; equal ranks are a draw. Without ranks, the higher score wins.';
    END IF;
    FOR k, v IN SELECT * FROM jsonb_each(p_obj) LOOP
        IF k !~ '^-?[0-9]{1,19}$' OR NOT EXISTS (SELECT FROM mm.match_roster r
                                                WHERE r.match_id = _result_players.match_id
                                                  AND k::numeric = ANY (r.players::numeric[])) THEN
            RAISE EXCEPTION 'result names player "%" who is not in match %', k, match_id
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        IF jsonb_typeof(v) <> 'object' OR EXISTS (SELECT FROM jsonb_object_keys(v) x WHERE x NOT IN ('weight', 'score'))
           OR (v ? 'weight' AND jsonb_typeof(v -> 'weight') <> 'number')
           OR (v ? 'score' AND jsonb_typeof(v -> 'score') <> 'number') THEN
            RAISE EXCEPTION 'player "%" of the result must be an object with numbers "weight" and "score"', k
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        IF v ? 'weight' AND NOT ((v ->> 'weight')::numeric BETWEEN 0 AND 1) THEN
            RAISE EXCEPTION 'weight of player % must be between 0 and 1', k
                USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The value is %s.', v -> 'weight'),
                      HINT = 'The weight is the share of the match the player played.';
        END IF;
    END LOOP;
    RETURN QUERY
    WITH tm AS (
        SELECT e.key AS team, (e.value ->> 'rank')::float8 AS rank, (e.value ->> 'score')::float8 AS score,
               e.value -> 'desertions' AS desertions
        FROM jsonb_each(t_obj) e
    ), tr AS (
        SELECT tm.*, CASE WHEN n_rank = 2 THEN tm.rank
                          ELSE 1 + (SELECT count(*) FROM tm o WHERE o.score > tm.score) END AS r
        FROM tm
    )
    SELECT p.id, tr.team, tr.r::float8, tr.score,
           coalesce((p_obj -> p.id::text ->> 'weight')::float8, 1),
           (p_obj -> p.id::text ->> 'score')::float8,
           coalesce(tr.desertions @> to_jsonb(p.id), false)
    FROM mm.match_roster r
    JOIN tr ON tr.team = r.team
    CROSS JOIN LATERAL unnest(r.players) AS p(id)
    WHERE r.match_id = _result_players.match_id
    ORDER BY p.id;
END
$$;
COMMENT ON FUNCTION mm._result_players(bigint, jsonb) IS
    'internal: check a result of mm.report_result against its match; one row per player in player-id order: team, rank (a team''s rank, or from the scores, higher first), team score, weight, score, deserted';

-- Lock the rating rows of players (creating missing ones) in player-id
-- order, so that concurrent reports that share players wait for each
-- other instead of losing an update, and never deadlock.
CREATE FUNCTION mm._lock_ratings(key text, player_ids bigint[])
RETURNS SETOF mm.ratings
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    -- a match has at most two teams of 1000 players
    IF cardinality(player_ids) > 2000 THEN
        RAISE EXCEPTION 'too many players'
            USING ERRCODE = 'program_limit_exceeded',
                  DETAIL = format('%s players were given; a match has at most 2000.', cardinality(player_ids));
    END IF;
    INSERT INTO mm.ratings AS r (player_id, key)
    SELECT DISTINCT p, _lock_ratings.key FROM unnest(player_ids) p ORDER BY p
    ON CONFLICT ON CONSTRAINT ratings_pkey DO NOTHING;
    RETURN QUERY
    SELECT * FROM mm.ratings r
    WHERE r.key = _lock_ratings.key AND r.player_id = ANY (player_ids)
    ORDER BY r.player_id
    FOR UPDATE;
END
$$;
COMMENT ON FUNCTION mm._lock_ratings(text, bigint[]) IS
    'internal: lock the mm.ratings rows of the players for a key, in player-id order, inserting missing ones first';

-- A rating row's Glicko-2 rating as of a time: idle deviation growth since
-- it was last played (mm.glicko2_rating_at), applied when read; NULL when
-- the row has none.
CREATE FUNCTION mm._glicko_now(r mm.ratings, at timestamptz)
RETURNS mm.glicko
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = mm, pg_catalog, pg_temp
RETURN CASE WHEN r.rating IS NULL THEN NULL
            WHEN r.last_played IS NULL THEN ROW(r.rating, r.rd, r.vol)::mm.glicko
            ELSE mm.glicko2_rating_at(ROW(r.rating, r.rd, r.vol)::mm.glicko, r.last_played, at) END;
COMMENT ON FUNCTION mm._glicko_now(mm.ratings, timestamptz) IS
    'internal: a mm.ratings row''s Glicko-2 rating at a time, with the idle deviation growth since it was last played';

-- The rating of a roster from its players' mm.ratings rows (defaults of the
-- queue's "rating" config for players without one).
CREATE FUNCTION mm.roster_rating(rating_config jsonb, players bigint[], at timestamptz DEFAULT now(),
                                 OUT rating float8, OUT deviation float8)
RETURNS record
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    rc jsonb := mm.matcher_config(jsonb_build_object('rating', coalesce(rating_config, '{}'))) -> 'rating';
BEGIN
    IF players IS NULL OR cardinality(players) = 0 OR at IS NULL OR NOT isfinite(at) THEN
        RAISE EXCEPTION 'players must be a non-empty array and at a finite time'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF cardinality(players) > 1000 THEN
        RAISE EXCEPTION 'roster is larger than a team can be'
            USING ERRCODE = 'program_limit_exceeded',
                  DETAIL = format('The roster has %s players; teams have at most 1000.', cardinality(players));
    END IF;
    IF rc ->> 'model' = 'openskill' THEN
        -- the IMS party rating: weighted max and median mu minus 3 mean sigma
        SELECT mm.party_rating(array_agg(coalesce(r.mu, (rc ->> 'mu')::float8)),
                               array_agg(coalesce(r.sigma, (rc ->> 'sigma')::float8))), 0
          INTO rating, deviation
        FROM unnest(players) p
        LEFT JOIN mm.ratings r ON r.player_id = p AND r.key = rc ->> 'key';
    ELSE
        -- Glicko-2: the mean rating and mean deviation (their difference is
        -- the mean effective rating), with idle growth
        SELECT avg(coalesce((g).rating, (rc ->> 'rating')::float8)), avg(coalesce((g).rd, (rc ->> 'rd')::float8))
          INTO rating, deviation
        FROM (SELECT mm._glicko_now(r, roster_rating.at) AS g
              FROM unnest(players) p
              LEFT JOIN mm.ratings r ON r.player_id = p AND r.key = rc ->> 'key') x;
    END IF;
END
$$;
COMMENT ON FUNCTION mm.roster_rating(jsonb, bigint[], timestamptz) IS
    'a roster''s rating and deviation from its players'' mm.ratings rows under a queue''s "rating" config: OpenSkill, the IMS party rating (mm.party_rating) and deviation 0; Glicko-2, the mean rating and mean deviation with idle growth';

-- Leaderboards: per rating key, players by conservative rating.
CREATE VIEW mm.leaderboard AS
SELECT x.key, x.player_id, x.ordinal, x.conservative_rating, x.ladder_points, x.games, x.last_played,
       rank() OVER (PARTITION BY x.key ORDER BY coalesce(x.ordinal, x.conservative_rating) DESC) AS position
FROM (SELECT r.key, r.player_id, mm.ordinal(r.mu, r.sigma) AS ordinal,
             (mm._glicko_now(r, now())).rating - 2 * (mm._glicko_now(r, now())).rd AS conservative_rating,
             r.ladder_points, r.games, r.last_played
      FROM mm.ratings r WHERE r.games > 0) x;
COMMENT ON VIEW mm.leaderboard IS
    'players who played, per rating key, ranked by conservative rating: the OpenSkill ordinal mu - 3 sigma, else Glicko-2 rating - 2 rd with idle growth until now';

CREATE FUNCTION mm.report_result(match_id bigint, result jsonb)
RETURNS SETOF mm.match_result_player
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    m mm.match;
    prev mm.match_result;
    cfg jsonb;
    rc jsonb;
    rkey text;
    season jsonb;
    at timestamptz := now();
    ids bigint[];
BEGIN
    IF match_id IS NULL OR result IS NULL THEN
        RAISE EXCEPTION 'match_id and result must not be NULL'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    -- one report at a time per match: the second waits, then sees the first
    SELECT * INTO m FROM mm.match x WHERE x.match_id = report_result.match_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'match % does not exist', match_id
            USING ERRCODE = 'undefined_object', HINT = 'Report the match_id that mm.claim_matches delivered.';
    END IF;
    SELECT * INTO prev FROM mm.match_result x WHERE x.match_id = report_result.match_id;
    IF FOUND THEN
        IF prev.status = 'abandoned' THEN
            RAISE EXCEPTION 'match % was abandoned', match_id
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      DETAIL = format('mm.abandon_match ended it at %s.', prev.reported_at);
        ELSIF prev.result <> result THEN
            RAISE EXCEPTION 'match % already has a different result', match_id
                USING ERRCODE = 'unique_violation',
                      DETAIL = format('The reported result is %s.', prev.result),
                      HINT = 'A match is rated once; report the same result again to read its outcome.';
        END IF;
        RETURN QUERY SELECT * FROM mm.match_result_player p
                     WHERE p.match_id = report_result.match_id ORDER BY p.player_id;
        RETURN;
    END IF;
    IF m.status <> 'matched' THEN
        RAISE EXCEPTION 'match % is %', match_id, m.status
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    cfg := mm.matcher_config((SELECT q.config FROM mm.queue q WHERE q.queue_id = m.queue_id));
    rc := cfg -> 'rating';
    rkey := rc ->> 'key';
    season := jsonb_strip_nulls(jsonb_build_object('start', rc -> 'season_start', 'end', rc -> 'season_end'));

    -- a work table per session, emptied at commit
    IF pg_catalog.to_regclass('pg_temp.mm_result_work') IS NULL THEN
        CREATE TEMP TABLE pg_temp.mm_result_work (
            player_id bigint, team text, rank float8, team_score float8, weight float8, score float8,
            deserted boolean, ord int, mu float8, sigma float8, rating float8, rd float8, vol float8,
            ladder int, mu2 float8, sigma2 float8, rating2 float8, rd2 float8, vol2 float8,
            awarded int, ladder2 int, stacks int) ON COMMIT DELETE ROWS;
    END IF;
    DELETE FROM pg_temp.mm_result_work;
    INSERT INTO pg_temp.mm_result_work (player_id, team, rank, team_score, weight, score, deserted, ord)
    SELECT rp.*, row_number() OVER (ORDER BY rp.player_id)
    FROM mm._result_players(report_result.match_id, result) rp;
    ids := ARRAY(SELECT w.player_id FROM pg_temp.mm_result_work w ORDER BY w.player_id);

    -- the rating state before, locked in player-id order
    UPDATE pg_temp.mm_result_work w
       SET mu = coalesce(l.mu, (rc ->> 'mu')::float8), sigma = coalesce(l.sigma, (rc ->> 'sigma')::float8),
           rating = coalesce((l.g).rating, (rc ->> 'rating')::float8), rd = coalesce((l.g).rd, (rc ->> 'rd')::float8),
           vol = coalesce((l.g).vol, (rc ->> 'vol')::float8), ladder = l.ladder_points
      FROM (SELECT x.*, mm._glicko_now(x, at) AS g FROM mm._lock_ratings(rkey, ids) x) l
     WHERE l.player_id = w.player_id;

    IF rc ->> 'model' = 'openskill' THEN
        UPDATE pg_temp.mm_result_work w SET mu2 = o.mu, sigma2 = o.sigma
          FROM (SELECT * FROM mm.openskill_rate(
                    ARRAY(SELECT CASE x.team WHEN 'red' THEN 1 ELSE 2 END FROM pg_temp.mm_result_work x ORDER BY x.ord),
                    ARRAY(SELECT x.rank FROM pg_temp.mm_result_work x ORDER BY x.ord),
                    ARRAY(SELECT x.mu FROM pg_temp.mm_result_work x ORDER BY x.ord),
                    ARRAY(SELECT x.sigma FROM pg_temp.mm_result_work x ORDER BY x.ord),
                    model => rc ->> 'openskill_model', beta => (rc ->> 'beta')::float8,
                    kappa => (rc ->> 'kappa')::float8, tau => (rc ->> 'tau')::float8,
                    weight => ARRAY(SELECT x.weight FROM pg_temp.mm_result_work x ORDER BY x.ord))) o
         WHERE o.idx = w.ord;
    ELSE
        -- Glicko-2, one game: each player against every opposing player
        UPDATE pg_temp.mm_result_work w SET rating2 = (g).rating, rd2 = (g).rd, vol2 = (g).vol
          FROM (SELECT x.player_id,
                       mm.glicko2_rate(ROW(x.rating, x.rd, x.vol)::mm.glicko,
                                       ARRAY(SELECT o.rating FROM pg_temp.mm_result_work o WHERE o.team <> x.team ORDER BY o.ord),
                                       ARRAY(SELECT o.rd FROM pg_temp.mm_result_work o WHERE o.team <> x.team ORDER BY o.ord),
                                       ARRAY(SELECT CASE WHEN x.rank < o.rank THEN 1.0 WHEN x.rank = o.rank THEN 0.5 ELSE 0.0 END
                                             FROM pg_temp.mm_result_work o WHERE o.team <> x.team ORDER BY o.ord)) AS g
                FROM pg_temp.mm_result_work x) n
         WHERE n.player_id = w.player_id;
    END IF;

    -- ladder points from the match's prediction, with the team's final score
    IF (rc ->> 'ladder')::boolean THEN
        UPDATE pg_temp.mm_result_work w
           SET awarded = mm.ladder_points(CASE w.team WHEN 'red' THEN m.red_odds ELSE m.blue_odds END,
                                          w.team_score,
                                          CASE WHEN w.deserted THEN 'desertion'
                                               WHEN w.rank < (SELECT min(o.rank) FROM pg_temp.mm_result_work o WHERE o.team <> w.team)
                                               THEN 'victory' ELSE 'defeat' END,
                                          season, at)
         WHERE w.team_score IS NOT NULL;
        UPDATE pg_temp.mm_result_work w SET ladder2 = (mm.ladder_apply(w.ladder, w.awarded, season)).ladder_points
         WHERE w.awarded IS NOT NULL;
    END IF;

    -- dishonor for desertions, in player-id order
    IF rc ->> 'desertion_reason' IS NOT NULL THEN
        UPDATE pg_temp.mm_result_work w SET stacks = d.stacks
          FROM (SELECT x.player_id, (mm.dishonor(x.player_id, rc ->> 'desertion_reason', at)).stacks
                FROM pg_temp.mm_result_work x WHERE x.deserted ORDER BY x.player_id) d
         WHERE d.player_id = w.player_id;
    END IF;

    UPDATE mm.ratings r
       SET mu = coalesce(w.mu2, r.mu), sigma = coalesce(w.sigma2, r.sigma),
           rating = coalesce(w.rating2, r.rating), rd = coalesce(w.rd2, r.rd), vol = coalesce(w.vol2, r.vol),
           ladder_points = coalesce(w.ladder2, r.ladder_points),
           games = r.games + 1, last_played = at
      FROM pg_temp.mm_result_work w
     WHERE r.key = rkey AND r.player_id = w.player_id;

    INSERT INTO mm.match_result (match_id, queue_id, status, result, reported_at)
    VALUES (m.match_id, m.queue_id, 'reported', result, at);
    INSERT INTO mm.match_result_player
    SELECT m.match_id, w.player_id, m.queue_id, w.team, w.rank, w.score, w.weight, w.deserted, rkey,
           CASE WHEN w.mu2 IS NOT NULL THEN w.mu END, CASE WHEN w.mu2 IS NOT NULL THEN w.sigma END, w.mu2, w.sigma2,
           CASE WHEN w.rating2 IS NOT NULL THEN w.rating END, CASE WHEN w.rating2 IS NOT NULL THEN w.rd END,
           CASE WHEN w.rating2 IS NOT NULL THEN w.vol END, w.rating2, w.rd2, w.vol2,
           w.ladder, w.awarded, w.ladder2, w.stacks
    FROM pg_temp.mm_result_work w ORDER BY w.player_id;
    UPDATE mm.match x SET status = 'finished' WHERE x.match_id = m.match_id;
    DELETE FROM pg_temp.mm_result_work;

    RETURN QUERY SELECT * FROM mm.match_result_player p
                 WHERE p.match_id = report_result.match_id ORDER BY p.player_id;
END
$$;
COMMENT ON FUNCTION mm.report_result(bigint, jsonb) IS
    'rate a match exactly once with its queue''s "rating" config: OpenSkill or Glicko-2 ratings, ladder points from the match''s prediction, dishonor for desertions; records every player''s before and after, marks the match finished; a repeated identical report returns the first outcome, a different one is an error (23505)';

CREATE FUNCTION mm.abandon_match(match_id bigint)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    m mm.match;
    prev mm.match_result;
BEGIN
    IF match_id IS NULL THEN
        RAISE EXCEPTION 'match_id must not be NULL' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    SELECT * INTO m FROM mm.match x WHERE x.match_id = abandon_match.match_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'match % does not exist', match_id USING ERRCODE = 'undefined_object';
    END IF;
    SELECT * INTO prev FROM mm.match_result x WHERE x.match_id = abandon_match.match_id;
    IF FOUND THEN
        IF prev.status = 'reported' THEN
            RAISE EXCEPTION 'match % already has a result', match_id
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      DETAIL = format('It was reported at %s.', prev.reported_at);
        END IF;
        RETURN false;
    END IF;
    INSERT INTO mm.match_result (match_id, queue_id, status, result, reported_at)
    VALUES (m.match_id, m.queue_id, 'abandoned', NULL, now());
    UPDATE mm.match x SET status = 'finished' WHERE x.match_id = m.match_id;
    RETURN true;
END
$$;
COMMENT ON FUNCTION mm.abandon_match(bigint) IS
    'end a match that will never be reported (its game server crashed): no rating, ladder or dishonor; the match is finished, so its players may queue again; true when it abandoned the match, false when it was already abandoned; a reported match is an error';

-- mm.enqueue: a NULL rating is taken from mm.ratings (mm.roster_rating)
CREATE OR REPLACE FUNCTION mm.enqueue(queue text, players bigint[], rating float8, deviation float8 DEFAULT 0,
                           rank float8 DEFAULT 0, ladder_points float8 DEFAULT 0,
                           dishonor int DEFAULT NULL, professions text[] DEFAULT '{}',
                           joined_at timestamptz DEFAULT now())
RETURNS bigint
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q mm.queue := mm._queue(queue);
    cfg jsonb := mm.matcher_config(q.config);
    team_size int := (cfg ->> 'team_size')::int;
    n int := cardinality(players);
    p bigint;
    other bigint;
    s timestamptz;
    stacks int;
    id bigint;
BEGIN
    IF players IS NULL OR n = 0 THEN
        RAISE EXCEPTION 'roster must have at least one player'
            USING ERRCODE = 'invalid_parameter_value', HINT = 'Pass the party''s player ids, such as ARRAY[1, 2].';
    END IF;
    IF array_ndims(players) > 1 THEN
        RAISE EXCEPTION 'players must be a one-dimensional array'
            USING ERRCODE = 'array_subscript_error';
    END IF;
    IF n > team_size THEN
        RAISE EXCEPTION 'roster is larger than a team'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The roster has %s players; queue "%s" has teams of %s.', n, queue, team_size),
                  HINT = 'Split the party, or queue it where teams are larger.';
    END IF;
    IF array_position(players, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'players must not contain nulls' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    SELECT x INTO p FROM unnest(players) x GROUP BY x HAVING count(*) > 1 ORDER BY x LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'player % appears twice in the roster', p
            USING ERRCODE = 'invalid_parameter_value', HINT = 'List each player once.';
    END IF;
    IF deviation IS NULL OR rank IS NULL OR ladder_points IS NULL
       OR professions IS NULL OR joined_at IS NULL THEN
        RAISE EXCEPTION 'deviation, rank, ladder_points, professions and joined_at must not be null'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF NOT isfinite(joined_at) THEN
        RAISE EXCEPTION 'joined_at must be finite' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF joined_at > now() THEN
        RAISE EXCEPTION 'joined_at must not be in the future'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('joined_at is %s and the transaction started at %s.', joined_at, now()),
                  HINT = 'Leave joined_at out to queue the roster now.';
    END IF;
    PERFORM mm._check_roster(rating, deviation, rank, ladder_points, dishonor, professions, n);

    -- dishonor: players in a timeout now may not queue (whatever joined_at
    -- says); stacks default the roster's dishonor
    SELECT d.player_id, d.timeout_until INTO p, s
    FROM mm.dishonor_statuses(players, now()) d
    WHERE d.timeout_until > now() ORDER BY d.timeout_until DESC LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'player % is in a dishonor timeout', p
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = format('The timeout lasts until %s.', s),
                  HINT = format('The player can queue again at %s.', s);
    END IF;
    SELECT coalesce(sum(d.stacks), 0) INTO stacks FROM mm.dishonor_statuses(players, now()) d;

    SELECT qp.player_id, qp.roster_id INTO p, other
    FROM mm.queued_player qp WHERE qp.player_id = ANY (players) ORDER BY qp.player_id LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'player % is already queued', p
            USING ERRCODE = 'unique_violation',
                  DETAIL = format('The player is in waiting roster %s.', other),
                  HINT = format('Call mm.leave(%s) first.', other);
    END IF;

    -- requeue_while_in_match false: a player whose last match is not
    -- finished waits for it
    IF NOT (cfg ->> 'requeue_while_in_match')::boolean THEN
        SELECT e.player_id, e.match_id INTO p, other
        FROM unnest(players) AS u(x)
        CROSS JOIN LATERAL (SELECT e.player_id, e.match_id FROM mm.ticket_event e
                            WHERE e.player_id = u.x AND e.status = 'matched'
                            ORDER BY e.event_id DESC LIMIT 1) e
        JOIN mm.match m ON m.match_id = e.match_id
        WHERE m.status <> 'finished'
        ORDER BY e.player_id LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'player % is in match % that is not finished', p, other
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      DETAIL = format('Queue "%s" does not let players queue again while in a match.', queue),
                      HINT = 'Queue the player again once the match is finished, or set the queue''s requeue_while_in_match to true.';
        END IF;
    END IF;

    -- no rating given: the roster's rating and deviation from the players'
    -- mm.ratings rows of the queue's rating key
    IF rating IS NULL THEN
        SELECT r.rating, r.deviation INTO rating, deviation
        FROM mm.roster_rating(cfg -> 'rating', players, now()) r;
    END IF;
    INSERT INTO mm.roster (queue_id, rating, deviation, rank, ladder_points, dishonor, joined_at)
    VALUES (q.queue_id, rating, deviation, rank, ladder_points, coalesce(dishonor, stacks), joined_at)
    RETURNING roster.roster_id INTO id;
    BEGIN
        INSERT INTO mm.queued_player (player_id, roster_id, queue_id, seat, profession)
        SELECT u.x, id, q.queue_id, u.o, professions[u.o]
        FROM unnest(players) WITH ORDINALITY AS u(x, o);
    EXCEPTION WHEN unique_violation THEN
        RAISE EXCEPTION 'a player of the roster was queued at the same time'
            USING ERRCODE = 'unique_violation', HINT = 'Another session queued one of these players; see mm.queued_player.';
    END;
    INSERT INTO mm.ticket_event (roster_id, player_id, status, at, queue_id)
    SELECT id, u.x, 'waiting', joined_at, q.queue_id FROM unnest(players) AS u(x);
    RETURN id;
END
$$;
COMMENT ON FUNCTION mm.enqueue(text, bigint[], float8, float8, float8, float8, int, text[], timestamptz) IS
    'queue a roster (party); rating NULL takes the roster''s rating and deviation from mm.ratings (mm.roster_rating); joined_at may not lie in the future; players in a dishonor timeout now are refused; dishonor defaults to its players'' stacks (mm.dishonor_status); returns the roster id';

-- ==== config spine: one key table per config, stored configs normalised ====

CREATE FUNCTION mm.config_keys(kind text DEFAULT NULL)
RETURNS TABLE (kind text, key text, type text, "default" jsonb, min float8, max float8,
               unit text, doc text)
AS 'MODULE_PATHNAME', 'mm_config_keys'
LANGUAGE C IMMUTABLE PARALLEL SAFE ROWS 200;
COMMENT ON FUNCTION mm.config_keys(text) IS
    'the keys of a kind of config (queue, pool, policy, dishonor, ladder, prediction, rate, place; NULL: every kind): dotted key, type (number, integer, boolean, text, duration, object), default, range, unit and a one-line doc';

-- A queue stores its config complete, as mm.matcher_config returns it (as a
-- pool does), numbers in their shortest round-trip form.
CREATE OR REPLACE FUNCTION mm.create_queue(name text, config jsonb DEFAULT '{}')
RETURNS void
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF name IS NULL OR name = '' THEN
        RAISE EXCEPTION 'queue name must not be empty'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Give the queue a name, such as ''ranked''.';
    END IF;
    IF config IS NULL THEN
        RAISE EXCEPTION 'queue config must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass ''{}'' for the defaults.';
    END IF;
    INSERT INTO mm.queue (name, config) VALUES (create_queue.name, mm.matcher_config(config));
EXCEPTION WHEN unique_violation THEN
    RAISE EXCEPTION 'queue "%" already exists', name
        USING ERRCODE = 'duplicate_object',
              HINT = 'Pick another name, or change its config with mm.alter_queue.';
END
$$;
COMMENT ON FUNCTION mm.create_queue(text, jsonb) IS
    'create a queue with a matcher config (keys: team_size, filter, scoring, prediction; see mm.matcher_config); stores the config complete, as mm.matcher_config returns it';

CREATE OR REPLACE FUNCTION mm.alter_queue(name text, config jsonb, replace boolean DEFAULT false)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q mm.queue;
    new_cfg jsonb;
    size int;
    removed int;
BEGIN
    IF config IS NULL OR replace IS NULL THEN
        RAISE EXCEPTION 'queue config and replace must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass ''{}'' to change nothing.';
    END IF;
    -- FOR NO KEY UPDATE: ticks and enqueues (FOR KEY SHARE through their
    -- foreign keys) do not wait for it
    SELECT * INTO q FROM mm.queue WHERE queue.name = alter_queue.name AND queue.dropped_at IS NULL FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'queue "%" does not exist', name
            USING ERRCODE = 'undefined_object', HINT = 'Create it with mm.create_queue.';
    END IF;
    new_cfg := mm.matcher_config(CASE WHEN replace THEN config ELSE mm._jsonb_merge(q.config, config) END);
    size := (new_cfg ->> 'team_size')::int;
    UPDATE mm.queue SET config = new_cfg WHERE queue.queue_id = q.queue_id;
    -- rosters larger than a team now could never match: take them out
    SELECT count(*) INTO removed
    FROM mm._end_rosters(ARRAY(SELECT qp.roster_id FROM mm.queued_player qp
                               WHERE qp.queue_id = q.queue_id
                               GROUP BY qp.roster_id HAVING count(*) > size),
                         'removed', 'team_size', false);
    IF removed > 0 THEN
        RAISE NOTICE '% rosters of queue "%" had more players than the new team size and were removed', removed, name
            USING HINT = 'mm.ticket_status tells their players; they may queue again in smaller parties.';
    END IF;
    RETURN new_cfg;
END
$$;
COMMENT ON FUNCTION mm.alter_queue(text, jsonb, boolean) IS
    'change some keys of a queue''s config (nested objects merge; replace => true starts again from the defaults); stores and returns the config complete; the next tick uses it; rosters larger than a new team_size are removed (reason team_size)';

-- Stored configs, normalised the same way: every key present, numbers
-- shortest (0.1, not 0.10000000000000001).
UPDATE mm.queue SET config = mm.matcher_config(config);
UPDATE mm.async_pools SET config = mm.async_config(config);

-- Durations have one meaning: seconds, or an interval of days, hours,
-- minutes and seconds; months and years are refused. 0.1.0 read a month of
-- a dishonor duration as 30 days: such a stored duration becomes that many
-- seconds.
UPDATE mm.dishonor_settings s
SET config = mm.dishonor_config_resolve((
    SELECT pg_catalog.jsonb_object_agg(e.key,
               CASE WHEN e.key IN ('stack_duration', 'timeout_duration', 'timeout_rounding')
                         AND pg_catalog.jsonb_typeof(e.value) = 'string'
                         AND pg_catalog.date_part('month', (e.value #>> '{}')::interval)
                             + 12 * pg_catalog.date_part('year', (e.value #>> '{}')::interval) <> 0
                    THEN pg_catalog.to_jsonb(
                             pg_catalog.date_part('epoch', (e.value #>> '{}')::interval
                                 - pg_catalog.make_interval(months => (pg_catalog.date_part('month', (e.value #>> '{}')::interval)
                                     + 12 * pg_catalog.date_part('year', (e.value #>> '{}')::interval))::int))
                             + 2592000 * (pg_catalog.date_part('month', (e.value #>> '{}')::interval)
                                 + 12 * pg_catalog.date_part('year', (e.value #>> '{}')::interval)))
                    ELSE e.value END)
    FROM pg_catalog.jsonb_each(s.config) e));

-- ==== ready check: accept, decline, dissolve ====

-- Matches: proposed (in a ready check until accept_until) and dissolved;
-- only matched ones are claimable. A matched roster keeps its queue place,
-- for a dissolved ready check to give it back (NULL for 0.1.0's matches,
-- none of which had a ready check: they stay matched or finished).
ALTER TABLE mm.match ADD COLUMN accept_until timestamptz;
ALTER TABLE mm.match DROP CONSTRAINT match_status_check;
ALTER TABLE mm.match ADD CONSTRAINT match_status_check CHECK (status IN ('proposed', 'matched', 'dissolved', 'finished'));
ALTER TABLE mm.match ADD CONSTRAINT match_accept_until_check CHECK ((status = 'proposed') = (accept_until IS NOT NULL) AND isfinite(accept_until));
DROP INDEX mm.match_undelivered_idx;
CREATE INDEX match_undelivered_idx ON mm.match (queue_id, match_id) WHERE delivered_at IS NULL AND status IN ('matched', 'finished');
CREATE INDEX match_proposed_idx ON mm.match (queue_id, accept_until) WHERE accept_until IS NOT NULL;
COMMENT ON TABLE mm.match IS 'matches made by ticks: prediction in [-1, 1] (-1 red dominates), each team''s odds of victory, rating spread (max - min effective rating of its rosters), status (proposed: in its ready check until accept_until; matched: ready to play; dissolved: its ready check failed; finished), when mm.claim_matches delivered it';
COMMENT ON COLUMN mm.match.accept_until IS 'end of the ready check of a proposed match (the queue''s accept_timeout after the tick); NULL once it is matched or dissolved, and for queues without a ready check';
COMMENT ON CONSTRAINT match_accept_until_check ON mm.match IS 'a proposed match, and only a proposed one, has a finite end of its ready check';
COMMENT ON INDEX mm.match_undelivered_idx IS 'matches of a queue not yet claimed (mm.claim_matches): matched or finished, never proposed or dissolved';
COMMENT ON INDEX mm.match_proposed_idx IS 'proposed matches of a queue by the end of their ready check (ticks dissolve those past it)';
ALTER TABLE mm.match_roster ADD COLUMN position bigint;
COMMENT ON TABLE mm.match_roster IS 'the rosters of each match, their team and their data when matched; a roster is in at most one match (a dissolved match gives its rosters up)';
COMMENT ON COLUMN mm.match_roster.position IS 'the roster''s place in queue order when matched: a roster that goes back to the queue after a dissolved ready check takes it again (NULL for matches made by 0.1.0)';

-- Ticket history: one row per event (a roster may wait, be proposed and
-- wait again), keyed by event_id; a roster's events by their own index.
ALTER TABLE mm.ticket_event DROP CONSTRAINT ticket_event_pkey;
ALTER TABLE mm.ticket_event ADD CONSTRAINT ticket_event_pkey PRIMARY KEY (event_id);
ALTER TABLE mm.ticket_event DROP CONSTRAINT ticket_event_status_check;
ALTER TABLE mm.ticket_event ADD CONSTRAINT ticket_event_status_check CHECK (status IN ('waiting', 'proposed', 'accepted', 'matched', 'expired', 'left', 'removed'));
ALTER TABLE mm.ticket_event DROP CONSTRAINT ticket_event_match_check;
ALTER TABLE mm.ticket_event ADD CONSTRAINT ticket_event_match_check CHECK (CASE WHEN status IN ('proposed', 'accepted', 'matched') THEN match_id IS NOT NULL
                                                    WHEN status IN ('expired', 'left') THEN match_id IS NULL
                                                    ELSE true END);
CREATE INDEX ticket_event_roster_idx ON mm.ticket_event (roster_id, event_id);
COMMENT ON TABLE mm.ticket_event IS 'ticket history: per roster and player, when it started waiting and how it ended (matched with its match, expired, left, removed) with a reason; with a ready check also proposed and accepted (with the match), and waiting again or removed (with the dissolved match and the reason declined, accept_timeout or drop_queue)';
COMMENT ON CONSTRAINT ticket_event_match_check ON mm.ticket_event IS 'proposed, accepted and matched name their match; waiting and removed may (a dissolved match); expired and left do not';
COMMENT ON INDEX mm.ticket_event_roster_idx IS 'a roster''s history in order (mm.roster_status)';

-- Ready check: a queue with an accept_timeout makes its matches "proposed";
-- each player accepts (mm.accept) or declines (mm.decline). When all have
-- accepted the match is matched (then notified and claimable); a decline,
-- or the end of the ready check (seen by the queue's next tick, or by a
-- decline), dissolves it: rosters without a dodger go back to the queue in
-- their old place with their old joined_at, the others are removed, and
-- each dodger gets the queue's dodge_reason dishonor (the Guild Wars 2
-- wiki's QueueDodge: "leaving or failing to confirm you're ready for a
-- match"). Everything in the transaction of the call or tick that decides.

-- One row per player who accepted a proposed match; the key makes an
-- accept count once.
CREATE TABLE mm.match_accept (
    match_id    bigint NOT NULL,
    player_id   bigint NOT NULL,
    queue_id    int NOT NULL,
    accepted_at timestamptz NOT NULL,
    CONSTRAINT match_accept_pkey PRIMARY KEY (match_id, player_id),
    CONSTRAINT match_accept_match_fkey FOREIGN KEY (queue_id, match_id)
        REFERENCES mm.match (queue_id, match_id) ON DELETE CASCADE,
    CONSTRAINT match_accept_accepted_at_check CHECK (isfinite(accepted_at))
);
COMMENT ON TABLE mm.match_accept IS 'the players who accepted a match in its ready check (mm.accept), once each, and when';
SELECT pg_catalog.pg_extension_config_dump('mm.match_accept', '');

-- Dissolve a proposed match the caller has locked, for a reason (declined,
-- accept_timeout, drop_queue). With "dodgers", they are the dodgers (a
-- decline: the decliner; none); NULL: every player who has not accepted
-- (the ready check ended). Rosters without a dodger go back to the
-- queue in their old place (unless one of their players queued again
-- meanwhile, or the queue was dropped); the others are removed; the dodgers get the queue's
-- dodge_reason dishonor in player-id order.
CREATE FUNCTION mm._dissolve_match(match_id bigint, dodgers bigint[], reason text, at timestamptz)
RETURNS void
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    m mm.match;
    dodge text;
    dodged bigint[];
    back bigint[];
    p bigint;
BEGIN
    SELECT * INTO m FROM mm.match x WHERE x.match_id = _dissolve_match.match_id;
    dodge := mm.matcher_config((SELECT q.config FROM mm.queue q WHERE q.queue_id = m.queue_id)) ->> 'dodge_reason';
    dodged := ARRAY(SELECT u.p FROM mm.match_roster mr, unnest(mr.players) AS u(p)
                    WHERE mr.queue_id = m.queue_id AND mr.match_id = m.match_id
                      AND CASE WHEN dodgers IS NULL
                               THEN NOT EXISTS (SELECT FROM mm.match_accept a
                                                WHERE a.match_id = m.match_id AND a.player_id = u.p)
                               ELSE u.p = ANY (dodgers) END
                    ORDER BY u.p);
    back := ARRAY(SELECT mr.roster_id FROM mm.match_roster mr
                  WHERE mr.queue_id = m.queue_id AND mr.match_id = m.match_id
                    AND NOT mr.players && dodged
                    AND NOT EXISTS (SELECT FROM mm.queued_player qp WHERE qp.player_id = ANY (mr.players))
                    AND NOT EXISTS (SELECT FROM mm.queue q WHERE q.queue_id = m.queue_id AND q.dropped_at IS NOT NULL)
                  ORDER BY mr.roster_id);

    -- back to the queue: the same roster id, place and joined_at (no later
    -- than now(), which roster_joined_at_check holds it to: a transaction
    -- older than the roster's enqueue may be the one that dissolves)
    INSERT INTO mm.roster (roster_id, queue_id, position, rating, deviation, rank, ladder_points, dishonor, joined_at)
    SELECT mr.roster_id, mr.queue_id, coalesce(mr.position, nextval('mm.roster_position_seq')), mr.rating,
           mr.deviation, mr.rank, mr.ladder_points, mr.dishonor, least(mr.joined_at, now())
    FROM mm.match_roster mr WHERE mr.match_id = m.match_id AND mr.roster_id = ANY (back);
    INSERT INTO mm.queued_player (player_id, roster_id, queue_id, seat, profession)
    SELECT u.p, mr.roster_id, mr.queue_id, u.o,
           CASE WHEN cardinality(mr.professions) = cardinality(mr.players) THEN mr.professions[u.o] END
    FROM mm.match_roster mr, unnest(mr.players) WITH ORDINALITY AS u(p, o)
    WHERE mr.match_id = m.match_id AND mr.roster_id = ANY (back);

    -- each player's ticket: waiting again, or removed
    INSERT INTO mm.ticket_event (roster_id, player_id, status, at, queue_id, match_id, reason)
    SELECT mr.roster_id, u.p, CASE WHEN mr.roster_id = ANY (back) THEN 'waiting' ELSE 'removed' END,
           _dissolve_match.at, mr.queue_id, m.match_id, _dissolve_match.reason
    FROM mm.match_roster mr, unnest(mr.players) AS u(p)
    WHERE mr.queue_id = m.queue_id AND mr.match_id = m.match_id
    ORDER BY mr.roster_id, u.p;

    -- the match gives its rosters up (a roster is in at most one match)
    DELETE FROM mm.match_roster mr WHERE mr.queue_id = m.queue_id AND mr.match_id = m.match_id;
    UPDATE mm.match x SET status = 'dissolved', accept_until = NULL WHERE x.match_id = m.match_id;

    IF dodge IS NOT NULL THEN
        FOREACH p IN ARRAY dodged LOOP
            PERFORM mm.dishonor(p, dodge, _dissolve_match.at);
        END LOOP;
    END IF;
END
$$;
COMMENT ON FUNCTION mm._dissolve_match(bigint, bigint[], text, timestamptz) IS
    'internal: dissolve a proposed match the caller has locked, for a reason: the dodgers given (or, when NULL, every player who has not accepted) dodged; rosters without a dodger go back to the queue in their old place, the others are removed; the dodgers get the queue''s dodge_reason dishonor';

-- The ready checks of a queue that ended by "at", dissolved; those another
-- session is deciding (an accept or decline holds the match) are left to
-- it or to the next tick. Called by mm.tick first.
CREATE FUNCTION mm._resolve_proposals(queue_id int, at timestamptz)
RETURNS int
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    id bigint;
    n int := 0;
BEGIN
    FOR id IN SELECT m.match_id FROM mm.match m
              WHERE m.queue_id = _resolve_proposals.queue_id AND m.accept_until IS NOT NULL
                AND m.accept_until <= _resolve_proposals.at
              ORDER BY m.match_id
              FOR UPDATE SKIP LOCKED LOOP
        PERFORM mm._dissolve_match(id, NULL, 'accept_timeout', _resolve_proposals.at);
        n := n + 1;
    END LOOP;
    RETURN n;
END
$$;
COMMENT ON FUNCTION mm._resolve_proposals(int, timestamptz) IS
    'internal (mm.tick): dissolve the proposed matches of a queue whose ready check ended by "at", skipping those another session holds; returns how many';

-- Lock a match for mm.accept and mm.decline and find the player's roster
-- in it (NULL when the match is no longer proposed).
CREATE FUNCTION mm._ready_match(match_id bigint, player_id bigint, OUT m mm.match, OUT roster_id bigint)
RETURNS record
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF match_id IS NULL OR player_id IS NULL THEN
        RAISE EXCEPTION 'match_id and player_id must not be NULL'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    -- one decision at a time per match: accepts, declines and ticks queue up
    SELECT * INTO m FROM mm.match x WHERE x.match_id = _ready_match.match_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'match % does not exist', match_id
            USING ERRCODE = 'undefined_object', HINT = 'mm.ticket_status tells a player''s match.';
    END IF;
    IF m.status = 'dissolved' THEN
        RETURN;
    END IF;
    SELECT mr.roster_id INTO roster_id FROM mm.match_roster mr
    WHERE mr.queue_id = m.queue_id AND mr.match_id = m.match_id AND _ready_match.player_id = ANY (mr.players);
    IF NOT FOUND THEN
        RAISE EXCEPTION 'player % is not in match %', player_id, match_id
            USING ERRCODE = 'invalid_parameter_value', HINT = 'mm.ticket_status tells a player''s match.';
    END IF;
END
$$;
COMMENT ON FUNCTION mm._ready_match(bigint, bigint) IS
    'internal: lock a match for mm.accept or mm.decline and find the player''s roster in it (none when dissolved); errors for a missing match or a player not in it';

CREATE FUNCTION mm.accept(match_id bigint, player_id bigint)
RETURNS text
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    r record := mm._ready_match(match_id, player_id);
    m mm.match := r.m;
    players int;
    accepted int;
BEGIN
    IF m.status = 'dissolved' THEN
        RAISE EXCEPTION 'match % was dissolved', match_id
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'A player declined or did not accept in time.',
                  HINT = 'mm.ticket_status tells whether the player is waiting again.';
    END IF;
    IF m.status <> 'proposed' THEN
        RETURN m.status;   -- matched or finished: nothing to accept
    END IF;
    IF now() >= m.accept_until THEN
        RAISE EXCEPTION 'the ready check of match % has ended', match_id
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = format('It ended at %s.', m.accept_until),
                  HINT = 'The next tick of the queue dissolves the match; rosters whose players all accepted go back to the queue.';
    END IF;
    INSERT INTO mm.match_accept AS a (match_id, player_id, queue_id, accepted_at)
    VALUES (m.match_id, accept.player_id, m.queue_id, now())
    ON CONFLICT ON CONSTRAINT match_accept_pkey DO NOTHING;
    IF FOUND THEN
        INSERT INTO mm.ticket_event (roster_id, player_id, status, at, queue_id, match_id)
        VALUES (r.roster_id, accept.player_id, 'accepted', now(), m.queue_id, m.match_id);
    END IF;
    SELECT sum(cardinality(mr.players)) INTO players FROM mm.match_roster mr
    WHERE mr.queue_id = m.queue_id AND mr.match_id = m.match_id;
    SELECT count(*) INTO accepted FROM mm.match_accept a WHERE a.match_id = m.match_id;
    IF accepted < players THEN
        RETURN 'proposed';
    END IF;

    -- everyone accepted: the match is ready to play, notified and claimable
    UPDATE mm.match x SET status = 'matched', accept_until = NULL WHERE x.match_id = m.match_id;
    INSERT INTO mm.ticket_event (roster_id, player_id, status, at, queue_id, match_id)
    SELECT mr.roster_id, u.p, 'matched', now(), m.queue_id, m.match_id
    FROM mm.match_roster mr, unnest(mr.players) AS u(p)
    WHERE mr.queue_id = m.queue_id AND mr.match_id = m.match_id
    ORDER BY mr.roster_id, u.p;
    PERFORM pg_catalog.pg_notify('mm_queue_' || m.queue_id,
                                 format('{"queue_id": %s, "queue": %s, "matches": [%s]}', m.queue_id,
                                        to_json((SELECT q.name FROM mm.queue q WHERE q.queue_id = m.queue_id)),
                                        m.match_id));
    RETURN 'matched';
END
$$;
COMMENT ON FUNCTION mm.accept(bigint, bigint) IS
    'a player accepts a proposed match (ready check); returns the match''s status: proposed while others have not accepted, matched once all have (the match is then notified on the queue''s channel and claimable); accepting again changes nothing; refused (55000) once the ready check has ended or the match was dissolved';

CREATE FUNCTION mm.decline(match_id bigint, player_id bigint)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    r record := mm._ready_match(match_id, player_id);
    m mm.match := r.m;
BEGIN
    IF m.status = 'dissolved' THEN
        RETURN false;
    END IF;
    IF m.status <> 'proposed' THEN
        RAISE EXCEPTION 'match % is % and can no longer be declined', match_id, m.status
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'Every player accepted it.',
                  HINT = 'A player who leaves a match that started deserted it: name the player in the desertions of mm.report_result.';
    END IF;
    -- after the end of the ready check everyone who did not accept dodged
    IF now() < m.accept_until THEN
        PERFORM mm._dissolve_match(m.match_id, ARRAY[player_id], 'declined', now());
    ELSE
        PERFORM mm._dissolve_match(m.match_id, NULL, 'accept_timeout', now());
    END IF;
    RETURN true;
END
$$;
COMMENT ON FUNCTION mm.decline(bigint, bigint) IS
    'a player declines a proposed match (ready check): the match dissolves at once; the player''s roster is removed and the player gets the queue''s dodge_reason dishonor; the other rosters go back to the queue in their old place; after the end of the ready check, every player who did not accept is a dodger; true when it dissolved the match, false when it was already dissolved';

-- enqueue refuses players in a ready check; claims, purge and drop_queue know the new statuses
CREATE OR REPLACE FUNCTION mm.enqueue(queue text, players bigint[], rating float8, deviation float8 DEFAULT 0,
                           rank float8 DEFAULT 0, ladder_points float8 DEFAULT 0,
                           dishonor int DEFAULT NULL, professions text[] DEFAULT '{}',
                           joined_at timestamptz DEFAULT now())
RETURNS bigint
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q mm.queue := mm._queue(queue);
    cfg jsonb := mm.matcher_config(q.config);
    team_size int := (cfg ->> 'team_size')::int;
    n int := cardinality(players);
    p bigint;
    other bigint;
    s timestamptz;
    stacks int;
    id bigint;
BEGIN
    IF players IS NULL OR n = 0 THEN
        RAISE EXCEPTION 'roster must have at least one player'
            USING ERRCODE = 'invalid_parameter_value', HINT = 'Pass the party''s player ids, such as ARRAY[1, 2].';
    END IF;
    IF array_ndims(players) > 1 THEN
        RAISE EXCEPTION 'players must be a one-dimensional array'
            USING ERRCODE = 'array_subscript_error';
    END IF;
    IF n > team_size THEN
        RAISE EXCEPTION 'roster is larger than a team'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The roster has %s players; queue "%s" has teams of %s.', n, queue, team_size),
                  HINT = 'Split the party, or queue it where teams are larger.';
    END IF;
    IF array_position(players, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'players must not contain nulls' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    SELECT x INTO p FROM unnest(players) x GROUP BY x HAVING count(*) > 1 ORDER BY x LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'player % appears twice in the roster', p
            USING ERRCODE = 'invalid_parameter_value', HINT = 'List each player once.';
    END IF;
    IF deviation IS NULL OR rank IS NULL OR ladder_points IS NULL
       OR professions IS NULL OR joined_at IS NULL THEN
        RAISE EXCEPTION 'deviation, rank, ladder_points, professions and joined_at must not be null'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF NOT isfinite(joined_at) THEN
        RAISE EXCEPTION 'joined_at must be finite' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF joined_at > now() THEN
        RAISE EXCEPTION 'joined_at must not be in the future'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('joined_at is %s and the transaction started at %s.', joined_at, now()),
                  HINT = 'Leave joined_at out to queue the roster now.';
    END IF;
    PERFORM mm._check_roster(rating, deviation, rank, ladder_points, dishonor, professions, n);

    -- dishonor: players in a timeout now may not queue (whatever joined_at
    -- says); stacks default the roster's dishonor
    SELECT d.player_id, d.timeout_until INTO p, s
    FROM mm.dishonor_statuses(players, now()) d
    WHERE d.timeout_until > now() ORDER BY d.timeout_until DESC LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'player % is in a dishonor timeout', p
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = format('The timeout lasts until %s.', s),
                  HINT = format('The player can queue again at %s.', s);
    END IF;
    SELECT coalesce(sum(d.stacks), 0) INTO stacks FROM mm.dishonor_statuses(players, now()) d;

    SELECT qp.player_id, qp.roster_id INTO p, other
    FROM mm.queued_player qp WHERE qp.player_id = ANY (players) ORDER BY qp.player_id LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'player % is already queued', p
            USING ERRCODE = 'unique_violation',
                  DETAIL = format('The player is in waiting roster %s.', other),
                  HINT = format('Call mm.leave(%s) first.', other);
    END IF;

    -- a player in a ready check (a proposed match, until its end) is not
    -- free to queue
    SELECT e.player_id, e.match_id INTO p, other
    FROM unnest(players) AS u(x)
    CROSS JOIN LATERAL (SELECT e.player_id, e.match_id, e.status FROM mm.ticket_event e
                        WHERE e.player_id = u.x ORDER BY e.event_id DESC LIMIT 1) e
    JOIN mm.match m ON m.match_id = e.match_id
    WHERE e.status IN ('proposed', 'accepted') AND m.status = 'proposed' AND m.accept_until > now()
    ORDER BY e.player_id LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'player % is in the ready check of match %', p, other
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = format('Accept the match with mm.accept(%s, %s), or decline it with mm.decline.', other, p);
    END IF;

    -- requeue_while_in_match false: a player whose last match is not
    -- finished waits for it
    IF NOT (cfg ->> 'requeue_while_in_match')::boolean THEN
        SELECT e.player_id, e.match_id INTO p, other
        FROM unnest(players) AS u(x)
        CROSS JOIN LATERAL (SELECT e.player_id, e.match_id FROM mm.ticket_event e
                            WHERE e.player_id = u.x AND e.status = 'matched'
                            ORDER BY e.event_id DESC LIMIT 1) e
        JOIN mm.match m ON m.match_id = e.match_id
        WHERE m.status <> 'finished'
        ORDER BY e.player_id LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'player % is in match % that is not finished', p, other
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      DETAIL = format('Queue "%s" does not let players queue again while in a match.', queue),
                      HINT = 'Queue the player again once the match is finished, or set the queue''s requeue_while_in_match to true.';
        END IF;
    END IF;

    -- no rating given: the roster's rating and deviation from the players'
    -- mm.ratings rows of the queue's rating key
    IF rating IS NULL THEN
        SELECT r.rating, r.deviation INTO rating, deviation
        FROM mm.roster_rating(cfg -> 'rating', players, now()) r;
    END IF;
    INSERT INTO mm.roster (queue_id, rating, deviation, rank, ladder_points, dishonor, joined_at)
    VALUES (q.queue_id, rating, deviation, rank, ladder_points, coalesce(dishonor, stacks), joined_at)
    RETURNING roster.roster_id INTO id;
    BEGIN
        INSERT INTO mm.queued_player (player_id, roster_id, queue_id, seat, profession)
        SELECT u.x, id, q.queue_id, u.o, professions[u.o]
        FROM unnest(players) WITH ORDINALITY AS u(x, o);
    EXCEPTION WHEN unique_violation THEN
        RAISE EXCEPTION 'a player of the roster was queued at the same time'
            USING ERRCODE = 'unique_violation', HINT = 'Another session queued one of these players; see mm.queued_player.';
    END;
    INSERT INTO mm.ticket_event (roster_id, player_id, status, at, queue_id)
    SELECT id, u.x, 'waiting', joined_at, q.queue_id FROM unnest(players) AS u(x);
    RETURN id;
END
$$;
COMMENT ON FUNCTION mm.enqueue(text, bigint[], float8, float8, float8, float8, int, text[], timestamptz) IS
    'queue a roster (party); rating NULL takes the roster''s rating and deviation from mm.ratings (mm.roster_rating); joined_at may not lie in the future; players in a dishonor timeout now, or in the ready check of a proposed match, are refused; dishonor defaults to its players'' stacks (mm.dishonor_status); returns the roster id';

CREATE OR REPLACE FUNCTION mm.claim_matches(queue text, max int DEFAULT 100)
RETURNS TABLE (match_id bigint, created_at timestamptz, roster_id bigint, team text, players bigint[])
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q mm.queue := mm._queue(queue);
BEGIN
    IF max IS NULL OR max < 1 THEN
        RAISE EXCEPTION 'max must be at least 1'
            USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The value is %s.', max);
    END IF;
    RETURN QUERY
    WITH c AS (
        SELECT m.match_id FROM mm.match m
        WHERE m.queue_id = q.queue_id AND m.delivered_at IS NULL AND m.status IN ('matched', 'finished')
        ORDER BY m.match_id LIMIT max
        FOR UPDATE SKIP LOCKED
    ), d AS (
        UPDATE mm.match m SET delivered_at = clock_timestamp()
        FROM c WHERE m.match_id = c.match_id
        RETURNING m.match_id, m.created_at
    )
    SELECT d.match_id, d.created_at, mr.roster_id, mr.team, mr.players
    FROM d JOIN mm.match_roster mr ON mr.queue_id = q.queue_id AND mr.match_id = d.match_id
    ORDER BY d.match_id, mr.team DESC, mr.roster_id;
END
$$;
COMMENT ON FUNCTION mm.claim_matches(text, int) IS
    'hand up to "max" undelivered matches of a queue to this caller, one row per roster (never a match in its ready check, nor a dissolved one): each match goes to exactly one caller whatever order ticks commit in (FOR UPDATE SKIP LOCKED); marked delivered in the caller''s transaction, so a rollback gives them back';

CREATE OR REPLACE FUNCTION mm.purge(older_than interval, max_rows int DEFAULT 10000)
RETURNS bigint
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    cutoff timestamptz;
    left_rows int := max_rows;
    n int;
    total bigint := 0;
BEGIN
    IF older_than IS NULL OR NOT isfinite(now() - older_than) OR older_than < interval '0' THEN
        RAISE EXCEPTION 'older_than must be a finite interval that is not negative'
            USING ERRCODE = 'invalid_parameter_value', HINT = 'Such as ''30 days''.';
    END IF;
    IF max_rows IS NULL OR max_rows < 1 THEN
        RAISE EXCEPTION 'max_rows must be at least 1'
            USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The value is %s.', max_rows);
    END IF;
    cutoff := now() - older_than;
    -- the tick log
    DELETE FROM mm.tick_log l WHERE l.tick_id IN
        (SELECT x.tick_id FROM mm.tick_log x WHERE x.at < cutoff ORDER BY x.at LIMIT left_rows);
    GET DIAGNOSTICS n = ROW_COUNT;
    total := total + n; left_rows := left_rows - n;
    -- ticket history of rosters that are not waiting
    IF left_rows > 0 THEN
        DELETE FROM mm.ticket_event e WHERE e.event_id IN
            (SELECT x.event_id FROM mm.ticket_event x
             WHERE x.at < cutoff AND NOT EXISTS (SELECT FROM mm.roster r WHERE r.roster_id = x.roster_id)
             ORDER BY x.event_id LIMIT left_rows);
        GET DIAGNOSTICS n = ROW_COUNT;
        total := total + n; left_rows := left_rows - n;
    END IF;
    -- matches that are finished or delivered, or of a dropped queue (nobody
    -- can claim those any more), with their rosters
    IF left_rows > 0 THEN
        DELETE FROM mm.match m WHERE m.match_id IN
            (SELECT x.match_id FROM mm.match x
             WHERE x.created_at < cutoff
               AND (x.status IN ('finished', 'dissolved') OR x.delivered_at IS NOT NULL
                    OR EXISTS (SELECT FROM mm.queue q WHERE q.queue_id = x.queue_id AND q.dropped_at IS NOT NULL))
             ORDER BY x.match_id LIMIT left_rows);
        GET DIAGNOSTICS n = ROW_COUNT;
        total := total + n; left_rows := left_rows - n;
    END IF;
    -- dropped queues whose history is all gone
    IF left_rows > 0 THEN
        DELETE FROM mm.queue q
        WHERE q.dropped_at < cutoff
          AND NOT EXISTS (SELECT FROM mm.match m WHERE m.queue_id = q.queue_id)
          AND NOT EXISTS (SELECT FROM mm.tick_log l WHERE l.queue_id = q.queue_id)
          AND NOT EXISTS (SELECT FROM mm.ticket_event e WHERE e.queue_id = q.queue_id);
        GET DIAGNOSTICS n = ROW_COUNT;
        total := total + n;
    END IF;
    RETURN total;
END
$$;
COMMENT ON FUNCTION mm.purge(interval, int) IS
    'delete history older than "older_than": tick log, ticket history of rosters no longer waiting, matches that are finished, dissolved, delivered or of a dropped queue (with their rosters), then dropped queues left without history; at most max_rows rows per call (call it until it returns 0, e.g. from pg_cron); returns the rows deleted';

CREATE OR REPLACE FUNCTION mm.drop_queue(name text, keep_history boolean DEFAULT true)
RETURNS void
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    id int;
BEGIN
    SELECT q.queue_id INTO id FROM mm.queue q
    WHERE q.name = drop_queue.name AND q.dropped_at IS NULL FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'queue "%" does not exist', name
            USING ERRCODE = 'undefined_object', HINT = 'See the queues in mm.queue.';
    END IF;
    IF keep_history IS DISTINCT FROM false THEN
        UPDATE mm.queue q SET dropped_at = now() WHERE q.queue_id = id;
        -- ready checks in progress end without a dodger (their rosters are
        -- removed: the queue is dropped)
        PERFORM mm._dissolve_match(x.match_id, '{}', 'drop_queue', now())
        FROM (SELECT m.match_id FROM mm.match m WHERE m.queue_id = id AND m.accept_until IS NOT NULL
              ORDER BY m.match_id FOR UPDATE) x;
        PERFORM mm._end_rosters(ARRAY(SELECT r.roster_id FROM mm.roster r WHERE r.queue_id = id),
                                'removed', 'drop_queue', false);
    ELSE
        DELETE FROM mm.ticket_event e WHERE e.queue_id = id;
        DELETE FROM mm.queue q WHERE q.queue_id = id;
    END IF;
END
$$;
COMMENT ON FUNCTION mm.drop_queue(text, boolean) IS
    'drop a queue: its waiting rosters are removed, its matches in a ready check dissolved without dishonor; with keep_history (the default) its matches, ticket history and tick log stay (the queue row is marked dropped, its name free again) until mm.purge trims them; keep_history => false deletes them all';

COMMENT ON FUNCTION mm.ticket_status(bigint) IS
    'where a player is now: waiting (queue, roster, since when), in a ready check (proposed, or accepted, with the match id), or how its last ticket ended (matched with the match id and match status, expired, left, removed, with the reason and when; removed by a dissolved match names it); no row if the player never queued or its history was purged';
COMMENT ON FUNCTION mm.roster_status(bigint) IS
    'the history of a roster (ticket): when its players started waiting and how the roster, or a player removed from it, left the queue (matched with the match id, expired, left, removed, with the reason); with a ready check also proposed and accepted, and waiting again or removed when the match dissolved (with the match and the reason); its last row is its state now';


-- ==== backfill: open seats of running matches filled by the next tick ====

-- Backfill: a player left a running match; the next tick of the match's
-- queue fills the team's open seats from the queue, before it makes new
-- matches, with the matcher's own scoring against that team (src/backfill.c,
-- mm_matcher_backfill in src/matcher.c). The rosters are delivered like a
-- match: on the queue's NOTIFY channel and by mm.claim_matches, marked
-- kind 'backfill'.

CREATE SEQUENCE mm.backfill_id_seq;
COMMENT ON SEQUENCE mm.backfill_id_seq IS 'ids of mm.backfill';

-- One row per request. Its match and team are keys: a request is for a
-- match of the queue (cascading with it) and for one of its teams; status
-- says where it is, and the columns each status needs are CHECKed.
CREATE TABLE mm.backfill (
    backfill_id  bigint NOT NULL DEFAULT nextval('mm.backfill_id_seq'),
    queue_id     int NOT NULL,
    match_id     bigint NOT NULL,
    team         text NOT NULL,
    players      int NOT NULL,
    status       text NOT NULL DEFAULT 'open',
    requested_at timestamptz NOT NULL DEFAULT now(),
    ended_at     timestamptz,
    tick_id      bigint,
    delivered_at timestamptz,
    CONSTRAINT backfill_pkey PRIMARY KEY (backfill_id),
    CONSTRAINT backfill_match_team_key UNIQUE (match_id, team, backfill_id),
    CONSTRAINT backfill_match_fkey FOREIGN KEY (queue_id, match_id)
        REFERENCES mm.match (queue_id, match_id) ON DELETE CASCADE,
    CONSTRAINT backfill_team_check CHECK (team IN ('red', 'blue')),
    CONSTRAINT backfill_players_check CHECK (players BETWEEN 1 AND 1000),
    CONSTRAINT backfill_status_check CHECK (status IN ('open', 'filled', 'cancelled', 'expired')),
    CONSTRAINT backfill_ended_check CHECK ((status = 'open') = (ended_at IS NULL)),
    CONSTRAINT backfill_tick_check CHECK ((status = 'filled') = (tick_id IS NOT NULL)),
    CONSTRAINT backfill_delivered_check CHECK (delivered_at IS NULL OR status = 'filled'),
    CONSTRAINT backfill_time_check CHECK (isfinite(requested_at) AND isfinite(ended_at) AND isfinite(delivered_at))
);
ALTER SEQUENCE mm.backfill_id_seq OWNED BY mm.backfill.backfill_id;
CREATE INDEX backfill_open_idx ON mm.backfill (queue_id, backfill_id) WHERE status = 'open';
CREATE INDEX backfill_undelivered_idx ON mm.backfill (queue_id, backfill_id)
    WHERE status = 'filled' AND delivered_at IS NULL;
COMMENT ON TABLE mm.backfill IS 'backfill requests (mm.request_backfill): open seats of a team of a running match; open until a tick fills them (filled, with the tick), mm.cancel_backfill cancels them, or the match is reported or abandoned (expired); delivered_at is set when mm.claim_matches hands the filled rosters out';
COMMENT ON INDEX mm.backfill_open_idx IS 'open requests of a queue, oldest first (ticks)';
COMMENT ON INDEX mm.backfill_undelivered_idx IS 'filled requests of a queue not yet claimed (mm.claim_matches)';
COMMENT ON CONSTRAINT backfill_match_team_key ON mm.backfill IS 'the key mm.match_roster rows of a backfill refer to: a backfilled roster joins the request''s match and team';

-- A backfilled roster names its request; the foreign key holds it to the
-- request's match and team.
ALTER TABLE mm.match_roster
    ADD COLUMN backfill_id bigint,
    ADD CONSTRAINT match_roster_backfill_fkey FOREIGN KEY (match_id, team, backfill_id)
        REFERENCES mm.backfill (match_id, team, backfill_id) ON DELETE CASCADE;
COMMENT ON COLUMN mm.match_roster.backfill_id IS 'the backfill request that put the roster into the running match; NULL for the rosters the match was made with';

SELECT pg_catalog.pg_extension_config_dump('mm.backfill', '');
SELECT pg_catalog.pg_extension_config_dump('mm.backfill_id_seq', '');

CREATE FUNCTION mm.request_backfill(match_id bigint, team text, players int)
RETURNS bigint
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    m mm.match;
    q mm.queue;
    size int;
    requested int;
    ended timestamptz;
    id bigint;
BEGIN
    IF request_backfill.match_id IS NULL OR request_backfill.team IS NULL OR request_backfill.players IS NULL THEN
        RAISE EXCEPTION 'match_id, team and players must not be null'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF request_backfill.players < 1 THEN
        RAISE EXCEPTION 'players must be at least 1'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The value is %s.', request_backfill.players),
                  HINT = 'Give the number of players who left the team.';
    END IF;
    -- requests of one match one at a time (the room below); ticks, which
    -- lock the match FOR KEY SHARE, do not wait for it
    SELECT * INTO m FROM mm.match x WHERE x.match_id = request_backfill.match_id FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'match % does not exist', request_backfill.match_id
            USING ERRCODE = 'undefined_object', HINT = 'Give the match_id that mm.claim_matches delivered.';
    END IF;
    IF m.status <> 'matched' THEN
        SELECT r.reported_at INTO ended FROM mm.match_result r WHERE r.match_id = m.match_id;
        RAISE EXCEPTION 'match % is %', m.match_id, m.status
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = format('It was reported or abandoned at %s.', ended),
                  HINT = 'Only a match being played can be backfilled.';
    END IF;
    IF NOT EXISTS (SELECT FROM mm.match_roster r
                   WHERE r.queue_id = m.queue_id AND r.match_id = m.match_id AND r.team = request_backfill.team) THEN
        RAISE EXCEPTION 'match % has no team "%"', m.match_id, request_backfill.team
            USING ERRCODE = 'invalid_parameter_value', HINT = 'The teams of a match are "red" and "blue".';
    END IF;
    SELECT * INTO q FROM mm.queue x WHERE x.queue_id = m.queue_id;
    IF q.dropped_at IS NOT NULL THEN
        RAISE EXCEPTION 'queue "%" of match % was dropped', q.name, m.match_id
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = format('It was dropped at %s; no tick fills its matches.', q.dropped_at);
    END IF;
    size := (mm.matcher_config(q.config) ->> 'team_size')::int;
    SELECT coalesce(sum(b.players), 0) INTO requested FROM mm.backfill b
    WHERE b.match_id = m.match_id AND b.team = request_backfill.team AND b.status = 'open';
    IF request_backfill.players > size - requested THEN
        RAISE EXCEPTION 'team "%" of match % has room for % players', request_backfill.team, m.match_id, size - requested
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('%s players were asked for; teams of queue "%s" have %s players and %s seats of this team are already requested.',
                                  request_backfill.players, q.name, size, requested),
                  HINT = 'Ask for the players who left and are not yet requested; mm.cancel_backfill cancels a request.';
    END IF;
    INSERT INTO mm.backfill (queue_id, match_id, team, players)
    VALUES (m.queue_id, m.match_id, request_backfill.team, request_backfill.players)
    RETURNING backfill.backfill_id INTO id;
    RETURN id;
END
$$;
COMMENT ON FUNCTION mm.request_backfill(bigint, text, int) IS
    'ask the next tick of a match''s queue to fill "players" open seats of its team "team" (players left the running match) from the queue, before new matches, with the matcher''s scoring against that team; returns the request id; the filled rosters are delivered by mm.claim_matches (kind backfill) and the queue''s channel; refused for a finished match, an unknown team, players < 1 or more than the team''s room';

CREATE FUNCTION mm.cancel_backfill(backfill_id bigint)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    b mm.backfill;
BEGIN
    IF cancel_backfill.backfill_id IS NULL THEN
        RAISE EXCEPTION 'backfill_id must not be null' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    -- a tick filling it holds the row: wait for it, then see it filled
    SELECT * INTO b FROM mm.backfill x WHERE x.backfill_id = cancel_backfill.backfill_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'backfill request % does not exist', cancel_backfill.backfill_id
            USING ERRCODE = 'undefined_object', HINT = 'Give the id mm.request_backfill returned.';
    END IF;
    IF b.status <> 'open' THEN
        RETURN false;
    END IF;
    UPDATE mm.backfill x SET status = 'cancelled', ended_at = now()
    WHERE x.backfill_id = cancel_backfill.backfill_id;
    RETURN true;
END
$$;
COMMENT ON FUNCTION mm.cancel_backfill(bigint) IS
    'cancel an open backfill request; false if it is no longer open (filled, cancelled, or expired with its match); waits for a tick that is filling it';

-- mm.claim_matches also hands out backfills: two new result columns (kind,
-- backfill_id), so it is dropped and created again (its privileges are
-- applied again by the last section)
DROP FUNCTION mm.claim_matches(text, int);
CREATE FUNCTION mm.claim_matches(queue text, max int DEFAULT 100)
RETURNS TABLE (match_id bigint, created_at timestamptz, roster_id bigint, team text, players bigint[],
               kind text, backfill_id bigint)
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q mm.queue := mm._queue(queue);
BEGIN
    IF max IS NULL OR max < 1 THEN
        RAISE EXCEPTION 'max must be at least 1'
            USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The value is %s.', max);
    END IF;
    RETURN QUERY
    WITH c AS (
        SELECT m.match_id FROM mm.match m
        WHERE m.queue_id = q.queue_id AND m.delivered_at IS NULL
        ORDER BY m.match_id LIMIT max
        FOR UPDATE SKIP LOCKED
    ), d AS (
        UPDATE mm.match m SET delivered_at = clock_timestamp()
        FROM c WHERE m.match_id = c.match_id
        RETURNING m.match_id, m.created_at
    ), cb AS (
        SELECT b.backfill_id FROM mm.backfill b
        WHERE b.queue_id = q.queue_id AND b.status = 'filled' AND b.delivered_at IS NULL
        ORDER BY b.backfill_id LIMIT max
        FOR UPDATE SKIP LOCKED
    ), db AS (
        UPDATE mm.backfill b SET delivered_at = clock_timestamp()
        FROM cb WHERE b.backfill_id = cb.backfill_id
        RETURNING b.backfill_id, b.match_id, b.ended_at
    )
    SELECT x.match_id, x.created_at, x.roster_id, x.team, x.players, x.kind, x.backfill_id
    FROM (SELECT d.match_id, d.created_at, mr.roster_id, mr.team, mr.players, 'match'::text AS kind,
                 NULL::bigint AS backfill_id, 0 AS part
          FROM d JOIN mm.match_roster mr ON mr.queue_id = q.queue_id AND mr.match_id = d.match_id
          WHERE mr.backfill_id IS NULL
          UNION ALL
          SELECT db.match_id, db.ended_at, mr.roster_id, mr.team, mr.players, 'backfill', db.backfill_id, 1
          FROM db JOIN mm.match_roster mr ON mr.queue_id = q.queue_id AND mr.match_id = db.match_id
                                          AND mr.backfill_id = db.backfill_id) x
    ORDER BY x.part, x.match_id, x.backfill_id, x.team DESC, x.roster_id;
END
$$;
COMMENT ON FUNCTION mm.claim_matches(text, int) IS
    'hand up to "max" undelivered matches and up to "max" undelivered backfills of a queue to this caller, one row per roster: kind match (the rosters a match was made with; never a match in its ready check, nor a dissolved one) or backfill (the rosters a tick put into a running match, with the request''s backfill_id; created_at is when it was filled); each goes to exactly one caller whatever order ticks commit in (FOR UPDATE SKIP LOCKED); marked delivered in the caller''s transaction, so a rollback gives them back';

-- report_result and abandon_match expire the match's open backfill requests
CREATE OR REPLACE FUNCTION mm.report_result(match_id bigint, result jsonb)
RETURNS SETOF mm.match_result_player
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    m mm.match;
    prev mm.match_result;
    cfg jsonb;
    rc jsonb;
    rkey text;
    season jsonb;
    at timestamptz := now();
    ids bigint[];
BEGIN
    IF match_id IS NULL OR result IS NULL THEN
        RAISE EXCEPTION 'match_id and result must not be NULL'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    -- one report at a time per match: the second waits, then sees the first
    SELECT * INTO m FROM mm.match x WHERE x.match_id = report_result.match_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'match % does not exist', match_id
            USING ERRCODE = 'undefined_object', HINT = 'Report the match_id that mm.claim_matches delivered.';
    END IF;
    SELECT * INTO prev FROM mm.match_result x WHERE x.match_id = report_result.match_id;
    IF FOUND THEN
        IF prev.status = 'abandoned' THEN
            RAISE EXCEPTION 'match % was abandoned', match_id
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      DETAIL = format('mm.abandon_match ended it at %s.', prev.reported_at);
        ELSIF prev.result <> result THEN
            RAISE EXCEPTION 'match % already has a different result', match_id
                USING ERRCODE = 'unique_violation',
                      DETAIL = format('The reported result is %s.', prev.result),
                      HINT = 'A match is rated once; report the same result again to read its outcome.';
        END IF;
        RETURN QUERY SELECT * FROM mm.match_result_player p
                     WHERE p.match_id = report_result.match_id ORDER BY p.player_id;
        RETURN;
    END IF;
    IF m.status <> 'matched' THEN
        RAISE EXCEPTION 'match % is %', match_id, m.status
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    cfg := mm.matcher_config((SELECT q.config FROM mm.queue q WHERE q.queue_id = m.queue_id));
    rc := cfg -> 'rating';
    rkey := rc ->> 'key';
    season := jsonb_strip_nulls(jsonb_build_object('start', rc -> 'season_start', 'end', rc -> 'season_end'));

    -- a work table per session, emptied at commit
    IF pg_catalog.to_regclass('pg_temp.mm_result_work') IS NULL THEN
        CREATE TEMP TABLE pg_temp.mm_result_work (
            player_id bigint, team text, rank float8, team_score float8, weight float8, score float8,
            deserted boolean, ord int, mu float8, sigma float8, rating float8, rd float8, vol float8,
            ladder int, mu2 float8, sigma2 float8, rating2 float8, rd2 float8, vol2 float8,
            awarded int, ladder2 int, stacks int) ON COMMIT DELETE ROWS;
    END IF;
    DELETE FROM pg_temp.mm_result_work;
    INSERT INTO pg_temp.mm_result_work (player_id, team, rank, team_score, weight, score, deserted, ord)
    SELECT rp.*, row_number() OVER (ORDER BY rp.player_id)
    FROM mm._result_players(report_result.match_id, result) rp;
    ids := ARRAY(SELECT w.player_id FROM pg_temp.mm_result_work w ORDER BY w.player_id);

    -- the rating state before, locked in player-id order
    UPDATE pg_temp.mm_result_work w
       SET mu = coalesce(l.mu, (rc ->> 'mu')::float8), sigma = coalesce(l.sigma, (rc ->> 'sigma')::float8),
           rating = coalesce((l.g).rating, (rc ->> 'rating')::float8), rd = coalesce((l.g).rd, (rc ->> 'rd')::float8),
           vol = coalesce((l.g).vol, (rc ->> 'vol')::float8), ladder = l.ladder_points
      FROM (SELECT x.*, mm._glicko_now(x, at) AS g FROM mm._lock_ratings(rkey, ids) x) l
     WHERE l.player_id = w.player_id;

    IF rc ->> 'model' = 'openskill' THEN
        UPDATE pg_temp.mm_result_work w SET mu2 = o.mu, sigma2 = o.sigma
          FROM (SELECT * FROM mm.openskill_rate(
                    ARRAY(SELECT CASE x.team WHEN 'red' THEN 1 ELSE 2 END FROM pg_temp.mm_result_work x ORDER BY x.ord),
                    ARRAY(SELECT x.rank FROM pg_temp.mm_result_work x ORDER BY x.ord),
                    ARRAY(SELECT x.mu FROM pg_temp.mm_result_work x ORDER BY x.ord),
                    ARRAY(SELECT x.sigma FROM pg_temp.mm_result_work x ORDER BY x.ord),
                    model => rc ->> 'openskill_model', beta => (rc ->> 'beta')::float8,
                    kappa => (rc ->> 'kappa')::float8, tau => (rc ->> 'tau')::float8,
                    weight => ARRAY(SELECT x.weight FROM pg_temp.mm_result_work x ORDER BY x.ord))) o
         WHERE o.idx = w.ord;
    ELSE
        -- Glicko-2, one game: each player against every opposing player
        UPDATE pg_temp.mm_result_work w SET rating2 = (g).rating, rd2 = (g).rd, vol2 = (g).vol
          FROM (SELECT x.player_id,
                       mm.glicko2_rate(ROW(x.rating, x.rd, x.vol)::mm.glicko,
                                       ARRAY(SELECT o.rating FROM pg_temp.mm_result_work o WHERE o.team <> x.team ORDER BY o.ord),
                                       ARRAY(SELECT o.rd FROM pg_temp.mm_result_work o WHERE o.team <> x.team ORDER BY o.ord),
                                       ARRAY(SELECT CASE WHEN x.rank < o.rank THEN 1.0 WHEN x.rank = o.rank THEN 0.5 ELSE 0.0 END
                                             FROM pg_temp.mm_result_work o WHERE o.team <> x.team ORDER BY o.ord)) AS g
                FROM pg_temp.mm_result_work x) n
         WHERE n.player_id = w.player_id;
    END IF;

    -- ladder points from the match's prediction, with the team's final score
    IF (rc ->> 'ladder')::boolean THEN
        UPDATE pg_temp.mm_result_work w
           SET awarded = mm.ladder_points(CASE w.team WHEN 'red' THEN m.red_odds ELSE m.blue_odds END,
                                          w.team_score,
                                          CASE WHEN w.deserted THEN 'desertion'
                                               WHEN w.rank < (SELECT min(o.rank) FROM pg_temp.mm_result_work o WHERE o.team <> w.team)
                                               THEN 'victory' ELSE 'defeat' END,
                                          season, at)
         WHERE w.team_score IS NOT NULL;
        UPDATE pg_temp.mm_result_work w SET ladder2 = (mm.ladder_apply(w.ladder, w.awarded, season)).ladder_points
         WHERE w.awarded IS NOT NULL;
    END IF;

    -- dishonor for desertions, in player-id order
    IF rc ->> 'desertion_reason' IS NOT NULL THEN
        UPDATE pg_temp.mm_result_work w SET stacks = d.stacks
          FROM (SELECT x.player_id, (mm.dishonor(x.player_id, rc ->> 'desertion_reason', at)).stacks
                FROM pg_temp.mm_result_work x WHERE x.deserted ORDER BY x.player_id) d
         WHERE d.player_id = w.player_id;
    END IF;

    UPDATE mm.ratings r
       SET mu = coalesce(w.mu2, r.mu), sigma = coalesce(w.sigma2, r.sigma),
           rating = coalesce(w.rating2, r.rating), rd = coalesce(w.rd2, r.rd), vol = coalesce(w.vol2, r.vol),
           ladder_points = coalesce(w.ladder2, r.ladder_points),
           games = r.games + 1, last_played = at
      FROM pg_temp.mm_result_work w
     WHERE r.key = rkey AND r.player_id = w.player_id;

    INSERT INTO mm.match_result (match_id, queue_id, status, result, reported_at)
    VALUES (m.match_id, m.queue_id, 'reported', result, at);
    INSERT INTO mm.match_result_player
    SELECT m.match_id, w.player_id, m.queue_id, w.team, w.rank, w.score, w.weight, w.deserted, rkey,
           CASE WHEN w.mu2 IS NOT NULL THEN w.mu END, CASE WHEN w.mu2 IS NOT NULL THEN w.sigma END, w.mu2, w.sigma2,
           CASE WHEN w.rating2 IS NOT NULL THEN w.rating END, CASE WHEN w.rating2 IS NOT NULL THEN w.rd END,
           CASE WHEN w.rating2 IS NOT NULL THEN w.vol END, w.rating2, w.rd2, w.vol2,
           w.ladder, w.awarded, w.ladder2, w.stacks
    FROM pg_temp.mm_result_work w ORDER BY w.player_id;
    UPDATE mm.match x SET status = 'finished' WHERE x.match_id = m.match_id;
    -- open backfill requests end with the match
    UPDATE mm.backfill b SET status = 'expired', ended_at = at
    WHERE b.match_id = m.match_id AND b.status = 'open';
    DELETE FROM pg_temp.mm_result_work;

    RETURN QUERY SELECT * FROM mm.match_result_player p
                 WHERE p.match_id = report_result.match_id ORDER BY p.player_id;
END
$$;
COMMENT ON FUNCTION mm.report_result(bigint, jsonb) IS
    'rate a match exactly once with its queue''s "rating" config: OpenSkill or Glicko-2 ratings, ladder points from the match''s prediction, dishonor for desertions; records every player''s before and after (backfilled players included), marks the match finished and its open backfill requests expired; a repeated identical report returns the first outcome, a different one is an error (23505)';

CREATE OR REPLACE FUNCTION mm.abandon_match(match_id bigint)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    m mm.match;
    prev mm.match_result;
BEGIN
    IF match_id IS NULL THEN
        RAISE EXCEPTION 'match_id must not be NULL' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    SELECT * INTO m FROM mm.match x WHERE x.match_id = abandon_match.match_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'match % does not exist', match_id USING ERRCODE = 'undefined_object';
    END IF;
    SELECT * INTO prev FROM mm.match_result x WHERE x.match_id = abandon_match.match_id;
    IF FOUND THEN
        IF prev.status = 'reported' THEN
            RAISE EXCEPTION 'match % already has a result', match_id
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      DETAIL = format('It was reported at %s.', prev.reported_at);
        END IF;
        RETURN false;
    END IF;
    INSERT INTO mm.match_result (match_id, queue_id, status, result, reported_at)
    VALUES (m.match_id, m.queue_id, 'abandoned', NULL, now());
    UPDATE mm.match x SET status = 'finished' WHERE x.match_id = m.match_id;
    -- open backfill requests end with the match
    UPDATE mm.backfill b SET status = 'expired', ended_at = now()
    WHERE b.match_id = m.match_id AND b.status = 'open';
    RETURN true;
END
$$;
COMMENT ON FUNCTION mm.abandon_match(bigint) IS
    'end a match that will never be reported (its game server crashed): no rating, ladder or dishonor; the match is finished (its open backfill requests expired), so its players may queue again; true when it abandoned the match, false when it was already abandoned; a reported match is an error';

-- ==== scale-out: queues over Citus workers, must run on the primary ====

-- Calls that write refuse to run on a hot standby with mm's own message
-- (SQLSTATE 25006) before PostgreSQL's "cannot execute ... in a read-only
-- transaction" deeper inside them: the C functions call the check first,
-- the SQL and PL/pgSQL functions below call mm._require_primary at their
-- start.

CREATE FUNCTION mm._require_primary(fname text)
RETURNS void
AS 'MODULE_PATHNAME', 'mm_require_primary_sql'
LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm._require_primary(text) IS
    'internal: raise "<fname> must run on the primary" (SQLSTATE 25006) when this server is a standby in recovery; the functions that write call it first';

-- The functions that write, with the check; on Citus each of their
-- statements keeps to one queue's shard where it can (claim_matches names
-- the queue and takes the time as a value, _end_rosters removes the players
-- before their rosters, enqueue reads the last match of its players without
-- a lateral join and holds them cluster-wide, leave and leave_player are
-- PL/pgSQL: Citus cannot plan SQL functions with parameters over
-- distributed tables).

CREATE OR REPLACE FUNCTION mm.join_server(place text, player_id bigint, player jsonb DEFAULT '{}',
                               preferred bigint[] DEFAULT '{}')
RETURNS bigint
LANGUAGE plpgsql VOLATILE STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    candidate bigint;
    taken bigint;
BEGIN
    PERFORM mm._require_primary('mm.join_server');
    IF EXISTS (SELECT 1 FROM mm.server_players p WHERE p.player_id = join_server.player_id) THEN
        RAISE EXCEPTION 'player % is already on a server', join_server.player_id
            USING ERRCODE = 'unique_violation',
                  DETAIL = format('Server %s.', (SELECT p.server_id FROM mm.server_players p
                                                 WHERE p.player_id = join_server.player_id)),
                  HINT = 'Call mm.leave_server first.';
    END IF;
    FOR candidate IN
        SELECT r.server_id FROM mm.rank_servers(join_server.place, join_server.player,
                                                join_server.preferred) r
    LOOP
        -- The best server that still has a slot once we hold its row lock.
        UPDATE mm.servers s SET occupancy = s.occupancy + 1
        WHERE s.server_id = candidate AND s.occupancy < s.capacity
        RETURNING s.server_id INTO taken;
        IF taken IS NOT NULL THEN
            INSERT INTO mm.server_players (player_id, server_id, attributes)
            VALUES (join_server.player_id, taken, join_server.player);
            PERFORM mm.refresh_servers(ARRAY[taken]);
            RETURN taken;
        END IF;
    END LOOP;
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION mm.join_party(place text, player_ids bigint[], players jsonb[] DEFAULT NULL,
                              preferred bigint[] DEFAULT '{}')
RETURNS bigint
LANGUAGE plpgsql VOLATILE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    n int := coalesce(pg_catalog.cardinality(player_ids), 0);
    attrs jsonb[] := coalesce(players, pg_catalog.array_fill('{}'::jsonb, ARRAY[n]));
    seated text;
    candidate bigint;
    taken bigint;
BEGIN
    PERFORM mm._require_primary('mm.join_party');
    IF place IS NULL OR player_ids IS NULL OR preferred IS NULL THEN
        RAISE EXCEPTION '% must not be NULL',
            CASE WHEN place IS NULL THEN 'place' WHEN player_ids IS NULL THEN 'player_ids' ELSE 'preferred' END
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass the place, the party''s player ids and ''{}'' for no preferred players.';
    END IF;
    IF n = 0 THEN
        RAISE EXCEPTION 'a party must have at least one player'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Pass the party''s player ids, such as ''{7, 8}''.';
    END IF;
    IF pg_catalog.array_position(player_ids, NULL) IS NOT NULL
       OR pg_catalog.array_position(attrs, NULL) IS NOT NULL THEN
        RAISE EXCEPTION '% must not contain NULL elements',
            CASE WHEN pg_catalog.array_position(player_ids, NULL) IS NOT NULL THEN 'player_ids' ELSE 'players' END
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Give every player an id, and ''{}'' for a player without attributes.';
    END IF;
    IF pg_catalog.cardinality(attrs) <> n THEN
        RAISE EXCEPTION 'players must have one element per player id'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('There are %s player ids and %s attribute objects.', n, pg_catalog.cardinality(attrs)),
                  HINT = 'players[i] holds the attributes of player_ids[i]; pass NULL for none.';
    END IF;
    IF (SELECT count(DISTINCT i) FROM pg_catalog.unnest(player_ids) i) <> n THEN
        RAISE EXCEPTION 'player_ids must not repeat a player'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The ids are %s.', player_ids);
    END IF;
    SELECT string_agg(format('%s (server %s)', p.player_id, p.server_id), ', ' ORDER BY p.player_id)
    INTO seated FROM mm.server_players p WHERE p.player_id = ANY (player_ids);
    IF seated IS NOT NULL THEN
        RAISE EXCEPTION 'players of the party are already on a server'
            USING ERRCODE = 'unique_violation',
                  DETAIL = format('Seated: %s.', seated),
                  HINT = 'Call mm.leave_server for them first.';
    END IF;
    -- ranked for the party's first player (its leader)
    FOR candidate IN
        SELECT r.server_id FROM mm.rank_servers(join_party.place, attrs[1], join_party.preferred) r
    LOOP
        -- the best server with a slot for everyone, once we hold its row lock
        UPDATE mm.servers s SET occupancy = s.occupancy + n
        WHERE s.server_id = candidate AND s.occupancy + n <= s.capacity
        RETURNING s.server_id INTO taken;
        IF taken IS NOT NULL THEN
            BEGIN
                INSERT INTO mm.server_players (player_id, server_id, attributes)
                SELECT u.id, taken, u.a FROM unnest(player_ids, attrs) AS u(id, a);
            EXCEPTION WHEN unique_violation THEN
                RAISE EXCEPTION 'players of the party joined a server meanwhile'
                    USING ERRCODE = 'unique_violation',
                          HINT = 'Nothing was changed; call mm.join_party again.';
            END;
            PERFORM mm.refresh_servers(ARRAY[taken]);
            RETURN taken;
        END IF;
    END LOOP;
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION mm.dishonor(player_id bigint, reason text, at timestamptz DEFAULT now(),
                            OUT stacks integer, OUT timeout_until timestamptz)
RETURNS record
LANGUAGE plpgsql VOLATILE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    cfg  jsonb := mm.dishonor_config();
    cur  mm.dishonor_players;
    next record;
BEGIN
    PERFORM mm._require_primary('mm.dishonor');
    IF player_id IS NULL OR reason IS NULL OR at IS NULL THEN
        RAISE EXCEPTION 'player_id, reason and at must not be NULL'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass the player, a reason from the dishonor config and the time.';
    END IF;
    -- check the reason before taking any lock
    PERFORM mm.dishonor_penalty(reason, cfg);
    SELECT * INTO cur FROM mm.dishonor_players d WHERE d.player_id = dishonor.player_id FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO mm.dishonor_players AS d (player_id, stacks, stacks_at, timeout_until, reason, updated_at)
        VALUES (dishonor.player_id, 0, at, NULL, dishonor.reason, at)
        ON CONFLICT ON CONSTRAINT dishonor_players_pkey DO NOTHING;
        SELECT * INTO cur FROM mm.dishonor_players d WHERE d.player_id = dishonor.player_id FOR UPDATE;
    END IF;
    next := mm.dishonor_apply(cur.stacks, cur.stacks_at, cur.timeout_until, reason, at, cfg);
    UPDATE mm.dishonor_players d
       SET stacks = next.new_stacks, stacks_at = next.new_stacks_at,
           timeout_until = next.new_timeout_until, reason = dishonor.reason, updated_at = at
     WHERE d.player_id = dishonor.player_id;
    stacks := next.new_stacks;
    timeout_until := next.new_timeout_until;
END;
$$;

CREATE OR REPLACE FUNCTION mm.create_queue(name text, config jsonb DEFAULT '{}')
RETURNS void
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM mm._require_primary('mm.create_queue');
    IF name IS NULL OR name = '' THEN
        RAISE EXCEPTION 'queue name must not be empty'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Give the queue a name, such as ''ranked''.';
    END IF;
    IF config IS NULL THEN
        RAISE EXCEPTION 'queue config must not be null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass ''{}'' for the defaults.';
    END IF;
    INSERT INTO mm.queue (name, config) VALUES (create_queue.name, mm.matcher_config(config));
EXCEPTION WHEN unique_violation THEN
    RAISE EXCEPTION 'queue "%" already exists', name
        USING ERRCODE = 'duplicate_object',
              HINT = 'Pick another name, or change its config with mm.alter_queue.';
END
$$;

CREATE OR REPLACE FUNCTION mm.enqueue(queue text, players bigint[], rating float8, deviation float8 DEFAULT 0,
                           rank float8 DEFAULT 0, ladder_points float8 DEFAULT 0,
                           dishonor int DEFAULT NULL, professions text[] DEFAULT '{}',
                           joined_at timestamptz DEFAULT now())
RETURNS bigint
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q mm.queue := mm._queue(queue);
    cfg jsonb := mm.matcher_config(q.config);
    team_size int := (cfg ->> 'team_size')::int;
    n int := cardinality(players);
    p bigint;
    other bigint;
    s timestamptz;
    stacks int;
    id bigint;
    distributed boolean;
BEGIN
    PERFORM mm._require_primary('mm.enqueue');
    IF players IS NULL OR n = 0 THEN
        RAISE EXCEPTION 'roster must have at least one player'
            USING ERRCODE = 'invalid_parameter_value', HINT = 'Pass the party''s player ids, such as ARRAY[1, 2].';
    END IF;
    IF array_ndims(players) > 1 THEN
        RAISE EXCEPTION 'players must be a one-dimensional array'
            USING ERRCODE = 'array_subscript_error';
    END IF;
    IF n > team_size THEN
        RAISE EXCEPTION 'roster is larger than a team'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The roster has %s players; queue "%s" has teams of %s.', n, queue, team_size),
                  HINT = 'Split the party, or queue it where teams are larger.';
    END IF;
    IF array_position(players, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'players must not contain nulls' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    SELECT x INTO p FROM unnest(players) x GROUP BY x HAVING count(*) > 1 ORDER BY x LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'player % appears twice in the roster', p
            USING ERRCODE = 'invalid_parameter_value', HINT = 'List each player once.';
    END IF;
    IF deviation IS NULL OR rank IS NULL OR ladder_points IS NULL
       OR professions IS NULL OR joined_at IS NULL THEN
        RAISE EXCEPTION 'deviation, rank, ladder_points, professions and joined_at must not be null'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF NOT isfinite(joined_at) THEN
        RAISE EXCEPTION 'joined_at must be finite' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF joined_at > now() THEN
        RAISE EXCEPTION 'joined_at must not be in the future'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('joined_at is %s and the transaction started at %s.', joined_at, now()),
                  HINT = 'Leave joined_at out to queue the roster now.';
    END IF;
    PERFORM mm._check_roster(rating, deviation, rank, ladder_points, dishonor, professions, n);

    -- dishonor: players in a timeout now may not queue (whatever joined_at
    -- says); stacks default the roster's dishonor
    SELECT d.player_id, d.timeout_until INTO p, s
    FROM mm.dishonor_statuses(players, now()) d
    WHERE d.timeout_until > now() ORDER BY d.timeout_until DESC LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'player % is in a dishonor timeout', p
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = format('The timeout lasts until %s.', s),
                  HINT = format('The player can queue again at %s.', s);
    END IF;
    SELECT coalesce(sum(d.stacks), 0) INTO stacks FROM mm.dishonor_statuses(players, now()) d;

    -- (on Citus mm._hold_players checks this below, on the players' own
    -- rows, without asking every shard of every queue)
    distributed := mm._queues_distributed();
    SELECT qp.player_id, qp.roster_id INTO p, other
    FROM mm.queued_player qp WHERE NOT distributed AND qp.player_id = ANY (players) ORDER BY qp.player_id LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'player % is already queued', p
            USING ERRCODE = 'unique_violation',
                  DETAIL = format('The player is in waiting roster %s.', other),
                  HINT = format('Call mm.leave(%s) first.', other);
    END IF;

    -- a player in a ready check (a proposed match, until its end) is not
    -- free to queue (on Citus the ready check is not supported: see the
    -- scaling docs)
    IF NOT distributed THEN
        SELECT e.player_id, e.match_id INTO p, other
        FROM unnest(players) AS u(x)
        CROSS JOIN LATERAL (SELECT e.player_id, e.match_id, e.status, e.queue_id FROM mm.ticket_event e
                            WHERE e.player_id = u.x ORDER BY e.event_id DESC LIMIT 1) e
        JOIN mm.match m ON m.queue_id = e.queue_id AND m.match_id = e.match_id
        WHERE e.status IN ('proposed', 'accepted') AND m.status = 'proposed' AND m.accept_until > now()
        ORDER BY e.player_id LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'player % is in the ready check of match %', p, other
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      HINT = format('Accept the match with mm.accept(%s, %s), or decline it with mm.decline.', other, p);
        END IF;
    END IF;

    -- requeue_while_in_match false: a player whose last match is not
    -- finished waits for it
    IF NOT (cfg ->> 'requeue_while_in_match')::boolean THEN
        SELECT e.player_id, e.match_id INTO p, other
        FROM (SELECT DISTINCT ON (e.player_id) e.player_id, e.queue_id, e.match_id FROM mm.ticket_event e
              WHERE e.player_id = ANY (players) AND e.status = 'matched'
              ORDER BY e.player_id, e.event_id DESC) e
        JOIN mm.match m ON m.queue_id = e.queue_id AND m.match_id = e.match_id
        WHERE m.status <> 'finished'
        ORDER BY e.player_id LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'player % is in match % that is not finished', p, other
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      DETAIL = format('Queue "%s" does not let players queue again while in a match.', queue),
                      HINT = 'Queue the player again once the match is finished, or set the queue''s requeue_while_in_match to true.';
        END IF;
    END IF;

    -- no rating given: the roster's rating and deviation from the players'
    -- mm.ratings rows of the queue's rating key
    IF rating IS NULL THEN
        SELECT r.rating, r.deviation INTO rating, deviation
        FROM mm.roster_rating(cfg -> 'rating', players, now()) r;
    END IF;
    INSERT INTO mm.roster (queue_id, rating, deviation, rank, ladder_points, dishonor, joined_at)
    VALUES (q.queue_id, rating, deviation, rank, ladder_points, coalesce(dishonor, stacks), joined_at)
    RETURNING roster.roster_id INTO id;
    BEGIN
        INSERT INTO mm.queued_player (player_id, roster_id, queue_id, seat, profession)
        SELECT u.x, id, q.queue_id, u.o, professions[u.o]
        FROM unnest(players) WITH ORDINALITY AS u(x, o);
    EXCEPTION WHEN unique_violation THEN
        RAISE EXCEPTION 'a player of the roster was queued at the same time'
            USING ERRCODE = 'unique_violation', HINT = 'Another session queued one of these players; see mm.queued_player.';
    END;
    INSERT INTO mm.ticket_event (roster_id, player_id, status, at, queue_id)
    SELECT id, u.x, 'waiting', joined_at, q.queue_id FROM unnest(players) AS u(x);
    -- on Citus the key above holds per queue: hold the players cluster-wide
    IF distributed THEN
        PERFORM mm._hold_players(q.queue_id, id, players);
    END IF;
    RETURN id;
END
$$;

CREATE OR REPLACE FUNCTION mm._end_rosters(roster_ids bigint[], status text, reason text, skip_locked boolean,
                                at timestamptz DEFAULT now())
RETURNS SETOF bigint
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    ids bigint[];
BEGIN
    IF skip_locked THEN
        ids := ARRAY(SELECT r.roster_id FROM mm.roster r
                     WHERE r.roster_id = ANY (roster_ids) FOR UPDATE SKIP LOCKED);
    ELSE
        ids := roster_ids;
    END IF;
    -- the players first: Citus runs each part of this statement on its own,
    -- and deleting the rosters first would cascade to the players before
    -- they are recorded
    RETURN QUERY
    WITH p AS (
        DELETE FROM mm.queued_player qp WHERE qp.roster_id = ANY (ids)
        RETURNING qp.queue_id, qp.roster_id, qp.player_id
    ), r AS (
        DELETE FROM mm.roster r WHERE r.roster_id = ANY (ids) RETURNING r.queue_id, r.roster_id
    ), e AS (
        INSERT INTO mm.ticket_event (roster_id, player_id, status, at, queue_id, reason)
        SELECT p.roster_id, p.player_id, _end_rosters.status, _end_rosters.at, p.queue_id, _end_rosters.reason FROM p
    )
    SELECT r.roster_id FROM r;
END
$$;

CREATE OR REPLACE FUNCTION mm.leave(roster_id bigint)
RETURNS boolean
LANGUAGE plpgsql STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM mm._require_primary('mm.leave');
    RETURN EXISTS (SELECT FROM mm._end_rosters(ARRAY[roster_id], 'left', NULL, false));
END
$$;

CREATE OR REPLACE FUNCTION mm.leave_player(player_id bigint)
RETURNS bigint
LANGUAGE plpgsql STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    ids bigint[];
BEGIN
    PERFORM mm._require_primary('mm.leave_player');
    ids := ARRAY(SELECT qp.roster_id FROM mm.queued_player qp WHERE qp.player_id = leave_player.player_id);
    RETURN (SELECT max(r) FROM mm._end_rosters(ids, 'left', 'leave_player', false) r);
END
$$;

CREATE OR REPLACE FUNCTION mm.claim_matches(queue text, max int DEFAULT 100)
RETURNS TABLE (match_id bigint, created_at timestamptz, roster_id bigint, team text, players bigint[],
               kind text, backfill_id bigint)
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q mm.queue := mm._queue(queue);
    claimed_at timestamptz := clock_timestamp();
BEGIN
    PERFORM mm._require_primary('mm.claim_matches');
    IF max IS NULL OR max < 1 THEN
        RAISE EXCEPTION 'max must be at least 1'
            USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The value is %s.', max);
    END IF;
    -- every statement names the queue and the time is a value, so that
    -- on Citus the statement runs whole on the queue's shard
    RETURN QUERY
    WITH c AS (
        SELECT m.match_id FROM mm.match m
        WHERE m.queue_id = q.queue_id AND m.delivered_at IS NULL AND m.status IN ('matched', 'finished')
        ORDER BY m.match_id LIMIT max
        FOR UPDATE SKIP LOCKED
    ), d AS (
        UPDATE mm.match m SET delivered_at = claimed_at
        FROM c WHERE m.queue_id = q.queue_id AND m.match_id = c.match_id
        RETURNING m.match_id, m.created_at
    ), cb AS (
        SELECT b.backfill_id FROM mm.backfill b
        WHERE b.queue_id = q.queue_id AND b.status = 'filled' AND b.delivered_at IS NULL
        ORDER BY b.backfill_id LIMIT max
        FOR UPDATE SKIP LOCKED
    ), db AS (
        UPDATE mm.backfill b SET delivered_at = claimed_at
        FROM cb WHERE b.queue_id = q.queue_id AND b.backfill_id = cb.backfill_id
        RETURNING b.backfill_id, b.match_id, b.ended_at
    )
    SELECT x.match_id, x.created_at, x.roster_id, x.team, x.players, x.kind, x.backfill_id
    FROM (SELECT d.match_id, d.created_at, mr.roster_id, mr.team, mr.players, 'match'::text AS kind,
                 NULL::bigint AS backfill_id, 0 AS part
          FROM d JOIN mm.match_roster mr ON mr.queue_id = q.queue_id AND mr.match_id = d.match_id
          WHERE mr.backfill_id IS NULL
          UNION ALL
          SELECT db.match_id, db.ended_at, mr.roster_id, mr.team, mr.players, 'backfill', db.backfill_id, 1
          FROM db JOIN mm.match_roster mr ON mr.queue_id = q.queue_id AND mr.match_id = db.match_id
                                          AND mr.backfill_id = db.backfill_id) x
    ORDER BY x.part, x.match_id, x.backfill_id, x.team DESC, x.roster_id;
END
$$;

CREATE OR REPLACE FUNCTION mm.report_result(match_id bigint, result jsonb)
RETURNS SETOF mm.match_result_player
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    m mm.match;
    prev mm.match_result;
    cfg jsonb;
    rc jsonb;
    rkey text;
    season jsonb;
    at timestamptz := now();
    ids bigint[];
BEGIN
    PERFORM mm._require_primary('mm.report_result');
    IF match_id IS NULL OR result IS NULL THEN
        RAISE EXCEPTION 'match_id and result must not be NULL'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    -- one report at a time per match: the second waits, then sees the first
    SELECT * INTO m FROM mm.match x WHERE x.match_id = report_result.match_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'match % does not exist', match_id
            USING ERRCODE = 'undefined_object', HINT = 'Report the match_id that mm.claim_matches delivered.';
    END IF;
    SELECT * INTO prev FROM mm.match_result x WHERE x.match_id = report_result.match_id;
    IF FOUND THEN
        IF prev.status = 'abandoned' THEN
            RAISE EXCEPTION 'match % was abandoned', match_id
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      DETAIL = format('mm.abandon_match ended it at %s.', prev.reported_at);
        ELSIF prev.result <> result THEN
            RAISE EXCEPTION 'match % already has a different result', match_id
                USING ERRCODE = 'unique_violation',
                      DETAIL = format('The reported result is %s.', prev.result),
                      HINT = 'A match is rated once; report the same result again to read its outcome.';
        END IF;
        RETURN QUERY SELECT * FROM mm.match_result_player p
                     WHERE p.match_id = report_result.match_id ORDER BY p.player_id;
        RETURN;
    END IF;
    IF m.status <> 'matched' THEN
        RAISE EXCEPTION 'match % is %', match_id, m.status
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    cfg := mm.matcher_config((SELECT q.config FROM mm.queue q WHERE q.queue_id = m.queue_id));
    rc := cfg -> 'rating';
    rkey := rc ->> 'key';
    season := jsonb_strip_nulls(jsonb_build_object('start', rc -> 'season_start', 'end', rc -> 'season_end'));

    -- a work table per session, emptied at commit
    IF pg_catalog.to_regclass('pg_temp.mm_result_work') IS NULL THEN
        CREATE TEMP TABLE pg_temp.mm_result_work (
            player_id bigint, team text, rank float8, team_score float8, weight float8, score float8,
            deserted boolean, ord int, mu float8, sigma float8, rating float8, rd float8, vol float8,
            ladder int, mu2 float8, sigma2 float8, rating2 float8, rd2 float8, vol2 float8,
            awarded int, ladder2 int, stacks int) ON COMMIT DELETE ROWS;
    END IF;
    DELETE FROM pg_temp.mm_result_work;
    INSERT INTO pg_temp.mm_result_work (player_id, team, rank, team_score, weight, score, deserted, ord)
    SELECT rp.*, row_number() OVER (ORDER BY rp.player_id)
    FROM mm._result_players(report_result.match_id, result) rp;
    ids := ARRAY(SELECT w.player_id FROM pg_temp.mm_result_work w ORDER BY w.player_id);

    -- the rating state before, locked in player-id order
    UPDATE pg_temp.mm_result_work w
       SET mu = coalesce(l.mu, (rc ->> 'mu')::float8), sigma = coalesce(l.sigma, (rc ->> 'sigma')::float8),
           rating = coalesce((l.g).rating, (rc ->> 'rating')::float8), rd = coalesce((l.g).rd, (rc ->> 'rd')::float8),
           vol = coalesce((l.g).vol, (rc ->> 'vol')::float8), ladder = l.ladder_points
      FROM (SELECT x.*, mm._glicko_now(x, at) AS g FROM mm._lock_ratings(rkey, ids) x) l
     WHERE l.player_id = w.player_id;

    IF rc ->> 'model' = 'openskill' THEN
        UPDATE pg_temp.mm_result_work w SET mu2 = o.mu, sigma2 = o.sigma
          FROM (SELECT * FROM mm.openskill_rate(
                    ARRAY(SELECT CASE x.team WHEN 'red' THEN 1 ELSE 2 END FROM pg_temp.mm_result_work x ORDER BY x.ord),
                    ARRAY(SELECT x.rank FROM pg_temp.mm_result_work x ORDER BY x.ord),
                    ARRAY(SELECT x.mu FROM pg_temp.mm_result_work x ORDER BY x.ord),
                    ARRAY(SELECT x.sigma FROM pg_temp.mm_result_work x ORDER BY x.ord),
                    model => rc ->> 'openskill_model', beta => (rc ->> 'beta')::float8,
                    kappa => (rc ->> 'kappa')::float8, tau => (rc ->> 'tau')::float8,
                    weight => ARRAY(SELECT x.weight FROM pg_temp.mm_result_work x ORDER BY x.ord))) o
         WHERE o.idx = w.ord;
    ELSE
        -- Glicko-2, one game: each player against every opposing player
        UPDATE pg_temp.mm_result_work w SET rating2 = (g).rating, rd2 = (g).rd, vol2 = (g).vol
          FROM (SELECT x.player_id,
                       mm.glicko2_rate(ROW(x.rating, x.rd, x.vol)::mm.glicko,
                                       ARRAY(SELECT o.rating FROM pg_temp.mm_result_work o WHERE o.team <> x.team ORDER BY o.ord),
                                       ARRAY(SELECT o.rd FROM pg_temp.mm_result_work o WHERE o.team <> x.team ORDER BY o.ord),
                                       ARRAY(SELECT CASE WHEN x.rank < o.rank THEN 1.0 WHEN x.rank = o.rank THEN 0.5 ELSE 0.0 END
                                             FROM pg_temp.mm_result_work o WHERE o.team <> x.team ORDER BY o.ord)) AS g
                FROM pg_temp.mm_result_work x) n
         WHERE n.player_id = w.player_id;
    END IF;

    -- ladder points from the match's prediction, with the team's final score
    IF (rc ->> 'ladder')::boolean THEN
        UPDATE pg_temp.mm_result_work w
           SET awarded = mm.ladder_points(CASE w.team WHEN 'red' THEN m.red_odds ELSE m.blue_odds END,
                                          w.team_score,
                                          CASE WHEN w.deserted THEN 'desertion'
                                               WHEN w.rank < (SELECT min(o.rank) FROM pg_temp.mm_result_work o WHERE o.team <> w.team)
                                               THEN 'victory' ELSE 'defeat' END,
                                          season, at)
         WHERE w.team_score IS NOT NULL;
        UPDATE pg_temp.mm_result_work w SET ladder2 = (mm.ladder_apply(w.ladder, w.awarded, season)).ladder_points
         WHERE w.awarded IS NOT NULL;
    END IF;

    -- dishonor for desertions, in player-id order
    IF rc ->> 'desertion_reason' IS NOT NULL THEN
        UPDATE pg_temp.mm_result_work w SET stacks = d.stacks
          FROM (SELECT x.player_id, (mm.dishonor(x.player_id, rc ->> 'desertion_reason', at)).stacks
                FROM pg_temp.mm_result_work x WHERE x.deserted ORDER BY x.player_id) d
         WHERE d.player_id = w.player_id;
    END IF;

    UPDATE mm.ratings r
       SET mu = coalesce(w.mu2, r.mu), sigma = coalesce(w.sigma2, r.sigma),
           rating = coalesce(w.rating2, r.rating), rd = coalesce(w.rd2, r.rd), vol = coalesce(w.vol2, r.vol),
           ladder_points = coalesce(w.ladder2, r.ladder_points),
           games = r.games + 1, last_played = at
      FROM pg_temp.mm_result_work w
     WHERE r.key = rkey AND r.player_id = w.player_id;

    INSERT INTO mm.match_result (match_id, queue_id, status, result, reported_at)
    VALUES (m.match_id, m.queue_id, 'reported', result, at);
    INSERT INTO mm.match_result_player
    SELECT m.match_id, w.player_id, m.queue_id, w.team, w.rank, w.score, w.weight, w.deserted, rkey,
           CASE WHEN w.mu2 IS NOT NULL THEN w.mu END, CASE WHEN w.mu2 IS NOT NULL THEN w.sigma END, w.mu2, w.sigma2,
           CASE WHEN w.rating2 IS NOT NULL THEN w.rating END, CASE WHEN w.rating2 IS NOT NULL THEN w.rd END,
           CASE WHEN w.rating2 IS NOT NULL THEN w.vol END, w.rating2, w.rd2, w.vol2,
           w.ladder, w.awarded, w.ladder2, w.stacks
    FROM pg_temp.mm_result_work w ORDER BY w.player_id;
    UPDATE mm.match x SET status = 'finished' WHERE x.match_id = m.match_id;
    -- open backfill requests end with the match
    UPDATE mm.backfill b SET status = 'expired', ended_at = at
    WHERE b.match_id = m.match_id AND b.status = 'open';
    DELETE FROM pg_temp.mm_result_work;

    RETURN QUERY SELECT * FROM mm.match_result_player p
                 WHERE p.match_id = report_result.match_id ORDER BY p.player_id;
END
$$;

CREATE OR REPLACE FUNCTION mm.put_entry(pool text, player_id bigint, mmr float8,
                             labels text[] DEFAULT '{}', model jsonb DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    cfg jsonb := mm.async_pool_config(pool);
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
    id bigint;
BEGIN
    PERFORM mm._require_primary('mm.put_entry');
    IF put_entry.player_id IS NULL THEN
        RAISE EXCEPTION 'player_id must not be NULL'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Pass the id of the player whose entry this is.';
    END IF;
    PERFORM mm.async_check_query(put_entry.mmr, put_entry.labels, 0);
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
    cap := mm.async_capacity(pool, lab, b, cfg);
    -- counted up to a little past the capacity: exact unless the bucket is
    -- far over it (a lowered capacity, rows written directly), which then
    -- shrinks by 17 entries a put
    f := mm.async_fill(pool, lab, lo, hi, cap + 16);
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

-- Queues over Citus workers: the cluster-wide key of waiting players, the
-- queue-id forms Citus delegates, the DBA's step.

-- The cluster-wide key of waiting players on Citus, distributed by player:
-- mm.queued_player is distributed by queue there, so its key holds per queue
-- only. mm.enqueue writes a player's row in the same distributed
-- transaction as the roster; a row whose roster has ended is taken over by
-- the player's next enqueue (ticks never write it).
CREATE TABLE mm.waiting_player (
    player_id bigint NOT NULL,
    queue_id  int NOT NULL,
    roster_id bigint NOT NULL,
    since     timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT waiting_player_pkey PRIMARY KEY (player_id)
);
COMMENT ON TABLE mm.waiting_player IS
    'on Citus (mm.citus_distribute_queues), the roster each player last queued in, one row per player, distributed by player: mm.enqueue refuses a player whose roster here still waits; empty on a single node, where mm.queued_player''s key does this';
SELECT pg_catalog.pg_extension_config_dump('mm.waiting_player', '');

CREATE FUNCTION mm._queues_distributed()
RETURNS boolean
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    d boolean;
BEGIN
    IF pg_catalog.to_regclass('pg_catalog.pg_dist_partition') IS NULL THEN
        RETURN false;
    END IF;
    EXECUTE 'SELECT EXISTS (SELECT FROM pg_catalog.pg_dist_partition WHERE logicalrelid = ''mm.waiting_player''::regclass)'
        INTO d;
    RETURN d;
END
$$;
COMMENT ON FUNCTION mm._queues_distributed() IS
    'internal: true when mm.citus_distribute_queues has distributed the queue tables (Citus metadata names mm.waiting_player)';

-- A live queue's name from its id, or an error.
CREATE FUNCTION mm._queue_name(queue_id int)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    n text;
BEGIN
    SELECT q.name INTO n FROM mm.queue q WHERE q.queue_id = _queue_name.queue_id AND q.dropped_at IS NULL;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'queue % does not exist', coalesce(queue_id::text, 'NULL')
            USING ERRCODE = 'undefined_object', HINT = 'See the live queues and their ids in mm.queue.';
    END IF;
    RETURN n;
END
$$;
COMMENT ON FUNCTION mm._queue_name(int) IS 'internal: the name of the live queue of that id, or an error';

-- Citus: hold the players of a new roster cluster-wide (mm.enqueue calls it
-- after inserting the roster). In player order, so that two enqueues sharing
-- players wait for each other instead of deadlocking. A row naming another
-- roster is taken over only on evidence that this player has left it: a
-- visible end in its ticket history (matched, left, expired, removed), or no
-- trace of it at all for long after its enqueue (a roster whose history
-- was truncated or purged). Without that evidence the player counts as
-- waiting: the enqueue that wrote the row may still be committing on the
-- roster's worker (a distributed commit does not become visible on every
-- node at the same instant).
CREATE FUNCTION mm._hold_players(queue_id int, roster_id bigint, players bigint[])
RETURNS void
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    p bigint;
    w mm.waiting_player;
BEGIN
    FOR p IN SELECT x FROM unnest(players) x ORDER BY x LOOP
        INSERT INTO mm.waiting_player (player_id, queue_id, roster_id)
        VALUES (p, _hold_players.queue_id, _hold_players.roster_id)
        ON CONFLICT (player_id) DO NOTHING;
        CONTINUE WHEN FOUND;
        SELECT * INTO w FROM mm.waiting_player wp WHERE wp.player_id = p FOR UPDATE;
        IF EXISTS (SELECT FROM mm.queued_player qp
                   WHERE qp.queue_id = w.queue_id AND qp.roster_id = w.roster_id AND qp.player_id = p)
           OR (NOT EXISTS (SELECT FROM mm.ticket_event e
                           WHERE e.queue_id = w.queue_id AND e.roster_id = w.roster_id AND e.player_id = p
                             AND e.status <> 'waiting')
               AND (w.since > now() - interval '10 minutes'
                    OR EXISTS (SELECT FROM mm.ticket_event e
                               WHERE e.queue_id = w.queue_id AND e.roster_id = w.roster_id AND e.player_id = p)))
        THEN
            RAISE EXCEPTION 'player % is already queued', p
                USING ERRCODE = 'unique_violation',
                      DETAIL = format('The player is in waiting roster %s of queue %s.', w.roster_id, w.queue_id),
                      HINT = format('Call mm.leave(%s) first.', w.roster_id);
        END IF;
        UPDATE mm.waiting_player wp
        SET queue_id = _hold_players.queue_id, roster_id = _hold_players.roster_id, since = now()
        WHERE wp.player_id = p;
    END LOOP;
END
$$;
COMMENT ON FUNCTION mm._hold_players(int, bigint, bigint[]) IS
    'internal (Citus): record a new roster''s players in mm.waiting_player, refusing a player whose previous roster may still wait';

-- The queue-id forms: Citus sends a call whose distribution argument is the
-- queue id to the worker holding the queue (create_distributed_function in
-- mm.citus_distribute_queues). On a single node they call the name forms.

CREATE FUNCTION mm.tick(queue_id int, at timestamptz DEFAULT now())
RETURNS TABLE (match_id bigint, roster_id bigint, team text)
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    RETURN QUERY SELECT t.match_id, t.roster_id, t.team FROM mm.tick(mm._queue_name(queue_id), at) t;
END
$$;
COMMENT ON FUNCTION mm.tick(int, timestamptz) IS
    'mm.tick of the queue of that id; on Citus it runs on the worker holding the queue';

CREATE FUNCTION mm.enqueue(queue_id int, players bigint[], rating float8, deviation float8 DEFAULT 0,
                           rank float8 DEFAULT 0, ladder_points float8 DEFAULT 0,
                           dishonor int DEFAULT NULL, professions text[] DEFAULT '{}',
                           joined_at timestamptz DEFAULT now())
RETURNS bigint
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    RETURN mm.enqueue(mm._queue_name(queue_id), players, rating, deviation, rank, ladder_points,
                      dishonor, professions, joined_at);
END
$$;
COMMENT ON FUNCTION mm.enqueue(int, bigint[], float8, float8, float8, float8, int, text[], timestamptz) IS
    'mm.enqueue into the queue of that id; on Citus it runs on the worker holding the queue';

CREATE FUNCTION mm.claim_matches(queue_id int, max int DEFAULT 100)
RETURNS TABLE (match_id bigint, created_at timestamptz, roster_id bigint, team text, players bigint[])
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    RETURN QUERY SELECT c.match_id, c.created_at, c.roster_id, c.team, c.players
                 FROM mm.claim_matches(mm._queue_name(queue_id), max) c;
END
$$;
COMMENT ON FUNCTION mm.claim_matches(int, int) IS
    'mm.claim_matches of the queue of that id; on Citus it runs on the worker holding the queue';

CREATE FUNCTION mm.leave(queue_id int, roster_id bigint)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    n int;
BEGIN
    PERFORM mm._require_primary('mm.leave');
    -- as mm._end_rosters, each part kept to the queue's shard
    WITH p AS (
        DELETE FROM mm.queued_player qp WHERE qp.queue_id = leave.queue_id AND qp.roster_id = leave.roster_id
        RETURNING qp.roster_id, qp.player_id
    ), r AS (
        DELETE FROM mm.roster r WHERE r.queue_id = leave.queue_id AND r.roster_id = leave.roster_id
        RETURNING r.roster_id
    ), e AS (
        INSERT INTO mm.ticket_event (roster_id, player_id, status, at, queue_id)
        SELECT p.roster_id, p.player_id, 'left', now(), leave.queue_id FROM p
    )
    SELECT count(*) INTO n FROM r;
    RETURN n > 0;
END
$$;
COMMENT ON FUNCTION mm.leave(int, bigint) IS
    'mm.leave of a roster of the queue of that id (false if it is not waiting there); on Citus it runs on the worker holding the queue';

-- The DBA's step on a Citus coordinator.
CREATE FUNCTION mm.citus_distribute_queues(shard_count int DEFAULT 32)
RETURNS SETOF text
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    -- keys that name a row without its queue: Citus needs the distribution
    -- column in every unique key and foreign key
    keys text := $k$
        ALTER TABLE mm.roster DROP CONSTRAINT roster_queue_id_fkey, DROP CONSTRAINT roster_pkey;
        ALTER TABLE mm.match DROP CONSTRAINT match_queue_id_fkey, DROP CONSTRAINT match_pkey;
        ALTER TABLE mm.tick_log DROP CONSTRAINT tick_log_queue_id_fkey, DROP CONSTRAINT tick_log_pkey,
            ADD CONSTRAINT tick_log_pkey PRIMARY KEY (queue_id, tick_id);
        ALTER TABLE mm.queued_player DROP CONSTRAINT queued_player_roster_fkey, DROP CONSTRAINT queued_player_pkey,
            ADD CONSTRAINT queued_player_pkey PRIMARY KEY (queue_id, player_id);
        ALTER TABLE mm.match_roster DROP CONSTRAINT match_roster_match_fkey, DROP CONSTRAINT match_roster_pkey,
            DROP CONSTRAINT match_roster_roster_id_key, DROP CONSTRAINT match_roster_backfill_fkey,
            ADD CONSTRAINT match_roster_pkey PRIMARY KEY (queue_id, match_id, roster_id),
            ADD CONSTRAINT match_roster_roster_id_key UNIQUE (queue_id, roster_id);
        ALTER TABLE mm.ticket_event DROP CONSTRAINT ticket_event_pkey,
            ADD CONSTRAINT ticket_event_pkey PRIMARY KEY (queue_id, event_id);
        ALTER TABLE mm.match_accept DROP CONSTRAINT match_accept_match_fkey, DROP CONSTRAINT match_accept_pkey,
            ADD CONSTRAINT match_accept_pkey PRIMARY KEY (queue_id, match_id, player_id);
        ALTER TABLE mm.backfill DROP CONSTRAINT backfill_match_fkey, DROP CONSTRAINT backfill_pkey,
            DROP CONSTRAINT backfill_match_team_key,
            ADD CONSTRAINT backfill_pkey PRIMARY KEY (queue_id, backfill_id),
            ADD CONSTRAINT backfill_match_team_key UNIQUE (queue_id, match_id, team, backfill_id);
        ALTER TABLE mm.match_result DROP CONSTRAINT match_result_match_fkey;
    $k$;
    t text;
    ok boolean;
    coordinator boolean;
BEGIN
    IF pg_catalog.to_regclass('pg_catalog.pg_dist_partition') IS NULL THEN
        RAISE EXCEPTION 'mm.citus_distribute_queues needs Citus'
            USING ERRCODE = 'feature_not_supported',
                  DETAIL = 'Extension citus is not installed in this database.',
                  HINT = 'On a single node the queues need no step. On a Citus coordinator, CREATE EXTENSION citus first.';
    END IF;
    IF shard_count IS NULL OR shard_count < 1 THEN
        RAISE EXCEPTION 'shard_count must be at least 1'
            USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The value is %s.', shard_count);
    END IF;
    IF mm._queues_distributed() THEN
        RAISE EXCEPTION 'the queues are already distributed'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'See them with: SELECT * FROM citus_tables WHERE table_name::text LIKE ''mm.%''.';
    END IF;
    EXECUTE 'SELECT pg_catalog.citus_is_coordinator()' INTO coordinator;
    IF NOT coordinator THEN
        RAISE EXCEPTION 'mm.citus_distribute_queues must run on the Citus coordinator'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'Add the coordinator (citus_set_coordinator_host) and the workers (citus_add_node), then call it there.';
    END IF;
    PERFORM mm._require_primary('mm.citus_distribute_queues');
    -- foreign keys to reference tables need one connection per node
    PERFORM pg_catalog.set_config('citus.multi_shard_modify_mode', 'sequential', true);

    -- the same keys on every node (the workers' copies of mm's tables are
    -- the shells Citus keeps beside the shards)
    PERFORM pg_catalog.set_config('citus.enable_ddl_propagation', 'off', true);
    EXECUTE keys;
    EXECUTE format('SELECT pg_catalog.bool_and(success) FROM pg_catalog.run_command_on_workers(%L)',
                   'SET citus.enable_ddl_propagation = off; ' || keys) INTO STRICT ok;
    PERFORM pg_catalog.set_config('citus.enable_ddl_propagation', 'on', true);
    RETURN NEXT 'keys of the queue tables carry queue_id';

    -- read by every queue's worker: queues, dishonor
    FOREACH t IN ARRAY ARRAY['mm.queue', 'mm.dishonor_settings', 'mm.dishonor_players'] LOOP
        EXECUTE format('SELECT pg_catalog.create_reference_table(%L)', t);
    END LOOP;
    RETURN NEXT 'reference tables: mm.queue, mm.dishonor_settings, mm.dishonor_players';

    EXECUTE format('SELECT pg_catalog.create_distributed_table(%L, %L, shard_count => %s)',
                   'mm.roster', 'queue_id', shard_count);
    FOREACH t IN ARRAY ARRAY['mm.queued_player', 'mm.match', 'mm.match_accept', 'mm.backfill', 'mm.match_roster', 'mm.ticket_event', 'mm.tick_log'] LOOP
        EXECUTE format('SELECT pg_catalog.create_distributed_table(%L, %L, colocate_with => %L)',
                       t, 'queue_id', 'mm.roster');
    END LOOP;
    EXECUTE format('SELECT pg_catalog.create_distributed_table(%L, %L, shard_count => %s)',
                   'mm.waiting_player', 'player_id', shard_count);
    EXECUTE format('SELECT pg_catalog.create_distributed_table(%L, %L, colocate_with => %L)',
                   'mm.ratings', 'player_id', 'mm.waiting_player');
    RETURN NEXT 'distributed by queue_id, colocated: mm.roster, mm.queued_player, mm.match, mm.match_accept, mm.backfill, mm.match_roster, mm.ticket_event, mm.tick_log';
    RETURN NEXT 'distributed by player_id: mm.waiting_player, mm.ratings';

    ALTER TABLE mm.roster ADD CONSTRAINT roster_queue_id_fkey FOREIGN KEY (queue_id) REFERENCES mm.queue ON DELETE CASCADE;
    ALTER TABLE mm.match ADD CONSTRAINT match_queue_id_fkey FOREIGN KEY (queue_id) REFERENCES mm.queue ON DELETE CASCADE;
    ALTER TABLE mm.tick_log ADD CONSTRAINT tick_log_queue_id_fkey FOREIGN KEY (queue_id) REFERENCES mm.queue ON DELETE CASCADE;
    ALTER TABLE mm.queued_player ADD CONSTRAINT queued_player_roster_fkey FOREIGN KEY (queue_id, roster_id)
        REFERENCES mm.roster (queue_id, roster_id) ON DELETE CASCADE;
    ALTER TABLE mm.match_roster ADD CONSTRAINT match_roster_match_fkey FOREIGN KEY (queue_id, match_id)
        REFERENCES mm.match (queue_id, match_id) ON DELETE CASCADE;
    ALTER TABLE mm.match_accept ADD CONSTRAINT match_accept_match_fkey FOREIGN KEY (queue_id, match_id)
        REFERENCES mm.match (queue_id, match_id) ON DELETE CASCADE;
    ALTER TABLE mm.backfill ADD CONSTRAINT backfill_match_fkey FOREIGN KEY (queue_id, match_id)
        REFERENCES mm.match (queue_id, match_id) ON DELETE CASCADE;
    ALTER TABLE mm.match_roster ADD CONSTRAINT match_roster_backfill_fkey FOREIGN KEY (queue_id, match_id, team, backfill_id)
        REFERENCES mm.backfill (queue_id, match_id, team, backfill_id) ON DELETE CASCADE;
    RETURN NEXT 'foreign keys restored with queue_id';

    -- ids made on different nodes must not collide: each node draws from
    -- its own range of 2^48 values (the coordinator's is group 0's)
    t := $s$
        DO $d$
        DECLARE
            g bigint := (SELECT groupid FROM pg_catalog.pg_dist_local_group);
            s text;
        BEGIN
            FOREACH s IN ARRAY ARRAY['mm.roster_id_seq', 'mm.roster_position_seq', 'mm.match_id_seq',
                                     'mm.tick_id_seq', 'mm.ticket_event_id_seq', 'mm.backfill_id_seq'] LOOP
                IF g = 0 THEN
                    EXECUTE format('ALTER SEQUENCE %s MAXVALUE %s', s, 1::bigint << 48);
                ELSE
                    EXECUTE format('ALTER SEQUENCE %s MINVALUE %s MAXVALUE %s START WITH %s RESTART WITH %s',
                                   s, 1 + (g << 48), (g + 1) << 48, 1 + (g << 48), 1 + (g << 48));
                END IF;
            END LOOP;
        END
        $d$
    $s$;
    EXECUTE t;
    EXECUTE format('SELECT pg_catalog.bool_and(success) FROM pg_catalog.run_command_on_workers(%L)', t) INTO STRICT ok;
    RETURN NEXT 'sequences: one range of 2^48 ids per node';

    -- calls sent to the worker holding the queue
    FOREACH t IN ARRAY ARRAY['mm.tick(int, timestamptz)',
                             'mm.enqueue(int, bigint[], float8, float8, float8, float8, int, text[], timestamptz)',
                             'mm.claim_matches(int, int)', 'mm.leave(int, bigint)'] LOOP
        EXECUTE format('SELECT pg_catalog.create_distributed_function(%L, %L, colocate_with => %L)',
                       t, 'queue_id', 'mm.roster');
    END LOOP;
    -- a delegated enqueue writes mm.waiting_player and reads mm.ratings on
    -- the players' workers; a tick that expires rosters, and the checks of
    -- enqueue, read and write beyond the queue's shard
    FOREACH t IN ARRAY ARRAY['mm.tick(int, timestamptz)',
                             'mm.enqueue(int, bigint[], float8, float8, float8, float8, int, text[], timestamptz)',
                             'mm.claim_matches(int, int)', 'mm.leave(int, bigint)'] LOOP
        EXECUTE format('ALTER FUNCTION %s SET citus.allow_nested_distributed_execution = on', t);
    END LOOP;
    RETURN NEXT 'delegated by queue_id: mm.tick, mm.enqueue, mm.claim_matches, mm.leave (queue-id forms)';
END
$$;
COMMENT ON FUNCTION mm.citus_distribute_queues(int) IS
    'Citus coordinator only (a DBA''s step, once): put each queue''s rosters, players, matches, accepts, backfill requests, ticket history and tick log on one worker (distributed by queue_id, shard_count shards), queues and dishonor on every node (reference tables), mm.waiting_player and mm.ratings by player, one id range per node, and let Citus send the queue-id forms of tick, enqueue, claim_matches and leave to the queue''s worker; refused without Citus';

-- ==== one vocabulary; async fill bounds ====

-- Async pools: a put counts its bucket only when a bound (the last count
-- plus the entry ids handed out since) does not rule out a decision.

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

CREATE FUNCTION mm.async_entry_seq(OUT entry_seq bigint, OUT seq_file oid)
LANGUAGE sql VOLATILE
SET search_path = mm, pg_catalog, pg_temp
AS $$
    SELECT coalesce(pg_catalog.pg_sequence_last_value('mm.async_entries_entry_id_seq'::pg_catalog.regclass), 0),
           pg_catalog.pg_relation_filenode('mm.async_entries_entry_id_seq'::pg_catalog.regclass)
$$;
COMMENT ON FUNCTION mm.async_entry_seq() IS
    'internal: the last entry id handed out (0 before the first) and the storage of its sequence, which TRUNCATE ... RESTART IDENTITY renews';

CREATE FUNCTION mm.async_fill_bound(pool text, labels text[], bucket int,
                                    lower_mmr float8, upper_mmr float8)
RETURNS bigint
LANGUAGE sql VOLATILE
SET search_path = mm, pg_catalog, pg_temp
AS $$
    SELECT f.fill + (s.entry_seq - f.entry_seq)
    FROM mm.async_fill_bounds f, mm.async_entry_seq() s
    WHERE f.pool = $1 AND f.labels = $2 AND f.bucket = $3
      AND f.lower_mmr = $4 AND f.upper_mmr = $5
      AND f.seq_file = s.seq_file AND f.entry_seq <= s.entry_seq
$$;
COMMENT ON FUNCTION mm.async_fill_bound(text, text[], int, float8, float8) IS
    'internal: at most this many entries are in a bucket [lower_mmr, upper_mmr) (from mm.async_fill_bounds); NULL when unknown';

CREATE OR REPLACE FUNCTION mm.put_entry(pool text, player_id bigint, mmr float8,
                             labels text[] DEFAULT '{}', model jsonb DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    cfg jsonb := mm.async_pool_config(pool);
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
    PERFORM mm.async_check_query(put_entry.mmr, put_entry.labels, 0);
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
    cap := mm.async_capacity(pool, lab, b, cfg);
    -- Below both thresholds by the bound of mm.async_fill_bounds: nothing
    -- to decide, so nothing to count (a bucket far from full).
    bound := mm.async_fill_bound(pool, lab, b, lo, hi);
    IF bound IS NULL OR bound >= cap
       OR (is_new AND ignore_at IS NOT NULL AND bound >= ignore_at * cap) THEN
        -- the sequence is read before the count's snapshot is taken: an
        -- entry not counted has a later id (puts into the bucket committed
        -- before this one got the lock)
        SELECT * INTO seq FROM mm.async_entry_seq();
        -- counted up to a little past the capacity: exact unless the bucket
        -- is far over it (a lowered capacity, rows written directly), which
        -- then shrinks by 17 entries a put
        f := mm.async_fill(pool, lab, lo, hi, cap + 16);
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
COMMENT ON FUNCTION mm.put_entry(text, bigint, float8, text[], jsonb) IS
    'add or update a player''s entry (the player state update of Metaplay''s documentation); returns the entry id, NULL if ignored by player_ignore_update_insert_threshold';

-- One vocabulary (docs/conventions.md): alter_pool merges or replaces as
-- alter_queue does.

DROP FUNCTION mm.alter_pool(text, jsonb);
CREATE FUNCTION mm.alter_pool(name text, config jsonb, replace boolean DEFAULT false)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    old_cfg jsonb := mm.async_pool_config(name);
    new_cfg jsonb;
    rebucket boolean;
BEGIN
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
COMMENT ON FUNCTION mm.alter_pool(text, jsonb, boolean) IS
    'change some keys of a pool config (replace: set the whole config, defaults for keys left out); returns the new config. A new MMR range or bucket count forgets the sizing model and restarts the rebalancing sample from the entries held';

-- The IMS endpoint by its name, with mm.openskill_rate's defaults; mm.rate
-- stays, deprecated, with its own.

CREATE FUNCTION mm.ims_rate(request jsonb)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'mm_ims_rate_v2'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.ims_rate(jsonb) IS
    'the IMS matchmaker rate endpoint (the IMS matchmaker documentation): a request with config and ranked teams in, new ratings out; config keys left out take mm.openskill_rate''s defaults; a playerId may appear once';

COMMENT ON FUNCTION mm.rate(jsonb) IS
    'deprecated: use mm.ims_rate. The IMS matchmaker rate endpoint with the 0.1.0 defaults for config keys left out (beta 5, tau 0, mu 30, sigma 10)';

-- An unknown server is 42704 and a full one 55000, as for queues and pools.

CREATE OR REPLACE FUNCTION mm.place_player(server_id bigint, player_id bigint, player jsonb DEFAULT '{}')
RETURNS void
LANGUAGE plpgsql VOLATILE STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    -- Take a slot under the server row's lock: a concurrent joiner waits,
    -- then re-checks occupancy < capacity on the row it waited for.
    UPDATE mm.servers s SET occupancy = s.occupancy + 1
    WHERE s.server_id = place_player.server_id AND s.occupancy < s.capacity;
    IF NOT FOUND THEN
        IF NOT EXISTS (SELECT 1 FROM mm.servers s WHERE s.server_id = place_player.server_id) THEN
            RAISE EXCEPTION 'server % does not exist', place_player.server_id
                USING ERRCODE = 'undefined_object', HINT = 'Start it with mm.add_server.';
        END IF;
        RAISE EXCEPTION 'server % is full', place_player.server_id
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'Rank the servers with mm.rank_servers, or use mm.join_server.';
    END IF;
    BEGIN
        INSERT INTO mm.server_players (player_id, server_id, attributes)
        VALUES (place_player.player_id, place_player.server_id, place_player.player);
    EXCEPTION WHEN unique_violation THEN
        RAISE EXCEPTION 'player % is already on a server', place_player.player_id
            USING ERRCODE = 'unique_violation',
                  DETAIL = format('Server %s.', (SELECT p.server_id FROM mm.server_players p
                                                 WHERE p.player_id = place_player.player_id)),
                  HINT = 'Call mm.leave_server first.';
    END;
    -- A new statement, so a new snapshot: it sees every committed player.
    PERFORM mm.refresh_servers(ARRAY[place_player.server_id]);
END
$$;
COMMENT ON FUNCTION mm.place_player(bigint, bigint, jsonb) IS
    'put a player on a given server if it has a free slot (errors when full)';

CREATE OR REPLACE FUNCTION mm.get_server_attribute(server_id bigint, name text)
RETURNS jsonb
LANGUAGE plpgsql STABLE STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    attrs jsonb;
BEGIN
    SELECT s.attributes INTO attrs FROM mm.servers s WHERE s.server_id = get_server_attribute.server_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'server % does not exist', get_server_attribute.server_id
            USING ERRCODE = 'undefined_object', HINT = 'Start it with mm.add_server.';
    END IF;
    IF NOT attrs ? name THEN
        RAISE EXCEPTION 'server % has no attribute "%"', get_server_attribute.server_id, name
            USING ERRCODE = 'undefined_object',
                  DETAIL = format('Its attributes are: %s.',
                                  COALESCE((SELECT string_agg(k, ', ' ORDER BY k) FROM jsonb_object_keys(attrs) k), 'none')),
                  HINT = 'Set it with mm.set_server_attribute.';
    END IF;
    RETURN attrs -> name;
END
$$;
COMMENT ON FUNCTION mm.get_server_attribute(bigint, text) IS
    'a server attribute''s value (MatchmakingService:GetServerAttribute); errors when unset';

CREATE OR REPLACE FUNCTION mm.set_server_attribute(server_id bigint, name text, value jsonb)
RETURNS void
LANGUAGE plpgsql VOLATILE STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF jsonb_typeof(value) NOT IN ('string', 'number', 'boolean') THEN
        RAISE EXCEPTION 'server attribute "%" must be a string, a number or a boolean', name
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The value is %s.', value);
    END IF;
    UPDATE mm.servers s SET attributes = s.attributes || jsonb_build_object(name, value)
    WHERE s.server_id = set_server_attribute.server_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'server % does not exist', set_server_attribute.server_id
            USING ERRCODE = 'undefined_object', HINT = 'Start it with mm.add_server.';
    END IF;
END
$$;
COMMENT ON FUNCTION mm.set_server_attribute(bigint, text, jsonb) IS
    'set a server attribute (MatchmakingService:SetServerAttribute): a string, number or boolean';

CREATE OR REPLACE FUNCTION mm.server_breakdown_weighted(place text, signals text[], signal_scores float8[])
RETURNS jsonb
LANGUAGE plpgsql STABLE STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    result jsonb;
    unknown text;
BEGIN
    IF coalesce(pg_catalog.cardinality(signals), 0) <> coalesce(pg_catalog.cardinality(signal_scores), 0) THEN
        RAISE EXCEPTION 'signals and signal_scores must have the same length'
            USING ERRCODE = 'array_subscript_error',
                  DETAIL = format('There are %s signals and %s scores.',
                                  pg_catalog.cardinality(signals), pg_catalog.cardinality(signal_scores)),
                  HINT = 'Pass the signals and signal_scores columns of one mm.rank_servers row.';
    END IF;
    IF pg_catalog.array_position(signals, NULL) IS NOT NULL
       OR pg_catalog.array_position(signal_scores, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'signals and signal_scores must not contain NULL elements'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF EXISTS (SELECT 1 FROM pg_catalog.unnest(signal_scores) x
               WHERE NOT (x >= 0 AND x <= 1)) THEN
        RAISE EXCEPTION 'signal scores must be between 0 and 1'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The scores are %s.', signal_scores),
                  HINT = 'Pass the signal_scores column of one mm.rank_servers row.';
    END IF;
    SELECT string_agg(u.n, ', ') INTO unknown
    FROM pg_catalog.unnest(signals) u(n)
    WHERE NOT EXISTS (SELECT 1 FROM mm.place_signals(place) w WHERE w.signal = u.n);
    IF unknown IS NOT NULL THEN
        RAISE EXCEPTION 'place "%" does not score with %', place, unknown
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'See the place''s signals with mm.place_signals.';
    END IF;
    SELECT coalesce(pg_catalog.jsonb_object_agg(u.n, pg_catalog.jsonb_build_object(
               'score', u.s, 'weight', w.weight, 'weighted', u.s * w.weight)), '{}')
    INTO result
    FROM unnest(signals, signal_scores) AS u(n, s)
    JOIN mm.place_signals(place) w ON w.signal = u.n;
    RETURN result;
END
$$;
COMMENT ON FUNCTION mm.server_breakdown_weighted(text, text[], float8[]) IS
    'the breakdown of a rank_servers row with each signal''s weight: {signal: {"score", "weight", "weighted"}}; the weighted values sum to the row''s score';

-- One meaning of a NULL policy: none (plain Glicko-2). The functions that
-- read the Guild Wars 2 wiki's defaults when it is left out say so with '{}'.

CREATE OR REPLACE FUNCTION mm.glicko2_rating_at(player mm.glicko, updated_at timestamptz,
                                     at timestamptz DEFAULT now(), policy jsonb DEFAULT '{}')
RETURNS mm.glicko
AS 'MODULE_PATHNAME', 'mm_glicko2_rating_at'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.glicko2_rating_at(mm.glicko, timestamptz, timestamptz, jsonb) IS
    'a rating as of a time: the default if last updated before the policy''s reset, else idle growth over the whole periods elapsed; policy defaults to the Guild Wars 2 wiki''s ({}); NULL is no policy (plain Glicko-2 growth, periods of the default length)';

CREATE OR REPLACE FUNCTION mm.glicko2_blend(core mm.glicko, profession mm.glicko, policy jsonb DEFAULT '{}')
RETURNS mm.glicko
AS 'MODULE_PATHNAME', 'mm_glicko2_blend'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.glicko2_blend(mm.glicko, mm.glicko, jsonb) IS
    'blend core and profession ratings by the policy''s rating.profession_ratio (0 core only, 1 profession only); policy defaults to the Guild Wars 2 wiki''s ({}); NULL (no policy) is an error';

-- Both forms where a user expects them: mm.glicko and mm.rating arguments.

CREATE FUNCTION mm.glicko2_expect(player mm.glicko, opponent mm.glicko)
RETURNS float8
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT mm.glicko2_expect((player).rating, (player).rd, (opponent).rating, (opponent).rd) $$;
COMMENT ON FUNCTION mm.glicko2_expect(mm.glicko, mm.glicko) IS
    'expected score of a player against an opponent, both deviations combined (the mm.glicko form; inlined by the planner)';

CREATE FUNCTION mm.ordinal(rating mm.rating, z float8 DEFAULT 3)
RETURNS float8
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT mm.ordinal((rating).mu, (rating).sigma, z) $$;
COMMENT ON FUNCTION mm.ordinal(mm.rating, float8) IS
    'the ordinal mu - z * sigma of an mm.rating (inlined by the planner)';

-- mm.glicko2_period takes a policy, as mm.glicko2_rate does.

-- The rating-period aggregate with a policy: it collects one player's games
-- and rates them with mm.glicko2_rate, so it equals mm.glicko2_rate with
-- the same policy exactly (clamps, max change per game, the policy's idle
-- rule for a period without games). Its state is the call it will make.

CREATE TYPE mm.glicko2_period_state AS (
    player     mm.glicko,
    tau        float8,
    policy     jsonb,
    opp_rating float8[],
    opp_rd     float8[],
    score      float8[]
);
COMMENT ON TYPE mm.glicko2_period_state IS
    'state of mm.glicko2_period with a policy: the player, tau, the policy and the games so far (the arguments of mm.glicko2_rate)';

CREATE FUNCTION mm.glicko2_period_policy_check(state mm.glicko2_period_state, with_policy boolean)
RETURNS mm.glicko2_period_state
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    p mm.glicko := (state).player;
BEGIN
    IF p IS NULL OR (p).rating IS NULL OR (p).rd IS NULL OR (p).vol IS NULL THEN
        RAISE EXCEPTION 'rating, rd and vol must not be NULL'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'Use the policy''s defaults for a new player, e.g. COALESCE(rd, 350).';
    END IF;
    IF NOT ((p).rating > '-Infinity' AND (p).rating < 'Infinity'
            AND (p).rd > 0 AND (p).rd < 'Infinity' AND (p).vol > 0 AND (p).vol < 'Infinity') THEN
        RAISE EXCEPTION 'rating must be finite, rd and vol positive and finite'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = pg_catalog.format('The rating is %s.', p);
    END IF;
    IF NOT coalesce((state).tau > 0 AND (state).tau < 'Infinity', true) THEN
        RAISE EXCEPTION 'tau must be positive and finite'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = pg_catalog.format('The value is %s.', (state).tau),
                  HINT = 'Pass NULL for the policy''s system_constant.';
    END IF;
    IF (state).opp_rating IS NULL OR (state).opp_rd IS NULL OR (state).score IS NULL THEN
        RAISE EXCEPTION 'the games of a glicko2_period state must not be NULL'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF pg_catalog.array_ndims((state).opp_rating) > 1 OR pg_catalog.array_ndims((state).opp_rd) > 1
       OR pg_catalog.array_ndims((state).score) > 1
       OR pg_catalog.cardinality((state).opp_rating) <> pg_catalog.cardinality((state).score)
       OR pg_catalog.cardinality((state).opp_rd) <> pg_catalog.cardinality((state).score) THEN
        RAISE EXCEPTION 'opp_rating, opp_rd and score must have the same length'
            USING ERRCODE = 'array_subscript_error',
                  HINT = 'Give one element per game in each array.';
    END IF;
    IF EXISTS (SELECT 1 FROM unnest((state).opp_rating, (state).opp_rd, (state).score) AS g(o, d, s)
               WHERE NOT coalesce(g.o > '-Infinity' AND g.o < 'Infinity' AND g.d > 0 AND g.d < 'Infinity'
                                  AND g.s >= 0 AND g.s <= 1, false)) THEN
        RAISE EXCEPTION 'every game needs a finite opp_rating, a positive opp_rd and a score between 0 and 1'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = pg_catalog.format('The games are %s, %s, %s.',
                                             (state).opp_rating, (state).opp_rd, (state).score),
                  HINT = 'Use 1 for a win, 0.5 for a draw and 0 for a loss.';
    END IF;
    IF with_policy AND (state).policy IS NOT NULL THEN
        PERFORM mm.glicko2_policy((state).policy);
    END IF;
    RETURN state;
END
$$;
COMMENT ON FUNCTION mm.glicko2_period_policy_check(mm.glicko2_period_state, boolean) IS
    'internal: refuse a glicko2_period state that mm.glicko2_rate would refuse (and its policy, when asked)';

CREATE FUNCTION mm.glicko2_period_policy_merge(a mm.glicko2_period_state, b mm.glicko2_period_state)
RETURNS mm.glicko2_period_state
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF (a).player IS DISTINCT FROM (b).player OR (a).tau IS DISTINCT FROM (b).tau
       OR (a).policy IS DISTINCT FROM (b).policy THEN
        RAISE EXCEPTION 'glicko2_period needs one player rating per group'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = pg_catalog.format('The group has %s, tau %s, policy %s and also %s, tau %s, policy %s.',
                                             (a).player, coalesce((a).tau::text, 'NULL'), coalesce((a).policy::text, 'NULL'),
                                             (b).player, coalesce((b).tau::text, 'NULL'), coalesce((b).policy::text, 'NULL')),
                  HINT = 'Group by player: each player''s rating, rd, vol, tau and policy are constant over a rating period.';
    END IF;
    a.opp_rating := (a).opp_rating OPERATOR(pg_catalog.||) (b).opp_rating;
    a.opp_rd := (a).opp_rd OPERATOR(pg_catalog.||) (b).opp_rd;
    a.score := (a).score OPERATOR(pg_catalog.||) (b).score;
    RETURN a;
END
$$;
COMMENT ON FUNCTION mm.glicko2_period_policy_merge(mm.glicko2_period_state, mm.glicko2_period_state) IS
    'internal: the games of two checked glicko2_period states of one player, an error for two players';

CREATE FUNCTION mm.glicko2_period_policy_step(state mm.glicko2_period_state,
                                              rating float8, rd float8, vol float8,
                                              opp_rating float8, opp_rd float8, score float8,
                                              tau float8, policy jsonb)
RETURNS mm.glicko2_period_state
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    game_null boolean := opp_rating IS NULL AND opp_rd IS NULL AND score IS NULL;
    game mm.glicko2_period_state;
BEGIN
    IF NOT game_null AND (opp_rating IS NULL OR opp_rd IS NULL OR score IS NULL) THEN
        RAISE EXCEPTION 'opp_rating, opp_rd and score must be all NULL or all set'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'A row with all three NULL counts as no game.';
    END IF;
    -- this row alone, checked (its policy only on a group's first row)
    game := mm.glicko2_period_policy_check(
        ROW(ROW(rating, rd, vol)::mm.glicko, tau, policy,
            CASE WHEN game_null THEN '{}' ELSE ARRAY[opp_rating] END,
            CASE WHEN game_null THEN '{}' ELSE ARRAY[opp_rd] END,
            CASE WHEN game_null THEN '{}' ELSE ARRAY[score] END)::mm.glicko2_period_state,
        state IS NULL);
    IF state IS NULL THEN
        RETURN game;
    END IF;
    RETURN mm.glicko2_period_policy_merge(state, game);
END
$$;
COMMENT ON FUNCTION mm.glicko2_period_policy_step(mm.glicko2_period_state, float8, float8, float8, float8, float8, float8, float8, jsonb) IS
    'transition function of mm.glicko2_period with a policy: checks the row and adds its game';

CREATE FUNCTION mm.glicko2_period_policy_combine(a mm.glicko2_period_state, b mm.glicko2_period_state)
RETURNS mm.glicko2_period_state
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = mm, pg_catalog, pg_temp
AS $$
BEGIN
    IF a IS NULL THEN
        RETURN mm.glicko2_period_policy_check(b, true);
    ELSIF b IS NULL THEN
        RETURN mm.glicko2_period_policy_check(a, true);
    END IF;
    RETURN mm.glicko2_period_policy_merge(mm.glicko2_period_policy_check(a, true),
                                          mm.glicko2_period_policy_check(b, false));
END
$$;
COMMENT ON FUNCTION mm.glicko2_period_policy_combine(mm.glicko2_period_state, mm.glicko2_period_state) IS
    'combine function of mm.glicko2_period with a policy: the games of both parts, for one player; both parts checked';

CREATE FUNCTION mm.glicko2_period_policy_final(state mm.glicko2_period_state)
RETURNS mm.glicko
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mm, pg_catalog, pg_temp
AS $$
    SELECT mm.glicko2_rate((state).player, (state).opp_rating, (state).opp_rd, (state).score,
                           (state).tau, (state).policy)
$$;
COMMENT ON FUNCTION mm.glicko2_period_policy_final(mm.glicko2_period_state) IS
    'final function of mm.glicko2_period with a policy: mm.glicko2_rate over the games collected (which checks every field)';

CREATE AGGREGATE mm.glicko2_period(rating float8, rd float8, vol float8,
                                   opp_rating float8, opp_rd float8, score float8,
                                   tau float8, policy jsonb) (
    SFUNC = mm.glicko2_period_policy_step,
    STYPE = mm.glicko2_period_state,
    FINALFUNC = mm.glicko2_period_policy_final,
    COMBINEFUNC = mm.glicko2_period_policy_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE mm.glicko2_period(float8, float8, float8, float8, float8, float8, float8, jsonb) IS
    'one Glicko-2 rating period over a player''s games (GROUP BY player) under a policy (NULL: none); tau NULL is the policy''s system_constant; equal to mm.glicko2_rate with that policy';

-- ==== results: mm.report_result in C, profession ratings, Glicko-2 rating periods ====

-- mm.report_result is a C function (src/results.c): the result is checked
-- in memory, rated with the C OpenSkill core, written with one prepared
-- multi-row statement per table; its PL/pgSQL helpers go.
CREATE OR REPLACE FUNCTION mm.report_result(match_id bigint, result jsonb)
RETURNS SETOF mm.match_result_player
AS 'MODULE_PATHNAME', 'mm_report_result'
LANGUAGE C VOLATILE ROWS 10;
COMMENT ON FUNCTION mm.report_result(bigint, jsonb) IS
    'rate a match exactly once with its queue''s "rating" config: OpenSkill or Glicko-2 ratings (with profession_ratio > 0 the players'' profession ratings too; with "period": "pending" the games wait for mm.close_rating_period), ladder points from the match''s prediction, dishonor for desertions; records every player''s before and after (backfilled players included), marks the match finished and its open backfill requests expired; a repeated identical report returns the first outcome, a different one is an error (23505)';
DROP FUNCTION mm._result_players(bigint, jsonb);
DROP FUNCTION mm._lock_ratings(text, bigint[]);

-- Profession ratings (the Guild Wars 2 wiki's Rating/@profession-ratio):
-- mm.roster_rating takes the roster's professions and blends core and
-- profession ratings by the queue's rating.profession_ratio; mm.enqueue
-- passes them.
DROP FUNCTION mm.roster_rating(jsonb, bigint[], timestamptz);
CREATE FUNCTION mm.roster_rating(rating_config jsonb, players bigint[], at timestamptz DEFAULT now(),
                                 professions text[] DEFAULT NULL,
                                 OUT rating float8, OUT deviation float8)
RETURNS record
LANGUAGE plpgsql STABLE
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    rc jsonb := mm.matcher_config(jsonb_build_object('rating', coalesce(rating_config, '{}'))) -> 'rating';
    r float8;
BEGIN
    IF players IS NULL OR cardinality(players) = 0 OR at IS NULL OR NOT isfinite(at) THEN
        RAISE EXCEPTION 'players must be a non-empty array and at a finite time'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF cardinality(players) > 1000 THEN
        RAISE EXCEPTION 'roster is larger than a team can be'
            USING ERRCODE = 'program_limit_exceeded',
                  DETAIL = format('The roster has %s players; teams have at most 1000.', cardinality(players));
    END IF;
    IF cardinality(professions) NOT IN (0, cardinality(players)) OR array_position(professions, NULL) IS NOT NULL
       OR array_position(professions, '') IS NOT NULL THEN
        RAISE EXCEPTION 'professions must name one profession per player'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The roster has %s players and the professions are %s.', cardinality(players), professions),
                  HINT = 'Give one non-empty profession per player, in the order of players, or none.';
    END IF;
    -- without professions, or a ratio of 0: the core rating alone
    r := CASE WHEN cardinality(professions) > 0 THEN (rc ->> 'profession_ratio')::float8 ELSE 0 END;
    IF rc ->> 'model' = 'openskill' THEN
        -- the IMS party rating: weighted max and median mu minus 3 mean sigma
        SELECT mm.party_rating(array_agg((1 - r) * x.mu + r * x.pmu ORDER BY x.o),
                               array_agg((1 - r) * x.sigma + r * x.psigma ORDER BY x.o)), 0
          INTO rating, deviation
        FROM (SELECT u.o, coalesce(c.mu, (rc ->> 'mu')::float8) AS mu, coalesce(c.sigma, (rc ->> 'sigma')::float8) AS sigma,
                     coalesce(pr.mu, (rc ->> 'mu')::float8) AS pmu, coalesce(pr.sigma, (rc ->> 'sigma')::float8) AS psigma
              FROM unnest(players) WITH ORDINALITY u(p, o)
              LEFT JOIN mm.ratings c ON c.player_id = u.p AND c.key = rc ->> 'key'
              LEFT JOIN mm.ratings pr ON r > 0 AND pr.player_id = u.p
                                     AND pr.key = (rc ->> 'key') || '/' || professions[u.o]) x;
    ELSE
        -- Glicko-2: the mean rating and mean deviation (their difference is
        -- the mean effective rating), with idle growth
        SELECT avg((1 - r) * coalesce((x.g).rating, (rc ->> 'rating')::float8)
                   + r * coalesce((x.pg).rating, (rc ->> 'rating')::float8)),
               avg((1 - r) * coalesce((x.g).rd, (rc ->> 'rd')::float8)
                   + r * coalesce((x.pg).rd, (rc ->> 'rd')::float8))
          INTO rating, deviation
        FROM (SELECT mm._glicko_now(c, roster_rating.at) AS g, mm._glicko_now(pr, roster_rating.at) AS pg
              FROM unnest(players) WITH ORDINALITY u(p, o)
              LEFT JOIN mm.ratings c ON c.player_id = u.p AND c.key = rc ->> 'key'
              LEFT JOIN mm.ratings pr ON r > 0 AND pr.player_id = u.p
                                     AND pr.key = (rc ->> 'key') || '/' || professions[u.o]) x;
    END IF;
END
$$;
COMMENT ON FUNCTION mm.roster_rating(jsonb, bigint[], timestamptz, text[]) IS
    'a roster''s rating and deviation from its players'' mm.ratings rows under a queue''s "rating" config: OpenSkill, the IMS party rating (mm.party_rating) and deviation 0; Glicko-2, the mean rating and mean deviation with idle growth; with professions (one per player) each player''s rating blends core and profession ("<key>/<profession>") by profession_ratio';

CREATE OR REPLACE FUNCTION mm.enqueue(queue text, players bigint[], rating float8, deviation float8 DEFAULT 0,
                           rank float8 DEFAULT 0, ladder_points float8 DEFAULT 0,
                           dishonor int DEFAULT NULL, professions text[] DEFAULT '{}',
                           joined_at timestamptz DEFAULT now())
RETURNS bigint
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q mm.queue := mm._queue(queue);
    cfg jsonb := mm.matcher_config(q.config);
    team_size int := (cfg ->> 'team_size')::int;
    n int := cardinality(players);
    p bigint;
    other bigint;
    s timestamptz;
    stacks int;
    id bigint;
    distributed boolean;
BEGIN
    PERFORM mm._require_primary('mm.enqueue');
    IF players IS NULL OR n = 0 THEN
        RAISE EXCEPTION 'roster must have at least one player'
            USING ERRCODE = 'invalid_parameter_value', HINT = 'Pass the party''s player ids, such as ARRAY[1, 2].';
    END IF;
    IF array_ndims(players) > 1 THEN
        RAISE EXCEPTION 'players must be a one-dimensional array'
            USING ERRCODE = 'array_subscript_error';
    END IF;
    IF n > team_size THEN
        RAISE EXCEPTION 'roster is larger than a team'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The roster has %s players; queue "%s" has teams of %s.', n, queue, team_size),
                  HINT = 'Split the party, or queue it where teams are larger.';
    END IF;
    IF array_position(players, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'players must not contain nulls' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    SELECT x INTO p FROM unnest(players) x GROUP BY x HAVING count(*) > 1 ORDER BY x LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'player % appears twice in the roster', p
            USING ERRCODE = 'invalid_parameter_value', HINT = 'List each player once.';
    END IF;
    IF deviation IS NULL OR rank IS NULL OR ladder_points IS NULL
       OR professions IS NULL OR joined_at IS NULL THEN
        RAISE EXCEPTION 'deviation, rank, ladder_points, professions and joined_at must not be null'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF NOT isfinite(joined_at) THEN
        RAISE EXCEPTION 'joined_at must be finite' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF joined_at > now() THEN
        RAISE EXCEPTION 'joined_at must not be in the future'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('joined_at is %s and the transaction started at %s.', joined_at, now()),
                  HINT = 'Leave joined_at out to queue the roster now.';
    END IF;
    PERFORM mm._check_roster(rating, deviation, rank, ladder_points, dishonor, professions, n);

    -- dishonor: players in a timeout now may not queue (whatever joined_at
    -- says); stacks default the roster's dishonor
    SELECT d.player_id, d.timeout_until INTO p, s
    FROM mm.dishonor_statuses(players, now()) d
    WHERE d.timeout_until > now() ORDER BY d.timeout_until DESC LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'player % is in a dishonor timeout', p
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = format('The timeout lasts until %s.', s),
                  HINT = format('The player can queue again at %s.', s);
    END IF;
    SELECT coalesce(sum(d.stacks), 0) INTO stacks FROM mm.dishonor_statuses(players, now()) d;

    -- (on Citus mm._hold_players checks this below, on the players' own
    -- rows, without asking every shard of every queue)
    distributed := mm._queues_distributed();
    SELECT qp.player_id, qp.roster_id INTO p, other
    FROM mm.queued_player qp WHERE NOT distributed AND qp.player_id = ANY (players) ORDER BY qp.player_id LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'player % is already queued', p
            USING ERRCODE = 'unique_violation',
                  DETAIL = format('The player is in waiting roster %s.', other),
                  HINT = format('Call mm.leave(%s) first.', other);
    END IF;

    -- a player in a ready check (a proposed match, until its end) is not
    -- free to queue (on Citus the ready check is not supported: see the
    -- scaling docs)
    IF NOT distributed THEN
        SELECT e.player_id, e.match_id INTO p, other
        FROM unnest(players) AS u(x)
        CROSS JOIN LATERAL (SELECT e.player_id, e.match_id, e.status, e.queue_id FROM mm.ticket_event e
                            WHERE e.player_id = u.x ORDER BY e.event_id DESC LIMIT 1) e
        JOIN mm.match m ON m.queue_id = e.queue_id AND m.match_id = e.match_id
        WHERE e.status IN ('proposed', 'accepted') AND m.status = 'proposed' AND m.accept_until > now()
        ORDER BY e.player_id LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'player % is in the ready check of match %', p, other
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      HINT = format('Accept the match with mm.accept(%s, %s), or decline it with mm.decline.', other, p);
        END IF;
    END IF;

    -- requeue_while_in_match false: a player whose last match is not
    -- finished waits for it
    IF NOT (cfg ->> 'requeue_while_in_match')::boolean THEN
        SELECT e.player_id, e.match_id INTO p, other
        FROM (SELECT DISTINCT ON (e.player_id) e.player_id, e.queue_id, e.match_id FROM mm.ticket_event e
              WHERE e.player_id = ANY (players) AND e.status = 'matched'
              ORDER BY e.player_id, e.event_id DESC) e
        JOIN mm.match m ON m.queue_id = e.queue_id AND m.match_id = e.match_id
        WHERE m.status <> 'finished'
        ORDER BY e.player_id LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'player % is in match % that is not finished', p, other
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      DETAIL = format('Queue "%s" does not let players queue again while in a match.', queue),
                      HINT = 'Queue the player again once the match is finished, or set the queue''s requeue_while_in_match to true.';
        END IF;
    END IF;

    -- no rating given: the roster's rating and deviation from the players'
    -- mm.ratings rows of the queue's rating key
    IF rating IS NULL THEN
        SELECT r.rating, r.deviation INTO rating, deviation
        FROM mm.roster_rating(cfg -> 'rating', players, now(), professions) r;
    END IF;
    INSERT INTO mm.roster (queue_id, rating, deviation, rank, ladder_points, dishonor, joined_at)
    VALUES (q.queue_id, rating, deviation, rank, ladder_points, coalesce(dishonor, stacks), joined_at)
    RETURNING roster.roster_id INTO id;
    BEGIN
        INSERT INTO mm.queued_player (player_id, roster_id, queue_id, seat, profession)
        SELECT u.x, id, q.queue_id, u.o, professions[u.o]
        FROM unnest(players) WITH ORDINALITY AS u(x, o);
    EXCEPTION WHEN unique_violation THEN
        RAISE EXCEPTION 'a player of the roster was queued at the same time'
            USING ERRCODE = 'unique_violation', HINT = 'Another session queued one of these players; see mm.queued_player.';
    END;
    INSERT INTO mm.ticket_event (roster_id, player_id, status, at, queue_id)
    SELECT id, u.x, 'waiting', joined_at, q.queue_id FROM unnest(players) AS u(x);
    -- on Citus the key above holds per queue: hold the players cluster-wide
    IF distributed THEN
        PERFORM mm._hold_players(q.queue_id, id, players);
    END IF;
    RETURN id;
END
$$;
COMMENT ON FUNCTION mm.enqueue(text, bigint[], float8, float8, float8, float8, int, text[], timestamptz) IS
    'queue a roster (party); rating NULL takes the roster''s rating and deviation from mm.ratings (mm.roster_rating, professions blended by the queue''s profession_ratio); joined_at may not lie in the future; players in a dishonor timeout now, or in the ready check of a proposed match, are refused; dishonor defaults to its players'' stacks (mm.dishonor_status); returns the roster id';

-- Glicko-2 rating periods: a queue whose rating config says "period":
-- "pending" records its games, mm.close_rating_period rates them.
-- The games of the open Glicko-2 rating period of a rating key (a queue
-- whose rating config says "period": "pending"): one row per player and
-- opposing player of a reported match, scored 1, 0.5 or 0.
-- mm.close_rating_period rates them all at once and removes them.
CREATE TABLE mm.rating_period_game (
    key         text NOT NULL,
    match_id    bigint NOT NULL,
    player_id   bigint NOT NULL,
    opponent_id bigint NOT NULL,
    score       float8 NOT NULL,
    reported_at timestamptz NOT NULL,
    CONSTRAINT rating_period_game_pkey PRIMARY KEY (key, match_id, player_id, opponent_id),
    CONSTRAINT rating_period_game_match_fkey FOREIGN KEY (match_id)
        REFERENCES mm.match_result ON DELETE CASCADE,
    CONSTRAINT rating_period_game_score_check CHECK (score IN (0, 0.5, 1)),
    CONSTRAINT rating_period_game_opponent_check CHECK (opponent_id <> player_id)
);
COMMENT ON TABLE mm.rating_period_game IS
    'games of the open Glicko-2 rating period of a rating key ("period": "pending"): each player against each opposing player of a reported match, score 1 win, 0.5 draw, 0 loss; rated at once and removed by mm.close_rating_period';
SELECT pg_catalog.pg_extension_config_dump('mm.rating_period_game', '');

-- Close the open Glicko-2 rating period of a rating key (Glickman's paper:
-- every player who played is rated with all of the period's games at once,
-- against the opponents' ratings as they stood when the period began).
-- Players who did not play keep their row; their idle deviation growth is
-- applied when their rating is read (mm.glicko2_rating_at from last_played).
CREATE FUNCTION mm.close_rating_period(key text, at timestamptz DEFAULT now())
RETURNS TABLE (player_id bigint, games int, rating float8, rd float8, vol float8)
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    k text := close_rating_period.key;
    matches bigint[];
    ids bigint[];
BEGIN
    IF k IS NULL OR at IS NULL OR NOT isfinite(at) THEN
        RAISE EXCEPTION 'key must not be NULL and at must be a finite time'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- the period: the matches whose games are committed now (a report
    -- writes all the games of its match at once), their players' rows
    -- locked in player-id order as mm.report_result locks them; games
    -- reported meanwhile belong to the next period
    matches := ARRAY(SELECT DISTINCT g.match_id FROM mm.rating_period_game g WHERE g.key = k);
    ids := ARRAY(SELECT DISTINCT g.player_id FROM mm.rating_period_game g
                 WHERE g.key = k AND g.match_id = ANY (matches) ORDER BY 1);
    PERFORM FROM mm.ratings r WHERE r.key = k AND r.player_id = ANY (ids) ORDER BY r.player_id FOR UPDATE;
    RETURN QUERY
    WITH g AS (
        DELETE FROM mm.rating_period_game g WHERE g.key = k AND g.match_id = ANY (matches) RETURNING g.*
    ), s AS (
        -- each player's rating when the period began, with idle growth
        -- until then (a rating period of mm reports nothing but its games)
        SELECT r.player_id, (mm._glicko_now(r, greatest(r.last_played, x.first))).*
        FROM mm.ratings r, (SELECT min(g.reported_at) AS first FROM g) x
        WHERE r.key = k AND r.player_id = ANY (ids)
    ), n AS (
        SELECT g.player_id, mm.glicko2_period(p.rating, p.rd, p.vol, o.rating, o.rd, g.score) AS n,
               count(DISTINCT g.match_id)::int AS games
        FROM g JOIN s p ON p.player_id = g.player_id JOIN s o ON o.player_id = g.opponent_id
        GROUP BY g.player_id
    )
    UPDATE mm.ratings r
       SET rating = (n.n).rating, rd = (n.n).rd, vol = (n.n).vol, games = r.games + n.games,
           last_played = greatest(r.last_played, close_rating_period.at)
      FROM n
     WHERE r.key = k AND r.player_id = n.player_id
    RETURNING r.player_id, n.games, r.rating, r.rd, r.vol;
END
$$;
COMMENT ON FUNCTION mm.close_rating_period(text, timestamptz) IS
    'close the open Glicko-2 rating period of a rating key: rate every player with games in mm.rating_period_game with all of them at once (mm.glicko2_period against the opponents'' ratings when the period began) and remove them; returns the players rated; players who did not play grow their deviation when read';

-- ==== the roster's joined_at checked against the wall clock ====

-- "Not in the future" is checked against the time the row is written, not
-- the writer's transaction start: a tick whose transaction began before a
-- roster was queued updates it (a failed target's new position) without
-- tripping over a joined_at later than its own now().
ALTER TABLE mm.roster DROP CONSTRAINT roster_joined_at_check,
    ADD CONSTRAINT roster_joined_at_check CHECK (isfinite(joined_at) AND joined_at <= clock_timestamp());
COMMENT ON CONSTRAINT roster_joined_at_check ON mm.roster IS 'joined_at is finite and not in the future (the wall clock when the row is written: a tick whose transaction began before a roster was queued may still update it)';

-- ==== a matched roster recorded once, by mm.match_roster ====
-- A roster a tick matches without a ready check is recorded once, by its
-- row of mm.match_roster, no longer by a matched ticket event per player;
-- the readers of the ticket history read both. The matched events 0.1.0's
-- matches were given stay (they name their match, so they are read as
-- before).
COMMENT ON TABLE mm.ticket_event IS 'ticket history: per roster and player, when it started waiting and how it ended (expired, left, removed, with a reason; a roster a tick matched without a ready check has its row in mm.match_roster instead); with a ready check also proposed and accepted (with the match), and waiting again or removed (with the dissolved match and the reason declined, accept_timeout or drop_queue)';
CREATE OR REPLACE FUNCTION mm.enqueue(queue text, players bigint[], rating float8, deviation float8 DEFAULT 0,
                           rank float8 DEFAULT 0, ladder_points float8 DEFAULT 0,
                           dishonor int DEFAULT NULL, professions text[] DEFAULT '{}',
                           joined_at timestamptz DEFAULT now())
RETURNS bigint
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q mm.queue := mm._queue(queue);
    cfg jsonb := mm.matcher_config(q.config);
    team_size int := (cfg ->> 'team_size')::int;
    n int := cardinality(players);
    p bigint;
    other bigint;
    s timestamptz;
    stacks int;
    id bigint;
    distributed boolean;
BEGIN
    PERFORM mm._require_primary('mm.enqueue');
    IF players IS NULL OR n = 0 THEN
        RAISE EXCEPTION 'roster must have at least one player'
            USING ERRCODE = 'invalid_parameter_value', HINT = 'Pass the party''s player ids, such as ARRAY[1, 2].';
    END IF;
    IF array_ndims(players) > 1 THEN
        RAISE EXCEPTION 'players must be a one-dimensional array'
            USING ERRCODE = 'array_subscript_error';
    END IF;
    IF n > team_size THEN
        RAISE EXCEPTION 'roster is larger than a team'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The roster has %s players; queue "%s" has teams of %s.', n, queue, team_size),
                  HINT = 'Split the party, or queue it where teams are larger.';
    END IF;
    IF array_position(players, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'players must not contain nulls' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    SELECT x INTO p FROM unnest(players) x GROUP BY x HAVING count(*) > 1 ORDER BY x LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'player % appears twice in the roster', p
            USING ERRCODE = 'invalid_parameter_value', HINT = 'List each player once.';
    END IF;
    IF deviation IS NULL OR rank IS NULL OR ladder_points IS NULL
       OR professions IS NULL OR joined_at IS NULL THEN
        RAISE EXCEPTION 'deviation, rank, ladder_points, professions and joined_at must not be null'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF NOT isfinite(joined_at) THEN
        RAISE EXCEPTION 'joined_at must be finite' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF joined_at > now() THEN
        RAISE EXCEPTION 'joined_at must not be in the future'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('joined_at is %s and the transaction started at %s.', joined_at, now()),
                  HINT = 'Leave joined_at out to queue the roster now.';
    END IF;
    PERFORM mm._check_roster(rating, deviation, rank, ladder_points, dishonor, professions, n);

    -- dishonor: players in a timeout now may not queue (whatever joined_at
    -- says); stacks default the roster's dishonor
    SELECT d.player_id, d.timeout_until INTO p, s
    FROM mm.dishonor_statuses(players, now()) d
    WHERE d.timeout_until > now() ORDER BY d.timeout_until DESC LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'player % is in a dishonor timeout', p
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = format('The timeout lasts until %s.', s),
                  HINT = format('The player can queue again at %s.', s);
    END IF;
    SELECT coalesce(sum(d.stacks), 0) INTO stacks FROM mm.dishonor_statuses(players, now()) d;

    -- (on Citus mm._hold_players checks this below, on the players' own
    -- rows, without asking every shard of every queue)
    distributed := mm._queues_distributed();
    SELECT qp.player_id, qp.roster_id INTO p, other
    FROM mm.queued_player qp WHERE NOT distributed AND qp.player_id = ANY (players) ORDER BY qp.player_id LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'player % is already queued', p
            USING ERRCODE = 'unique_violation',
                  DETAIL = format('The player is in waiting roster %s.', other),
                  HINT = format('Call mm.leave(%s) first.', other);
    END IF;

    -- a player in a ready check (a proposed match, until its end) is not
    -- free to queue (on Citus the ready check is not supported: see the
    -- scaling docs)
    IF NOT distributed THEN
        SELECT e.player_id, e.match_id INTO p, other
        FROM unnest(players) AS u(x)
        CROSS JOIN LATERAL (SELECT e.player_id, e.match_id, e.status, e.queue_id FROM mm.ticket_event e
                            WHERE e.player_id = u.x ORDER BY e.event_id DESC LIMIT 1) e
        JOIN mm.match m ON m.queue_id = e.queue_id AND m.match_id = e.match_id
        WHERE e.status IN ('proposed', 'accepted') AND m.status = 'proposed' AND m.accept_until > now()
        ORDER BY e.player_id LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'player % is in the ready check of match %', p, other
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      HINT = format('Accept the match with mm.accept(%s, %s), or decline it with mm.decline.', other, p);
        END IF;
    END IF;

    -- requeue_while_in_match false: a player whose last match is not
    -- finished waits for it
    IF NOT (cfg ->> 'requeue_while_in_match')::boolean THEN
        SELECT e.player_id, e.match_id INTO p, other
        -- its last roster that went into a match (with the player in it)
        FROM (SELECT DISTINCT ON (e.player_id) e.player_id, mr.queue_id, mr.match_id
              FROM mm.ticket_event e
              JOIN mm.match_roster mr ON mr.queue_id = e.queue_id AND mr.roster_id = e.roster_id
              WHERE e.player_id = ANY (enqueue.players) AND e.status = 'waiting' AND e.player_id = ANY (mr.players)
              ORDER BY e.player_id, e.event_id DESC) e
        JOIN mm.match m ON m.queue_id = e.queue_id AND m.match_id = e.match_id
        WHERE m.status <> 'finished'
        ORDER BY e.player_id LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'player % is in match % that is not finished', p, other
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      DETAIL = format('Queue "%s" does not let players queue again while in a match.', queue),
                      HINT = 'Queue the player again once the match is finished, or set the queue''s requeue_while_in_match to true.';
        END IF;
    END IF;

    -- no rating given: the roster's rating and deviation from the players'
    -- mm.ratings rows of the queue's rating key
    IF rating IS NULL THEN
        SELECT r.rating, r.deviation INTO rating, deviation
        FROM mm.roster_rating(cfg -> 'rating', players, now(), professions) r;
    END IF;
    INSERT INTO mm.roster (queue_id, rating, deviation, rank, ladder_points, dishonor, joined_at)
    VALUES (q.queue_id, rating, deviation, rank, ladder_points, coalesce(dishonor, stacks), joined_at)
    RETURNING roster.roster_id INTO id;
    BEGIN
        INSERT INTO mm.queued_player (player_id, roster_id, queue_id, seat, profession)
        SELECT u.x, id, q.queue_id, u.o, professions[u.o]
        FROM unnest(players) WITH ORDINALITY AS u(x, o);
    EXCEPTION WHEN unique_violation THEN
        RAISE EXCEPTION 'a player of the roster was queued at the same time'
            USING ERRCODE = 'unique_violation', HINT = 'Another session queued one of these players; see mm.queued_player.';
    END;
    INSERT INTO mm.ticket_event (roster_id, player_id, status, at, queue_id)
    SELECT id, u.x, 'waiting', joined_at, q.queue_id FROM unnest(players) AS u(x);
    -- on Citus the key above holds per queue: hold the players cluster-wide
    IF distributed THEN
        PERFORM mm._hold_players(q.queue_id, id, players);
    END IF;
    RETURN id;
END
$$;

CREATE OR REPLACE FUNCTION mm.ticket_status(player_id bigint)
RETURNS TABLE (status text, queue text, roster_id bigint, since timestamptz, match_id bigint,
               match_status text, reason text)
LANGUAGE sql STABLE STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
    SELECT x.status, q.name, x.roster_id, coalesce(x.since, m.created_at), x.match_id, m.status, x.reason
    FROM (
        SELECT 'waiting'::text AS status, r.queue_id, r.roster_id, r.joined_at AS since,
               NULL::bigint AS match_id, NULL::text AS reason, 0 AS pri
        FROM mm.queued_player qp JOIN mm.roster r ON r.roster_id = qp.roster_id
        WHERE qp.player_id = ticket_status.player_id
        UNION ALL
        -- its last event: how its ticket ended; or, when that is the
        -- waiting of a roster now gone without an event, the match the
        -- roster went to (a tick records it in mm.match_roster only)
        SELECT coalesce(e.end_status, 'matched'), e.queue_id, e.roster_id, e.since,
               coalesce(e.match_id, mr.match_id), e.reason, 1
        FROM (SELECT NULLIF(e.status, 'waiting') AS end_status, e.queue_id, e.roster_id, e.player_id,
                     CASE WHEN e.status <> 'waiting' THEN e.at END AS since, e.match_id, e.reason
              FROM mm.ticket_event e WHERE e.player_id = ticket_status.player_id
              ORDER BY e.event_id DESC LIMIT 1) e
        LEFT JOIN mm.match_roster mr ON e.end_status IS NULL AND mr.queue_id = e.queue_id AND mr.roster_id = e.roster_id
                                        AND e.player_id = ANY (mr.players)
        WHERE e.end_status IS NOT NULL OR mr.roster_id IS NOT NULL
    ) x
    JOIN mm.queue q ON q.queue_id = x.queue_id
    LEFT JOIN mm.match m ON m.match_id = x.match_id
    ORDER BY x.pri LIMIT 1
$$;

CREATE OR REPLACE FUNCTION mm.roster_status(roster_id bigint)
RETURNS TABLE (status text, at timestamptz, players bigint[], match_id bigint, reason text)
LANGUAGE sql STABLE STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
    SELECT x.status, x.at, x.players, x.match_id, x.reason
    FROM (
        SELECT e.status, e.at, array_agg(e.player_id ORDER BY e.player_id) AS players,
               e.match_id, e.reason, min(e.event_id) AS seq
        FROM mm.ticket_event e
        WHERE e.roster_id = roster_status.roster_id
        GROUP BY e.status, e.at, e.match_id, e.reason
        UNION ALL
        -- matched by a tick: its row of mm.match_roster is the event (a
        -- match whose events are written, a ready check's or a
        -- backfill's, has its own rows above); always the roster's last
        SELECT 'matched', m.created_at, ARRAY(SELECT u.p FROM unnest(mr.players) AS u(p) ORDER BY u.p),
               mr.match_id, NULL, NULL
        FROM mm.match_roster mr JOIN mm.match m ON m.queue_id = mr.queue_id AND m.match_id = mr.match_id
        WHERE mr.roster_id = roster_status.roster_id
          AND NOT EXISTS (SELECT FROM mm.ticket_event e
                          WHERE e.queue_id = mr.queue_id AND e.roster_id = mr.roster_id AND e.match_id = mr.match_id)
    ) x
    ORDER BY x.seq NULLS LAST
$$;

CREATE OR REPLACE FUNCTION mm.purge(older_than interval, max_rows int DEFAULT 10000)
RETURNS bigint
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    cutoff timestamptz;
    left_rows int := max_rows;
    n int;
    total bigint := 0;
BEGIN
    IF older_than IS NULL OR NOT isfinite(now() - older_than) OR older_than < interval '0' THEN
        RAISE EXCEPTION 'older_than must be a finite interval that is not negative'
            USING ERRCODE = 'invalid_parameter_value', HINT = 'Such as ''30 days''.';
    END IF;
    IF max_rows IS NULL OR max_rows < 1 THEN
        RAISE EXCEPTION 'max_rows must be at least 1'
            USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The value is %s.', max_rows);
    END IF;
    cutoff := now() - older_than;
    -- the tick log
    DELETE FROM mm.tick_log l WHERE l.tick_id IN
        (SELECT x.tick_id FROM mm.tick_log x WHERE x.at < cutoff ORDER BY x.at LIMIT left_rows);
    GET DIAGNOSTICS n = ROW_COUNT;
    total := total + n; left_rows := left_rows - n;
    -- ticket history of rosters that are not waiting
    IF left_rows > 0 THEN
        DELETE FROM mm.ticket_event e WHERE e.event_id IN
            (SELECT x.event_id FROM mm.ticket_event x
             WHERE x.at < cutoff AND NOT EXISTS (SELECT FROM mm.roster r WHERE r.roster_id = x.roster_id)
               -- a matched roster's waiting events stay with its match
               AND NOT EXISTS (SELECT FROM mm.match_roster mr WHERE mr.roster_id = x.roster_id)
             ORDER BY x.event_id LIMIT left_rows);
        GET DIAGNOSTICS n = ROW_COUNT;
        total := total + n; left_rows := left_rows - n;
    END IF;
    -- matches that are finished or delivered, or of a dropped queue (nobody
    -- can claim those any more), with their rosters
    IF left_rows > 0 THEN
        DELETE FROM mm.match m WHERE m.match_id IN
            (SELECT x.match_id FROM mm.match x
             WHERE x.created_at < cutoff
               AND (x.status IN ('finished', 'dissolved') OR x.delivered_at IS NOT NULL
                    OR EXISTS (SELECT FROM mm.queue q WHERE q.queue_id = x.queue_id AND q.dropped_at IS NOT NULL))
             ORDER BY x.match_id LIMIT left_rows);
        GET DIAGNOSTICS n = ROW_COUNT;
        total := total + n; left_rows := left_rows - n;
    END IF;
    -- dropped queues whose history is all gone
    IF left_rows > 0 THEN
        DELETE FROM mm.queue q
        WHERE q.dropped_at < cutoff
          AND NOT EXISTS (SELECT FROM mm.match m WHERE m.queue_id = q.queue_id)
          AND NOT EXISTS (SELECT FROM mm.tick_log l WHERE l.queue_id = q.queue_id)
          AND NOT EXISTS (SELECT FROM mm.ticket_event e WHERE e.queue_id = q.queue_id);
        GET DIAGNOSTICS n = ROW_COUNT;
        total := total + n;
    END IF;
    RETURN total;
END
$$;

CREATE OR REPLACE FUNCTION mm._hold_players(queue_id int, roster_id bigint, players bigint[])
RETURNS void
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    p bigint;
    w mm.waiting_player;
BEGIN
    FOR p IN SELECT x FROM unnest(players) x ORDER BY x LOOP
        INSERT INTO mm.waiting_player (player_id, queue_id, roster_id)
        VALUES (p, _hold_players.queue_id, _hold_players.roster_id)
        ON CONFLICT (player_id) DO NOTHING;
        CONTINUE WHEN FOUND;
        SELECT * INTO w FROM mm.waiting_player wp WHERE wp.player_id = p FOR UPDATE;
        IF EXISTS (SELECT FROM mm.queued_player qp
                   WHERE qp.queue_id = w.queue_id AND qp.roster_id = w.roster_id AND qp.player_id = p)
           OR (NOT EXISTS (SELECT FROM mm.ticket_event e
                           WHERE e.queue_id = w.queue_id AND e.roster_id = w.roster_id AND e.player_id = p
                             AND e.status <> 'waiting')
               AND NOT EXISTS (SELECT FROM mm.match_roster mr
                               WHERE mr.queue_id = w.queue_id AND mr.roster_id = w.roster_id)
               AND (w.since > now() - interval '10 minutes'
                    OR EXISTS (SELECT FROM mm.ticket_event e
                               WHERE e.queue_id = w.queue_id AND e.roster_id = w.roster_id AND e.player_id = p)))
        THEN
            RAISE EXCEPTION 'player % is already queued', p
                USING ERRCODE = 'unique_violation',
                      DETAIL = format('The player is in waiting roster %s of queue %s.', w.roster_id, w.queue_id),
                      HINT = format('Call mm.leave(%s) first.', w.roster_id);
        END IF;
        UPDATE mm.waiting_player wp
        SET queue_id = _hold_players.queue_id, roster_id = _hold_players.roster_id, since = now()
        WHERE wp.player_id = p;
    END LOOP;
END
$$;

-- ==== a roster's players found by queue and roster ====
-- mm.leave, mm.leave_player, mm.remove_player, mm.update_roster and the
-- tick's expiry found a roster's players by roster id alone, which no
-- index leads with: a scan of every queue's players per call (33 ms per
-- mm.leave beside 130k waiting rosters). They find them by their key,
-- queue and roster, now.
CREATE OR REPLACE FUNCTION mm._end_rosters(roster_ids bigint[], status text, reason text, skip_locked boolean,
                                at timestamptz DEFAULT now())
RETURNS SETOF bigint
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    ids bigint[];
    queues int[];
BEGIN
    IF skip_locked THEN
        ids := ARRAY(SELECT r.roster_id FROM mm.roster r
                     WHERE r.roster_id = ANY (roster_ids) FOR UPDATE SKIP LOCKED);
    ELSE
        ids := roster_ids;
    END IF;
    -- their queues, so that the players are found by their key (queue,
    -- roster), not by a scan of every queue's players
    queues := ARRAY(SELECT DISTINCT r.queue_id FROM mm.roster r WHERE r.roster_id = ANY (ids));
    -- the players first: Citus runs each part of this statement on its own,
    -- and deleting the rosters first would cascade to the players before
    -- they are recorded
    RETURN QUERY
    WITH p AS (
        DELETE FROM mm.queued_player qp WHERE qp.queue_id = ANY (queues) AND qp.roster_id = ANY (ids)
        RETURNING qp.queue_id, qp.roster_id, qp.player_id
    ), r AS (
        DELETE FROM mm.roster r WHERE r.roster_id = ANY (ids) RETURNING r.queue_id, r.roster_id
    ), e AS (
        INSERT INTO mm.ticket_event (roster_id, player_id, status, at, queue_id, reason)
        SELECT p.roster_id, p.player_id, _end_rosters.status, _end_rosters.at, p.queue_id, _end_rosters.reason FROM p
    )
    SELECT r.roster_id FROM r;
END
$$;

CREATE OR REPLACE FUNCTION mm.remove_player(roster_id bigint, player_id bigint)
RETURNS boolean
LANGUAGE plpgsql STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    q int;
    others int;
BEGIN
    -- lock the roster: a tick that chose it drops that match, or has made
    -- it and we find the roster gone
    SELECT r.queue_id INTO q FROM mm.roster r WHERE r.roster_id = remove_player.roster_id FOR UPDATE;
    IF NOT FOUND OR NOT EXISTS (SELECT FROM mm.queued_player qp
                                WHERE qp.roster_id = remove_player.roster_id
                                  AND qp.player_id = remove_player.player_id) THEN
        RETURN false;
    END IF;
    SELECT count(*) - 1 INTO others FROM mm.queued_player qp
    WHERE qp.queue_id = q AND qp.roster_id = remove_player.roster_id;
    IF others = 0 THEN
        PERFORM mm._end_rosters(ARRAY[roster_id], 'removed', 'remove_player', false);
        RETURN true;
    END IF;
    DELETE FROM mm.queued_player qp
    WHERE qp.roster_id = remove_player.roster_id AND qp.player_id = remove_player.player_id;
    INSERT INTO mm.ticket_event (roster_id, player_id, status, at, queue_id, reason)
    VALUES (roster_id, player_id, 'removed', now(), q, 'remove_player');
    RETURN true;
END
$$;

CREATE OR REPLACE FUNCTION mm.update_roster(roster_id bigint, rating float8 DEFAULT NULL, deviation float8 DEFAULT NULL,
                                 rank float8 DEFAULT NULL, ladder_points float8 DEFAULT NULL,
                                 dishonor int DEFAULT NULL, professions text[] DEFAULT NULL)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    n int;
    q int;
BEGIN
    IF roster_id IS NULL THEN
        RAISE EXCEPTION 'roster_id must not be null' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    -- lock the roster first: its players cannot change meanwhile (they are
    -- found by their key, queue and roster)
    SELECT r.queue_id INTO q FROM mm.roster r WHERE r.roster_id = update_roster.roster_id FOR UPDATE;
    SELECT count(*) INTO n FROM mm.queued_player qp
    WHERE qp.queue_id = q AND qp.roster_id = update_roster.roster_id;
    PERFORM mm._check_roster(rating, deviation, rank, ladder_points, dishonor, professions, n);
    UPDATE mm.roster r
    SET rating = coalesce(update_roster.rating, r.rating),
        deviation = coalesce(update_roster.deviation, r.deviation),
        rank = coalesce(update_roster.rank, r.rank),
        ladder_points = coalesce(update_roster.ladder_points, r.ladder_points),
        dishonor = coalesce(update_roster.dishonor, r.dishonor)
    WHERE r.roster_id = update_roster.roster_id;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    IF professions IS NOT NULL THEN
        UPDATE mm.queued_player qp SET profession = professions[qp.seat]
        WHERE qp.queue_id = q AND qp.roster_id = update_roster.roster_id;
    END IF;
    RETURN true;
END
$$;

-- ==== place configs stored complete ====

-- A place config is stored as mm.place_config returns it, like queue and
-- pool configs: every key, each signal with every key its kind takes,
-- numbers in their shortest round-trip form. Stored configs are rewritten
-- so (they mean the same).
CREATE FUNCTION mm.place_config(config jsonb)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'mm_place_config'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mm.place_config(jsonb) IS
    'a place configuration checked and complete, as mm.set_place_config stores it: every key, each signal given with its kind and every key its kind takes (defaults written out), numbers in their shortest round-trip form';

CREATE OR REPLACE FUNCTION mm.set_place_config(place text, config jsonb)
RETURNS void
LANGUAGE sql VOLATILE STRICT
SET search_path = mm, pg_catalog, pg_temp
AS $$
INSERT INTO mm.place_configs (place, config)
VALUES (set_place_config.place, mm.place_config(set_place_config.config))
ON CONFLICT ON CONSTRAINT place_configs_pkey DO UPDATE SET config = EXCLUDED.config
$$;
COMMENT ON FUNCTION mm.set_place_config(text, jsonb) IS
    'set the matchmaking configuration of a place, the whole config (validated, errors say what is wrong; stored complete, as mm.place_config returns it)';

COMMENT ON TABLE mm.place_configs IS
    'matchmaking configuration per place: {"voice_chat": bool, "include_defaults": bool, "signals": {name: {kind, weight, ...}}}, complete, as mm.place_config returns it; places without a row use the Roblox default configuration';

UPDATE mm.place_configs c SET config = mm.place_config(c.config)
WHERE c.config IS DISTINCT FROM mm.place_config(c.config);

-- ==== deployable by a DBA: volatility, versions, privileges ====

-- glicko2_rate: tau defaults to NULL, the policy's volatility.system_constant
-- (0.5 without a policy), so that a policy's system_constant no longer
-- conflicts with a default tau. The C function reads the NULL.
CREATE OR REPLACE FUNCTION mm.glicko2_rate(player mm.glicko, opp_rating float8[], opp_rd float8[],
                                score float8[], tau float8 DEFAULT NULL, policy jsonb DEFAULT NULL)
RETURNS mm.glicko
AS 'MODULE_PATHNAME', 'mm_glicko2_rate'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION mm.glicko2_rate(mm.glicko, float8[], float8[], float8[], float8, jsonb) IS
    'rate one Glicko-2 rating period (Glickman steps 1-8); empty arrays are a period without games; tau NULL is the policy''s system_constant (0.5 without one); a policy adds GW2 clamps and max change';

-- Privileges: the list of every object with the roles that may use it, the
-- function that applies it to PUBLIC and SECURITY DEFINER, and the admin
-- step that grants the roles (see sql/parts/90_privileges.sql). This section
-- stays the last of the script: SELECT mm._apply_privileges() casts every
-- row to its object, so it runs after every other section has created its
-- objects, and after every CREATE OR REPLACE (which resets SECURITY
-- DEFINER). An object another section adds or renames needs its row here
-- (the same row as in sql/parts/90_privileges.sql).

CREATE TABLE mm.privileges (
    object  text PRIMARY KEY,
    kind    text NOT NULL CHECK (kind IN ('function', 'relation')),
    roles   text[] NOT NULL DEFAULT '{}'
            CHECK (roles <@ ARRAY['public', 'service', 'admin', 'analyst']
                   AND array_position(roles, NULL) IS NULL),
    definer boolean NOT NULL DEFAULT false,
    CHECK (NOT definer OR kind = 'function'),
    CHECK (NOT definer OR NOT 'public' = ANY (roles)),
    CHECK (kind = 'function' OR NOT 'public' = ANY (roles))
);
COMMENT ON TABLE mm.privileges IS
    'every function, table, view and sequence of schema mm with the roles that may use it (public, service, admin, analyst; empty: internal) and whether it runs with the owner''s rights; applied by mm._apply_privileges and mm.grant_roles';

CREATE FUNCTION mm._apply_privileges()
RETURNS void
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    r mm.privileges;
BEGIN
    EXECUTE 'GRANT USAGE ON SCHEMA mm TO PUBLIC';
    EXECUTE 'REVOKE ALL ON ALL ROUTINES IN SCHEMA mm FROM PUBLIC';
    FOR r IN SELECT * FROM mm.privileges p WHERE p.kind = 'function' ORDER BY p.object LOOP
        IF 'public' = ANY (r.roles) THEN
            EXECUTE format('GRANT EXECUTE ON ROUTINE %s TO PUBLIC', r.object::regprocedure);
        END IF;
        IF r.definer THEN
            EXECUTE format('ALTER ROUTINE %s SECURITY DEFINER SET search_path = mm, pg_catalog, pg_temp',
                           r.object::regprocedure);
        END IF;
    END LOOP;
END
$$;
COMMENT ON FUNCTION mm._apply_privileges() IS
    'internal (install and upgrade scripts): grant PUBLIC what mm.privileges marks public, make its definer functions SECURITY DEFINER with search_path pinned';

CREATE FUNCTION mm.grant_roles(service name DEFAULT 'mm_service', admin name DEFAULT 'mm_admin',
                               analyst name DEFAULT 'mm_analyst')
RETURNS TABLE (role name, created boolean, functions int, relations int)
LANGUAGE plpgsql
SET search_path = mm, pg_catalog, pg_temp
AS $$
DECLARE
    kinds text[] := ARRAY['service', 'admin', 'analyst'];
    names name[] := ARRAY[service, admin, analyst];
    r mm.privileges;
BEGIN
    IF service IS NULL OR admin IS NULL OR analyst IS NULL THEN
        RAISE EXCEPTION 'role names must not be null'
            USING ERRCODE = 'null_value_not_allowed', HINT = 'Leave an argument out for its default name.';
    END IF;
    IF service = admin OR service = analyst OR admin = analyst THEN
        RAISE EXCEPTION 'the three roles must have different names'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('service %s, admin %s, analyst %s.', service, admin, analyst);
    END IF;
    FOR i IN 1 .. 3 LOOP
        grant_roles.role := names[i];
        grant_roles.created := NOT EXISTS (SELECT FROM pg_catalog.pg_roles x WHERE x.rolname = names[i]);
        IF grant_roles.created THEN
            EXECUTE format('CREATE ROLE %I NOLOGIN', names[i]);
            EXECUTE format('COMMENT ON ROLE %I IS %L', names[i],
                           format('mm %s role (mm.grant_roles): grant it to login roles', kinds[i]));
        END IF;
        -- start from nothing, so that a second run leaves exactly the list
        EXECUTE format('REVOKE ALL ON ALL ROUTINES IN SCHEMA mm FROM %I', names[i]);
        EXECUTE format('REVOKE ALL ON ALL TABLES IN SCHEMA mm FROM %I', names[i]);
        EXECUTE format('REVOKE ALL ON ALL SEQUENCES IN SCHEMA mm FROM %I', names[i]);
        EXECUTE format('GRANT USAGE ON SCHEMA mm TO %I', names[i]);
        grant_roles.functions := 0;
        grant_roles.relations := 0;
        FOR r IN SELECT * FROM mm.privileges p WHERE kinds[i] = ANY (p.roles) ORDER BY p.object LOOP
            IF r.kind = 'function' THEN
                EXECUTE format('GRANT EXECUTE ON ROUTINE %s TO %I', r.object::regprocedure, names[i]);
                grant_roles.functions := grant_roles.functions + 1;
            ELSE
                EXECUTE format('GRANT SELECT ON %s TO %I', r.object::regclass, names[i]);
                grant_roles.relations := grant_roles.relations + 1;
            END IF;
        END LOOP;
        RETURN NEXT;
    END LOOP;
END
$$;
COMMENT ON FUNCTION mm.grant_roles(name, name, name) IS
    'the documented admin step: create the service, admin and analyst roles (NOLOGIN) when missing and grant each exactly what mm.privileges lists; idempotent; run it again after ALTER EXTENSION mm UPDATE';

-- The list. Functions by signature, relations by name.
INSERT INTO mm.privileges (object, kind, roles, definer) VALUES
-- musigma and OpenSkill: pure
('mm.ordinal(float8, float8, float8)', 'function', '{public}', false),
('mm.openskill_rate(int[], float8[], float8[], float8[], text, float8, float8, float8, boolean, float8[], float8, float8, float8, boolean, float8, float8[], float8)', 'function', '{public}', false),
('mm.openskill_predict_win(int[], float8[], float8[], float8)', 'function', '{public}', false),
('mm.openskill_predict_draw(int[], float8[], float8[], float8)', 'function', '{public}', false),
('mm.openskill_predict_rank(int[], float8[], float8[], float8)', 'function', '{public}', false),
('mm.normal_quantile(float8)', 'function', '{public}', false),
('mm.rate(jsonb)', 'function', '{public}', false),
('mm.ims_rate(jsonb)', 'function', '{public}', false),
('mm.party_rating(float8[], float8[], float8, float8, float8)', 'function', '{public}', false),
('mm.party_rating_agg(float8, float8, float8, float8, float8)', 'function', '{public}', false),
('mm.party_rating_agg(float8, float8)', 'function', '{public}', false),
('mm.musigma_beta(interval, float8, int, interval)', 'function', '{public}', false),
('mm.musigma_data_point(float8[], float8, float8, float8)', 'function', '{public}', false),
-- replays run the caller's query with the caller's rights
('mm.replay_openskill(text, text, text, float8, float8, float8, boolean, float8, float8, float8, float8, float8, boolean, float8)', 'function', '{admin,analyst}', false),
-- Glicko-2: pure
('mm.glicko2_rate(mm.glicko, float8[], float8[], float8[], float8, jsonb)', 'function', '{public}', false),
('mm.glicko2_idle(mm.glicko, float8, jsonb)', 'function', '{public}', false),
('mm.glicko2_expect(float8, float8, float8, float8)', 'function', '{public}', false),
('mm.glicko2_effective(mm.glicko)', 'function', '{public}', false),
('mm.glicko2_policy(jsonb)', 'function', '{public}', false),
('mm.glicko2_rating_at(mm.glicko, timestamptz, timestamptz, jsonb)', 'function', '{public}', false),
('mm.glicko2_blend(mm.glicko, mm.glicko, jsonb)', 'function', '{public}', false),
('mm.glicko2_period_step(float8[], float8, float8, float8, float8, float8, float8)', 'function', '{public}', false),
('mm.glicko2_period_step(float8[], float8, float8, float8, float8, float8, float8, float8)', 'function', '{public}', false),
('mm.glicko2_period_combine(float8[], float8[])', 'function', '{public}', false),
('mm.glicko2_period_final(float8[])', 'function', '{public}', false),
('mm.glicko2_period(float8, float8, float8, float8, float8, float8)', 'function', '{public}', false),
('mm.glicko2_period(float8, float8, float8, float8, float8, float8, float8)', 'function', '{public}', false),
('mm.glicko2_replay(text, interval, float8, jsonb, boolean)', 'function', '{admin,analyst}', false),
-- signals and server scoring: pure
('mm.numeric_signal(float8, float8, float8)', 'function', '{public}', false),
('mm.ratio_signal(float8, float8)', 'function', '{public}', false),
('mm.age_signal(float8, float8, float8)', 'function', '{public}', false),
('mm.latency_signal(float8, float8)', 'function', '{public}', false),
('mm.occupancy_signal(int, int)', 'function', '{public}', false),
('mm.play_history_signal(float8, float8, float8)', 'function', '{public}', false),
('mm.friends_signal(bigint)', 'function', '{public}', false),
('mm.categorical_signal(anyelement, anyelement)', 'function', '{public}', false),
('mm.share_accum(float8[], anyelement, anyelement)', 'function', '{public}', false),
('mm.share_combine(float8[], float8[])', 'function', '{public}', false),
('mm.share_final(float8[])', 'function', '{public}', false),
('mm.share(anyelement, anyelement)', 'function', '{public}', false),
('mm.weighted_score_accum(float8[], float8, float8)', 'function', '{public}', false),
('mm.weighted_score_combine(float8[], float8[])', 'function', '{public}', false),
('mm.weighted_score_final(float8[])', 'function', '{public}', false),
('mm.weighted_score(float8, float8)', 'function', '{public}', false),
('mm.check_place_config(jsonb)', 'function', '{public}', false),
('mm.place_config(jsonb)', 'function', '{public}', false),
('mm.server_breakdown(text[], float8[])', 'function', '{public}', false),
-- placement: servers come and go with the fleet (service); configs are admin's
('mm.refresh_servers(bigint[])', 'function', '{service,admin}', true),
('mm.refresh_servers(text)', 'function', '{service,admin}', true),
('mm.add_server(text, int, jsonb)', 'function', '{service,admin}', true),
('mm.set_place_config(text, jsonb)', 'function', '{admin}', true),
('mm.rank_servers(text, jsonb, bigint[])', 'function', '{service,admin,analyst}', true),
('mm.place_player(bigint, bigint, jsonb)', 'function', '{service,admin}', true),
('mm.join_server(text, bigint, jsonb, bigint[])', 'function', '{service,admin}', true),
('mm.leave_server(bigint)', 'function', '{service,admin}', true),
('mm.get_server_attribute(bigint, text)', 'function', '{service,admin,analyst}', true),
('mm.set_server_attribute(bigint, text, jsonb)', 'function', '{service,admin}', true),
-- dishonor
('mm.dishonor_config_resolve(jsonb)', 'function', '{public}', false),
('mm.dishonor_config_defaults()', 'function', '{public}', false),
('mm.dishonor_config()', 'function', '{service,admin,analyst}', true),
('mm.set_dishonor_config(jsonb)', 'function', '{admin}', true),
('mm.dishonor_timeout(int, jsonb)', 'function', '{public}', false),
('mm.dishonor_decay(int, interval, jsonb)', 'function', '{public}', false),
('mm.dishonor_penalty(text, jsonb)', 'function', '{public}', false),
('mm.dishonor_apply(int, timestamptz, timestamptz, text, timestamptz, jsonb)', 'function', '{public}', false),
('mm.dishonor_current(int, timestamptz, timestamptz, jsonb)', 'function', '{public}', false),
('mm.dishonor(bigint, text, timestamptz)', 'function', '{service,admin}', true),
('mm.dishonor_statuses(bigint[], timestamptz)', 'function', '{service,admin,analyst}', true),
('mm.dishonor_status(bigint, timestamptz)', 'function', '{service,admin,analyst}', true),
('mm.dishonor_clear(bigint)', 'function', '{admin}', true),
-- GW2 prediction and ladder: pure
('mm.prediction_config_defaults()', 'function', '{public}', false),
('mm.match_prediction_teams(float8, float8, float8, float8, float8, float8, jsonb)', 'function', '{public}', false),
('mm.match_prediction(text[], float8[], float8[], float8[], int[], jsonb)', 'function', '{public}', false),
('mm.odds_of_victory(float8, text)', 'function', '{public}', false),
('mm.ladder_config_resolve(jsonb)', 'function', '{public}', false),
('mm.ladder_config_defaults()', 'function', '{public}', false),
('mm.ladder_points(float8, float8, text, jsonb, timestamptz)', 'function', '{public}', false),
('mm.ladder_apply(int, int, jsonb)', 'function', '{public}', false),
-- roster matcher
('mm.matcher_config(jsonb)', 'function', '{public}', false),
('mm.config_keys(text)', 'function', '{public}', false),
('mm.matcher_padding(jsonb, float8)', 'function', '{public}', false),
('mm.match_rosters(text, jsonb, timestamptz)', 'function', '{service,admin,analyst}', false),
('mm._match_rosters(text, jsonb, timestamptz, boolean)', 'function', '{}', false),
('mm.create_queue(text, jsonb)', 'function', '{admin}', true),
('mm._queue(text)', 'function', '{}', false),
('mm._check_roster(float8, float8, float8, float8, int, text[], int)', 'function', '{}', false),
('mm.enqueue(text, bigint[], float8, float8, float8, float8, int, text[], timestamptz)', 'function', '{service,admin}', true),
('mm.leave(bigint)', 'function', '{service,admin}', true),
('mm.report_result(bigint, jsonb)', 'function', '{service,admin}', true),
('mm.abandon_match(bigint)', 'function', '{service,admin}', true),
('mm.close_rating_period(text, timestamptz)', 'function', '{service,admin}', true),
('mm._glicko_now(mm.ratings, timestamptz)', 'function', '{public}', false),
('mm.roster_rating(jsonb, bigint[], timestamptz, text[])', 'function', '{service,admin,analyst}', true),
('mm.update_roster(bigint, float8, float8, float8, float8, int, text[])', 'function', '{service,admin}', true),
('mm.list_queue(text, timestamptz)', 'function', '{service,admin,analyst}', true),
('mm.tick(text, timestamptz)', 'function', '{service,admin}', true),
('mm.preview(text, timestamptz)', 'function', '{service,admin,analyst}', true),
-- a procedure that commits cannot be SECURITY DEFINER: it calls mm.tick
('mm.run_ticks(text, interval, interval)', 'function', '{service,admin}', false),
-- async opponents
('mm.async_config(jsonb)', 'function', '{public}', false),
('mm.async_bucket(jsonb, float8)', 'function', '{public}', false),
('mm.async_bucket_bounds(jsonb, int, int)', 'function', '{public}', false),
('mm.async_search(jsonb, float8, int)', 'function', '{public}', false),
('mm.async_labels(text[])', 'function', '{public}', false),
('mm.async_pool_config(text)', 'function', '{}', false),
('mm.async_capacity(text, text[], int, jsonb)', 'function', '{}', false),
('mm.async_check_ids(bigint[], text)', 'function', '{}', false),
('mm.async_check_query(float8, text[], int)', 'function', '{}', false),
('mm.create_pool(text, jsonb)', 'function', '{admin}', true),
('mm.alter_pool(text, jsonb, boolean)', 'function', '{admin}', true),
('mm.drop_pool(text)', 'function', '{admin}', true),
('mm.pool_buckets(text)', 'function', '{service,admin,analyst}', true),
('mm.put_entry(text, bigint, float8, text[], jsonb)', 'function', '{service,admin}', true),
('mm.remove_entry(bigint)', 'function', '{service,admin}', true),
('mm.remove_player(text, bigint)', 'function', '{service,admin}', true),
('mm.offer_entry(bigint)', 'function', '{service,admin}', true),
('mm.async_query(text, float8, text[], int, bigint[], bigint)', 'function', '{}', false),
('mm.find_opponent(text, float8, text[], int, bigint[], bigint)', 'function', '{service,admin}', true),
('mm.async_candidates(text, float8, text[], int, bigint[], bigint, int)', 'function', '{}', false),
('mm.find_candidates(text, float8, text[], int, bigint[], bigint, int)', 'function', '{service,admin,analyst}', true),
('mm.rebalance_pool(text)', 'function', '{admin}', true),
-- privileges
('mm._apply_privileges()', 'function', '{}', false),
('mm.grant_roles(name, name, name)', 'function', '{}', false),
-- tables and views: analysts and admins read them; nobody writes them but
-- through functions. The service role reads mm.queue, the list of queues
-- and their configs, which mm.run_ticks (a procedure that commits, so it
-- runs with the caller's rights) reads to find the queues to tick.
('mm.place_configs', 'relation', '{admin,analyst}', false),
('mm.servers', 'relation', '{admin,analyst}', false),
('mm.server_players', 'relation', '{admin,analyst}', false),
('mm.dishonor_settings', 'relation', '{admin,analyst}', false),
('mm.dishonor_players', 'relation', '{admin,analyst}', false),
('mm.queue', 'relation', '{service,admin,analyst}', false),
('mm.roster', 'relation', '{admin,analyst}', false),
('mm.queued_player', 'relation', '{admin,analyst}', false),
('mm.match', 'relation', '{admin,analyst}', false),
('mm.match_roster', 'relation', '{admin,analyst}', false),
('mm.ratings', 'relation', '{admin,analyst}', false),
('mm.match_result', 'relation', '{admin,analyst}', false),
('mm.match_result_player', 'relation', '{admin,analyst}', false),
('mm.rating_period_game', 'relation', '{admin,analyst}', false),
('mm.leaderboard', 'relation', '{service,admin,analyst}', false),
('mm.tick_log', 'relation', '{admin,analyst}', false),
('mm.queue_stats', 'relation', '{admin,analyst}', false),
('mm.async_pools', 'relation', '{admin,analyst}', false),
('mm.async_entries', 'relation', '{admin,analyst}', false),
('mm.async_bucket_sizes', 'relation', '{admin,analyst}', false),
('mm.privileges', 'relation', '{admin,analyst}', false),
-- sequences: only the functions that insert use them
('mm.server_id_seq', 'relation', '{}', false),
('mm.queue_id_seq', 'relation', '{}', false),
('mm.roster_id_seq', 'relation', '{}', false),
('mm.roster_position_seq', 'relation', '{}', false),
('mm.match_id_seq', 'relation', '{}', false),
('mm.tick_id_seq', 'relation', '{}', false),
-- rows added with the queue engine, the async pool, placement and analytics
('mm.party_rating_accum(internal, float8, float8, float8, float8, float8)', 'function', '{public}', false),
('mm.party_rating_accum(internal, float8, float8)', 'function', '{public}', false),
('mm.party_rating_combine(internal, internal)', 'function', '{public}', false),
('mm.party_rating_final(internal)', 'function', '{public}', false),
('mm.party_rating_serialize(internal)', 'function', '{public}', false),
('mm.party_rating_deserialize(bytea, internal)', 'function', '{public}', false),
('mm._end_rosters(bigint[], text, text, boolean, timestamptz)', 'function', '{}', false),
('mm._jsonb_merge(jsonb, jsonb)', 'function', '{}', false),
('mm._rosters(int)', 'function', '{}', false),
('mm.alter_queue(text, jsonb, boolean)', 'function', '{admin}', true),
('mm.drop_queue(text, boolean)', 'function', '{admin}', true),
('mm.purge(interval, int)', 'function', '{admin}', true),
('mm.claim_matches(text, int)', 'function', '{service,admin}', true),
('mm.request_backfill(bigint, text, int)', 'function', '{service,admin}', true),
('mm.cancel_backfill(bigint)', 'function', '{service,admin}', true),
('mm.backfill', 'relation', '{admin,analyst}', false),
('mm.backfill_id_seq', 'relation', '{}', false),
('mm.leave_player(bigint)', 'function', '{service,admin}', true),
('mm.remove_player(bigint, bigint)', 'function', '{service,admin}', true),
('mm.explain(bigint, timestamptz)', 'function', '{service,admin,analyst}', true),
('mm.ticket_status(bigint)', 'function', '{service,admin,analyst}', true),
('mm.roster_status(bigint)', 'function', '{service,admin,analyst}', true),
('mm.queue_channel(text)', 'function', '{service,admin,analyst}', true),
('mm._dissolve_match(bigint, bigint[], text, timestamptz)', 'function', '{}', false),
('mm._resolve_proposals(int, timestamptz)', 'function', '{}', false),
('mm._ready_match(bigint, bigint)', 'function', '{}', false),
('mm.accept(bigint, bigint)', 'function', '{service,admin}', true),
('mm.decline(bigint, bigint)', 'function', '{service,admin}', true),
('mm.match_accept', 'relation', '{admin,analyst}', false),
('mm.async_fill(text, text[], float8, float8, int)', 'function', '{}', false),
('mm.join_party(text, bigint[], jsonb[], bigint[])', 'function', '{service,admin}', true),
('mm.set_player_attributes(bigint, jsonb)', 'function', '{service,admin}', true),
('mm.remove_server(bigint)', 'function', '{service,admin}', true),
('mm.place_signals(text)', 'function', '{service,admin,analyst}', true),
('mm.server_breakdown_weighted(text, text[], float8[])', 'function', '{service,admin,analyst}', true),
('mm.calibration(float8, float8)', 'function', '{public}', false),
('mm.calibration(float8, float8, int)', 'function', '{public}', false),
('mm.calibration_step(float8[], float8, float8)', 'function', '{public}', false),
('mm.calibration_step(float8[], float8, float8, int)', 'function', '{public}', false),
('mm.calibration_combine(float8[], float8[])', 'function', '{public}', false),
('mm.calibration_final(float8[])', 'function', '{public}', false),
('mm.reliability(jsonb)', 'function', '{public}', false),
('mm.ims_beta(float8, boolean)', 'function', '{public}', false),
('mm.ims_beta_step(float8[], float8, boolean)', 'function', '{public}', false),
('mm.ims_beta_combine(float8[], float8[])', 'function', '{public}', false),
('mm.ims_beta_final(float8[])', 'function', '{public}', false),
('mm.openskill_history(text, text, text, float8, float8, float8, boolean, float8, float8, float8, float8, float8, boolean, float8)', 'function', '{admin,analyst}', false),
('mm.openskill_calibration(text, text, text, float8, float8, float8, boolean, float8, float8, float8, float8, float8, boolean, float8, int)', 'function', '{admin,analyst}', false),
('mm.openskill_fit(text, text, float8[], float8, float8, int, text, text)', 'function', '{admin,analyst}', false),
('mm.glicko2_history(text, interval, float8, jsonb, boolean)', 'function', '{admin,analyst}', false),
('mm.glicko2_calibration(text, interval, float8, jsonb, boolean, int, float8)', 'function', '{admin,analyst}', false),
('mm.glicko2_fit(text, text, float8[], float8, float8, int, interval, boolean)', 'function', '{admin,analyst}', false),
('mm.glicko2_team_replay(text, interval, float8, jsonb, boolean, text)', 'function', '{admin,analyst}', false),
('mm.async_samples', 'relation', '{admin,analyst}', false),
('mm.async_samples_sample_id_seq', 'relation', '{}', false),
('mm.ticket_event', 'relation', '{admin,analyst}', false),
('mm.ticket_event_id_seq', 'relation', '{}', false),
('mm._require_primary(text)', 'function', '{}', false),
('mm.waiting_player', 'relation', '{admin,analyst}', false),
('mm._queues_distributed()', 'function', '{}', false),
('mm._queue_name(int)', 'function', '{}', false),
('mm._hold_players(int, bigint, bigint[])', 'function', '{}', false),
('mm.tick(int, timestamptz)', 'function', '{service,admin}', true),
('mm.enqueue(int, bigint[], float8, float8, float8, float8, int, text[], timestamptz)', 'function', '{service,admin}', true),
('mm.claim_matches(int, int)', 'function', '{service,admin}', true),
('mm.leave(int, bigint)', 'function', '{service,admin}', true),
('mm.citus_distribute_queues(int)', 'function', '{}', false),
('mm.async_entries_entry_id_seq', 'relation', '{}', false),
-- one vocabulary; async fill bounds
('mm.async_fill_bounds', 'relation', '{}', false),
('mm.async_entry_seq()', 'function', '{}', false),
('mm.async_fill_bound(text, text[], int, float8, float8)', 'function', '{}', false),
('mm.glicko2_expect(mm.glicko, mm.glicko)', 'function', '{public}', false),
('mm.ordinal(mm.rating, float8)', 'function', '{public}', false),
('mm.glicko2_period_policy_check(mm.glicko2_period_state, boolean)', 'function', '{public}', false),
('mm.glicko2_period_policy_merge(mm.glicko2_period_state, mm.glicko2_period_state)', 'function', '{public}', false),
('mm.glicko2_period_policy_step(mm.glicko2_period_state, float8, float8, float8, float8, float8, float8, float8, jsonb)', 'function', '{public}', false),
('mm.glicko2_period_policy_combine(mm.glicko2_period_state, mm.glicko2_period_state)', 'function', '{public}', false),
('mm.glicko2_period_policy_final(mm.glicko2_period_state)', 'function', '{public}', false),
('mm.glicko2_period(float8, float8, float8, float8, float8, float8, float8, jsonb)', 'function', '{public}', false);

SELECT mm._apply_privileges();
