package stats

import (
	"context"
	"encoding/json"

	"github.com/jackc/pgx/v5/pgxpool"
)

// RunState is a stats run as sync_runs records it.
type RunState struct {
	ID      int64
	Outcome string
	Error   string
	Report  Report
}

// GetRun reads a stats run and its counts.
func GetRun(ctx context.Context, pool *pgxpool.Pool, runID int64) (RunState, error) {
	r := RunState{ID: runID}
	var errText *string
	var counts []byte
	if err := pool.QueryRow(ctx, `SELECT outcome, error, counts FROM sync_runs WHERE id = $1 AND pipeline = $2`,
		runID, Pipeline).Scan(&r.Outcome, &errText, &counts); err != nil {
		return r, err
	}
	if errText != nil {
		r.Error = *errText
	}
	if len(counts) > 0 {
		_ = json.Unmarshal(counts, &r.Report) // counts of another shape leave the report empty
	}
	return r, nil
}
