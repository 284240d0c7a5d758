-- One listing of an account's analytics jobs serves the intents of every
-- job POST of that account that follows it closely (sync/stats/adopt.go),
-- instead of one listing before each POST.
--
-- stats_jobs_pending_seq orders, in real time, a row becoming pending (its
-- insert, or forget sending it back) and the start of a listing: nextval is
-- called in that order, never cached ahead (CACHE 1, the default; a larger
-- cache would hand each session its own block and break the order).
-- stats_jobs.pending_seq is the value taken when the row last became
-- pending; a listing serves a row only when the listing's seq is greater,
-- that is when the listing was asked for after the row needed a job.
CREATE SEQUENCE stats_jobs_pending_seq CACHE 1;
ALTER TABLE stats_jobs ADD COLUMN pending_seq bigint NOT NULL DEFAULT nextval('stats_jobs_pending_seq');

-- The newest listing of each account's jobs taken for intents:
--   seq         nextval(stats_jobs_pending_seq) taken before it was asked for
--   service_at  the service's clock when it answered (Date header, whole
--               seconds), the intent's intent_service_at
--   seen_jobs   the jobs it showed created at or after service_at, the
--               intent's intent_seen_jobs
--   taken_at    the worker's clock when it answered: a listing serves POSTs
--               for a short while only
CREATE TABLE stats_job_listings (
    account_id text        PRIMARY KEY,
    seq        bigint      NOT NULL,
    service_at timestamptz NOT NULL,
    seen_jobs  text[]      NOT NULL,
    taken_at   timestamptz NOT NULL
);
