package api

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// PGStore is a BudgetStore in Postgres (table api_rate_limits), so every
// process sharing the database shares one budget. It follows MemoryStore's
// rules, each step in one statement.
type PGStore struct{ Pool *pgxpool.Pool }

// Reserve implements BudgetStore.
func (s PGStore) Reserve(ctx context.Context, bucket string, now time.Time, preset *Budget, ttl time.Duration) (bool, time.Time, error) {
	// The window's row exists but for a bucket's first request: try the
	// reservation first (one statement when there is room).
	reserved, err := s.reserve(ctx, bucket, now, ttl)
	if err != nil || reserved {
		return reserved, time.Time{}, err
	}
	// No room, or no row (another process may create it meanwhile): as
	// before, create the row if missing and try once more.
	w := newWindow(now, preset)
	if _, err := s.Pool.Exec(ctx, `INSERT INTO api_rate_limits (bucket, lim, remaining, reset_at, period_ms, probing)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (bucket) DO NOTHING`,
		bucket, w.limit, w.remaining, w.reset, w.period.Milliseconds(), w.probing); err != nil {
		return false, time.Time{}, err
	}
	if reserved, err = s.reserve(ctx, bucket, now, ttl); err != nil || reserved {
		return reserved, time.Time{}, err
	}
	var reset time.Time
	var probing, room bool
	err = s.Pool.QueryRow(ctx, `SELECT reset_at, probing,
		remaining - CASE WHEN inflight_until < $2 THEN 0 ELSE inflight END > 0 FROM api_rate_limits WHERE bucket = $1`,
		bucket, now).Scan(&reset, &probing, &room)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, now.Add(probePoll), nil // removed meanwhile: look again
	}
	if err != nil {
		return false, time.Time{}, err
	}
	if room {
		// An answer arrived between the update and this read (a probe's
		// answer opens the window): look again at once rather than wait
		// for a reset that no longer applies.
		return false, now, nil
	}
	if probing {
		return false, minTime(reset, now.Add(probePoll)), nil // waiting for the probe's answer
	}
	return false, reset, nil
}

// reserve takes one request from the bucket's window when it has room (or
// is over); false when it has none or the bucket has no row yet.
func (s PGStore) reserve(ctx context.Context, bucket string, now time.Time, ttl time.Duration) (bool, error) {
	tag, err := s.Pool.Exec(ctx, reserveSQL, reserveArgs(bucket, now, ttl)...)
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() == 1, nil
}

// reserveSQL takes one request from bucket $1's window at $2. A window that
// is over becomes a one-request probe: the service's next window may
// already hold requests, and the probe's answer tells. In-flight counts
// survive the rollover (those requests land in some window), but only
// until inflight_until: a reservation that no answer ended by then belongs
// to a process that died mid-request.
const reserveSQL = `UPDATE api_rate_limits SET
			remaining      = CASE WHEN reset_at <= $2 THEN 1 ELSE remaining END,
			inflight       = CASE WHEN inflight_until < $2 THEN 1 ELSE inflight + 1 END,
			inflight_until = GREATEST(inflight_until, $2 + make_interval(secs => $4 / 1000.0)),
			observed       = CASE WHEN reset_at <= $2 THEN false ELSE observed END,
			probing        = CASE WHEN reset_at <= $2 THEN true ELSE probing END,
			reset_at       = CASE WHEN reset_at <= $2
			                      THEN $2 + make_interval(secs => COALESCE(NULLIF(period_ms, 0), $3) / 1000.0)
			                      ELSE reset_at END,
			updated_at     = now()
		WHERE bucket = $1 AND (reset_at <= $2 OR remaining - CASE WHEN inflight_until < $2 THEN 0 ELSE inflight END > 0)`

func reserveArgs(bucket string, now time.Time, ttl time.Duration) []any {
	return []any{bucket, now, defaultPeriod.Milliseconds(), ttl.Milliseconds()}
}

// ReserveEach implements batchStore: the observations' statements, then
// each bucket's reservation (the statement reserve sends), all of them in
// one round trip and one transaction.
func (s PGStore) ReserveEach(ctx context.Context, observed []Observation, buckets []string, now time.Time, ttl time.Duration) (ok []bool, err error) {
	b := &pgx.Batch{}
	queueObservations(b, observed)
	for _, bucket := range buckets {
		b.Queue(reserveSQL, reserveArgs(bucket, now, ttl)...)
	}
	br := s.Pool.SendBatch(ctx, b)
	defer func() {
		if cerr := br.Close(); err == nil {
			err = cerr
		}
	}()
	for range observed {
		if _, err := br.Exec(); err != nil {
			return nil, err
		}
	}
	ok = make([]bool, len(buckets))
	for i := range buckets {
		tag, err := br.Exec()
		if err != nil {
			return nil, err
		}
		ok[i] = tag.RowsAffected() == 1
	}
	return ok, nil
}

// Release implements BudgetStore.
func (s PGStore) Release(ctx context.Context, bucket string) error {
	_, err := s.Pool.Exec(ctx, releaseSQL, bucket)
	return err
}

const releaseSQL = `UPDATE api_rate_limits SET inflight = GREATEST(inflight - 1, 0) WHERE bucket = $1`

// Observe implements BudgetStore.
func (s PGStore) Observe(ctx context.Context, bucket string, rl RateLimit, now time.Time) error {
	_, err := s.Pool.Exec(ctx, observeSQL, observeArgs(bucket, rl, now)...)
	return err
}

// ObserveEach implements batchStore: Observe for each observation with a
// rate limit, Release for each without, in one round trip and one
// transaction.
func (s PGStore) ObserveEach(ctx context.Context, observed []Observation) error {
	b := &pgx.Batch{}
	queueObservations(b, observed)
	return s.Pool.SendBatch(ctx, b).Close()
}

func queueObservations(b *pgx.Batch, observed []Observation) {
	for _, o := range observed {
		if o.RL == nil {
			b.Queue(releaseSQL, o.Bucket)
			continue
		}
		b.Queue(observeSQL, observeArgs(o.Bucket, *o.RL, o.Now)...)
	}
}

func observeArgs(bucket string, rl RateLimit, now time.Time) []any {
	reset := rl.Reset
	if !now.Before(reset) {
		reset = now.Add(time.Second)
	}
	return []any{bucket, rl.Limit, rl.Remaining, reset}
}

// observeSQL records what the service reported for bucket $1: limit $2,
// remaining $3, reset $4 (see MemoryStore.Observe).
const observeSQL = `INSERT INTO api_rate_limits AS w (bucket, lim, remaining, reset_at, observed)
		VALUES ($1, $2, $3, $4, true)
		ON CONFLICT (bucket) DO UPDATE SET
			inflight  = GREATEST(w.inflight - 1, 0),
			lim       = CASE WHEN w.observed AND EXCLUDED.reset_at < w.reset_at - interval '1 second' THEN w.lim ELSE EXCLUDED.lim END,
			remaining = CASE
				WHEN w.observed AND EXCLUDED.reset_at < w.reset_at - interval '1 second' THEN w.remaining
				WHEN w.observed AND abs(extract(epoch FROM EXCLUDED.reset_at - w.reset_at)) <= 1 THEN LEAST(w.remaining, EXCLUDED.remaining)
				ELSE EXCLUDED.remaining END,
			period_ms = CASE WHEN w.period_ms = 0 AND w.observed AND EXCLUDED.reset_at > w.reset_at + interval '1 second'
				THEN (extract(epoch FROM EXCLUDED.reset_at - w.reset_at) * 1000)::bigint ELSE w.period_ms END,
			reset_at  = CASE WHEN w.observed AND EXCLUDED.reset_at < w.reset_at - interval '1 second' THEN w.reset_at ELSE EXCLUDED.reset_at END,
			observed  = true,
			probing   = CASE WHEN w.observed AND EXCLUDED.reset_at < w.reset_at - interval '1 second' THEN w.probing ELSE false END,
			updated_at = now()`
