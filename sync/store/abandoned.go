package store

import (
	"context"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// EndAbandoned ends the units and runs whose River job reached a final
// state other than completed (cancelled or discarded from outside, in SQL
// or a River UI, or discarded after too many rescues) without ending them,
// which would otherwise stay running for ever:
//
//   - a sync unit still pending or running whose sync_unit job is
//     cancelled or discarded, with no other job of it waiting or running,
//     fails with a reason naming the job; its run finishes when it was the
//     last unit open;
//   - a run still running whose own job (the sync_run job of a sync, or
//     the job named by params.river_job_id) is cancelled or discarded
//     before the run fanned out fails.
//
// It reads River's river_job table and never writes it. It returns how
// many units and runs it ended.
func EndAbandoned(ctx context.Context, pool *pgxpool.Pool) (units, runs int, err error) {
	// One round trip ends the units and finds the runs; a second, when
	// units ended, forgets what they saw and finishes their runs; then
	// the commit.
	var ended []UnitKey
	var gone []abandonedRun
	err = BeginBatchFunc(ctx, pool, func(b *pgx.Batch) {
		b.Queue(endAbandonedUnitsSQL).Query(func(rows pgx.Rows) (err error) {
			ended, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (UnitKey, error) {
				var k UnitKey
				err := r.Scan(&k.RunID, &k.AccountID, &k.Entity)
				return k, err
			})
			return err
		})
		b.Queue(abandonedRunsSQL).Query(func(rows pgx.Rows) (err error) {
			gone, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (abandonedRun, error) {
				var f abandonedRun
				err := r.Scan(&f.id, &f.reason)
				return f, err
			})
			return err
		})
	}, func(tx pgx.Tx) error { return finishAbandoned(ctx, tx, ended) })
	if err != nil {
		return 0, 0, err
	}
	for _, f := range gone {
		if err := FailRun(ctx, pool, f.id, f.reason); err != nil {
			return len(ended), runs, err
		}
		runs++
	}
	return len(ended), runs, nil
}

// abandonedRun is a run to fail, and why.
type abandonedRun struct {
	id     int64
	reason string
}

// finishAbandoned forgets what the ended units saw (a unit that ends
// without completing never sweeps) and finishes their runs when they were
// the last units open, in one round trip.
func finishAbandoned(ctx context.Context, tx pgx.Tx, ended []UnitKey) error {
	if len(ended) == 0 {
		return nil
	}
	b := &pgx.Batch{}
	var runs []int64
	for _, k := range ended {
		b.Queue(forgetSeenSQL, k.RunID, k.AccountID, k.Entity)
		runs = append(runs, k.RunID)
	}
	slices.Sort(runs) // the runs' rows are locked in one order
	for _, id := range slices.Compact(runs) {
		queueFinishRun(b, id, "")
	}
	return tx.SendBatch(ctx, b).Close()
}

// endAbandonedUnitsSQL fails the open units whose job was cancelled or
// discarded with no other job of theirs waiting or running, and returns
// them.
const endAbandonedUnitsSQL = `WITH abandoned AS (
    SELECT DISTINCT ON (u.run_id, u.account_id, u.entity) u.run_id, u.account_id, u.entity, j.id AS job_id, j.state::text AS job_state
    FROM sync_run_units u
    JOIN river_job j ON j.kind = 'sync_unit' AND j.args->>'run_id' = u.run_id::text
        AND j.args->>'account_id' = u.account_id AND j.args->>'entity' = u.entity
    WHERE u.state IN ('pending', 'running') AND j.state IN ('cancelled', 'discarded')
      AND NOT EXISTS (SELECT 1 FROM river_job k WHERE k.kind = 'sync_unit' AND k.args->>'run_id' = u.run_id::text
          AND k.args->>'account_id' = u.account_id AND k.args->>'entity' = u.entity
          AND k.state NOT IN ('completed', 'cancelled', 'discarded'))
    ORDER BY u.run_id, u.account_id, u.entity, j.id DESC)
UPDATE sync_run_units u SET state = 'failed', finished_at = now(),
    error = format('job %s was %s before the unit ended', a.job_id, a.job_state)
FROM abandoned a
WHERE u.run_id = a.run_id AND u.account_id = a.account_id AND u.entity = a.entity AND u.state IN ('pending', 'running')
RETURNING u.run_id, u.account_id, u.entity`

// abandonedRunsSQL finds the runs whose job ended before they fanned out:
// only the accounts unit, run inside the run's job, may exist.
const abandonedRunsSQL = `SELECT r.id, format('job %s was %s before the run ended', j.id, j.state::text)
FROM sync_runs r
JOIN river_job j ON j.id = CASE WHEN r.params->>'river_job_id' ~ '^[0-9]+$' THEN (r.params->>'river_job_id')::bigint END
    OR (j.kind = 'sync_run' AND j.args->>'run_id' = r.id::text)
WHERE r.outcome = 'running' AND j.state IN ('cancelled', 'discarded')
  AND NOT EXISTS (SELECT 1 FROM sync_run_units u WHERE u.run_id = r.id AND u.entity <> 'accounts')`
