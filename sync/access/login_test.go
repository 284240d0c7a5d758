package access_test

import (
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"
	"github.com/adsync/adsync/sync/access"
	"github.com/stretchr/testify/require"
)

var authorizeURL = regexp.MustCompile(`http://\S+/oauth/authorize\?\S+`)

func TestLoginWithThePINStoresTheTokenEncryptedAndPrintsNoSecret(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := context.Background()
	pin, typePIN := io.Pipe()
	out, errOut := &lockedBuffer{}, &lockedBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- access.Login(ctx, b.tokens, b.app, access.LoginOptions{Timeout: 20 * time.Second, In: pin, Out: out, Err: errOut})
	}()
	var u string
	require.Eventually(t, func() bool { u = authorizeURL.FindString(out.String()); return u != "" }, 10*time.Second, 10*time.Millisecond)
	status, page, err := fixtures.ApproveAsOwner(u)
	require.NoError(t, err, page)
	require.Equal(t, 200, status)
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "Enter the PIN: ") }, 10*time.Second, 10*time.Millisecond)
	_, err = io.WriteString(typePIN, fixtures.PINOf(page)+"\n")
	require.NoError(t, err)
	require.NoError(t, <-done)

	owner := b.ownerToken()
	require.Contains(t, out.String(), "logged in as @"+owner.ScreenName+" (user id "+owner.UserID+", access write); token stored encrypted\n")
	require.Empty(t, errOut.String())
	stored, err := b.tokens.Current(ctx, b.app.Credentials())
	require.NoError(t, err)
	require.Equal(t, owner.UserID, stored.UserID)
	requireNoSecrets(t, out.String(), stored.Token, stored.Secret)
}

func TestLoginWithoutAPINAtTheEndOfInputSaysSo(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	var out, errOut strings.Builder
	err := access.Login(context.Background(), b.tokens, b.app, access.LoginOptions{Timeout: 5 * time.Second,
		In: strings.NewReader(""), Out: &out, Err: &errOut})
	require.EqualError(t, err, "auth login: no PIN entered (end of input)")
	require.Contains(t, out.String(), "Enter the PIN: ")
	_, err = b.tokens.Current(context.Background(), b.app.Credentials())
	require.Error(t, err, "nothing stored")
}

func TestLoginLoopbackRefusedForItsFreePortSaysToPassPort(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *fixtures.Options) {
		o.Callbacks = []string{"http://127.0.0.1:1/callback"}
		o.AllowLoopbackCallbacks = false
	})
	var out, errOut strings.Builder
	err := access.Login(context.Background(), b.tokens, b.app, access.LoginOptions{Loopback: true, Timeout: 5 * time.Second,
		In: strings.NewReader(""), Out: &out, Err: &errOut})
	require.ErrorContains(t, err, "code 415")
	require.ErrorContains(t, err, "adsync listened on a free port; if the application approves a fixed URL http://127.0.0.1:PORT/callback, pass --port PORT")
	require.True(t, strings.HasPrefix(err.Error(), "auth login: "), err.Error())
}
