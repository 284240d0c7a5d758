package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultRunRetention is how long the history of finished runs is kept by
// default: 90 days.
const DefaultRunRetention = 90 * 24 * time.Hour

// Pruned counts what one PruneRuns call removed.
type Pruned struct {
	Runs, Units, StatsJobs int64
}

// pruneRunsSQL removes the oldest $2 finished runs that ended before $1,
// with their units (by the foreign key's cascade), their units' seen pages
// and their stats jobs (all finished: a run with an open stats job is
// kept). Kept whatever their age: running runs, the last finished run of
// each pipeline (what status shows of a pipeline that ran long ago), export
// runs (an output's files and incremental state name them) and the runs of
// audience uploads (an upload's record refers to its run). Runs another
// pruner holds are skipped, so two workers' batches never wait on each
// other.
const pruneRunsSQL = `WITH last AS (
    SELECT max(id) AS id FROM sync_runs WHERE outcome <> 'running' GROUP BY pipeline),
doomed AS (
    SELECT r.id FROM sync_runs r
    WHERE r.outcome <> 'running' AND r.finished_at < $1 AND r.pipeline <> 'export'
      AND r.id NOT IN (SELECT id FROM last)
      AND NOT EXISTS (SELECT 1 FROM audience_uploads u WHERE u.run_id = r.id)
      AND NOT EXISTS (SELECT 1 FROM stats_jobs j WHERE j.run_id = r.id AND j.state NOT IN ('stored', 'failed'))
    ORDER BY r.id LIMIT $2 FOR UPDATE SKIP LOCKED),
units AS (SELECT count(*) AS n FROM sync_run_units u JOIN doomed d ON u.run_id = d.id),
jobs AS (DELETE FROM stats_jobs j USING doomed d WHERE j.run_id = d.id RETURNING 1),
seen AS (DELETE FROM sync_unit_seen_pages s USING doomed d WHERE s.run_id = d.id RETURNING 1),
runs AS (DELETE FROM sync_runs r USING doomed d WHERE r.id = d.id RETURNING 1)
SELECT (SELECT count(*) FROM runs), (SELECT n FROM units), (SELECT count(*) FROM jobs)`

// PruneRuns removes the runs that finished before before, with their
// units and stats jobs (see pruneRunsSQL for what is always kept): batch
// runs a statement, each its own short transaction, at most batches
// statements a call, so a first pruning of a long history is spread over
// the calls of the worker's schedule. It says what it removed, on an error
// too (what the statements before it removed).
func PruneRuns(ctx context.Context, pool *pgxpool.Pool, before time.Time, batch, batches int) (Pruned, error) {
	var total Pruned
	for range batches {
		var p Pruned
		if err := pool.QueryRow(ctx, pruneRunsSQL, before, batch).Scan(&p.Runs, &p.Units, &p.StatsJobs); err != nil {
			return total, fmt.Errorf("pruning the run history: %w", err)
		}
		total.Runs, total.Units, total.StatsJobs = total.Runs+p.Runs, total.Units+p.Units, total.StatsJobs+p.StatsJobs
		if p.Runs < int64(batch) {
			break
		}
	}
	return total, nil
}
