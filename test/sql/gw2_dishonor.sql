-- GW2 dishonor (the Guild Wars 2 wiki's PvP matchmaking page, "Dishonor") with the GW2 wiki's config:
-- stack_duration 15m, timeout_duration 30s, timeout_exponent 1.5,
-- timeout_rounding 1m, penalties abandon 10, queue_dodge 4, banned 1000000.
--   roundInterval(v, i) = max(i, round(v / i) * i)
--   timeout(stacks) = roundInterval(stacks^1.5 * 30s, 1m)
\set VERBOSITY default
SET timezone = 'UTC';

SELECT mm.dishonor_config_defaults();
SELECT mm.dishonor_config() = mm.dishonor_config_defaults() AS no_setting_means_defaults;

-- Both tables are dumped with the data.
SELECT c.oid::regclass AS dumped
FROM pg_extension e, unnest(e.extconfig) t(oid) JOIN pg_class c ON c.oid = t.oid
WHERE e.extname = 'mm' AND c.relname LIKE 'dishonor%' ORDER BY 1;

-- Timeouts by hand:
--   0 stacks:       0 * 30s =        0s -> round(0)     = 0  -> max(1m, 0)  = 1m
--   1 stack:        1 * 30s =       30s -> round(0.5)   = 1  (halves up)    = 1m
--   2: 2.828427 * 30s =   84.85s -> round(1.414)   = 1  -> 1m
--   3: 5.196152 * 30s =  155.88s -> round(2.598)   = 3  -> 3m
--   4:        8 * 30s =     240s -> 4m
--   5: 11.18034 * 30s =  335.41s -> round(5.590)   = 6  -> 6m
--  10: 31.62278 * 30s =  948.68s -> round(15.811)  = 16 -> 16m
--  13: 46.87217 * 30s = 1406.17s -> round(23.436)  = 23 -> 23m
--  17: 70.09280 * 30s = 2102.78s -> round(35.046)  = 35 -> 35m
-- 100:     1000 * 30s =   30000s -> 500m = 8:20:00
-- 1000000 (banned): 1e9 * 30s = 3e10 s = 500000000m = 8333333:20:00
SELECT s, mm.dishonor_timeout(s) AS timeout
FROM unnest(array[0, 1, 2, 3, 4, 5, 10, 13, 17, 100, 1000000]) s;
-- Rounding halves up: 90s per stack, exponent 1: 1 stack 1.5m -> 2m, 3 stacks 4.5m -> 5m.
SELECT mm.dishonor_timeout(1, '{"timeout_duration": "90s", "timeout_exponent": 1}') AS one,
       mm.dishonor_timeout(3, '{"timeout_duration": "90 seconds", "timeout_exponent": 1}') AS three;
-- Exponent 0: every penalty gives timeout_duration, at least the rounding.
SELECT mm.dishonor_timeout(50, '{"timeout_exponent": 0, "timeout_duration": "5m"}') AS five_minutes;

-- Decay: one stack per full stack_duration (15m).
SELECT e, mm.dishonor_decay(10, e::interval) AS stacks
FROM unnest(array['0', '14 min 59 s', '15 min', '29 min 59 s', '30 min', '2:29:59', '2:30:00', '100 days']) e;
SELECT mm.dishonor_decay(3, '2h', '{"stack_duration": "1h"}') AS one_left,
       mm.dishonor_decay(0, '1h') AS none;

-- Stacks a reason adds.
SELECT mm.dishonor_penalty('abandon') AS abandon, mm.dishonor_penalty('queue_dodge') AS queue_dodge,
       mm.dishonor_penalty('banned') AS banned;

-- A player with no dishonor: (0, NULL), always one row.
SELECT * FROM mm.dishonor_status(900001, '2026-01-01 00:00+00');

-- Player 900001, by hand (T = 2026-01-01 00:00):
-- T      abandon: 0 + 10 = 10 stacks, timeout 16m -> until T+16m; stacks counted from T
SELECT * FROM mm.dishonor(900001, 'abandon', '2026-01-01 00:00+00');
-- T+10m: 10 stacks (no full 15m yet), in timeout until T+16m
SELECT * FROM mm.dishonor_status(900001, '2026-01-01 00:10+00');
-- T+16m: the timeout has ended (NULL) and one stack is gone (floor(16/15) = 1);
-- T+20m: still 9 (floor(20/15) = 1)
SELECT * FROM mm.dishonor_status(900001, '2026-01-01 00:16+00');
SELECT * FROM mm.dishonor_status(900001, '2026-01-01 00:20+00');
-- T+20m  queue_dodge: 9 + 4 = 13 stacks, timeout 23m from T+20m (the last one
-- has ended) -> T+43m; the clock of the expiring stack is kept: counted from T+15m
SELECT * FROM mm.dishonor(900001, 'queue_dodge', '2026-01-01 00:20+00');
SELECT stacks, stacks_at, timeout_until, reason FROM mm.dishonor_players WHERE player_id = 900001;
-- T+25m  queue_dodge again while in timeout: 13 + 4 = 17 stacks, timeout 35m
-- added to the current end T+43m -> T+1h18m
SELECT * FROM mm.dishonor(900001, 'queue_dodge', '2026-01-01 00:25+00');
-- 17 stacks counted from T+15m: at T+1h17m59s floor(62m59s/15m) = 4 are gone (13
-- left, still in timeout); the last one expires at T+15m + 17*15m = T+4h30m
SELECT * FROM mm.dishonor_status(900001, '2026-01-01 01:17:59+00');
SELECT * FROM mm.dishonor_status(900001, '2026-01-01 04:29:59+00');
SELECT * FROM mm.dishonor_status(900001, '2026-01-01 04:30:00+00');
-- A time before the last count: no decay backwards, the stacks as stored.
SELECT * FROM mm.dishonor_status(900001, '2026-01-01 00:00+00');
-- T+5h abandon with no stacks left: 10 stacks counted from T+5h, 16m timeout.
SELECT * FROM mm.dishonor(900001, 'abandon', '2026-01-01 05:00+00');
SELECT stacks, stacks_at, timeout_until, reason FROM mm.dishonor_players WHERE player_id = 900001;

-- Several players at once, in the order asked.
SELECT * FROM mm.dishonor_statuses(array[900002, 900001, 900002], '2026-01-01 05:10+00');

-- Banned: 1000000 stacks, timeout 3e10 s (about 950 years); a second ban
-- adds (2e6)^1.5 * 30s = 8.485e10 s to the end of the first.
SELECT * FROM mm.dishonor(900003, 'banned', '2026-01-01 00:00+00');
SELECT timeout_until - '2026-01-01 00:00+00' AS timeout FROM mm.dishonor_status(900003, '2026-01-01 00:00+00');
SELECT stacks, timeout_until - '2026-01-01 00:00+00' AS timeout
FROM mm.dishonor(900003, 'banned', '2026-01-01 00:00+00');

-- The pure form: a new player's state (NULLs) gives the same as mm.dishonor.
SELECT * FROM mm.dishonor_apply(0, NULL, NULL, 'abandon', '2026-01-01 00:00+00');
SELECT mm.dishonor_current(17, '2026-01-01 00:15+00', '2026-01-01 04:29:59+00') AS one_left;
-- Stacks with no count time are taken as counted at "at": 5 + 4 = 9 stacks,
-- 9^1.5 * 30s = 810s = 13.5m -> 14m (halves up).
SELECT * FROM mm.dishonor_apply(5, NULL, NULL, 'queue_dodge', '2026-01-01 00:00+00');
-- Stacks counted at -infinity are all gone: 4 stacks, 4m added to the
-- timeout still running until 00:10 -> 00:14.
SELECT * FROM mm.dishonor_apply(50, '-infinity', '2026-01-01 00:10+00', 'queue_dodge', '2026-01-01 00:00+00');

-- A config of our own: "penalties", when given, is the whole list of reasons.
SELECT mm.set_dishonor_config('{"penalties": {"afk": 2, "abandon": 10}, "timeout_exponent": 2}');
SELECT mm.dishonor_config();
-- afk: 2 stacks -> 2^2 * 30s = 120s = 2m
SELECT * FROM mm.dishonor(900004, 'afk', '2026-01-01 00:00+00');
SELECT * FROM mm.dishonor(900004, 'banned', '2026-01-01 00:00+00');
\echo :LAST_ERROR_SQLSTATE
-- A timeout past the last timestamp ends at infinity; stacks saturate.
SELECT mm.set_dishonor_config('{"timeout_exponent": 3, "penalties": {"banned": 1000000, "gm": 2147483647}}');
SELECT * FROM mm.dishonor(900005, 'banned', '2026-01-01 00:00+00');
SELECT * FROM mm.dishonor(900005, 'gm', '2026-01-01 00:00+00');
SELECT * FROM mm.dishonor(900005, 'gm', '2026-01-01 00:00+00');
-- (1e6^3 * 30s = 3e19 s is past the last timestamp.) In year 3000 the
-- saturated stacks have lost one per 15m since 2026:
SELECT stacks, timeout_until,
       stacks = 2147483647 - floor(extract(epoch FROM '3000-01-01 00:00+00'::timestamptz
                                                   - '2026-01-01 00:00+00') / 900) AS by_hand
FROM mm.dishonor_status(900005, '3000-01-01 00:00+00');
-- '{}' sets the defaults back.
SELECT mm.set_dishonor_config('{}') = mm.dishonor_config_defaults() AS reset;

-- Pardon: the record goes.
SELECT mm.dishonor_clear(900005) AS cleared, mm.dishonor_clear(900005) AS again;
SELECT * FROM mm.dishonor_status(900005, '2026-01-01 00:00+00');

-- Errors: config.
SELECT mm.dishonor_timeout(1, '{"stack_duraton": "1m"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.dishonor_timeout(1, '{"stack_duration": "15x"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.dishonor_timeout(1, '{"stack_duration": 900}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.dishonor_timeout(1, '{"timeout_rounding": "0s"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.dishonor_timeout(1, '{"timeout_duration": "-30s"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.dishonor_timeout(1, '{"timeout_exponent": 11}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.dishonor_timeout(1, '{"timeout_exponent": -1}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.dishonor_timeout(1, '{"penalties": [1]}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.dishonor_timeout(1, '{"penalties": {"abandon": -1}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.dishonor_timeout(1, '{"penalties": {"abandon": 1.5}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.dishonor_timeout(1, '{"penalties": {"abandon": 3000000000}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.dishonor_timeout(1, '{"penalties": {"abandon": "ten"}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.dishonor_timeout(1, '{"penalties": {"": 1}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.dishonor_timeout(1, '{"penalties": {"abandon": null}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.dishonor_penalty('abandon', '{"penalties": {}}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.dishonor_timeout(1, '[]');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.set_dishonor_config(NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.set_dishonor_config('{"timeout_exponent": "high"}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.dishonor_config() = mm.dishonor_config_defaults() AS unchanged_after_errors;

-- Errors: arguments.
SELECT * FROM mm.dishonor(900001, 'flame', '2026-01-01 00:00+00');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.dishonor(NULL, 'abandon');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.dishonor(900001, NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.dishonor(900001, 'abandon', 'infinity');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.dishonor_timeout(-1);
\echo :LAST_ERROR_SQLSTATE
SELECT mm.dishonor_timeout(1000000, '{"timeout_exponent": 3}');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.dishonor_decay(-1, '1m');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.dishonor_decay(1, '-1m');
\echo :LAST_ERROR_SQLSTATE
SELECT mm.dishonor_penalty('Abandon');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.dishonor_apply(NULL, NULL, NULL, 'abandon', now());
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM mm.dishonor_apply(-3, NULL, NULL, 'abandon', now());
\echo :LAST_ERROR_SQLSTATE
SELECT mm.dishonor_current(1, now(), '-infinity');
\echo :LAST_ERROR_SQLSTATE

-- Leave nothing behind for other tests.
DELETE FROM mm.dishonor_players WHERE player_id BETWEEN 900000 AND 900099;
DELETE FROM mm.dishonor_settings;
