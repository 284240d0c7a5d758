-- Keyword insights: one row per (set, request group, window). A set whose
-- keywords and negatives exceed the service's limit of 10 is split into
-- groups of positive keywords, each carrying all negatives; keywords_hash
-- names the group. Re-running a window replaces every group of that
-- (set, window) in one transaction.
CREATE TABLE keyword_insight_windows (
    set_name          text        NOT NULL,
    keywords_hash     text        NOT NULL,
    keywords          text[]      NOT NULL,
    negative_keywords text[]      NOT NULL,
    location          text        NOT NULL DEFAULT '',
    granularity       text        NOT NULL CHECK (granularity IN ('DAY', 'HOUR')),
    window_start      timestamptz NOT NULL,
    window_end        timestamptz NOT NULL CHECK (window_end > window_start),
    related_keywords  text[]      NOT NULL,
    raw               jsonb       NOT NULL,
    fetched_at        timestamptz NOT NULL,
    PRIMARY KEY (set_name, window_start, keywords_hash)
);

-- The volume series of a window: the i-th value of post_volume is the
-- bucket starting at window_start + i * granularity (UTC).
CREATE TABLE keyword_volumes (
    set_name      text        NOT NULL,
    keywords_hash text        NOT NULL,
    window_start  timestamptz NOT NULL,
    bucket_start  timestamptz NOT NULL,
    volume        bigint      NOT NULL,
    PRIMARY KEY (set_name, window_start, keywords_hash, bucket_start),
    FOREIGN KEY (set_name, window_start, keywords_hash)
        REFERENCES keyword_insight_windows (set_name, window_start, keywords_hash) ON DELETE CASCADE
);

-- Windows of different runs may overlap (each run looks back from its own
-- now); this view keeps the most recently fetched value of each bucket.
CREATE VIEW keyword_volumes_latest AS
SELECT DISTINCT ON (v.set_name, v.keywords_hash, v.bucket_start)
       v.set_name, v.keywords_hash, w.keywords, v.bucket_start, w.granularity, v.volume, w.fetched_at
  FROM keyword_volumes v
  JOIN keyword_insight_windows w USING (set_name, window_start, keywords_hash)
 ORDER BY v.set_name, v.keywords_hash, v.bucket_start, w.fetched_at DESC;

-- v2 posts hydrated through GET /2/posts. Typed columns for the fields the
-- spec names; raw keeps the whole object so a field the spec does not know
-- is never lost.
CREATE TABLE v2_posts (
    id                  text        PRIMARY KEY,
    text                text        NOT NULL,
    author_id           text,
    api_created_at      timestamptz,
    conversation_id     text,
    in_reply_to_user_id text,
    lang                text,
    possibly_sensitive  boolean,
    community_id        text,
    media_keys          text[]      NOT NULL DEFAULT '{}',
    referenced_posts    jsonb,
    repost_count        bigint,
    reply_count         bigint,
    like_count          bigint,
    quote_count         bigint,
    impression_count    bigint,
    raw                 jsonb       NOT NULL,
    doc_hash            text        NOT NULL,
    first_seen_at       timestamptz NOT NULL,
    fetched_at          timestamptz NOT NULL,
    updated_at          timestamptz NOT NULL
);

CREATE TABLE v2_media (
    media_key         text        PRIMARY KEY,
    type              text,
    duration_ms       bigint,
    view_count        bigint,
    alt_text          text,
    preview_image_url text,
    width             integer,
    height            integer,
    variants          jsonb,
    raw               jsonb       NOT NULL,
    doc_hash          text        NOT NULL,
    first_seen_at     timestamptz NOT NULL,
    fetched_at        timestamptz NOT NULL,
    updated_at        timestamptz NOT NULL
);

CREATE TABLE v2_users (
    id                   text        PRIMARY KEY,
    name                 text,
    username             text,
    api_created_at       timestamptz,
    description          text,
    location             text,
    url                  text,
    profile_image_url    text,
    verified             boolean,
    verified_type        text,
    protected            boolean,
    subscription_type    text,
    pinned_post_id       text,
    followers_count      bigint,
    following_count      bigint,
    post_count           bigint,
    listed_count         bigint,
    affiliation_user_ids text[],
    raw                  jsonb       NOT NULL,
    doc_hash             text        NOT NULL,
    first_seen_at        timestamptz NOT NULL,
    fetched_at           timestamptz NOT NULL,
    updated_at           timestamptz NOT NULL
);

-- The outcome of the last lookup of each requested post id: found, or the
-- service's partial error (for example "Could not find post with ids").
-- A post fetched before keeps its v2_posts row when it later goes missing.
CREATE TABLE v2_post_status (
    post_id    text        PRIMARY KEY,
    found      boolean     NOT NULL,
    error      text,
    detail     text,
    problem    jsonb,
    checked_at timestamptz NOT NULL
);

-- One row per post per UTC day with its public metrics, so the warehouse
-- gets time series; fetching again on the same day updates that day's row.
CREATE TABLE post_metrics_daily (
    post_id          text        NOT NULL,
    day              date        NOT NULL,
    repost_count     bigint,
    reply_count      bigint,
    like_count       bigint,
    quote_count      bigint,
    impression_count bigint,
    fetched_at       timestamptz NOT NULL,
    PRIMARY KEY (post_id, day)
);
