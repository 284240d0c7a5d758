-- The run a River job recorded, found by its job id: every attempt of a job
-- that records its own run (a scheduled sync, stats, insights or posts run:
-- store.RunForJob) looks it up by params->>'river_job_id'. Without an index
-- each look read every run of the pipeline ever recorded. The expression is
-- the lookup's own; runs recorded without a job (a command's) stay out of
-- the index, which the lookup's equality implies.
CREATE INDEX sync_runs_river_job_idx ON sync_runs ((params->>'river_job_id')) WHERE params->>'river_job_id' IS NOT NULL;
