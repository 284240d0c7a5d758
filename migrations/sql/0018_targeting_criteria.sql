-- Targeting criteria (GET accounts/:account_id/targeting_criteria, listed by
-- line item), synced like the other per-account entities. The table is
-- sync/ads's registry's DDL for the entity (a test keeps them equal); the
-- index on line_item_id serves "who was this line item aimed at?" and the
-- sweep of the criteria of deleted line items.
CREATE TABLE targeting_criteria (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    line_item_id   text,
    name           text,
    localized_name text,
    targeting_type text,
    targeting_value text,
    operator_type  text,
    location_type  text,
    tailored_audience_expansion boolean,
    tailored_audience_type text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, id)
);
CREATE INDEX targeting_criteria_updated_idx ON targeting_criteria (account_id, api_updated_at DESC);
CREATE INDEX targeting_criteria_line_item_idx ON targeting_criteria (account_id, line_item_id);
