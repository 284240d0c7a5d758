package access

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/adsync/adsync/sync/api"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/zap"
)

// User is one user the deployment acts for.
type User struct {
	ID         string
	ScreenName string
	// Configured says the token is ADSYNC_ACCESS_TOKEN's, not a stored one.
	Configured bool
	// Client signs the user's requests.
	Client *api.Client
}

// ConfiguredUserID names the configured token's user when neither the
// configuration nor the token says who it is.
const ConfiguredUserID = "configured"

// reloadEvery bounds how long a set keeps the users it read: tokens added
// by auth add or auth login reach a running worker within it.
const reloadEvery = 30 * time.Second

// touchEvery is how often a user's last_used_at is written, per process.
const touchEvery = time.Minute

// Set is the users a deployment acts for: the configured access token and
// every stored token. It is safe for concurrent use.
type Set struct {
	Pool *pgxpool.Pool
	// Base is the client of the configuration: every user's client is it
	// with the user's token.
	Base *api.Client
	// Configured is the configured access token (ADSYNC_ACCESS_TOKEN), nil
	// when there is none.
	Configured *api.Token
	// Tokens reads the stored tokens (nil: only the configured one).
	Tokens *api.PGUserTokenStore
	Log    *zap.Logger

	mu      sync.Mutex
	loaded  time.Time
	users   []*User // by id
	touched map[string]time.Time
}

// Users returns the usable users, by id: those whose token the service has
// not been seen to refuse.
func (s *Set) Users(ctx context.Context) ([]*User, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.users != nil && time.Since(s.loaded) < reloadEvery {
		return s.users, nil
	}
	users, err := s.load(ctx)
	if err != nil {
		return nil, err
	}
	s.users, s.loaded = users, time.Now()
	return users, nil
}

// Reload makes the next Users read the tokens again.
func (s *Set) Reload() {
	s.mu.Lock()
	s.users = nil
	s.mu.Unlock()
}

func (s *Set) logger() *zap.Logger {
	if s.Log == nil {
		return zap.NewNop()
	}
	return s.Log
}

func (s *Set) load(ctx context.Context) ([]*User, error) {
	var users []*User
	if tok := s.Configured; tok != nil && tok.Token != "" {
		id := api.TokenUserID(tok)
		if id == "" {
			id = ConfiguredUserID
		}
		users = append(users, &User{ID: id, ScreenName: tok.ScreenName, Configured: true, Client: s.Base.WithUserToken(tok)})
	}
	if s.Tokens != nil && s.Tokens.SecretKey != "" {
		stored, err := s.Tokens.All(ctx, s.Base.Credentials())
		if err != nil {
			return nil, err
		}
		for _, su := range stored {
			if su.Err != nil {
				s.logger().Warn("a stored token cannot be used", zap.String("user_id", su.UserID), zap.Error(su.Err))
				continue
			}
			if slices.ContainsFunc(users, func(u *User) bool { return u.ID == su.UserID }) {
				continue // the configured token acts for this user
			}
			t := su.Token
			c := s.Base.WithUserToken(&api.Token{Token: t.Token, Secret: t.Secret, UserID: t.UserID, ScreenName: t.ScreenName})
			users = append(users, &User{ID: su.UserID, ScreenName: su.ScreenName, Client: c})
		}
	}
	slices.SortFunc(users, func(a, b *User) int { return strings.Compare(a.ID, b.ID) })
	usable := users[:0]
	for _, u := range users {
		st, err := NoteUser(ctx, s.Pool, u.ID, u.ScreenName, api.Fingerprint(u.Client.UserToken().Token))
		if err != nil {
			return nil, fmt.Errorf("recording user %s: %w", u.ID, err)
		}
		if st == "ok" {
			usable = append(usable, u)
		}
	}
	return usable, nil
}

// User returns the usable user of id, nil when there is none.
func (s *Set) User(ctx context.Context, id string) (*User, error) {
	users, err := s.Users(ctx)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(users, func(u *User) bool { return u.ID == id })
	if i < 0 {
		return nil, nil
	}
	return users[i], nil
}

// NoUserError says no usable token may act on an account for a need.
type NoUserError struct {
	AccountID string
	Need      Need
	// Roles are the roles of the users who reach the account, by user.
	Roles map[string]string
}

func (e *NoUserError) Error() string {
	if len(e.Roles) == 0 {
		return fmt.Sprintf("account %s: no usable token reaches it (add a token of a user who reaches it with adsync auth add, or see adsync auth list)", e.AccountID)
	}
	var found []string
	for _, u := range slices.Sorted(maps.Keys(e.Roles)) {
		found = append(found, fmt.Sprintf("user %s: %s", u, e.Roles[u]))
	}
	return fmt.Sprintf("account %s: no token whose role allows %s (roles found: %s)", e.AccountID, e.Need, strings.Join(found, "; "))
}

// Permanent: no retry finds a user the account does not have.
func (e *NoUserError) Permanent() bool { return true }

// For chooses the user who acts on account for need: among the usable
// users who reach it and whose role allows need (roles not read yet are
// read), the one Pick chooses. An account no listing has recorded (a
// deployment whose runs have not listed accounts yet) goes to the only
// user when there is one.
func (s *Set) For(ctx context.Context, accountID string, need Need) (*User, error) {
	reach, err := Reachers(ctx, s.Pool, accountID)
	if err != nil {
		return nil, fmt.Errorf("reading who reaches account %s: %w", accountID, err)
	}
	return s.ForReachers(ctx, accountID, need, reach)
}

// ForReachers is For with the account's Reachers already read, maybe a
// while ago (Begin reads them with the unit's start).
func (s *Set) ForReachers(ctx context.Context, accountID string, need Need, reach []Reach) (*User, error) {
	users, err := s.Users(ctx)
	if err != nil {
		return nil, err
	}
	if len(reach) > 0 {
		u, err := s.choose(ctx, accountID, need, reach, users)
		if !errors.As(err, new(*NoUserError)) {
			return u, err
		}
	}
	// Nobody found: the work fails for good (NoUserError is permanent: an
	// upload's batch ends failed after one attempt), or goes to the only
	// user when no listing has recorded the account. Either is decided on
	// records read now, in one statement, never on a reach read before a
	// listing committed, nor on users read before a token was added (the
	// set keeps them up to reloadEvery).
	reach, known, err := readReach(ctx, s.Pool, accountID)
	if err != nil {
		return nil, fmt.Errorf("reading who reaches account %s: %w", accountID, err)
	}
	if !known && len(users) == 1 {
		return users[0], nil
	}
	if slices.ContainsFunc(reach, func(r Reach) bool { return find(users, r.UserID) == nil }) {
		s.Reload()
		if users, err = s.Users(ctx); err != nil {
			return nil, err
		}
	}
	return s.choose(ctx, accountID, need, reach, users)
}

// choose picks, among the users of reach that users holds and whose role
// allows need (roles not read yet are read), the one Pick chooses; none is
// a *NoUserError.
func (s *Set) choose(ctx context.Context, accountID string, need Need, reach []Reach, users []*User) (*User, error) {
	roles := map[string]string{}
	var candidates []Candidate
	for _, r := range reach {
		u := find(users, r.UserID)
		if u == nil {
			continue
		}
		perms := r.Permissions
		if perms == nil && need != NeedRead {
			var err error
			if perms, err = s.readPermissions(ctx, u, accountID); err != nil {
				if api.UserFailure(err) != "" {
					continue
				}
				return nil, err
			}
		}
		roles[u.ID] = Role(perms)
		if need.Allows(perms) {
			candidates = append(candidates, Candidate{ID: u.ID, Reach: r.Accounts})
		}
	}
	id := Pick(accountID, candidates)
	if id == "" {
		return nil, &NoUserError{AccountID: accountID, Need: need, Roles: roles}
	}
	u := find(users, id)
	s.touch(ctx, u.ID)
	return u, nil
}

func find(users []*User, id string) *User {
	i := slices.IndexFunc(users, func(u *User) bool { return u.ID == id })
	if i < 0 {
		return nil
	}
	return users[i]
}

func (s *Set) touch(ctx context.Context, userID string) {
	s.mu.Lock()
	if s.touched == nil {
		s.touched = map[string]time.Time{}
	}
	if time.Since(s.touched[userID]) < touchEvery {
		s.mu.Unlock()
		return
	}
	s.touched[userID] = time.Now()
	s.mu.Unlock()
	if err := Touch(ctx, s.Pool, userID); err != nil {
		s.logger().Warn("recording a user's last use", zap.String("user_id", userID), zap.Error(err))
	}
}

// readPermissions asks the service for u's permissions on account and
// records them; a failure that says the user can no longer act there is
// recorded too (see Failed).
func (s *Set) readPermissions(ctx context.Context, u *User, accountID string) ([]string, error) {
	perms, err := Permissions(ctx, u.Client, accountID)
	if err != nil {
		if f := api.UserFailure(err); f != "" {
			return nil, s.Failed(ctx, u, accountID, f, err)
		}
		return nil, err
	}
	return perms, SetPermissions(ctx, s.Pool, accountID, u.ID, perms)
}

// endpointUserAccess is the route that answers a token's user and its
// permissions on an account.
const endpointUserAccess = "GET /12/accounts/{account_id}/authenticated_user_access"

// userAccess is what authenticated_user_access answers c's user on account.
func userAccess(ctx context.Context, c *api.Client, accountID string) (userID string, permissions []string, err error) {
	resp, err := c.Do(ctx, &api.Request{Method: "GET", Base: api.BaseAds,
		Path:     "/12/accounts/" + url.PathEscape(accountID) + "/authenticated_user_access",
		Endpoint: endpointUserAccess, Auth: api.AuthUser, AccountID: accountID})
	if err != nil {
		return "", nil, err
	}
	env, err := api.Decode[api.Single[struct {
		UserID      string   `json:"user_id"`
		Permissions []string `json:"permissions"`
	}]](endpointUserAccess, resp.Body)
	if err != nil {
		return "", nil, err
	}
	if env.Data.Permissions == nil {
		return env.Data.UserID, []string{}, nil
	}
	return env.Data.UserID, env.Data.Permissions, nil
}

// Permissions reads what authenticated_user_access answers c's user on
// account.
func Permissions(ctx context.Context, c *api.Client, accountID string) ([]string, error) {
	_, perms, err := userAccess(ctx, c, accountID)
	return perms, err
}

// CheckRoles reads the permissions of user on every account it reaches
// whose role was not read within maxAge.
func (s *Set) CheckRoles(ctx context.Context, u *User, maxAge time.Duration) error {
	ids, err := RolesToCheck(ctx, s.Pool, u.ID, maxAge)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if _, err := s.readPermissions(ctx, u, id); err != nil {
			if api.Explain(err).Status == http.StatusNotFound {
				continue // deleted since the listing: no role to read
			}
			var swe *api.SwitchUserError
			if errors.As(err, &swe) && swe.AccountID == id && api.UserFailure(swe.Err) == api.UserLost {
				continue // the account is lost to this user, recorded
			}
			return err
		}
	}
	return nil
}

// Failed records what failure (see api.UserFailure) says of u: a revoked
// or refused token is no longer used by any worker (a stored revoked token
// is forgotten), a lost account is left to the other users who reach it.
// It returns the *api.SwitchUserError the work should fail with.
func (s *Set) Failed(ctx context.Context, u *User, accountID, failure string, cause error) error {
	var err error
	switch failure {
	case api.UserRevoked, api.UserRefused:
		s.logger().Warn("the service no longer accepts a user's token: its accounts move to other users",
			zap.String("user_id", u.ID), zap.String("state", failure), zap.Error(cause))
		err = SetState(ctx, s.Pool, u.ID, failure, cause.Error())
		if err == nil && failure == api.UserRevoked && !u.Configured && s.Tokens != nil {
			err = s.Tokens.MarkRevoked(ctx, s.Base.Credentials(), u.ID)
		}
		s.Reload()
	case api.UserLost:
		s.logger().Info("the service refused a user on an account: another user takes it over",
			zap.String("user_id", u.ID), zap.String("account_id", accountID), zap.Error(cause))
		err = MarkLost(ctx, s.Pool, u.ID, accountID)
	}
	if err != nil {
		return fmt.Errorf("recording that user %s can no longer act on account %s: %w", u.ID, accountID, err)
	}
	return &api.SwitchUserError{UserID: u.ID, AccountID: accountID, Err: cause}
}
