package worker

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/adsync/adsync/cmd/internal/logging"
	"github.com/adsync/adsync/cmd/internal/webui"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/mcp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/riverqueue/river"
	"go.uber.org/zap"
)

// StartFunc starts River's client working jobs, schedules included; stop
// stops it, letting jobs in flight finish within timeout and then
// cancelling them.
type StartFunc func(ctx context.Context) (client *river.Client[pgx.Tx], stop func(timeout time.Duration) error, err error)

// Options are what the worker runs and serves.
type Options struct {
	// Addr is the HTTP server's listen address.
	Addr    string
	Pool    *pgxpool.Pool
	Metrics *jobs.Metrics
	// Access guards the pages and /mcp; Loopback is set from the listener.
	Access webui.Access
	MCP    mcp.Options
	Start  StartFunc
	// ShutdownTimeout is how long jobs in flight may take to finish.
	ShutdownTimeout time.Duration
	// Queues is the concurrency by queue, for the log.
	Queues map[string]int
	Log    *zap.Logger
	// Out is where the worker says it runs and stopped.
	Out io.Writer
}

// Run listens on Addr, starts the workers, and serves until ctx ends (a
// signal); then it shuts down in order: no new jobs, jobs in flight
// finished or cancelled, the HTTP server last but for the pool, which the
// caller closes.
func Run(ctx context.Context, o Options) error {
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return fmt.Errorf("listening on %s for health and metrics: %w", o.Addr, err)
	}
	o.Access.Loopback = webui.IsLoopback(ln.Addr())
	var running atomic.Bool
	ui := webui.New(webui.Options{Pool: o.Pool})
	srv := &http.Server{Handler: o.routes(ui, &running), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()

	client, stop, err := o.Start(ctx)
	if err != nil {
		_ = srv.Close()
		return err
	}
	runCtx, stopRun := context.WithCancel(context.WithoutCancel(ctx))
	defer stopRun()
	o.Metrics.WatchJobs(runCtx, client)
	riverUI, err := webui.RiverUI(runCtx, client, logging.Slog(o.Log))
	if err != nil {
		o.Log.Warn("River's UI is not served", zap.Error(err))
	} else {
		ui.SetRiverUI(riverUI)
	}
	running.Store(true)
	o.Log.Info("worker started", zap.String("http_addr", ln.Addr().String()), zap.Any("queues", o.Queues))
	fmt.Fprintf(o.Out, "worker running; runs page on http://%s/ (River's UI on /riverui/%s); health and metrics on http://%s\n",
		ln.Addr(), accessNote(ln.Addr(), o.Access.Password != ""), ln.Addr())

	<-ctx.Done()
	o.Log.Info("shutting down: no new jobs; waiting for jobs in flight", zap.Duration("timeout", o.ShutdownTimeout))
	running.Store(false)
	err = stop(o.ShutdownTimeout)
	hctx, hcancel := context.WithTimeout(context.Background(), 5*time.Second)
	_ = srv.Shutdown(hctx)
	hcancel()
	stopRun()
	if err != nil {
		return fmt.Errorf("stopping the workers: %w", err)
	}
	fmt.Fprintln(o.Out, "worker stopped")
	return nil
}

// routes are the probes and the scrape, open, and everything else (the
// pages, River's UI, /mcp) behind the access layer. /readyz answers ready
// once the workers run and while the database answers.
func (o Options) routes(ui *webui.Server, running *atomic.Bool) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		pctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := o.Pool.Ping(pctx); err != nil {
			http.Error(w, "database unreachable", http.StatusServiceUnavailable)
			return
		}
		if !running.Load() {
			http.Error(w, "workers not running", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(o.Metrics.Registry(), promhttp.HandlerOpts{}))
	mux.Handle("/", o.Access.Wrap(ui))
	mux.Handle("/mcp", o.Access.WrapMCP(mcp.Handler(o.Pool, o.MCP)))
	return mux
}

// accessNote says, after the pages' URLs, who may open them: nothing on
// loopback; else the password or its absence (never the password itself).
func accessNote(addr net.Addr, password bool) string {
	switch {
	case webui.IsLoopback(addr):
		return ""
	case password:
		return "; basic auth as user " + webui.User + " with ADSYNC_UI_PASSWORD"
	default:
		return "; refused until ADSYNC_UI_PASSWORD is set"
	}
}
