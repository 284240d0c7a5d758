package adsynccmd

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/adsync/adsync/cmd/internal/logging"
	"github.com/adsync/adsync/cmd/internal/webui"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/mcp"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"
	"go.uber.org/zap"
)

func (a *app) workerCommand() *cobra.Command {
	var httpAddr string
	var shutdown time.Duration
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Run River workers and the schedules; serve the runs page, River's UI, /healthz, /readyz and /metrics",
		Long: `Run the workers of every queue (sync, audience, export, default; concurrency from
queues.*) and the cron schedules (schedules.*, and each configured audience's schedule;
River's elected leader enqueues them, so any number of workers may run). On SIGINT or
SIGTERM the worker stops fetching, lets jobs in flight finish within --shutdown-timeout
(then cancels them: they snooze or retry later), and closes the database pool last.

The HTTP server also serves the runs page at / (recent runs, failures, a 30-day
chart) and River's UI at /riverui/: open on a loopback address; on any other
address refused unless ADSYNC_UI_PASSWORD (ui_password) is set, and then behind
HTTP basic auth as user admin. On any address the pages refuse a Host that is not
an IP address, localhost or a name in http_allowed_hosts (DNS rebinding), refuse
a browser's write from another site, and may not be framed.

/mcp serves the read-only MCP server (streamable HTTP; adsync mcp serves it on
standard input and output) behind the same Host and cross-site rules: open on
loopback; on any other address refused unless ADSYNC_MCP_TOKEN (mcp_token) is set,
and then only to requests with Authorization: Bearer <token>.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if httpAddr == "" {
				httpAddr = a.cfg.HTTPAddr
			}
			return a.runWorker(cmd.Context(), httpAddr, shutdown)
		},
	}
	cmd.Flags().StringVar(&httpAddr, "http-addr", "", "listen address of the runs page, River's UI, health and metrics (default: http_addr, 127.0.0.1:9090)")
	cmd.Flags().DurationVar(&shutdown, "shutdown-timeout", 30*time.Second, "how long jobs in flight may take to finish on shutdown")
	return cmd
}

// runWorker runs until ctx ends (a signal), then shuts down in order.
func (a *app) runWorker(ctx context.Context, httpAddr string, shutdownTimeout time.Duration) error {
	a.metrics = jobs.NewMetrics()
	a.metrics.AudienceSyncs(a.cfg.AudienceNames())
	deps, err := a.pipeline(ctx)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", httpAddr)
	if err != nil {
		return fmt.Errorf("listening on %s for health and metrics: %w", httpAddr, err)
	}
	var running atomic.Bool
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		pctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := deps.Pool.Ping(pctx); err != nil {
			http.Error(w, "database unreachable", http.StatusServiceUnavailable)
			return
		}
		if !running.Load() {
			http.Error(w, "workers not running", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(a.metrics.Registry(), promhttp.HandlerOpts{}))
	// Everything else is the runs page and River's UI, behind the access
	// layer; the probes and the scrape above stay open.
	ui := webui.New(webui.Options{Pool: deps.Pool})
	access, err := a.access(ln.Addr())
	if err != nil {
		_ = ln.Close()
		return err
	}
	mux.Handle("/", access.Wrap(ui))
	mux.Handle("/mcp", access.WrapMCP(mcp.Handler(deps.Pool, mcp.Options{Version: Version(), Now: a.clock})))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()

	client, stop, err := a.startWorking(ctx, deps, true)
	if err != nil {
		_ = srv.Close()
		return err
	}
	runCtx, stopRun := context.WithCancel(context.WithoutCancel(ctx))
	defer stopRun()
	a.metrics.WatchJobs(runCtx, client)
	riverUI, err := webui.RiverUI(runCtx, client, logging.Slog(a.log))
	if err != nil {
		a.log.Warn("River's UI is not served", zap.Error(err))
	} else {
		ui.SetRiverUI(riverUI)
	}
	running.Store(true)
	a.log.Info("worker started", zap.String("http_addr", ln.Addr().String()), zap.Any("queues", a.concurrency()))
	fmt.Fprintf(a.stdout, "worker running; runs page on http://%s/ (River's UI on /riverui/%s); health and metrics on http://%s\n",
		ln.Addr(), uiAccessNote(ln.Addr(), a.cfg.UIPassword != ""), ln.Addr())

	<-ctx.Done()
	a.log.Info("shutting down: no new jobs; waiting for jobs in flight", zap.Duration("timeout", shutdownTimeout))
	running.Store(false)
	err = stop(shutdownTimeout)
	hctx, hcancel := context.WithTimeout(context.Background(), 5*time.Second)
	_ = srv.Shutdown(hctx)
	hcancel()
	stopRun()
	if err != nil {
		return fmt.Errorf("stopping the workers: %w", err)
	}
	fmt.Fprintln(a.stdout, "worker stopped")
	return nil
}

// access is the worker's access layer for its pages on the listener addr.
func (a *app) access(addr net.Addr) (webui.Access, error) {
	hosts, err := a.cfg.AllowedHosts()
	if err != nil {
		return webui.Access{}, err
	}
	return webui.Access{Loopback: webui.IsLoopback(addr), Password: a.cfg.UIPassword, MCPToken: a.cfg.MCPToken,
		AllowedHosts: hosts}, nil
}

// uiAccessNote says, after the pages' URLs, who may open them: nothing on
// loopback; else the password or its absence (never the password itself).
func uiAccessNote(addr net.Addr, password bool) string {
	switch {
	case webui.IsLoopback(addr):
		return ""
	case password:
		return "; basic auth as user " + webui.User + " with ADSYNC_UI_PASSWORD"
	default:
		return "; refused until ADSYNC_UI_PASSWORD is set"
	}
}
