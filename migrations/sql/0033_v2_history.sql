-- The history of the v2 posts pipeline's tables (issue 47): v2_posts_history,
-- v2_media_history and v2_users_history, as the entity tables' (0031; see
-- docs/history.md). A version per content (doc_hash); the service gives no
-- updated_at, so a record's first version begins at first_seen_at and a
-- later one when adsync stored the change (updated_at). The DDL below the
-- marker is generated from sync/posts (Histories; a test keeps them equal:
-- go test ./sync/posts -run TestHistoryMigration -update).

-- v2 histories (generated).
ALTER TABLE v2_posts ADD COLUMN valid_from timestamptz;
CREATE TABLE v2_posts_history_closed (
    id             text NOT NULL,
    text           text NOT NULL,
    author_id      text,
    api_created_at timestamptz,
    conversation_id text,
    in_reply_to_user_id text,
    lang           text,
    possibly_sensitive boolean,
    community_id   text,
    media_keys     text[] NOT NULL,
    referenced_posts jsonb,
    repost_count   bigint,
    reply_count    bigint,
    like_count     bigint,
    quote_count    bigint,
    impression_count bigint,
    raw            jsonb NOT NULL,
    doc_hash       text NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    fetched_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX v2_posts_history_closed_id_idx ON v2_posts_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION v2_posts_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', OLD.first_seen_at));
BEGIN
    NEW.valid_from := GREATEST(date_trunc('millisecond', NEW.updated_at), prev + interval '1 millisecond');
    INSERT INTO v2_posts_history_closed (id, text, author_id, api_created_at, conversation_id, in_reply_to_user_id, lang, possibly_sensitive, community_id, media_keys, referenced_posts, repost_count, reply_count, like_count, quote_count, impression_count, raw, doc_hash, first_seen_at, fetched_at, updated_at, valid_from, valid_to)
    VALUES (OLD.id, OLD.text, OLD.author_id, OLD.api_created_at, OLD.conversation_id, OLD.in_reply_to_user_id, OLD.lang, OLD.possibly_sensitive, OLD.community_id, OLD.media_keys, OLD.referenced_posts, OLD.repost_count, OLD.reply_count, OLD.like_count, OLD.quote_count, OLD.impression_count, OLD.raw, OLD.doc_hash, OLD.first_seen_at, OLD.fetched_at, OLD.updated_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW v2_posts_history AS
SELECT t.id, t.text, t.author_id, t.api_created_at, t.conversation_id, t.in_reply_to_user_id, t.lang, t.possibly_sensitive, t.community_id, t.media_keys, t.referenced_posts, t.repost_count, t.reply_count, t.like_count, t.quote_count, t.impression_count, t.raw, t.doc_hash, t.first_seen_at, t.fetched_at, t.updated_at,
    COALESCE(t.valid_from, date_trunc('millisecond', t.first_seen_at)) AS valid_from, NULL::timestamptz AS valid_to, t.updated_at AS written_at
FROM v2_posts t
UNION ALL
SELECT id, text, author_id, api_created_at, conversation_id, in_reply_to_user_id, lang, possibly_sensitive, community_id, media_keys, referenced_posts, repost_count, reply_count, like_count, quote_count, impression_count, raw, doc_hash, first_seen_at, fetched_at, updated_at, valid_from, valid_to, written_at
FROM v2_posts_history_closed;
CREATE TRIGGER v2_posts_history BEFORE UPDATE ON v2_posts FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash)
    EXECUTE FUNCTION v2_posts_history_close();

ALTER TABLE v2_media ADD COLUMN valid_from timestamptz;
CREATE TABLE v2_media_history_closed (
    media_key      text NOT NULL,
    type           text,
    duration_ms    bigint,
    view_count     bigint,
    alt_text       text,
    preview_image_url text,
    width          integer,
    height         integer,
    variants       jsonb,
    raw            jsonb NOT NULL,
    doc_hash       text NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    fetched_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX v2_media_history_closed_media_key_idx ON v2_media_history_closed (media_key, valid_from);
CREATE OR REPLACE FUNCTION v2_media_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', OLD.first_seen_at));
BEGIN
    NEW.valid_from := GREATEST(date_trunc('millisecond', NEW.updated_at), prev + interval '1 millisecond');
    INSERT INTO v2_media_history_closed (media_key, type, duration_ms, view_count, alt_text, preview_image_url, width, height, variants, raw, doc_hash, first_seen_at, fetched_at, updated_at, valid_from, valid_to)
    VALUES (OLD.media_key, OLD.type, OLD.duration_ms, OLD.view_count, OLD.alt_text, OLD.preview_image_url, OLD.width, OLD.height, OLD.variants, OLD.raw, OLD.doc_hash, OLD.first_seen_at, OLD.fetched_at, OLD.updated_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW v2_media_history AS
SELECT t.media_key, t.type, t.duration_ms, t.view_count, t.alt_text, t.preview_image_url, t.width, t.height, t.variants, t.raw, t.doc_hash, t.first_seen_at, t.fetched_at, t.updated_at,
    COALESCE(t.valid_from, date_trunc('millisecond', t.first_seen_at)) AS valid_from, NULL::timestamptz AS valid_to, t.updated_at AS written_at
FROM v2_media t
UNION ALL
SELECT media_key, type, duration_ms, view_count, alt_text, preview_image_url, width, height, variants, raw, doc_hash, first_seen_at, fetched_at, updated_at, valid_from, valid_to, written_at
FROM v2_media_history_closed;
CREATE TRIGGER v2_media_history BEFORE UPDATE ON v2_media FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash)
    EXECUTE FUNCTION v2_media_history_close();

ALTER TABLE v2_users ADD COLUMN valid_from timestamptz;
CREATE TABLE v2_users_history_closed (
    id             text NOT NULL,
    name           text,
    username       text,
    api_created_at timestamptz,
    description    text,
    location       text,
    url            text,
    profile_image_url text,
    verified       boolean,
    verified_type  text,
    protected      boolean,
    subscription_type text,
    pinned_post_id text,
    followers_count bigint,
    following_count bigint,
    post_count     bigint,
    listed_count   bigint,
    affiliation_user_ids text[],
    raw            jsonb NOT NULL,
    doc_hash       text NOT NULL,
    first_seen_at  timestamptz NOT NULL,
    fetched_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz NOT NULL CHECK (valid_to > valid_from),
    written_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX v2_users_history_closed_id_idx ON v2_users_history_closed (id, valid_from);
CREATE OR REPLACE FUNCTION v2_users_history_close() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev timestamptz := COALESCE(OLD.valid_from, date_trunc('millisecond', OLD.first_seen_at));
BEGIN
    NEW.valid_from := GREATEST(date_trunc('millisecond', NEW.updated_at), prev + interval '1 millisecond');
    INSERT INTO v2_users_history_closed (id, name, username, api_created_at, description, location, url, profile_image_url, verified, verified_type, protected, subscription_type, pinned_post_id, followers_count, following_count, post_count, listed_count, affiliation_user_ids, raw, doc_hash, first_seen_at, fetched_at, updated_at, valid_from, valid_to)
    VALUES (OLD.id, OLD.name, OLD.username, OLD.api_created_at, OLD.description, OLD.location, OLD.url, OLD.profile_image_url, OLD.verified, OLD.verified_type, OLD.protected, OLD.subscription_type, OLD.pinned_post_id, OLD.followers_count, OLD.following_count, OLD.post_count, OLD.listed_count, OLD.affiliation_user_ids, OLD.raw, OLD.doc_hash, OLD.first_seen_at, OLD.fetched_at, OLD.updated_at, prev, NEW.valid_from);
    RETURN NEW;
END $$;
CREATE VIEW v2_users_history AS
SELECT t.id, t.name, t.username, t.api_created_at, t.description, t.location, t.url, t.profile_image_url, t.verified, t.verified_type, t.protected, t.subscription_type, t.pinned_post_id, t.followers_count, t.following_count, t.post_count, t.listed_count, t.affiliation_user_ids, t.raw, t.doc_hash, t.first_seen_at, t.fetched_at, t.updated_at,
    COALESCE(t.valid_from, date_trunc('millisecond', t.first_seen_at)) AS valid_from, NULL::timestamptz AS valid_to, t.updated_at AS written_at
FROM v2_users t
UNION ALL
SELECT id, name, username, api_created_at, description, location, url, profile_image_url, verified, verified_type, protected, subscription_type, pinned_post_id, followers_count, following_count, post_count, listed_count, affiliation_user_ids, raw, doc_hash, first_seen_at, fetched_at, updated_at, valid_from, valid_to, written_at
FROM v2_users_history_closed;
CREATE TRIGGER v2_users_history BEFORE UPDATE ON v2_users FOR EACH ROW
    WHEN (OLD.doc_hash IS DISTINCT FROM NEW.doc_hash)
    EXECUTE FUNCTION v2_users_history_close();
