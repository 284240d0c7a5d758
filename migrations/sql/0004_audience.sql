-- Audience uploads: one row per `adsync audience upload`, written with all
-- its batches in one transaction, so an upload row always has its complete
-- plan (a crash while planning leaves nothing behind).
CREATE TABLE audience_uploads (
    id           bigserial   PRIMARY KEY,
    account_id   text        NOT NULL,
    audience_id  text        NOT NULL,
    file_path    text        NOT NULL,
    checksum     text        NOT NULL, -- SHA-256 hex of the file's bytes as read
    operation    text        NOT NULL CHECK (operation IN ('update', 'delete')),
    mode         text        NOT NULL CHECK (mode IN ('add', 'replace')),
    effective_at timestamptz,
    expires_at   timestamptz,
    rows_read    bigint      NOT NULL DEFAULT 0,
    rows_invalid bigint      NOT NULL DEFAULT 0,
    users        bigint      NOT NULL DEFAULT 0, -- users planned (all batches)
    state        text        NOT NULL DEFAULT 'planned' CHECK (state IN ('planned', 'done', 'failed')),
    run_id       bigint      REFERENCES sync_runs (id), -- the upload as a pipeline run
    created_at   timestamptz NOT NULL DEFAULT now(),
    finished_at  timestamptz
);

CREATE INDEX audience_uploads_file_idx ON audience_uploads (audience_id, checksum, operation, mode);

-- One request each: body is the exact JSON body sent, so every retry sends
-- the same bytes.
CREATE TABLE audience_batches (
    upload_id     bigint      NOT NULL REFERENCES audience_uploads (id) ON DELETE CASCADE,
    seq           integer     NOT NULL,
    operation     text        NOT NULL CHECK (operation IN ('Update', 'Delete')),
    body          bytea       NOT NULL,
    user_count    integer     NOT NULL,
    body_bytes    integer     NOT NULL,
    state         text        NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'done', 'failed')),
    attempts      integer     NOT NULL DEFAULT 0, -- job attempts that reached this batch
    retries       integer     NOT NULL DEFAULT 0, -- sends repeated after a count mismatch, 5xx or reset
    success_count integer,
    total_count   integer,
    last_error    text,
    sent_at       timestamptz,
    finished_at   timestamptz,
    PRIMARY KEY (upload_id, seq)
);

-- Item-level failures (operation_errors) of a batch.
CREATE TABLE audience_batch_errors (
    upload_id bigint  NOT NULL,
    seq       integer NOT NULL,
    index     integer NOT NULL,
    code      text    NOT NULL,
    message   text    NOT NULL,
    parameter text,
    FOREIGN KEY (upload_id, seq) REFERENCES audience_batches (upload_id, seq) ON DELETE CASCADE
);

CREATE INDEX audience_batch_errors_batch_idx ON audience_batch_errors (upload_id, seq);

-- What adsync knows each audience holds, per identifier type and hash (the
-- service keeps membership per identifier, not per user object). A batch's
-- identifiers are added or removed here in the transaction that marks it
-- done, so the table follows what the service confirmed.
CREATE TABLE audience_members (
    audience_id text NOT NULL,
    type        text NOT NULL,
    hash        text NOT NULL,
    PRIMARY KEY (audience_id, type, hash)
);
