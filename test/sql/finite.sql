-- No mm function returns NaN or Infinity for finite input; non-finite
-- input is refused.
\set VERBOSITY default

-- server_breakdown passed NaN and Infinity into its jsonb in 0.1.0
SELECT mm.server_breakdown('{a}', '{NaN}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.server_breakdown('{a,b}', '{Infinity,1}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.server_breakdown('{a,b}', '{0.5}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.server_breakdown('{a,b}', '{0.5,1}') AS breakdown;

-- weights of 1.7e308 made rank_servers score Infinity: they are refused,
-- and the largest weights allowed keep every score finite
SELECT mm.set_place_config('huge', '{"signals": {"age": {"weight": 1.7e308}, "latency": {"weight": 1.7e308}}}');
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) AS stored FROM mm.place_configs WHERE place = 'huge';
SELECT mm.set_place_config('big', $${"include_defaults": false, "signals": {
    "occupancy": {"weight": 1e12}, "friends": {"weight": 1e12},
    "region": {"kind": "server_categorical_constant", "attribute": "region", "constant": "eu", "weight": 1e12}}}$$);
SELECT mm.add_server('big', 4, '{"region": "eu"}') > 0 AS started;
SELECT s.score, s.score = 1e12 AS finite_and_exact, mm.server_breakdown(s.signals, s.signal_scores)
FROM mm.rank_servers('big', '{}') s;
DELETE FROM mm.servers WHERE place = 'big';
DELETE FROM mm.place_configs WHERE place = 'big';

-- divisions that UBSan caught dividing by zero are explicit checks (22003)
-- the balance factor divides by the best ordinal plus kappa (-0.5 + 0.5)
SELECT * FROM mm.openskill_rate('{1,2}', '{1,2}', '{1,25}', '{0.5,8}', kappa => 0.5, tau => 0, balance => true);
\echo :LAST_ERROR_SQLSTATE
-- sigmas whose squares underflow: a team without variance
SELECT * FROM mm.openskill_rate('{1,2}', '{1,2}', '{25,25}', '{1e-200,1e-200}', tau => 0);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.openskill_predict_win('{1,2}', '{25,20}', '{1e-200,1e-200}', beta => 1e-200);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.openskill_predict_draw('{1,2}', '{25,20}', '{1e-200,1e-200}', beta => 1e-200);
\echo :LAST_ERROR_SQLSTATE
