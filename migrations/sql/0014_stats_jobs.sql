-- Asynchronous analytics jobs (spec analytics.md): one row per stats
-- request too long for the synchronous endpoint. The row exists before the
-- service job does; state 'creating' with intent_at is written before the
-- POST, and the service's job id right after it, so a crash at any point
-- finds its job again (by id, or by its parameters among the account's jobs
-- created since intent_at) instead of creating a second one.
--
--   pending   no service job: create one (again after FAILED, expiry or loss)
--   creating  a POST may be in flight or done without its id recorded
--   waiting   service_job_id is the job; poll it, then download and store
--   stored    its rows are in ad_stats (same transaction as this state)
--   failed    FAILED MaxJobFailures (3) times: its ids and days are missing
CREATE TABLE stats_jobs (
    id             bigserial   PRIMARY KEY,
    run_id         bigint      NOT NULL,
    account_id     text        NOT NULL,
    query          jsonb       NOT NULL,
    state          text        NOT NULL DEFAULT 'pending'
                               CHECK (state IN ('pending', 'creating', 'waiting', 'stored', 'failed')),
    service_job_id text,
    intent_at      timestamptz,
    expires_at     timestamptz,
    -- failures counts service jobs that ended FAILED.
    failures       integer     NOT NULL DEFAULT 0,
    rows_stored    integer,
    error          text,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX stats_jobs_run_idx ON stats_jobs (run_id, state);
-- The service allows 100 queued or processing jobs per account; workers
-- count these rows under an advisory lock per account before a POST.
CREATE INDEX stats_jobs_active_idx ON stats_jobs (account_id) WHERE state IN ('creating', 'waiting');
