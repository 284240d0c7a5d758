-- Custom audiences adsync creates for `audience upload --create NAME`, one
-- row per account and name. The row is written before the create is sent
-- and given the audience's id once the service answers, so the same command
-- run again after an interruption (even one between the create and its
-- answer) continues with the audience it created instead of stopping at the
-- name it took.
CREATE TABLE audience_creates (
    account_id  text        NOT NULL,
    name        text        NOT NULL,
    audience_id text,       -- NULL until the service answered
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, name)
);
