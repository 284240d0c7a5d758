// Package worker runs adsync worker's process: River's workers and
// schedules in this process, and beside them the HTTP server of the probes
// (/healthz, /readyz), the metrics scrape (/metrics), the runs and
// performance pages with River's UI (webui) and the MCP server (/mcp), the
// pages and /mcp behind webui.Access. On shutdown it stops fetching jobs,
// lets those in flight finish within a timeout, then stops the server.
//
// It owns the worker's HTTP routes and its start and shutdown order. It must
// not hold SQL or business logic (jobs and the sync/* packages do the work),
// and must not serve a page or /mcp outside the access rules.
package worker
