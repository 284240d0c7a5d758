package store

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ConnectOptions tune a pool.
type ConnectOptions struct {
	// MaxConns caps the pool; 0 keeps the URL's pool_max_conns or pgx's default.
	MaxConns int32
	// Timeout bounds the first connection and ping (default 10s).
	Timeout time.Duration
}

// Connect opens a pool and proves it works with a ping. Errors name the
// server (host and port, or socket directory) and never the password.
func Connect(ctx context.Context, url string, opts ConnectOptions) (*pgxpool.Pool, error) {
	if url == "" {
		return nil, errors.New("no database configured: set --database-url or ADSYNC_DATABASE_URL")
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("invalid database URL: %s", redactParseError(err))
	}
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	}
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	if cfg.ConnConfig.ConnectTimeout == 0 || cfg.ConnConfig.ConnectTimeout > timeout {
		cfg.ConnConfig.ConnectTimeout = timeout
	}
	where := ServerName(cfg.ConnConfig.Host, cfg.ConnConfig.Port)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("cannot connect to database at %s: %s", where, connectReason(err))
	}
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := pool.Ping(pctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("cannot connect to database at %s (database %q, user %q): %s", where, cfg.ConnConfig.Database, cfg.ConnConfig.User, connectReason(err))
	}
	return pool, nil
}

// DatabaseName names pool's database for messages: `database "adsync" at
// db.example:5432`.
func DatabaseName(pool *pgxpool.Pool) string {
	cc := pool.Config().ConnConfig
	return fmt.Sprintf("database %q at %s", cc.Database, ServerName(cc.Host, cc.Port))
}

// ServerName renders a host and port for messages ("db.example:5432", or
// "socket /path" for Unix sockets).
func ServerName(host string, port uint16) string {
	if strings.HasPrefix(host, "/") {
		return "socket " + host
	}
	return net.JoinHostPort(host, fmt.Sprint(port))
}

// connectReason reduces a pgx connection error to its cause, without the
// connection string.
func connectReason(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Message + " (SQLSTATE " + pgErr.Code + ")"
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Err != nil {
		return opErr.Err.Error()
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timed out"
	}
	msg := err.Error()
	// pgconn messages look like: failed to connect to `user=... database=...`: host:port (...): dial error: reason
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		return msg[i+2:]
	}
	return msg
}

// redactParseError drops the URL from pgx's parse errors (it may hold a password).
func redactParseError(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "cannot parse `"); i >= 0 {
		if j := strings.Index(msg[i+14:], "`"); j >= 0 {
			return msg[:i] + "cannot parse the URL" + msg[i+14+j+1:]
		}
	}
	return msg
}
