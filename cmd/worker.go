package adsynccmd

import (
	"context"
	"time"

	"github.com/adsync/adsync/cmd/internal/webui"
	"github.com/adsync/adsync/cmd/internal/worker"
	"github.com/adsync/adsync/jobs"
	"github.com/adsync/adsync/sync/mcp"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/spf13/cobra"
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

// runWorker builds the worker's pieces (metrics, the pipeline's
// dependencies, the access rules) and runs it until ctx ends (a signal).
func (a *app) runWorker(ctx context.Context, httpAddr string, shutdownTimeout time.Duration) error {
	a.metrics = jobs.NewMetrics()
	a.metrics.AudienceSyncs(a.cfg.AudienceNames())
	deps, err := a.pipeline(ctx)
	if err != nil {
		return err
	}
	hosts, err := a.cfg.AllowedHosts()
	if err != nil {
		return err
	}
	return worker.Run(ctx, worker.Options{Addr: httpAddr, Pool: deps.Pool, Metrics: a.metrics,
		Access: webui.Access{Password: a.cfg.UIPassword, MCPToken: a.cfg.MCPToken, AllowedHosts: hosts},
		MCP:    mcp.Options{Version: Version(), Now: a.clock}, ShutdownTimeout: shutdownTimeout,
		Queues: a.concurrency(), Log: a.log, Out: a.stdout,
		Start: func(ctx context.Context) (*river.Client[pgx.Tx], func(time.Duration) error, error) {
			return a.startWorking(ctx, deps, true)
		}})
}
