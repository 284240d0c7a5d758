package store

import (
	"context"
	"net"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures/localpg"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { os.Exit(localpg.Main(m)) }

func TestUnreachableDatabaseErrorNamesTheHostAndNotThePassword(t *testing.T) {
	t.Parallel()
	// A port nothing listens on: bind one, then close it.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())

	_, err = Connect(context.Background(), "postgres://app:hunter2@"+addr+"/adsync", ConnectOptions{Timeout: 3 * time.Second})
	require.Error(t, err)
	require.Contains(t, err.Error(), "cannot connect to database at "+addr)
	require.Contains(t, err.Error(), "connection refused")
	require.NotContains(t, err.Error(), "hunter2")
	require.NotContains(t, err.Error(), "\n")
}

func TestMalformedDatabaseURLDoesNotEchoIt(t *testing.T) {
	t.Parallel()
	_, err := Connect(context.Background(), "postgres://app:hunter2@host:notaport/db", ConnectOptions{})
	require.Error(t, err)
	require.Contains(t, err.Error(), "invalid database URL")
	require.NotContains(t, err.Error(), "hunter2")
}

func TestMissingDatabaseURLSaysHowToSetIt(t *testing.T) {
	t.Parallel()
	_, err := Connect(context.Background(), "", ConnectOptions{})
	require.ErrorContains(t, err, "ADSYNC_DATABASE_URL")
}

func TestConnectToLocalDatabase(t *testing.T) {
	t.Parallel()
	pool, err := Connect(context.Background(), localpg.NewDatabase(t), ConnectOptions{MaxConns: 3})
	require.NoError(t, err)
	defer pool.Close()
	require.EqualValues(t, 3, pool.Config().MaxConns)
}

func TestWrongDatabaseNameIsNamed(t *testing.T) {
	t.Parallel()
	u, err := url.Parse(localpg.NewDatabase(t))
	require.NoError(t, err)
	u.Path = "/no_such_db"
	_, err = Connect(context.Background(), u.String(), ConnectOptions{})
	require.Error(t, err)
	require.Contains(t, err.Error(), `"no_such_db"`)
	require.Contains(t, err.Error(), "does not exist")
}
