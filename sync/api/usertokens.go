package api

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// UserToken is a user access token with the user it acts for.
type UserToken struct {
	Token      string
	Secret     string
	UserID     string
	ScreenName string
	AccessType string // read or write
}

// ErrNoStoredToken means no user token is stored for the application.
var ErrNoStoredToken = errors.New("no stored user token: run adsync auth login")

// ErrNoSecretKey means tokens cannot be stored or read without ADSYNC_SECRET_KEY.
var ErrNoSecretKey = errors.New("ADSYNC_SECRET_KEY is not set: adsync stores user tokens only encrypted (AES-GCM); set it, for example to the output of `openssl rand -hex 32`")

// UndecryptableTokenError means the stored token of a user cannot be
// decrypted with the configured key: ADSYNC_SECRET_KEY changed since it was
// stored, or the row was altered. Err is ErrDecrypt.
type UndecryptableTokenError struct {
	UserID string
	Err    error
}

func (e *UndecryptableTokenError) Error() string {
	return fmt.Sprintf("stored token of user %s: %v (was ADSYNC_SECRET_KEY changed?)", e.UserID, e.Err)
}

func (e *UndecryptableTokenError) Unwrap() error { return e.Err }

// WayOut says what to do about the token: replace it, or forget it.
func (e *UndecryptableTokenError) WayOut() string {
	return "run adsync auth login to replace it, or adsync auth remove --user-id " + e.UserID + " to forget it"
}

// PGUserTokenStore keeps user tokens in Postgres (api_user_tokens),
// encrypted with a key derived from ADSYNC_SECRET_KEY.
type PGUserTokenStore struct {
	Pool      *pgxpool.Pool
	SecretKey string
}

// MinSecretKeyLength is the shortest ADSYNC_SECRET_KEY accepted, in
// characters: a shorter one is guessable; 32 random bytes in base64 or hex
// are 44 or 64.
const MinSecretKeyLength = 32

// ErrSecretKeyTooShort means ADSYNC_SECRET_KEY is shorter than
// MinSecretKeyLength. It never carries the key.
var ErrSecretKeyTooShort = fmt.Errorf("ADSYNC_SECRET_KEY is too short: it needs at least %d characters; "+
	"make one with `openssl rand -base64 32`", MinSecretKeyLength)

// CheckSecretKey refuses a missing or too short ADSYNC_SECRET_KEY. The
// key's derivation is unchanged: tokens stored under a long enough key
// stay readable.
func CheckSecretKey(secret string) error {
	switch {
	case secret == "":
		return ErrNoSecretKey
	case utf8.RuneCountInString(strings.TrimSpace(secret)) < MinSecretKeyLength:
		return ErrSecretKeyTooShort
	}
	return nil
}

func (s PGUserTokenStore) key() ([]byte, error) {
	if err := CheckSecretKey(s.SecretKey); err != nil {
		return nil, err
	}
	return DeriveKey("user-tokens", s.SecretKey), nil
}

// Save stores (or replaces) the token of tok.UserID.
func (s PGUserTokenStore) Save(ctx context.Context, creds Credentials, tok UserToken) error {
	key, err := s.key()
	if err != nil {
		return err
	}
	app := appKey(creds)
	aad := []byte(app + "|" + tok.UserID)
	te, err := Seal(key, []byte(tok.Token), aad)
	if err != nil {
		return err
	}
	se, err := Seal(key, []byte(tok.Secret), aad)
	if err != nil {
		return err
	}
	_, err = s.Pool.Exec(ctx, `INSERT INTO api_user_tokens (app, user_id, screen_name, access_type, token_enc, secret_enc)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (app, user_id) DO UPDATE SET screen_name = EXCLUDED.screen_name, access_type = EXCLUDED.access_type,
			token_enc = EXCLUDED.token_enc, secret_enc = EXCLUDED.secret_enc, created_at = now(), revoked_at = NULL`,
		app, tok.UserID, tok.ScreenName, tok.AccessType, te, se)
	return err
}

// Current returns the most recently stored, unrevoked token.
func (s PGUserTokenStore) Current(ctx context.Context, creds Credentials) (UserToken, error) {
	return s.load(ctx, creds, "")
}

// ForUser returns the unrevoked token of one user.
func (s PGUserTokenStore) ForUser(ctx context.Context, creds Credentials, userID string) (UserToken, error) {
	return s.load(ctx, creds, userID)
}

func (s PGUserTokenStore) load(ctx context.Context, creds Credentials, userID string) (UserToken, error) {
	key, err := s.key()
	if err != nil {
		return UserToken{}, err
	}
	app := appKey(creds)
	var tok UserToken
	var te, se []byte
	err = s.Pool.QueryRow(ctx, `SELECT user_id, screen_name, access_type, token_enc, secret_enc FROM api_user_tokens
		WHERE app = $1 AND revoked_at IS NULL AND ($2 = '' OR user_id = $2) ORDER BY created_at DESC LIMIT 1`, app, userID).
		Scan(&tok.UserID, &tok.ScreenName, &tok.AccessType, &te, &se)
	if errors.Is(err, pgx.ErrNoRows) {
		return UserToken{}, ErrNoStoredToken
	}
	if err != nil {
		return UserToken{}, err
	}
	aad := []byte(app + "|" + tok.UserID)
	t, err := Open(key, te, aad)
	if err != nil {
		return UserToken{}, &UndecryptableTokenError{UserID: tok.UserID, Err: err}
	}
	sec, err := Open(key, se, aad)
	if err != nil {
		return UserToken{}, &UndecryptableTokenError{UserID: tok.UserID, Err: err}
	}
	tok.Token, tok.Secret = string(t), string(sec)
	return tok, nil
}

// UseCurrent gives cfg, when it has no user token, the one most recently
// stored for its application; with none stored it stays without.
func (s PGUserTokenStore) UseCurrent(ctx context.Context, cfg *Config) error {
	if cfg.UserToken != nil {
		return nil
	}
	tok, err := s.Current(ctx, cfg.Credentials)
	var undecryptable *UndecryptableTokenError
	switch {
	case errors.As(err, &undecryptable):
		return fmt.Errorf("reading the stored user token: %w: %s", err, undecryptable.WayOut())
	case errors.Is(err, ErrNoStoredToken):
	case err != nil:
		return fmt.Errorf("reading the stored user token: %w", err)
	default:
		cfg.UserToken = &Token{Token: tok.Token, Secret: tok.Secret, UserID: tok.UserID, ScreenName: tok.ScreenName}
	}
	return nil
}

// MarkRevoked records that the user's token was invalidated and forgets it.
func (s PGUserTokenStore) MarkRevoked(ctx context.Context, creds Credentials, userID string) error {
	_, err := s.Pool.Exec(ctx, `UPDATE api_user_tokens SET revoked_at = now(), token_enc = '', secret_enc = ''
		WHERE app = $1 AND user_id = $2`, appKey(creds), userID)
	return err
}

// UserTokenHolder names, for messages, the user the client's access token
// acts for: "@name (user id N)" when known (a token stored by auth login);
// else the user id the service's access tokens carry before their dash
// (publicly known format "<user id>-<random>"; the spec does not show it).
// It never includes the token's secret part.
func (c *Client) UserTokenHolder() string {
	t := c.cfg.UserToken
	switch {
	case t == nil:
		return "no user access token"
	case t.ScreenName != "" && t.UserID != "":
		return fmt.Sprintf("@%s (user id %s)", t.ScreenName, t.UserID)
	case t.UserID != "":
		return "user id " + t.UserID
	}
	if id := TokenUserID(t); id != "" {
		return "user id " + id + " (the token's prefix)"
	}
	return "a user the token does not name"
}

// Remove forgets the stored token of one user without decrypting it (a
// token stored under another key can be removed), leaving every other
// user's. It reports whether a token of the user was stored.
func (s PGUserTokenStore) Remove(ctx context.Context, creds Credentials, userID string) (bool, error) {
	tag, err := s.Pool.Exec(ctx, `DELETE FROM api_user_tokens WHERE app = $1 AND user_id = $2`, appKey(creds), userID)
	if err != nil {
		return false, fmt.Errorf("removing the stored token of user %s: %w", userID, err)
	}
	return tag.RowsAffected() > 0, nil
}

// StoredUser is one stored token's user as All lists it: Token is nil when
// the token cannot be decrypted with the configured key (Err says why).
type StoredUser struct {
	UserID     string
	ScreenName string
	CreatedAt  time.Time
	Token      *UserToken
	Err        error
}

// All lists every stored, unrevoked token of the application, oldest first,
// decrypting each; one that cannot be decrypted is listed with its error.
func (s PGUserTokenStore) All(ctx context.Context, creds Credentials) ([]StoredUser, error) {
	key, err := s.key()
	if err != nil {
		return nil, err
	}
	app := appKey(creds)
	rows, err := s.Pool.Query(ctx, `SELECT user_id, screen_name, access_type, token_enc, secret_enc, created_at FROM api_user_tokens
		WHERE app = $1 AND revoked_at IS NULL ORDER BY created_at, user_id`, app)
	if err != nil {
		return nil, fmt.Errorf("listing stored user tokens: %w", err)
	}
	defer rows.Close()
	var out []StoredUser
	for rows.Next() {
		var tok UserToken
		var te, se []byte
		var su StoredUser
		if err := rows.Scan(&tok.UserID, &tok.ScreenName, &tok.AccessType, &te, &se, &su.CreatedAt); err != nil {
			return nil, fmt.Errorf("listing stored user tokens: %w", err)
		}
		su.UserID, su.ScreenName = tok.UserID, tok.ScreenName
		aad := []byte(app + "|" + tok.UserID)
		t, terr := Open(key, te, aad)
		sec, serr := Open(key, se, aad)
		if err := errors.Join(terr, serr); err != nil {
			su.Err = &UndecryptableTokenError{UserID: tok.UserID, Err: ErrDecrypt}
		} else {
			tok.Token, tok.Secret = string(t), string(sec)
			su.Token = &tok
		}
		out = append(out, su)
	}
	return out, rows.Err()
}

// Fingerprint names a token without revealing it: the first 16 hex digits
// of the SHA-256 of the token (not its secret), so adsync can tell that a
// user's token was replaced without storing it in the clear.
func Fingerprint(token string) string {
	sum := sha256.Sum256([]byte("adsync token fingerprint|" + token))
	return hex.EncodeToString(sum[:8])
}
