-- Agencies: several users' tokens in one deployment.
--
-- account_users records which accounts each user's token reaches, as the
-- accounts list of that user showed them, and the user's permissions there
-- (authenticated_user_access). lost_at is set when the user's list stops
-- returning the account, or the service refuses the user on it (403);
-- seen_run is the last sync run whose listing of the user returned it.
CREATE TABLE account_users (
    account_id  text        NOT NULL,
    user_id     text        NOT NULL,
    permissions text[],
    role_checked_at timestamptz,
    seen_at     timestamptz NOT NULL DEFAULT now(),
    seen_run    bigint,
    lost_at     timestamptz,
    PRIMARY KEY (account_id, user_id)
);
CREATE INDEX account_users_user ON account_users (user_id);

-- api_users keeps, per user, what adsync learnt of its token: ok until the
-- service answers it 401 code 89 (revoked) or refuses it otherwise
-- (refused); last_used_at is when a run last chose it for an account. It
-- holds no secret: the configured ADSYNC_ACCESS_TOKEN's user has a row too.
-- token_fp names the token the state is about (api.Fingerprint): a new
-- token for the user starts ok again.
CREATE TABLE api_users (
    user_id      text        PRIMARY KEY,
    screen_name  text        NOT NULL DEFAULT '',
    token_fp     text        NOT NULL DEFAULT '',
    state        text        NOT NULL DEFAULT 'ok' CHECK (state IN ('ok', 'revoked', 'refused')),
    state_reason text        NOT NULL DEFAULT '',
    state_at     timestamptz,
    last_used_at timestamptz
);
