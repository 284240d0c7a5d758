package mcp

import (
	"context"
	"io"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults of Options.
const (
	DefaultMaxRows          = 500
	DefaultStatementTimeout = 10 * time.Second
)

// Options configure the server.
type Options struct {
	// Version is adsync's, as the server names itself.
	Version string
	// Now is the clock default spans are taken from (nil: time.Now).
	Now func() time.Time
	// MaxRows caps every answer's rows (0: DefaultMaxRows).
	MaxRows int
	// StatementTimeout bounds every statement (0: DefaultStatementTimeout).
	StatementTimeout time.Duration
}

// server holds what every tool reads with.
type server struct {
	pool *pgxpool.Pool
	opts Options
}

// New returns the MCP server with every tool, reading pool.
func New(pool *pgxpool.Pool, o Options) *sdk.Server {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxRows <= 0 {
		o.MaxRows = DefaultMaxRows
	}
	if o.StatementTimeout <= 0 {
		o.StatementTimeout = DefaultStatementTimeout
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	s := &server{pool: pool, opts: o}
	srv := sdk.NewServer(&sdk.Implementation{Name: "adsync", Title: "adsync (read-only)", Version: o.Version},
		&sdk.ServerOptions{Instructions: instructions})
	s.addListAccounts(srv)
	s.addPerformance(srv)
	s.addFindEntities(srv)
	s.addSyncStatus(srv)
	s.addAudiences(srv)
	s.addDescribeMetrics(srv)
	s.addEntityHistory(srv)
	return srv
}

// instructions tell an assistant what the server is for.
const instructions = `adsync's Postgres, read only: the advertising accounts it syncs, their
entities, their performance (report relations, spend in currency units), its pipeline
runs and custom audiences. Start with list_accounts; performance takes account-local
dates; describe_metrics says what each metric means. Answers are capped in rows and say
so when they were cut.`

// ServeStdio serves the tools over standard input and output (in and out:
// newline-delimited JSON-RPC) until the client closes in or ctx ends.
// Nothing else may write to out.
func ServeStdio(ctx context.Context, pool *pgxpool.Pool, o Options, in io.Reader, out io.Writer) error {
	t := &sdk.IOTransport{Reader: io.NopCloser(in), Writer: nopCloser{out}}
	return New(pool, o).Run(ctx, t)
}

// nopCloser is a writer whose Close leaves it open: the command's standard
// output outlives the session.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// Handler serves the tools over streamable HTTP. The worker puts it behind
// its access layer; it has none of its own.
func Handler(pool *pgxpool.Pool, o Options) http.Handler {
	srv := New(pool, o)
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv },
		&sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
}
