package mcp

import (
	"context"

	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// SyncStatusInput is what the sync_status tool takes.
type SyncStatusInput struct {
	Runs int `json:"runs,omitempty" jsonschema:"how many recent runs of each pipeline (default 5, at most 50)"`
}

// SyncStatus is sync_status's structured output.
type SyncStatus struct {
	Runs       []map[string]any `json:"runs" jsonschema:"the recent runs of every pipeline, newest first"`
	Failures   []map[string]any `json:"failures" jsonschema:"the recent runs that failed or partly failed, with their errors (credentials redacted)"`
	NewestData []map[string]any `json:"newest_data" jsonschema:"per account: when its entities were last synced and the newest analytics"`
	Truncated  bool             `json:"truncated" jsonschema:"true when the row cap cut rows"`
}

const (
	// recentRunsSQL are the $1 newest runs of each pipeline.
	recentRunsSQL = `SELECT id, pipeline, trigger, started_at, finished_at, outcome, counts, error
FROM (SELECT r.*, row_number() OVER (PARTITION BY pipeline ORDER BY id DESC) AS n FROM sync_runs r) r
WHERE n <= $1 ORDER BY id DESC`
	// failuresSQL are the newest failed or partial runs.
	failuresSQL = `SELECT id, pipeline, started_at, finished_at, outcome, error,
    (SELECT jsonb_agg(jsonb_build_object('account_id', u.account_id, 'entity', u.entity, 'error', u.error))
        FROM sync_run_units u WHERE u.run_id = r.id AND u.state = 'failed') AS failed_units
FROM sync_runs r WHERE outcome IN ('failed', 'partial') ORDER BY id DESC LIMIT $1`
	// newestDataSQL is each account's newest data.
	newestDataSQL = `SELECT a.id AS account_id, a.name,
    (SELECT max(b.last_success_at) FROM sync_bookmarks b WHERE b.account_id = a.id) AS entities_synced_at,
    (SELECT max(s.fetched_at) FROM ad_stats s WHERE s.account_id = a.id) AS analytics_fetched_at,
    (SELECT max(s.bucket_date) FROM ad_stats s WHERE s.account_id = a.id AND s.granularity = 'DAY') AS analytics_last_day
FROM accounts a WHERE NOT a.deleted ORDER BY a.id`
)

func (s *server) addSyncStatus(srv *sdk.Server) {
	sdk.AddTool(srv, &sdk.Tool{
		Name:  "sync_status",
		Title: "Show the pipelines' recent runs and failures",
		Description: "Shows adsync's recent pipeline runs (sync, stats, insights, posts, audience, export): when " +
			"each started and ended, its outcome and counts; the recent failures with their errors (credentials " +
			"redacted) and the units that failed; and per account the newest entities and analytics stored. Use it " +
			"to tell whether data is fresh before reading performance.",
		Annotations: readOnly(),
	}, s.syncStatus)
}

// syncStatus answers sync_status.
func (s *server) syncStatus(ctx context.Context, _ *sdk.CallToolRequest, in SyncStatusInput) (*sdk.CallToolResult, SyncStatus, error) {
	n := in.Runs
	if n == 0 {
		n = 5
	}
	if n < 0 || n > 50 {
		return nil, SyncStatus{}, inputErrorf("runs %d: want 1 to 50", in.Runs)
	}
	var out SyncStatus
	err := s.read(ctx, func(tx pgx.Tx) error {
		for _, q := range []struct {
			sql  string
			args []any
			into *[]map[string]any
		}{{recentRunsSQL, []any{n}, &out.Runs}, {failuresSQL, []any{n}, &out.Failures}, {newestDataSQL, nil, &out.NewestData}} {
			rows, err := tx.Query(ctx, q.sql, q.args...)
			if err != nil {
				return err
			}
			var cut bool
			if *q.into, cut, err = collect(rows, s.opts.MaxRows); err != nil {
				return err
			}
			out.Truncated = out.Truncated || cut
		}
		return nil
	})
	if err != nil {
		return nil, SyncStatus{}, err
	}
	redactErrors(out.Runs)
	redactErrors(out.Failures)
	text := render("runs", []string{"id", "pipeline", "outcome", "started_at", "finished_at", "error"}, Answer{Rows: out.Runs}) +
		render("failures", []string{"id", "pipeline", "outcome", "started_at", "error"}, Answer{Rows: out.Failures}) +
		render("newest data", []string{"account_id", "entities_synced_at", "analytics_fetched_at", "analytics_last_day"},
			Answer{Rows: out.NewestData, Truncated: out.Truncated})
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, out, nil
}

// redactErrors replaces credentials in the rows' errors (a run's and its
// failed units') with [redacted].
func redactErrors(rows []map[string]any) {
	for _, r := range rows {
		if e, ok := r["error"].(string); ok {
			r["error"] = store.Redact(e)
		}
		units, _ := r["failed_units"].([]any)
		for _, u := range units {
			if m, ok := u.(map[string]any); ok {
				if e, ok := m["error"].(string); ok {
					m["error"] = store.Redact(e)
				}
			}
		}
	}
}
