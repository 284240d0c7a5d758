package adsynccmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/adsync/adsync/sync/access"
	"github.com/adsync/adsync/sync/api"
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
			return a.login(cmd.Context(), o)
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

// tokenStore returns the encrypted user token store, refusing early when
// there is no database or no key to encrypt with.
func (a *app) tokenStore(ctx context.Context) (api.PGUserTokenStore, error) {
	if err := api.CheckSecretKey(a.cfg.SecretKey); err != nil {
		return api.PGUserTokenStore{}, err
	}
	if !a.hasDatabase() {
		return api.PGUserTokenStore{}, errors.New("no database configured: set ADSYNC_DATABASE_URL or --database-url (user tokens are stored in Postgres)")
	}
	pool, err := a.connect(ctx)
	if err != nil {
		return api.PGUserTokenStore{}, err
	}
	return api.PGUserTokenStore{Pool: pool, SecretKey: a.cfg.SecretKey}, nil
}

func (a *app) login(ctx context.Context, o loginOptions) error {
	store, err := a.tokenStore(ctx)
	if err != nil {
		return err
	}
	c, err := a.appClient(ctx, store.Pool)
	if err != nil {
		return err
	}
	undecryptable, err := a.sayUndecryptable(ctx, store, c.Credentials())
	if err != nil {
		return err
	}
	callback := "oob"
	var catcher *callbackCatcher
	if o.callback == "loopback" {
		catcher, err = listenForCallback(o.port)
		if err != nil {
			return err
		}
		defer catcher.close()
		callback = catcher.url
	}
	rt, err := api.RequestToken(ctx, c, callback, o.accessType)
	if err != nil {
		return loginRequestError(err, o)
	}
	authURL := api.AuthorizeURL(c, rt.Token, api.AuthorizeOptions{Authenticate: o.authenticate, ForceLogin: o.forceLogin, ScreenName: o.screenName})
	fmt.Fprintf(a.stdout, "Open this URL in a browser and authorize adsync:\n\n  %s\n\n", authURL)

	// Only the wait for the user is bounded by --timeout.
	wctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	var verifier string
	if catcher != nil {
		fmt.Fprintf(a.stdout, "Waiting for the browser's redirect to %s ...\n", catcher.url)
		verifier, err = catcher.wait(wctx, rt.Token)
	} else {
		fmt.Fprint(a.stdout, "Enter the PIN: ")
		verifier, err = readLine(wctx, a.stdin)
		fmt.Fprintln(a.stdout)
	}
	if err != nil {
		return fmt.Errorf("auth login: %w", err)
	}
	ut, err := api.AccessToken(ctx, c, rt, verifier)
	if err != nil {
		return err
	}
	ut.AccessType = o.accessType
	if ut.AccessType == "" {
		// The response does not say. Without svc_auth_access_type the token
		// gets the application's level, taken to be write.
		ut.AccessType = api.AccessWrite
	}
	if err := store.Save(ctx, c.Credentials(), ut); err != nil {
		return fmt.Errorf("storing the token: %w", err)
	}
	fmt.Fprintf(a.stdout, "logged in as @%s (user id %s, access %s); token stored encrypted\n", ut.ScreenName, ut.UserID, ut.AccessType)
	if undecryptable != "" && undecryptable != ut.UserID {
		fmt.Fprintf(a.stdout, "the undecryptable token of user %s is still stored, unused: adsync auth remove --user-id %s forgets it\n", undecryptable, undecryptable)
	}
	return nil
}

// loginRequestError adds to a refused loopback callback URL how to send an
// approved one.
func loginRequestError(err error, o loginOptions) error {
	var cerr *api.CallbackNotApprovedError
	if !errors.As(err, &cerr) || o.callback != "loopback" {
		return err
	}
	if o.port == 0 {
		return fmt.Errorf("auth login: %w: adsync listened on a free port; if the application approves a fixed URL http://127.0.0.1:PORT/callback, pass --port PORT", err)
	}
	return fmt.Errorf("auth login: %w: approve this URL in the application's settings, or pass the --port of one it approves (http://127.0.0.1:PORT/callback)", err)
}

// sayUndecryptable says on stderr, before a login replaces it, that the
// current stored token cannot be decrypted with the configured key, and
// returns its user id ("" when it can be, or none is stored).
func (a *app) sayUndecryptable(ctx context.Context, store api.PGUserTokenStore, creds api.Credentials) (string, error) {
	_, err := store.Current(ctx, creds)
	var undecryptable *api.UndecryptableTokenError
	switch {
	case errors.As(err, &undecryptable):
		fmt.Fprintf(a.stderr, "adsync: the stored token of user %s cannot be decrypted with this ADSYNC_SECRET_KEY (was it changed?): this login replaces it\n", undecryptable.UserID)
		return undecryptable.UserID, nil
	case err == nil, errors.Is(err, api.ErrNoStoredToken):
		return "", nil
	}
	return "", fmt.Errorf("reading the stored user token: %w", err)
}

// readLine reads one line from r, giving up when ctx ends. The reader is
// left to a goroutine then: a terminal read cannot be interrupted.
func readLine(ctx context.Context, r io.Reader) (string, error) {
	type line struct {
		s   string
		err error
	}
	ch := make(chan line, 1)
	go func() {
		s, err := bufio.NewReader(r).ReadString('\n')
		if err == io.EOF && s != "" {
			err = nil
		}
		ch <- line{strings.TrimSpace(s), err}
	}()
	select {
	case <-ctx.Done():
		if errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
			return "", errors.New("timed out waiting for the PIN (see --timeout)")
		}
		return "", fmt.Errorf("no PIN entered: %w", context.Cause(ctx))
	case l := <-ch:
		if l.err == io.EOF {
			return "", errors.New("no PIN entered (end of input)")
		}
		if l.err != nil {
			return "", fmt.Errorf("reading the PIN: %w", l.err)
		}
		if l.s == "" {
			return "", errors.New("no PIN entered")
		}
		return l.s, nil
	}
}

func (a *app) authRevokeCommand() *cobra.Command {
	var userID string
	cmd := &cobra.Command{
		Use:   "revoke",
		Short: "Invalidate the stored user token (the most recent, or --user-id's) and forget it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			store, err := a.tokenStore(ctx)
			if err != nil {
				return err
			}
			c, err := a.appClient(ctx, store.Pool)
			if err != nil {
				return err
			}
			var ut api.UserToken
			if userID != "" {
				ut, err = store.ForUser(ctx, c.Credentials(), userID)
			} else {
				ut, err = store.Current(ctx, c.Credentials())
			}
			var undecryptable *api.UndecryptableTokenError
			if errors.As(err, &undecryptable) {
				return fmt.Errorf("auth revoke: %w: it cannot be invalidated without it; %s", err, wayOut(undecryptable))
			}
			if err != nil {
				return err
			}
			err = api.InvalidateUserToken(ctx, c, api.Token{Token: ut.Token, Secret: ut.Secret})
			already := errors.Is(err, api.ErrInvalidToken)
			if err != nil && !already {
				return err
			}
			if err := store.MarkRevoked(ctx, c.Credentials(), ut.UserID); err != nil {
				return fmt.Errorf("marking the token revoked: %w", err)
			}
			if err := access.SetState(ctx, store.Pool, ut.UserID, api.UserRevoked, "revoked with adsync auth revoke"); err != nil {
				return fmt.Errorf("recording user %s as revoked: %w", ut.UserID, err)
			}
			if already {
				fmt.Fprintf(a.stdout, "the token of @%s (user id %s) was already invalid; marked revoked\n", ut.ScreenName, ut.UserID)
				return nil
			}
			fmt.Fprintf(a.stdout, "revoked the token of @%s (user id %s)\n", ut.ScreenName, ut.UserID)
			return nil
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
			return a.removeUserToken(cmd.Context(), userID)
		},
	}
	cmd.Flags().StringVar(&userID, "user-id", "", "the user whose stored token to forget")
	return cmd
}

// removeUserToken is adsync auth remove.
func (a *app) removeUserToken(ctx context.Context, userID string) error {
	if !a.hasDatabase() {
		return errNoDatabase
	}
	pool, err := a.connect(ctx)
	if err != nil {
		return err
	}
	cfg, err := a.appConfig(ctx, pool)
	if err != nil {
		return err
	}
	found, err := api.PGUserTokenStore{Pool: pool}.Remove(ctx, cfg.Credentials, userID)
	if err != nil {
		return err
	}
	var known bool
	if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM api_users WHERE user_id = $1)`, userID).Scan(&known); err != nil {
		return fmt.Errorf("auth remove: reading user %s: %w", userID, err)
	}
	// Only what adsync recorded of the user goes: no synced row.
	if err := access.Forget(ctx, pool, userID); err != nil {
		return fmt.Errorf("auth remove: forgetting user %s: %w", userID, err)
	}
	switch {
	case found:
		fmt.Fprintf(a.stdout, "removed the stored token of user %s (not invalidated: the service honours it until the user withdraws the application's access); its synced data is kept\n", userID)
	case known:
		fmt.Fprintf(a.stdout, "user %s had no stored token: forgot the accounts recorded for it; its synced data is kept\n", userID)
	default:
		return fmt.Errorf("auth remove: no stored token of user %s for this application", userID)
	}
	return nil
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
			tok, replaced, err := api.CheckBearerToken(ctx, c)
			if err != nil {
				return err
			}
			if replaced {
				fmt.Fprintln(a.stdout, "the cached bearer token was no longer accepted by the service; obtained a new one")
			}
			fmt.Fprintf(a.stdout, "bearer token ready (%s)\n", maskToken(tok))
			if a.cfg.DatabaseURL == "" {
				fmt.Fprintln(a.stdout, "not cached: no database configured")
			}
			return nil
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
			// The cached token, else the outstanding one: the service answers a
			// repeated token request with the same value.
			tok, err := c.Bearer().Token(ctx, c)
			if err != nil {
				return err
			}
			err = api.InvalidateBearerToken(ctx, c, tok)
			if errors.Is(err, api.ErrNoAccess) {
				return fmt.Errorf("%w: the call was signed with the access token of %s, and only a token of the application's owner may invalidate the bearer token: sign in as the owner (adsync auth login) or configure the owner's ADSYNC_ACCESS_TOKEN and ADSYNC_ACCESS_SECRET", err, c.UserTokenHolder())
			}
			already := errors.Is(err, api.ErrInvalidToken)
			if err != nil && !already {
				return err
			}
			c.Bearer().Invalidate(ctx, c, tok)
			if already {
				fmt.Fprintf(a.stdout, "bearer token (%s) was already invalid; dropped from the cache\n", maskToken(tok))
				return nil
			}
			fmt.Fprintf(a.stdout, "bearer token (%s) invalidated\n", maskToken(tok))
			return nil
		},
	}
}

// maskToken shows only a token's last four characters.
func maskToken(tok string) string {
	if len(tok) <= 8 {
		return "…"
	}
	return "…" + tok[len(tok)-4:]
}

// callbackCatcher is the loopback listener of auth login: it receives the
// browser's redirect carrying the verifier.
type callbackCatcher struct {
	url     string
	srv     *http.Server
	results chan callbackResult
}

type callbackResult struct {
	token, verifier string
	denied          bool
}

// listenForCallback listens on 127.0.0.1:port (0 picks a free port).
func listenForCallback(port int) (*callbackCatcher, error) {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("auth login: listening for the callback: %w", err)
	}
	c := &callbackCatcher{
		url:     "http://" + l.Addr().String() + "/callback",
		results: make(chan callbackResult, 8),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /callback", c.handle)
	c.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = c.srv.Serve(l) }()
	return c, nil
}

func (c *callbackCatcher) handle(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	res := callbackResult{token: q.Get("oauth_token"), verifier: q.Get("oauth_verifier"), denied: q.Has("denied")}
	if res.denied {
		res.token = q.Get("denied") // the service names the denied request token
	}
	if !res.denied && (res.token == "" || res.verifier == "") {
		http.Error(w, "missing oauth_token or oauth_verifier", http.StatusBadRequest)
		return
	}
	msg := "adsync is authorized. You can close this window."
	if res.denied {
		msg = "Authorization was denied. You can close this window."
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	fmt.Fprintf(w, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>adsync</title></head><body><p>%s</p></body></html>\n", msg)
	select {
	case c.results <- res:
	default: // a result is already waiting; later redirects change nothing
	}
}

// wait returns the verifier of the redirect for requestToken.
func (c *callbackCatcher) wait(ctx context.Context, requestToken string) (string, error) {
	for {
		select {
		case <-ctx.Done():
			if errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
				return "", errors.New("timed out waiting for the browser's redirect (see --timeout)")
			}
			return "", context.Cause(ctx)
		case res := <-c.results:
			if res.denied && (res.token == "" || res.token == requestToken) {
				return "", errors.New("the user denied the authorization")
			}
			if res.token != requestToken {
				// A stale redirect of another attempt: keep waiting for ours.
				continue
			}
			return res.verifier, nil
		}
	}
}

func (c *callbackCatcher) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = c.srv.Shutdown(ctx)
}
