-- Asynchronous analytics jobs are polled per account, not per row: one
-- listing naming every open job of the account (job_ids, up to 200) answers
-- for all of them, and each row keeps what it said (sync/stats/poll.go).
--
-- next_poll_at     the account's next poll round (our clock): the row's River
--                  job snoozes until then, and finds the answer there
-- polled_at        when a poll last saw the row's service job still open
-- file_url         the job ended SUCCESS: the row downloads this file ...
-- file_expires_at  ... before this instant (the job's expires_at)
-- job_seconds      how long the service took for the job (updated_at minus
--                  created_at of its SUCCESS record): later jobs wait by these
ALTER TABLE stats_jobs
    ADD COLUMN next_poll_at    timestamptz,
    ADD COLUMN polled_at       timestamptz,
    ADD COLUMN file_url        text,
    ADD COLUMN file_expires_at timestamptz,
    ADD COLUMN job_seconds     integer;
-- The expected time of a job is the median of the latest observed ones.
CREATE INDEX stats_jobs_observed_idx ON stats_jobs (updated_at) WHERE job_seconds IS NOT NULL;
