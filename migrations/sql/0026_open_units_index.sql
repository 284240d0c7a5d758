-- The open units and runs, indexed alone: every worker's heartbeat (every
-- 5 seconds by default) looks for the units and runs whose jobs were
-- cancelled or discarded (store.EndAbandoned), among the open ones only.
-- Without these indexes each look read every unit of every run ever
-- recorded, a history that only grows (30,000 units: 29 ms of Postgres
-- per heartbeat). A unit or run leaves its index when it ends; updates of
-- a unit's progress, which do not change its state, stay as cheap as
-- before (HOT).
CREATE INDEX sync_run_units_open_idx ON sync_run_units (run_id) WHERE state IN ('pending', 'running');
CREATE INDEX sync_runs_running_idx ON sync_runs (id) WHERE outcome = 'running';
