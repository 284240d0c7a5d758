-- A poll round marks the rows it asks the service about until this instant
-- (sync/stats/poll.go): a row whose River job wakes meanwhile looks again
-- soon, not at the round's lease end, and finds the round's answer on its
-- row. Apart from next_poll_at (the account's next round), so a round that
-- ends in milliseconds does not leave its rows parked for the whole lease.
-- NULL once the round recorded its answers; a round whose worker died ends
-- its mark at the lease end, and the next row due polls again.
ALTER TABLE stats_jobs ADD COLUMN polling_until timestamptz;
