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
