package insights

import (
	"context"

	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Pipeline is the sync_runs pipeline of keyword insights.
const Pipeline = "insights"

// Counts is what a run records of its report.
func (r Report) Counts() map[string]int {
	return map[string]int{"sets": r.Sets, "windows": r.Windows, "requests": r.Requests, "buckets": r.Buckets}
}

// Recorded runs fn as one insights run in sync_runs (with trigger and
// params), ended succeeded or failed with the report's counts. Jobs record
// their runs themselves (one run across their attempts); commands that
// fetch in process use this.
func Recorded(ctx context.Context, pool *pgxpool.Pool, trigger string, params any, fn func(ctx context.Context) (Report, error)) (Report, error) {
	id, err := store.CreateRun(ctx, pool, Pipeline, trigger, params)
	if err != nil {
		return Report{}, err
	}
	rep, err := fn(ctx)
	outcome, reason := store.RunSucceeded, ""
	if err != nil {
		outcome, reason = store.RunFailed, err.Error()
	}
	if rerr := store.EndRun(context.WithoutCancel(ctx), pool, id, outcome, rep.Counts(), reason); rerr != nil && err == nil {
		err = rerr
	}
	return rep, err
}
