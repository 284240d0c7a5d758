-- Spec targeting-and-more.md (issue 27): the tables of promotable users,
-- scheduled promoted posts, preroll call to actions, web and app event tags,
-- scheduled posts, draft posts and the media library; every field of the
-- line item as a typed column (filled from the stored records), line items
-- and promoted posts incremental. The DDL is sync/ads's registry's
-- (CreateTableSQL and AlterSQL(17)); tests keep them equal.

CREATE TABLE promotable_users (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    user_id        text,
    promotable_user_type text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, id)
);
CREATE INDEX promotable_users_updated_idx ON promotable_users (account_id, api_updated_at DESC);

CREATE TABLE scheduled_promoted_posts (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    line_item_id   text,
    scheduled_post_id text,
    post_id        text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, id)
);
CREATE INDEX scheduled_promoted_posts_updated_idx ON scheduled_promoted_posts (account_id, api_updated_at DESC);

CREATE TABLE preroll_call_to_actions (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    line_item_id   text,
    call_to_action text,
    call_to_action_url text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, id)
);
CREATE INDEX preroll_call_to_actions_updated_idx ON preroll_call_to_actions (account_id, api_updated_at DESC);

CREATE TABLE web_event_tags (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    name           text,
    type           text,
    click_window   bigint,
    view_through_window bigint,
    retargeting_enabled boolean,
    status         text,
    last_tracked_at timestamptz,
    website_tag_id text,
    embed_code     text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, id)
);

CREATE TABLE app_event_tags (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    app_store_identifier text,
    os_type        text,
    conversion_type text,
    provider_app_event_id text,
    provider_app_event_name text,
    deep_link_scheme text,
    post_view_attribution_window bigint,
    post_engagement_attribution_window bigint,
    retargeting_enabled boolean,
    status         text,
    last_tracked_at timestamptz,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, id)
);
CREATE INDEX app_event_tags_updated_idx ON app_event_tags (account_id, api_updated_at DESC);

CREATE TABLE scheduled_posts (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    name           text,
    text           text,
    user_id        text,
    scheduled_at   timestamptz,
    scheduled_status text,
    completed_at   timestamptz,
    post_id        text,
    nullcast       boolean,
    card_uri       text,
    media_keys     text[],
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, id)
);

CREATE TABLE draft_posts (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    name           text,
    text           text,
    user_id        text,
    nullcast       boolean,
    card_uri       text,
    media_keys     text[],
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, id)
);

CREATE TABLE media_library (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    name           text,
    file_name      text,
    description    text,
    title          text,
    media_url      text,
    media_type     text,
    media_category text,
    media_status   text,
    aspect_ratio   text,
    duration       bigint,
    poster_media_url text,
    poster_media_key text,
    posted         boolean,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, id)
);

ALTER TABLE line_items
    DROP COLUMN servable,
    ADD COLUMN funding_instrument_id text,
    ADD COLUMN goal text,
    ADD COLUMN bid_strategy text,
    ADD COLUMN pay_by text,
    ADD COLUMN target_cpa_local_micro bigint,
    ADD COLUMN daily_budget_amount_local_micro bigint,
    ADD COLUMN total_budget_amount_local_micro bigint,
    ADD COLUMN standard_delivery boolean,
    ADD COLUMN frequency_cap bigint,
    ADD COLUMN duration_in_days bigint,
    ADD COLUMN advertiser_user_id text,
    ADD COLUMN advertiser_domain text,
    ADD COLUMN categories text[],
    ADD COLUMN primary_web_event_tag text,
    ADD COLUMN android_app_store_identifier text,
    ADD COLUMN ios_app_store_identifier text,
    ADD COLUMN automatic_post_promotion jsonb,
    ADD COLUMN creative_source text;
UPDATE line_items SET
    funding_instrument_id = raw->>'funding_instrument_id',
    goal = raw->>'goal',
    bid_strategy = raw->>'bid_strategy',
    pay_by = raw->>'pay_by',
    target_cpa_local_micro = (raw->>'target_cpa_local_micro')::bigint,
    daily_budget_amount_local_micro = (raw->>'daily_budget_amount_local_micro')::bigint,
    total_budget_amount_local_micro = (raw->>'total_budget_amount_local_micro')::bigint,
    standard_delivery = (raw->>'standard_delivery')::boolean,
    frequency_cap = (raw->>'frequency_cap')::bigint,
    duration_in_days = (raw->>'duration_in_days')::bigint,
    advertiser_user_id = raw->>'advertiser_user_id',
    advertiser_domain = raw->>'advertiser_domain',
    categories = CASE WHEN jsonb_typeof(raw->'categories') = 'array' THEN ARRAY(SELECT jsonb_array_elements_text(raw->'categories')) END,
    primary_web_event_tag = raw->>'primary_web_event_tag',
    android_app_store_identifier = raw->>'android_app_store_identifier',
    ios_app_store_identifier = raw->>'ios_app_store_identifier',
    automatic_post_promotion = raw->'automatic_post_promotion',
    creative_source = raw->>'creative_source',
    last_synced_at = now();
CREATE INDEX line_items_updated_idx ON line_items (account_id, api_updated_at DESC);
CREATE INDEX promoted_posts_updated_idx ON promoted_posts (account_id, api_updated_at DESC);
