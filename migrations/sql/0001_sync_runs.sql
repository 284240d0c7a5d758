-- Every pipeline run (sync, audience, insights, posts, export) is recorded:
-- what, when, counts, outcome.
CREATE TABLE sync_runs (
    id          bigserial PRIMARY KEY,
    pipeline    text        NOT NULL,
    trigger     text        NOT NULL DEFAULT 'manual',
    params      jsonb       NOT NULL DEFAULT '{}',
    started_at  timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    outcome     text        NOT NULL DEFAULT 'running'
                CHECK (outcome IN ('running', 'succeeded', 'failed', 'partial', 'cancelled')),
    counts      jsonb       NOT NULL DEFAULT '{}',
    error       text
);

CREATE INDEX sync_runs_started_at_idx ON sync_runs (started_at DESC);
CREATE INDEX sync_runs_pipeline_idx ON sync_runs (pipeline, started_at DESC);
