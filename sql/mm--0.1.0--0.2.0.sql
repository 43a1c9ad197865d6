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
    'add or update a player''s entry (seed 004''s player state update); returns the entry id, NULL if ignored by player_ignore_update_insert_threshold';

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
    'the best opponent for a query (seed 004): success, none_found or fake_opponent; never the searcher or an excluded player';

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
    'size each bucket from the observed share of inserts (seed 004''s dynamic bucket sizing): capacity = max(bucket_min_size, player_cache_size * share)';

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
