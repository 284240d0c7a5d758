-- The targeting option lists (GET /12/targeting_criteria/{list}): twelve
-- global reference tables targeting_criteria_<list>, keyed by targeting_value
-- (TV markets: locale), refreshed whole at most daily. The tables are
-- sync/ads's registry's DDL for the entities (a test keeps them equal).
CREATE TABLE targeting_criteria_app_store_categories (
    id             text        NOT NULL,
    name           text,
    targeting_type text,
    targeting_value text,
    os_type        text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (id)
);

CREATE TABLE targeting_criteria_conversations (
    id             text        NOT NULL,
    name           text,
    targeting_type text,
    targeting_value text,
    conversation_type text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (id)
);

CREATE TABLE targeting_criteria_devices (
    id             text        NOT NULL,
    name           text,
    manufacturer   text,
    os_type        text,
    targeting_type text,
    targeting_value text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (id)
);

CREATE TABLE targeting_criteria_events (
    id             text        NOT NULL,
    name           text,
    event_type     text,
    start_time     timestamptz,
    end_time       timestamptz,
    country_code   text,
    is_global      boolean,
    reach          jsonb,
    top_users      text[],
    top_hashtags   text[],
    top_posts      text[],
    gender_breakdown_percentage jsonb,
    device_breakdown_percentage jsonb,
    country_breakdown_percentage jsonb,
    targeting_value text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (id)
);

CREATE TABLE targeting_criteria_interests (
    id             text        NOT NULL,
    name           text,
    targeting_type text,
    targeting_value text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (id)
);

CREATE TABLE targeting_criteria_languages (
    id             text        NOT NULL,
    name           text,
    targeting_type text,
    targeting_value text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (id)
);

CREATE TABLE targeting_criteria_locations (
    id             text        NOT NULL,
    name           text,
    country_code   text,
    location_type  text,
    targeting_type text,
    targeting_value text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (id)
);

CREATE TABLE targeting_criteria_network_operators (
    id             text        NOT NULL,
    name           text,
    country_code   text,
    targeting_type text,
    targeting_value text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (id)
);

CREATE TABLE targeting_criteria_platform_versions (
    id             text        NOT NULL,
    name           text,
    number         text,
    os_type        text,
    targeting_type text,
    targeting_value text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (id)
);

CREATE TABLE targeting_criteria_platforms (
    id             text        NOT NULL,
    name           text,
    targeting_type text,
    targeting_value text,
    localized_name text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (id)
);

CREATE TABLE targeting_criteria_tv_markets (
    id             text        NOT NULL,
    name           text,
    country_code   text,
    locale         text,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (id)
);

CREATE TABLE targeting_criteria_tv_shows (
    id             text        NOT NULL,
    name           text,
    targeting_value bigint,
    genre          text,
    locales        jsonb,
    estimated_users bigint,
    raw            jsonb       NOT NULL,
    api_created_at timestamptz,
    api_updated_at timestamptz,
    deleted        boolean     NOT NULL DEFAULT false,
    doc_hash       text        NOT NULL,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_synced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (id)
);
