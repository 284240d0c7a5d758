package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"time"

	"github.com/adsync/adsync/sync/store"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/zap"
)

// Liveness lets workers hand back the jobs of a worker that died, and end
// the units and runs whose jobs were cancelled or discarded without ending
// them (store.EndAbandoned), so no run stays running for ever. River
// rescues a stuck job only after RescueStuckJobsAfter (an hour by default,
// longer than any job may run); a worker that was killed is known to be
// gone much sooner: it stopped beating. Its running jobs go back to the
// queue at once, without counting the attempt the crash interrupted (every
// job resumes from its checkpoint and is safe to run again), up to
// MaxRescues times per job, which stops a job that kills its worker from
// looping for ever.
type Liveness struct {
	Pool *pgxpool.Pool
	Log  *zap.Logger
	// ClientID is this worker's River client id.
	ClientID string
	// Interval between heartbeats (and rescues); DeadAfter without a
	// heartbeat makes a worker dead.
	Interval, DeadAfter time.Duration
	// MaxRescues bounds how often one job is handed back.
	MaxRescues int
}

// NewClientID returns a River client id naming this host and process.
func NewClientID() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("adsync-%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b))
}

// Start registers the worker and beats until ctx ends; the returned stop
// removes the registration (a clean exit leaves nothing to rescue).
func (l *Liveness) Start(ctx context.Context) (stop func(), err error) {
	if l.Interval <= 0 {
		l.Interval = 5 * time.Second
	}
	if l.DeadAfter <= 0 {
		l.DeadAfter = 6 * l.Interval
	}
	if l.MaxRescues <= 0 {
		l.MaxRescues = 10
	}
	host, _ := os.Hostname()
	if err := store.RegisterWorker(ctx, l.Pool, l.ClientID, host, os.Getpid()); err != nil {
		return nil, fmt.Errorf("registering the worker: %w", err)
	}
	bctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(l.Interval)
		defer t.Stop()
		for {
			l.beat(bctx)
			select {
			case <-bctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() {
		cancel()
		<-done
		ctx, c := context.WithTimeout(context.Background(), 5*time.Second)
		defer c()
		_ = store.UnregisterWorker(ctx, l.Pool, l.ClientID)
	}, nil
}

// beat records this worker as alive, rescues the jobs of dead ones and
// ends what cancelled jobs left open.
func (l *Liveness) beat(ctx context.Context) {
	if err := store.BeatWorker(ctx, l.Pool, l.ClientID); err != nil {
		if ctx.Err() == nil {
			l.Log.Warn("worker heartbeat failed", zap.Error(err))
		}
		return
	}
	n, err := l.Rescue(ctx)
	if err != nil {
		if ctx.Err() == nil {
			l.Log.Warn("rescuing the jobs of stopped workers failed", zap.Error(err))
		}
		return
	}
	if n > 0 {
		l.Log.Info("handed back the jobs of stopped workers", zap.Int64("jobs", n))
	}
	units, runs, err := store.EndAbandoned(ctx, l.Pool)
	if err != nil {
		if ctx.Err() == nil {
			l.Log.Warn("ending the units and runs of cancelled jobs failed", zap.Error(err))
		}
		return
	}
	if units > 0 || runs > 0 {
		l.Log.Info("ended the units and runs whose jobs were cancelled or discarded", zap.Int("units", units), zap.Int("runs", runs))
	}
}

// Rescue hands back the running jobs of workers whose heartbeat is older
// than DeadAfter and forgets those workers (see store.RescueDeadWorkers).
// It returns the jobs handed back.
func (l *Liveness) Rescue(ctx context.Context) (int64, error) {
	return store.RescueDeadWorkers(ctx, l.Pool, l.DeadAfter, l.ClientID, l.MaxRescues)
}
