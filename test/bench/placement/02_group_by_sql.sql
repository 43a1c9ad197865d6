-- the same scoring as a plain SQL GROUP BY over mm.servers and mm.server_players, 20 joining players (baseline)
SELECT j.joiner, best.server_id AS best
FROM bench_joiners j
CROSS JOIN LATERAL (
    SELECT s.server_id,
           10 * CASE WHEN bool_or(p.player_id = ANY (j.preferred)) THEN 1 ELSE 0 END
         + 3 * (1 - least(COALESCE((j.player -> 'latency' ->> (s.attributes ->> 'region'))::float8, 250), 250) / 250)
         + 2 * count(*)::float8 / s.capacity
         + 2 * (1 - least(abs(avg((p.attributes ->> 'play_history')::float8) - (j.player ->> 'play_history')::float8) / 4.6, 1))
         + 1 * (1 - least(abs(avg((p.attributes ->> 'age')::float8) - (j.player ->> 'age')::float8) / 25, 1))
         + 1 * avg(((p.attributes -> 'language') = (j.player -> 'language'))::int)
         + 1 * avg(((p.attributes -> 'voice_chat') = (j.player -> 'voice_chat'))::int) AS score
    FROM mm.servers s
    JOIN mm.server_players p ON p.server_id = s.server_id
    WHERE s.place = 'bench'
    GROUP BY s.server_id
    HAVING count(*) < s.capacity
    ORDER BY score DESC, s.server_id
    LIMIT 1
) best;
