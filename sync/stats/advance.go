package stats

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Job states of stats_jobs.
const (
	StatePending  = "pending"
	StateCreating = "creating"
	StateWaiting  = "waiting"
	StateStored   = "stored"
	StateFailed   = "failed"
)

// MaxJobFailures is how many service jobs of one request may end FAILED
// before the request is given up and its ids and days reported missing.
const MaxJobFailures = 3

// Polling and waiting intervals (the service's jobs take minutes).
const (
	pollMin        = 2 * time.Second
	pollMax        = time.Minute
	tooManyJobs    = 30 * time.Second
	fileRetryDelay = 5 * time.Second
)

// Enqueuer inserts, in tx, the job that advances each stats_jobs row.
type Enqueuer func(ctx context.Context, tx pgx.Tx, ids []int64) error

// AddJobs records in tx one stats_jobs row per query of run and hands
// their ids to enqueue.
func AddJobs(ctx context.Context, tx pgx.Tx, runID int64, qs []Query, enqueue Enqueuer) ([]int64, error) {
	var ids []int64
	for _, q := range qs {
		b, err := q.marshal()
		if err != nil {
			return nil, err
		}
		var id int64
		if err := tx.QueryRow(ctx, `INSERT INTO stats_jobs (run_id, account_id, query) VALUES ($1, $2, $3) RETURNING id`,
			runID, q.Account.ID, b).Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	return ids, enqueue(ctx, tx, ids)
}

// jobRow is one stats_jobs row.
type jobRow struct {
	id           int64
	q            Query
	state        string
	serviceJobID string
	intentAt     *time.Time
	failures     int
}

func loadJob(ctx context.Context, pool *pgxpool.Pool, id int64) (jobRow, error) {
	r := jobRow{id: id}
	var raw []byte
	var sj *string
	err := pool.QueryRow(ctx, `SELECT query, state, service_job_id, intent_at, failures FROM stats_jobs WHERE id = $1`, id).
		Scan(&raw, &r.state, &sj, &r.intentAt, &r.failures)
	if err != nil {
		return r, fmt.Errorf("stats job %d: %w", id, err)
	}
	if sj != nil {
		r.serviceJobID = *sj
	}
	r.q, err = unmarshalQuery(raw)
	return r, err
}

func setJob(ctx context.Context, pool *pgxpool.Pool, id int64, set string, args ...any) error {
	_, err := pool.Exec(ctx, `UPDATE stats_jobs SET updated_at = now(), `+set+` WHERE id = $1`, append([]any{id}, args...)...)
	return err
}

// Step is what Advance says to do next: come back after Wait, or nothing
// (Done).
type Step struct {
	Done bool
	Wait time.Duration
}

// reserve takes one of the account's MaxActiveJobs slots for row id:
// under an advisory lock per account, it counts the rows of every worker
// that are creating or waiting and moves id to creating when there is room.
func reserve(ctx context.Context, pool *pgxpool.Pool, id int64, accountID string, now time.Time) (bool, error) {
	ok := false
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('adsync stats jobs ' || $1))`, accountID); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM stats_jobs WHERE account_id = $1 AND state IN ('creating', 'waiting')`,
			accountID).Scan(&n); err != nil {
			return err
		}
		if n >= MaxActiveJobs {
			return nil
		}
		ok = true
		_, err := tx.Exec(ctx, `UPDATE stats_jobs SET state = 'creating', intent_at = $2, service_job_id = NULL, updated_at = now()
WHERE id = $1`, id, now)
		return err
	})
	return ok, err
}

// Advance moves stats_jobs row id as far as it can now: reserve a slot and
// create the service job (its id recorded at once), poll it, download,
// gunzip and store its file in one transaction with the row's new state.
// It never sleeps: a job still running, a file not readable yet or an
// account without a free slot return a Step to wait, which River turns
// into a snooze. A row found in 'creating' (a crash around the POST) first
// looks for its job among the account's jobs created since, so a crash never
// leaves a second job; a job that ended FAILED, expired or vanished is
// created again, FAILED at most MaxJobFailures times.
func (r *Runner) Advance(ctx context.Context, id int64) (Step, error) {
	resumed := true
	for {
		j, err := loadJob(ctx, r.Pool, id)
		if err != nil {
			return Step{}, err
		}
		switch j.state {
		case StateStored, StateFailed:
			return Step{Done: true}, nil
		case StatePending:
			ok, err := reserve(ctx, r.Pool, id, j.q.Account.ID, r.clock())
			if err != nil {
				return Step{}, err
			}
			if !ok {
				return Step{Wait: tooManyJobs}, nil
			}
		case StateCreating:
			if resumed && j.intentAt != nil {
				found, err := r.adopt(ctx, j)
				if err != nil {
					return Step{}, err
				}
				if found != "" {
					if err := setJob(ctx, r.Pool, id, `state = 'waiting', service_job_id = $2`, found); err != nil {
						return Step{}, err
					}
					continue
				}
			}
			sj, err := CreateJob(ctx, r.Client, j.q, r.clock())
			if errors.Is(err, ErrTooManyJobs) {
				// Jobs adsync does not know of hold the slots: try later.
				return Step{Wait: tooManyJobs}, setJob(ctx, r.Pool, id, `state = 'pending', intent_at = NULL`)
			}
			if err != nil {
				return Step{}, err // still 'creating': the next attempt looks for the job first
			}
			if err := setJob(ctx, r.Pool, id, `state = 'waiting', service_job_id = $2`, sj.ID); err != nil {
				return Step{}, err
			}
		case StateWaiting:
			step, again, err := r.poll(ctx, j)
			if err != nil || !again {
				return step, err
			}
		}
		resumed = false
	}
}

// adoptSkew is how far the service's clock (a job's created_at) may be
// behind ours (intent_at) and a job still count as created after the
// intent; the service refuses signatures off by more than about 5 minutes.
const adoptSkew = 5 * time.Minute

// adopt finds the service job a crashed attempt created for j: the
// newest of the account's jobs with j's parameters created since intent_at
// (by this process's clock, less adoptSkew).
func (r *Runner) adopt(ctx context.Context, j jobRow) (string, error) {
	jobs, err := ListJobs(ctx, r.Client, j.q.Account.ID, nil)
	if err != nil {
		return "", err
	}
	v := j.q.values(*j.intentAt) // the offset in force when the job was asked for
	for _, sj := range jobs {
		created, err := time.Parse(time.RFC3339, sj.CreatedAt)
		if err != nil || created.Before(j.intentAt.Add(-adoptSkew)) || sj.Status == JobFailed {
			continue
		}
		if sj.matches(v) {
			return sj.ID, nil
		}
	}
	return "", nil
}

// poll looks at j's service job; again says the row changed state and
// Advance should go on.
func (r *Runner) poll(ctx context.Context, j jobRow) (Step, bool, error) {
	list, err := ListJobs(ctx, r.Client, j.q.Account.ID, []string{j.serviceJobID})
	if err != nil {
		return Step{}, false, err
	}
	if len(list) == 0 {
		// Deleted or forgotten by the service: create it again.
		return Step{}, true, setJob(ctx, r.Pool, j.id, `state = 'pending', service_job_id = NULL, intent_at = NULL`)
	}
	sj := list[0]
	now := r.clock()
	switch sj.Status {
	case JobFailed:
		if j.failures+1 >= MaxJobFailures {
			return Step{Done: true}, false, setJob(ctx, r.Pool, j.id, `state = 'failed', failures = failures + 1, error = $2`,
				fmt.Sprintf("service job %s ended FAILED (%d times)", sj.ID, j.failures+1))
		}
		return Step{}, true, setJob(ctx, r.Pool, j.id, `state = 'pending', failures = failures + 1, service_job_id = NULL, intent_at = NULL`)
	case JobSuccess:
	default:
		age := time.Duration(0)
		if c, err := time.Parse(time.RFC3339, sj.CreatedAt); err == nil {
			age = now.Sub(c)
		}
		return Step{Wait: min(max(age/4, pollMin), pollMax)}, false, nil
	}
	var expires time.Time
	if sj.ExpiresAt != nil {
		expires, _ = time.Parse(time.RFC3339, *sj.ExpiresAt)
	}
	if sj.URL == nil || (!expires.IsZero() && !now.Before(expires)) {
		return Step{}, true, setJob(ctx, r.Pool, j.id, `state = 'pending', service_job_id = NULL, intent_at = NULL`)
	}
	hc := r.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 5 * time.Minute}
	}
	body, err := Download(ctx, hc, *sj.URL)
	if errors.Is(err, ErrFileUnavailable) {
		// Users report URLs of jobs just marked SUCCESS failing for a
		// while: wait for it, up to its expiry.
		return Step{Wait: fileRetryDelay}, false, nil
	}
	if err != nil {
		return Step{}, false, err
	}
	rows, err := Decode(j.q, body)
	if err != nil {
		return Step{}, false, err
	}
	err = pgx.BeginFunc(ctx, r.Pool, func(tx pgx.Tx) error {
		if err := replaceTx(ctx, tx, j.q, rows, sj.ID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE stats_jobs SET state = 'stored', rows_stored = $2, expires_at = $3, updated_at = now()
WHERE id = $1`, j.id, len(rows), expires)
		return err
	})
	return Step{Done: true}, false, err
}

// JobsStatus sums up a run's asynchronous jobs: how many are still open,
// the rows the stored ones wrote, and what the failed ones leave missing.
func JobsStatus(ctx context.Context, pool *pgxpool.Pool, runID int64) (open, rows int, missing []string, err error) {
	rs, err := pool.Query(ctx, `SELECT state, coalesce(rows_stored, 0), query FROM stats_jobs WHERE run_id = $1 ORDER BY id`, runID)
	if err != nil {
		return 0, 0, nil, err
	}
	defer rs.Close()
	for rs.Next() {
		var state string
		var n int
		var raw []byte
		if err := rs.Scan(&state, &n, &raw); err != nil {
			return 0, 0, nil, err
		}
		switch state {
		case StateStored:
			rows += n
		case StateFailed:
			q, err := unmarshalQuery(raw)
			if err != nil {
				return 0, 0, nil, err
			}
			missing = append(missing, q.Describe())
		default:
			open++
		}
	}
	return open, rows, missing, rs.Err()
}

// GiveUp marks row id failed with reason (its River job will not run
// again), so its run can finish and name what is missing.
func GiveUp(ctx context.Context, pool *pgxpool.Pool, id int64, reason string) error {
	return setJob(ctx, pool, id, `state = 'failed', error = $2`, reason)
}
