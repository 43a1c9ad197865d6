-- mm.rank_servers, default configuration, 20 joining players over 10k servers x 30 players (C over per-server aggregates)
SELECT j.joiner, (SELECT r.server_id FROM mm.rank_servers('bench', j.player, j.preferred) r LIMIT 1) AS best
FROM bench_joiners j;
