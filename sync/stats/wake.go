package stats

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// WakeWaitingRun makes the run of stats_jobs row id due at once when no
// row of the run is open any more: the run's stats_sync River job, snoozed
// while it waits for the rows (a few seconds, so River keeps it available
// with a later scheduled_at), is scheduled now, and the run ends as soon as
// a worker fetches it rather than when its snooze runs out. A job running,
// done or snoozed past River's scheduler is left alone (it looks again on
// its own). It reports whether a job was woken.
func WakeWaitingRun(ctx context.Context, pool *pgxpool.Pool, id int64) (bool, error) {
	tag, err := pool.Exec(ctx, `UPDATE river_job j SET scheduled_at = now()
FROM stats_jobs s JOIN sync_runs r ON r.id = s.run_id
WHERE s.id = $1 AND j.kind = 'stats_sync' AND j.state = 'available' AND j.scheduled_at > now()
  AND (j.args->>'run_id' = r.id::text OR j.id::text = r.params->>'river_job_id')
  AND NOT EXISTS (SELECT 1 FROM stats_jobs o WHERE o.run_id = s.run_id AND o.state NOT IN ($2, $3))`,
		id, StateStored, StateFailed)
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() > 0, nil
}
