package api_test

import (
	"context"
	"fmt"
	"testing"

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
