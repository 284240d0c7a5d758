package stats

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/adsync/adsync/sync/api"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
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
	// intentServiceAt and intentSeen are the intent of the last POST (see
	// adopt.go); intentServiceAt is nil while no POST can have been sent
	// since the row's last reservation.
	intentServiceAt *time.Time
	intentSeen      []string
	// pendingSeq orders the row's becoming pending against the account's
	// listings (see adopt.go).
	pendingSeq int64
	failures   int
	// nextPollAt is the account's next poll round; fileURL and
	// fileExpires, the file of a job a poll saw SUCCESS (see poll.go).
	nextPollAt *time.Time
	// pollingUntil is the mark of a poll round asking about the row now
	// (see claimRound).
	pollingUntil *time.Time
	fileURL      *string
	fileExpires  *time.Time
}

func loadJob(ctx context.Context, pool *pgxpool.Pool, id int64) (jobRow, error) {
	r := jobRow{id: id}
	var raw []byte
	var sj *string
	err := pool.QueryRow(ctx, `SELECT query, state, service_job_id, intent_at, intent_service_at, intent_seen_jobs, pending_seq,
    failures, next_poll_at, polling_until, file_url, file_expires_at
FROM stats_jobs WHERE id = $1`, id).
		Scan(&raw, &r.state, &sj, &r.intentAt, &r.intentServiceAt, &r.intentSeen, &r.pendingSeq, &r.failures, &r.nextPollAt,
			&r.pollingUntil, &r.fileURL, &r.fileExpires)
	if err != nil {
		return r, fmt.Errorf("stats job %d: %w", id, err)
	}
	if sj != nil {
		r.serviceJobID = *sj
	}
	r.q, err = unmarshalQuery(raw)
	return r, err
}

// execer is a pool or a transaction.
type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// setJob updates row id with set (whose parameters start at $2) and adds to
// it the requests and 429 answers ctx's tally counted since, in the same
// statement: a row never looks finished before its counts are in.
func setJob(ctx context.Context, db execer, id int64, set string, args ...any) error {
	req, limited := api.TallyFrom(ctx).Take()
	n := len(args) + 2
	_, err := db.Exec(ctx, fmt.Sprintf(`UPDATE stats_jobs SET updated_at = now(), requests = requests + $%d, rate_limited = rate_limited + $%d, %s
WHERE id = $1`, n, n+1, set), append(append([]any{id}, args...), req, limited)...)
	return err
}

// forget is the update that sends a row back to pending, keeping its
// service job among those it had (never to be adopted again), and dropping
// what polls said of that job. Its new pending_seq keeps listings taken
// before from serving its next POST (see adopt.go).
const forget = `state = 'pending', past_job_ids = CASE WHEN service_job_id IS NULL THEN past_job_ids
    ELSE array_append(past_job_ids, service_job_id) END, service_job_id = NULL, intent_at = NULL, intent_service_at = NULL,
    intent_seen_jobs = NULL, pending_seq = nextval('stats_jobs_pending_seq'), ` + unpolled

// unpolled clears what polls said of a row's service job: part of every
// update that gives the row a service job or takes it away.
const unpolled = `next_poll_at = NULL, polling_until = NULL, polled_at = NULL, file_url = NULL, file_expires_at = NULL`

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
		return setJob(ctx, tx, id, `state = 'creating', intent_at = $2, intent_service_at = NULL, intent_seen_jobs = NULL`, now)
	})
	return ok, err
}

// Advance moves stats_jobs row id as far as it can now: reserve a slot and
// create the service job (its id recorded at once), poll it, download,
// gunzip and store its file in one transaction with the row's new state.
// It never sleeps: a job still running, a file not readable yet or an
// account without a free slot return a Step to wait, which River turns
// into a snooze. A row found in 'creating' after a POST (a lost answer, a
// crash) first looks for the job that POST created (see adopt.go), so a
// lost answer never leaves a second job and never takes another's; a job
// that ended FAILED, expired or vanished is created again, FAILED at most
// MaxJobFailures times. The requests it makes are counted on the row.
func (r *Runner) Advance(ctx context.Context, id int64) (Step, error) {
	ctx = api.WithTally(ctx, &api.Tally{})
	defer func() {
		// Requests of an attempt that changed no state (a wait, an error).
		if req, limited := api.TallyFrom(ctx).Take(); req+limited > 0 {
			_, _ = r.Pool.Exec(context.WithoutCancel(ctx), `UPDATE stats_jobs SET requests = requests + $2,
    rate_limited = rate_limited + $3 WHERE id = $1`, id, req, limited)
		}
	}()
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
			step, err := r.create(ctx, j)
			if err != nil || step != nil {
				return deref(step), err
			}
		case StateWaiting:
			step, again, err := r.wait(ctx, j)
			if err != nil || !again {
				return step, err
			}
		}
	}
}

// create adopts the job j's last POST created, if the service did, else
// records a new intent and posts the job. A step says to wait; none and no
// error, that the row moved on.
func (r *Runner) create(ctx context.Context, j jobRow) (*Step, error) {
	c, err := r.client(ctx, j.q.Account.ID)
	if err != nil {
		return nil, err
	}
	var in intent
	if j.intentServiceAt != nil {
		// A POST may have been sent: look for its job, down to its intent.
		jobs, date, err := recentJobs(ctx, c, j.q.Account.ID, *j.intentServiceAt)
		if err != nil {
			return nil, err
		}
		if found, err := r.claim(ctx, j, j.candidates(jobs)); err != nil || found {
			return nil, err
		}
		// Asked for after the row became pending: the next POST's intent.
		in = newIntent(jobs, date)
	} else if in, err = r.sharedIntent(ctx, c, j); err != nil {
		return nil, err
	}
	now := r.clock()
	if err := setJob(ctx, r.Pool, j.id, `intent_at = $2, intent_service_at = $3, intent_seen_jobs = $4`, now, in.at, in.seen); err != nil {
		return nil, err
	}
	sj, err := CreateJob(ctx, c, j.q, now)
	if errors.Is(err, ErrTooManyJobs) {
		// Refused, so created nothing; jobs adsync does not know of hold
		// the slots: try later.
		return &Step{Wait: tooManyJobs}, setJob(ctx, r.Pool, j.id, forget)
	}
	if err != nil {
		return nil, err // still 'creating' with the intent: the next attempt looks for the job first
	}
	if err := checkParams("stats job "+sj.ID, j.q.Account.ID, j.q.values(now), sj.jobParams); err != nil {
		return nil, fmt.Errorf("account %s: creating a stats job: %w", j.q.Account.ID, err)
	}
	// The job is not looked at before the time jobs take (see poll.go).
	next := due(now, r.clock(), r.expected(ctx))
	return nil, setJob(ctx, r.Pool, j.id, `state = 'waiting', service_job_id = $2, polled_at = NULL, file_url = NULL, file_expires_at = NULL,
    next_poll_at = $3`, sj.ID, next)
}

// asked are the values j's service job was asked with.
func (r *Runner) asked(j jobRow) url.Values {
	if j.intentAt != nil {
		return j.q.values(*j.intentAt) // the offset in force when the job was asked for
	}
	return j.q.values(r.clock())
}

// store downloads sj's file and stores its rows with j's new state in one
// transaction.
func (r *Runner) store(ctx context.Context, j jobRow, sj ServiceJob, asked url.Values, expires time.Time) (Step, bool, error) {
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
		return Step{}, false, fmt.Errorf("account %s: stats job %s: %w", j.q.Account.ID, sj.ID, err)
	}
	rows, err := Decode(j.q, asked, body)
	if err != nil {
		return Step{}, false, fmt.Errorf("account %s: the file of stats job %s: %w", j.q.Account.ID, sj.ID, err)
	}
	err = pgx.BeginFunc(ctx, r.Pool, func(tx pgx.Tx) error {
		if err := replaceTx(ctx, tx, j.q, rows, sj.ID); err != nil {
			return err
		}
		return setJob(ctx, tx, j.id, `state = 'stored', rows_stored = $2, expires_at = $3`, len(rows), expires)
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

// JobsRequests sums up the requests a run's asynchronous jobs made (job
// POSTs, listings, file downloads) and the 429 answers they got.
func JobsRequests(ctx context.Context, pool *pgxpool.Pool, runID int64) (requests, rateLimited int, err error) {
	err = pool.QueryRow(ctx, `SELECT coalesce(sum(requests), 0), coalesce(sum(rate_limited), 0) FROM stats_jobs WHERE run_id = $1`,
		runID).Scan(&requests, &rateLimited)
	return requests, rateLimited, err
}

// GiveUp marks row id failed with reason (its River job will not run
// again), so its run can finish and name what is missing.
func GiveUp(ctx context.Context, pool *pgxpool.Pool, id int64, reason string) error {
	return setJob(ctx, pool, id, `state = 'failed', error = $2`, reason)
}
