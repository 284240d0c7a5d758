package jobs

import (
	"context"
	"fmt"
	"github.com/adsync/adsync/sync/access"
	"time"

	"github.com/adsync/adsync/sync/audience"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"go.uber.org/zap"
)

// AudienceBatchArgs send one stored batch of an audience upload. They name
// the batch only: the users stay in Postgres, never in job args.
type AudienceBatchArgs struct {
	UploadID int64 `json:"upload_id" river:"unique"`
	Seq      int   `json:"seq" river:"unique"`
}

// Kind names the job.
func (AudienceBatchArgs) Kind() string { return "audience_batch" }

// audienceBatchMaxAttempts bounds the River attempts of a batch; each
// attempt already sends up to the Sender's tries.
const audienceBatchMaxAttempts = 10

// InsertOpts put the job on the audience queue, once per batch while one
// is waiting or running. A finished job does not block a new one: a
// resumed upload may need its batch again, and a batch already done is
// never resent whatever its jobs.
func (AudienceBatchArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueAudience, MaxAttempts: audienceBatchMaxAttempts, UniqueOpts: river.UniqueOpts{
		ByArgs: true,
		ByState: []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
			rivertype.JobStateRetryable, rivertype.JobStateScheduled},
	}}
}

// AudienceEnqueuer inserts the batch jobs of an upload in the planner's
// transaction through rc (an insert-only client is enough).
func AudienceEnqueuer(rc *river.Client[pgx.Tx]) audience.Enqueuer {
	return func(ctx context.Context, tx pgx.Tx, uploadID int64, seqs []int) error {
		const chunk = 1000
		for len(seqs) > 0 {
			n := min(chunk, len(seqs))
			params := make([]river.InsertManyParams, n)
			for i, seq := range seqs[:n] {
				params[i] = river.InsertManyParams{Args: AudienceBatchArgs{UploadID: uploadID, Seq: seq}}
			}
			if _, err := rc.InsertManyTx(ctx, tx, params); err != nil {
				return err
			}
			seqs = seqs[n:]
		}
		return nil
	}
}

// AudienceBatchWorker sends a batch through audience.Sender.
type AudienceBatchWorker struct {
	river.WorkerDefaults[AudienceBatchArgs]
	deps *Deps
}

// Work sends the batch. A rate-limit wait snoozes the job without using an
// attempt; a refusal for good cancels it; the last failed attempt marks the
// batch failed so the upload can finish.
func (w *AudienceBatchWorker) Work(ctx context.Context, job *river.Job[AudienceBatchArgs]) error {
	s := &audience.Sender{Pool: w.deps.Pool, API: w.deps.API, ClientFor: w.deps.clientFor(access.NeedAudience), OnAnswer: func(sent, accepted int) {
		w.deps.Metrics.AudienceUsers(int64(sent), int64(accepted))
	}}
	err := s.Send(ctx, job.Args.UploadID, job.Args.Seq)
	if err == nil {
		return nil
	}
	out, final := riverError(ctx, job.JobRow, err)
	if final {
		if ferr := s.MarkFailed(ctx, job.Args.UploadID, job.Args.Seq, fmt.Sprintf("gave up after %d attempts: %v", job.Attempt, err)); ferr != nil && w.deps.Log != nil {
			w.deps.Log.Error("audience batch: marking failed", zap.Int64("upload_id", job.Args.UploadID), zap.Int("seq", job.Args.Seq), zap.Error(ferr))
		}
	}
	return out
}

// addAudienceWorkers registers the audience upload workers.
func addAudienceWorkers(w *river.Workers, deps *Deps) {
	river.AddWorker(w, &AudienceBatchWorker{deps: deps})
	river.AddWorker(w, &AudienceSyncWorker{deps: deps})
}

// NextRetry backs off from 1 second, doubling to at most 5 minutes: a
// batch is idempotent and usually fails for passing reasons (5xx, resets).
func (w *AudienceBatchWorker) NextRetry(job *river.Job[AudienceBatchArgs]) time.Time {
	return time.Now().Add(unitRetryDelay(job.Attempt))
}
