package store

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// This file is the registry of live workers (adsync_workers): each worker
// beats while it runs, and the others hand back the River jobs of one that
// stopped beating (see jobs.Liveness, which drives it).

// RegisterWorker records the worker of River client clientID on host as
// alive, or renews its heartbeat when it is already recorded.
func RegisterWorker(ctx context.Context, pool *pgxpool.Pool, clientID, host string, pid int) error {
	_, err := pool.Exec(ctx, `INSERT INTO adsync_workers (client_id, hostname, pid) VALUES ($1, $2, $3)
		ON CONFLICT (client_id) DO UPDATE SET heartbeat_at = now()`, clientID, host, pid)
	return err
}

// BeatWorker records that the worker of clientID is still alive.
func BeatWorker(ctx context.Context, pool *pgxpool.Pool, clientID string) error {
	_, err := pool.Exec(ctx, `UPDATE adsync_workers SET heartbeat_at = now() WHERE client_id = $1`, clientID)
	return err
}

// UnregisterWorker forgets the worker of clientID: a worker that stopped
// cleanly leaves nothing to rescue.
func UnregisterWorker(ctx context.Context, pool *pgxpool.Pool, clientID string) error {
	_, err := pool.Exec(ctx, `DELETE FROM adsync_workers WHERE client_id = $1`, clientID)
	return err
}

// RescueDeadWorkers forgets the workers, other than self, whose heartbeat
// is older than deadAfter, and hands back the River jobs they were running:
// each goes back to available at once without counting the attempt the
// crash interrupted, or is discarded once it was handed back maxRescues
// times (a job that kills its worker must not loop for ever). The job's
// errors say why. It returns how many jobs it handed back or discarded.
func RescueDeadWorkers(ctx context.Context, pool *pgxpool.Pool, deadAfter time.Duration, self string, maxRescues int) (int64, error) {
	tag, err := pool.Exec(ctx, `WITH dead AS (
			DELETE FROM adsync_workers WHERE heartbeat_at < now() - $1::interval AND client_id <> $2 RETURNING client_id
		)
		UPDATE river_job SET
			state        = CASE WHEN coalesce((metadata->>'adsync_rescues')::int, 0) >= $3 THEN 'discarded'::river_job_state ELSE 'available'::river_job_state END,
			finalized_at = CASE WHEN coalesce((metadata->>'adsync_rescues')::int, 0) >= $3 THEN now() END,
			attempt      = CASE WHEN coalesce((metadata->>'adsync_rescues')::int, 0) >= $3 THEN attempt ELSE greatest(attempt - 1, 0) END,
			scheduled_at = now(),
			metadata     = jsonb_set(metadata, '{adsync_rescues}', to_jsonb(coalesce((metadata->>'adsync_rescues')::int, 0) + 1)),
			errors       = array_append(errors, jsonb_build_object('at', now(), 'attempt', attempt,
			               'error', 'the worker running this job stopped (killed or lost) and the job was handed back', 'trace', ''))
		WHERE state = 'running' AND attempted_by[array_length(attempted_by, 1)] IN (SELECT client_id FROM dead)`,
		deadAfter.String(), self, maxRescues)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}
