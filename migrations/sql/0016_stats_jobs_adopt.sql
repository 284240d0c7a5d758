-- What a stats job row needs so that a lost POST answer never adopts a job
-- that is not the attempt's own, and so that a run reports the requests its
-- asynchronous jobs made.
--
-- intent_service_at is the service's clock (the Date header of a listing of
-- the account's jobs answered just before the POST) and intent_seen_jobs the
-- ids of the jobs that listing showed created at or after that second: a job
-- is adopted only when its created_at is not before intent_service_at and it
-- is not among intent_seen_jobs. Both are NULL while no POST can have been
-- sent since the row's last intent.
--
-- past_job_ids keeps the service jobs the row had before (FAILED, expired,
-- vanished), so a job once recorded is never adopted again by any row.
--
-- requests counts the requests advancing the row made (job POSTs, list
-- polls, file downloads; a retry is not a request of its own) and
-- rate_limited the 429 answers they got, for the run's report.
ALTER TABLE stats_jobs
    ADD COLUMN intent_service_at timestamptz,
    ADD COLUMN intent_seen_jobs  text[],
    ADD COLUMN past_job_ids      text[]  NOT NULL DEFAULT '{}',
    ADD COLUMN requests          integer NOT NULL DEFAULT 0,
    ADD COLUMN rate_limited      integer NOT NULL DEFAULT 0;
-- Adoption looks up whether any row, of any run, recorded a job id.
CREATE INDEX stats_jobs_service_job_idx ON stats_jobs (account_id, service_job_id);
