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
// its row. A poll round marks the rows it asks about under an advisory
// lock per account, so rows waking at once make one request, not one each;
// the lock is let go before the request, and the answers are recorded in a
// transaction of their own: no transaction waits on the service.
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
	if j.pollingUntil != nil && now.Before(*j.pollingUntil) {
		// Another row's round is asking about this one: its answer is
		// usually on the row within milliseconds.
		return Step{Wait: min(j.pollingUntil.Sub(now), roundWait)}, false, nil
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

// pollLease is how long the rows a poll round asks about wait for its
// answers before another worker may ask again: a listing takes well under
// it, and a round whose worker died is taken up after it. A round that
// outlives it costs a second listing, never a second record (see
// updateJob).
const pollLease = 15 * time.Second

// roundWait is how long a row that wakes during another row's poll round
// waits before it looks again: a round takes well under it, and its
// answers end the wait (the lease bounds only a round whose worker died).
const roundWait = time.Second

// pollAccount runs a poll round of j's account (unless another worker ran
// one since j was due): every waiting row of the account whose job is not
// known to be done is looked at, MaxPollIDs a request. No transaction and
// no lock is held while the service answers: the round takes the
// account's lock to read its rows and mark them being polled (claimRound),
// asks the service, then records the answers in a short transaction of
// its own (recordRound). j's own record not answering its request is an
// error (other rows' mismatches are left to their own attempts).
func (r *Runner) pollAccount(ctx context.Context, j jobRow) error {
	account := j.q.Account.ID
	c, err := r.client(ctx, account)
	if err != nil {
		return err
	}
	expected := r.expected(ctx)
	open, err := r.claimRound(ctx, j)
	if err != nil || len(open) == 0 {
		return err
	}
	answers, err := r.listOpen(ctx, c, account, open)
	if err != nil {
		// The rows need not wait out the lease for a round that ended.
		ids := make([]int64, len(open))
		for i, o := range open {
			ids[i] = o.id
		}
		_, _ = r.Pool.Exec(context.WithoutCancel(ctx), `UPDATE stats_jobs SET polling_until = NULL WHERE id = ANY($1)`, ids)
		return err
	}
	return r.recordRound(ctx, j, answers, expected)
}

// claimRound takes the lock of j's account's poll rounds, reads the rows
// to look at and marks them being polled until pollLease from now
// (polling_until), and lets the lock go with its transaction: a row that
// wakes meanwhile finds itself being polled and looks again after
// roundWait, rather than asking the service the same again.
// None when another worker polled j since it was due.
func (r *Runner) claimRound(ctx context.Context, j jobRow) ([]openRow, error) {
	var open []openRow
	err := pgx.BeginFunc(ctx, r.Pool, func(tx pgx.Tx) error {
		polled, err := r.polledSince(ctx, tx, j)
		if err != nil || polled {
			return err
		}
		if open, err = openRows(ctx, tx, j.q.Account.ID); err != nil {
			return err
		}
		ids := make([]int64, len(open))
		for i, o := range open {
			ids[i] = o.id
		}
		_, err = tx.Exec(ctx, `UPDATE stats_jobs SET polling_until = $2 WHERE id = ANY($1)`, ids, r.clock().Add(pollLease))
		return err
	})
	if err != nil {
		return nil, err
	}
	return open, nil
}

// polledSince reports, under the lock of j's account's poll rounds (held
// for the rest of tx), whether another worker polled j, or is polling it,
// since j was due (j is no longer waiting on the same job, or has its
// file, or is not yet due).
func (r *Runner) polledSince(ctx context.Context, tx pgx.Tx, j jobRow) (bool, error) {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('adsync stats poll ' || $1))`, j.q.Account.ID); err != nil {
		return false, err
	}
	var fresh bool
	if err := tx.QueryRow(ctx, `SELECT state <> 'waiting' OR service_job_id IS DISTINCT FROM $2 OR file_url IS NOT NULL
    OR coalesce(next_poll_at > $3, false) OR coalesce(polling_until > $3, false) FROM stats_jobs WHERE id = $1`, j.id, j.serviceJobID, r.clock()).Scan(&fresh); err != nil {
		return false, err
	}
	return fresh, nil
}

// pollAnswer is what a poll round heard of one row's job: sj, nil when the
// service no longer lists it, at the time of the answer.
type pollAnswer struct {
	o  openRow
	sj *ServiceJob
	at time.Time
}

// listOpen asks the service about open's jobs, MaxPollIDs a request.
func (r *Runner) listOpen(ctx context.Context, c *api.Client, account string, open []openRow) ([]pollAnswer, error) {
	out := make([]pollAnswer, 0, len(open))
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
			p := pollAnswer{o: o, at: now}
			if i := slices.IndexFunc(list, func(sj ServiceJob) bool { return sj.ID == o.job }); i >= 0 {
				p.sj = &list[i]
			}
			out = append(out, p)
		}
	}
	return out, nil
}

// recordRound records each answer on its row, sets when the rows still
// open are next looked at (the earliest of their due times, pollMin from
// now at the soonest) and counts the round's requests on j, in one short
// transaction. A row another worker recorded first is left as it left it.
func (r *Runner) recordRound(ctx context.Context, j jobRow, answers []pollAnswer, expected time.Duration) error {
	var own error
	err := pgx.BeginFunc(ctx, r.Pool, func(tx pgx.Tx) error {
		var still, answered []int64
		var round time.Time
		for _, p := range answers {
			answered = append(answered, p.o.id)
			isOpen, err := r.record(ctx, tx, p.o, p.sj, p.at)
			switch {
			case err != nil && p.o.id == j.id:
				own = err
			case err != nil:
				// Left as it is: the row's own attempt polls it and meets
				// the error itself.
			case isOpen:
				still = append(still, p.o.id)
				var asked time.Time
				if p.o.asked != nil {
					asked = *p.o.asked
				}
				if d := due(asked, p.at, expected); round.IsZero() || d.Before(round) {
					round = d
				}
			}
		}
		if len(still) > 0 {
			round = maxTime(round, r.clock().Add(pollMin))
			if _, err := tx.Exec(ctx, `UPDATE stats_jobs SET next_poll_at = $2, updated_at = now() WHERE id = ANY($1)`,
				still, round); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE stats_jobs SET polling_until = NULL WHERE id = ANY($1)`, answered); err != nil {
			return err
		}
		req, limited := api.TallyFrom(ctx).Take()
		_, err := tx.Exec(ctx, `UPDATE stats_jobs SET requests = requests + $2, rate_limited = rate_limited + $3 WHERE id = $1`,
			j.id, req, limited)
		return err
	})
	if err != nil {
		return err
	}
	return own
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
		_, err := updateJob(ctx, tx, o, forget)
		return false, err
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
			_, err := updateJob(ctx, tx, o, `state = 'failed', failures = failures + 1, error = $2`,
				fmt.Sprintf("service job %s ended FAILED (%d times)", sj.ID, o.failures+1))
			return false, err
		}
		_, err := updateJob(ctx, tx, o, forget+`, failures = failures + 1`)
		return false, err
	case JobSuccess:
	default:
		// Still open, unless another round recorded the row meanwhile.
		return updateJob(ctx, tx, o, `polled_at = $2`, now)
	}
	var expires time.Time
	if sj.ExpiresAt != nil {
		expires, _ = parseJobTime(*sj.ExpiresAt)
	}
	if sj.URL == nil || (!expires.IsZero() && !now.Before(expires)) {
		_, err := updateJob(ctx, tx, o, forget)
		return false, err
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
	_, err := updateJob(ctx, tx, o, `polled_at = $2, file_url = $3, file_expires_at = $4, job_seconds = $5`,
		now, *sj.URL, exp, secs)
	return false, err
}

// updateJob updates row o with set (whose parameters start at $2) in a
// poll round's record, only while the row still waits, without a file, on
// the job the round asked about: rounds ask the service outside any lock,
// so two may answer the same row, and the second finds it recorded (a
// FAILED job counts once, a file is kept) and leaves it. It says whether
// it updated the row. The round's requests are counted apart.
func updateJob(ctx context.Context, tx pgx.Tx, o openRow, set string, args ...any) (bool, error) {
	job := len(args) + 2
	tag, err := tx.Exec(ctx, fmt.Sprintf(`UPDATE stats_jobs SET updated_at = now(), %s
WHERE id = $1 AND state = 'waiting' AND service_job_id = $%d AND file_url IS NULL`, set, job),
		append(append([]any{o.id}, args...), o.job)...)
	return tag.RowsAffected() == 1, err
}
