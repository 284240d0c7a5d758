package stats

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5"
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

// OpenRun is the newest stats run still running that was recorded with
// params (the arguments of the command that created it, as
// store.CreateRun stored them), and false when there is none: the same
// command run again continues that run instead of starting another beside
// it.
func OpenRun(ctx context.Context, pool *pgxpool.Pool, params any) (int64, bool, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return 0, false, fmt.Errorf("stats: looking for an open run: %w", err)
	}
	var id int64
	err = pool.QueryRow(ctx, `SELECT id FROM sync_runs WHERE pipeline = $1 AND outcome = $2 AND params = $3::jsonb
ORDER BY id DESC LIMIT 1`, Pipeline, store.RunRunning, p).Scan(&id)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return 0, false, nil
	case err != nil:
		return 0, false, fmt.Errorf("stats: looking for an open run: %w", err)
	}
	return id, true, nil
}
