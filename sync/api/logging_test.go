package api_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures"

	"github.com/adsync/adsync/sync/api"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

func TestDebugLogsRedactAuthorizationAndTokens(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	core, logs := observer.New(zapcore.DebugLevel)
	cfg := f.config()
	cfg.Logger = zap.New(core)
	src := api.NewBearerSource(api.NewMemoryBearerStore())
	cfg.Bearer = src
	c := newClient(t, cfg)
	ctx := context.Background()
	_, err := getPosts(ctx, c)
	require.NoError(t, err)
	bearer, err := src.Token(ctx, c)
	require.NoError(t, err)
	require.NoError(t, api.InvalidateBearerToken(ctx, c, bearer))

	require.NotZero(t, logs.Len(), "requests are logged at debug level")
	secrets := []string{bearer, cfg.Credentials.ConsumerSecret, cfg.UserToken.Token, cfg.UserToken.Secret, "OAuth ", "Bearer "}
	for _, e := range logs.All() {
		line := e.Message + fmt.Sprint(e.ContextMap())
		for _, s := range secrets {
			require.NotContains(t, line, s)
		}
	}
}

func TestLongWaitsAreLoggedAtInfoWithEndpointAndUntil(t *testing.T) {
	t.Parallel()
	f := newFake(t, func(o *fixtures.Options) { o.BearerRequestLimit = 1 })
	ctx := context.Background()
	_, err := api.RequestBearerToken(ctx, newClient(t, f.config())) // uses up the allowance
	require.NoError(t, err)

	core, logs := observer.New(zapcore.InfoLevel)
	cfg := f.config()
	cfg.Logger = zap.New(core)
	c := newClient(t, cfg)
	_, err = getPosts(ctx, c)
	var rae *api.RetryAtError
	require.ErrorAs(t, err, &rae)
	until := rae.At.UTC().Format(time.RFC3339)
	lines := logs.FilterField(zap.String("endpoint", "POST /oauth2/token")).All()
	require.Len(t, lines, 1, "one line at info level names the endpoint")
	require.Equal(t, "not sending POST /oauth2/token before "+until, lines[0].Message)
	require.Equal(t, until, lines[0].ContextMap()["until"])
	require.Contains(t, lines[0].ContextMap()["reason"], "403 code 99")
	for _, e := range logs.All() {
		require.NotContains(t, e.Message+fmt.Sprint(e.ContextMap()), cfg.Credentials.ConsumerSecret)
	}
}

func TestGovernorWaitsLongerThanLongWaitAreLogged(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zapcore.InfoLevel)
	store := api.NewMemoryStore()
	g := api.NewGovernor(store)
	g.Log = zap.New(core)
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	g.Now = func() time.Time { return now }
	g.Sleep = func(context.Context, time.Duration) error { now = now.Add(time.Minute); return nil }
	g.Presets = map[string]api.Budget{"GET /x": {Limit: 1, Window: time.Minute}}
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		_, err := g.Acquire(ctx, "GET /x", "", "")
		require.NoError(t, err)
	}
	lines := logs.All()
	require.Len(t, lines, 1)
	require.Equal(t, "waiting before sending GET /x", lines[0].Message)
	require.Equal(t, "GET /x", lines[0].ContextMap()["endpoint"])
	require.Equal(t, "2030-01-02T03:05:05Z", lines[0].ContextMap()["until"])
}
