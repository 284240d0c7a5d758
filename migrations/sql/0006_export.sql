-- Incremental export state: per table, the change time up to which rows
-- were exported by the last successful run.
CREATE TABLE export_state (
    table_name  text        PRIMARY KEY,
    watermark   timestamptz NOT NULL,
    last_run_id bigint      NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Every file a successful export run committed (the manifest's source).
CREATE TABLE export_files (
    run_id             bigint      NOT NULL,
    table_name         text        NOT NULL,
    path               text        NOT NULL,
    rows               bigint      NOT NULL,
    bytes              bigint      NOT NULL,
    sha256             text        NOT NULL,
    schema_fingerprint text        NOT NULL,
    low                timestamptz,
    high               timestamptz NOT NULL,
    PRIMARY KEY (run_id, path)
);
