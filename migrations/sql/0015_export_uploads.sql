-- The journal of an export run into an object-store prefix. S3 has no
-- rename: a run's files are multipart uploads, completed (made visible)
-- only when every file of the run is ready. Each upload is recorded here
-- before it starts, so the next run can abort the uploads of a run that was
-- killed and remove the objects it completed before it committed; the rows
-- of a committed run are dropped once its manifest is written.
CREATE TABLE export_uploads (
    output_id  uuid        NOT NULL REFERENCES export_outputs (output_id),
    run_id     bigint      NOT NULL,
    key        text        NOT NULL,
    upload_id  text,
    bytes      bigint,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (output_id, key)
);
CREATE INDEX export_uploads_run ON export_uploads (output_id, run_id);
