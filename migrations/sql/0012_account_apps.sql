-- Account apps (GET accounts/:account_id/account_apps), synced like the other
-- per-account entities. The table is sync/ads's registry's DDL for the entity
-- (a test keeps them equal); version 0011 is the sync branch's.
CREATE TABLE account_apps (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    name           text,
    app_store_identifier text,
    os_type        text,
    conversion_tracking boolean,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, id)
);
CREATE INDEX account_apps_updated_idx ON account_apps (account_id, api_updated_at DESC);
