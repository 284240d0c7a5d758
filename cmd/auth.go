package adsynccmd

import (
	"context"
	"errors"
	"time"

	"github.com/adsync/adsync/sync/access"
	"github.com/adsync/adsync/sync/api"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"
)

func (a *app) authCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "auth", Short: "Obtain and revoke credentials: user access tokens and the app-only bearer token"}
	cmd.AddCommand(a.authLoginCommand(), a.authAddCommand(), a.authListCommand(), a.authRevokeCommand(), a.authRemoveCommand(),
		a.authBearerCommand(), a.authBearerRevokeCommand())
	return cmd
}

// loginOptions are the flags of auth login.
type loginOptions struct {
	callback     string
	port         int
	forceLogin   bool
	screenName   string
	accessType   string
	authenticate bool
	timeout      time.Duration
}

func (a *app) authLoginCommand() *cobra.Command {
	var o loginOptions
	cmd := &cobra.Command{
		Use:   "login",
		Short: "Authorize adsync for a user (OAuth 1.0a, PIN or loopback callback) and store the token encrypted",
		Long: `Run the three-legged OAuth 1.0a flow. With --callback oob (the default) adsync prints
the authorization URL and asks for the PIN the service shows after approval. With
--callback loopback it listens on 127.0.0.1 (on --port, else a free port) and catches the
verifier from the browser's redirect to http://127.0.0.1:PORT/callback, which must be
one of the application's callback URLs. The token is stored in Postgres, encrypted with ADSYNC_SECRET_KEY; it is never
printed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			tokens, app, err := a.tokenStore(cmd.Context())
			if err != nil {
				return err
			}
			return access.Login(cmd.Context(), tokens, app, access.LoginOptions{
				Loopback: o.callback == "loopback", Port: o.port, AccessType: o.accessType, Timeout: o.timeout,
				Authorize: api.AuthorizeOptions{Authenticate: o.authenticate, ForceLogin: o.forceLogin, ScreenName: o.screenName},
				In:        a.stdin, Out: a.stdout, Err: a.stderr})
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.callback, "callback", "oob", "oob (enter a PIN) or loopback (catch the redirect on 127.0.0.1)")
	f.IntVar(&o.port, "port", 0, "loopback listen port (0 picks a free one); when the application approves only fixed callback URLs, the port of http://127.0.0.1:PORT/callback")
	f.BoolVar(&o.forceLogin, "force-login", false, "make the user enter credentials even when logged in")
	f.StringVar(&o.screenName, "screen-name", "", "prefill the login name box")
	f.StringVar(&o.accessType, "access-type", "", "request read or write access (default: the application's level)")
	f.BoolVar(&o.authenticate, "authenticate", false, "use oauth/authenticate (no re-approval for a user who already granted access)")
	f.DurationVar(&o.timeout, "timeout", 5*time.Minute, "how long to wait for the approval")
	return cmd
}

func (o loginOptions) validate() error {
	if o.callback != "oob" && o.callback != "loopback" {
		return usageError("auth login: --callback %q: must be oob or loopback", o.callback)
	}
	if o.accessType != "" && o.accessType != api.AccessRead && o.accessType != api.AccessWrite {
		return usageError("auth login: --access-type %q: must be read or write", o.accessType)
	}
	if o.port < 0 || o.port > 65535 {
		return usageError("auth login: --port %d: out of range 0-65535", o.port)
	}
	if o.port != 0 && o.callback != "loopback" {
		return usageError("auth login: --port applies to --callback loopback only")
	}
	if o.timeout <= 0 {
		return usageError("auth login: --timeout must be positive")
	}
	return nil
}

// tokenStore returns the encrypted user token store and the application's
// client (without a stored token), refusing early when there is no
// database or no key to encrypt with.
func (a *app) tokenStore(ctx context.Context) (api.PGUserTokenStore, *api.Client, error) {
	if err := api.CheckSecretKey(a.cfg.SecretKey); err != nil {
		return api.PGUserTokenStore{}, nil, err
	}
	if !a.hasDatabase() {
		return api.PGUserTokenStore{}, nil, errors.New("no database configured: set ADSYNC_DATABASE_URL or --database-url (user tokens are stored in Postgres)")
	}
	pool, err := a.connect(ctx)
	if err != nil {
		return api.PGUserTokenStore{}, nil, err
	}
	app, err := a.appClient(ctx, pool)
	if err != nil {
		return api.PGUserTokenStore{}, nil, err
	}
	return api.PGUserTokenStore{Pool: pool, SecretKey: a.cfg.SecretKey}, app, nil
}

// appDatabase opens the database and names the configured application:
// what a command that reads no stored token needs (no ADSYNC_SECRET_KEY).
func (a *app) appDatabase(ctx context.Context) (*pgxpool.Pool, api.Credentials, error) {
	if !a.hasDatabase() {
		return nil, api.Credentials{}, errNoDatabase
	}
	pool, err := a.connect(ctx)
	if err != nil {
		return nil, api.Credentials{}, err
	}
	cfg, err := a.appConfig(ctx, pool)
	if err != nil {
		return nil, api.Credentials{}, err
	}
	return pool, cfg.Credentials, nil
}

func (a *app) authRevokeCommand() *cobra.Command {
	var userID string
	cmd := &cobra.Command{
		Use:   "revoke",
		Short: "Invalidate the stored user token (the most recent, or --user-id's) and forget it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tokens, app, err := a.tokenStore(cmd.Context())
			if err != nil {
				return err
			}
			return access.Revoke(cmd.Context(), tokens, app, userID, a.stdout)
		},
	}
	cmd.Flags().StringVar(&userID, "user-id", "", "revoke this user's token instead of the most recent one")
	return cmd
}

func (a *app) authRemoveCommand() *cobra.Command {
	var userID string
	cmd := &cobra.Command{
		Use:   "remove --user-id ID",
		Short: "Forget one user: its stored token (not decrypted, not invalidated) and the accounts recorded for it; synced data is kept",
		Long: `Forget one user: the token adsync auth login or adsync auth add stored for it, without
decrypting it, and what adsync recorded of the user (the accounts its token reaches, its
role and state there), so adsync auth list no longer shows it and no worker acts for it.
It is also the way out when ADSYNC_SECRET_KEY changed and the token can no longer be read
(adsync auth revoke needs the token to invalidate it). The service still honours the
token until the user withdraws the application's access. Other users' tokens are kept,
and so is every row synced through this user (accounts, campaigns, ...): accounts no
other token reaches are listed by adsync status.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if userID == "" {
				return usageError("auth remove: --user-id is required (the user whose stored token to forget)")
			}
			pool, creds, err := a.appDatabase(cmd.Context())
			if err != nil {
				return err
			}
			return access.Remove(cmd.Context(), pool, creds, userID, a.stdout)
		},
	}
	cmd.Flags().StringVar(&userID, "user-id", "", "the user whose stored token to forget")
	return cmd
}

func (a *app) authBearerCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "bearer",
		Short: "Obtain the app-only bearer token (or reuse the cached one once the service accepts it); prints it masked",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			c, err := a.clientMaybePooled(ctx)
			if err != nil {
				return err
			}
			return access.Bearer(ctx, c, a.cfg.DatabaseURL != "", a.stdout)
		},
	}
}

func (a *app) authBearerRevokeCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "bearer-revoke",
		Short: "Invalidate the app-only bearer token (signed with the owner's access token) and drop it from the cache",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			c, err := a.clientMaybePooled(ctx)
			if err != nil {
				return err
			}
			return access.RevokeBearer(ctx, c, a.stdout)
		},
	}
}
