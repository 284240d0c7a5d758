-- Rate-limit windows shared by every process (the governor's state).
CREATE TABLE api_rate_limits (
    bucket     text        PRIMARY KEY,
    lim        integer     NOT NULL,
    remaining  integer     NOT NULL,
    inflight   integer     NOT NULL DEFAULT 0,
    inflight_until timestamptz NOT NULL DEFAULT '-infinity',
    reset_at   timestamptz NOT NULL,
    period_ms  bigint      NOT NULL DEFAULT 0,
    observed   boolean     NOT NULL DEFAULT false,
    probing    boolean     NOT NULL DEFAULT false,
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- The application's one bearer token, encrypted (AES-GCM), shared by every
-- process; not_before holds back new requests after the service said they
-- came too often (403 code 99).
CREATE TABLE api_bearer_tokens (
    app         text        PRIMARY KEY,
    token_enc   bytea,
    token_hash  text,
    obtained_at timestamptz,
    not_before  timestamptz
);

-- User access tokens from `adsync auth login`, encrypted with ADSYNC_SECRET_KEY.
CREATE TABLE api_user_tokens (
    app         text        NOT NULL,
    user_id     text        NOT NULL,
    screen_name text        NOT NULL,
    access_type text        NOT NULL,
    token_enc   bytea       NOT NULL,
    secret_enc  bytea       NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz,
    PRIMARY KEY (app, user_id)
);
