-- Live adsync worker processes, each with its River client id. A worker
-- that stops beating (killed, machine lost) leaves its running jobs behind;
-- the other workers hand them back to the queue (see jobs/rescue.go).
CREATE TABLE adsync_workers (
    client_id    text        PRIMARY KEY,
    hostname     text        NOT NULL,
    pid          integer     NOT NULL,
    started_at   timestamptz NOT NULL DEFAULT now(),
    heartbeat_at timestamptz NOT NULL DEFAULT now()
);
