package stats

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/adsync/adsync/sync/api"
	"github.com/jackc/pgx/v5"
)

// Waiting for service jobs, per account.
//
// Each stats_jobs row has its own River job, but the rows of an account do
// not poll one by one: the row whose snooze ends first at a poll round
// lists every open job of the account in one request (job_ids, up to
// MaxPollIDs; more take ceil(N/MaxPollIDs) requests) and records on every
// row what the service said: SUCCESS (the file's URL and expiry, which the
// row downloads when its own River job runs), FAILED, gone or expired (the
// row's state moves as it would have after a poll of its own), still open
// (the account's next round, next_poll_at, which the row snoozes until).
// A row whose River job wakes before the round snoozes again without a
// request; one whose job was polled by another row finds the answer on
// its row. A poll round runs under an advisory lock per account, so rows
// waking at once make one request, not one each.
//
// When to look: the spec gives no time estimate (no field of the job
// record says how long it will take; "A job may stay QUEUED or PROCESSING
// for minutes"), so a job is first looked at after the time recent jobs
// took: the median of the last ObservedJobs SUCCESS records' updated_at
// minus created_at (the service's own clock, whole seconds), kept on each
// row as job_seconds. A job still open after that is looked at again after
// a quarter of its age (at least pollMin, at most pollMax): a backoff that
// asks a job running for a minute every 15 seconds and one running for
// long once a minute. With nothing observed yet (a new database) the first
// look is after pollMin. The account's round is the earliest time any of
// its open jobs is due; the others ride along at no cost.

// MaxPollIDs is how many job ids one job listing takes (spec: job_ids, up
// to 200).
const MaxPollIDs = 200

// ObservedJobs is how many of the latest finished jobs' durations the
// expected duration of a job is the median of.
const ObservedJobs = 20

// maxExpected caps the expected duration (an outlier must not park every
// later job for long).
const maxExpected = 15 * time.Minute

// expected is how long jobs have been taking: the median of the last
// ObservedJobs durations, 0 when none is known or on an error (the
// backoff alone then decides).
func (r *Runner) expected(ctx context.Context) time.Duration {
	var secs *float64
	err := r.Pool.QueryRow(ctx, `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY job_seconds) FROM (
    SELECT job_seconds FROM stats_jobs WHERE job_seconds IS NOT NULL ORDER BY updated_at DESC LIMIT $1) s`, ObservedJobs).Scan(&secs)
	if err != nil || secs == nil {
		return 0
	}
	return min(time.Duration(*secs*float64(time.Second)), maxExpected)
}

// due is when a job asked for at asked and still open at now is next
// looked at, given jobs take expected.
func due(asked, now time.Time, expected time.Duration) time.Time {
	if first := asked.Add(expected); now.Before(first) {
		return first
	}
	return now.Add(min(max(now.Sub(asked)/4, pollMin), pollMax))
}

// wait moves a waiting row on: it downloads the file a poll found, waits
// for the account's next round, or polls the account now. again says the
// row may have changed state and Advance should go on.
func (r *Runner) wait(ctx context.Context, j jobRow) (Step, bool, error) {
	now := r.clock()
	if j.fileURL != nil {
		var expires time.Time
		if j.fileExpires != nil {
			expires = *j.fileExpires
		}
		if !expires.IsZero() && !now.Before(expires) {
			return Step{}, true, setJob(ctx, r.Pool, j.id, forget)
		}
		return r.store(ctx, j, ServiceJob{ID: j.serviceJobID, URL: j.fileURL}, r.asked(j), expires)
	}
	if j.nextPollAt != nil && now.Before(*j.nextPollAt) {
		return Step{Wait: j.nextPollAt.Sub(now)}, false, nil
	}
	return Step{}, true, r.pollAccount(ctx, j)
}

// openRow is a waiting row a poll round looks at.
type openRow struct {
	id       int64
	q        Query
	job      string
	asked    *time.Time
	failures int
}

// pollAccount runs a poll round of j's account (unless another worker ran
// one since j was due): every waiting row of the account whose job is not
// known to be done is looked at, MaxPollIDs a request. j's own record not
// answering its request is an error (other rows' mismatches are left to
// their own attempts).
func (r *Runner) pollAccount(ctx context.Context, j jobRow) error {
	account := j.q.Account.ID
	c, err := r.client(ctx, account)
	if err != nil {
		return err
	}
	expected := r.expected(ctx)
	var own error
	err = pgx.BeginFunc(ctx, r.Pool, func(tx pgx.Tx) error {
		polled, err := r.polledSince(ctx, tx, j)
		if err != nil || polled {
			return err
		}
		open, err := openRows(ctx, tx, account)
		if err != nil {
			return err
		}
		if own, err = r.pollRows(ctx, tx, c, j, open, expected); err != nil {
			return err
		}
		// The round's requests, counted on the row that made them, last:
		// the transaction is done with the service.
		req, limited := api.TallyFrom(ctx).Take()
		_, err = tx.Exec(ctx, `UPDATE stats_jobs SET requests = requests + $2, rate_limited = rate_limited + $3 WHERE id = $1`,
			j.id, req, limited)
		return err
	})
	if err != nil {
		return err
	}
	return own
}

// polledSince takes the lock of j's account's poll rounds, for the rest
// of tx, and reports whether another worker polled j while this one waited
// for it (j is no longer waiting on the same job, or has its file, or is
// not yet due).
func (r *Runner) polledSince(ctx context.Context, tx pgx.Tx, j jobRow) (bool, error) {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('adsync stats poll ' || $1))`, j.q.Account.ID); err != nil {
		return false, err
	}
	var fresh bool
	if err := tx.QueryRow(ctx, `SELECT state <> 'waiting' OR service_job_id IS DISTINCT FROM $2 OR file_url IS NOT NULL
    OR coalesce(next_poll_at > $3, false) FROM stats_jobs WHERE id = $1`, j.id, j.serviceJobID, r.clock()).Scan(&fresh); err != nil {
		return false, err
	}
	return fresh, nil
}

// pollRows asks the service about open's jobs, MaxPollIDs a request,
// records each answer, and sets when the rows still open are next looked
// at (the earliest of their due times, pollMin from now at the soonest).
// own is the error of recording j's own row.
func (r *Runner) pollRows(ctx context.Context, tx pgx.Tx, c *api.Client, j jobRow, open []openRow, expected time.Duration) (own, err error) {
	account := j.q.Account.ID
	var still []int64
	var round time.Time
	for chunk := range slices.Chunk(open, MaxPollIDs) {
		ids := make([]string, len(chunk))
		for i, o := range chunk {
			ids[i] = o.job
		}
		list, err := ListJobs(ctx, c, account, ids)
		if err != nil {
			return nil, err
		}
		now := r.clock()
		for _, o := range chunk {
			i := slices.IndexFunc(list, func(sj ServiceJob) bool { return sj.ID == o.job })
			var sj *ServiceJob
			if i >= 0 {
				sj = &list[i]
			}
			isOpen, err := r.record(ctx, tx, o, sj, now)
			switch {
			case err != nil && o.id == j.id:
				own = err
			case err != nil:
				// Left as it is: the row's own attempt polls it and meets
				// the error itself.
			case isOpen:
				still = append(still, o.id)
				var asked time.Time
				if o.asked != nil {
					asked = *o.asked
				}
				if d := due(asked, now, expected); round.IsZero() || d.Before(round) {
					round = d
				}
			}
		}
	}
	if len(still) > 0 {
		round = maxTime(round, r.clock().Add(pollMin))
		if _, err := tx.Exec(ctx, `UPDATE stats_jobs SET next_poll_at = $2, updated_at = now() WHERE id = ANY($1)`,
			still, round); err != nil {
			return nil, err
		}
	}
	return own, nil
}

// openRows are the account's waiting rows whose job is not known to be
// done.
func openRows(ctx context.Context, tx pgx.Tx, account string) ([]openRow, error) {
	rows, err := tx.Query(ctx, `SELECT id, query, service_job_id, intent_at, failures FROM stats_jobs
WHERE account_id = $1 AND state = 'waiting' AND service_job_id IS NOT NULL AND file_url IS NULL ORDER BY id`, account)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (openRow, error) {
		var o openRow
		var raw []byte
		if err := row.Scan(&o.id, &raw, &o.job, &o.asked, &o.failures); err != nil {
			return o, err
		}
		o.q, err = unmarshalQuery(raw)
		return o, err
	})
}

// record writes on row o what a poll at now found of its job (sj; nil:
// the service no longer lists it) and says whether the job is still open.
// Before anything is recorded the record must answer the row's request.
func (r *Runner) record(ctx context.Context, tx pgx.Tx, o openRow, sj *ServiceJob, now time.Time) (bool, error) {
	if sj == nil {
		// Deleted or forgotten by the service: create it again.
		return false, updateJob(ctx, tx, o.id, forget)
	}
	asked := o.q.values(now)
	if o.asked != nil {
		asked = o.q.values(*o.asked) // the offset in force when the job was asked for
	}
	if err := checkParams("stats job "+o.job, o.q.Account.ID, asked, sj.jobParams); err != nil {
		return false, fmt.Errorf("account %s: %w", o.q.Account.ID, err)
	}
	switch sj.Status {
	case JobFailed:
		if o.failures+1 >= MaxJobFailures {
			return false, updateJob(ctx, tx, o.id, `state = 'failed', failures = failures + 1, error = $2`,
				fmt.Sprintf("service job %s ended FAILED (%d times)", sj.ID, o.failures+1))
		}
		return false, updateJob(ctx, tx, o.id, forget+`, failures = failures + 1`)
	case JobSuccess:
	default:
		return true, updateJob(ctx, tx, o.id, `polled_at = $2`, now)
	}
	var expires time.Time
	if sj.ExpiresAt != nil {
		expires, _ = parseJobTime(*sj.ExpiresAt)
	}
	if sj.URL == nil || (!expires.IsZero() && !now.Before(expires)) {
		return false, updateJob(ctx, tx, o.id, forget)
	}
	var secs *int
	created, ok1 := parseJobTime(sj.CreatedAt)
	updated, ok2 := parseJobTime(sj.UpdatedAt)
	if ok1 && ok2 && !updated.Before(created) {
		s := int(updated.Sub(created) / time.Second)
		secs = &s
	}
	var exp *time.Time
	if !expires.IsZero() {
		exp = &expires
	}
	return false, updateJob(ctx, tx, o.id, `polled_at = $2, file_url = $3, file_expires_at = $4, job_seconds = $5`,
		now, *sj.URL, exp, secs)
}

// updateJob updates row id with set (whose parameters start at $2) in a
// poll round's transaction; the round's requests are counted apart.
func updateJob(ctx context.Context, tx pgx.Tx, id int64, set string, args ...any) error {
	_, err := tx.Exec(ctx, fmt.Sprintf(`UPDATE stats_jobs SET updated_at = now(), %s WHERE id = $1`, set), append([]any{id}, args...)...)
	return err
}
