-- The matcher's input kept between ticks (src/queue/tick_input.c): what a
-- backend that ticks a queue again and again (mm.run_ticks) reads to prove
-- the waiting rosters it kept from its last tick current, instead of
-- reading the queue again. Both tables are unlogged: they describe the
-- memory of running backends, which a crash or a restart ends (and then
-- empties them); a standby has no ticks. Neither is dumped.

-- One row per change to a waiting roster, written in the changing
-- transaction: mm.enqueue, mm._end_rosters (mm.leave, mm.leave_player,
-- expiry, mm.remove_player's last player, mm.drop_queue, mm.alter_queue),
-- mm.remove_player, mm.update_roster and a dissolved ready check that gives
-- rosters back. A tick reads its queue's rows and removes them.
-- @access internal
CREATE UNLOGGED TABLE mm.queue_change (
    queue_id  int NOT NULL,
    roster_id bigint NOT NULL
);
CREATE INDEX queue_change_queue_idx ON mm.queue_change (queue_id);
COMMENT ON TABLE mm.queue_change IS 'the waiting rosters changed since their queue''s last tick (enqueued, left, expired, removed, updated, given back by a dissolved ready check), one row per change: a tick reads its queue''s rows and removes them, and a kept input (mm.run_ticks) reads those rosters again instead of the whole queue';
COMMENT ON INDEX mm.queue_change_queue_idx IS 'a queue''s changes (its tick reads them)';

-- Per queue, the tick that last removed rows of mm.queue_change or wrote
-- the queue's rosters: a kept input that did not see that tick is read
-- again whole.
-- @access internal
CREATE UNLOGGED TABLE mm.queue_change_read (
    queue_id int NOT NULL,
    tick_id  bigint NOT NULL,
    CONSTRAINT queue_change_read_pkey PRIMARY KEY (queue_id)
);
COMMENT ON TABLE mm.queue_change_read IS 'per queue, the last tick that read its changes (mm.queue_change) or wrote its rosters: a backend whose kept input of the queue is older reads the queue again';

-- @access internal
CREATE FUNCTION mm._kept_inputs()
RETURNS TABLE (queue_id int, state text, rosters int, mark bigint, ticks bigint, reads bigint, changes bigint)
LANGUAGE C VOLATILE PARALLEL RESTRICTED
AS 'MODULE_PATHNAME', 'mm_kept_inputs';
COMMENT ON FUNCTION mm._kept_inputs IS
    'internal: the queues whose matcher input this backend keeps between ticks (mm.run_ticks): state (current, pending: brought up to date in this transaction, stale: read whole at the next tick), the waiting rosters kept, the queue''s mark it is current with, the ticks that used it, how many of them read the queue whole, and the changes read since';
