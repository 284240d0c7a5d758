package access

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/adsync/adsync/sync/api"
)

// LoginOptions shape adsync auth login.
type LoginOptions struct {
	// Loopback catches the verifier from the browser's redirect to
	// 127.0.0.1 (on Port, else a free port); otherwise the user enters the
	// PIN the service shows ("oob").
	Loopback bool
	Port     int
	// AccessType is read or write ("": the application's level).
	AccessType string
	Authorize  api.AuthorizeOptions
	// Timeout bounds the wait for the user's approval.
	Timeout time.Duration
	// In is where the PIN is read; Out and Err are the terminal's.
	In       io.Reader
	Out, Err io.Writer
}

// Login runs the three-legged OAuth 1.0a flow for a person at a terminal
// and stores the user's token in tokens, encrypted: the authorization URL
// goes to Out, the verifier comes from the PIN on In or the loopback
// redirect. c is the application's client, without a stored token. The
// token is never printed.
func Login(ctx context.Context, tokens api.PGUserTokenStore, c *api.Client, o LoginOptions) error {
	undecryptable, err := sayUndecryptable(ctx, tokens, c.Credentials(), o.Err)
	if err != nil {
		return err
	}
	verifierOf, callback, closeListener, err := o.verifierSource()
	if err != nil {
		return err
	}
	defer closeListener()
	rt, err := api.RequestToken(ctx, c, callback, o.AccessType)
	if err != nil {
		return o.requestError(err)
	}
	fmt.Fprintf(o.Out, "Open this URL in a browser and authorize adsync:\n\n  %s\n\n", api.AuthorizeURL(c, rt.Token, o.Authorize))
	// Only the wait for the user is bounded by the timeout.
	wctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	verifier, err := verifierOf(wctx, rt.Token)
	if err != nil {
		return fmt.Errorf("auth login: %w", err)
	}
	ut, err := api.AccessToken(ctx, c, rt, verifier)
	if err != nil {
		return err
	}
	ut.AccessType = o.AccessType
	if ut.AccessType == "" {
		// The response does not say. Without svc_auth_access_type the token
		// gets the application's level, taken to be write.
		ut.AccessType = api.AccessWrite
	}
	if err := tokens.Save(ctx, c.Credentials(), ut); err != nil {
		return fmt.Errorf("storing the token: %w", err)
	}
	fmt.Fprintf(o.Out, "logged in as @%s (user id %s, access %s); token stored encrypted\n", ut.ScreenName, ut.UserID, ut.AccessType)
	if undecryptable != "" && undecryptable != ut.UserID {
		fmt.Fprintf(o.Out, "the undecryptable token of user %s is still stored, unused: adsync auth remove --user-id %s forgets it\n", undecryptable, undecryptable)
	}
	return nil
}

// verifierOf waits for the verifier of a request token.
type verifierOf func(ctx context.Context, requestToken string) (string, error)

// verifierSource is where the verifier comes from, with the callback to
// send: the PIN on In ("oob"), or the loopback listener's redirect (stop
// ends it).
func (o LoginOptions) verifierSource() (wait verifierOf, callback string, stop func(), err error) {
	if !o.Loopback {
		return func(ctx context.Context, _ string) (string, error) {
			fmt.Fprint(o.Out, "Enter the PIN: ")
			pin, err := readLine(ctx, o.In)
			fmt.Fprintln(o.Out)
			return pin, err
		}, "oob", func() {}, nil
	}
	l, err := api.ListenForCallback(o.Port)
	if err != nil {
		return nil, "", nil, fmt.Errorf("auth login: %w", err)
	}
	return func(ctx context.Context, requestToken string) (string, error) {
		fmt.Fprintf(o.Out, "Waiting for the browser's redirect to %s ...\n", l.URL)
		return l.Wait(ctx, requestToken)
	}, l.URL, l.Close, nil
}

// requestError adds to a refused loopback callback URL how to send an
// approved one.
func (o LoginOptions) requestError(err error) error {
	var cerr *api.CallbackNotApprovedError
	if !errors.As(err, &cerr) || !o.Loopback {
		return err
	}
	if o.Port == 0 {
		return fmt.Errorf("auth login: %w: adsync listened on a free port; if the application approves a fixed URL http://127.0.0.1:PORT/callback, pass --port PORT", err)
	}
	return fmt.Errorf("auth login: %w: approve this URL in the application's settings, or pass the --port of one it approves (http://127.0.0.1:PORT/callback)", err)
}

// sayUndecryptable says on w, before a login replaces it, that the current
// stored token cannot be decrypted with the configured key, and returns
// its user id ("" when it can be, or none is stored).
func sayUndecryptable(ctx context.Context, tokens api.PGUserTokenStore, creds api.Credentials, w io.Writer) (string, error) {
	_, err := tokens.Current(ctx, creds)
	var undecryptable *api.UndecryptableTokenError
	switch {
	case errors.As(err, &undecryptable):
		fmt.Fprintf(w, "adsync: the stored token of user %s cannot be decrypted with this ADSYNC_SECRET_KEY (was it changed?): this login replaces it\n", undecryptable.UserID)
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
