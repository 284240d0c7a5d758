-- Advertising sync: the units of each run, incremental bookmarks, the ids a
-- complete listing saw (for tombstoning records removed for good), and one
-- table per entity. The entity tables below the marker are generated from
-- sync/ads's registry (a test keeps them equal: go test ./sync/ads -update).

-- One row per (run, account, entity); account_id is '' for global entities.
CREATE TABLE sync_run_units (
    run_id         bigint      NOT NULL REFERENCES sync_runs (id) ON DELETE CASCADE,
    account_id     text        NOT NULL DEFAULT '',
    entity         text        NOT NULL,
    state          text        NOT NULL DEFAULT 'pending'
                   CHECK (state IN ('pending', 'running', 'succeeded', 'failed', 'skipped')),
    fetched        bigint      NOT NULL DEFAULT 0,
    inserted       bigint      NOT NULL DEFAULT 0,
    updated        bigint      NOT NULL DEFAULT 0,
    unchanged      bigint      NOT NULL DEFAULT 0,
    deleted        bigint      NOT NULL DEFAULT 0,
    pages          integer     NOT NULL DEFAULT 0,
    max_updated_at timestamptz,
    error          text,
    started_at     timestamptz,
    finished_at    timestamptz,
    PRIMARY KEY (run_id, account_id, entity)
);

-- Where incremental syncs resume; advanced only when a unit completes.
CREATE TABLE sync_bookmarks (
    account_id      text        NOT NULL DEFAULT '',
    entity          text        NOT NULL,
    bookmark        timestamptz,
    last_full_at    timestamptz,
    last_success_at timestamptz,
    PRIMARY KEY (account_id, entity)
);

-- Ids listed by a complete unit still running; emptied when it finishes.
CREATE TABLE sync_unit_seen (
    run_id     bigint NOT NULL,
    account_id text   NOT NULL,
    entity     text   NOT NULL,
    id         text   NOT NULL,
    PRIMARY KEY (run_id, account_id, entity, id)
);

-- Entity tables (generated).
CREATE TABLE accounts (
    id             text        NOT NULL,
    name           text,
    business_name  text,
    timezone       text,
    timezone_switch_at timestamptz,
    business_id    text,
    approval_status text,
    industry_type  text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (id)
);
CREATE INDEX accounts_updated_idx ON accounts (api_updated_at DESC);

CREATE TABLE account_user_access (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    user_id        text,
    permissions    text[],
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, id)
);

CREATE TABLE funding_instruments (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    name           text,
    description    text,
    type           text,
    currency       text,
    start_time     timestamptz,
    end_time       timestamptz,
    credit_limit_local_micro bigint,
    credit_remaining_local_micro bigint,
    funded_amount_local_micro bigint,
    entity_status  text,
    able_to_fund   boolean,
    reasons_not_able_to_fund text[],
    io_header      text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, id)
);

CREATE TABLE campaigns (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    name           text,
    funding_instrument_id text,
    budget_optimization text,
    daily_budget_amount_local_micro bigint,
    total_budget_amount_local_micro bigint,
    entity_status  text,
    effective_status text,
    servable       boolean,
    reasons_not_servable text[],
    standard_delivery boolean,
    purchase_order_number text,
    duration_in_days bigint,
    frequency_cap  bigint,
    currency       text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, id)
);
CREATE INDEX campaigns_updated_idx ON campaigns (account_id, api_updated_at DESC);

CREATE TABLE line_items (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    name           text,
    campaign_id    text,
    objective      text,
    product_type   text,
    placements     text[],
    bid_amount_local_micro bigint,
    entity_status  text,
    start_time     timestamptz,
    end_time       timestamptz,
    currency       text,
    servable       boolean,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, id)
);

CREATE TABLE cards (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    name           text,
    card_uri       text,
    card_type      text,
    components     jsonb,
    slides         jsonb,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, id)
);
CREATE INDEX cards_updated_idx ON cards (account_id, api_updated_at DESC);

CREATE TABLE cards_poll (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    name           text,
    card_uri       text,
    card_type      text,
    first_choice   text,
    second_choice  text,
    third_choice   text,
    fourth_choice  text,
    duration_in_minutes bigint,
    start_time     timestamptz,
    end_time       timestamptz,
    media_key      text,
    video_poster_url text,
    video_url      text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, id)
);
CREATE INDEX cards_poll_updated_idx ON cards_poll (account_id, api_updated_at DESC);

CREATE TABLE cards_image_conversation (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    name           text,
    card_uri       text,
    card_type      text,
    first_cta      text,
    first_cta_post text,
    second_cta     text,
    second_cta_post text,
    third_cta      text,
    third_cta_post text,
    fourth_cta     text,
    fourth_cta_post text,
    title          text,
    thank_you_text text,
    thank_you_url  text,
    media_key      text,
    unlocked_image_media_key text,
    unlocked_video_media_key text,
    media_url      text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, id)
);
CREATE INDEX cards_image_conversation_updated_idx ON cards_image_conversation (account_id, api_updated_at DESC);

CREATE TABLE cards_video_conversation (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    name           text,
    card_uri       text,
    card_type      text,
    first_cta      text,
    first_cta_post text,
    second_cta     text,
    second_cta_post text,
    third_cta      text,
    third_cta_post text,
    fourth_cta     text,
    fourth_cta_post text,
    title          text,
    thank_you_text text,
    thank_you_url  text,
    media_key      text,
    unlocked_image_media_key text,
    unlocked_video_media_key text,
    poster_media_key text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, id)
);
CREATE INDEX cards_video_conversation_updated_idx ON cards_video_conversation (account_id, api_updated_at DESC);

CREATE TABLE account_media (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    creative_type  text,
    video_id       text,
    media_url      text,
    media_key      text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, id)
);
CREATE INDEX account_media_updated_idx ON account_media (account_id, api_updated_at DESC);

CREATE TABLE media_creatives (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    line_item_id   text,
    account_media_id text,
    campaign_id    text,
    landing_url    text,
    serving_status text,
    entity_status  text,
    approval_status text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, id)
);
CREATE INDEX media_creatives_updated_idx ON media_creatives (account_id, api_updated_at DESC);

CREATE TABLE promoted_accounts (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    line_item_id   text,
    user_id        text,
    entity_status  text,
    approval_status text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, id)
);
CREATE INDEX promoted_accounts_updated_idx ON promoted_accounts (account_id, api_updated_at DESC);

CREATE TABLE promoted_posts (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    line_item_id   text,
    post_id        text,
    entity_status  text,
    approval_status text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, id)
);

CREATE TABLE tracking_tags (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    line_item_id   text,
    tracking_tag_type text,
    tracking_tag_url text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, id)
);
CREATE INDEX tracking_tags_updated_idx ON tracking_tags (account_id, api_updated_at DESC);

CREATE TABLE posts (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    post_type      text,
    name           text,
    text           text,
    user_id        text,
    nullcast       boolean,
    card_uri       text,
    media_keys     text[],
    status         text,
    scheduled_at   timestamptz,
    scheduled_status text,
    completed_at   timestamptz,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, id)
);

CREATE TABLE custom_audiences (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    name           text,
    description    text,
    audience_type  text,
    targetable     boolean,
    targetable_types text[],
    reasons_not_targetable text[],
    permission_level text,
    owner_account_id text,
    is_owner       boolean,
    partner_source text,
    audience_size  bigint,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, id)
);

CREATE TABLE custom_audience_targeting (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    custom_audience_id text,
    campaign_id    text,
    campaign_name  text,
    line_items     jsonb,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, id)
);

CREATE TABLE tailored_audience_permissions (
    account_id     text        NOT NULL,
    id             text        NOT NULL,
    tailored_audience_id text,
    granted_account_id text,
    permission_level text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, id)
);
CREATE INDEX tailored_audience_permissions_updated_idx ON tailored_audience_permissions (account_id, api_updated_at DESC);

CREATE TABLE iab_categories (
    id             text        NOT NULL,
    name           text,
    parent_id      text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (id)
);

CREATE TABLE content_categories (
    id             text        NOT NULL,
    name           text,
    iab_categories text[],
    publishers_in_last_thirty_days bigint,
    videos_monetized_in_last_thirty_days bigint,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (id)
);

CREATE TABLE bidding_rules (
    id             text        NOT NULL,
    currency       text,
    minimum_cpe_bid_local_micro bigint,
    maximum_cpe_bid_local_micro bigint,
    minimum_denomination bigint,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (id)
);

CREATE TABLE line_item_placements (
    id             text        NOT NULL,
    product_type   text,
    placements     jsonb,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (id)
);

CREATE TABLE advertiser_business_categories (
    id             text        NOT NULL,
    name           text,
    iab_categories text[],
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (id)
);
