package api

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// PGBearerStore caches the bearer token in Postgres (api_bearer_tokens),
// encrypted with a key derived from the consumer secret: whoever can read
// the table but lacks the application's secret learns nothing, and whoever
// has the secret could obtain the token anyway.
type PGBearerStore struct{ Pool *pgxpool.Pool }

// Load implements BearerStore. The token is in the application's row; a
// hold-back is in a row of its own keyed by HoldKey(creds), so it applies
// to the credentials that earned it only.
func (s PGBearerStore) Load(ctx context.Context, app string, creds Credentials) (string, time.Time, error) {
	var enc []byte
	var notBefore *time.Time
	err := s.Pool.QueryRow(ctx, `SELECT (SELECT token_enc FROM api_bearer_tokens WHERE app = $1),
		(SELECT not_before FROM api_bearer_tokens WHERE app = $2)`, app, HoldKey(creds)).Scan(&enc, &notBefore)
	if err != nil {
		return "", time.Time{}, err
	}
	var nb time.Time
	if notBefore != nil {
		nb = *notBefore
	}
	if len(enc) == 0 {
		return "", nb, nil
	}
	key := DeriveKey("bearer-cache", creds.ConsumerSecret)
	plain, err := Open(key, enc, []byte(app))
	if err != nil {
		// Written under other credentials: treat as absent.
		return "", nb, nil
	}
	return string(plain), nb, nil
}

// Save implements BearerStore.
func (s PGBearerStore) Save(ctx context.Context, app string, creds Credentials, token string, now time.Time) error {
	enc, err := Seal(DeriveKey("bearer-cache", creds.ConsumerSecret), []byte(token), []byte(app))
	if err != nil {
		return err
	}
	_, err = s.Pool.Exec(ctx, `INSERT INTO api_bearer_tokens (app, token_enc, token_hash, obtained_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (app) DO UPDATE SET token_enc = EXCLUDED.token_enc, token_hash = EXCLUDED.token_hash,
			obtained_at = EXCLUDED.obtained_at`, app, enc, tokenHash(token), now)
	return err
}

// Drop implements BearerStore: only the token that failed is dropped (by
// its hash), so a token another process just obtained survives.
func (s PGBearerStore) Drop(ctx context.Context, app, token string) error {
	_, err := s.Pool.Exec(ctx, `UPDATE api_bearer_tokens SET token_enc = NULL, token_hash = NULL
		WHERE app = $1 AND token_hash = $2`, app, tokenHash(token))
	return err
}

// Hold implements BearerStore: the hold's row is keyed by HoldKey(creds)
// (a fingerprint, never the secret) and holds no token.
func (s PGBearerStore) Hold(ctx context.Context, _ string, creds Credentials, t time.Time) error {
	_, err := s.Pool.Exec(ctx, `INSERT INTO api_bearer_tokens (app, not_before) VALUES ($1, $2)
		ON CONFLICT (app) DO UPDATE SET not_before = EXCLUDED.not_before`, HoldKey(creds), t)
	return err
}
